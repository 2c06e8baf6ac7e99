//! `judge lab` through the built binary: the example tasks against the example agent, JSON Lines
//! outputs, `--resume`, and bad input.

use crate::common::refused;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lab")
}

fn judge_lab(args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_judge"));
    cmd.arg("lab").args(args).env("NO_COLOR", "1");
    match stdin {
        Some(text) => {
            use std::io::Write;
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().expect("judge runs");
            // A judge that refuses its flags exits before reading: a broken pipe is its answer.
            let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
            child.wait_with_output().unwrap()
        }
        None => cmd.output().expect("judge runs"),
    }
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON record per line"))
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn lab_runs_jsonl_tasks_appends_records_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::copy(examples().join("tasks.jsonl"), &tasks).unwrap();
    let runs = dir.path().join("runs.jsonl");
    let scores = dir.path().join("scores.jsonl");
    let config = examples().join("lab.toml");
    let args = [
        tasks.to_str().unwrap(),
        "--lab-config",
        config.to_str().unwrap(),
        "--out",
        runs.to_str().unwrap(),
        "--scores",
        scores.to_str().unwrap(),
        "--concurrency",
        "3",
    ];
    let out = judge_lab(&args, None);
    let stderr = text(&out.stderr);
    // scenario-002 fails on purpose: exit 1, and every record is still written.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    let records = lines(&runs);
    assert_eq!(records.len(), 4);
    let by_id = |id: &str| records.iter().find(|r| r["taskId"] == id).unwrap().clone();
    assert_eq!(by_id("intent-flight")["status"], "completed");
    assert_eq!(by_id("intent-hotel")["output"]["intent"], "book_hotel");
    assert_eq!(by_id("intent-weather")["status"], "completed");
    let failed = by_id("scenario-002");
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["step"], "step-2");
    assert_eq!(failed["steps"][2]["status"], "skipped");
    assert!(
        failed["provenance"]["config"]["taskHash"]
            .as_str()
            .unwrap()
            .starts_with("blake3:")
    );
    assert!(stderr.contains("failed: tasks[3] (line 4, id \"scenario-002\") at step step-2: agent exited with code 2"), "{stderr}");

    let score_records = lines(&scores);
    let score_of = |task: &str, metric: &str| {
        let run_id = by_id(task)["id"].clone();
        score_records
            .iter()
            .find(|s| s["runId"] == run_id && s["metric"] == metric)
            .unwrap_or_else(|| panic!("no {metric} for {task}"))
            .clone()
    };
    assert_eq!(score_of("intent-flight", "subset_match")["value"], true);
    assert_eq!(score_of("intent-weather", "exact_match")["value"], false);
    assert_eq!(score_of("intent-weather", "subset_match")["value"], false);
    assert_eq!(
        score_of("scenario-002", "steps_completed")["target"],
        "global"
    );
    for s in &score_records {
        for key in [
            "id",
            "runId",
            "metric",
            "value",
            "target",
            "evaluatorId",
            "createdAt",
        ] {
            assert!(s.get(key).is_some(), "{key} missing in {s}");
        }
    }
    // The summary table, per type and metric.
    assert!(
        stderr.contains("intent                3          3       0"),
        "{stderr}"
    );
    assert!(
        stderr.contains("scenario              1          0       1"),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("intent") && l.contains("subset_match") && l.contains("66.7%")),
        "{stderr}"
    );

    // --resume: nothing runs again ...
    let mut resume = args.to_vec();
    resume.push("--resume");
    let out = judge_lab(&resume, None);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("resume: skipping 4 done task(s)"),
        "{stderr}"
    );
    assert_eq!(lines(&runs).len(), 4);
    // ... a new task runs, and a changed task (new content hash) runs again.
    let mut all = std::fs::read_to_string(&tasks).unwrap();
    all = all.replace("帮我订一家上海的酒店", "帮我订一家杭州的酒店");
    all.push_str(r#"{"id":"intent-new","name":"新任务","type":"intent","input":"I need a flight","metadata":{}}"#);
    all.push('\n');
    std::fs::write(&tasks, all).unwrap();
    let out = judge_lab(&resume, None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let records = lines(&runs);
    assert_eq!(records.len(), 6);
    let new_ids: Vec<&str> = records[4..]
        .iter()
        .map(|r| r["taskId"].as_str().unwrap())
        .collect();
    let mut sorted = new_ids.clone();
    sorted.sort();
    assert_eq!(sorted, ["intent-hotel", "intent-new"]);
}

/// Fails a `flaky` task the first time (no `$STATE` file yet), answers every other call.
const FLAKY_AGENT: &str = r#"task=$(cat)
case "$task" in
  *'"input":"flaky"'*)
    if [ ! -e "$STATE" ]; then touch "$STATE"; echo 'not yet' >&2; exit 1; fi ;;
