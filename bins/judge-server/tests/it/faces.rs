//! The page, second pass, in a real headless Chromium: every task kind's details
//! (static, gtest, valgrind, a compile error, a wrong answer marked where it differs), the outcome
//! on top, a 200-test submission that stays usable (details under their row, rows updated one by
//! one, charts folded, a failures-only filter), and a server killed and restarted mid-stream.

use crate::common::{ServerProcess, TestServer, a_plus_b, get, post, sleepy_a_plus_b};
use crate::web::{browser_or_skip, click, example, phone_screenshot, screenshot_path, text, until};
use serde_json::{Value, json};
use std::time::Duration;
use verdict_judge_server::{ServerConfig, TokenConfig};
use verdict_web::browser::{Browser, Client, Locator};

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

/// Opens `base`, signs in with `token` and waits for the submit form.
pub(crate) async fn sign_in(c: &Client, base: &str, token: &str) {
    c.goto(&format!("{base}/")).await.expect("open the page");
    let field = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#token"))
        .await
        .expect("the page asks for a token");
    assert!(
        until(
            c,
            "return getComputedStyle(document.getElementById('nav')).display === 'none';",
            Duration::from_secs(5)
        )
        .await,
        "the navigation shows on the sign-in page"
    );
    field.send_keys(token).await.expect("type");
    click(c, "#token-submit").await;
    assert!(
        until(
            c,
            "return !!document.getElementById('submission');",
            Duration::from_secs(10)
        )
        .await,
        "not signed in"
    );
}

/// Pastes `submission` into the form (as a person pasting JSON) and sends it.
pub(crate) async fn submit_through_the_page(c: &Client, submission: &str) {
    c.execute(
        "document.getElementById('submission').value = arguments[0];",
        vec![Value::String(submission.to_owned())],
    )
    .await
    .expect("paste");
    click(c, "#submit").await;
    assert!(
        until(
            c,
            "return !!document.querySelector('#tasks');",
            Duration::from_secs(30)
        )
        .await,
        "the submission view does not open: {}",
        text(c, "main").await
    );
}

/// Waits until every task row shows a final status and the view is no longer live.
pub(crate) async fn until_finished(c: &Client, tasks: usize, limit: Duration) {
    let script = format!(
        "const rows = [...document.querySelectorAll('tr.task-row')];
         return rows.length === {tasks} && rows.every(r => !['Pending', 'Running', 'Compiling'].includes(r.dataset.status))
             && document.getElementById('live').hidden;"
    );
    assert!(
        until(c, &script, limit).await,
        "not every task finished: {}",
        text(c, "main").await
    );
}

/// The open task's own limits (compile, static) as the page lists them: [name, value] pairs.
pub(crate) async fn own_limits(c: &Client) -> Value {
    c.execute(
        "return [...document.querySelectorAll('#task-detail .limits-own dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent]);",
        vec![],
    )
    .await
    .expect("limits")
}

/// Task `i`'s run time and memory cells (measured / limit).
pub(crate) async fn row_cells(c: &Client, i: usize) -> Value {
    c.execute(
        &format!(
            "return [...document.querySelector('tr[data-task=\"{i}\"]').cells].slice(4, 6).map(td => td.textContent);"
        ),
        vec![],
    )
    .await
    .expect("cells")
}

