//! The page, second pass, in a real headless Chromium: every task kind's details
//! (static, gtest, valgrind, a compile error, a wrong answer marked where it differs), the outcome
//! on top, a 200-test submission that stays usable (details under their row, rows updated one by
//! one, charts folded, a failures-only filter), and a server killed and restarted mid-stream.

use crate::common::{ServerProcess, a_plus_b, cancelled_results, get, post, sleepy_a_plus_b};
use crate::page::{
    SignedIn, click, eval, judge_through_the_page, open_the_queue_of_one, page_server,
    phone_screenshot, screenshot, scroll_top, signed_in_browser, strings, submit_through_the_page,
    text, text_containing, until_finished, wait_for,
};
use crate::web::example;
use serde_json::{Value, json};

use verdict_judge_server::{ServerConfig, TokenConfig};
use verdict_web::browser::{Client, Locator};

pub(crate) const TOKEN: &str = "faces-token";

pub(crate) fn server_config() -> ServerConfig {
    ServerConfig {
        tokens: vec![TokenConfig {
            token: TOKEN.into(),
            ..TokenConfig::default()
        }],
        ..crate::common::config()
    }
}

/// The open task's own limits (compile, static) as the page lists them: [name, value] pairs.
async fn own_limits(c: &Client) -> Value {
    eval(
        c,
        "return [...document.querySelectorAll('#task-detail .limits-own dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent]);",
    )
    .await
}

/// Task `i`'s run time and memory cells (measured / limit).
async fn row_cells(c: &Client, i: usize) -> Value {
    eval(
        c,
        &format!(
            "return [...document.querySelector('tr[data-task=\"{i}\"]').cells].slice(4, 6).map(td => td.textContent);"
        ),
    )
    .await
}

