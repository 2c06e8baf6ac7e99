//! The compat crate against a real judge: what a wire protocol's call does to the boxes it
//! starts.

use std::time::{Duration, Instant};
use verdict_compat::{ProgramRequest, ProgramRunner};
use verdict_contracts::Language;
use verdict_scripts::{CompileLimits, RunLimits};

/// Whether a process whose command line (its arguments joined by spaces) contains `marker` is
/// alive on the host.
fn running(marker: &str) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline")).is_ok_and(|line| {
            String::from_utf8_lossy(&line)
                .replace('\0', " ")
                .contains(marker)
        })
    })
}

/// A bash program that sleeps `seconds` (a number no other process on the host uses).
fn sleeper(seconds: &str) -> ProgramRequest {
    ProgramRequest {
        owner: "default".into(),
        language: Language::Bash,
        sources: vec![("main.sh".into(), format!("sleep {seconds}\n").into_bytes())],
        files: Vec::new(),
        stdin: Vec::new(),
        args: Vec::new(),
        compile: CompileLimits::default(),
        run: RunLimits::new(60_000, None, None, None),
        fetch: Vec::new(),
        check_syntax: false,
        compile_args: Vec::new(),
        interpreter_args: Vec::new(),
        compile_files: Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_dropped_by_its_caller_kills_its_running_box_at_once() {
    let Some(judge) = verdict_testkit::judge() else {
        return;
    };
    let runner = ProgramRunner::new(judge.clone(), 4, Duration::from_secs(60));
    let seconds = format!("47.{}", std::process::id());
    let call = runner.run(sleeper(&seconds));
    let started = async {
        while !running(&format!("sleep {seconds}")) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        outcome = call => panic!("the sleeper ended before it was dropped: {outcome:?}"),
        () = started => {}
    }
    // The call's future is gone: its box must go with it, not sleep on to its limit.
    let dropped = Instant::now();
    while running(&format!("sleep {seconds}")) {
        assert!(
            dropped.elapsed() < Duration::from_secs(10),
            "the box of a dropped call still runs after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
