//! The oracle and programming runners, judging in the real sandbox.

use crate::common::{atomic, error_message, judge, repo_root, run, score, task};
use serde_json::{Value, json};
use verdict_contracts::{RunStatus, ScoreValue};
use verdict_lab::{Lab, Registry};
use verdict_oracle::OracleOptions;

#[test]
fn oracle_and_programming_runners_judge_in_the_sandbox() {
    let Some(judge) = judge() else { return };
    let lab = Lab::new(Registry::new().with_judge(judge, OracleOptions::default()));
    let deliverable = json!({"language": "python3", "entry_point": "add",
        "source_files": [{"type": "text", "name": "add.py", "text": "def add(a, b):\n    return a + b\n"}]});
    let pass = task(
        json!({"id": "add-1", "name": "adds", "type": "function", "input": [1, 2], "expected": 3,
        "metadata": {"timeout": 3000}, "extensions": {"deliverable": deliverable}}),
    );
    let out = run(&lab, &pass);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert_eq!(
        out.run.output.as_ref().unwrap()["results"][0]["status"],
        "passed"
    );
    assert_eq!(out.run.provenance.runner_id, "function");
    assert_eq!(
        score(&out.scores, "judge_score", "final").value,
        ScoreValue::Number(1.0)
    );
    assert_eq!(
        score(&out.scores, "judge_passed", "final").value,
        ScoreValue::Bool(true)
    );
    let wrong = task(
        json!({"id": "add-2", "name": "adds", "type": "function", "input": [1, 2], "expected": 4,
        "metadata": {}, "extensions": {"deliverable": deliverable}}),
    );
    let out = run(&lab, &wrong);
    assert_eq!(out.run.status, RunStatus::Completed);
    assert_eq!(
        score(&out.scores, "judge_score", "final").value,
        ScoreValue::Number(0.0)
    );
    let malformed = task(
        json!({"id": "add-3", "name": "adds", "type": "function", "input": 1, "expected": 4,
        "metadata": {}, "extensions": {"deliverable": deliverable}}),
    );
    let out = run(&lab, &malformed);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        error_message(&out),
        "invalid_test_format: function input must be args list"
    );
    let missing = atomic("add-4", "function", json!([1]), None);
    let out = run(&lab, &missing);
    assert!(error_message(&out).starts_with("extensions.deliverable: missing"));

    let submission: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("examples/judge/aplusb-python3.json")).unwrap(),
    )
    .unwrap();
    let prog = task(
        json!({"id": "prog-1", "name": "a+b", "type": "programming", "input": submission, "metadata": {}}),
    );
    let out = run(&lab, &prog);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert!(
        out.run.output.as_ref().unwrap()["results"]
            .as_array()
            .is_some()
    );
    assert!(matches!(
        score(&out.scores, "judge_score", "final").value,
        ScoreValue::Number(_)
    ));
    let bad = task(
        json!({"id": "prog-2", "name": "a+b", "type": "programming", "input": {"sub_type": "programming"}, "metadata": {}}),
    );
    let out = run(&lab, &bad);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert!(
        error_message(&out).starts_with("input: "),
        "{:?}",
        out.run.error
    );
}
