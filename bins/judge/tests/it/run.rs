//! `judge run` and `judge languages` as a user calls them: exit codes, stdout, stderr.

use crate::common::refused;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn judge(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("judge starts");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write stdin");
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("judge finishes")
}

fn stdout_json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn an_invalid_request_is_a_report_with_a_message_and_exit_0() {
    let path = judge_example("invalid-testcase-id");
    let output = judge(&["run", &path], None);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = stdout_json(&output);
    assert_eq!(report["results"], serde_json::json!([]));
    assert_eq!(report["sub_id"], "invalid-testcase-id-1");
    assert!(
        report["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("judge_tasks[1].testcase_id: 7 is out of range")
    );
}

#[test]
fn a_field_of_the_wrong_kind_is_named_in_the_message() {
    let text = r#"{"sub_type":"programming","category":"c","prob_id":"p","sub_id":"s","updated_at":1,
        "judge_tasks":[{"check_script":"compil","time_limit":1000,"depends_on":-1}],
        "submission":{"type":"source_code","language":"c","source_files":[{"type":"text","name":"a.c","text":""}]}}"#;
    let output = judge(&["run", "-"], Some(text));
    assert_eq!(output.status.code(), Some(0));
    let message = stdout_json(&output)["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with("judge_tasks[0].check_script: unknown variant"),
        "{message}"
    );
}

#[test]
fn text_that_is_not_json_exits_2_with_a_reason_on_stderr() {
    let (stderr, stdout) = refused(judge(&["run", "-"], Some("this is not json")));
    assert!(stdout.is_empty(), "stdout carries data only");
    assert!(stderr.contains("not JSON"), "{stderr}");
}

#[test]
fn a_missing_file_exits_2() {
    let (stderr, _) = refused(judge(&["run", "/nonexistent/submission.json"], None));
    assert!(stderr.contains("/nonexistent/submission.json"), "{stderr}");
}

#[test]
fn an_unknown_config_key_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("verdict.toml");
    std::fs::write(&config, "paralelism = 2\n").expect("write config");
    let path = judge_example("aplusb-c");
    let config = config.to_str().expect("utf-8 path");
    let (stderr, _) = refused(judge(&["run", &path, "--config", config], None));
    assert!(stderr.contains("paralelism"), "{stderr}");
}

#[test]
fn a_local_root_that_does_not_exist_is_refused_at_start_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("no-such-testdata");
    let path = judge_example("aplusb-c");
    let work = dir.path().join("work");
    let cache = dir.path().join("cache");
    let (stderr, stdout) = refused(judge(
        &[
            "run",
            &path,
            "--work-dir",
            work.to_str().expect("utf-8 path"),
            "--cache-dir",
            cache.to_str().expect("utf-8 path"),
            "--local-root",
            missing.to_str().expect("utf-8 path"),
        ],
        None,
    ));
    assert!(
        stderr.contains(&format!("local_roots[0]: {}", missing.display())),
        "{stderr}"
    );
    assert!(
        stdout.is_empty(),
        "no report for a judge that could not start"
    );
}

#[test]
fn languages_lists_every_language_of_the_contract() {
    let output = judge(&["languages", "--json"], None);
    assert_eq!(output.status.code(), Some(0));
    let list = stdout_json(&output);
    let list = list.as_array().expect("a list");
    assert_eq!(list.len(), verdict_contracts::Language::ALL.len());
    let c = list
        .iter()
        .find(|l| l["language"] == "c")
        .expect("c is listed");
    assert_eq!(c["ready"], true, "{c}");
    for entry in list.iter().filter(|l| l["ready"] == false) {
        assert!(
            entry["missing"].as_str().is_some_and(|m| !m.is_empty()),
            "a missing language says why: {entry}"
        );
    }
}

/// `judge run FILE --format table [extra...]` with its own work and cache dirs.
fn run_table(file: &str, extra: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path().join("work");
    let cache = dir.path().join("cache");
    let mut args = vec!["run", file, "--format", "table"];
    args.extend_from_slice(extra);
    args.extend([
        "--work-dir",
        work.to_str().expect("utf-8 path"),
        "--cache-dir",
        cache.to_str().expect("utf-8 path"),
    ]);
    judge(&args, None)
}

