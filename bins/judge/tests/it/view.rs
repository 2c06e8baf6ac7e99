//! `judge view`: the lab report file, as written and as a person sees it in headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use verdict_web::browser::{self, Browser, Locator};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view")
}

/// Writes the report of the fixture runs (plus a line cut short) and returns its path.
fn write_report(dir: &Path) -> PathBuf {
    let runs = dir.join("runs.jsonl");
    let mut text = std::fs::read_to_string(fixtures().join("runs.jsonl")).expect("fixture");
    text.push_str("\n{\"id\": \"cut-sh");
    std::fs::write(&runs, text).expect("write runs");
    let out = dir.join("report.html");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("view")
        .arg(&runs)
        .arg("--scores")
        .arg(fixtures().join("scores.jsonl"))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("judge runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "judge view failed: {stderr}");
    assert!(
        stderr.contains("runs.jsonl:6: skipped, not JSON"),
        "the cut line is not reported: {stderr}"
    );
    out
}

#[test]
fn view_writes_one_self_contained_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let html = std::fs::read_to_string(write_report(dir.path())).expect("report");
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("default-src 'none'"), "no CSP");
    for external in [
        "src=\"http",
        "href=\"http",
        "src=\"//",
        "href=\"//",
        "@import",
    ] {
        assert!(!html.contains(external), "the report loads {external}…");
    }
    for id in ["scenario-002", "intent-weather", "steps_completed"] {
        assert!(html.contains(id), "{id} is not in the report");
    }
    assert!(
        html.contains("skipped, not JSON"),
        "the note is not in the report"
    );
}

#[test]
fn view_refuses_a_missing_file_with_its_name() {
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["view", "/nonexistent/runs.jsonl"])
        .output()
        .expect("judge runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/runs.jsonl"));
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lab_report_shows_the_scenario_trace_and_its_failed_step() {
    if !browser_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let report = write_report(dir.path());
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    c.goto(&format!("file://{}", report.display()))
        .await
        .expect("open the file");
    // As a person: filter the runs, open the scenario.
    let filter = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#run-filter"))
        .await
        .expect("the runs table renders");
    filter.send_keys("scenario").await.expect("type");
    let count = c.find(Locator::Css("#run-count")).await.expect("count");
    assert_eq!(count.text().await.expect("text"), "1 of 4 runs");
    c.find(Locator::Css("button.run-open"))
        .await
        .expect("the scenario's row")
        .click()
        .await
        .expect("open the run");
    let detail = c
        .find(Locator::Css("#run-detail"))
        .await
        .expect("the run opens");
    let text = detail.text().await.expect("text");
    assert!(text.contains("scenario-002"), "{text}");
    assert!(
        text.contains("at step step-2"),
        "the failed step is not named: {text}"
    );
    // The trace: grouped by step, the failure coloured as an error.
    let failed = c
        .find_all(Locator::Css(".timeline .tl-error"))
        .await
        .expect("error events");
    assert!(!failed.is_empty(), "no error-level event in the timeline");
    let events = c
        .find(Locator::Css(".timeline"))
        .await
        .expect("timeline")
        .text()
        .await
        .expect("text");
    for wanted in [
        "step_started",
        "input_mapped",
        "step_failed",
        "step_skipped",
        "step step-2",
    ] {
        assert!(
            events.contains(wanted),
            "the timeline lacks {wanted}: {events}"
        );
    }
    // The steps table shows step-2 failed and step-3 skipped.
    let steps = detail.text().await.expect("text");
    assert!(steps.contains("failed") && steps.contains("skipped"));
    // Expanding an event's data.
    let first = c
        .find(Locator::Css(".timeline details summary"))
        .await
        .expect("an event with data");
    first.click().await.expect("expand");
    // The data is built when the toggle event arrives: wait for it.
    let data = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(".timeline details[open] pre"))
        .await
        .expect("the data shows");
    assert!(data.text().await.expect("text").contains('{'));
    // Aggregates with a chart.
    let aggregates = c
        .find(Locator::Css("#aggregates"))
        .await
        .expect("aggregates")
        .text()
        .await
        .expect("text");
    assert!(aggregates.contains("subset_match") && aggregates.contains("std. error"));
    assert!(
        !c.find_all(Locator::Css("#aggregates svg"))
            .await
            .expect("svg")
            .is_empty()
    );
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at 1280 px"
    );
    c.execute("window.scrollTo(0, 0);", vec![])
        .await
        .expect("scroll");
    browser
        .screenshot(&screenshot_path("lab-report.png"))
        .await
        .expect("screenshot");
    c.execute(
        "document.querySelector('.timeline').scrollIntoView();",
        vec![],
    )
    .await
    .expect("scroll");
    browser
        .screenshot(&screenshot_path("lab-report-trace.png"))
        .await
        .expect("screenshot");
    browser.resize(390, 844).await.expect("phone width");
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at phone width"
    );
    browser
        .screenshot(&screenshot_path("lab-report-phone.png"))
        .await
        .expect("screenshot");
    browser.close().await.expect("close");
}

