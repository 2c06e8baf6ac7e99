//! `judge view`: the lab report file, as written and as a person sees it in headless Chromium.

use crate::common::page::{
    appears, browser_or_skip, click, eval, fits_desktop_and_phone, fits_phone, open_file,
    screenshot, text, type_into,
};
use serde_json::json;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use verdict_web::browser::{Browser, Locator};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/view")
}

/// `judge view` with `args`.
fn judge_view<I: AsRef<OsStr>>(args: impl IntoIterator<Item = I>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("view")
        .args(args)
        .output()
        .expect("judge runs")
}

/// `judge view` of `args` writing `report.html` in a fresh dir: it exits 2 and writes no
/// report; its stderr.
fn view_refused<I: AsRef<OsStr>>(args: impl IntoIterator<Item = I>) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.html");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("view")
        .args(args)
        .arg("-o")
        .arg(&report)
        .output()
        .expect("judge runs");
    let (stderr, _) = crate::common::refused(output);
    assert!(!report.exists(), "an empty report was written");
    stderr
}

/// Writes the report of the fixture runs (plus a line cut short) and returns its path.
fn write_report(dir: &Path) -> PathBuf {
    let runs = dir.join("runs.jsonl");
    let mut text = std::fs::read_to_string(fixtures().join("runs.jsonl")).expect("fixture");
    text.push_str("\n{\"id\": \"cut-sh");
    std::fs::write(&runs, text).expect("write runs");
    let out = dir.join("report.html");
    let scores = fixtures().join("scores.jsonl");
    let output = judge_view([
        runs.as_os_str(),
        "--scores".as_ref(),
        scores.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "judge view failed: {stderr}");
    assert!(
        stderr.contains("runs.jsonl:6: skipped, not JSON"),
        "the cut line is not reported: {stderr}"
    );
    out
}

/// The report of the fixture runs in a headless Chromium, and the dir it is written in; `None`
/// (with `skipped:`) without Chromium.
async fn report_in_a_browser() -> Option<(Browser, tempfile::TempDir)> {
    if !browser_or_skip() {
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    Some((open_file(&write_report(dir.path())).await, dir))
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
    let (stderr, _) = crate::common::refused(judge_view(["/nonexistent/runs.jsonl"]));
    assert!(stderr.contains("/nonexistent/runs.jsonl"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lab_report_shows_the_scenario_trace_and_its_failed_step() {
    let Some((browser, _dir)) = report_in_a_browser().await else {
        return;
    };
    let c = browser.client();
    // As a person: filter the runs, open the scenario.
    appears(c, "#run-filter", 10).await;
    type_into(c, "#run-filter", "scenario").await;
    assert_eq!(text(c, "#run-count").await, "1 of 4 runs");
    click(c, "button.run-open").await;
    let detail = text(c, "#run-detail").await;
    assert!(detail.contains("scenario-002"), "{detail}");
    assert!(
        detail.contains("at step step-2"),
        "the failed step is not named: {detail}"
    );
    // The trace: grouped by step, the failure coloured as an error.
    let failed = c
        .find_all(Locator::Css(".timeline .tl-error"))
        .await
        .expect("error events");
    assert!(!failed.is_empty(), "no error-level event in the timeline");
    let events = text(c, ".timeline").await;
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
    let steps = text(c, "#run-detail").await;
    assert!(steps.contains("failed") && steps.contains("skipped"));
    // Expanding an event's data.
    click(c, ".timeline details summary").await;
    // The data is built when the toggle event arrives: wait for it.
    appears(c, ".timeline details[open] pre", 10).await;
    assert!(text(c, ".timeline details[open] pre").await.contains('{'));
    // Aggregates with a chart.
    let aggregates = text(c, "#aggregates").await;
    assert!(aggregates.contains("subset_match") && aggregates.contains("std. error"));
    assert!(
        !c.find_all(Locator::Css("#aggregates svg"))
            .await
            .expect("svg")
            .is_empty()
    );
    eval(c, "window.scrollTo(0, 0);").await;
    screenshot(&browser, "lab-report.png").await;
    eval(c, "document.querySelector('.timeline').scrollIntoView();").await;
    screenshot(&browser, "lab-report-trace.png").await;
    fits_desktop_and_phone(&browser).await;
    screenshot(&browser, "lab-report-phone.png").await;
    browser.close().await.expect("close");
}

#[test]
fn view_refuses_its_two_files_swapped() {
    let stderr = view_refused([
        fixtures().join("scores.jsonl").as_os_str(),
        "--scores".as_ref(),
        fixtures().join("runs.jsonl").as_os_str(),
    ]);
    assert!(
        stderr.contains("holds RunRecords") || stderr.contains("holds ScoreRecords"),
        "{stderr}"
    );
    assert!(stderr.contains("--scores"), "{stderr}");
}

#[test]
fn view_refuses_a_file_that_holds_no_run_records() {
    let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab/tasks.jsonl");
    let stderr = view_refused([&tasks]);
    assert!(stderr.contains("holds no RunRecord"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lab_report_charts_keep_their_size_and_runs_read_right() {
    let Some((browser, _dir)) = report_in_a_browser().await else {
        return;
    };
    let c = browser.client();
    appears(c, "#aggregates svg.bars", 10).await;
    // Every chart at its own size (not stretched), its title whole, no value crossed by an
    // error bar, no small mean shown as "0".
    let problems = eval(c, r#"const problems = [];
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
            return problems;"#).await;
    assert_eq!(problems, json!([]), "{problems}");
    let cost = eval(c, "return [...document.querySelectorAll('#aggregates svg.bars')].find(s => s.getAttribute('aria-label').startsWith('cost')).querySelector('.bar-value').textContent;").await;
    assert_eq!(cost, json!("0.0001"));
    eval(c, "document.getElementById('aggregates').scrollIntoView();").await;
    screenshot(&browser, "lab-report-aggregates.png").await;
    // A link per run; a completed run whose every score failed says so; a boolean's badge has
    // one mark.
    let rows = eval(c, r#"return [...document.querySelectorAll('table.sortable tbody tr')].map(tr => [
                 tr.querySelector('button.run-open').textContent,
                 tr.querySelector('a.run-link') ? tr.querySelector('a.run-link').getAttribute('href') : null,
                 tr.textContent.includes('every score failed')]);"#).await;
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
    click(c, "a.run-link").await;
    let badges = eval(
        c,
        r#"return [...document.querySelectorAll('#run-detail .badge')].map(b =>
             (getComputedStyle(b, '::before').content.replace(/"/g, '') + ' ' + b.textContent));"#,
    )
    .await;
    for badge in badges.as_array().expect("badges") {
        let badge = badge.as_str().unwrap_or_default();
        assert!(
            badge.matches('✓').count() <= 1 && badge.matches('✗').count() <= 1,
            "{badge}"
        );
    }
    fits_phone(&browser).await;
    browser.close().await.expect("close");
}
