//! The committed `schemas/` matches the types, and the examples validate against it.

use crate::fixtures;
use serde_json::{Value, json};
use std::path::PathBuf;

fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

fn blessing() -> bool {
    std::env::var_os("VERDICT_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn committed_schemas_are_current() {
    let dir = schemas_dir();
    let files = verdict_contracts::schema_files();
    let mut stale = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != *text {
            if blessing() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, text).unwrap();
            } else {
                stale.push(format!("schemas/{name} differs from the types"));
            }
        }
    }
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".schema.json") && !files.iter().any(|(n, _)| *n == name) {
            if blessing() {
                std::fs::remove_file(entry.path()).unwrap();
            } else {
                stale.push(format!("schemas/{name} belongs to no type"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nregenerate with `VERDICT_BLESS=1 cargo test -p verdict-contracts --test it` \
         or `judge schema --out schemas`",
        stale.join("\n")
    );
}

fn schema(name: &str) -> Value {
    let (_, schema) = verdict_contracts::schemas()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no schema named {name}"));
    schema.to_value()
}

/// The problems of `instance` against schema `name`, one per line.
fn errors(name: &str, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(&schema(name))
        .unwrap_or_else(|e| panic!("schema {name} does not compile: {e}"));
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn assert_valid(name: &str, instance: &Value, what: &str) {
    let problems = errors(name, instance);
    assert!(
        problems.is_empty(),
        "{what} is not a valid {name}:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_schema_compiles_as_draft_2020_12() {
    for (name, schema) in verdict_contracts::schemas() {
        let value = schema.to_value();
        assert_eq!(
            value["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}"
        );
        assert_eq!(value["title"], name);
        assert!(jsonschema::validator_for(&value).is_ok(), "{name}");
    }
}

#[test]
fn seed_examples_validate_against_the_schemas() {
    let single = [
        ("seed/gtest_report.json", "GoogleTestReport"),
        ("seed/static_report.json", "StaticReport"),
        ("seed/oracle_test_case_function.json", "TestCase"),
        ("seed/oracle_test_case_script.json", "TestCase"),
        ("seed/oracle_test_case_cli.json", "TestCase"),
        ("seed/oracle_suite_cli.json", "TestSuite"),
        ("seed/oracle_report.json", "OracleReport"),
        ("seed/lab_intent_task.json", "AtomicTask"),
        ("seed/lab_multi_turn_scenario.json", "ScenarioTask"),
        ("seed/lab_run_record.json", "RunRecord"),
        ("submission_full.json", "Submission"),
        ("judge_report_full.json", "JudgeReport"),
        ("judge_report_invalid.json", "JudgeReport"),
    ];
    for (file, name) in single {
        assert_valid(name, &fixtures::json(file), file);
    }
    for (file, name) in [
        ("seed/lab_trace.json", "TraceEvent"),
        ("seed/lab_scores.json", "ScoreRecord"),
    ] {
        for (i, item) in fixtures::json(file).as_array().unwrap().iter().enumerate() {
            assert_valid(name, item, &format!("{file}[{i}]"));
        }
    }
    let report = fixtures::json("judge_report_full.json");
    for result in report["results"].as_array().unwrap() {
        assert_valid(
            "JudgeTaskResult",
            result,
            "a result of judge_report_full.json",
        );
    }
}

#[test]
fn schemas_reject_what_the_types_reject() {
    let mut report = fixtures::json("judge_report_invalid.json");
    report["results"] = json!([{"status": "Accepted!", "score": "1/1", "run_time": 1,
        "memory_used": 1, "error_log": ""}]);
    assert!(
        !errors("JudgeReport", &report).is_empty(),
        "unknown status accepted"
    );
    let mut score = fixtures::json("seed/lab_scores.json")[0].clone();
    score["target"] = json!("step:");
    assert!(
        !errors("ScoreRecord", &score).is_empty(),
        "empty step target accepted"
    );
    score["target"] = json!("step:step-2");
    assert!(errors("ScoreRecord", &score).is_empty());
    score["value"] = json!([1]);
    assert!(
        !errors("ScoreRecord", &score).is_empty(),
        "array value accepted"
    );
    let mut submission = fixtures::json("submission_full.json");
    submission["judge_tasks"][0]["compare_script"] = json!("diff");
    assert!(
        !errors("Submission", &submission).is_empty(),
        "unknown compare script accepted"
    );
    let mut task = fixtures::json("seed/lab_intent_task.json");
    task.as_object_mut().unwrap().remove("metadata");
    assert!(
        !errors("AtomicTask", &task).is_empty(),
        "task without metadata accepted"
    );
}