#[test]
fn view_refuses_its_two_files_swapped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("view")
        .arg(fixtures().join("scores.jsonl"))
        .arg("--scores")
        .arg(fixtures().join("runs.jsonl"))
        .arg("-o")
        .arg(dir.path().join("report.html"))
        .output()
        .expect("judge runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("holds RunRecords") || stderr.contains("holds ScoreRecords"),
        "{stderr}"
    );
    assert!(stderr.contains("--scores"), "{stderr}");
    assert!(
        !dir.path().join("report.html").exists(),
        "an empty report was written"
    );
}

#[test]
fn view_refuses_a_file_that_holds_no_run_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab/tasks.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("view")
        .arg(&tasks)
        .arg("-o")
        .arg(dir.path().join("report.html"))
        .output()
        .expect("judge runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("holds no RunRecord"), "{stderr}");
    assert!(
        !dir.path().join("report.html").exists(),
        "an empty report was written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lab_report_charts_keep_their_size_and_runs_read_right() {
    if !browser_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let report = write_report(dir.path());
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    c.goto(&format!("file://{}", report.display()))
        .await
        .expect("open the file");
    c.wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#aggregates svg.bars"))
        .await
        .expect("the aggregates render");
    // Every chart at its own size (not stretched), its title whole, no value crossed by an
    // error bar, no small mean shown as "0".
    let problems = c
        .execute(
            r#"const problems = [];
            for (const svg of document.querySelectorAll('#aggregates svg.bars')) {
              const name = svg.getAttribute('aria-label');
              const box = svg.viewBox.baseVal;
              const shown = svg.getBoundingClientRect();
              if (Math.abs(shown.width - box.width) > 1) problems.push(`${name}: stretched to ${shown.width} from ${box.width}`);
              const title = svg.querySelector('.chart-title').getBBox();
              if (title.x < 0 || title.x + title.width > box.width + 0.5) problems.push(`${name}: title cut`);
              for (const value of svg.querySelectorAll('.bar-value')) {
                const b = value.getBBox();
                if (value.textContent === '0' || value.textContent === '$0') problems.push(`${name}: a mean reads 0`);
                for (const line of svg.querySelectorAll('line.err')) {
                  const x1 = Math.min(line.x1.baseVal.value, line.x2.baseVal.value), x2 = Math.max(line.x1.baseVal.value, line.x2.baseVal.value);
                  const y1 = Math.min(line.y1.baseVal.value, line.y2.baseVal.value), y2 = Math.max(line.y1.baseVal.value, line.y2.baseVal.value);
                  if (x1 <= b.x + b.width && x2 >= b.x && y1 <= b.y + b.height && y2 >= b.y) problems.push(`${name}: value ${value.textContent} crossed by an error bar`);
                }
              }
            }
            return problems;"#,
            vec![],
        )
        .await
        .expect("measure the charts");
    assert_eq!(problems, serde_json::json!([]), "{problems}");
    let cost = c
        .execute(
            "return [...document.querySelectorAll('#aggregates svg.bars')].find(s => s.getAttribute('aria-label').startsWith('cost')).querySelector('.bar-value').textContent;",
            vec![],
        )
        .await
        .expect("cost chart");
    assert_eq!(cost, serde_json::json!("0.0001"));
    c.execute(
        "document.getElementById('aggregates').scrollIntoView();",
        vec![],
    )
    .await
    .expect("scroll");
    browser
        .screenshot(&screenshot_path("lab-report-aggregates.png"))
        .await
        .expect("screenshot");
    // A link per run; a completed run whose every score failed says so; a boolean's badge has
    // one mark.
    let rows = c
        .execute(
            r#"return [...document.querySelectorAll('table.sortable tbody tr')].map(tr => [
                 tr.querySelector('button.run-open').textContent,
                 tr.querySelector('a.run-link') ? tr.querySelector('a.run-link').getAttribute('href') : null,
                 tr.textContent.includes('every score failed')]);"#,
            vec![],
        )
        .await
        .expect("rows");
    for row in rows.as_array().expect("rows") {
        let task = row[0].as_str().unwrap_or_default();
        assert!(
            row[1].as_str().is_some_and(|h| h.starts_with("#run=")),
            "{task} has no link: {row}"
        );
        assert_eq!(
            row[2].as_bool(),
            Some(task == "intent-weather"),
            "{task}: {row}"
        );
    }
    c.find(Locator::Css("a.run-link"))
        .await
        .expect("a link")
        .click()
        .await
        .expect("follow it");
    let badges = c
        .execute(
            r#"return [...document.querySelectorAll('#run-detail .badge')].map(b =>
                 (getComputedStyle(b, '::before').content.replace(/"/g, '') + ' ' + b.textContent));"#,
            vec![],
        )
        .await
        .expect("badges");
    for badge in badges.as_array().expect("badges") {
        let badge = badge.as_str().unwrap_or_default();
        assert!(
            badge.matches('✓').count() <= 1 && badge.matches('✗').count() <= 1,
            "{badge}"
        );
    }
    browser.resize(390, 844).await.expect("phone width");
    assert!(
        !browser.overflows().await.expect("measure"),
        "overflows at phone width"
    );
    browser.close().await.expect("close");
}
