//! Benchmark (not a test): batches of candidates judged by verdict (every candidate fully
//! sandboxed) against naive harnesses measured in the same run, in alternating rounds:
//!
//! 1. finite function candidates (P problems x 8 candidates, 5 tests each; among each problem's
//!    candidates 4 right, 2 wrong, 1 raising, 1 `os._exit(0)`): a `suite` batch per problem with
//!    `stop_at_first_failure`, against one unsandboxed `python3` process per candidate with the
//!    tests appended as asserts (what trainers' in-process reward functions do);
//! 2. looping candidates (`while True: pass`, 5 tests, 500 ms per test): the same two shapes;
//! 3. C++ stdin/stdout, 20 candidates x 10 tests: a `programming` batch, against a caller that
//!    compiles and runs each test (one `g++` per test, as verl's one-call-per-test does).
//!
//! Every naive harness runs as many candidates at once as verdict has run permits. Each row
//! prints both wall times, their ratio (verdict / naive; below 1 is verdict faster) and how many
//! candidates each side judged right. SandboxFusion's rows need its tree and server
//! (`docs/batches.md`, "Speed"); without `VERDICT_SANDBOXFUSION_URL` they print as absent.
//!
//! Run as root: `cargo bench -p verdict-scheduler --bench batch`
//! (`VERDICT_BENCH_ROUNDS=N`, default 3; `VERDICT_BENCH_PROBLEMS=P`, default 25).

#![allow(clippy::print_stdout)]

use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use verdict_contracts::batch::{BatchReport, parse_batch};
use verdict_scheduler::{BatchCancel, BatchJudge, Judge, JudgeConfig};
use verdict_scripts::oracle::OracleOptions;

const TESTS: usize = 5;

/// One candidate of a function problem and whether it is right.
struct FnCandidate {
    code: String,
    right: bool,
}

/// Problem `p`: `f(x) = x * (p + 2) + p`, and its 8 candidates (each text distinct, so that
/// none is deduplicated).
fn function_problem(p: usize) -> (Vec<(i64, i64)>, Vec<FnCandidate>) {
    let k = p as i64 + 2;
    let tests: Vec<(i64, i64)> = (0..TESTS as i64)
        .map(|x| (x * 3 + 1, (x * 3 + 1) * k + p as i64))
        .collect();
    let mut candidates = Vec::new();
    for v in 0..4 {
        candidates.push(FnCandidate {
            code: format!("# right {p}/{v}\ndef f(x):\n    return x * {k} + {p}\n"),
            right: true,
        });
    }
    for v in 0..2 {
        candidates.push(FnCandidate {
            code: format!(
                "# wrong {p}/{v}\ndef f(x):\n    return x * {k} + {p} + {}\n",
                v + 1
            ),
            right: false,
        });
    }
    candidates.push(FnCandidate {
        code: format!("# raises {p}\ndef f(x):\n    raise ValueError({p})\n"),
        right: false,
    });
    candidates.push(FnCandidate {
        code: format!("# exits {p}\nimport os\ndef f(x):\n    os._exit(0)\n"),
        right: false,
    });
    (tests, candidates)
}

fn suite_batch(tests: &[(i64, i64)], codes: &[&str], timeout_ms: u64) -> Value {
    let cases: Vec<Value> = tests
        .iter()
        .enumerate()
        .map(|(i, (x, y))| json!({"name": format!("t{i}"), "input": [x], "expected": y}))
        .collect();
    let candidates: Vec<Value> = codes
        .iter()
        .enumerate()
        .map(|(i, code)| json!({"id": format!("c{i}"), "code": code}))
        .collect();
    json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "f", "timeout_ms": timeout_ms, "test_cases": cases},
        "candidates": candidates,
        "options": {"stop_at_first_failure": true}
    })
}

/// Runs `jobs` on `workers` threads; returns how many returned `true`.
fn pool(workers: usize, jobs: Vec<Box<dyn FnOnce() -> bool + Send>>) -> usize {
    let jobs = Mutex::new(jobs);
    let right = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let job = jobs.lock().unwrap_or_else(|e| e.into_inner()).pop();
                    let Some(job) = job else { break };
                    if job() {
                        right.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    right.into_inner()
}

/// The naive harness: the candidate and its tests as asserts in one unsandboxed `python3`
/// process, passed when it exits 0 within the time of all its tests.
fn naive_python(code: &str, tests: &[(i64, i64)], timeout: Duration) -> bool {
    let mut program = code.to_owned();
    for (x, y) in tests {
        program.push_str(&format!("assert f({x}) == {y}\n"));
    }
    let Ok(mut child) = Command::new("/usr/bin/python3")
        .args(["-c", &program])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    wait_within(&mut child, timeout).is_some_and(|ok| ok)
}

/// Waits for `child` at most `timeout` (killing it then): `Some(exited 0)`, `None` when killed.
fn wait_within(child: &mut std::process::Child, timeout: Duration) -> Option<bool> {
    let until = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.success()),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

struct Row {
    label: String,
    verdict: Vec<Duration>,
    naive: Vec<Duration>,
    verdict_right: usize,
    naive_right: usize,
    total: usize,
}

impl Row {
    fn print(&self) {
        let median = |v: &[Duration]| {
            let mut v = v.to_vec();
            v.sort();
            v[v.len() / 2]
        };
        let ratios: Vec<f64> = self
            .verdict
            .iter()
            .zip(&self.naive)
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        let mut sorted = ratios.clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "| {} | {:.2} s, {}/{} right | {:.2} s, {}/{} right | {:.2}x ({:.2}-{:.2}) |",
            self.label,
            median(&self.verdict).as_secs_f64(),
            self.verdict_right,
            self.total,
            median(&self.naive).as_secs_f64(),
            self.naive_right,
            self.total,
            sorted[sorted.len() / 2],
            sorted[0],
            sorted[sorted.len() - 1],
        );
    }
}