/// The path of the bundled example `name` (`examples/judge/<name>.json`).
fn judge_example(name: &str) -> String {
    format!(
        "{}/../../examples/judge/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// [`run_table`], which must exit 0: the table it printed.
fn table_of(file: &str, extra: &[&str]) -> String {
    let output = run_table(file, extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Checks `line` of the table `table` is task `task`'s row and says each of `words`.
fn row_says(table: &str, line: &str, task: usize, words: &[&str]) {
    assert!(
        line.starts_with(&format!("{task} ")) && words.iter().all(|w| line.contains(w)),
        "task {task} {words:?}: {table}"
    );
}

#[test]
fn format_table_puts_the_outcome_on_top_and_a_line_per_task() {
    let stdout = table_of(&judge_example("wrong-answer"), &[]);
    let lines: Vec<&str> = stdout.lines().collect();
    // One numbering for people, from 1: the first test is test 1, the second task task 2.
    assert_eq!(
        lines[0], "Wrong Answer on test 1 (task 2) · score 1/2 · 2 tasks",
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("task") && lines[1].contains("status"),
        "{stdout}"
    );
    row_says(&stdout, lines[2], 1, &["Accepted", "compile"]);
    // The compile task measured nothing: "-", not "0 ms".
    assert!(lines[2].trim_end().ends_with('-'), "{stdout}");
    row_says(&stdout, lines[3], 2, &["Wrong Answer", "test 1"]);
    assert!(
        lines[4].trim_start().starts_with("wrong answer at line 1"),
        "{stdout}"
    );
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_err(),
        "not JSON"
    );
}

/// A test the Submission names (`test_data[i].name`, as a package's plan gives it) is shown
/// by its number and its name, in the outcome and in its row.
#[test]
fn format_table_names_a_test_by_its_number_and_its_own_name() {
    let example = std::fs::read_to_string(judge_example("wrong-answer")).expect("example");
    let mut submission: serde_json::Value = serde_json::from_str(&example).expect("JSON");
    submission["test_data"][0]["name"] = "secret/01-overflow".into();
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("named.json");
    std::fs::write(&file, submission.to_string()).expect("write");
    let stdout = table_of(file.to_str().expect("utf-8 path"), &[]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0], "Wrong Answer on test 1 (secret/01-overflow) (task 2) · score 1/2 · 2 tasks",
        "{stdout}"
    );
    row_says(&stdout, lines[3], 2, &["test 1 (secret/01-overflow)"]);
}

#[test]
fn format_table_failures_only_leaves_out_the_tasks_that_passed() {
    let stdout = table_of(&judge_example("wrong-answer"), &["--failures-only"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("Wrong Answer on test 1"), "{stdout}");
    assert!(
        !stdout.contains("compile"),
        "the accepted compile task shows: {stdout}"
    );
    row_says(&stdout, lines[2], 2, &["Wrong Answer"]);
    assert!(
        stdout.contains("(tasks accepted or skipped, not shown with --failures-only: 1)"),
        "{stdout}"
    );
}

#[test]
fn relative_work_and_cache_dirs_are_the_current_directorys() {
    // They once reached the box as relative paths: every test a System Error.
    let dir = tempfile::tempdir().expect("tempdir");
    let example = judge_example("wrong-answer");
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args([
            "run",
            "--work-dir",
            "work",
            "--cache-dir",
            "cache",
            &example,
        ])
        .current_dir(dir.path())
        .output()
        .expect("judge runs");
    let report = stdout_json(&output);
    let statuses: Vec<&str> = report["results"]
        .as_array()
        .map(|r| r.iter().filter_map(|t| t["status"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        statuses,
        ["Accepted", "Wrong Answer"],
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(dir.path().join("cache").is_dir() && dir.path().join("work").is_dir());
}
