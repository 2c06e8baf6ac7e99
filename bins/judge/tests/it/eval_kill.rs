//! Killing `judge eval` (SIGTERM, then SIGKILL) while a looping sample runs leaves nothing it
//! started alive: no warm interpreter, no zygote, no box (docs/datasets.md, "Stopping").

use crate::common::proc_stat;
use serde_json::json;
use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant};

/// Every process's parent and start time (`/proc/PID/stat` fields 4 and 22).
fn processes() -> HashMap<u32, (u32, u64)> {
    let mut all = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return all;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(fields) = proc_stat(pid) else {
            continue;
        };
        let ppid = fields.get(1).and_then(|f| f.parse().ok()).unwrap_or(0);
        let start = fields.get(19).and_then(|f| f.parse().ok()).unwrap_or(0);
        all.insert(pid, (ppid, start));
    }
    all
}

/// The descendants of `root` now, with their start times.
fn descendants(root: u32) -> Vec<(u32, u64)> {
    let all = processes();
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (&pid, &(ppid, start)) in &all {
            if ppid == parent && !found.iter().any(|(p, _)| *p == pid) {
                found.push((pid, start));
                frontier.push(pid);
            }
        }
    }
    found
}

/// The uid a process runs as (the `Uid:` line's real uid).
fn uid_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|u| u.parse().ok())
}

#[test]
fn killing_judge_eval_kills_every_process_it_started_with_it() {
    if uid_of(std::process::id()) != Some(0) {
        verdict_testkit::skip_or_fail::<()>(
            "killing judge eval",
            "boxes run under their own uids only as root",
        );
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = dir.path().join("HumanEval.jsonl");
    let record = json!({
        "task_id": "HumanEval/0", "prompt": "def f(x):\n    \"\"\"...\"\"\"\n", "entry_point": "f",
        "canonical_solution": "    return x\n",
        "test": "def check(candidate):\n    assert candidate(1) == 1\n"
    });
    std::fs::write(&dataset, format!("{record}\n")).expect("write");
    let samples = dir.path().join("samples.jsonl");
    let looping =
        json!({"task_id": "HumanEval/0", "completion": "    while True:\n        pass\n"});
    let spinning = json!({"task_id": "HumanEval/0", "completion": "    import os\n    os.fork()\n    while True:\n        pass\n"});
    std::fs::write(&samples, format!("{looping}\n{spinning}\n")).expect("write");
    let mut child = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("eval")
        .arg(&dataset)
        .arg("--samples")
        .arg(&samples)
        .args(["--timeout-ms", "60000", "--jobs", "2", "-q"])
        .arg("--work-dir")
        .arg(dir.path().join("work"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("judge eval starts");
    let judge = child.id();
    // Wait until a box runs the loop (a process under a box's uid), recording every
    // descendant seen.
    let mut seen: Vec<(u32, u64)> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut boxed = false;
    while Instant::now() < deadline && !boxed {
        for (pid, start) in descendants(judge) {
            if !seen.contains(&(pid, start)) {
                seen.push((pid, start));
            }
            boxed |= uid_of(pid).is_some_and(|u| u != 0);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(boxed, "no box ran the looping sample within 60 s: {seen:?}");
    std::thread::sleep(Duration::from_millis(500));
    seen.extend(descendants(judge));
    let _ = Command::new("kill")
        .args(["-TERM", &judge.to_string()])
        .status();
    std::thread::sleep(Duration::from_millis(500));
    let _ = Command::new("kill")
        .args(["-KILL", &judge.to_string()])
        .status();
    let _ = child.wait();
    // What it started may take a moment to see its end.
    let deadline = Instant::now() + Duration::from_secs(10);
    let alive = |seen: &[(u32, u64)]| -> Vec<u32> {
        let now = processes();
        seen.iter()
            .filter(|(pid, start)| now.get(pid).is_some_and(|(_, s)| s == start))
            .map(|(pid, _)| *pid)
            .collect()
    };
    while Instant::now() < deadline && !alive(&seen).is_empty() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let survivors: Vec<String> = alive(&seen)
        .into_iter()
        .map(|pid| {
            let cmd = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            format!("{pid} uid {:?}: {}", uid_of(pid), cmd.replace('\0', " "))
        })
        .collect();
    assert!(
        survivors.is_empty(),
        "still alive after judge eval was killed: {survivors:#?}"
    );
}