/// A bundled example with a fresh sub_id, as the page's "load an example" gives it.
fn fresh(name: &str, sub_id: &str) -> String {
    example(name, sub_id, "faces")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_task_kind_shows_its_details_and_the_outcome_on_top() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let (browser, c, base) = (&page.browser, page.client(), page.url(""));

    // A wrong answer: the outcome names it and opens it; the difference is marked, placed by
    // line, column and token, the test's input shown.
    judge_through_the_page(c, &fresh("wrong-answer", "faces-wa"), 2, 120).await;
    text_containing(c, "#verdict", "Wrong Answer on test 1").await;
    let detail = text_containing(c, "#task-detail", "Task 2").await;
    assert!(
        detail.contains("line 1, column 1, token 1"),
        "no place: {detail}"
    );
    assert_eq!(text(c, ".diff-expected mark.diff-mark").await, "3");
    assert_eq!(text(c, ".diff-got mark.diff-mark").await, "-");
    assert_eq!(text(c, ".test-input pre").await, "1 2");
    // The detail sits in the row right under its task's.
    let under = eval(
        c,
        "const d = document.getElementById('task-detail').closest('tr');
         return d.previousElementSibling.dataset.task;",
    )
    .await;
    assert_eq!(under, json!("1"));
    scroll_top(c).await;
    screenshot(browser, "page-outcome.png").await;
    phone_screenshot(browser, "page-outcome-phone.png", true).await;
    // The compile task ran under the compiler's limits, the judge's `[compile]` (this judge's
    // are the defaults), said with their values; it measured nothing: "–".
    let compile_limits = verdict_scheduler::JudgeConfig::default().compile;
    assert_eq!(
        (
            compile_limits.time_ms,
            compile_limits.wall_ms,
            compile_limits.memory_kb,
            compile_limits.output_kb,
            compile_limits.processes
        ),
        (10_000, 30_000, 2 * 1024 * 1024, 256 * 1024, 64),
        "the defaults changed: change the figures below"
    );
    click(c, "tr[data-task=\"0\"] button.task-open").await;
    let compile = text(c, "#task-detail").await;
    assert!(
        compile.contains("the judge's own limits for compilers") && !compile.contains("limit none"),
        "{compile}"
    );
    assert_eq!(
        own_limits(c).await,
        json!([
            ["time limit", "10 s"],
            ["wall-clock limit", "30 s"],
            ["memory limit", "2.0 GiB"],
            ["output limit", "256.0 MiB"],
            ["processes limit", "64"]
        ]),
        "{compile}"
    );
    assert_eq!(
        row_cells(c, 0).await,
        json!(["– / 10 s", "– / 2.0 GiB"]),
        "the compile row"
    );

    // Static analysis, camelCase as the contract has it: places and counts, never "undefined".
    c.goto(&format!("{base}/#/submit")).await.expect("submit");
    judge_through_the_page(c, &fresh("static-findings", "faces-static"), 2, 180).await;
    click(c, "tr[data-task=\"1\"] button.task-open").await;
    let report = text(c, "#task-detail .static-report").await;
    assert!(!report.contains("undefined"), "{report}");
    assert!(
        report.contains("of 2 files with violations") || report.contains("of 1 files"),
        "{report}"
    );
    let places = eval(
        c,
        "return [...document.querySelectorAll('#task-detail .static-report td.mono')].map(td => td.textContent);",
    )
    .await;
    let places = places.as_array().expect("a list");
    assert!(!places.is_empty(), "no findings listed: {report}");
    for place in places {
        let place = place.as_str().unwrap_or_default();
        let parts: Vec<&str> = place.rsplitn(3, ':').collect();
        assert!(
            parts.len() == 3 && parts[0].parse::<u32>().is_ok() && parts[1].parse::<u32>().is_ok(),
            "not file:line:column: {place}"
        );
    }
    // The analyser's limits: `[special]` static_time_ms (at least the task's 10 s) and
    // static_memory_kb, with what it measured.
    let special = verdict_scheduler::JudgeConfig::default().special;
    assert_eq!(
        (special.static_time_ms, special.static_memory_kb),
        (60_000, 2 * 1024 * 1024),
        "the defaults changed: change the figures below"
    );
    let limits = own_limits(c).await;
    assert_eq!(limits[0], json!(["time limit", "60 s"]), "{limits}");
    assert_eq!(limits[2], json!(["memory limit", "2.0 GiB"]), "{limits}");
    let cells = row_cells(c, 1).await;
    assert!(
        cells[0]
            .as_str()
            .is_some_and(|t| t.ends_with(" / 60 s") && !t.starts_with('–'))
            && cells[1].as_str().is_some_and(|t| t.ends_with(" / 2.0 GiB")),
        "the static row: {cells}"
    );
    screenshot(browser, "page-static.png").await;
    phone_screenshot(browser, "page-static-phone.png", false).await;

    // Google Test and valgrind: their reports as tables.
    for (name, tasks, task, heading) in [
        ("gtest-partial", 3, 1, "Google Test:"),
        ("memory-leaking", 3, 2, "Memory check"),
    ] {
        c.goto(&format!("{base}/#/submit")).await.expect("submit");
        judge_through_the_page(c, &fresh(name, &format!("faces-{name}")), tasks, 180).await;
        click(c, &format!("tr[data-task=\"{task}\"] button.task-open")).await;
        let detail = text(c, "#task-detail").await;
        assert!(detail.contains(heading), "{name}: {detail}");
        if name == "memory-leaking" {
            // valgrind does not run under the task's memory limit: none is drawn or claimed.
            assert!(
                detail.contains("none (valgrind runs unlimited)"),
                "{name}: {detail}"
            );
        }
    }

    // A compile error: the outcome says so, the compiler's output is shown.
    c.goto(&format!("{base}/#/submit")).await.expect("submit");
    judge_through_the_page(c, &fresh("compilation-error", "faces-ce"), 2, 120).await;
    text_containing(c, "#verdict", "Compilation Error").await;
    text_containing(c, "#task-detail", "Compiler output").await;
    // The conditions read as words, not enum names.
    let shown = text(c, "main").await;
    assert!(
        !shown.contains("ACCEPTED") && !shown.contains("NOT_TIME_LIMIT"),
        "{shown}"
    );
    page.close().await;
}

/// An A+B in C that waits 50 ms (wall time) before answering, so that a page watching a
/// submission of many tests sees it half done even on a fast, quiet machine.
const PACED_A_PLUS_B: &str = "#include <stdio.h>\n#include <unistd.h>\nint main(){int a,b;usleep(50000);if(scanf(\"%d%d\",&a,&b)!=2)return 1;printf(\"%d\\n\",a+b);return 0;}\n";