fn run_batch(rt: &tokio::runtime::Runtime, batches: &BatchJudge, batch: &Value) -> BatchReport {
    let batch = parse_batch(&batch.to_string()).expect("a valid batch");
    rt.block_on(batches.run(batch, None, BatchCancel::new()))
        .expect("the batch runs")
}

fn main() {
    let rounds: usize = env_number("VERDICT_BENCH_ROUNDS", 3);
    let problems: usize = env_number("VERDICT_BENCH_PROBLEMS", 25);
    let dir = tempfile::tempdir().expect("temp dir");
    let config = JudgeConfig {
        work_dir: dir.path().join("work"),
        cache_dir: dir.path().join("cache"),
        ..JudgeConfig::default()
    };
    let workers = config.parallelism.max(1);
    let judge = match Judge::new(config) {
        Ok(judge) => judge,
        Err(err) => {
            println!("skipped: {err}");
            return;
        }
    };
    // Results are kept for identical candidates across batches: each round's batches must
    // judge again, so each round gets a judge of its own result cache.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let functions: Vec<_> = (0..problems).map(function_problem).collect();
    let mut rows = vec![
        Row::new(format!(
            "{problems} problems x 8 finite function candidates, {TESTS} tests"
        )),
        Row::new(format!(
            "16 looping function candidates, {TESTS} tests of 500 ms"
        )),
        Row::new("C++ A+B, 20 candidates x 10 tests".to_owned()),
    ];
    for round in 0..=rounds {
        let batches = BatchJudge::new(judge.clone(), OracleOptions::default());
        let keep = round > 0; // round 0 warms caches and interpreters
        // 1. Finite function candidates.
        let started = Instant::now();
        let mut right = 0;
        for (tests, candidates) in &functions {
            let codes: Vec<&str> = candidates.iter().map(|c| c.code.as_str()).collect();
            let report = run_batch(&rt, &batches, &suite_batch(tests, &codes, 1000));
            right += report
                .results
                .iter()
                .zip(candidates)
                .filter(|(r, c)| r.infra_error.is_none() && r.passed == c.right)
                .count();
        }
        let verdict = started.elapsed();
        let started = Instant::now();
        let jobs: Vec<Box<dyn FnOnce() -> bool + Send>> = functions
            .iter()
            .flat_map(|(tests, candidates)| {
                candidates.iter().map(move |c| {
                    let (code, tests, want) = (c.code.clone(), tests.clone(), c.right);
                    Box::new(move || {
                        naive_python(&code, &tests, Duration::from_millis(5000)) == want
                    }) as Box<dyn FnOnce() -> bool + Send>
                })
            })
            .collect();
        let naive_right = pool(workers, jobs);
        let naive = started.elapsed();
        rows[0].add(keep, verdict, naive, right, naive_right, problems * 8);

        // 2. Looping candidates.
        let (tests, _) = function_problem(0);
        let loops: Vec<String> = (0..16)
            .map(|i| format!("# loop {round}/{i}\ndef f(x):\n    while True:\n        pass\n"))
            .collect();
        let codes: Vec<&str> = loops.iter().map(String::as_str).collect();
        let started = Instant::now();
        let report = run_batch(&rt, &batches, &suite_batch(&tests, &codes, 500));
        let verdict = started.elapsed();
        let right = report
            .results
            .iter()
            .filter(|r| !r.passed && r.infra_error.is_none())
            .count();
        let started = Instant::now();
        let jobs: Vec<Box<dyn FnOnce() -> bool + Send>> = loops
            .iter()
            .map(|code| {
                let (code, tests) = (code.clone(), tests.clone());
                // The naive harness's budget: every test's limit.
                Box::new(move || {
                    !naive_python(&code, &tests, Duration::from_millis(500 * TESTS as u64))
                }) as Box<dyn FnOnce() -> bool + Send>
            })
            .collect();
        let naive_right = pool(workers, jobs);
        let naive = started.elapsed();
        rows[1].add(keep, verdict, naive, right, naive_right, loops.len());

        // 3. C++, compiled once per candidate against once per test.
        let (batch, programs, data) = cpp_batch(round);
        let started = Instant::now();
        let report = run_batch(&rt, &batches, &batch);
        let verdict = started.elapsed();
        let right = report
            .results
            .iter()
            .zip(&programs)
            .filter(|(r, (_, want))| r.infra_error.is_none() && r.passed == *want)
            .count();
        let started = Instant::now();
        let jobs: Vec<Box<dyn FnOnce() -> bool + Send>> = programs
            .iter()
            .map(|(code, want)| {
                let (code, data, want) = (code.clone(), data.clone(), *want);
                Box::new(move || naive_cpp_per_test(&code, &data) == want)
                    as Box<dyn FnOnce() -> bool + Send>
            })
            .collect();
        let naive_right = pool(workers, jobs);
        let naive = started.elapsed();
        rows[2].add(keep, verdict, naive, right, naive_right, programs.len());
    }
    println!(
        "| workload | verdict batch (sandboxed) | naive harness (unsandboxed) | verdict / naive, median (range) |"
    );
    println!("|---|---|---|---|");
    for row in &rows {
        row.print();
    }
    match std::env::var("VERDICT_SANDBOXFUSION_URL") {
        Ok(url) => println!("SandboxFusion at {url}: rows not measured by this bench yet (absent)"),
        Err(_) => println!("SandboxFusion: absent (no VERDICT_SANDBOXFUSION_URL)"),
    }
}

