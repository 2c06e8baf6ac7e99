//! The task kinds the other page tests leave out ("every task kind's details"), in a
//! real headless Chromium: random tests (where the input came from, and the expected output only
//! the judge had, beside the program's), a custom comparator (its verdict and feedback, said to
//! be its own) and an interactive test (its own label, the exchange with the interactor).

use crate::common::a_plus_b;
use crate::faces::{TOKEN, server_config};
use crate::page::{SignedIn, click, eval, judge_through_the_page, text, text_containing, wait_for};
use crate::web::example;
use serde_json::{Value, json};

use verdict_testkit::programs::{KATTIS_INTERACTOR, searcher};
use verdict_web::browser::Client;

/// The kind column of every task row.
async fn kinds(c: &Client) -> Value {
    eval(c, "return [...document.querySelectorAll('tr.task-row td:nth-child(3)')].map(td => td.textContent);").await
}

/// A+B in Python that adds one more when `a` is odd: wrong on most random inputs.
const OFF_BY_ONE_ON_ODD: &str = "import sys\nfor line in sys.stdin:\n    if line.strip():\n        a, b = map(int, line.split())\n        print(a + b + a % 2)\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_random_tests_wrong_answer_shows_its_seed_and_the_generated_expected_output() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let mut submission: Value =
        serde_json::from_str(&example("random-tests", "faces-random", "faces")).expect("JSON");
    submission["submission"]["source_files"][0]["text"] = json!(OFF_BY_ONE_ON_ODD);
    let c = page.client();
    judge_through_the_page(c, &submission.to_string(), 4, 180).await;
    assert_eq!(
        kinds(c).await,
        json!(["compile", "random test", "random test", "test 1"])
    );
    text_containing(c, "#verdict", "Wrong Answer on random test").await;
    // The opened random test: where its input came from, so it can be made again.
    let origin = text(c, "#task-detail .random-origin").await;
    assert!(
        origin.contains("seed ") && origin.contains("generator:"),
        "{origin}"
    );
    // The expected output came from the problem's standard program, on the judge: this tab
    // never held it, yet both sides show around the difference, the difference marked.
    wait_for(c, "return !!document.querySelector('#task-detail .diff-context .diff-got mark.diff-mark')
                && !!document.querySelector('#task-detail .diff-context .diff-expected mark.diff-mark');", 5, "no side-by-side context").await;
    let (expected, got) = (
        text(c, ".diff-context .diff-expected pre.diff-line").await,
        text(c, ".diff-context .diff-got pre.diff-line").await,
    );
    let sum = |line: &str| line.replace('·', " ").trim().parse::<i64>().ok();
    assert_eq!(
        sum(&got).zip(sum(&expected)).map(|(g, e)| g - e),
        Some(1),
        "expected {expected:?}, got {got:?}"
    );
    page.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_comparators_partial_marks_show_as_its_own_verdict_and_feedback() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let c = page.client();
    judge_through_the_page(
        c,
        &example("custom-comparator-partial", "faces-compare", "faces"),
        2,
        180,
    )
    .await;
    text_containing(c, "#verdict", "Partial Correct on test 1").await;
    let detail = text(c, "#task-detail").await;
    assert!(
        text(c, "#task-detail .comparator-note")
            .await
            .contains("the problem's own comparator"),
        "{detail}"
    );
    assert!(
        detail.contains("Comparator's feedback") && detail.contains("values within 1e-6"),
        "{detail}"
    );
    page.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interactive_test_has_its_own_label_and_shows_the_exchange() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let mut submission = a_plus_b("faces-interactive", "faces", &searcher("", ""));
    submission["prob_id"] = json!("faces-guess");
    submission["judge_tasks"] = json!([
        {"check_script": "compile", "depends_on": -1, "time_limit": 20000},
        {"check_script": "standard", "run_script": "interactive", "compare_script": "",
         "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED",
         "time_limit": 2000, "memory_limit": 65536, "file_limit": 1024, "proc_limit": 8}
    ]);
    submission["test_data"] = json!([{
        "inputs": [{"type": "text", "name": "testdata.in", "text": "777777\n"}],
        "outputs": [{"type": "text", "name": "testdata.out", "text": "777777\n"}],
    }]);
    submission["compare"] = json!({"type": "source_code", "language": "c",
        "source_files": [{"type": "text", "name": "interactor.c", "text": KATTIS_INTERACTOR}]});
    let c = page.client();
    judge_through_the_page(c, &submission.to_string(), 2, 180).await;
    assert_eq!(kinds(c).await, json!(["compile", "interactive test 1"]));
    text_containing(c, "#verdict", "Accepted").await;
    click(c, "tr[data-task=\"1\"] button.task-open").await;
    let exchange = text_containing(
        c,
        "#task-detail .exchange",
        "The interactor said: interactor: found in",
    )
    .await;
    let messages = eval(c, "return [...document.querySelectorAll('#task-detail .exchange tbody tr')].slice(0, 2).map(tr => [...tr.cells].slice(1).map(td => td.textContent));").await;
    assert_eq!(
        messages,
        json!([
            ["interactor → program", "start⏎"],
            ["program → interactor", "500000⏎"]
        ]),
        "{exchange}"
    );
    // The hidden number is the test's input.
    assert_eq!(text(c, ".test-input pre").await, "777777");
    page.close().await;
}

