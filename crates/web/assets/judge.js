// verdict pages: one submission's view. V.judge.view(report, submission, onSelect, selected)
// draws every task (status colour plus text, score, run time and memory against the limits it
// ran under), the dependency graph, a chart of run time and memory per test, and the selected
// task's details (logs, the first differing line, gtest/valgrind/static tables).
"use strict";
(function () {
  const V = window.V;
  const h = V.h;

  const KIND = {
    Accepted: "ok",
    "Partial Correct": "partial",
    Pending: "pending", Running: "pending", Compiling: "pending",
    "Dependency Not Satisfied": "skip", "Out of Contest Time": "skip",
    "Compilation Error": "error", "Executable Compilation Error": "error", "Random Gen Error": "error",
    "Compare Error": "error", "System Error": "error",
  };
  /** The colour class of a status (every other status is a failed test: red). */
  const statusKind = (status) => KIND[status] || "fail";
  const inProgress = (status) => statusKind(status) === "pending";
  const statusBadge = (status) => V.badge(status, statusKind(status));

  /** What a task does, from its scripts. */
  function taskKind(task) {
    if (!task) return "task";
    if (task.check_script === "compile") return "compile";
    if (task.check_script === "static") return "static";
    if (task.run_script === "gtest") return "gtest";
    if (task.run_script === "valgrind") return "valgrind";
    if (task.is_random) return "random test";
    if (typeof task.testcase_id === "number" && task.testcase_id >= 0) return "test #" + task.testcase_id;
    return "test";
  }

  const limit = (x) => (typeof x === "number" && x >= 0 ? x : undefined);

  /** `wrong answer at line 3: expected "1 2", got "1 3"` -> {place, expected, got}. */
  function parseWrongAnswer(log) {
    const quoted = '(end of file|"(?:[^"\\\\]|\\\\.)*")';
    const m = new RegExp("wrong answer at ([^:]+): expected " + quoted + ", got " + quoted, "s").exec(log || "");
    if (!m) return null;
    const unquote = (s) => (s === "end of file" ? null : s.slice(1, -1));
    return { place: m[1], expected: unquote(m[2]), got: unquote(m[3]) };
  }

  function diffView(wa) {
    const cell = (title, text, cls) => h("div", { class: "diff-side " + cls },
      h("div", { class: "diff-title" }, title),
      text === null ? h("em", {}, "end of file") : h("pre", { class: "mono diff-line" }, text));
    return h("div", { class: "diff", "aria-label": "first difference" },
      h("p", {}, "First difference at ", h("strong", {}, wa.place), ":"),
      h("div", { class: "diff-cols" }, cell("expected", wa.expected, "diff-expected"), cell("got", wa.got, "diff-got")));
  }

  function reportView(report) {
    if (!report) return null;
    if (Array.isArray(report.errors)) {
      return h("section", { class: "sub" }, h("h3", {}, `Memory check (${report.tool}): ${report.error_count} errors`),
        V.table(["kind", "what", "leaked", "where"], report.errors.map((e) => {
          const frame = (e.stack || []).find((f) => f.file) || (e.stack || [])[0] || {};
          return h("tr", {}, h("td", {}, e.kind), h("td", {}, e.what),
            h("td", { class: "num" }, e.bytes_leaked !== undefined ? `${e.bytes_leaked} B in ${e.blocks_leaked} blocks` : "–"),
            h("td", { class: "mono" }, [frame.function, frame.file ? `${frame.file}:${frame.line}` : frame.object].filter(Boolean).join(" at ")));
        })));
    }
    if (typeof report.total_cases === "number") {
      return h("section", { class: "sub" },
        h("h3", {}, `Google Test: ${report.pass_cases} of ${report.total_cases} passed`),
        V.table(["total", "passed", "errors", "disabled"], [h("tr", {},
          [report.total_cases, report.pass_cases, report.error_cases, report.disabled_cases].map((x) => h("td", { class: "num" }, x)))]),
        (report.report || []).length ? V.table(["suite", "case", "param", "message"], report.report.map((c) =>
          h("tr", {}, h("td", {}, c.suite), h("td", {}, c.case), h("td", {}, c.param || "–"), h("td", {}, h("pre", { class: "mono" }, c.message))))) : null);
    }
    if (report.summary && Array.isArray(report.violation)) {
      const s = report.summary;
      return h("section", { class: "sub" },
        h("h3", {}, `Static analysis (${report.version}): ${report.violation.length} violations`),
        h("p", {}, `${s.number_of_files_with_violations} of ${s.number_of_files} files with violations; by priority: `,
          (s.number_of_violations_with_priority || []).map((p) => `P${p.priority}: ${p.number}`).join(", ") || "none"),
        report.violation.length ? V.table(["where", "rule", "category", "priority", "message"], report.violation.map((v) =>
          h("tr", {}, h("td", { class: "mono" }, `${v.path}:${v.start_line}:${v.start_column}`), h("td", {}, v.rule),
            h("td", {}, v.category), h("td", { class: "num" }, v.priority), h("td", {}, v.message)))) : null);
    }
    return h("section", { class: "sub" }, h("h3", {}, "Report"), V.json(report));
  }

  function limitsView(task) {
    if (!task) return h("p", { class: "muted" }, "Limits unknown: this submission was not sent from this tab.");
    const rows = [
      ["time", limit(task.time_limit) === undefined ? "none" : V.fmtMs(task.time_limit)],
      ["memory", limit(task.memory_limit) === undefined ? "none" : V.fmtKB(task.memory_limit)],
      ["file", limit(task.file_limit) === undefined ? "none" : V.fmtKB(task.file_limit)],
      ["processes", limit(task.proc_limit) === undefined ? "none" : task.proc_limit],
    ];
    return h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", {}, k + " limit"), h("dd", {}, v)]));
  }

  /** Why a task was skipped: its parent's status and the condition it needed. */
  function dependencyNote(index, tasks, results, onSelect) {
    const task = tasks[index];
    if (!task || typeof task.depends_on !== "number" || task.depends_on < 0) return null;
    const parent = task.depends_on;
    const parentResult = results[parent];
    const link = h("button", { type: "button", class: "link", onclick: () => onSelect(parent) }, "task #" + parent);
    const r = results[index];
    if (r && r.status === "Dependency Not Satisfied") {
      return h("p", { class: "dep-note" }, "Skipped because ", link, " ended ",
        parentResult ? statusBadge(parentResult.status) : "?", ` (this task needs ${task.depends_cond || "it to finish"}).`);
    }
    return h("p", { class: "dep-note" }, "Runs after ", link, task.depends_cond ? ` when it is ${task.depends_cond}.` : ".");
  }

  function taskDetail(index, report, submission, onSelect) {
    const r = report.results[index];
    const tasks = (submission && submission.judge_tasks) || [];
    const task = tasks[index];
    if (!r) return null;
    const wa = parseWrongAnswer(r.error_log);
    return h("section", { class: "card task-detail", id: "task-detail", tabindex: "-1" },
      h("h2", {}, `Task #${index} · ${taskKind(task)} `, statusBadge(r.status)),
      dependencyNote(index, tasks, report.results, onSelect),
      h("dl", { class: "facts" },
        h("dt", {}, "score"), h("dd", {}, r.score),
        h("dt", {}, "run time"), h("dd", {}, V.fmtMs(r.run_time)),
        h("dt", {}, "memory"), h("dd", {}, V.fmtKB(r.memory_used))),
      limitsView(task),
      wa ? diffView(wa) : null,
      r.error_log ? h("section", { class: "sub" }, h("h3", {}, task && task.check_script === "compile" ? "Compiler output" : "Log"),
        h("pre", { class: "mono log" }, r.error_log)) : null,
      reportView(r.report));
  }

  /** The dependency forest as an SVG: one node per task, arrows parent -> child. */
  function graphView(report, submission, onSelect, selected) {
    const tasks = (submission && submission.judge_tasks) || [];
    if (!tasks.length) return null;
    const depth = tasks.map(() => 0);
    tasks.forEach((t, i) => {
      let d = 0, p = t.depends_on, guard = 0;
      while (typeof p === "number" && p >= 0 && p < tasks.length && guard++ < tasks.length) {
        d++;
        p = tasks[p].depends_on;
      }
      depth[i] = d;
    });
    const rows = [];
    depth.forEach((d, i) => (rows[d] = rows[d] || []).push(i));
    const nodeW = 92, nodeH = 30, gapX = 14, gapY = 34;
    const width = Math.max(...rows.map((r) => r.length)) * (nodeW + gapX) + gapX;
    const height = rows.length * (nodeH + gapY) + 10;
    const pos = [];
    rows.forEach((r, d) => r.forEach((i, k) => (pos[i] = { x: gapX + k * (nodeW + gapX), y: 6 + d * (nodeH + gapY) })));
    const svg = V.s("svg", { class: "graph", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "task dependencies" },
      V.s("title", {}, "task dependencies: an arrow goes from the task that must finish first"),
      V.s("defs", {}, V.s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" },
        V.s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head" }))));
    tasks.forEach((t, i) => {
      const p = t.depends_on;
      if (typeof p !== "number" || p < 0 || !pos[p]) return;
      const r = report.results[i];
      const blocked = r && r.status === "Dependency Not Satisfied";
      svg.appendChild(V.s("line", {
        x1: pos[p].x + nodeW / 2, y1: pos[p].y + nodeH, x2: pos[i].x + nodeW / 2, y2: pos[i].y,
        class: "edge" + (blocked ? " edge-blocked" : ""), "marker-end": "url(#arrow)",
      }, V.s("title", {}, `#${p} → #${i}` + (t.depends_cond ? ` (${t.depends_cond})` : "") + (blocked ? ": not satisfied" : ""))));
    });
    tasks.forEach((t, i) => {
      const r = report.results[i];
      const status = r ? r.status : "Pending";
      const g = V.s("g", { class: "node s-" + statusKind(status) + (i === selected ? " node-selected" : ""), "data-task": i },
        V.s("title", {}, `task #${i} (${taskKind(t)}): ${status}`),
        V.s("rect", { x: pos[i].x, y: pos[i].y, width: nodeW, height: nodeH, rx: 5 }),
        V.s("text", { x: pos[i].x + nodeW / 2, y: pos[i].y + 13, class: "mid node-label" }, `#${i} ${taskKind(t)}`),
        V.s("text", { x: pos[i].x + nodeW / 2, y: pos[i].y + 25, class: "mid node-status" }, status.length > 16 ? status.slice(0, 15) + "…" : status));
      g.addEventListener("click", () => onSelect(i));
      svg.appendChild(g);
    });
    return h("figure", { class: "graph-box" }, h("figcaption", {}, "Dependencies (arrows from the task that runs first; dashed: not satisfied)"),
      h("div", { class: "scroll" }, svg));
  }

  /** Run time and memory per test, against the limits. */
  function chartView(report, submission) {
    const tasks = (submission && submission.judge_tasks) || [];
    const tests = report.results.map((r, i) => ({ r, i, t: tasks[i] }))
      .filter(({ r, t }) => (t ? t.check_script !== "compile" && t.check_script !== "static" : r.run_time > 0 || r.memory_used > 0));
    if (!tests.length) return null;
    const time = tests.map(({ r, i, t }) => ({
      label: "#" + i, value: r.run_time, limit: t && limit(t.time_limit),
      text: V.fmtMs(r.run_time) + (t && limit(t.time_limit) ? " / " + V.fmtMs(t.time_limit) : ""),
    }));
    const memory = tests.map(({ r, i, t }) => ({
      label: "#" + i, value: r.memory_used, limit: t && limit(t.memory_limit),
      text: V.fmtKB(r.memory_used) + (t && limit(t.memory_limit) ? " / " + V.fmtKB(t.memory_limit) : ""),
    }));
    return h("div", { class: "charts" }, V.limitBars("run time per test", time), V.limitBars("memory per test", memory));
  }

  function summary(report) {
    let num = 0, den = 0;
    report.results.forEach((r) => {
      const m = /^(\d+)\/(\d+)$/.exec(r.score || "");
      if (m) {
        num += +m[1];
        den += +m[2];
      }
    });
    const done = report.results.filter((r) => !inProgress(r.status)).length;
    return { num, den, done, total: report.results.length };
  }

  /** The whole submission view. */
  function view(report, submission, onSelect, selected, live) {
    const tasks = (submission && submission.judge_tasks) || [];
    const sum = summary(report);
    const rows = report.results.map((r, i) => {
      const t = tasks[i];
      const dep = t && typeof t.depends_on === "number" && t.depends_on >= 0 ? t.depends_on : null;
      return h("tr", { class: (i === selected ? "selected " : "") + "task-row", "data-task": i, "data-status": r.status },
        h("td", { class: "num" }, h("button", { type: "button", class: "link task-open", onclick: () => onSelect(i) }, "#" + i)),
        h("td", {}, taskKind(t)),
        h("td", { class: "status-cell" }, statusBadge(r.status)),
        h("td", { class: "num" }, r.score),
        h("td", { class: "num" }, V.fmtMs(r.run_time), t && limit(t.time_limit) !== undefined ? h("span", { class: "muted" }, " / " + V.fmtMs(t.time_limit)) : null),
        h("td", { class: "num" }, V.fmtKB(r.memory_used), t && limit(t.memory_limit) !== undefined ? h("span", { class: "muted" }, " / " + V.fmtKB(t.memory_limit)) : null),
        h("td", {}, dep === null ? "–" : [h("button", { type: "button", class: "link", onclick: () => onSelect(dep) }, "← #" + dep),
          t.depends_cond ? h("span", { class: "muted" }, " " + t.depends_cond) : null]));
    });
    return [
      h("section", { class: "card" },
        h("h1", {}, "Submission ", h("span", { class: "mono" }, report.sub_id)),
        h("p", { class: "facts-line" }, `problem ${report.prob_id} · category ${report.category} · `,
          h("strong", { id: "sub-progress" }, `${sum.done} of ${sum.total} tasks finished`), ` · score ${sum.num}/${sum.den}`,
          live ? h("span", { class: "live", "aria-live": "polite" }, " · live") : null),
        report.message ? h("p", { class: "error-box" }, report.message) : null,
        V.table(["task", "kind", "status", "score", "run time / limit", "memory / limit", "after"], rows, { class: "tasks", id: "tasks" })),
      h("section", { class: "card two" }, graphView(report, submission, onSelect, selected), chartView(report, submission)),
      selected !== null && selected !== undefined ? taskDetail(selected, report, submission, onSelect) : null,
    ];
  }

  V.judge = { view, statusKind, inProgress, parseWrongAnswer, taskKind };
})();
