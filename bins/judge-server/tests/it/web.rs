//! The page for people, as a person uses it: headless Chromium (Debian's chromium and
//! chromium-driver) opens `/`, enters the token, submits a bundled example, watches every task
//! reach its final status, opens the wrong answer and reads expected beside got; the queue and
//! the lab runs. Plus the page's routes and list endpoints over plain HTTP.

use crate::common::{TestServer, config, get, post};
use crate::page::{
    SignedIn, click, enter_token, eval, open_the_queue_of_one, page_server, phone_screenshot,
    screenshot, scroll_top, send_the_form, sign_in, text, text_containing, wait_for,
};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;
use verdict_judge_server::{ServerConfig, TokenConfig};
use verdict_web::browser::{Browser, Locator};

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
    missing.assert_error(404, "not_found");
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

/// Runs [`lab_task`] `id` with `token` on `server`: the answer (200).
fn run_lab_task(server: &TestServer, token: &str, id: &str) -> Value {
    let ran = post(&server.url("/v1/lab/runs"), Some(token), &lab_task(id));
    assert_eq!(ran.status, 200, "{}", ran.text);
    ran.json()
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
    let run = run_lab_task(&server, OJ, "durable-run")["run"].clone();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_submits_an_example_and_reads_the_wrong_answer() {
    let Some(server) = page_server(server_config()) else {
        return;
    };
    let browser = Browser::start(1280, 800).await.expect("browser");
    let c = browser.client();
    c.goto(&server.url("/")).await.expect("open the page");
    // The token, kept in the tab.
    enter_token(c, "wrong-token").await;
    wait_for(
        c,
        "return document.getElementById('token-error').textContent.includes('refused');",
        10,
        "a wrong token is not refused",
    )
    .await;
    enter_token(c, ADMIN).await;
    // Start from the bundled example and submit.
    wait_for(
        c,
        "return !!document.querySelector('#example option[value=\"dependency-not-satisfied\"]');",
        10,
        "the examples are not offered",
    )
    .await;
    click(c, "#example option[value=\"dependency-not-satisfied\"]").await;
    let body = c.find(Locator::Css("#submission")).await.expect("textarea");
    assert!(
        body.prop("value")
            .await
            .expect("value")
            .unwrap_or_default()
            .contains("\"judge_tasks\"")
    );
    screenshot(&browser, "page-submit.png").await;
    phone_screenshot(&browser, "page-submit-phone.png", true).await;
    send_the_form(c).await;
    // Watch every task reach its final status.
    let finished = "const rows = [...document.querySelectorAll('tr.task-row')];
        return rows.length === 5 && rows.every(r => !['Pending', 'Running', 'Compiling'].includes(r.dataset.status))
            && !document.querySelector('.live');";
    wait_for(c, finished, 120, "not every task finished").await;
    let statuses = eval(c, "return [...document.querySelectorAll('tr.task-row')].map(r => [r.dataset.status, r.querySelector('.status-cell').textContent]);").await;
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
    text_containing(c, "#sub-progress", "5 of 5").await;
    assert!(
        !browser.overflows().await.expect("measure"),
        "the submission overflows at 1280 px"
    );
    scroll_top(c).await;
    screenshot(&browser, "page-submission.png").await;
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
    eval(
        c,
        "document.getElementById('task-detail').scrollIntoView();",
    )
    .await;
    screenshot(&browser, "page-wrong-answer.png").await;
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
    screenshot(&browser, "page-submission-phone.png").await;
    browser.resize(1280, 800).await.expect("desktop");
    // The queue: the submission, filters, the metrics.
    open_the_queue_of_one(c).await;
    text_containing(c, "#queue-table", "dependency-not-satisfied-").await;
    let filter = c
        .find(Locator::Css("#filter-category"))
        .await
        .expect("filter");
    filter.send_keys("nope").await.expect("type");
    wait_for(c, "return document.getElementById('queue-table').textContent.includes('No submissions match');", 10, "the category filter does not filter").await;
    filter.clear().await.expect("clear");
    filter.send_keys("examples").await.expect("type");
    wait_for(c, "return document.querySelectorAll('#queue-table tbody tr').length === 1 && document.querySelectorAll('#metrics svg').length >= 8;", 15, "the queue or its metrics do not show").await;
    // Let the metrics gather a few samples for the picture.
    tokio::time::sleep(Duration::from_secs(7)).await;
    assert!(
        !browser.overflows().await.expect("measure"),
        "the queue overflows at 1280 px"
    );
    screenshot(&browser, "page-queue.png").await;
    phone_screenshot(&browser, "page-queue-phone.png", true).await;
    browser.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lab_runs_page_picks_up_a_new_run_without_a_reload() {
    let Some(server) = page_server(server_config()) else {
        return;
    };
    run_lab_task(&server, ADMIN, "first-run");
    let page = SignedIn::open(server, ADMIN).await;
    let (server, c) = (&page.server, page.client());
    click(c, "nav a[href=\"#/lab\"]").await;
    wait_for(
        c,
        "return document.querySelectorAll('#lab button.run-open').length === 1;",
        10,
        "the lab page does not list the first run",
    )
    .await;
    // A mark that a reload would wipe.
    eval(c, "window.notReloaded = true;").await;
    run_lab_task(server, ADMIN, "second-run");
    wait_for(c, "return [...document.querySelectorAll('#lab button.run-open')].some(b => b.textContent === 'second-run');", 20, "the new run never appears").await;
    wait_for(c, "return window.notReloaded === true && document.getElementById('run-count').textContent.startsWith('2 of 2');", 1, "the page was reloaded or the count is stale").await;
    page.close().await;
}

/// A token bound to no category opens, from the queue, each of two submissions that share a
/// `sub_id` in two categories: the links and the page's requests name the category (without it
/// the server answers 409, as the sub_id is ambiguous).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queue_links_name_the_category_so_a_shared_sub_id_opens_each_one() {
    let Some(server) = page_server(server_config()) else {
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
    let page = SignedIn::open(server, ADMIN).await;
    let (server, c) = (&page.server, page.client());
    for (category, outcome) in [("beta", "Compilation Error"), ("alpha", "Accepted")] {
        c.goto(&server.url("/#/queue")).await.expect("queue");
        let link = format!("a[href=\"#/s/shared?category={category}\"]");
        wait_for(
            c,
            &format!("return !!document.querySelector('{link}');"),
            20,
            &format!("the queue has no link naming {category}"),
        )
        .await;
        click(c, &link).await;
        wait_for(c, &format!(
                    "const v = document.getElementById('verdict'); return !!v && v.textContent.includes('{outcome}');"
                ), 20, &format!("{category}'s submission does not open")).await;
    }
    page.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_category_tokens_metrics_panel_says_why_it_holds_only_its_category() {
    let Some(server) = page_server(server_config()) else {
        return;
    };
    let body = example("wrong-answer", "metrics-oj", "oj");
    assert_eq!(post(&server.url("/v1/judge"), Some(OJ), &body).status, 200);
    let page = SignedIn::open(server, OJ).await;
    let (c, base) = (page.client(), page.url(""));
    c.goto(&format!("{base}/#/queue")).await.expect("queue");
    wait_for(c, "const n = document.getElementById('metrics-scope'); const own = document.getElementById('metrics-own');
             return !!n && !!own && own.textContent.includes('finished1');", 15, "no word on why the metrics are empty").await;
    let note = text(c, "#metrics-scope").await;
    assert!(
        note.contains("bound to a category") && note.contains("operator"),
        "{note}"
    );
    // An operator's token draws the server's metrics, with no such note.
    eval(c, "sessionStorage.clear();").await;
    c.goto("about:blank").await.expect("leave");
    sign_in(c, &base, ADMIN).await;
    c.goto(&format!("{base}/#/queue")).await.expect("queue");
    wait_for(c, "return document.querySelectorAll('#metrics svg').length >= 8 && !document.getElementById('metrics-scope');", 15, "the operator's metrics do not show").await;
    page.close().await;
}
