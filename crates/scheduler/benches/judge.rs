//! Benchmark (not a test): one compile task plus 20 standard tests of an A+B C submission,
//! judged 50 times, with the submission compiled each time and with its build cached.
//! Prints median and p95 per submission and per test case, and the bare cost of running the
//! compiled program 20 times outside any sandbox in the same run, for a ratio.
//!
//! Run as root: `cargo bench -p verdict-scheduler --bench judge` (`VERDICT_BENCH_ROUNDS=N`).

#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};
use verdict_contracts::JudgeStatus;
use verdict_contracts::parse_submission;
use verdict_scheduler::{Judge, JudgeConfig};
use verdict_testkit::submission::SubmissionJson;

const SOURCE: &str = "#include <stdio.h>\nint main(void) {\n  long long a, b;\n  while (scanf(\"%lld %lld\", &a, &b) == 2) printf(\"%lld\\n\", a + b);\n  return 0;\n}\n";
const TESTS: usize = 20;

fn submission(sub_id: &str) -> String {
    let tests = (0..TESTS).map(|k| {
        let (a, b) = (k as i64 * 7919, k as i64 * 104_729);
        (format!("{a} {b}\n"), format!("{}\n", a + b))
    });
    SubmissionJson::a_plus_b(sub_id)
        .source(SOURCE)
        .tests(tests)
        .limit("time_limit", 1000)
        .limit("memory_limit", 65536)
        .limit("file_limit", 1024)
        .limit("proc_limit", 5)
        .text()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let (median, p95) = (percentile(&times, 0.5), percentile(&times, 0.95));
    println!(
        "{label:<28} per submission: median {:>7.1} ms  p95 {:>7.1} ms | per test case: median {:>5.2} ms  p95 {:>5.2} ms",
        median.as_secs_f64() * 1e3,
        p95.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3 / TESTS as f64,
        p95.as_secs_f64() * 1e3 / TESTS as f64
    );
}

fn bench(label: &str, cache_builds: bool, rounds: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = JudgeConfig {
        work_dir: dir.path().join("work"),
        cache_dir: dir.path().join("cache"),
        cache_submission_builds: cache_builds,
        ..JudgeConfig::default()
    };
    let judge = match Judge::new(config) {
        Ok(judge) => judge,
        Err(err) => {
            println!("skipped: {err}");
            return;
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut times = Vec::with_capacity(rounds);
    for round in 0..=rounds {
        let submission =
            parse_submission(&submission(&format!("bench-{round}"))).expect("valid submission");
        let started = Instant::now();
        let report = rt.block_on(judge.judge(submission));
        let elapsed = started.elapsed();
        let accepted = report
            .results
            .iter()
            .all(|r| r.status == JudgeStatus::Accepted);
        assert!(accepted, "every task should be Accepted: {report:?}");
        if round > 0 {
            times.push(elapsed); // round 0 warms the problem cache
        }
    }
    report(label, times);
}

fn bare(rounds: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = dir.path().join("main.c");
    std::fs::write(&source, SOURCE).expect("write source");
    let binary = dir.path().join("main");
    let status = std::process::Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&source)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        println!("skipped bare runs: gcc failed");
        return;
    }
    let input = dir.path().join("in");
    std::fs::write(&input, "1 2\n").expect("write input");
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        for _ in 0..TESTS {
            let stdin = std::fs::File::open(&input).expect("input");
            let out = std::process::Command::new(&binary)
                .stdin(stdin)
                .output()
                .expect("run");
            assert!(out.status.success());
        }
        times.push(started.elapsed());
    }
    report("bare fork+exec (sequential)", times);
}

fn main() {
    let rounds = std::env::var("VERDICT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    bare(rounds);
    bench("judge, compiled each time", false, rounds);
    bench("judge, build cached", true, rounds);
}
