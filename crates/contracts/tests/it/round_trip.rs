//! Every JSON example of the seeds parses into its type and is written back as the same JSON.

use crate::fixtures;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use verdict_contracts::{
    AtomicTask, GoogleTestReport, JudgeReport, OracleReport, RunRecord, ScenarioTask, ScoreRecord,
    ScoreTarget, ScoreValue, StaticReport, TaskReport, TestCase, TestSuite, TraceEvent,
};

/// Parses fixture `name` as `T`, checks it writes back to equal JSON, and returns it.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let raw = fixtures::json(name);
    let typed: T = serde_path_to_error::deserialize(&raw).unwrap_or_else(|e| {
        panic!(
            "{name} does not parse as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, raw, "{name} does not round-trip");
    typed
}

/// The fixture `name` read as a task's report.
fn task_report(name: &str) -> TaskReport {
    serde_json::from_value(fixtures::json(name)).unwrap()
}

#[test]
fn seed_gtest_report_round_trips() {
    let name = "seed/gtest_report.json";
    let report: GoogleTestReport = round_trip(name);
    assert_eq!(report.total_cases, 20);
    assert_eq!(report.report[1].param.as_deref(), Some("0"));
    assert!(matches!(task_report(name), TaskReport::GoogleTest(_)));
}

#[test]
fn seed_static_report_round_trips() {
    let name = "seed/static_report.json";
    let report: StaticReport = round_trip(name);
    assert_eq!(report.violation.len(), 10);
    assert_eq!(
        report.summary.number_of_violations_with_priority[1].number,
        10
    );
    assert!(report.clang_static_analyzer.is_empty());
    assert!(matches!(task_report(name), TaskReport::Static(_)));
}

#[test]
fn seed_oracle_test_cases_round_trip() {
    let function: TestCase = round_trip("seed/oracle_test_case_function.json");
    assert_eq!(
        verdict_contracts::function_args(&function.input)
            .unwrap()
            .len(),
        2
    );
    let script: TestCase = round_trip("seed/oracle_test_case_script.json");
    assert!(verdict_contracts::script_input(&script.input).is_ok());
    let cli: TestCase = round_trip("seed/oracle_test_case_cli.json");
    assert_eq!(
        verdict_contracts::cli_input(&cli.input).unwrap().argv.len(),
        8
    );
}

#[test]
fn oracle_suite_and_report_round_trip() {
    let suite: TestSuite = round_trip("seed/oracle_suite_cli.json");
    assert_eq!(
        verdict_contracts::parse_suite(&fixtures::text("seed/oracle_suite_cli.json")).unwrap(),
        suite
    );
    assert_eq!(
        verdict_contracts::cli_input(&suite.test_cases[1].input).unwrap_err(),
        verdict_contracts::CLI_INPUT_WITHOUT_ARGV
    );
    let report: OracleReport = round_trip("seed/oracle_report.json");
    assert_eq!(report, OracleReport::new(report.results.clone()));
}

#[test]
fn seed_intent_task_round_trips() {
    let task: AtomicTask = round_trip("seed/lab_intent_task.json");
    assert_eq!(task.kind, "intent");
    assert_eq!(task.timeout_ms(), Some(5000));
    assert_eq!(task.metadata.priority, Some(1.0));
}

#[test]
fn seed_multi_turn_scenario_round_trips_and_validates() {
    let scenario: ScenarioTask = round_trip("seed/lab_multi_turn_scenario.json");
    let plan = scenario.plan().unwrap();
    assert_eq!(
        plan.inputs.iter().map(Vec::len).collect::<Vec<_>>(),
        [0, 1, 1]
    );
    // The explicit nulls of the seed's step inputs are kept.
    assert_eq!(scenario.steps[1].input["intent"], Value::Null);
}

#[test]
fn seed_trace_round_trips() {
    let trace: Vec<TraceEvent> = round_trip("seed/lab_trace.json");
    assert_eq!(trace.len(), 3);
    assert!(trace.windows(2).all(|w| w[0].timestamp < w[1].timestamp));
}

#[test]
fn seed_scores_round_trip() {
    let scores: Vec<ScoreRecord> = round_trip("seed/lab_scores.json");
    assert_eq!(scores[0].value, ScoreValue::Number(0.95));
    assert_eq!(scores[0].target, ScoreTarget::Final);
    assert_eq!(scores[1].value, ScoreValue::Number(234.0));
    assert_eq!(scores[1].target, ScoreTarget::Global);
}

#[test]
fn run_record_round_trips() {
    let run: RunRecord = round_trip("seed/lab_run_record.json");
    assert_eq!(run.output, Some(Value::Null));
    assert_eq!(run.error.as_ref().unwrap().step.as_deref(), Some("step-3"));
    assert_eq!(run.provenance.verdict_version(), Some("0.1.0"));
    assert_eq!(run.provenance.task_hash(), Some("blake3:5c1d"));
}

#[test]
fn full_judge_report_round_trips() {
    let report: JudgeReport = round_trip("judge_report_full.json");
    let kinds: Vec<&str> = report
        .results
        .iter()
        .map(|r| match &r.report {
            None => "-",
            Some(TaskReport::GoogleTest(_)) => "gtest",
            Some(TaskReport::Static(_)) => "static",
            Some(TaskReport::Memory(_)) => "memory",
        })
        .collect();
    assert_eq!(kinds, ["-", "-", "-", "-", "memory", "gtest", "static"]);
    let invalid: JudgeReport = round_trip("judge_report_invalid.json");
    assert!(invalid.results.is_empty());
}
