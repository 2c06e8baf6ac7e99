//! The page for people, as a person uses it: headless Chromium (Debian's chromium and
//! chromium-driver) opens `/`, enters the token, submits a bundled example, watches every task
//! reach its final status, opens the wrong answer and reads expected beside got; the queue and
//! the lab runs. Plus the page's routes and list endpoints over plain HTTP.

use crate::common::{TestServer, config, get, post};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use verdict_judge_server::{ServerConfig, TokenConfig};
use verdict_web::browser::{self, Browser, Client, Locator};

const ADMIN: &str = "web-admin-token";
const OJ: &str = "web-oj-token";

fn server_config() -> ServerConfig {
    ServerConfig {
        tokens: vec![
            TokenConfig {
                token: ADMIN.into(),
                ..TokenConfig::default()
            },
            TokenConfig {
                token: OJ.into(),
                category: Some("oj".into()),
                ..TokenConfig::default()
            },
        ],
        ..config()
    }
}

pub(crate) fn example(name: &str, sub_id: &str, category: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/judge/{name}.json"));
    let mut submission: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("example")).expect("JSON");
    submission["sub_id"] = sub_id.into();
    submission["category"] = category.into();
    submission.to_string()
}

#[test]
fn the_page_is_served_with_a_strict_policy_and_no_token() {
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let page = get(&server.url("/"), None);
    assert_eq!(page.status, 200);
    assert!(
        page.header("content-type")
            .is_some_and(|t| t.starts_with("text/html"))
    );
    let csp = page.header("content-security-policy").expect("a CSP");
    assert!(
        csp.contains("default-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    assert_eq!(page.header("x-content-type-options"), Some("nosniff"));
    assert!(page.text.contains("/assets/app.js"));
    let script = get(&server.url("/assets/app.js"), None);
    assert_eq!(script.status, 200);
    assert!(
        script
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/javascript"))
    );
    let examples = get(&server.url("/assets/examples.json"), None).json();
    assert!(
        examples
            .as_array()
            .is_some_and(|list| list.iter().any(|e| e["name"] == "wrong-answer"))
    );
    let missing = get(&server.url("/assets/nope.js"), None);
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["error"]["code"], "not_found");
}

#[test]
fn the_submission_list_shows_only_what_the_token_may_see() {
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    assert_eq!(get(&server.url("/v1/submissions"), None).status, 401);
    for (sub_id, category, token) in [("list-oj", "oj", OJ), ("list-other", "other", ADMIN)] {
        let body = example("wrong-answer", sub_id, category);
        assert_eq!(
            post(&server.url("/v1/judge"), Some(token), &body).status,
            200
        );
    }
    let ids = |reply: Value| -> Vec<String> {
        reply["submissions"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|s| s["sub_id"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let all = get(&server.url("/v1/submissions"), Some(ADMIN)).json();
    assert_eq!(ids(all.clone()), ["list-other", "list-oj"], "{all}");
    let first = &all["submissions"][0];
    assert_eq!(first["state"], "finished");
    assert_eq!(first["score"], "1/2");
    assert_eq!(first["statuses"]["Wrong Answer"], 1);
    assert_eq!(
        ids(get(&server.url("/v1/submissions"), Some(OJ)).json()),
        ["list-oj"]
    );
    assert_eq!(
        ids(get(&server.url("/v1/submissions?category=other"), Some(OJ)).json()),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(get(
            &server.url("/v1/submissions?status=Wrong%20Answer&category=oj"),
            Some(ADMIN)
        )
        .json()),
        ["list-oj"]
    );
    assert!(ids(get(&server.url("/v1/submissions?status=queued"), Some(ADMIN)).json()).is_empty());
    let bad = get(&server.url("/v1/submissions?limit=many"), Some(ADMIN));
    assert_eq!(bad.status, 422, "{}", bad.text);
}

#[test]
fn lab_runs_are_kept_for_the_page_and_filtered_by_category() {
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let task = r#"{"id": "lab-web", "name": "unknown type", "type": "no-such-type", "input": 1, "metadata": {}}"#;
    let refused = post(&server.url("/v1/lab/runs"), Some(ADMIN), task);
    assert_eq!(refused.status, 422, "{}", refused.text);
    let tasks: Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab/oracle-tasks.json"),
        )
        .expect("oracle tasks"),
    )
    .expect("JSON");
    let ran = post(&server.url("/v1/lab/runs"), Some(OJ), &tasks[0].to_string());
    assert_eq!(ran.status, 200, "{}", ran.text);
    let run_id = ran.json()["run"]["id"].clone();
    let mine = get(&server.url("/v1/lab/runs"), Some(OJ)).json();
    assert_eq!(mine["runs"][0]["id"], run_id);
    assert!(
        mine["scores"]
            .as_array()
            .is_some_and(|s| s.iter().all(|s| s["runId"] == run_id) && !s.is_empty())
    );
    assert_eq!(
        get(&server.url("/v1/lab/runs"), Some(ADMIN)).json()["runs"][0]["id"],
        run_id
    );
    assert_eq!(get(&server.url("/v1/lab/runs"), None).status, 401);
}

/// The first task of examples/lab/oracle-tasks.json with the id `id`.
fn lab_task(id: &str) -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab/oracle-tasks.json");
    let tasks: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("oracle tasks")).expect("JSON");
    let mut task = tasks[0].clone();
    task["id"] = id.into();
    task.to_string()
}