/// A+B judged by answer tests (problem `sub_id`): the answers are files the submission sends,
/// right for the first test ("3") and wrong for the second ("8").
fn answers(sub_id: &str) -> Value {
    let mut submission = a_plus_b(sub_id, "faces", "");
    submission["prob_id"] = json!(sub_id);
    let answer = |datum: usize, file: &str| {
        json!({"check_script": "standard", "run_script": "answer",
               "compare_script": "diff-ign-space", "testcase_id": datum, "answer_file": file,
               "depends_on": -1, "time_limit": 1000})
    };
    submission["judge_tasks"] = json!([answer(0, "1.out"), answer(1, "2.out")]);
    submission["submission"] = json!({"type": "source_code", "language": "bash",
        "source_files": [{"type": "text", "name": "1.out", "text": "3\n"},
                         {"type": "text", "name": "2.out", "text": "8\n"}]});
    submission
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answer_tests_have_their_own_label_and_show_no_measures() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let submission = answers("faces-answers");
    let c = page.client();
    judge_through_the_page(c, &submission.to_string(), 2, 180).await;
    assert_eq!(kinds(c).await, json!(["answer 1", "answer 2"]));
    text_containing(c, "#verdict", "Wrong Answer on answer 2").await;
    // Nothing ran: no time or memory, and no time or memory limit beside them.
    let measures = eval(c, "return [...document.querySelectorAll('tr.task-row')].map(tr => [tr.cells[4].textContent, tr.cells[5].textContent]);").await;
    assert_eq!(measures, json!([["–", "–"], ["–", "–"]]));
    page.close().await;
}

/// A test the Submission names (`test_data[i].name`, a package's `secret/01`) shows its number
/// and its name: in the kind column, the outcome and the details' heading.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_test_shows_its_number_and_its_own_name() {
    let Some(page) = SignedIn::start(server_config(), TOKEN).await else {
        return;
    };
    let mut submission = answers("faces-named");
    submission["test_data"][0]["name"] = json!("sample/1");
    submission["test_data"][1]["name"] = json!("secret/02-big");
    let c = page.client();
    judge_through_the_page(c, &submission.to_string(), 2, 180).await;
    assert_eq!(
        kinds(c).await,
        json!(["answer 1 (sample/1)", "answer 2 (secret/02-big)"])
    );
    text_containing(c, "#verdict", "Wrong Answer on answer 2 (secret/02-big)").await;
    click(c, "tr[data-task=\"1\"] button.task-open").await;
    text_containing(c, "#task-detail h2", "answer 2 (secret/02-big)").await;
    page.close().await;
}
