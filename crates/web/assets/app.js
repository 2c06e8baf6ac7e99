// verdict pages: the judge-server page. Routes (in the address's #fragment):
//   #/submit            paste, upload or load an example Submission and send it
//   #/s/<sub_id>[/<i>][?category=<c>]  one submission, live (its event stream read with fetch),
//                       task i open; sub_ids are unique per category, so links name it
//   #/queue             recent submissions (filter by category and status) and the metrics
//   #/lab               the server's Agent Lab runs (the same viewer as `judge view`)
// The token lives in this tab only (sessionStorage) and goes out as `Authorization: Bearer`.
"use strict";
(function () {
  const V = window.V;
  const h = V.h;
  const TOKEN_KEY = "verdict.token";
  const SUB_KEY = "verdict.sub.";
  const main = document.getElementById("main");
  const nav = document.getElementById("nav");
  const signout = document.getElementById("signout");
  let leave = () => {}; // stops what the current view runs (streams, timers)

  // ---- token and requests -------------------------------------------------------------------
  const token = () => sessionStorage.getItem(TOKEN_KEY);
  const authHeaders = () => (token() ? { Authorization: "Bearer " + token() } : {});

  async function api(path, options) {
    const opts = Object.assign({}, options || {});
    opts.headers = Object.assign({}, opts.headers || {}, authHeaders());
    const res = await fetch(path, opts);
    if (res.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      showToken("The server refused the token; enter it again.");
      throw new Error("unauthorized");
    }
    return res;
  }

  async function errorText(res) {
    try {
      const body = await res.json();
      if (body && body.error && body.error.message) return body.error.message;
      if (body && body.message) return body.message;
    } catch (_) { /* not JSON */ }
    return `HTTP ${res.status}`;
  }

  function showToken(message) {
    leave();
    nav.hidden = true;
    signout.hidden = true;
    const input = h("input", { id: "token", type: "password", autocomplete: "off", required: false, "aria-describedby": "token-help" });
    const error = h("p", { id: "token-error", class: "error-text", role: "alert" }, message || "");
    const form = h("form", { id: "token-form", class: "card narrow" },
      h("h1", {}, "verdict"),
      h("label", { for: "token" }, "Access token"), input,
      h("p", { id: "token-help", class: "muted" }, "Kept in this tab only (sessionStorage); sent as a bearer token. Leave it empty when the server runs without tokens."),
      h("button", { type: "submit", id: "token-submit" }, "Continue"), error);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      sessionStorage.setItem(TOKEN_KEY, input.value.trim());
      const res = await fetch("/metrics", { headers: authHeaders() }).catch((err) => ({ ok: false, status: 0, err }));
      if (res.status === 401 || res.status === 403) {
        sessionStorage.removeItem(TOKEN_KEY);
        error.textContent = "The server refused this token.";
        input.focus();
        return;
      }
      startMetrics();
      route();
    });
    V.replace(main, form);
    input.focus();
  }

  signout.addEventListener("click", () => {
    sessionStorage.clear();
    showToken("Signed out.");
  });

  // ---- submit -------------------------------------------------------------------------------
  let examples = null;
  async function loadExamples() {
    if (!examples) {
      const res = await fetch("/assets/examples.json");
      examples = res.ok ? await res.json() : [];
    }
    return examples;
  }

  function submitView() {
    const text = h("textarea", { id: "submission", rows: 18, spellcheck: "false", class: "mono", "aria-label": "Submission JSON" });
    const select = h("select", { id: "example", "aria-label": "example submission" }, h("option", { value: "" }, "choose an example…"));
    const file = h("input", { type: "file", id: "upload", accept: ".json,application/json" });
    const error = h("div", { id: "submit-error", role: "alert" });
    const send = h("button", { type: "submit", id: "submit" }, "Submit");
    loadExamples().then((list) => list.forEach((ex) => select.appendChild(h("option", { value: ex.name }, ex.name))));
    select.addEventListener("change", () => {
      const ex = (examples || []).find((e) => e.name === select.value);
      if (!ex) return;
      // A fresh sub_id, so the same example can be sent again while an earlier one runs.
      const sub = Object.assign({}, ex.submission, { sub_id: `${ex.name}-${Date.now().toString(36)}` });
      text.value = JSON.stringify(sub, null, 2);
    });
    file.addEventListener("change", async () => {
      if (file.files && file.files[0]) text.value = await file.files[0].text();
    });
    const form = h("form", { class: "card", id: "submit-form" },
      h("h1", {}, "Submit"),
      h("div", { class: "toolbar" },
        h("label", {}, "Start from an example ", select),
        h("label", {}, "or upload a file ", file)),
      h("label", { for: "submission" }, "Submission (JSON, as in the judge's request format)"), text,
      h("div", { class: "toolbar" }, send), error);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      V.replace(error);
      let sub;
      try {
        sub = JSON.parse(text.value);
      } catch (err) {
        V.replace(error, h("p", { class: "error-box" }, "Not JSON: " + err.message));
        return;
      }
      send.disabled = true;
      try {
        const res = await api("/v1/submissions", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(sub) });
        if (res.status !== 202) {
          V.replace(error, h("p", { class: "error-box" }, `Refused (${res.status}): ` + (await errorText(res))));
          return;
        }
        const accepted = await res.json();
        try {
          sessionStorage.setItem(SUB_KEY + subKey(accepted.sub_id, sub.category), JSON.stringify(sub));
        } catch (_) { /* too large for the tab's storage: shown without limits */ }
        location.hash = submissionHash(accepted.sub_id, sub.category);
      } catch (err) {
        if (err.message !== "unauthorized") V.replace(error, h("p", { class: "error-box" }, String(err)));
      } finally {
        send.disabled = false;
      }
    });
    V.replace(main, form);
  }

  // ---- one submission, live -----------------------------------------------------------------
  /** Reads a text/event-stream with fetch (EventSource cannot send Authorization). */
  async function readEvents(path, signal, onEvent) {
    const res = await api(path, { signal, headers: { Accept: "text/event-stream" } });
    if (!res.ok) throw new HttpError(res.status, await errorText(res));
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let type = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") type = val;
          else if (field === "data") data.push(val);
        }
        if (data.length) onEvent(type, JSON.parse(data.join("\n")));
      }
    }
  }

  /** An HTTP answer that is not a success (a network failure is a TypeError instead). */
  class HttpError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }
  /** Whether a failure may pass by itself (the server away or restarting): retry then. */
  const transient = (err) => !(err instanceof HttpError) || err.status >= 500 || err.status === 429;

  /** Waits `ms`, or less when `signal` aborts. */
  const pause = (ms, signal) => new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

  /** A submission's address in the page: its sub_id, the task open, and its category. */
  function submissionHash(subId, category, index) {
    return "#/s/" + encodeURIComponent(subId) + (index === null || index === undefined ? "" : "/" + index) +
      (category ? "?category=" + encodeURIComponent(category) : "");
  }

  /** The tab's key of a submission: sub_ids are unique per category only. */
  const subKey = (subId, category) => (category ? category + "/" : "") + subId;

  /** The Submission this tab sent, if it did (else the server's plan is read). */
  function storedSubmission(subId, category) {
    try {
      const stored = sessionStorage.getItem(SUB_KEY + subKey(subId, category));
      return stored ? JSON.parse(stored) : null;
    } catch (_) {
      return null;
    }
  }

  function submissionView(subId, selectedIndex, category) {
    const controller = new AbortController();
    const signal = controller.signal;
    const path = "/v1/submissions/" + encodeURIComponent(subId);
    // Without it, a token bound to no category gets 409 for a sub_id that several categories hold.
    const query = category ? "?category=" + encodeURIComponent(category) : "";
    let view = null; // V.judge.mount's handle, once the first snapshot is in
    let report = null;
    let live = true;
    let refreshTimer = null;
    leave = () => {
      controller.abort();
      clearTimeout(refreshTimer);
    };

    const onSelect = (i) => history.replaceState(null, "", submissionHash(subId, category, i));

    /** Cancels the submission (DELETE): no task starts after it, the running ones are stopped;
     *  its final report then arrives as any other. */
    async function onCancel() {
      const res = await api(path + query, { method: "DELETE", signal });
      if (!res.ok) {
        if (view) view.setConnection("Not cancelled: " + await errorText(res));
        return;
      }
      const done = await res.json();
      if (res.headers.get("Verdict-Complete") === "true") {
        live = false;
        report = done;
        if (view) {
          view.setReport(report);
          view.setLive(false);
        }
      }
    }

    /** Reads the snapshot; whether the submission is finished. */
    async function snapshot() {
      const res = await api(path + query, { signal });
      if (!res.ok) throw new HttpError(res.status, await errorText(res));
      const next = await res.json();
      const complete = res.headers.get("Verdict-Complete") === "true";
      if (report && !complete) {
        // Keep results the stream already delivered; take the server's in-progress statuses.
        next.results = next.results.map((r, i) => {
          const have = report.results[i];
          return have && !V.judge.inProgress(have.status) ? have : r;
        });
      }
      report = next;
      if (complete) live = false;
      if (!view) {
        const mine = storedSubmission(subId, category);
        view = V.judge.mount(main, { report, submission: mine, selected: selectedIndex, onSelect, onCancel });
        loadPlan(mine);
      } else {
        view.setReport(report);
      }
      view.setLive(live);
      return complete;
    }

    /** The server's plan of the submission (its tasks and inputs, and the judge's own limits of
     *  compile and static tasks), for every viewer; the tab that sent it takes the limits alone. */
    async function loadPlan(mine) {
      try {
        const res = await api(path + "/plan" + query, { signal });
        if (!res.ok || !view) return;
        const plan = await res.json();
        const judge_limits = plan.judge_limits || [];
        // The shape the view reads: judge_tasks, and test_data with each datum's inputs.
        view.setSubmission(mine ? Object.assign({}, mine, { judge_limits }) : {
          judge_tasks: plan.judge_tasks || [],
          test_data: (plan.test_inputs || []).map((inputs) => ({ inputs })),
          judge_limits,
        });
      } catch (_) { /* shown without: the snapshot loop reports a lost server */ }
    }

    function onEvent(type, data) {
      if (type === "task") {
        if (report.results[data.index] === undefined) return;
        report.results[data.index] = data.result;
        view.setResult(data.index, data.result);
        // Which tasks moved from Pending to Running: the snapshot says, once a burst is over.
        clearTimeout(refreshTimer);
        refreshTimer = setTimeout(() => snapshot().catch(() => {}), 300);
      } else if (type === "report") {
        clearTimeout(refreshTimer);
        live = false;
        report = data;
        view.setReport(report);
        view.setLive(false);
      }
    }

    (async () => {
      V.replace(main, h("p", { class: "card" }, "Loading submission ", h("span", { class: "mono" }, subId), "…"));
      let failures = 0;
      while (!signal.aborted) {
        try {
          if (await snapshot()) break;
          if (view) view.setConnection(null);
          failures = 0;
          await readEvents(path + "/events" + query, signal, onEvent);
          if (!live) break;
          // The stream ended before the report: read the snapshot again (and the stream).
        } catch (err) {
          if (signal.aborted || err.message === "unauthorized") return;
          if (!transient(err)) {
            const message = String(err.message || err);
            if (view) view.setConnection("The server answers: " + message);
            else V.replace(main, h("div", { class: "card" }, h("h1", {}, "Submission ", h("span", { class: "mono" }, subId)),
              h("p", { class: "error-box" }, message)));
            return;
          }
          const text = `Connection lost, retrying in ${V.fmtMs(backoff(failures))}…`;
          if (view) view.setConnection(text + " What is shown is kept.");
          else V.replace(main, h("div", { class: "card" }, h("h1", {}, "Submission ", h("span", { class: "mono" }, subId)),
            h("p", { class: "connection", id: "connection", role: "status" }, text)));
          await pause(backoff(failures), signal);
          failures++;
        }
      }
      if (view && !signal.aborted) view.setConnection(null);
    })();
  }

  /** Reconnection delays: 0.5 s, 1 s, 2 s, 4 s, then 8 s. */
  const backoff = (failures) => Math.min(8000, 500 * 2 ** failures);

  // ---- the queue and the metrics ------------------------------------------------------------
  const history_ = []; // [{t, values: Map(name -> number)}]
  const WINDOW_MS = 10 * 60 * 1000;
  let metricsTimer = null;

  function parseMetrics(text) {
    const values = new Map();
    for (const line of text.split("\n")) {
      if (!line || line.startsWith("#")) continue;
      const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (!m) continue;
      const v = Number(m[3]);
      if (!isFinite(v)) continue;
      values.set(m[1] + (m[2] || ""), v);
      if (m[2]) values.set(m[1], (values.get(m[1]) || 0) + v); // sum over labels
    }
    return values;
  }

  async function sampleMetrics() {
    try {
      const res = await fetch("/metrics", { headers: authHeaders() });
      if (!res.ok) return;
      history_.push({ t: Date.now(), values: parseMetrics(await res.text()) });
      while (history_.length && Date.now() - history_[0].t > WINDOW_MS) history_.shift();
      if (typeof onMetrics === "function") onMetrics();
    } catch (_) { /* the server is away; try again */ }
  }
  let onMetrics = null;
  function startMetrics() {
    if (metricsTimer) return;
    sampleMetrics();
    metricsTimer = setInterval(sampleMetrics, 3000);
  }

  const gauge = (name) => history_.map((s) => ({ t: s.t, v: s.values.get(name) }));
  const rate = (name) => history_.slice(1).map((s, i) => ({
    t: s.t, v: ((s.values.get(name) || 0) - (history_[i].values.get(name) || 0)) / ((s.t - history_[i].t) / 60000),
  }));
  const meanOf = (sum, count) => history_.slice(1).map((s, i) => {
    const dc = (s.values.get(count) || 0) - (history_[i].values.get(count) || 0);
    const ds = (s.values.get(sum) || 0) - (history_[i].values.get(sum) || 0);
    return { t: s.t, v: dc > 0 ? ds / dc : NaN };
  });

  function metricsView() {
    const int = (x) => String(Math.round(x));
    const perMin = (x) => V.fmtNum(x, 1) + "/min";
    const secs = (x) => V.fmtMs(x * 1000);
    const ratio = history_.map((s) => {
      const hits = s.values.get("verdict_problem_cache_hits_total") || 0;
      const misses = s.values.get("verdict_problem_cache_misses_total") || 0;
      return { t: s.t, v: hits + misses ? hits / (hits + misses) : NaN };
    });
    // A category token's /metrics holds only its category's submissions, not the server's
    // queue, slots and counters: say so, and draw what it has (docs/web.md, "Queue").
    const last = history_.length ? history_[history_.length - 1].values : null;
    if (last && !last.has("verdict_queue_length")) {
      const phases = ["queued", "running", "finished"];
      const own = (phase) => {
        let n = 0;
        for (const [k, v] of last) if (k.startsWith("verdict_category_submissions{") && k.includes(`phase="${phase}"`)) n += v;
        return n;
      };
      return h("div", { class: "metrics", id: "metrics" },
        h("p", { class: "note", id: "metrics-scope" },
          "This token is bound to a category: /metrics gives it only its own category's submissions, not the server's queue, run slots and counters, which an operator's token (one of no category) reads."),
        h("dl", { class: "facts", id: "metrics-own" }, phases.flatMap((p) => [h("dt", {}, p), h("dd", {}, String(own(p)))])));
    }
    return h("div", { class: "metrics", id: "metrics" },
      V.spark("queue length", gauge("verdict_queue_length"), WINDOW_MS, int),
      V.spark("running submissions", gauge("verdict_running_submissions"), WINDOW_MS, int),
      V.spark("running tasks (in a sandbox slot)", gauge("verdict_running_tasks"), WINDOW_MS, int),
      V.spark("tasks waiting for a slot", gauge("verdict_queued_tasks"), WINDOW_MS, int),
      V.spark("submissions finished", rate("verdict_submissions_finished_total"), WINDOW_MS, perMin),
      V.spark("tasks judged", rate("verdict_task_verdicts_total"), WINDOW_MS, perMin),
      V.spark("refused (429, 409, …)", rate("verdict_submissions_rejected_total"), WINDOW_MS, perMin),
      V.spark("mean submission time", meanOf("verdict_submission_duration_seconds_sum", "verdict_submission_duration_seconds_count"), WINDOW_MS, secs),
      V.spark("problem-cache hit rate", ratio, WINDOW_MS, (x) => (100 * x).toFixed(0) + "%"));
  }

  function queueView() {
    const category = h("input", { id: "filter-category", type: "search", placeholder: "any", "aria-label": "category" });
    const status = h("select", { id: "filter-status", "aria-label": "status" },
      h("option", { value: "" }, "any"),
      h("optgroup", { label: "submission" }, ["queued", "running", "finished"].map((s) => h("option", { value: s }, s))),
      h("optgroup", { label: "with a task" }, V.judge.STATUSES.filter((s) => !["Pending", "Running", "Compiling"].includes(s))
        .map((s) => h("option", { value: s }, s)).concat([h("option", { value: "cancelled" }, "cancelled")])));
    const tableSlot = h("div", { id: "queue-table" });
    const queueNote = h("p", { class: "connection", id: "queue-connection", role: "status", hidden: true });
    let lastOk = Date.now();
    const metricsSlot = h("div");
    let timer = null;
    leave = () => {
      clearInterval(timer);
      onMetrics = null;
    };
    async function load() {
      const q = new URLSearchParams();
      if (category.value.trim()) q.set("category", category.value.trim());
      if (status.value) q.set("status", status.value);
      q.set("limit", "100");
      try {
        const res = await api("/v1/submissions?" + q);
        if (!res.ok) {
          V.replace(tableSlot, h("p", { class: "error-box" }, await errorText(res)));
          return;
        }
        const body = await res.json();
        lastOk = Date.now();
        const rows = body.submissions || [];
        // The state and the verdicts come first: at phone width they stay on screen.
        V.replace(tableSlot, rows.length ? V.table(["submission", "state", "verdicts", "score", "tasks", "category", "problem", "accepted"],
          rows.map((s) => h("tr", {},
            h("td", {}, h("a", { href: submissionHash(s.sub_id, s.category), class: "mono" }, s.sub_id)),
            h("td", {}, V.badge(s.state, s.state === "finished" ? "ok-quiet" : "pending")),
            h("td", {}, h("span", { class: "chips" }, Object.entries(s.statuses || {}).map(([k, n]) =>
              h("span", { class: "chip s-" + V.judge.statusKind(k) }, `${k} ×${n}`)))),
            h("td", { class: "num" }, s.score),
            h("td", { class: "num" }, `${s.finished_tasks}/${s.tasks}`),
            h("td", {}, s.category), h("td", {}, s.prob_id),
            h("td", {}, V.fmtMs(s.age_ms) + " ago"))))
          : h("p", { class: "muted" }, "No submissions match."));
        queueNote.hidden = true;
      } catch (err) {
        if (err.message === "unauthorized") return;
        // The server is away: keep the last list and say so; the timer tries again.
        queueNote.hidden = false;
        queueNote.textContent = "Connection lost, retrying every 3 s… (the list below is from " + new Date(lastOk).toLocaleTimeString() + ")";
      }
    }
    category.addEventListener("input", load);
    status.addEventListener("change", load);
    onMetrics = () => V.replace(metricsSlot, metricsView());
    V.replace(main,
      h("section", { class: "card" }, h("h1", {}, "Queue"),
        h("div", { class: "toolbar" }, h("label", {}, "Category ", category), h("label", {}, "Status ", status),
          h("button", { type: "button", onclick: load }, "Refresh")),
        queueNote, tableSlot),
      h("section", { class: "card" }, h("h2", {}, "Metrics, last 10 minutes"),
        h("p", { class: "muted" }, "Sampled from /metrics every 3 s while this tab is open."), metricsSlot));
    onMetrics();
    load();
    timer = setInterval(load, 3000);
  }

  // ---- lab runs -----------------------------------------------------------------------------
  function labView() {
    const root = h("div", { id: "lab" }, h("p", { class: "card" }, "Loading lab runs…"));
    const note = h("p", { class: "connection", id: "lab-connection", role: "status", hidden: true });
    V.replace(main, note, root);
    let viewer = null, seen = "", timer = null;
    leave = () => clearInterval(timer);
    async function load() {
      try {
        const res = await api("/v1/lab/runs");
        if (!res.ok) {
          V.replace(root, h("p", { class: "card error-box" }, await errorText(res)));
          return;
        }
        const body = await res.json();
        note.hidden = true;
        // Redraw only when a run or score was added or changed.
        const key = JSON.stringify([(body.runs || []).map((r) => [r.id, r.status, r.completedAt]), (body.scores || []).length]);
        if (key === seen) return;
        seen = key;
        const data = { title: "Agent Lab runs on this server", runs: body.runs || [], scores: body.scores || [],
          runLink: (id) => "#/lab/run=" + encodeURIComponent(id) };
        if (viewer) viewer.update(data);
        else viewer = V.lab.render(root, data);
      } catch (err) {
        if (err.message === "unauthorized") return;
        note.hidden = false;
        note.textContent = "Connection lost, retrying every 5 s…";
      }
    }
    load();
    timer = setInterval(load, 5000);
  }

  // ---- routing ------------------------------------------------------------------------------
  function route() {
    if (token() === null) {
      showToken();
      return;
    }
    leave();
    leave = () => {};
    nav.hidden = false;
    signout.hidden = false;
    const hash = location.hash || "#/submit";
    const [route_, search] = hash.replace(/^#\/?/, "").split("?");
    const parts = route_.split("/").map(decodeURIComponent);
    const category = new URLSearchParams(search || "").get("category");
    for (const link of nav.querySelectorAll("a")) {
      link.setAttribute("aria-current", hash.startsWith(link.getAttribute("href")) ? "page" : "false");
    }
    if (parts[0] === "s" && parts[1]) {
      const i = parts[2] === undefined || parts[2] === "" ? null : Number(parts[2]);
      submissionView(parts[1], Number.isInteger(i) ? i : null, category);
    } else if (parts[0] === "queue") queueView();
    else if (parts[0] === "lab") labView();
    else submitView();
    main.focus({ preventScroll: true });
  }

  window.addEventListener("hashchange", route);
  if (token() !== null) startMetrics();
  route();
})();
