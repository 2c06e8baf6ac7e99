//! `judge lab` stopped by SIGINT, SIGTERM or SIGHUP in the middle of a batch: it kills every
//! running agent with its whole process tree, keeps the records already finished, and exits
//! 130 / 143 / 129.

use crate::common::proc_stat;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A `fast` task answers at once; a `slow` one starts a child, a grandchild and a grandchild
/// that leaves the process group (`setsid`); each appends its pid to `$PIDS`, the agent too.
const AGENT: &str = r#"task=$(cat)
case "$task" in
  *'"input":"slow"'*)
    echo $$ >> "$PIDS"
    sh -c 'echo $$ >> "$PIDS"; exec sleep 300' &
    setsid sh -c 'echo $$ >> "$PIDS"; exec sleep 300' &
    sleep 300 &
    echo $! >> "$PIDS"
    wait ;;
  *) echo '{"ok": true}' ;;
esac
"#;

const TASKS: &str = r#"{"id":"fast-1","name":"f","type":"echo","input":"fast","metadata":{}}
{"id":"slow-1","name":"s","type":"echo","input":"slow","metadata":{}}
{"id":"fast-2","name":"f","type":"echo","input":"fast","metadata":{}}
{"id":"slow-2","name":"s","type":"echo","input":"slow","metadata":{}}
"#;

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits until `ready` holds, failing with `what` after a deadline.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not).
fn alive(pid: &str) -> bool {
    pid.parse()
        .ok()
        .and_then(proc_stat)
        .and_then(|fields| fields.into_iter().next())
        .is_some_and(|state| state != "Z" && state != "X")
}

fn stop_mid_batch(signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent.sh");
    std::fs::write(&agent, AGENT).unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, TASKS).unwrap();
    let runs = dir.path().join("runs.jsonl");
    let scores = dir.path().join("scores.jsonl");
    let pids = dir.path().join("pids");
    let mut judge = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("lab")
        .arg(&tasks)
        .args(["--agent", &format!("sh {}", agent.display())])
        .arg("--out")
        .arg(&runs)
        .arg("--scores")
        .arg(&scores)
        .args(["--concurrency", "4"])
        .env("PIDS", &pids)
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("judge runs");

    // Both fast records written, both slow agents (4 processes each) running.
    wait_for("the fast records", || lines(&runs).len() == 2);
    wait_for("the slow agents' processes", || lines(&pids).len() == 8);
    let sent = Command::new("sh")
        .args(["-c", "kill -s \"$1\" \"$2\"", "sh", signal])
        .arg(judge.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = judge.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = judge.kill();
            panic!("judge lab did not stop after {signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut judge.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(code), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "judge lab: stopped by SIG{signal}: 2 running agent(s) killed with their processes; \
             2 finished record(s) kept in {}",
            runs.display()
        )),
        "{stderr}"
    );

    let records: Vec<Value> = lines(&runs)
        .iter()
        .map(|l| serde_json::from_str(l).expect("whole records only"))
        .collect();
    let mut ids: Vec<&str> = records
        .iter()
        .map(|r| r["taskId"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["fast-1", "fast-2"]);
    assert!(records.iter().all(|r| r["status"] == "completed"));
    assert!(!lines(&scores).is_empty());

    for pid in lines(&pids) {
        wait_for(&format!("agent process {pid} to be killed"), || {
            !alive(&pid)
        });
    }
}

#[test]
fn sigint_kills_every_agent_tree_keeps_finished_records_and_exits_130() {
    stop_mid_batch("INT", 130);
}

#[test]
fn sigterm_kills_every_agent_tree_keeps_finished_records_and_exits_143() {
    stop_mid_batch("TERM", 143);
}

#[test]
fn sighup_kills_every_agent_tree_keeps_finished_records_and_exits_129() {
    stop_mid_batch("HUP", 129);
}
