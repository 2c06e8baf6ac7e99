//! `judge oracle` as a user calls it. A function suite runs in a one-shot sandbox (one
//! interpreter for the suite): an interpreter that dies mid-suite is still followed by another
//! run for the cases after it.

use std::process::Command;

#[test]
fn a_function_suite_whose_interpreter_dies_goes_on_in_another_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = serde_json::json!({
        "deliverable_type": "function", "language": "python3", "entry_point": "f",
        "source_files": [{"type": "text", "name": "solution.py",
            "text": "import os\ndef f(x):\n    if x == 2:\n        os._exit(7)\n    return x + 1\n"}],
        "timeout_ms": 2000,
        "test_cases": [
            {"name": "zero", "input": [0], "expected": 1},
            {"name": "dies", "input": [2], "expected": 3},
            {"name": "after death", "input": [3], "expected": 4},
            {"name": "wrong", "input": [4], "expected": 6},
        ],
    });
    let path = dir.path().join("suite.json");
    std::fs::write(&path, suite.to_string()).expect("write suite");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("oracle")
        .arg(&path)
        .arg("--work-dir")
        .arg(&work)
        .output()
        .expect("judge oracle runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "some cases fail: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is JSON ({e}); stderr: {stderr}"));
    assert_eq!(
        crate::common::statuses(&report),
        ["passed", "error", "passed", "failed"],
        "{report:#}"
    );
    let died = report["results"][1]["message"].as_str().unwrap_or_default();
    assert!(died.contains("exited with code 7"), "{died}");
}

#[test]
fn format_table_says_how_many_passed_and_why_a_case_failed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = serde_json::json!({
        "deliverable_type": "function", "language": "python3", "entry_point": "f",
        "source_files": [{"type": "text", "name": "solution.py", "text": "def f(x):\n    return x + 1\n"}],
        "timeout_ms": 2000,
        "test_cases": [
            {"name": "one", "input": [1], "expected": 2},
            {"name": "off by one", "input": [4], "expected": 6},
        ],
    });
    let path = dir.path().join("suite.json");
    std::fs::write(&path, suite.to_string()).expect("write suite");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("oracle")
        .arg(&path)
        .args(["--format", "table", "--work-dir"])
        .arg(dir.path())
        .output()
        .expect("judge oracle runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "1 of 2 cases passed · 1 failed", "{stdout}");
    assert!(
        lines[1].starts_with("case") && lines[1].contains("status"),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("one") && lines[2].contains("passed"),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("off by one") && lines[3].contains("failed"),
        "{stdout}"
    );
    assert!(lines[4].contains("expected 6, got 5"), "{stdout}");
}
