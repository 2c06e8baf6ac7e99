//! A wrong answer in the page as DOMjudge's jury view shows it: expected and
//! received side by side around the first difference, the differing character marked on both
//! sides, with the test's input; to the tab that sent it and to a fresh browser alike (the
//! judge's report carries both sides' lines, `JudgeTaskResult.diff`).

use crate::common::{a_plus_b, post};
use crate::faces::{TOKEN, server_config};
use crate::page::{
    SignedIn, eval, judge_through_the_page, page_server, screenshot, text, text_containing,
    until_finished, wait_for,
};
use serde_json::{Value, json};

/// Prints 1..n, one per line, but 7 on line 4.
const COUNT_WRONG_AT_4: &str = "#include <stdio.h>\nint main(){int n;if(scanf(\"%d\",&n)!=1)return 1;for(int i=1;i<=n;i++)printf(\"%d\\n\",i==4?7:i);return 0;}\n";

fn counting(sub_id: &str) -> String {
    let mut submission = a_plus_b(sub_id, "faces", COUNT_WRONG_AT_4);
    let tasks = submission["judge_tasks"].as_array().expect("tasks")[..2].to_vec();
    submission["judge_tasks"] = Value::Array(tasks);
    submission["test_data"] = json!([{
        "inputs": [{"type": "text", "name": "testdata.in", "text": "6\n"}],
        "outputs": [{"type": "text", "name": "testdata.out", "text": "1\n2\n3\n4\n5\n6\n"}],
    }]);
    submission.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_answer_shows_expected_and_received_side_by_side_around_the_difference() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let c = page.client();
    judge_through_the_page(c, &counting("faces-context"), 2, 120).await;
    text_containing(c, "#task-detail", "line 4, column 1, token 1").await;
    // Each column: its lines (number, text, what kind of line).
    let columns = eval(
        c,
        "const col = (css) => [...document.querySelectorAll(css + ' .diff-lines > *')].map((e) =>
                 [e.dataset.ln || null, e.textContent, e.className]);
             return [col('.diff-context .diff-expected'), col('.diff-context .diff-got')];",
    )
    .await;
    let kinds = |column: &Value| -> Vec<(Option<String>, String, String)> {
        column
            .as_array()
            .expect("a column")
            .iter()
            .map(|line| {
                let class = line[2].as_str().unwrap_or_default();
                let kind = ["ctx-same", "ctx-after", "ctx-unknown", "diff-line"]
                    .into_iter()
                    .find(|k| class.split(' ').any(|c| c == *k))
                    .unwrap_or("?");
                (
                    line[0].as_str().map(str::to_owned),
                    line[1].as_str().unwrap_or_default().to_owned(),
                    kind.to_owned(),
                )
            })
            .collect()
    };
    // Lines 1 to 3 the same, line 4 `fourth` and different, lines 5 and 6 after it.
    let column = |fourth: &str| -> Vec<(Option<String>, String, String)> {
        (1..=6)
            .map(|n| {
                let kind = match n {
                    1..=3 => "ctx-same",
                    4 => "diff-line",
                    _ => "ctx-after",
                };
                let text = if n == 4 {
                    fourth.to_owned()
                } else {
                    n.to_string()
                };
                (Some(n.to_string()), text, kind.to_owned())
            })
            .collect()
    };
    assert_eq!(
        kinds(&columns[0]),
        column("4"),
        "expected column: {columns}"
    );
    // The received output around the difference, after it too: the judge's report keeps it.
    assert_eq!(
        kinds(&columns[1]),
        column("7"),
        "received column: {columns}"
    );
    // The difference is marked on both sides.
    assert_eq!(
        text(c, ".diff-context .diff-expected mark.diff-mark").await,
        "4"
    );
    assert_eq!(text(c, ".diff-context .diff-got mark.diff-mark").await, "7");
    // Side by side, the differing lines level with each other.
    let level = eval(c, "const [a, b] = [...document.querySelectorAll('.diff-context pre.diff-line')].map((e) => e.getBoundingClientRect());
             return a.right <= b.left && Math.abs(a.top - b.top) < 1;").await;
    assert_eq!(
        level,
        json!(true),
        "the columns are not side by side and level"
    );
    // With the test's input.
    assert_eq!(text(c, ".test-input pre").await, "6");
    let show_detail = "document.getElementById('task-detail').scrollIntoView();";
    eval(c, show_detail).await;
    screenshot(&page.browser, "page-diff-context.png").await;
    // At phone width the columns stack and nothing overflows the page.
    page.browser.resize(390, 844).await.expect("phone width");
    wait_for(c, "const [a, b] = [...document.querySelectorAll('.diff-context pre.diff-line')].map((e) => e.getBoundingClientRect()); return b.top > a.bottom;", 5, "the columns do not stack at phone width").await;
    assert!(
        !page.browser.overflows().await.expect("measure"),
        "overflow at 390 px"
    );
    eval(
        c,
        "document.querySelector('.diff-context').scrollIntoView();",
    )
    .await;
    screenshot(&page.browser, "page-diff-context-phone.png").await;
    page.close().await;
}