esac
echo '{"ok": true}'
"#;

#[test]
fn resume_retry_failed_runs_failed_tasks_again() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent.sh");
    std::fs::write(&agent, FLAKY_AGENT).unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(
        &tasks,
        "{\"id\":\"steady\",\"name\":\"s\",\"type\":\"echo\",\"input\":\"steady\",\"metadata\":{}}\n\
         {\"id\":\"flaky\",\"name\":\"f\",\"type\":\"echo\",\"input\":\"flaky\",\"metadata\":{}}\n",
    )
    .unwrap();
    let runs = dir.path().join("runs.jsonl");
    let run = |extra: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_judge"));
        cmd.arg("lab")
            .arg(&tasks)
            .args(["--agent", &format!("sh {}", agent.display()), "--out"])
            .arg(&runs)
            .args(extra)
            .env("STATE", dir.path().join("state"))
            .env("NO_COLOR", "1");
        let out = cmd.output().expect("judge runs");
        (out.status.code(), text(&out.stderr))
    };
    let statuses = || -> Vec<(String, String)> {
        lines(&runs)
            .iter()
            .map(|r| {
                (
                    r["taskId"].as_str().unwrap().to_owned(),
                    r["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };

    let (code, stderr) = run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    let mut first = statuses();
    first.sort();
    assert_eq!(
        first,
        [
            ("flaky".into(), "failed".into()),
            ("steady".into(), "completed".into())
        ]
    );
    // --resume alone counts the failed run as done: nothing runs.
    let (code, stderr) = run(&["--resume"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("resume: skipping 2 done task(s)"),
        "{stderr}"
    );
    assert_eq!(statuses().len(), 2);
    // --retry-failed runs the failed one again, and says so.
    let (code, stderr) = run(&["--resume", "--retry-failed"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("resume: skipping 1 done task(s): steady"),
        "{stderr}"
    );
    assert!(
        stderr.contains("resume: running 1 failed task(s) again: flaky"),
        "{stderr}"
    );
    assert!(
        stderr.contains("(1 failed task(s) run again by --retry-failed)"),
        "{stderr}"
    );
    let after = statuses();
    assert_eq!(after.len(), 3);
    assert_eq!(after[2], ("flaky".into(), "completed".into()));
    // Once it completed, it is done.
    let (code, stderr) = run(&["--resume", "--retry-failed"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("resume: skipping 2 done task(s)"),
        "{stderr}"
    );
    assert!(!stderr.contains("again"), "{stderr}");
    assert_eq!(statuses().len(), 3);
    // --retry-failed means nothing without --resume.
    let (code, stderr) = run(&["--retry-failed"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--resume"), "{stderr}");
}

#[test]
fn lab_writes_to_stdout_with_a_fallback_agent() {
    let agent = examples().join("agent/agent.py");
    let tasks = examples().join("tasks.json");
    let out = judge_lab(
        &[
            tasks.to_str().unwrap(),
            "--agent",
            &format!("python3 {}", agent.display()),
            "--quiet",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let records: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 2);
    let scenario = records
        .iter()
        .find(|r| r["taskId"] == "scenario-001")
        .unwrap();
    assert_eq!(scenario["taskType"], "scenario");
    assert_eq!(scenario["steps"][2]["output"]["stored"], 2);
    assert_eq!(
        scenario["provenance"]["config"]["verdictVersion"],
        env!("CARGO_PKG_VERSION")
    );
}

#[test]
fn concurrency_zero_is_refused_naming_the_flag() {
    let task = r#"{"id":"t","name":"n","type":"echo","input":1,"metadata":{}}"#;
    let (stderr, stdout) = refused(judge_lab(
        &["-", "--agent", "cat", "--concurrency", "0"],
        Some(task),
    ));
    assert!(stderr.contains("'--concurrency <CONCURRENCY>'"), "{stderr}");
    assert!(stdout.is_empty());
}

#[test]
fn duplicate_task_ids_are_refused_before_anything_runs() {
    let task = r#"{"id":"same","name":"n","type":"echo","input":1,"metadata":{}}"#;
    let twice = format!("{task}\n{task}\n");
    let (stderr, stdout) = refused(judge_lab(&["-", "--agent", "cat"], Some(&twice)));
    assert!(stderr.contains("duplicate task id \"same\""), "{stderr}");
    assert!(stdout.is_empty());
}

#[test]
fn lab_refuses_bad_tasks_naming_them() {
    let bad_json = "{\"id\":\"a\",\"name\":\"a\",\"type\":\"intent\",\"input\":1,\"metadata\":{}}\n{\"id\": \"b\",\n";
    let (stderr, _) = refused(judge_lab(&["-", "--agent", "true"], Some(bad_json)));
    assert!(stderr.contains("invalid tasks in -:"), "{stderr}");
    assert!(stderr.contains("tasks[1] (line 2): not JSON"), "{stderr}");

    let no_runner =
        "{\"id\":\"task-7\",\"name\":\"a\",\"type\":\"intent\",\"input\":1,\"metadata\":{}}\n";
    let (stderr, _) = refused(judge_lab(&["-"], Some(no_runner)));
    assert!(
        stderr.contains("tasks[0] (line 1, id \"task-7\"): type: no runner for type \"intent\""),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    let missing = "[{\"id\":\"t\",\"type\":\"intent\",\"input\":1,\"metadata\":{}}]";
    let (stderr, _) = refused(judge_lab(&["-", "--agent", "true"], Some(missing)));
    assert!(
        stderr.contains("tasks[0] (id \"t\"): invalid AtomicTask: missing field `name`"),
        "{stderr}"
    );
}

#[test]
fn lab_runs_oracle_tasks_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = examples().join("oracle-tasks.json");
    let scores = dir.path().join("scores.jsonl");
    let work = dir.path().join("work");
    let cache = dir.path().join("cache");
    let out = judge_lab(
        &[
            tasks.to_str().unwrap(),
            "--scores",
            scores.to_str().unwrap(),
            "--work-dir",
            work.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ],
        None,
    );
    let stderr = text(&out.stderr);
    if out.status.code() == Some(2)
        && stderr.contains("cannot set up the judge")
        && !verdict_testkit::required()
    {
        let _ = writeln_skip(&stderr);
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let records: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 4);
    let scores = lines(&scores);
    for r in &records {
        assert_eq!(r["status"], "completed", "{r}");
        let id = r["taskId"].as_str().unwrap();
        let runner = match id {
            "oracle-script" => "script",
            "oracle-cli" => "cli",
            _ => "function",
        };
        assert_eq!(r["provenance"]["runnerId"], runner);
        assert!(r["output"]["results"][0]["status"].is_string(), "{r}");
        let judge_score = scores
            .iter()
            .find(|s| s["runId"] == r["id"] && s["metric"] == "judge_score")
            .unwrap();
        let want = if id == "oracle-function-wrong" { 0 } else { 1 };
        assert_eq!(judge_score["value"], want, "{id}");
    }
}

/// Says why a test did not run (the house's `skipped:` line).
fn writeln_skip(reason: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(
        std::io::stdout(),
        "skipped: the judge cannot be set up here: {reason}"
    )
}

#[test]
fn tasks_without_runners_are_refused_naming_the_flags_that_give_them() {
    // The README's line without its --lab-config: the error says how to give runners.
    let tasks = examples().join("tasks.jsonl");
    let (stderr, _) = refused(judge_lab(&[tasks.to_str().expect("utf-8 path")], None));
    assert!(stderr.contains("no runner for type"), "{stderr}");
    assert!(
        stderr.contains("--agent") && stderr.contains("--lab-config"),
        "{stderr}"
    );
}

#[test]
fn the_readme_lab_line_names_files_that_exist() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README");
    let line = readme
        .lines()
        .find(|l| l.starts_with("judge lab "))
        .expect("a judge lab line");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(root.join(words[2]).is_file(), "{line}");
    let config = words
        .iter()
        .position(|w| *w == "--lab-config")
        .map(|i| words[i + 1])
        .expect("the line gives the runners");
    assert!(root.join(config).is_file(), "{line}");
}