#[test]
fn lab_runs_survive_a_restart_of_the_server() {
    let data = tempfile::tempdir().expect("temp dir");
    let config = || ServerConfig {
        data_dir: data.path().to_owned(),
        ..server_config()
    };
    let Some(server) = TestServer::start_keeping_data(config()) else {
        return;
    };
    let ran = post(
        &server.url("/v1/lab/runs"),
        Some(OJ),
        &lab_task("durable-run"),
    );
    assert_eq!(ran.status, 200, "{}", ran.text);
    let run = ran.json()["run"].clone();
    let before = get(&server.url("/v1/lab/runs"), Some(OJ)).json();
    assert!(server.stop(Duration::from_secs(60)), "the server stops");

    let server = TestServer::start_keeping_data(config()).expect("the server starts again");
    let after = get(&server.url("/v1/lab/runs"), Some(OJ));
    assert_eq!(after.status, 200, "{}", after.text);
    let after = after.json();
    assert_eq!(
        after["runs"],
        json!([run]),
        "the run is gone after a restart"
    );
    assert_eq!(after["scores"], before["scores"]);
    assert!(!after["scores"].as_array().is_some_and(Vec::is_empty));
    // Still its category's only.
    let admin = get(&server.url("/v1/lab/runs"), Some(ADMIN)).json();
    assert_eq!(admin["runs"][0]["id"], run["id"]);
    assert!(server.stop(Duration::from_secs(60)));
}

// ---- in the browser ----------------------------------------------------------------------

/// Skips (or fails in CI) when Chromium is not installed.
#[allow(clippy::print_stdout)]
pub(crate) fn browser_or_skip() -> bool {
    match browser::unavailable() {
        None => true,
        Some(reason) if std::env::var_os("CI").is_some() => panic!("{reason}"),
        Some(reason) => {
            println!("skipped: {reason}");
            false
        }
    }
}

/// Where screenshots go: `VERDICT_SCREENSHOTS` (e.g. docs/img), else the target's tmp dir.
pub(crate) fn screenshot_path(name: &str) -> PathBuf {
    std::env::var_os("VERDICT_SCREENSHOTS")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
        .join(name)
}

