//! `judge batch FILE|-` as a user calls it (docs/batches.md): NDJSON on stdout, one line per
//! candidate and the summary last with pass@k, identical candidates judged once, exit 0 when
//! every candidate passed, 1 when some did not, 2 for an invalid batch naming its field.

use crate::common::refused;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `judge batch -` with `batch` on stdin, its work and cache dirs in `dir`.
fn judge_batch(dir: &std::path::Path, batch: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["batch", "-"])
        .arg("--work-dir")
        .arg(dir.join("work"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("judge batch runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(batch.as_bytes())
        .expect("write the batch");
    child.wait_with_output().expect("judge batch ends")
}

/// The NDJSON events: candidates by id, and the summary (the last line).
fn events(output: &Output) -> (Vec<Value>, Value) {
    let mut lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("an NDJSON line"))
        .collect();
    let summary = lines.pop().expect("a summary line");
    assert_eq!(
        summary["event"], "summary",
        "the summary is last: {summary}"
    );
    assert!(
        lines.iter().all(|l| l["event"] == "candidate"),
        "{lines:#?}"
    );
    (lines, summary)
}

fn by_id<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line for {id}: {lines:#?}"))
}

#[test]
fn a_suite_batch_streams_each_candidate_and_pass_at_k_judging_identical_ones_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let right = "def add(a, b):\n    return a + b\n";
    let batch = json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "add", "timeout_ms": 2000,
                    "test_cases": [{"name": "one", "input": [1, 2], "expected": 3},
                                   {"name": "two", "input": [0, 0], "expected": 0}]},
        "candidates": [
            {"id": "right", "code": right},
            {"id": "wrong", "code": "def add(a, b):\n    return a - b\n"},
            {"id": "right-copy", "code": right},
            {"id": "loop", "code": "def add(a, b):\n    while True:\n        pass\n"}
        ],
        "options": {"pass_at_k": [1, 2, 5], "stop_at_first_failure": true, "test_timeout_ms": 500}
    });
    let output = judge_batch(dir.path(), &batch.to_string());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "some did not pass: {stderr}");
    let (lines, summary) = events(&output);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert_eq!(by_id(&lines, "right")["passed"], true);
    assert_eq!(by_id(&lines, "right")["same_as"], Value::Null);
    let copy = by_id(&lines, "right-copy");
    assert_eq!(copy["same_as"], "right", "judged once: {copy}");
    assert_eq!(copy["passed"], true);
    let wrong = by_id(&lines, "wrong");
    assert_eq!(wrong["status"], "failed", "{wrong}");
    assert_eq!(wrong["passed"], false, "{wrong}");
    // A function harness runs the cases of one interpreter and the values are compared outside
    // the box (docs/oracle.md, "Stopping early"): a wrong value stops nothing, a timeout does.
    assert_eq!(wrong["stopped_early"], false, "{wrong}");
    let looping = by_id(&lines, "loop");
    assert_eq!(looping["status"], "timeout", "{looping}");
    assert!(
        looping["time_ms"].as_u64().is_some_and(|t| t < 1900),
        "test_timeout_ms caps the suite's 2000 ms: {looping}"
    );
    assert_eq!(summary["candidates"], 4);
    assert_eq!(summary["judged"], 3);
    assert_eq!(summary["passed"], 2);
    assert_eq!(summary["pass_at_k"]["1"], 0.5);
    let p2 = summary["pass_at_k"]["2"].as_f64().expect("pass@2");
    assert!((p2 - 5.0 / 6.0).abs() < 1e-9, "{summary}");
    assert_eq!(
        summary["pass_at_k"]["5"],
        Value::Null,
        "fewer than 5 candidates"
    );
}

#[test]
fn a_suite_batch_makes_its_boxes_under_the_relative_work_dir_given() {
    // Relative to where `judge` is started, as a user types them: the suites' boxes are made
    // under the work dir given (not the temp dir, which is missing here) and found there.
    let dir = tempfile::tempdir().expect("temp dir");
    let batch = json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "add",
                    "test_cases": [{"name": "one", "input": [1, 2], "expected": 3}]},
        "candidates": [{"id": "right", "code": "def add(a, b):\n    return a + b\n"}]
    });
    std::fs::write(dir.path().join("batch.json"), batch.to_string()).expect("write the batch");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args([
            "batch",
            "batch.json",
            "--work-dir",
            "work",
            "--cache-dir",
            "cache",
        ])
        .current_dir(dir.path())
        .env("TMPDIR", dir.path().join("no-temp-dir"))
        .output()
        .expect("judge batch runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let (lines, summary) = events(&output);
    assert_eq!(by_id(&lines, "right")["passed"], true, "{lines:?}");
    assert_eq!(summary["infra_errors"], 0, "{summary}");
}

