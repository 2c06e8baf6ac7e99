//! `stop_at_first_failure` and `deadline` (batches): no case runs after the first that did not
//! pass, so a looping deliverable costs one time limit; the cases left are `NOT_RUN` errors.

use super::{function_suite, run_expecting_with, run_with, statuses};
use serde_json::json;
use std::time::Instant;
use verdict_contracts::oracle::suite_from_value;
use verdict_oracle::{NOT_RUN, OracleOptions};

fn stopping() -> OracleOptions {
    OracleOptions {
        stop_at_first_failure: true,
        ..OracleOptions::default()
    }
}

fn cases() -> serde_json::Value {
    json!([{"name": "loops", "input": [0], "expected": 0},
           {"name": "one", "input": [1], "expected": 1},
           {"name": "two", "input": [2], "expected": 2}])
}

#[test]
fn a_python_harness_told_to_stop_runs_no_case_after_a_timeout() {
    let source = "def f(x):\n    while x == 0:\n        pass\n    return x\n";
    let suite = function_suite("python3", "f.py", source, "f", cases());
    let Some(all) = run_with(&suite, &OracleOptions::default()) else {
        return;
    };
    assert_eq!(statuses(&all), ["timeout", "passed", "passed"]);
    let Some(stopped) = run_expecting_with(&suite, &stopping(), "timeout error error") else {
        return;
    };
    assert_eq!(stopped.results[1].message.as_deref(), Some(NOT_RUN));
    assert_eq!(stopped.results[2].message.as_deref(), Some(NOT_RUN));
}

#[test]
fn a_js_harness_told_to_stop_runs_no_case_after_a_timeout() {
    let source = "function f(x) { while (x === 0) {} return x; }\nmodule.exports = { f };\n";
    let suite = function_suite("js", "f.js", source, "f", cases());
    let Some(stopped) = run_expecting_with(&suite, &stopping(), "timeout error error") else {
        return;
    };
    assert_eq!(stopped.results[2].message.as_deref(), Some(NOT_RUN));
}

#[test]
fn a_wrong_value_stops_the_suite_only_after_the_judge_compared_it() {
    // The harness never sees `expected`: it runs every case; the oracle stops after comparing.
    let source = "def f(x):\n    return x + 1 if x == 1 else x\n";
    let suite = function_suite("python3", "f.py", source, "f", cases());
    run_expecting_with(&suite, &stopping(), "passed failed passed");
}

#[test]
fn a_script_suite_stops_at_its_first_failure_and_at_the_deadline() {
    let suite = suite_from_value(json!({
        "deliverable_type": "script", "language": "python3", "entry_point": "m.py",
        "source_files": [{"type": "text", "name": "m.py", "text": "print(input())\n"}],
        "test_cases": [
            {"name": "a", "input": {"stdin": "1\n"}, "expected": {"stdout": "1\n"}},
            {"name": "b", "input": {"stdin": "2\n"}, "expected": {"stdout": "3\n"}},
            {"name": "c", "input": {"stdin": "3\n"}, "expected": {"stdout": "3\n"}}]
    }))
    .expect("a valid suite");
    let Some(stopped) = run_expecting_with(&suite, &stopping(), "passed failed error") else {
        return;
    };
    assert_eq!(stopped.results[2].message.as_deref(), Some(NOT_RUN));
    let past = OracleOptions {
        deadline: Some(Instant::now()),
        ..OracleOptions::default()
    };
    let Some(late) = run_with(&suite, &past) else {
        return;
    };
    assert!(
        late.results
            .iter()
            .all(|r| r.message.as_deref() == Some(NOT_RUN)),
        "{late:?}"
    );
}

#[test]
fn stop_after_timeout_stops_a_looping_deliverable_but_not_a_wrong_one() {
    let cases = json!([{"name": "wrong", "input": [3], "expected": 4},
                       {"name": "loops", "input": [0], "expected": 0},
                       {"name": "one", "input": [1], "expected": 1}]);
    let source = "def f(x):\n    while x == 0:\n        pass\n    return x\n";
    let suite = function_suite("python3", "f.py", source, "f", cases);
    let options = OracleOptions {
        stop_after_timeout: true,
        ..OracleOptions::default()
    };
    let Some(report) = run_with(&suite, &options) else {
        return;
    };
    assert_eq!(statuses(&report), ["failed", "timeout", "error"]);
    assert_eq!(report.results[2].message.as_deref(), Some(NOT_RUN));
}

#[test]
fn every_python_function_run_has_one_hash_seed() {
    // A dataset's reference and its candidates run in separate interpreters: a set's order
    // must not differ between them (docs/datasets.md).
    let source = "import os\ndef seed():\n    return os.environ.get('PYTHONHASHSEED')\n";
    let suite = function_suite(
        "python3",
        "s.py",
        source,
        "seed",
        json!([{"name": "seed", "input": [], "expected": "0"}]),
    );
    let Some(report) = run_with(&suite, &OracleOptions::default()) else {
        return;
    };
    assert_eq!(statuses(&report), ["passed"], "{report:?}");
}