impl Row {
    fn new(label: String) -> Row {
        Row {
            label,
            verdict: Vec::new(),
            naive: Vec::new(),
            verdict_right: 0,
            naive_right: 0,
            total: 0,
        }
    }

    fn add(
        &mut self,
        keep: bool,
        verdict: Duration,
        naive: Duration,
        vr: usize,
        nr: usize,
        total: usize,
    ) {
        if !keep {
            return;
        }
        self.verdict.push(verdict);
        self.naive.push(naive);
        (self.verdict_right, self.naive_right, self.total) = (vr, nr, total);
    }
}

/// A programming batch of 20 C++ candidates (16 right, 4 wrong; distinct per round) over 10
/// tests, the candidates with whether each is right, and the tests as (input, output).
/// A program and whether it is right; a test's input and output.
type Programs = Vec<(String, bool)>;
type Tests = Vec<(String, String)>;

fn cpp_batch(round: usize) -> (Value, Programs, Tests) {
    let data: Vec<(String, String)> = (0..10i64)
        .map(|k| {
            (
                format!("{} {}\n", k * 7919, k * 104_729),
                format!("{}\n", k * 7919 + k * 104_729),
            )
        })
        .collect();
    let programs: Vec<(String, bool)> = (0..20)
        .map(|i| {
            let right = i % 5 != 4;
            let op = if right { "a + b" } else { "a - b" };
            (
                format!("// {round}/{i}\n#include <cstdio>\nint main(){{long long a,b;std::scanf(\"%lld %lld\",&a,&b);std::printf(\"%lld\\n\",{op});}}\n"),
                right,
            )
        })
        .collect();
    let mut judge_tasks =
        vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
    let mut test_data = Vec::new();
    for (k, (input, output)) in data.iter().enumerate() {
        judge_tasks.push(json!({"check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "testcase_id": k, "depends_on": 0,
            "depends_cond": "ACCEPTED", "time_limit": 1000, "memory_limit": 65536}));
        test_data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": input}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": output}]}));
    }
    let candidates: Vec<Value> = programs
        .iter()
        .enumerate()
        .map(|(i, (code, _))| json!({"id": format!("p{i}"), "language": "cpp", "code": code}))
        .collect();
    let batch = json!({
        "problem": {"kind": "programming", "category": "bench", "prob_id": "cpp-a+b",
                    "updated_at": 1, "judge_tasks": judge_tasks, "test_data": test_data},
        "candidates": candidates,
        "options": {"stop_at_first_failure": true}
    });
    (batch, programs, data)
}

/// The per-test recompiling caller: for each test, compile the source, then run it on the
/// test's input and compare its output (trimmed); passed when every test matched.
fn naive_cpp_per_test(code: &str, data: &[(String, String)]) -> bool {
    let Ok(dir) = tempfile::tempdir() else {
        return false;
    };
    let source = dir.path().join("main.cpp");
    if std::fs::write(&source, code).is_err() {
        return false;
    }
    for (input, output) in data {
        let binary = dir.path().join("main");
        let compiled = Command::new("g++")
            .args(["-O2", "-o"])
            .arg(&binary)
            .arg(&source)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !compiled || !run_matches(&binary, input, output) {
            return false;
        }
    }
    true
}

fn run_matches(binary: &Path, input: &str, output: &str) -> bool {
    let Ok(mut child) = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    child
        .wait_with_output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == output.trim())
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
