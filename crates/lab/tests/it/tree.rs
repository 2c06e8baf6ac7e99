//! An agent's whole process tree ends with its run: grandchildren of a timed-out agent, of an
//! agent that exited, of a run that was dropped, and a `setsid` daemon that left the group.

use crate::common::runtime;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use verdict_contracts::{AtomicTask, RunStatus};
use verdict_lab::{CommandRunner, Lab, LabOutcome, LabTask, Registry, Runner};

/// `sh -c SCRIPT agent PIDFILE`: `$1` in the script is where the grandchild writes its pid.
fn sh_agent(script: &str, pid_file: &Path) -> CommandRunner {
    CommandRunner::new(
        "*",
        vec![
            "sh".into(),
            "-c".into(),
            script.into(),
            "agent".into(),
            pid_file.display().to_string(),
        ],
    )
    .unwrap()
}

/// Starts a grandchild that writes its pid to `$1` (atomically) and sleeps, output detached;
/// `$LAUNCH` (e.g. `setsid`) prefixes it. Then waits until the pid is written.
const GRANDCHILD: &str = r#"cat >/dev/null
$LAUNCH sh -c 'echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 300' grandchild "$1" >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.02; done
"#;

/// What an agent that ends well prints.
const OK: &str = "echo '{\"ok\": true}'\n";

fn atomic(id: &str, timeout_ms: u64) -> AtomicTask {
    serde_json::from_value(json!({
        "id": id, "name": id, "type": "tree", "input": {},
        "metadata": {"timeout": timeout_ms}
    }))
    .unwrap()
}

fn lab(runner: CommandRunner) -> Lab {
    let mut registry = Registry::new();
    registry.set_fallback(Arc::new(runner), Value::Null);
    Lab::new(registry)
}

fn read_pid(path: &Path) -> u32 {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the grandchild wrote no pid to {}: {e}", path.display()));
    text.trim().parse().unwrap()
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses: `pid (comm) S ...`.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Polls until `pid` is gone; fails naming it after a deadline.
fn assert_gone(pid: u32, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        if Instant::now() > deadline {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            panic!(
                "{what} (pid {pid}, {:?}) still runs after its run ended",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pid_file(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("grandchild.pid")
}

/// Runs task `id` (limited to `timeout_ms`) on an agent that starts the grandchild, `$LAUNCH`
/// set to `launch` when given, and then runs `then`; the outcome and the grandchild's pid.
fn run_tree(id: &str, timeout_ms: u64, launch: Option<&str>, then: &str) -> (LabOutcome, u32) {
    let dir = tempfile::tempdir().unwrap();
    let pids = pid_file(&dir);
    let mut agent = sh_agent(&format!("{GRANDCHILD}{then}"), &pids);
    if let Some(launch) = launch {
        agent = agent.env("LAUNCH", launch);
    }
    let out = runtime().block_on(lab(agent).run(&LabTask::Atomic(atomic(id, timeout_ms))));
    (out, read_pid(&pids))
}

#[test]
fn timed_out_agent_grandchildren_are_killed() {
    let (out, pid) = run_tree("slow", 1500, None, "sleep 300\n");
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "agent timed out after 1500 ms"
    );
    assert_gone(pid, "the grandchild of a timed-out agent");
}

#[test]
fn finished_agent_leaves_no_process_behind() {
    let (out, pid) = run_tree("done", 20_000, None, OK);
    assert_eq!(out.run.status, RunStatus::Completed, "{:?}", out.run.error);
    assert_eq!(out.run.output, Some(json!({"ok": true})));
    assert_gone(pid, "the grandchild of an agent that exited");
}

#[test]
fn dropped_run_kills_the_agent_tree() {
    let dir = tempfile::tempdir().unwrap();
    let pids = pid_file(&dir);
    let script = format!("{GRANDCHILD}sleep 300\n");
    let runner = sh_agent(&script, &pids);
    let task = atomic("dropped", 60_000);
    runtime().block_on(async {
        let run = runner.execute(&task, &Value::Null);
        let written = async {
            while !pids.exists() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::select! {
            _ = run => panic!("the agent should still run"),
            () = written => {}
        }
        // `run` is dropped here, as when the engine abandons a run or a batch is cancelled.
    });
    assert_gone(read_pid(&pids), "the grandchild of a dropped run");
}

#[test]
fn setsid_daemon_of_an_agent_is_killed_by_its_tag() {
    // `setsid` puts the grandchild in a session and a process group of its own: killpg of the
    // agent's group does not reach it; the tag it inherited does.
    let (out, pid) = run_tree("daemon", 20_000, Some("setsid"), OK);
    assert_eq!(out.run.status, RunStatus::Completed, "{:?}", out.run.error);
    assert_gone(pid, "a setsid daemon started by an agent");
}