/// Prints `i i*i` for i in 1..=n, with 17 for 4's square.
const SQUARES_WRONG_AT_4: &str = "#include <stdio.h>\nint main(){int n;if(scanf(\"%d\",&n)!=1)return 1;for(int i=1;i<=n;i++)printf(\"%d %d\\n\",i,i==4?17:i*i);return 0;}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_answer_sent_over_the_api_shows_both_sides_around_the_difference_in_a_fresh_browser()
 {
    let Some(server) = page_server(server_config()) else {
        return;
    };
    let mut submission = a_plus_b("faces-api-diff", "faces", SQUARES_WRONG_AT_4);
    let tasks = submission["judge_tasks"].as_array().expect("tasks")[..2].to_vec();
    submission["judge_tasks"] = Value::Array(tasks);
    let expected: String = (1..=9).map(|i| format!("{i} {}\n", i * i)).collect();
    submission["test_data"] = json!([{
        "inputs": [{"type": "text", "name": "testdata.in", "text": "9\n"}],
        "outputs": [{"type": "text", "name": "testdata.out", "text": expected}],
    }]);
    let sent = post(
        &server.url("/v1/submissions"),
        Some(TOKEN),
        &submission.to_string(),
    );
    assert_eq!(sent.status, 202, "{}", sent.text);
    // A browser that never saw the Submission: what it shows comes from the server.
    let page = SignedIn::open(server, TOKEN).await;
    let (server, c) = (&page.server, page.client());
    c.goto(&server.url("/#/s/faces-api-diff?category=faces"))
        .await
        .expect("open");
    until_finished(c, 2, 120).await;
    wait_for(
        c,
        "return !!document.querySelector('#task-detail .diff-context');",
        10,
        "no side-by-side context",
    )
    .await;
    text_containing(c, "#task-detail", "line 4, column 4, token 2").await;
    let columns = eval(c, "const col = (css) => [...document.querySelectorAll(css + ' .diff-lines > [data-ln]')].map((e) =>
                 [e.dataset.ln, e.textContent]);
             return [col('.diff-context .diff-expected'), col('.diff-context .diff-got')];").await;
    let side = |wrong: &str| {
        let mut lines: Vec<Value> = (1..=7)
            .map(|i| json!([i.to_string(), format!("{i} {}", i * i)]))
            .collect();
        lines[3] = json!(["4", wrong]);
        Value::Array(lines)
    };
    assert_eq!(columns[0], side("4·16"), "expected column: {columns}");
    assert_eq!(columns[1], side("4·17"), "received column: {columns}");
    // Both files go on past the lines shown, and say so.
    assert_eq!(
        eval(
            c,
            "return document.querySelectorAll('.diff-context .ctx-more').length;"
        )
        .await,
        json!(2)
    );
    // The differing token's first differing character, marked on both sides.
    assert_eq!(
        text(c, ".diff-context .diff-expected mark.diff-mark").await,
        "6"
    );
    assert_eq!(text(c, ".diff-context .diff-got mark.diff-mark").await, "7");
    assert_eq!(text(c, ".test-input pre").await, "9");
    // The report over HTTP carries the same, bounded, and no host path.
    let report = crate::common::get(
        &server.url("/v1/submissions/faces-api-diff?category=faces"),
        Some(TOKEN),
    )
    .json();
    let diff = &report["results"][1]["diff"];
    assert_eq!(diff["name"], "testdata.out");
    assert_eq!(diff["received"]["line"], 4);
    assert_eq!(diff["received"]["first_line"], 1);
    assert_eq!(diff["received"]["more"], true);
    assert!(!diff.to_string().contains("/tmp"), "{diff}");
    assert_eq!(report["results"][0].get("diff"), None);
    page.close().await;
}