fn a_plus_b_python(candidates: Value) -> Value {
    let mut judge_tasks =
        vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
    let mut test_data = Vec::new();
    for (i, (input, output)) in [("1 2\n", "3\n"), ("0 0\n", "0\n"), ("-5 9\n", "4\n")]
        .iter()
        .enumerate()
    {
        judge_tasks.push(json!({"check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "testcase_id": i, "depends_on": 0,
            "depends_cond": "ACCEPTED", "time_limit": 2000}));
        test_data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": input}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": output}]}));
    }
    json!({
        "problem": {"kind": "programming", "category": "cli-batch", "prob_id": "a+b",
                    "updated_at": 1, "judge_tasks": judge_tasks, "test_data": test_data},
        "candidates": candidates,
        "options": {"pass_at_k": [1, 2]}
    })
}

#[test]
fn a_programming_batch_gives_partial_credit_and_exit_0_only_when_every_candidate_passed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let right = "a, b = map(int, input().split())\nprint(a + b)\n";
    let output = judge_batch(
        dir.path(),
        &a_plus_b_python(json!([
            {"id": "s0", "language": "python3", "code": right},
            {"id": "s1", "language": "python3", "code": "a, b = map(int, input().split())\nprint(abs(a) + b)\n"},
            {"id": "s2", "language": "python3", "code": right},
            {"id": "s3", "language": "python3", "code": "print(("}
        ]))
        .to_string(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let (lines, summary) = events(&output);
    let s0 = by_id(&lines, "s0");
    assert_eq!(s0["status"], "Accepted", "{s0}");
    assert_eq!(
        s0["results"].as_array().map(Vec::len),
        Some(4),
        "compile + 3 tests"
    );
    assert_eq!(by_id(&lines, "s2")["same_as"], "s0");
    let s1 = by_id(&lines, "s1");
    assert_eq!(s1["status"], "Wrong Answer");
    assert_eq!(
        (s1["tests_passed"].as_u64(), s1["tests_total"].as_u64()),
        (Some(2), Some(3))
    );
    assert!((s1["fraction"].as_f64().unwrap_or(0.0) - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(by_id(&lines, "s3")["status"], "Compilation Error");
    assert_eq!(summary["judged"], 3);
    assert_eq!(summary["statuses"]["Accepted"], 2);
    assert_eq!(summary["pass_at_k"]["1"], 0.5);

    let output = judge_batch(
        dir.path(),
        &a_plus_b_python(json!([
            {"id": "only", "language": "python3", "code": right},
            {"id": "again", "language": "python3", "code": right}
        ]))
        .to_string(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "every candidate passed: {stderr}"
    );
    let (lines, summary) = events(&output);
    assert_eq!(lines.len(), 2);
    assert_eq!(summary["pass_at_k"]["2"], 1.0);
}

#[test]
fn an_invalid_batch_is_refused_with_exit_2_naming_each_field_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let right = "a, b = map(int, input().split())\nprint(a + b)\n";
    let refusal = |batch: Value| {
        let (stderr, stdout) = refused(judge_batch(dir.path(), &batch.to_string()));
        assert!(stdout.is_empty(), "nothing was judged");
        stderr
    };
    // The contract's rules, every problem named.
    let stderr = refusal(a_plus_b_python(json!([
        {"id": "s0", "language": "python3", "code": right},
        {"id": "s0", "language": "python3", "code": right},
        {"id": "s2", "language": "python3",
         "source_files": [{"type": "text", "name": "../up.py", "text": right}]}
    ])));
    assert!(stderr.contains("candidates[1].id"), "{stderr}");
    let stderr = refusal(a_plus_b_python(json!([
        {"id": "s2", "language": "python3",
         "source_files": [{"type": "text", "name": "../up.py", "text": right}]},
        {"id": "s3", "code": right}
    ])));
    assert!(stderr.contains("candidates[0].source_files[0]"), "{stderr}");
    assert!(stderr.contains("candidates[1].language"), "{stderr}");
    // A value of the wrong type: named by its path, not as "the batch".
    let stderr = refusal(a_plus_b_python(json!([
        {"id": "s0", "language": "python3", "code": right},
        {"id": "s1", "language": "python3", "code": ["print(1)"]}
    ])));
    assert!(stderr.contains("candidates[1].code"), "{stderr}");
    let mut batch = a_plus_b_python(json!([{"id": "s0", "language": "python3", "code": right}]));
    batch["problem"]["judge_tasks"][1]["time_limit"] = json!("2s");
    let stderr = refusal(batch);
    assert!(
        stderr.contains("problem.judge_tasks[1].time_limit"),
        "{stderr}"
    );
    let stderr = refusal(
        json!({"problem": {"kind": "suite"}, "candidates": [], "options": {"pass_at_k": [0]}}),
    );
    assert!(stderr.contains("problem."), "{stderr}");
}

#[test]
fn a_dataset_batch_streams_each_completion_judged_as_judge_eval_judges_its_record() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = json!({
        "question_id": "abc001_a", "metadata": "{}",
        "public_test_cases": json!([{"input": "1 2\n", "output": "3\n", "testtype": "stdin"},
                                    {"input": "5 5\n", "output": "10\n", "testtype": "stdin"}])
            .to_string(),
        "private_test_cases": "[]"
    });
    let batch = json!({
        "problem": {"kind": "dataset", "record": record},
        "candidates": [
            {"id": "right", "code": "```python\na, b = map(int, input().split())\nprint(a + b)\n```"},
            {"id": "exits", "code": "import sys\nsys.exit(0)\n"},
            {"id": "half", "code": "a, b = map(int, input().split())\nprint(3)\n"}
        ],
        "options": {"pass_at_k": [1]}
    });
    let output = judge_batch(dir.path(), &batch.to_string());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let (lines, summary) = events(&output);
    assert_eq!(by_id(&lines, "right")["passed"], true, "{lines:#?}");
    assert_eq!(by_id(&lines, "exits")["passed"], false, "{lines:#?}");
    assert_eq!(
        by_id(&lines, "half")["fraction"].as_f64(),
        Some(0.5),
        "{lines:#?}"
    );
    assert_eq!(
        summary["pass_at_k"]["1"].as_f64(),
        Some(1.0 / 3.0),
        "{summary}"
    );

    let unreadable = json!({"problem": {"kind": "dataset", "format": "mbpp", "record": {"task_id": 1}},
                            "candidates": [{"id": "a", "code": "x"}]});
    let (stderr, _) = refused(judge_batch(dir.path(), &unreadable.to_string()));
    assert!(stderr.contains("problem.record.test_list"), "{stderr}");
}

#[test]
fn a_cache_dir_the_judge_cannot_use_stops_it_at_start_naming_the_dir_and_its_flag() {
    // Another user's /tmp/verdict/cache, or a read-only disk: here, a file where the
    // directory should be. Once, at start, exit 2, never a report of System Errors.
    let dir = tempfile::tempdir().expect("temp dir");
    let not_a_dir = dir.path().join("cache");
    std::fs::write(&not_a_dir, "").expect("a file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["batch", "-", "--work-dir"])
        .arg(dir.path().join("work"))
        .arg("--cache-dir")
        .arg(&not_a_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("judge batch runs");
    let batch = json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "f", "test_cases": [{"name": "a", "input": [], "expected": 1}]},
        "candidates": [{"id": "a", "code": "def f():\n    return 1\n"}]
    });
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(batch.to_string().as_bytes())
        .expect("write the batch");
    let (stderr, stdout) = refused(child.wait_with_output().expect("judge batch ends"));
    assert!(
        stderr.contains(&format!(
            "cannot use the cache directory {}",
            not_a_dir.display()
        )) && stderr.contains("--cache-dir"),
        "{stderr}"
    );
    assert!(stdout.is_empty());
}

#[test]
fn the_dataset_batch_examples_judge_right_completions_right_and_every_other_one_wrong() {
    let dir = tempfile::tempdir().expect("temp dir");
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/batches");
    for name in ["dataset-humaneval.json", "dataset-verl-ground-truth.json"] {
        let text = std::fs::read_to_string(examples.join(name)).expect("the example");
        let output = judge_batch(dir.path(), &text);
        assert_eq!(output.status.code(), Some(1), "{name}: {output:?}");
        let (lines, _) = events(&output);
        for line in &lines {
            let right = matches!(line["id"].as_str(), Some("right" | "fenced"));
            assert_eq!(line["passed"], right, "{name}: {line}");
            assert!(line.get("infra_error").is_none(), "{name}: {line}");
        }
    }
}