/// A bundled example with a fresh sub_id, as the page's "load an example" gives it.
fn fresh(name: &str, sub_id: &str) -> String {
    example(name, sub_id, "faces")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_task_kind_shows_its_details_and_the_outcome_on_top() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    let base = server.url("");
    sign_in(c, &base, TOKEN).await;

    // A wrong answer: the outcome names it and opens it; the difference is marked, placed by
    // line, column and token, the test's input shown.
    submit_through_the_page(c, &fresh("wrong-answer", "faces-wa")).await;
    until_finished(c, 2, Duration::from_secs(120)).await;
    let verdict = text(c, "#verdict").await;
    assert!(
        verdict.contains("Wrong Answer on test 1"),
        "the outcome is not on top: {verdict}"
    );
    let detail = text(c, "#task-detail").await;
    assert!(
        detail.contains("Task 2"),
        "the failed task is not opened: {detail}"
    );
    assert!(
        detail.contains("line 1, column 1, token 1"),
        "no place: {detail}"
    );
    assert_eq!(text(c, ".diff-expected mark.diff-mark").await, "3");
    assert_eq!(text(c, ".diff-got mark.diff-mark").await, "-");
    assert_eq!(text(c, ".test-input pre").await, "1 2");
    // The detail sits in the row right under its task's.
    let under = c
        .execute(
            "const d = document.getElementById('task-detail').closest('tr');
             return d.previousElementSibling.dataset.task;",
            vec![],
        )
        .await
        .expect("detail row");
    assert_eq!(under, json!("1"));
    c.execute("window.scrollTo(0, 0);", vec![])
        .await
        .expect("scroll");
    browser
        .screenshot(&screenshot_path("page-outcome.png"))
        .await
        .expect("screenshot");
    phone_screenshot(&browser, "page-outcome-phone.png", true).await;
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
    submit_through_the_page(c, &fresh("static-findings", "faces-static")).await;
    until_finished(c, 2, Duration::from_secs(180)).await;
    click(c, "tr[data-task=\"1\"] button.task-open").await;
    let report = text(c, "#task-detail .static-report").await;
    assert!(!report.contains("undefined"), "{report}");
    assert!(
        report.contains("of 2 files with violations") || report.contains("of 1 files"),
        "{report}"
    );
    let places = c
        .execute(
            "return [...document.querySelectorAll('#task-detail .static-report td.mono')].map(td => td.textContent);",
            vec![],
        )
        .await
        .expect("places");
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
    browser
        .screenshot(&screenshot_path("page-static.png"))
        .await
        .expect("screenshot");
    phone_screenshot(&browser, "page-static-phone.png", false).await;

    // Google Test and valgrind: their reports as tables.
    for (name, tasks, task, heading) in [
        ("gtest-partial", 3, 1, "Google Test:"),
        ("memory-leaking", 3, 2, "Memory check"),
    ] {
        c.goto(&format!("{base}/#/submit")).await.expect("submit");
        submit_through_the_page(c, &fresh(name, &format!("faces-{name}"))).await;
        until_finished(c, tasks, Duration::from_secs(180)).await;
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
    submit_through_the_page(c, &fresh("compilation-error", "faces-ce")).await;
    until_finished(c, 2, Duration::from_secs(120)).await;
    assert!(text(c, "#verdict").await.contains("Compilation Error"));
    let detail = text(c, "#task-detail").await;
    assert!(detail.contains("Compiler output"), "{detail}");
    // The conditions read as words, not enum names.
    let page = text(c, "main").await;
    assert!(
        !page.contains("ACCEPTED") && !page.contains("NOT_TIME_LIMIT"),
        "{page}"
    );
    browser.close().await.expect("close");
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
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(ServerConfig {
        max_body_kb: 1024,
        ..server_config()
    }) else {
        return;
    };
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    sign_in(c, &server.url(""), TOKEN).await;
    let wrong = [57, 140, 199];
    submit_through_the_page(c, &many_tests("faces-200", 200, &wrong)).await;
    // Keep the table and the compile task's row once it is final: updates must not redraw them.
    assert!(
        until(
            c,
            "const row = document.querySelector('tr[data-task=\"0\"]');
             if (!row || row.dataset.status !== 'Accepted') return false;
             window.keptTable = document.getElementById('tasks');
             window.keptRow = row;
             window.keptStatus = row.dataset.status;
             return document.querySelectorAll('tr.task-row[data-status=\"Pending\"], tr.task-row[data-status=\"Running\"]').length > 20;",
            Duration::from_secs(120)
        )
        .await,
        "the compile task did not finish while many tests were left"
    );
    until_finished(c, 201, Duration::from_secs(300)).await;
    let kept = c
        .execute(
            "return [window.keptTable === document.getElementById('tasks'),
                     window.keptRow === document.querySelector('tr[data-task=\"0\"]')];",
            vec![],
        )
        .await
        .expect("identity");
    assert_eq!(
        kept,
        json!([true, true]),
        "an update redrew the table or an unchanged row"
    );
    // The outcome: the first wrong test, opened.
    assert!(
        text(c, "#verdict")
            .await
            .contains("Wrong Answer on test 58"),
        "{}",
        text(c, "#verdict").await
    );
    // Charts of 200 tests are folded (figures are drawn after a burst of updates settles).
    assert!(
        until(
            c,
            "return document.querySelectorAll('details.fold').length === 2;",
            Duration::from_secs(10)
        )
        .await,
        "the charts were never drawn"
    );
    let folded = c
        .execute(
            "return [...document.querySelectorAll('details.fold')].map(d => d.open);",
            vec![],
        )
        .await
        .expect("folds");
    assert_eq!(folded, json!([false, false]), "the charts are not folded");
    // A test far down the table opens its details in the viewport.
    c.execute(
        "document.querySelector('tr[data-task=\"150\"]').scrollIntoView({block: 'center'});",
        vec![],
    )
    .await
    .expect("scroll");
    click(c, "tr[data-task=\"150\"] button.task-open").await;
    let place = c
        .execute(
            "const r = document.getElementById('task-detail').getBoundingClientRect();
             return [r.top, r.bottom, window.innerHeight];",
            vec![],
        )
        .await
        .expect("rect");
    let (top, height) = (
        place[0].as_f64().unwrap_or(-1.0),
        place[2].as_f64().unwrap_or(0.0),
    );
    assert!(
        top >= 0.0 && top < height,
        "the detail opens out of view: {place}"
    );
    browser
        .screenshot(&screenshot_path("page-200-tests.png"))
        .await
        .expect("screenshot");
    // Failures only, and the first failure.
    click(c, "#failures-only").await;
    let shown = c
        .execute(
            "return [...document.querySelectorAll('tr.task-row')].filter(r => r.offsetParent !== null).map(r => r.dataset.task);",
            vec![],
        )
        .await
        .expect("visible rows");
    // The open task (#150) stays visible with the failures.
    assert_eq!(shown, json!(["58", "141", "150", "200"]), "{shown}");
    click(c, "#first-failure").await;
    assert!(
        until(
            c,
            "const d = document.getElementById('task-detail'); const r = d && d.getBoundingClientRect();
             return !!d && d.closest('tr').previousElementSibling.dataset.task === '58' && r.top >= 0 && r.top < innerHeight;",
            Duration::from_secs(5)
        )
        .await,
        "the first failure does not open in view"
    );
    // Phone width: the status column stays on screen.
    browser.resize(390, 844).await.expect("phone");
    let status_right = c
        .execute(
            "return document.querySelector('tr[data-task=\"58\"] .status-cell').getBoundingClientRect().right;",
            vec![],
        )
        .await
        .expect("status cell");
    assert!(
        status_right.as_f64().unwrap_or(1e9) <= 390.0,
        "the status is off screen at 390 px: {status_right}"
    );
    assert!(!browser.overflows().await.expect("measure"));
    browser
        .screenshot(&screenshot_path("page-200-tests-phone.png"))
        .await
        .expect("screenshot");
    browser.close().await.expect("close");
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_keeps_its_view_and_reconnects_when_the_server_restarts() {
    if !browser_or_skip() || crate::common::judge().is_none() {
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
    submission["submission"]["source_files"][0]["text"] = json!(crate::common::sleepy_a_plus_b(1));
    let accepted = post(
        &server.url("/v1/submissions"),
        Some(TOKEN),
        &submission.to_string(),
    );
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    sign_in(c, &server.base, TOKEN).await;
    c.goto(&server.url("/#/s/faces-restart"))
        .await
        .expect("open");
    assert!(
        until(
            c,
            "const rows = [...document.querySelectorAll('tr.task-row')];
             return rows.filter(r => r.dataset.status === 'Accepted').length >= 2
                 && rows.some(r => ['Pending', 'Running'].includes(r.dataset.status));",
            Duration::from_secs(120)
        )
        .await,
        "the submission did not get going: {}",
        text(c, "main").await
    );
    let log = server.kill9();
    assert!(
        log.iter()
            .any(|l| l.contains(&format!("listening on http://127.0.0.1:{port}"))),
        "no address to open in the log: {log:#?}"
    );
    assert!(
        until(
            c,
            "const note = document.getElementById('connection');
             return !note.hidden && note.textContent.includes('Connection lost, retrying')
                 && document.querySelectorAll('tr.task-row').length === 7;",
            Duration::from_secs(20)
        )
        .await,
        "the lost connection is not said, or the view was dropped: {}",
        text(c, "main").await
    );
    let shown = text(c, "main").await;
    assert!(
        !shown.contains("network error") && !shown.contains("TypeError"),
        "{shown}"
    );
    // A task not finished has measured and scored nothing: "–", never "0 ms", "0 KiB", "0/1".
    let unfinished = c
        .execute(
            "return [...document.querySelectorAll('tr.task-row')]
                 .filter(r => ['Pending', 'Running'].includes(r.dataset.status))
                 .map(r => [...r.cells].slice(3, 6).map(td => td.textContent));",
            vec![],
        )
        .await
        .expect("unfinished rows");
    for cells in unfinished.as_array().expect("rows") {
        let cells: Vec<&str> = cells
            .as_array()
            .expect("cells")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(
            cells.len() == 3 && cells.iter().all(|c| c.starts_with('–')),
            "an unfinished task shows numbers: {cells:?}"
        );
    }
    browser
        .screenshot(&screenshot_path("page-connection-lost.png"))
        .await
        .expect("screenshot");
    phone_screenshot(&browser, "page-connection-lost-phone.png", true).await;
    // The same server again: the page reads the snapshot, follows the stream to the end.
    let server = ServerProcess::start(&config);
    until_finished(c, 7, Duration::from_secs(180)).await;
    assert!(text(c, "#verdict").await.contains("Accepted"));
    assert!(
        until(
            c,
            "return document.getElementById('connection').hidden;",
            Duration::from_secs(10)
        )
        .await,
        "the connection note stays"
    );
    // The queue says the same, and keeps its list through a restart.
    click(c, "nav a[href=\"#/queue\"]").await;
    assert!(
        until(
            c,
            "return document.querySelectorAll('#queue-table tbody tr').length === 1;",
            Duration::from_secs(10)
        )
        .await
    );
    drop(server.kill9());
    assert!(
        until(
            c,
            "const note = document.getElementById('queue-connection');
             return !note.hidden && note.textContent.includes('Connection lost')
                 && document.querySelectorAll('#queue-table tbody tr').length === 1;",
            Duration::from_secs(15)
        )
        .await,
        "the queue does not keep its list: {}",
        text(c, "main").await
    );
    let queue = text(c, "main").await;
    assert!(!queue.contains("TypeError"), "{queue}");
    browser.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submission_sent_over_the_api_shows_whole_in_a_fresh_browser() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let sent = post(
        &server.url("/v1/submissions"),
        Some(TOKEN),
        &fresh("dependency-not-satisfied", "faces-api"),
    );
    assert_eq!(sent.status, 202, "{}", sent.text);
    // The plan over HTTP: the tasks and the inputs, kept for every viewer.
    let plan = crate::common::get(&server.url("/v1/submissions/faces-api/plan"), Some(TOKEN));
    assert_eq!(plan.status, 200, "{}", plan.text);
    let plan = plan.json();
    assert_eq!(plan["judge_tasks"][1]["time_limit"], 1000);
    assert_eq!(plan["test_inputs"][0][0]["text"], "1 2\n");
    crate::common::assert_matches_openapi(&server, "SubmissionPlan", &plan);
    // A browser that never saw it.
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    sign_in(c, &server.url(""), TOKEN).await;
    c.goto(&server.url("/#/s/faces-api")).await.expect("open");
    until_finished(c, 5, Duration::from_secs(120)).await;
    assert!(
        until(
            c,
            "return [...document.querySelectorAll('tr.task-row td:nth-child(3)')].map(td => td.textContent).join(',') === 'compile,test 1,test 2,test 1,test 2'
                && !!document.querySelector('svg.graph');",
            Duration::from_secs(10)
        )
        .await,
        "the kinds or the graph are missing: {}",
        text(c, "#tasks").await
    );
    let detail = text(c, "#task-detail").await;
    assert!(
        detail.contains("time limit")
            && detail.contains("1 s")
            && !detail.contains("Limits unknown"),
        "{detail}"
    );
    assert_eq!(text(c, ".test-input pre").await, "1 2");
    // The plan lasts as long as the report: after the run it is still there.
    let plan = crate::common::get(&server.url("/v1/submissions/faces-api/plan"), Some(TOKEN));
    assert_eq!(plan.status, 200, "{}", plan.text);
    assert_eq!(
        crate::common::get(&server.url("/v1/submissions/nope/plan"), Some(TOKEN)).status,
        404
    );
    browser.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_from_the_page_reads_cancelled_on_the_page_the_queue_and_the_metrics() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    let base = server.url("");
    sign_in(c, &base, TOKEN).await;
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
    assert!(
        until(
            c,
            "const b = document.getElementById('cancel-submission'); return !!b && !b.hidden \
             && [...document.querySelectorAll('tr.task-row')].some(r => r.dataset.status === 'Running');",
            Duration::from_secs(60)
        )
        .await,
        "no Cancel button while it runs: {}",
        text(c, "main").await
    );
    click(c, "#cancel-submission").await;
    assert!(
        until(
            c,
            "return document.getElementById('verdict').textContent.startsWith('Cancelled');",
            Duration::from_secs(30)
        )
        .await,
        "the outcome does not say cancelled: {}",
        text(c, "#verdict").await
    );
    // The wire keeps the contract's status: System Error, its log `cancelled: ...`.
    let report = get(
        &server.url("/v1/submissions/faces-cancel?category=faces"),
        Some(TOKEN),
    )
    .json();
    let results = report["results"].as_array().expect("results");
    let cancelled = results
        .iter()
        .filter(|r| {
            r["status"] == "System Error"
                && r["error_log"]
                    .as_str()
                    .is_some_and(|l| l.starts_with("cancelled:"))
        })
        .count();
    assert_eq!(cancelled, 2, "{report:#}");
    let verdict = text(c, "#verdict").await;
    assert!(verdict.contains("2 of 3 tasks"), "{verdict}");
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
    assert!(
        until(
            c,
            "const t = document.getElementById('queue-table'); return !!t && t.textContent.includes('cancelled ×2');",
            Duration::from_secs(10)
        )
        .await,
        "the queue does not say cancelled: {}",
        text(c, "main").await
    );
    browser.close().await.expect("close");
}