/// A+B with `n` tests; the tests whose index is in `wrong` expect a wrong answer.
pub(crate) fn many_tests(sub_id: &str, n: usize, wrong: &[usize]) -> String {
    let mut submission = a_plus_b(sub_id, "faces", PACED_A_PLUS_B);
    let test = submission["judge_tasks"][1].clone();
    let mut tasks = vec![submission["judge_tasks"][0].clone()];
    let mut data = Vec::new();
    for i in 0..n {
        let mut task = test.clone();
        task["testcase_id"] = json!(i);
        tasks.push(task);
        let sum = if wrong.contains(&i) { i + 2 } else { i + 1 };
        data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": format!("{i} 1\n")}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": format!("{sum}\n")}],
        }));
    }
    submission["judge_tasks"] = Value::Array(tasks);
    submission["test_data"] = Value::Array(data);
    submission.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_test_submission_opens_details_in_view_and_updates_row_by_row() {
    let config = ServerConfig {
        max_body_kb: 1024,
        ..server_config()
    };
    let Some(page) = SignedIn::start(config, TOKEN).await else {
        return;
    };
    let (browser, c) = (&page.browser, page.client());
    let wrong = [57, 140, 199];
    submit_through_the_page(c, &many_tests("faces-200", 200, &wrong)).await;
    // Keep the table and the compile task's row once it is final: updates must not redraw them.
    wait_for(c, "const row = document.querySelector('tr[data-task=\"0\"]');
             if (!row || row.dataset.status !== 'Accepted') return false;
             window.keptTable = document.getElementById('tasks');
             window.keptRow = row;
             window.keptStatus = row.dataset.status;
             return document.querySelectorAll('tr.task-row[data-status=\"Pending\"], tr.task-row[data-status=\"Running\"]').length > 20;", 120, "the compile task did not finish while many tests were left").await;
    until_finished(c, 201, 300).await;
    let kept = eval(
        c,
        "return [window.keptTable === document.getElementById('tasks'),
                     window.keptRow === document.querySelector('tr[data-task=\"0\"]')];",
    )
    .await;
    assert_eq!(
        kept,
        json!([true, true]),
        "an update redrew the table or an unchanged row"
    );
    // The outcome: the first wrong test, opened.
    text_containing(c, "#verdict", "Wrong Answer on test 58").await;
    // Charts of 200 tests are folded (figures are drawn after a burst of updates settles).
    wait_for(
        c,
        "return document.querySelectorAll('details.fold').length === 2;",
        10,
        "the charts were never drawn",
    )
    .await;
    let folded = eval(
        c,
        "return [...document.querySelectorAll('details.fold')].map(d => d.open);",
    )
    .await;
    assert_eq!(folded, json!([false, false]), "the charts are not folded");
    // A test far down the table opens its details in the viewport.
    eval(
        c,
        "document.querySelector('tr[data-task=\"150\"]').scrollIntoView({block: 'center'});",
    )
    .await;
    click(c, "tr[data-task=\"150\"] button.task-open").await;
    let place = eval(
        c,
        "const r = document.getElementById('task-detail').getBoundingClientRect();
             return [r.top, r.bottom, window.innerHeight];",
    )
    .await;
    let (top, height) = (
        place[0].as_f64().unwrap_or(-1.0),
        place[2].as_f64().unwrap_or(0.0),
    );
    assert!(
        top >= 0.0 && top < height,
        "the detail opens out of view: {place}"
    );
    screenshot(browser, "page-200-tests.png").await;
    // Failures only, and the first failure.
    click(c, "#failures-only").await;
    let shown = eval(c, "return [...document.querySelectorAll('tr.task-row')].filter(r => r.offsetParent !== null).map(r => r.dataset.task);").await;
    // The open task (#150) stays visible with the failures.
    assert_eq!(shown, json!(["58", "141", "150", "200"]), "{shown}");
    click(c, "#first-failure").await;
    wait_for(c, "const d = document.getElementById('task-detail'); const r = d && d.getBoundingClientRect();
             return !!d && d.closest('tr').previousElementSibling.dataset.task === '58' && r.top >= 0 && r.top < innerHeight;", 5, "the first failure does not open in view").await;
    // Phone width: the status column stays on screen.
    browser.resize(390, 844).await.expect("phone");
    let status_right = eval(c, "return document.querySelector('tr[data-task=\"58\"] .status-cell').getBoundingClientRect().right;").await;
    assert!(
        status_right.as_f64().unwrap_or(1e9) <= 390.0,
        "the status is off screen at 390 px: {status_right}"
    );
    assert!(!browser.overflows().await.expect("measure"));
    screenshot(browser, "page-200-tests-phone.png").await;
    page.close().await;
}

/// A server config on a fixed port (so a restarted server is the same origin) and data dir.
fn restartable_config(dir: &std::path::Path, port: u16) -> std::path::PathBuf {
    let path = dir.join("server.toml");
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:{port}\"\nworkers = 1\nqueue_capacity = 8\ndata_dir = \"data\"\n\
             [judge]\nwork_dir = {:?}\ncache_dir = {:?}\nparallelism = 1\n\
             [[tokens]]\ntoken = \"{TOKEN}\"\n",
            dir.join("work"),
            dir.join("cache")
        ),
    )
    .expect("config");
    path
}

