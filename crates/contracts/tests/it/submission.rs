//! The full request example: every kind of task, all three asset kinds, all four programs.

use crate::fixtures;
use verdict_contracts::{
    AssetKind, CompareScript, DependsCond, Language, RunScript, Submission, parse_submission,
};

#[test]
fn full_submission_round_trips() {
    let raw = fixtures::json("submission_full.json");
    let submission: Submission = serde_path_to_error::deserialize(&raw).unwrap();
    assert_eq!(serde_json::to_value(&submission).unwrap(), raw);
}

#[test]
fn full_submission_is_valid() {
    let submission = parse_submission(&fixtures::text("submission_full.json")).unwrap();
    let tasks = &submission.judge_tasks;
    assert_eq!(tasks.len(), 7);
    assert_eq!(tasks[2].depends_cond, Some(DependsCond::NotTimeLimit));
    assert_eq!(tasks[2].file_limit_kb(), None);
    assert!(tasks[3].is_random);
    assert_eq!(tasks[3].compare_script, Some(CompareScript::Custom));
    assert_eq!(tasks[4].run_script, Some(RunScript::Valgrind));
    assert_eq!(tasks[5].run_args(), ["--gtest_also_run_disabled_tests"]);
    assert_eq!(submission.test_data[1].inputs[1].kind, AssetKind::Local);
    assert_eq!(submission.submission.source().language, Language::Cpp);
}

#[test]
fn invalid_full_submission_reports_every_problem() {
    let mut raw = fixtures::json("submission_full.json");
    raw["judge_tasks"][2]["testcase_id"] = 7.into();
    raw["judge_tasks"][1]["depends_on"] = 4.into();
    raw.as_object_mut().unwrap().remove("random");
    let report = parse_submission(&raw.to_string())
        .unwrap_err()
        .into_report();
    assert!(report.results.is_empty());
    assert_eq!(report.sub_id, "s-88231");
    assert_eq!(
        report.message.as_deref(),
        Some(
            "judge_tasks[1].depends_on: 4 is a later task; a task may depend only on an earlier one; \
             judge_tasks[2].testcase_id: 7 is out of range (2 test data); \
             judge_tasks[3].is_random: a random test needs Submission.standard and Submission.random (missing: random)"
        )
    );
    // The report itself is a valid JudgeReport.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["results"], serde_json::json!([]));
}