/// The same screen at phone width (390x844): nothing overflows, a screenshot `name` is taken,
/// then the window is 1280x800 again. `top` scrolls to the top first.
pub(crate) async fn phone_screenshot(browser: &Browser, name: &str, top: bool) {
    browser.resize(390, 844).await.expect("phone width");
    let c = browser.client();
    if top {
        c.execute("window.scrollTo(0, 0);", vec![])
            .await
            .expect("scroll");
    }
    assert!(
        !browser.overflows().await.expect("measure"),
        "{name}: the page overflows at 390 px"
    );
    browser
        .screenshot(&screenshot_path(name))
        .await
        .expect("screenshot");
    browser.resize(1280, 800).await.expect("desktop");
}

/// Polls `script` (returning a boolean) until it is true, at most `limit`.
pub(crate) async fn until(c: &Client, script: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if c.execute(script, vec![])
            .await
            .ok()
            .and_then(|v| v.as_bool())
            == Some(true)
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

pub(crate) async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .text()
        .await
        .expect("text")
}

pub(crate) async fn click(c: &Client, css: &str) {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

pub(crate) async fn scroll_top(c: &Client) {
    c.execute("window.scrollTo(0, 0);", vec![])
        .await
        .expect("scroll");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_submits_an_example_and_reads_the_wrong_answer() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    c.goto(&server.url("/")).await.expect("open the page");
    // The token, kept in the tab.
    let token = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("#token"))
        .await
        .expect("the page asks for a token");
    token.send_keys("wrong-token").await.expect("type");
    click(c, "#token-submit").await;
    assert!(
        until(
            c,
            "return document.getElementById('token-error').textContent.includes('refused');",
            Duration::from_secs(10)
        )
        .await,
        "a wrong token is not refused"
    );
    let token = c.find(Locator::Css("#token")).await.expect("token field");
    token.clear().await.expect("clear");
    token.send_keys(ADMIN).await.expect("type");
    click(c, "#token-submit").await;
    // Start from the bundled example and submit.
    assert!(
        until(c, "return !!document.querySelector('#example option[value=\"dependency-not-satisfied\"]');", Duration::from_secs(10)).await,
        "the examples are not offered"
    );
    click(c, "#example option[value=\"dependency-not-satisfied\"]").await;
    let body = c.find(Locator::Css("#submission")).await.expect("textarea");
    assert!(
        body.prop("value")
            .await
            .expect("value")
            .unwrap_or_default()
            .contains("\"judge_tasks\"")
    );
    browser
        .screenshot(&screenshot_path("page-submit.png"))
        .await
        .expect("screenshot");
    phone_screenshot(&browser, "page-submit-phone.png", true).await;
    click(c, "#submit").await;
    // Watch every task reach its final status.
    assert!(
        until(
            c,
            "return !!document.querySelector('#tasks');",
            Duration::from_secs(20)
        )
        .await,
        "the submission view does not open: {}",
        text(c, "main").await
    );
    let finished = "const rows = [...document.querySelectorAll('tr.task-row')];
        return rows.length === 5 && rows.every(r => !['Pending', 'Running', 'Compiling'].includes(r.dataset.status))
            && !document.querySelector('.live');";
    assert!(
        until(c, finished, Duration::from_secs(120)).await,
        "not every task finished: {}",
        text(c, "#tasks").await
    );
    let statuses = c
        .execute("return [...document.querySelectorAll('tr.task-row')].map(r => [r.dataset.status, r.querySelector('.status-cell').textContent]);", vec![])
        .await
        .expect("statuses");
    let expected = [
        "Accepted",
        "Wrong Answer",
        "Dependency Not Satisfied",
        "Dependency Not Satisfied",
        "Wrong Answer",
    ];
    let rows = statuses.as_array().expect("rows");
    assert_eq!(rows.len(), expected.len());
    for (row, want) in rows.iter().zip(expected) {
        assert_eq!(row[0], want, "{statuses}");
        // Colour plus text: the badge spells the status out.
        assert!(
            row[1].as_str().is_some_and(|t| t.contains(want)),
            "{statuses}"
        );
    }
    assert!(text(c, "#sub-progress").await.contains("5 of 5"));
    assert!(
        !browser.overflows().await.expect("measure"),
        "the submission overflows at 1280 px"
    );
    scroll_top(c).await;
    browser
        .screenshot(&screenshot_path("page-submission.png"))
        .await
        .expect("screenshot");
    // Open the wrong answer: expected beside got.
    click(c, "tr[data-task=\"1\"] button.task-open").await;
    let detail = text(c, "#task-detail").await;
    assert!(
        detail.contains("Wrong Answer") && detail.contains("line 1"),
        "{detail}"
    );
    assert_eq!(text(c, ".diff-expected pre").await, "3");
    assert_eq!(text(c, ".diff-got pre").await, "-1");
    assert!(
        detail.contains("time limit") && detail.contains("1 s"),
        "no limits: {detail}"
    );
    c.execute(
        "document.getElementById('task-detail').scrollIntoView();",
        vec![],
    )
    .await
    .expect("scroll");
    browser
        .screenshot(&screenshot_path("page-wrong-answer.png"))
        .await
        .expect("screenshot");
    // A skipped task says which task it waited for.
    click(c, "tr[data-task=\"2\"] button.task-open").await;
    let note = text(c, "#task-detail .dep-note").await;
    // A skipped task measured nothing: "–", not "0 ms".
    let skipped = text(c, "tr[data-task=\"2\"]").await;
    assert!(
        !skipped.contains("0 ms") && !skipped.contains("0 KiB"),
        "{skipped}"
    );
    assert!(
        note.contains("Skipped because task 2 ended") && note.contains("Wrong Answer"),
        "{note}"
    );
    // Phone width.
    browser.resize(390, 844).await.expect("phone width");
    assert!(
        !browser.overflows().await.expect("measure"),
        "the submission overflows at phone width"
    );
    scroll_top(c).await;
    browser
        .screenshot(&screenshot_path("page-submission-phone.png"))
        .await
        .expect("screenshot");
    browser.resize(1280, 800).await.expect("desktop");
    // The queue: the submission, filters, the metrics.
    click(c, "nav a[href=\"#/queue\"]").await;
    assert!(
        until(
            c,
            "return document.querySelectorAll('#queue-table tbody tr').length === 1;",
            Duration::from_secs(10)
        )
        .await,
        "the queue does not list the submission"
    );
    assert!(
        text(c, "#queue-table")
            .await
            .contains("dependency-not-satisfied-")
    );
    let filter = c
        .find(Locator::Css("#filter-category"))
        .await
        .expect("filter");
    filter.send_keys("nope").await.expect("type");
    assert!(
        until(c, "return document.getElementById('queue-table').textContent.includes('No submissions match');", Duration::from_secs(10)).await,
        "the category filter does not filter"
    );
    filter.clear().await.expect("clear");
    filter.send_keys("examples").await.expect("type");
    assert!(
        until(c, "return document.querySelectorAll('#queue-table tbody tr').length === 1 && document.querySelectorAll('#metrics svg').length >= 8;", Duration::from_secs(15)).await,
        "the queue or its metrics do not show"
    );
    // Let the metrics gather a few samples for the picture.
    tokio::time::sleep(Duration::from_secs(7)).await;
    assert!(
        !browser.overflows().await.expect("measure"),
        "the queue overflows at 1280 px"
    );
    browser
        .screenshot(&screenshot_path("page-queue.png"))
        .await
        .expect("screenshot");
    phone_screenshot(&browser, "page-queue-phone.png", true).await;
    browser.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_runs_page_picks_up_a_new_run_without_a_reload() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let first = post(
        &server.url("/v1/lab/runs"),
        Some(ADMIN),
        &lab_task("first-run"),
    );
    assert_eq!(first.status, 200, "{}", first.text);
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    crate::faces::sign_in(c, &server.url(""), ADMIN).await;
    click(c, "nav a[href=\"#/lab\"]").await;
    assert!(
        until(
            c,
            "return document.querySelectorAll('#lab button.run-open').length === 1;",
            Duration::from_secs(10)
        )
        .await,
        "the lab page does not list the first run: {}",
        text(c, "main").await
    );
    // A mark that a reload would wipe.
    c.execute("window.notReloaded = true;", vec![])
        .await
        .expect("mark");
    let second = post(
        &server.url("/v1/lab/runs"),
        Some(ADMIN),
        &lab_task("second-run"),
    );
    assert_eq!(second.status, 200, "{}", second.text);
    assert!(
        until(
            c,
            "return [...document.querySelectorAll('#lab button.run-open')].some(b => b.textContent === 'second-run');",
            Duration::from_secs(20)
        )
        .await,
        "the new run never appears: {}",
        text(c, "#lab").await
    );
    assert!(
        until(c, "return window.notReloaded === true && document.getElementById('run-count').textContent.startsWith('2 of 2');", Duration::from_secs(1)).await,
        "the page was reloaded or the count is stale: {}",
        text(c, "#run-count").await
    );
    browser.close().await.expect("close");
}

