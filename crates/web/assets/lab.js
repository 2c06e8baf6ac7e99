// verdict pages: the Agent Lab viewer. V.lab.render(root, {title, runs, scores, notes}) draws
// the runs table (sort, filter), one run's trace as a timeline, its steps and scores with their
// evidence, and aggregates per task type and metric. Used by `judge view` (one HTML file) and by
// the server page (its lab runs).
"use strict";
(function () {
  const V = window.V;
  const h = V.h;

  /** A run's task type: the scenario, else the type its `started` event names. */
  function runType(run) {
    if (run.taskType === "scenario") return "scenario";
    for (const ev of run.trace || []) {
      if (ev.event === "started" && ev.data && typeof ev.data.type === "string") return ev.data.type;
    }
    return (run.provenance && run.provenance.runnerId) || run.taskType || "atomic";
  }

  function targetKind(target) {
    return typeof target === "string" && target.startsWith("step:") ? "step" : String(target);
  }

  function scoreNumber(value) {
    if (typeof value === "boolean") return value ? 1 : 0;
    return typeof value === "number" && isFinite(value) ? value : undefined;
  }

  /** A score's value as text (a badge adds its own ✓ or ✗ mark). */
  function fmtScore(value) {
    if (typeof value === "boolean") return value ? "true" : "false";
    return V.fmtNum(value);
  }

  /** Metrics that measure what a run cost, not how well it did. */
  const RESOURCE_METRICS = ["latency", "tokens", "cost"];

  /**
   * Whether every quality score of a run failed (false, or 0; resource metrics aside): a
   * completed run that reached nothing.
   */
  function allScoresFailed(scores) {
    const values = scores.filter((s) => !String(s.target).startsWith("step:") && !RESOURCE_METRICS.includes(s.metric))
      .map((s) => s.value);
    return values.length > 0 && values.every((v) => v === false || v === 0);
  }

  function statusBadge(status) {
    const kind = { completed: "ok", failed: "fail", skipped: "skip", running: "pending", pending: "pending" }[status] || "skip";
    return V.badge(status || "–", kind);
  }

  const LEVEL_KIND = { error: "fail", warn: "partial", info: "info", debug: "skip" };

  /** Aggregates: per (task type, metric, target kind): mean, standard error, count. */
  function aggregate(runs, scores) {
    const typeOf = new Map(runs.map((r) => [r.id, runType(r)]));
    const groups = new Map();
    for (const s of scores) {
      const x = scoreNumber(s.value);
      if (x === undefined || !typeOf.has(s.runId)) continue;
      const key = [typeOf.get(s.runId), s.metric, targetKind(s.target)].join("\u0000");
      if (!groups.has(key)) groups.set(key, { type: typeOf.get(s.runId), metric: s.metric, target: targetKind(s.target), values: [], bool: typeof s.value === "boolean" });
      groups.get(key).values.push(x);
    }
    return [...groups.values()].map((g) => Object.assign(g, V.stats(g.values)))
      .sort((a, b) => (a.metric + a.target + a.type).localeCompare(b.metric + b.target + b.type));
  }

  function aggregatesView(runs, scores) {
    const rows = aggregate(runs, scores);
    if (!rows.length) return h("section", { class: "card" }, h("h2", {}, "Aggregates"), h("p", { class: "muted" }, "No numeric scores."));
    const fmt = (g, x) => (g.bool ? (100 * x).toFixed(1) + "%" : V.fmtNum(x));
    const table = V.table(["task type", "metric", "target", "mean", "std. error", "n"], rows.map((g) =>
      h("tr", {}, h("td", {}, g.type), h("td", {}, g.metric), h("td", {}, g.target),
        h("td", { class: "num" }, fmt(g, g.mean)), h("td", { class: "num" }, fmt(g, g.se)), h("td", { class: "num" }, g.n))));
    // One small chart per metric of the final/global scores: a bar per task type, ± one SE.
    const charts = h("div", { class: "charts" });
    const byMetric = new Map();
    rows.filter((g) => g.target !== "step").forEach((g) => {
      const key = g.metric + " (" + g.target + ")";
      if (!byMetric.has(key)) byMetric.set(key, []);
      byMetric.get(key).push(g);
    });
    for (const [metric, groups] of byMetric) {
      const bool = groups.every((g) => g.bool);
      charts.appendChild(V.meanBars(metric, groups.map((g) => ({ label: g.type, mean: g.mean, se: g.se, n: g.n })),
        (x) => (bool ? (100 * x).toFixed(0) + "%" : V.fmtNum(x, 2))));
    }
    return h("section", { class: "card", id: "aggregates" }, h("h2", {}, "Aggregates"),
      h("p", { class: "muted" }, "Booleans count as 1 (true) and 0 (false); standard error = sample standard deviation / √n."),
      charts, table);
  }

  /** The trace as a timeline: per step (scenarios), levels coloured, data expandable. */
  function traceView(run) {
    const trace = run.trace || [];
    if (!trace.length) return h("p", { class: "muted" }, "No trace events.");
    const t0 = Date.parse(run.startedAt || trace[0].timestamp);
    const tEnd = Math.max(t0 + 1, ...trace.map((e) => Date.parse(e.timestamp)).filter(isFinite), Date.parse(run.completedAt) || 0);
    const span = tEnd - t0;
    const groups = [];
    for (const ev of trace) {
      const key = ev.step || "";
      const last = groups[groups.length - 1];
      if (last && last.step === key) last.events.push(ev);
      else groups.push({ step: key, events: [ev] });
    }
    const steps = new Map((run.steps || []).map((s) => [s.stepId, s]));
    const list = h("ol", { class: "timeline" });
    for (const g of groups) {
      const step = steps.get(g.step);
      const header = g.step
        ? h("li", { class: "tl-step" }, h("span", { class: "tl-step-name" }, "step ", h("strong", {}, g.step), step ? " · " + step.stepName : ""),
          step ? statusBadge(step.status) : null)
        : null;
      if (header) list.appendChild(header);
      for (const ev of g.events) {
        const t = Date.parse(ev.timestamp);
        const offset = isFinite(t) && isFinite(t0) ? t - t0 : NaN;
        const pos = isFinite(offset) ? Math.max(0, Math.min(100, (100 * offset) / span)) : 0;
        const lane = h("span", { class: "tl-lane", "aria-hidden": "true" });
        const dot = h("span", { class: "tl-dot lvl-" + (LEVEL_KIND[ev.level] || "skip") });
        dot.style.left = pos.toFixed(2) + "%";
        lane.appendChild(dot);
        const hasData = ev.data !== undefined && ev.data !== null;
        const summary = h("span", { class: "tl-head" },
          h("span", { class: "tl-time mono" }, isFinite(offset) ? "+" + V.fmtMs(offset) : "–"),
          h("span", {}, V.badge(ev.level || "–", LEVEL_KIND[ev.level] || "skip")),
          lane,
          h("span", { class: "tl-event" }, ev.event));
        const item = h("li", { class: "tl-item" + (g.step ? " in-step" : "") + (ev.level === "error" ? " tl-error" : "") });
        if (hasData) item.appendChild(V.details(summary, () => V.json(ev.data)));
        else item.appendChild(h("div", { class: "tl-nodata" }, summary));
        list.appendChild(item);
      }
    }
    return list;
  }

  function stepsView(run) {
    if (!run.steps || !run.steps.length) return null;
    return h("section", { class: "sub" }, h("h3", {}, "Steps"),
      V.table(["step", "name", "status", "latency", "output / error"], run.steps.map((s) =>
        h("tr", { class: s.status === "failed" ? "row-fail" : null },
          h("td", { class: "mono" }, s.stepId), h("td", {}, s.stepName), h("td", {}, statusBadge(s.status)),
          h("td", { class: "num" }, V.fmtMs(s.latency)),
          h("td", {}, s.error ? h("pre", { class: "mono error" }, s.error)
            : s.output !== undefined ? V.details("output", () => V.json(s.output)) : "–")))));
  }

  function evidenceView(ev) {
    if (!ev) return "–";
    return h("div", { class: "evidence" },
      ev.explanation ? h("p", {}, ev.explanation) : null,
      ev.snippets && ev.snippets.length ? h("ul", { class: "snippets" }, ev.snippets.map((s) => h("li", { class: "mono" }, s))) : null,
      ev.alignment ? V.details("alignment", () => V.json(ev.alignment)) : null);
  }

  function scoresView(scores) {
    if (!scores.length) return h("p", { class: "muted" }, "No scores for this run.");
    return V.table(["metric", "value", "target", "evaluator", "evidence"], scores.map((s) =>
      h("tr", {},
        h("td", {}, s.metric),
        h("td", { class: "num" }, typeof s.value === "boolean" ? V.badge(fmtScore(s.value), s.value ? "ok" : "fail") : fmtScore(s.value)),
        h("td", { class: "mono" }, s.target), h("td", {}, s.evaluatorId), h("td", {}, evidenceView(s.evidence)))));
  }

  function runDetail(run, scores) {
    const m = run.metrics || {};
    return h("section", { class: "card run-detail", id: "run-detail", tabindex: "-1", "aria-label": "run " + run.id },
      h("h2", {}, "Run of ", h("span", { class: "mono" }, run.taskId), " ", runStatus(run, scores)),
      h("dl", { class: "facts" },
        h("dt", {}, "run id"), h("dd", { class: "mono" }, run.id),
        h("dt", {}, "task type"), h("dd", {}, runType(run) + " (" + run.taskType + ")"),
        h("dt", {}, "latency"), h("dd", {}, V.fmtMs(m.latency)),
        h("dt", {}, "tokens"), h("dd", {}, V.fmtNum(m.tokens)),
        h("dt", {}, "cost"), h("dd", {}, m.cost === undefined ? "–" : "$" + V.fmtNum(m.cost, 6)),
        h("dt", {}, "started"), h("dd", {}, V.fmtTime(run.startedAt)),
        h("dt", {}, "runner"), h("dd", {}, run.provenance ? run.provenance.runnerId + " " + run.provenance.runnerVersion : "–")),
      run.error ? h("div", { class: "error-box" },
        h("p", {}, h("strong", {}, "Error"), run.error.step ? [" at step ", h("strong", { class: "mono failed-step" }, run.error.step)] : null, ": ", run.error.message),
        run.error.stack ? h("pre", { class: "mono error" }, run.error.stack) : null) : null,
      stepsView(run),
      h("section", { class: "sub" }, h("h3", {}, "Trace"), traceView(run)),
      h("section", { class: "sub" }, h("h3", {}, "Scores"), scoresView(scores)),
      h("section", { class: "sub" }, h("h3", {}, "Output and provenance"),
        run.output !== undefined ? V.details("output", () => V.json(run.output)) : null,
        V.details("provenance", () => V.json(run.provenance))));
  }

  /** A completed run whose every score failed gets a hint beside its green badge. */
  function runStatus(run, scores) {
    return [statusBadge(run.status),
      run.status === "completed" && allScoresFailed(scores) ? [" ", V.badge("every score failed", "fail")] : null];
  }

  /**
   * Draws the viewer into `root`; returns {update(data)} to show newer records while keeping the
   * filter, the sort and the open run. data: {title, runs, scores, notes, runLink(id) -> href}.
   */
  function render(root, data) {
    let runs = [], scores = [], byRun = new Map();
    const runLink = data.runLink || ((id) => "#run=" + encodeURIComponent(id));
    const filterText = h("input", { type: "search", id: "run-filter", placeholder: "task, type, error…", "aria-label": "filter runs" });
    const filterStatus = h("select", { id: "run-status", "aria-label": "run status" },
      ["all", "completed", "failed", "running", "pending"].map((s) => h("option", { value: s }, s)));
    const detail = h("div", { id: "run-detail-slot" });
    const summary = h("p", { id: "run-summary" });
    const aggregates = h("div", { id: "aggregates-slot" });
    let selected = null;

    function select(run, focus) {
      selected = run ? run.id : null;
      V.replace(detail, run ? runDetail(run, byRun.get(run.id) || []) : null);
      table.update(visible());
      if (run && focus) {
        const node = document.getElementById("run-detail");
        if (node) {
          node.focus();
          node.scrollIntoView({ block: "start" });
        }
      }
    }

    const table = V.sortable([
      { key: "taskId", label: "task", value: (r) => r.taskId,
        cell: (r) => h("button", { type: "button", class: "link run-open", "data-run": r.id, onclick: () => select(r, true) }, r.taskId) },
      { key: "status", label: "status", value: (r) => r.status, cell: (r) => runStatus(r, byRun.get(r.id) || []) },
      { key: "type", label: "type", value: runType, cell: runType },
      { key: "latency", label: "latency", numeric: true, value: (r) => r.metrics && r.metrics.latency, cell: (r) => V.fmtMs(r.metrics && r.metrics.latency) },
      { key: "tokens", label: "tokens", numeric: true, value: (r) => r.metrics && r.metrics.tokens, cell: (r) => V.fmtNum(r.metrics && r.metrics.tokens) },
      { key: "cost", label: "cost", numeric: true, value: (r) => r.metrics && r.metrics.cost, cell: (r) => (r.metrics && r.metrics.cost !== undefined ? "$" + V.fmtNum(r.metrics.cost, 6) : "–") },
      { key: "scores", label: "scores", value: (r) => (byRun.get(r.id) || []).length,
        cell: (r) => h("span", { class: "chips" }, (byRun.get(r.id) || []).filter((s) => !String(s.target).startsWith("step:")).map((s) =>
          h("span", { class: "chip" + (s.value === false ? " chip-fail" : s.value === true ? " chip-ok" : "") },
            s.metric + " " + (s.value === true ? "✓" : s.value === false ? "✗" : fmtScore(s.value))))) },
      { key: "startedAt", label: "started", value: (r) => r.startedAt, cell: (r) => V.fmtTime(r.startedAt) },
      { key: "link", label: "link", value: (r) => r.id,
        cell: (r) => h("a", { href: runLink(r.id), class: "run-link", "aria-label": "link to run " + r.id, onclick: () => select(r, true) }, "#") },
    ], { sortKey: "startedAt", rowClass: (r) => (r.id === selected ? "selected" : r.status === "failed" ? "row-fail" : null) });

    function visible() {
      const q = filterText.value.trim().toLowerCase();
      const st = filterStatus.value;
      return runs.filter((r) => (st === "all" || r.status === st) &&
        (!q || [r.taskId, runType(r), r.status, r.error && r.error.message, r.error && r.error.step, r.id]
          .some((x) => x && String(x).toLowerCase().includes(q))));
    }
    const count = h("span", { class: "muted", id: "run-count" });
    function refresh() {
      const rows = visible();
      count.textContent = `${rows.length} of ${runs.length} runs`;
      table.update(rows);
    }
    filterText.addEventListener("input", refresh);
    filterStatus.addEventListener("change", refresh);

    function update(next) {
      runs = (next && next.runs) || [];
      scores = (next && next.scores) || [];
      byRun = new Map();
      scores.forEach((s) => {
        if (!byRun.has(s.runId)) byRun.set(s.runId, []);
        byRun.get(s.runId).push(s);
      });
      const failed = runs.filter((r) => r.status === "failed").length;
      V.replace(summary, `${runs.length} runs, ${runs.length - failed} completed or running, `,
        h("strong", { class: failed ? "text-fail" : null }, `${failed} failed`), `, ${scores.length} scores.`);
      V.replace(aggregates, aggregatesView(runs, scores));
      refresh();
      const open = runs.find((r) => r.id === selected);
      if (open) V.replace(detail, runDetail(open, byRun.get(open.id) || []));
    }

    V.replace(root,
      h("section", { class: "card" },
        h("h1", {}, data.title || "Agent Lab runs"),
        summary,
        (data.notes || []).map((n) => h("p", { class: "note" }, n)),
        h("div", { class: "toolbar" }, h("label", {}, "Filter ", filterText), h("label", {}, "Status ", filterStatus), count),
        table.node),
      detail,
      aggregates);
    update(data);
    const wanted = (location.hash.match(/run=([^&]+)/) || [])[1];
    const first = runs.find((r) => r.id === decodeURIComponent(wanted || "")) || runs.find((r) => r.status === "failed");
    if (first) select(first, false);
    return { update };
  }

  V.lab = { render, runType, aggregate };
})();
