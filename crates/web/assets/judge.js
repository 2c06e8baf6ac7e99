// verdict pages: one submission's view. V.judge.mount(root, {report, submission, selected,
// onSelect}) draws the outcome on top ("Wrong Answer on test 3"; tasks and tests count from 1 for people, docs/web.md), every task (status colour
// plus text, score, run time and memory against the limits it ran under), the dependency graph
// and a chart per test (folded past a few dozen tests), and the selected task's details in a row
// right under its own. Updates replace one row, never the table.
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
    // The queue's count of cancelled tasks (System Error on the wire).
    cancelled: "skip",
  };
  /** The colour class of a status (every other status is a failed test: red). */
  const statusKind = (status) => KIND[status] || "fail";
  const inProgress = (status) => statusKind(status) === "pending";
  /** Whether a status is a failure worth showing (failed, error or partial; not skipped). */
  const isFailure = (status) => ["fail", "error", "partial"].includes(statusKind(status));
  const statusBadge = (status) => V.badge(status, statusKind(status));
  /** Whether a task was cancelled: the contract says System Error, its log `cancelled: ...`
   *  (the page says "Cancelled": a cancel is not the judge failing; docs/web.md). */
  const isCancelled = (r) => !!r && r.status === "System Error" && /^cancelled:/.test(r.error_log || "");
  /** A result's badge: its status, or "Cancelled". */
  const resultBadge = (r) => (isCancelled(r) ? V.badge("Cancelled", "skip") : statusBadge(r.status));

  /** The contract's dependency conditions, said in words. */
  const COND = {
    ACCEPTED: "accepted",
    NOT_TIME_LIMIT: "within its time limit",
    PARTIAL_CORRECT: "at least partly correct",
  };
  const condText = (cond) => (cond ? COND[cond] || String(cond).toLowerCase().replace(/_/g, " ") : "");

  /** Beyond this many tests, charts and the graph are folded (opened on demand). */
  const FOLD_AFTER = 30;

  const isCompile = (task) => !!task && task.check_script === "compile";
  const isStatic = (task) => !!task && task.check_script === "static";
  /** A submit-answer test: nothing runs, a submitted file is compared. */
  const isAnswer = (task) => !!task && task.run_script === "answer";

  /** The test's own name (a package's `secret/01`), when the Submission's `test_data` names it. */
  function testName(task, data) {
    const id = task && task.testcase_id;
    const datum = Array.isArray(data) && typeof id === "number" && id >= 0 ? data[id] : null;
    return datum && typeof datum.name === "string" && datum.name ? datum.name : null;
  }

  /**
   * What a task does, from its scripts; a test the Submission names (`data`: its `test_data`)
   * with its name after its number ("test 2 (secret/01)").
   */
  function taskKind(task, data) {
    const kind = scriptKind(task);
    const name = testName(task, data);
    return name ? `${kind} (${name})` : kind;
  }

  /** What a task does, from its scripts alone. */
  function scriptKind(task) {
    if (!task) return "task";
    if (isCompile(task)) return "compile";
    if (isStatic(task)) return "static";
    if (task.run_script === "gtest") return "gtest";
    if (task.run_script === "valgrind") return "valgrind";
    if (isInteractive(task)) {
      return typeof task.testcase_id === "number" && task.testcase_id >= 0 ? "interactive test " + (task.testcase_id + 1) : "interactive test";
    }
    if (isAnswer(task)) {
      return typeof task.testcase_id === "number" && task.testcase_id >= 0 ? "answer " + (task.testcase_id + 1) : "answer";
    }
    if (task.is_random) return "random test";
    if (typeof task.testcase_id === "number" && task.testcase_id >= 0) return "test " + (task.testcase_id + 1);
    return "test";
  }

  const limit = (x) => (typeof x === "number" && x >= 0 ? x : undefined);

  /**
   * The limits a task really ran under, `undefined` where none applied. Compile and static tasks
   * run under the judge's own limits for compilers and analysers (`own`: the plan's
   * `judge_limits`, from the server's configuration); valgrind runs without the task's memory
   * limit (it would count valgrind's own memory).
   */
  function taskLimits(task, own) {
    if (!task || isCompile(task) || isStatic(task)) {
      if (!own) return { own: true };
      return { own: true, time: limit(own.time_ms), wall: limit(own.wall_ms), memory: limit(own.memory_kb), file: limit(own.output_kb), processes: limit(own.processes) };
    }
    // An answer test runs nothing: only its output limit (the answer's size) applies.
    if (isAnswer(task)) return { file: limit(task.file_limit) };
    return {
      time: limit(task.time_limit),
      memory: task.run_script === "valgrind" ? undefined : limit(task.memory_limit),
      file: limit(task.file_limit),
      processes: limit(task.proc_limit),
    };
  }

  /** Run time and memory as measured, "–" where nothing was (compile and static tasks, skipped ones). */
  function measured(r, task) {
    // A task still waiting or running has measured nothing and scored nothing yet.
    if (inProgress(r.status)) return { time: "–", memory: "–", score: "–" };
    const none = (isCompile(task) || isStatic(task) || isAnswer(task) || statusKind(r.status) === "skip") && !r.run_time && !r.memory_used;
    return none ? { time: "–", memory: "–", score: r.score } : { time: V.fmtMs(r.run_time), memory: V.fmtKB(r.memory_used), score: r.score };
  }

  // ---- a wrong answer: where, and both sides with the difference marked ----------------------

  /** Undoes Rust's `escape_debug` (the comparator's quoting). */
  function unescape(s) {
    return s.replace(/\\(u\{([0-9a-fA-F]+)\}|.)/g, (_, c, hex) => {
      if (hex) return String.fromCodePoint(parseInt(hex, 16));
      return { n: "\n", t: "\t", r: "\r", 0: "\0" }[c] !== undefined ? { n: "\n", t: "\t", r: "\r", 0: "\0" }[c] : c;
    });
  }

  /** `wrong answer at line 3: expected "1 2", got "1 3"` -> {place, line, expected, got, ...}. */
  function parseWrongAnswer(log) {
    const quoted = '(end of file|"(?:[^"\\\\]|\\\\.)*")';
    const m = new RegExp("wrong answer at ([^:]+): expected " + quoted + ", got " + quoted, "s").exec(log || "");
    if (!m) return null;
    const side = (s) => {
      if (s === "end of file") return null;
      let text = unescape(s.slice(1, -1));
      const cutBefore = text.startsWith("…");
      const cutAfter = text.endsWith("…") && text.length > 1;
      if (cutBefore) text = text.slice(1);
      if (cutAfter) text = text.slice(0, -1);
      return { text, cutBefore, cutAfter };
    };
    const line = /line (\d+)/.exec(m[1]);
    const wa = { place: m[1], line: line ? +line[1] : null, expected: side(m[2]), got: side(m[3]) };
    Object.assign(wa, firstDifference(wa.expected, wa.got));
    return wa;
  }

  /** The first differing character (code points), its column and token number when known. */
  function firstDifference(expected, got) {
    if (!expected || !got) return { at: 0, column: null, token: null };
    const a = [...expected.text], b = [...got.text];
    let at = 0;
    while (at < a.length && at < b.length && a[at] === b[at]) at++;
    if (expected.cutBefore || got.cutBefore) return { at, column: null, token: null };
    // Tokens are separated by white space: the token holding (or following) the difference.
    const before = a.slice(0, at).join("");
    const tokens = before.split(/\s+/).filter(Boolean);
    const midToken = at > 0 && !/\s/.test(a[at - 1] || " ") && !/\s/.test(a[at] || b[at] || " ");
    const token = tokens.length + (midToken ? 0 : 1);
    return { at, column: at + 1, token };
  }

  /** One side of the difference, the differing part marked. */
  function markedLine(side, at) {
    if (side === null) return h("em", {}, "end of file");
    const chars = [...side.text];
    const show = (s) => s.replace(/ /g, "·").replace(/\t/g, "→");
    const head = chars.slice(0, at).join(""), rest = chars.slice(at);
    return h("pre", { class: "mono diff-line" },
      side.cutBefore ? h("span", { class: "muted" }, "…") : null,
      show(head),
      rest.length ? h("mark", { class: "diff-mark" }, show(rest[0])) : h("mark", { class: "diff-mark diff-eol" }, "⏎"),
      show(rest.slice(1).join("")),
      side.cutAfter ? h("span", { class: "muted" }, "…") : null);
  }

  /** The test's input, when the Submission carries it inline. */
  function inputView(task, submission) {
    if (!task || !submission || typeof task.testcase_id !== "number" || task.testcase_id < 0) return null;
    const datum = (submission.test_data || [])[task.testcase_id];
    if (!datum) return null;
    const inputs = datum.inputs || [];
    if (!inputs.length) return h("p", { class: "muted" }, "This test has no input files.");
    return h("section", { class: "sub test-input" }, h("h3", {}, `Input (${taskKind(task, submission.test_data)})`),
      inputs.map((a) => [h("div", { class: "diff-title mono" }, a.name),
        a.type === "text" && typeof a.text === "string"
          ? h("pre", { class: "mono input" }, a.text.length > 4000 ? a.text.slice(0, 4000) + `\n… (${a.text.length - 4000} more characters)`
            : a.text + (a.text_chars > a.text.length ? `\n… (${a.text_chars - a.text.length} more characters)` : ""))
          : h("p", { class: "muted" }, `${a.type} file${a.url ? " " + a.url : a.path ? " " + a.path : ""}`)]));
  }

  /** The test's expected output as lines, when the tab has the Submission (the server's plan
   *  keeps no expected outputs: they are the problem's secret). */
  function expectedLines(task, submission) {
    if (!task || !submission || typeof task.testcase_id !== "number" || task.testcase_id < 0) return null;
    const datum = (submission.test_data || [])[task.testcase_id];
    const out = datum && (datum.outputs || []).find((a) => a.type === "text" && typeof a.text === "string");
    if (!out) return null;
    const lines = out.text.split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }

  /** Lines shown before and after the first difference. */
  const CONTEXT_BEFORE = 3, CONTEXT_AFTER = 2;

  /**
   * Expected and received side by side around the first difference (DOMjudge's jury view): the
   * lines before it (the same on both sides: the comparator went past them), the differing line
   * marked on each side, then the expected lines after it. The received output after that line
   * is not kept by the judge, and is said so.
   */
  function contextCols(wa, lines) {
    const answerLine = +((/line (\d+) of the answer/.exec(wa.place) || [])[1] || wa.line);
    if (!lines || !answerLine || answerLine > lines.length + 1) return null;
    const from = Math.max(1, answerLine - CONTEXT_BEFORE), to = Math.min(lines.length, answerLine + CONTEXT_AFTER);
    const clip = (t) => (t.length > 200 ? t.slice(0, 200) + "…" : t);
    const ctx = (n, t, cls) => h("div", { class: "ctx-line mono " + cls, "data-ln": n }, clip(t) || " ");
    const marked = (n, side) => {
      const line = markedLine(side, wa.at);
      line.setAttribute("data-ln", n);
      return line;
    };
    const before = [];
    for (let n = from; n < answerLine; n++) before.push(n);
    const after = [];
    for (let n = answerLine + 1; n <= to; n++) after.push(n);
    const column = (title, cls, rows) => h("div", { class: "diff-side " + cls }, h("div", { class: "diff-title" }, title),
      h("div", { class: "diff-lines" }, rows));
    return h("div", { class: "diff-cols diff-context" },
      column("expected", "diff-expected", [
        before.map((n) => ctx(n, lines[n - 1], "ctx-same")),
        marked(answerLine, wa.expected),
        after.map((n) => ctx(n, lines[n - 1], "ctx-after"))]),
      column("received", "diff-got", [
        before.map((n) => ctx(n, lines[n - 1], "ctx-same")),
        marked(wa.line || answerLine, wa.got),
        after.length ? h("div", { class: "ctx-line ctx-unknown muted" }, "(the judge keeps no more of the received output)") : null]));
  }

  /**
   * The report's `diff` (the judge's own lines around the first difference, both sides) as the
   * view reads it: the differing lines, their place and the marked character, every viewer alike.
   */
  function waFromDiff(d) {
    const at = (x) => {
      const k = x.line - x.first_line;
      if (k < 0 || k >= x.lines.length) return null; // the file ended there
      let text = x.lines[k];
      const cutAfter = text.length > 512 && text.endsWith("…");
      if (cutAfter) text = text.slice(0, -1);
      return { text, cutBefore: false, cutAfter };
    };
    const e = d.expected, g = d.received;
    const place = g.line === e.line ? `line ${g.line}` : `line ${g.line} of the output (line ${e.line} of the answer)`;
    const wa = { place, line: g.line, expected: at(e), got: at(g), diff: d };
    Object.assign(wa, firstDifference(wa.expected, wa.got));
    return wa;
  }

  /**
   * Both sides of the report's `diff`, numbered: the lines before the difference, the differing
   * line marked (level with the other side's), the lines after it, "…" where the file goes on.
   */
  function excerptCols(wa) {
    const d = wa.diff;
    const before = (x) => Math.max(0, x.line - x.first_line);
    const pad = Math.max(before(d.expected), before(d.received));
    const clip = (t) => (t.length > 200 ? t.slice(0, 200) + "…" : t);
    const side = (x, marked, cls, title) => {
      const rows = [];
      for (let k = before(x); k < pad; k++) rows.push(h("div", { class: "ctx-line ctx-pad", "aria-hidden": "true" }, " "));
      x.lines.forEach((t, k) => {
        const n = x.first_line + k;
        if (n === x.line) {
          const line = markedLine(marked, wa.at);
          line.setAttribute("data-ln", n);
          rows.push(line);
        } else {
          rows.push(h("div", { class: "ctx-line mono " + (n < x.line ? "ctx-same" : "ctx-after"), "data-ln": n }, clip(t) || " "));
        }
      });
      if (x.line >= x.first_line + x.lines.length) {
        rows.push(h("div", { class: "diff-line diff-eof", "data-ln": x.line }, h("em", {}, "end of file")));
      } else if (x.more) {
        rows.push(h("div", { class: "ctx-line ctx-more muted" }, "…"));
      }
      return h("div", { class: "diff-side " + cls }, h("div", { class: "diff-title" }, title), h("div", { class: "diff-lines" }, rows));
    };
    return h("div", { class: "diff-cols diff-context" },
      side(d.expected, wa.expected, "diff-expected", "expected"),
      side(d.received, wa.got, "diff-got", "received"));
  }

  function diffView(wa, lines) {
    const where = [wa.line ? `line ${wa.line}` : wa.place];
    if (wa.column) where.push(`column ${wa.column}`);
    if (wa.token) where.push(`token ${wa.token}`);
    const cell = (title, side, cls) => h("div", { class: "diff-side " + cls },
      h("div", { class: "diff-title" }, title), markedLine(side, wa.at));
    return h("div", { class: "diff", "aria-label": "first difference" },
      h("p", { class: "diff-where" }, "First difference at ", h("strong", {}, where.join(", ")),
        wa.place !== `line ${wa.line}` ? h("span", { class: "muted" }, ` (${wa.place})`) : null, ":"),
      (wa.diff ? excerptCols(wa) : contextCols(wa, lines)) ||
        h("div", { class: "diff-cols" }, cell("expected", wa.expected, "diff-expected"), cell("received", wa.got, "diff-got")));
  }

  // ---- random, custom-comparator and interactive tests ------------------------------------------

  const isInteractive = (task) => !!task && task.run_script === "interactive";
  /** A test compared by the problem's own comparator (`Submission.compare`). */
  const isCustomCompare = (task) => !!task && task.check_script === "standard" && task.run_script === "standard" && task.compare_script === "";

  /** A random test's input, as the judge made it: `random input: seed 7 (generator: ./main 7)`. */
  function randomOrigin(task, log) {
    if (!task || !task.is_random) return null;
    const m = /^random input: (.*)$/m.exec(log || "");
    return h("p", { class: "random-origin" }, "Input generated by the problem's random program: ",
      m ? h("strong", { class: "mono" }, m[1]) : "origin not reported",
      " (the same seed gives the same input again).");
  }

  /** Who judged a custom-compared test's output, and its feedback. */
  function comparatorNote(task) {
    if (!isCustomCompare(task)) return null;
    return h("p", { class: "comparator-note" }, "Judged by the problem's own comparator (",
      h("span", { class: "mono" }, "Submission.compare"), "): its verdict, score and feedback below.");
  }

  /**
   * An interactive test's exchange, from its log: the interactor's verdict (the lines before
   * `transcript:`), the counts, and each message kept (time, direction, bytes) as a table.
   */
  function exchangeView(task, log) {
    if (!isInteractive(task) || !log) return null;
    const lines = log.split("\n");
    const at = lines.findIndex((l) => l.startsWith("transcript: "));
    if (at < 0) return null;
    // The decision's reason comes first, then the program's stderr when it failed.
    const verdictLines = lines.slice(0, at).join("\n").split(/^stderr:$/m)[0].trim();
    const rows = [];
    for (const l of lines.slice(at + 1)) {
      const m = /^\s*([\d.]+) ms {2}(interactor -> program|program -> interactor) {2}("(?:[^"\\]|\\.)*")(.*)$/.exec(l);
      const gap = /^\s*\.\.\. (\d+) more messages/.exec(l);
      if (m) {
        const toProgram = m[2].startsWith("interactor");
        rows.push(h("tr", { class: toProgram ? "to-program" : "to-interactor" },
          h("td", { class: "num" }, m[1] + " ms"),
          h("td", {}, toProgram ? "interactor → program" : "program → interactor"),
          h("td", { class: "mono" }, unescape(m[3].slice(1, -1)).replace(/\n/g, "⏎"), m[4] ? h("span", { class: "muted" }, m[4]) : null)));
      } else if (gap) {
        rows.push(h("tr", { class: "gap" }, h("td", { colspan: 3, class: "muted" }, `… ${gap[1]} more messages …`)));
      }
    }
    return h("section", { class: "sub exchange" }, h("h3", {}, "The exchange with the interactor"),
      verdictLines ? h("p", {}, "The interactor said: ", h("strong", { class: "mono" }, verdictLines)) : null,
      h("p", { class: "muted" }, lines[at]),
      rows.length ? V.table(["at", "direction", "message"], rows) : null);
  }

  // ---- reports: valgrind, gtest, static --------------------------------------------------------

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
      // The contract's static report is camelCase (oclint's JSON).
      const s = report.summary;
      const where = (v) => [v.path, v.startLine, v.startColumn].filter((x) => x !== undefined && x !== null).join(":");
      return h("section", { class: "sub static-report" },
        h("h3", {}, `Static analysis (${report.version}): ${report.violation.length} violations`),
        h("p", {}, `${s.numberOfFilesWithViolations} of ${s.numberOfFiles} files with violations; by priority: `,
          (s.numberOfViolationsWithPriority || []).map((p) => `P${p.priority}: ${p.number}`).join(", ") || "none"),
        report.violation.length ? V.table(["where", "rule", "category", "priority", "message"], report.violation.map((v) =>
          h("tr", {}, h("td", { class: "mono" }, where(v)), h("td", {}, v.rule),
            h("td", {}, v.category), h("td", { class: "num" }, v.priority), h("td", {}, v.message)))) : null);
    }
    return h("section", { class: "sub" }, h("h3", {}, "Report"), V.json(report));
  }

  function limitsView(task, known, own) {
    if (!known) return h("p", { class: "muted" }, "Limits unknown: the server did not say what this submission asked for.");
    const l = taskLimits(task, own);
    const whose = `the judge's own limits for ${isCompile(task) ? "compilers" : "analysers"} (set in the server's configuration), not the task's`;
    if (l.own && !own) return h("p", { class: "muted limits-own" }, `Limits: ${whose}.`);
    if (l.own) {
      const rows = [
        ["time", V.fmtMs(l.time)],
        ["wall-clock", l.wall === undefined ? "none" : V.fmtMs(l.wall)],
        ["memory", l.memory === undefined ? "none" : V.fmtKB(l.memory)],
        ["output", l.file === undefined ? "none" : V.fmtKB(l.file)],
        ["processes", l.processes === undefined ? "none" : l.processes],
      ];
      return h("div", { class: "limits-own" }, h("p", { class: "muted" }, `Limits: ${whose}:`),
        h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", {}, k + " limit"), h("dd", {}, v)])));
    }
    const rows = [
      ["time", l.time === undefined ? "none" : V.fmtMs(l.time)],
      ["memory", l.memory === undefined ? (task.run_script === "valgrind" ? "none (valgrind runs unlimited)" : "none") : V.fmtKB(l.memory)],
      ["file", l.file === undefined ? "none" : V.fmtKB(l.file)],
      ["processes", l.processes === undefined ? "none" : l.processes],
    ];
    return h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", {}, k + " limit"), h("dd", {}, v)]));
  }

  // ---- the view ----------------------------------------------------------------------------

  /** The outcome of a whole submission: {text, kind, index} (index: the task to open). */
  function outcome(report, tasks, data) {
    const results = report.results || [];
    const done = results.filter((r) => !inProgress(r.status)).length;
    if (done < results.length) return { text: `Judging: ${done} of ${results.length} tasks finished`, kind: "pending", index: null };
    const index = results.findIndex((r) => isFailure(r.status) && !isCancelled(r));
    const cancelled = results.filter(isCancelled).length;
    if (index < 0 && cancelled) return { text: `Cancelled (${cancelled} of ${results.length} tasks not run or stopped)`, kind: "skip", index: null };
    if (index >= 0) {
      const r = results[index], t = tasks[index];
      if (statusKind(r.status) === "error" && (isCompile(t) || /Compilation/.test(r.status))) return { text: r.status, kind: "error", index };
      const what = t && (isCompile(t) || isStatic(t)) ? `the ${taskKind(t)} task` : t ? taskKind(t, data) : `task ${index + 1}`;
      return { text: `${r.status} on ${what}`, kind: statusKind(r.status), index };
    }
    if (!results.length) return { text: report.message ? "System Error" : "No tasks", kind: "error", index: null };
    if (results.every((r) => statusKind(r.status) === "skip")) return { text: "Nothing ran", kind: "skip", index: null };
    return { text: "Accepted", kind: "ok", index: null };
  }

  function scoreSum(report) {
    let num = 0, den = 0;
    report.results.forEach((r) => {
      const m = /^(\d+)\/(\d+)$/.exec(r.score || "");
      if (m) {
        num += +m[1];
        den += +m[2];
      }
    });
    return { num, den };
  }

  const sameResult = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  /**
   * Mounts the view into `root`. opts: {report, submission, selected, onSelect(i|null),
   * onCancel() (a promise; the Cancel button is shown while the submission is live)}.
   * Returns {setReport(report), setResult(i, result), setLive(bool), setConnection(text|null),
   * select(i), setSubmission(sub)}.
   */
  function mount(root, opts) {
    let report = opts.report;
    let submission = opts.submission || null;
    let tasks = (submission && submission.judge_tasks) || [];
    let selected = null;
    let live = true;
    let userChose = opts.selected !== null && opts.selected !== undefined;
    const rows = [];
    const COLS = 7;

    const verdict = h("p", { class: "verdict", id: "verdict", role: "status" });
    const progress = h("strong", { id: "sub-progress" });
    const scoreText = h("span", { id: "sub-score" });
    const liveMark = h("span", { "aria-live": "polite", id: "live" });
    const connection = h("p", { class: "connection", id: "connection", role: "status", hidden: true });
    const onlyFailures = h("input", { type: "checkbox", id: "failures-only" });
    const firstFailure = h("button", { type: "button", id: "first-failure", class: "secondary" }, "First failure");
    // Shown while the submission is judged, when the page may cancel it (opts.onCancel).
    const cancel = h("button", { type: "button", id: "cancel-submission", class: "secondary", hidden: true }, "Cancel");
    if (opts.onCancel) {
      cancel.addEventListener("click", async () => {
        cancel.disabled = true;
        cancel.textContent = "Cancelling…";
        try { await opts.onCancel(); } finally { cancel.disabled = false; cancel.textContent = "Cancel"; }
      });
    }
    const tbody = h("tbody");
    const table = h("table", { class: "tasks", id: "tasks" },
      h("thead", {}, h("tr", {}, ["task", "status", "kind", "score", "run time / limit", "memory / limit", "after"].map((c) => h("th", { scope: "col" }, c)))),
      tbody);
    const graphSlot = h("div", { class: "graph-slot" });
    const chartSlot = h("div", { class: "chart-slot" });
    let detailRow = null;

    /** The judge's own limits of task i (compile, static), as the server's plan says them. */
    const ownLimits = (i) => (submission && Array.isArray(submission.judge_limits) ? submission.judge_limits[i] || null : null);

    function openRow(i) {
      select(i, true);
    }

    function rowFor(i) {
      const r = report.results[i];
      const t = tasks[i];
      const l = taskLimits(t, ownLimits(i));
      const m = measured(r, t);
      const dep = t && typeof t.depends_on === "number" && t.depends_on >= 0 ? t.depends_on : null;
      return h("tr", {
        class: "task-row" + (i === selected ? " selected" : "") + (isFailure(r.status) ? " is-failure" : ""),
        "data-task": i, "data-status": r.status,
      },
      h("td", { class: "num" }, h("button", {
        type: "button", class: "link task-open", "aria-expanded": i === selected ? "true" : "false",
        "aria-controls": "task-detail", onclick: () => openRow(i),
      }, String(i + 1))),
      h("td", { class: "status-cell" }, resultBadge(r)),
      h("td", {}, taskKind(t, submission && submission.test_data)),
      h("td", { class: "num" }, m.score),
      h("td", { class: "num" }, m.time, l.time !== undefined ? h("span", { class: "muted" }, " / " + V.fmtMs(l.time)) : null),
      h("td", { class: "num" }, m.memory, l.memory !== undefined ? h("span", { class: "muted" }, " / " + V.fmtKB(l.memory)) : null),
      h("td", {}, dep === null ? "–" : [h("button", { type: "button", class: "link", onclick: () => select(dep, true) }, "← #" + dep),
        t.depends_cond ? h("span", { class: "muted" }, " if " + condText(t.depends_cond)) : null]));
    }

    /** Why a task was skipped: its parent's status and the condition it needed. */
    function dependencyNote(index) {
      const task = tasks[index];
      if (!task || typeof task.depends_on !== "number" || task.depends_on < 0) return null;
      const parent = task.depends_on;
      const parentResult = report.results[parent];
      const link = h("button", { type: "button", class: "link", onclick: () => select(parent, true) }, "task " + (parent + 1));
      const r = report.results[index];
      const cond = task.depends_cond ? condText(task.depends_cond) : "finished";
      if (r && r.status === "Dependency Not Satisfied") {
        return h("p", { class: "dep-note" }, "Skipped because ", link, " ended ",
          parentResult ? resultBadge(parentResult) : "?", ` (this task runs only if it is ${cond}).`);
      }
      return h("p", { class: "dep-note" }, "Runs after ", link, task.depends_cond ? `, if it is ${cond}.` : ".");
    }

    function taskDetail(index) {
      const r = report.results[index];
      const task = tasks[index];
      if (!r) return null;
      const wa = r.diff ? waFromDiff(r.diff) : parseWrongAnswer(r.error_log);
      const m = measured(r, task);
      return h("section", { class: "task-detail", id: "task-detail", tabindex: "-1", "aria-label": `task ${index + 1} details` },
        h("div", { class: "detail-head" },
          h("h2", {}, `Task ${index + 1} · ${taskKind(task, submission && submission.test_data)} `, resultBadge(r)),
          h("button", { type: "button", class: "quiet-dark", id: "detail-close", onclick: () => select(null, true) }, "Close")),
        dependencyNote(index),
        h("dl", { class: "facts" },
          h("dt", {}, "score"), h("dd", {}, m.score),
          h("dt", {}, "run time"), h("dd", {}, m.time),
          h("dt", {}, "memory"), h("dd", {}, m.memory)),
        limitsView(task, !!submission, ownLimits(index)),
        wa ? diffView(wa, expectedLines(task, submission)) : null,
        randomOrigin(task, r.error_log),
        comparatorNote(task),
        wa || isInteractive(task) ? inputView(task, submission) : null,
        exchangeView(task, r.error_log),
        r.error_log ? h("section", { class: "sub" },
          h("h3", {}, isCompile(task) ? "Compiler output" : isCustomCompare(task) ? "Comparator's feedback" : "Log"),
          h("pre", { class: "mono log" }, r.error_log)) : null,
        reportView(r.report));
    }

    function placeDetail() {
      if (detailRow) detailRow.remove();
      detailRow = null;
      if (selected === null || !rows[selected]) return;
      detailRow = h("tr", { class: "detail-row" }, h("td", { colspan: COLS }, taskDetail(selected)));
      rows[selected].after(detailRow);
    }

    function select(i, focus) {
      const before = selected;
      selected = i === null || i === undefined || !report.results[i] ? null : i;
      userChose = userChose || focus;
      if (before !== null && rows[before]) updateRow(before, true);
      if (selected !== null) updateRow(selected, true);
      placeDetail();
      if (opts.onSelect) opts.onSelect(selected);
      if (selected !== null && onlyFailures.checked && !isFailure(report.results[selected].status)) {
        onlyFailures.checked = false;
        table.classList.remove("only-failures");
      }
      if (focus && selected !== null) {
        const detail = document.getElementById("task-detail");
        if (detail) {
          detail.focus({ preventScroll: true });
          rows[selected].scrollIntoView({ block: "start" });
        }
      } else if (focus && before !== null && rows[before]) {
        const button = rows[before].querySelector("button.task-open");
        if (button) button.focus();
      }
      drawFigures();
    }

    function updateRow(i, force) {
      const fresh = rowFor(i);
      if (rows[i]) {
        const hadFocus = rows[i].contains(document.activeElement);
        if (!force && rows[i].isEqualNode(fresh)) return;
        rows[i].replaceWith(fresh);
        if (hadFocus) {
          const b = fresh.querySelector("button.task-open");
          if (b) b.focus();
        }
      } else {
        tbody.appendChild(fresh);
      }
      rows[i] = fresh;
      if (i === selected && detailRow) {
        fresh.after(detailRow);
      }
    }

    function drawHeader() {
      const sum = scoreSum(report);
      const done = report.results.filter((r) => !inProgress(r.status)).length;
      const out = outcome(report, tasks, submission && submission.test_data);
      V.replace(verdict, V.badge(out.text, out.kind));
      if (out.index !== null) {
        verdict.appendChild(h("button", { type: "button", class: "link", id: "verdict-open", onclick: () => select(out.index, true) }, `open task ${out.index + 1}`));
      }
      progress.textContent = `${done} of ${report.results.length} tasks finished`;
      scoreText.textContent = ` · score ${sum.num}/${sum.den}`;
      liveMark.textContent = live ? " · live" : "";
      liveMark.hidden = !live;
      liveMark.className = live ? "live" : "";
      const failures = report.results.filter((r) => isFailure(r.status)).length;
      firstFailure.disabled = failures === 0;
      cancel.hidden = !(opts.onCancel && live);
      return out;
    }

    // Figures are drawn after a burst of updates, never per event.
    let figureTimer = null;
    function drawFigures() {
      clearTimeout(figureTimer);
      figureTimer = setTimeout(() => {
        figureTimer = null;
        figures.graph(graphView());
        figures.chart(chartView());
      }, 120);
    }
    const fold = (slot, summary, count) => {
      let box = null, build = null;
      return (content) => {
        build = content;
        if (count() <= FOLD_AFTER) {
          box = null;
          V.replace(slot, content ? content() : null);
          return;
        }
        if (!box) {
          box = h("details", { class: "fold" }, h("summary", {}, summary()), h("div", { class: "fold-body" }));
          box.addEventListener("toggle", () => V.replace(box.lastChild, box.open && build ? build() : null));
          V.replace(slot, box);
        }
        box.firstChild.textContent = summary();
        if (box.open) V.replace(box.lastChild, build ? build() : null);
      };
    };
    const figures = {
      graph: fold(graphSlot, () => `Dependencies (${tasks.length} tasks): show`, () => tasks.length),
      chart: fold(chartSlot, () => `Run time and memory per test (${testCount()} tests): show`, () => testCount()),
    };
    const testCount = () => report.results.filter((r, i) => isTest(r, tasks[i])).length;
    const isTest = (r, t) => (t ? !isCompile(t) && !isStatic(t) : r.run_time > 0 || r.memory_used > 0);

    function graphView() {
      if (!tasks.length) return null;
      return () => graphSvg(report, tasks, (i) => select(i, true), selected);
    }
    function chartView() {
      if (!testCount()) return null;
      return () => chartSvg(report, tasks, isTest);
    }

    function setReport(next) {
      const old = report;
      report = next;
      report.results.forEach((r, i) => {
        if (!old.results[i] || !sameResult(old.results[i], r) || !rows[i]) updateRow(i);
      });
      for (let i = report.results.length; i < rows.length; i++) rows[i].remove();
      rows.length = report.results.length;
      if (selected !== null && (!old.results[selected] || !sameResult(old.results[selected], report.results[selected]))) placeDetail();
      afterChange();
    }

    function setResult(i, result) {
      if (i < 0 || i >= report.results.length) return;
      report.results[i] = result;
      updateRow(i);
      if (i === selected) placeDetail();
      afterChange();
    }

    function afterChange() {
      const out = drawHeader();
      // The outcome opens its task, unless the person already chose one.
      if (!live && !userChose && selected === null && out.index !== null) {
        userChose = true;
        select(out.index, false);
        return;
      }
      drawFigures();
    }

    onlyFailures.addEventListener("change", () => table.classList.toggle("only-failures", onlyFailures.checked));
    firstFailure.addEventListener("click", () => {
      const i = report.results.findIndex((r) => isFailure(r.status));
      if (i >= 0) select(i, true);
    });

    V.replace(root,
      h("section", { class: "card" },
        h("h1", {}, "Submission ", h("span", { class: "mono" }, report.sub_id)),
        verdict,
        connection,
        h("p", { class: "facts-line" }, `problem ${report.prob_id} · category ${report.category} · `, progress, scoreText, liveMark),
        report.message ? h("p", { class: "error-box" }, report.message) : null,
        h("div", { class: "toolbar" }, h("label", {}, onlyFailures, " failures only"), firstFailure, cancel),
        h("div", { class: "scroll" }, table)),
      h("section", { class: "card two" }, graphSlot, chartSlot));
    report.results.forEach((_, i) => updateRow(i));
    if (userChose) select(opts.selected, false);
    afterChange();

    return {
      setReport,
      setResult,
      select: (i) => select(i, true),
      setLive(value) {
        live = value;
        afterChange();
      },
      setConnection(text) {
        connection.hidden = !text;
        connection.textContent = text || "";
      },
      setSubmission(sub) {
        submission = sub;
        tasks = (sub && sub.judge_tasks) || [];
        // Only rows that read differently are replaced (the others keep their nodes).
        report.results.forEach((_, i) => updateRow(i));
        placeDetail();
        afterChange();
      },
      get selected() {
        return selected;
      },
    };
  }

  /** The dependency forest as an SVG: one node per task, arrows parent -> child. */
  function graphSvg(report, tasks, onSelect, selected) {
    const depth = tasks.map(() => 0);
    tasks.forEach((t, i) => {
      let d = 0, p = t.depends_on, guard = 0;
      while (typeof p === "number" && p >= 0 && p < tasks.length && guard++ < tasks.length) {
        d++;
        p = tasks[p].depends_on;
      }
      depth[i] = d;
    });
    const levels = [];
    depth.forEach((d, i) => (levels[d] = levels[d] || []).push(i));
    const nodeW = 92, nodeH = 30, gapX = 14, gapY = 34;
    const width = Math.max(...levels.map((r) => r.length)) * (nodeW + gapX) + gapX;
    const height = levels.length * (nodeH + gapY) + 10;
    const pos = [];
    levels.forEach((r, d) => r.forEach((i, k) => (pos[i] = { x: gapX + k * (nodeW + gapX), y: 6 + d * (nodeH + gapY) })));
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
      }, V.s("title", {}, `task ${p + 1} → task ${i + 1}` + (t.depends_cond ? ` (if ${condText(t.depends_cond)})` : "") + (blocked ? ": not satisfied" : ""))));
    });
    tasks.forEach((t, i) => {
      const r = report.results[i];
      const status = r ? r.status : "Pending";
      const g = V.s("g", { class: "node s-" + statusKind(status) + (i === selected ? " node-selected" : ""), "data-task": i },
        V.s("title", {}, `task ${i + 1} (${taskKind(t)}): ${status}`),
        V.s("rect", { x: pos[i].x, y: pos[i].y, width: nodeW, height: nodeH, rx: 5 }),
        V.s("text", { x: pos[i].x + nodeW / 2, y: pos[i].y + 13, class: "mid node-label" }, `${i + 1} ${taskKind(t)}`),
        V.s("text", { x: pos[i].x + nodeW / 2, y: pos[i].y + 25, class: "mid node-status" }, status.length > 16 ? status.slice(0, 15) + "…" : status));
      g.addEventListener("click", () => onSelect(i));
      svg.appendChild(g);
    });
    return h("figure", { class: "graph-box" }, h("figcaption", {}, "Dependencies (arrows from the task that runs first; dashed: not satisfied)"),
      h("div", { class: "scroll" }, svg));
  }

  /** Run time and memory per test, against the limits each test ran under. */
  function chartSvg(report, tasks, isTest) {
    const tests = report.results.map((r, i) => ({ r, i, t: tasks[i], l: taskLimits(tasks[i]) })).filter(({ r, t }) => isTest(r, t));
    const shown = (r, text) => (inProgress(r.status) ? "–" : text); // nothing measured yet
    const time = tests.map(({ r, i, l }) => ({
      label: String(i + 1), value: r.run_time, limit: l.time,
      text: shown(r, V.fmtMs(r.run_time)) + (l.time ? " / " + V.fmtMs(l.time) : ""),
    }));
    const memory = tests.map(({ r, i, l }) => ({
      label: String(i + 1), value: r.memory_used, limit: l.memory,
      text: shown(r, V.fmtKB(r.memory_used)) + (l.memory ? " / " + V.fmtKB(l.memory) : ""),
    }));
    return h("div", { class: "charts" }, V.limitBars("run time per test", time), V.limitBars("memory per test", memory));
  }

  /** Every task status, in the contract's order. */
  const STATUSES = ["Pending", "Running", "Accepted", "Partial Correct", "Compilation Error", "Executable Compilation Error",
    "Dependency Not Satisfied", "Wrong Answer", "Runtime Error", "Time Limit Exceeded", "Memory Limit Exceeded",
    "Output Limit Exceeded", "Presentation Error", "Restrict Function", "Out of Contest Time", "Compiling",
    "Segmentation Fault", "Floating Point Error", "Random Gen Error", "Compare Error", "System Error"];

  V.judge = { STATUSES, mount, statusKind, inProgress, isFailure, isCancelled, parseWrongAnswer, taskKind, outcome, condText };
})();