/// A token bound to no category opens, from the queue, each of two submissions that share a
/// `sub_id` in two categories: the links and the page's requests name the category (without it
/// the server answers 409, as the sub_id is ambiguous).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queue_links_name_the_category_so_a_shared_sub_id_opens_each_one() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    for (example_name, category) in [("aplusb-c", "alpha"), ("compilation-error", "beta")] {
        let reply = post(
            &server.url("/v1/judge"),
            Some(ADMIN),
            &example(example_name, "shared", category),
        );
        assert_eq!(reply.status, 200, "{}", reply.text);
    }
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    crate::faces::sign_in(c, &server.url(""), ADMIN).await;
    for (category, outcome) in [("beta", "Compilation Error"), ("alpha", "Accepted")] {
        c.goto(&server.url("/#/queue")).await.expect("queue");
        let link = format!("a[href=\"#/s/shared?category={category}\"]");
        assert!(
            until(
                c,
                &format!("return !!document.querySelector('{link}');"),
                Duration::from_secs(20)
            )
            .await,
            "the queue has no link naming {category}: {}",
            text(c, "main").await
        );
        click(c, &link).await;
        assert!(
            until(
                c,
                &format!(
                    "const v = document.getElementById('verdict'); return !!v && v.textContent.includes('{outcome}');"
                ),
                Duration::from_secs(20)
            )
            .await,
            "{category}'s submission does not open: {}",
            text(c, "main").await
        );
    }
    browser.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_category_tokens_metrics_panel_says_why_it_holds_only_its_category() {
    if !browser_or_skip() {
        return;
    }
    let Some(server) = TestServer::start(server_config()) else {
        return;
    };
    let body = example("wrong-answer", "metrics-oj", "oj");
    assert_eq!(post(&server.url("/v1/judge"), Some(OJ), &body).status, 200);
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    let base = server.url("");
    crate::faces::sign_in(c, &base, OJ).await;
    c.goto(&format!("{base}/#/queue")).await.expect("queue");
    assert!(
        until(
            c,
            "const n = document.getElementById('metrics-scope'); const own = document.getElementById('metrics-own');
             return !!n && !!own && own.textContent.includes('finished1');",
            Duration::from_secs(15)
        )
        .await,
        "no word on why the metrics are empty: {}",
        text(c, "main").await
    );
    let note = text(c, "#metrics-scope").await;
    assert!(
        note.contains("bound to a category") && note.contains("operator"),
        "{note}"
    );
    // An operator's token draws the server's metrics, with no such note.
    c.execute("sessionStorage.clear();", vec![])
        .await
        .expect("sign out");
    c.goto("about:blank").await.expect("leave");
    crate::faces::sign_in(c, &base, ADMIN).await;
    c.goto(&format!("{base}/#/queue")).await.expect("queue");
    assert!(
        until(
            c,
            "return document.querySelectorAll('#metrics svg').length >= 8 && !document.getElementById('metrics-scope');",
            Duration::from_secs(15)
        )
        .await,
        "the operator's metrics do not show: {}",
        text(c, "main").await
    );
    browser.close().await.expect("close");
}
