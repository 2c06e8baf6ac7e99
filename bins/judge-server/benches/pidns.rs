//! Pid-namespace benchmark (not a test): a real standalone `judge-server` judges
//! `BENCH_SUBMISSIONS` (default 30) submissions while, beside it, `judge run` loops in another
//! pid namespace with its own `/proc` (`unshare --pid --fork --mount-proc`), sharing the
//! server's `work_dir` and the host's cgroup parents. Neither can see the other's processes; before design #23 each `judge` start removed
//! the server's live run cgroups as stale (9 of 30 submissions ended `System Error`). It prints
//! the System Error counts of both (expected: 0 and 0) and exits 1 otherwise.
//!
//! ```text
//! cargo build -p verdict-judge          # the `judge` binary, beside this bench's profile
//! cargo bench -p verdict-judge-server --bench pidns --profile dev
//! BENCH_SUBMISSIONS=60 JUDGE_BIN=target/release/judge cargo bench -p verdict-judge-server --bench pidns
//! ```
//!
//! `JUDGE_SERVER_BIN` runs another `judge-server` binary; a submission not finished after
//! `BENCH_DEADLINE_SECS` (default 300) counts as a failure.
//!
//! Needs root (for `unshare --pid`) and a host where the judge sandboxes.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use support::{agent, env_or, start};
use verdict_testkit::submission::{A_PLUS_B_TESTS, SubmissionJson};

/// A+B in C that sleeps 0.3 s before answering (so runs overlap with the loop's starts).
fn submission(i: usize) -> (String, Value) {
    let sub_id = format!("pidns-{i}");
    let source = "#include <stdio.h>\n#include <unistd.h>\nint main(){int a,b;usleep(300000);if(scanf(\"%d%d\",&a,&b)!=2)return 1;printf(\"%d\\n\",a+b);return 0;}\n";
    let body = SubmissionJson::a_plus_b(&sub_id)
        .source(source)
        .tests(A_PLUS_B_TESTS)
        .limit("time_limit", 3000)
        .limit("memory_limit", 65536)
        .build();
    (sub_id, body)
}

/// The `judge` binary: `JUDGE_BIN`, else beside this bench's profile directory.
fn judge_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("JUDGE_BIN") {
        return Some(PathBuf::from(path));
    }
    let exe = std::env::current_exe().ok()?;
    let beside = exe.parent()?.parent()?.join("judge");
    beside.exists().then_some(beside)
}

/// The statuses of a report.
fn statuses(report: &Value) -> Vec<String> {
    report["results"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|t| t["status"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// What the `judge run` loop saw.
#[derive(Debug, Default)]
struct LoopCount {
    runs: usize,
    system_errors: usize,
    other_failures: usize,
}

/// Runs `judge run example` in a new pid namespace again and again until `stop`.
fn judge_loop(judge: PathBuf, example: PathBuf, work: PathBuf, stop: Arc<AtomicBool>) -> LoopCount {
    let mut count = LoopCount::default();
    let cache = tempfile::tempdir().expect("temp dir");
    while !stop.load(Ordering::Acquire) {
        let output = Command::new("unshare")
            // A pid namespace with its own /proc: the server's processes are invisible to it, as
            // in a container.
            .args(["--pid", "--fork", "--mount-proc", "--kill-child"])
            .arg(&judge)
            .arg("run")
            .arg(&example)
            .arg("--work-dir")
            .arg(&work)
            .arg("--cache-dir")
            .arg(cache.path())
            .stdin(Stdio::null())
            .output()
            .expect("unshare runs");
        count.runs += 1;
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
        let statuses = statuses(&report);
        if statuses.iter().any(|s| s == "System Error") {
            count.system_errors += 1;
            eprintln!("judge run: {report}");
        } else if statuses.is_empty() || statuses.iter().any(|s| s != "Accepted") {
            count.other_failures += 1;
            eprintln!(
                "judge run exited {}: {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    count
}

fn main() {
    if !support::benching("pid-namespace", "pidns") {
        return;
    }
    let Some(judge) = judge_bin() else {
        eprintln!(
            "no judge binary beside this bench: `cargo build -p verdict-judge` first, or set JUDGE_BIN"
        );
        std::process::exit(2);
    };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/judge/aplusb-c.json");
    let total: usize = env_or("BENCH_SUBMISSIONS", 30);
    let dir = tempfile::tempdir().expect("temp dir");
    let work = dir.path().join("work");
    let config = dir.path().join("server.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 2\nqueue_capacity = {}\ndata_dir = \"data\"\n\
             [judge]\nwork_dir = {work:?}\ncache_dir = {:?}\n",
            total.max(1),
            dir.path().join("cache")
        ),
    )
    .expect("config");
    let (mut server, base) = start(&config);

    let stop = Arc::new(AtomicBool::new(false));
    let looping = {
        let (judge, example, work, stop) = (judge, example, work, stop.clone());
        std::thread::spawn(move || judge_loop(judge, example, work, stop))
    };
    let t0 = Instant::now();
    let subs: Vec<_> = (0..total).map(submission).collect();
    for (sub_id, body) in &subs {
        let reply = agent()
            .post(format!("{base}/v1/submissions"))
            .send(body.to_string())
            .expect("a reply");
        assert_eq!(reply.status().as_u16(), 202, "{sub_id}");
    }
    let mut reports: Vec<Option<Value>> = vec![None; total];
    let wait: u64 = env_or("BENCH_DEADLINE_SECS", 300);
    let deadline = Instant::now() + Duration::from_secs(wait);
    while reports.iter().any(Option::is_none) && Instant::now() < deadline {
        for (i, (sub_id, _)) in subs.iter().enumerate() {
            if reports[i].is_some() {
                continue;
            }
            let Ok(mut reply) = agent()
                .get(format!("{base}/v1/submissions/{sub_id}?category=bench"))
                .call()
            else {
                continue;
            };
            let finished = reply
                .headers()
                .get("verdict-state")
                .is_some_and(|v| v == "finished");
            if finished {
                reports[i] = reply
                    .body_mut()
                    .read_to_string()
                    .ok()
                    .and_then(|t| serde_json::from_str(&t).ok());
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let elapsed = t0.elapsed();
    stop.store(true, Ordering::Release);
    let loop_count = looping.join().expect("the judge loop");
    let _ = server.kill();
    let _ = server.wait();

    let (mut server_errors, mut server_wrong, mut unfinished) = (0, 0, 0);
    for (report, (sub_id, _)) in reports.iter().zip(&subs) {
        let Some(report) = report else {
            unfinished += 1;
            continue;
        };
        let statuses = statuses(report);
        if statuses.iter().any(|s| s == "System Error") {
            server_errors += 1;
            eprintln!("{sub_id}: {report}");
        } else if statuses != ["Accepted"; 3] {
            server_wrong += 1;
            eprintln!("{sub_id}: {statuses:?}");
        }
    }
    println!(
        "server: {total} submissions, {} finished in {:.1} s beside the loop: {server_errors} System Errors, {server_wrong} other wrong reports, {unfinished} unfinished after {wait} s",
        total - unfinished,
        elapsed.as_secs_f64()
    );
    println!(
        "judge run in another pid namespace: {} runs: {} System Errors, {} other failures",
        loop_count.runs, loop_count.system_errors, loop_count.other_failures
    );
    if server_errors
        + server_wrong
        + unfinished
        + loop_count.system_errors
        + loop_count.other_failures
        > 0
        || loop_count.runs == 0
    {
        eprintln!("FAILED");
        std::process::exit(1);
    }
}