/// A script: whether the note `#note` shows and says `says`, while the page keeps the `kept`
/// rows `rows` selects.
fn lost_keeping(note: &str, says: &str, rows: &str, kept: usize) -> String {
    format!(
        "const note = document.getElementById('{note}');
         return !note.hidden && note.textContent.includes('{says}')
             && document.querySelectorAll('{rows}').length === {kept};"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_keeps_its_view_and_reconnects_when_the_server_restarts() {
    if !crate::page::browser_or_skip() || crate::common::judge().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let config = restartable_config(dir.path(), port);
    let server = ServerProcess::start(&config);
    // Six tests of a second each, one at a time: the server dies in the middle.
    let mut submission: Value =
        serde_json::from_str(&many_tests("faces-restart", 6, &[])).expect("JSON");
    submission["submission"]["source_files"][0]["text"] = json!(sleepy_a_plus_b(1));
    let accepted = post(
        &server.url("/v1/submissions"),
        Some(TOKEN),
        &submission.to_string(),
    );
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let browser = signed_in_browser(&server.base, TOKEN).await;
    let c = browser.client();
    c.goto(&server.url("/#/s/faces-restart"))
        .await
        .expect("open");
    wait_for(
        c,
        "const rows = [...document.querySelectorAll('tr.task-row')];
             return rows.filter(r => r.dataset.status === 'Accepted').length >= 2
                 && rows.some(r => ['Pending', 'Running'].includes(r.dataset.status));",
        120,
        "the submission did not get going",
    )
    .await;
    let log = server.kill9();
    assert!(
        log.iter()
            .any(|l| l.contains(&format!("listening on http://127.0.0.1:{port}"))),
        "no address to open in the log: {log:#?}"
    );
    let lost = lost_keeping("connection", "Connection lost, retrying", "tr.task-row", 7);
    let what = "the lost connection is not said, or the view was dropped";
    wait_for(c, &lost, 20, what).await;
    let shown = text(c, "main").await;
    assert!(
        !shown.contains("network error") && !shown.contains("TypeError"),
        "{shown}"
    );
    // A task not finished has measured and scored nothing: "–", never "0 ms", "0 KiB", "0/1".
    let unfinished = eval(
        c,
        "return [...document.querySelectorAll('tr.task-row')]
                 .filter(r => ['Pending', 'Running'].includes(r.dataset.status))
                 .map(r => [...r.cells].slice(3, 6).map(td => td.textContent));",
    )
    .await;
    for cells in unfinished.as_array().expect("rows") {
        let cells = strings(cells);
        assert!(
            cells.len() == 3 && cells.iter().all(|c| c.starts_with('–')),
            "an unfinished task shows numbers: {cells:?}"
        );
    }
    screenshot(&browser, "page-connection-lost.png").await;
    phone_screenshot(&browser, "page-connection-lost-phone.png", true).await;
    // The same server again: the page reads the snapshot, follows the stream to the end.
    let server = ServerProcess::start(&config);
    until_finished(c, 7, 180).await;
    text_containing(c, "#verdict", "Accepted").await;
    wait_for(
        c,
        "return document.getElementById('connection').hidden;",
        10,
        "the connection note stays",
    )
    .await;
    // The queue says the same, and keeps its list through a restart.
    open_the_queue_of_one(c).await;
    drop(server.kill9());
    let lost = lost_keeping(
        "queue-connection",
        "Connection lost",
        "#queue-table tbody tr",
        1,
    );
    wait_for(c, &lost, 15, "the queue does not keep its list").await;
    let queue = text(c, "main").await;
    assert!(!queue.contains("TypeError"), "{queue}");
    browser.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submission_sent_over_the_api_shows_whole_in_a_fresh_browser() {
    let Some(server) = page_server(server_config()) else {
        return;
    };
    let sent = post(
        &server.url("/v1/submissions"),
        Some(TOKEN),
        &fresh("dependency-not-satisfied", "faces-api"),
    );
    assert_eq!(sent.status, 202, "{}", sent.text);
    // The plan over HTTP: the tasks and the inputs, kept for every viewer.
    let plan = get(&server.url("/v1/submissions/faces-api/plan"), Some(TOKEN));
    assert_eq!(plan.status, 200, "{}", plan.text);
    let plan = plan.json();
    assert_eq!(plan["judge_tasks"][1]["time_limit"], 1000);
    assert_eq!(plan["test_inputs"][0][0]["text"], "1 2\n");
    crate::common::assert_matches_openapi(&server, "SubmissionPlan", &plan);
    // A browser that never saw it.
    let page = SignedIn::open(server, TOKEN).await;
    let (server, c) = (&page.server, page.client());
    c.goto(&server.url("/#/s/faces-api")).await.expect("open");
    until_finished(c, 5, 120).await;
    wait_for(c, "return [...document.querySelectorAll('tr.task-row td:nth-child(3)')].map(td => td.textContent).join(',') === 'compile,test 1,test 2,test 1,test 2'
                && !!document.querySelector('svg.graph');", 10, "the kinds or the graph are missing").await;
    let detail = text(c, "#task-detail").await;
    assert!(
        detail.contains("time limit")
            && detail.contains("1 s")
            && !detail.contains("Limits unknown"),
        "{detail}"
    );
    assert_eq!(text(c, ".test-input pre").await, "1 2");
    // The plan lasts as long as the report: after the run it is still there.
    let plan = get(&server.url("/v1/submissions/faces-api/plan"), Some(TOKEN));
    assert_eq!(plan.status, 200, "{}", plan.text);
    assert_eq!(
        get(&server.url("/v1/submissions/nope/plan"), Some(TOKEN)).status,
        404
    );
    page.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_from_the_page_reads_cancelled_on_the_page_the_queue_and_the_metrics() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let (server, c, base) = (&page.server, page.client(), page.url(""));
    // Two tests of a program that sleeps a minute, each with a 30 s limit: still running when
    // the person cancels it.
    let mut submission = a_plus_b("faces-cancel", "faces", &sleepy_a_plus_b(60));
    for task in submission["judge_tasks"]
        .as_array_mut()
        .expect("tasks")
        .iter_mut()
        .skip(1)
    {
        task["time_limit"] = json!(30_000);
    }
    submit_through_the_page(c, &submission.to_string()).await;
    wait_for(c, "const b = document.getElementById('cancel-submission'); return !!b && !b.hidden \
             && [...document.querySelectorAll('tr.task-row')].some(r => r.dataset.status === 'Running');", 60, "no Cancel button while it runs").await;
    click(c, "#cancel-submission").await;
    wait_for(
        c,
        "return document.getElementById('verdict').textContent.startsWith('Cancelled');",
        30,
        "the outcome does not say cancelled",
    )
    .await;
    // The wire keeps the contract's status: System Error, its log `cancelled: ...`.
    let report = get(
        &server.url("/v1/submissions/faces-cancel?category=faces"),
        Some(TOKEN),
    )
    .json();
    assert_eq!(cancelled_results(&report, 0), 2, "{report:#}");
    text_containing(c, "#verdict", "2 of 3 tasks").await;
    let rows = text(c, "#tasks").await;
    assert!(
        rows.contains("Cancelled") && !rows.contains("System Error"),
        "{rows}"
    );
    assert!(
        c.find(Locator::Css("#cancel-submission"))
            .await
            .expect("button")
            .attr("hidden")
            .await
            .expect("attr")
            .is_some(),
        "the Cancel button stays after the end"
    );
    // The metrics count them as cancelled, not as the judge failing.
    let metrics = get(&server.url("/metrics"), Some(TOKEN)).text;
    assert!(
        metrics.contains("verdict_task_verdicts_total{status=\"cancelled\"} 2"),
        "{metrics}"
    );
    assert!(
        metrics.contains("verdict_task_verdicts_total{status=\"System Error\"} 0"),
        "{metrics}"
    );
    // The queue says it too, and filters by it.
    c.goto(&format!("{base}/#/queue")).await.expect("queue");
    wait_for(c, "const t = document.getElementById('queue-table'); return !!t && t.textContent.includes('cancelled ×2');", 10, "the queue does not say cancelled").await;
    page.close().await;
}
