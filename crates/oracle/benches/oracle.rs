//! Task Oracle throughput: 1000 trivial python3 function cases in one suite, run by one
//! interpreter per suite (the default) and by one process per case; prints cases/s and the ratio.
//!
//! `cargo bench -p verdict-oracle --bench oracle` (plain main, no criterion). Case counts:
//! `VERDICT_BENCH_CASES` (default 1000) and `VERDICT_BENCH_PER_PROCESS_CASES` (default the same).
#![allow(clippy::print_stdout)]

use serde_json::json;
use std::time::Instant;
use verdict_contracts::oracle::{TestSuite, suite_from_value};
use verdict_oracle::{CancelToken, OracleOptions, run_suite};
use verdict_sandbox::{Sandbox, SandboxConfig};

fn suite(cases: usize) -> TestSuite {
    let test_cases: Vec<_> = (0..cases)
        .map(|i| json!({"name": format!("case {i}"), "input": [i], "expected": i + 1}))
        .collect();
    suite_from_value(json!({
        "deliverable_type": "function",
        "language": "python3",
        "entry_point": "inc",
        "source_files": [{"type": "text", "name": "inc.py", "text": "def inc(x):\n    return x + 1\n"}],
        "timeout_ms": 2000,
        "test_cases": test_cases,
    }))
    .expect("a valid suite")
}

fn rate(sandbox: &Sandbox, cases: usize, options: &OracleOptions) -> f64 {
    let suite = suite(cases);
    let start = Instant::now();
    let report = run_suite(sandbox, &CancelToken::new(), &suite, options).expect("the suite runs");
    let secs = start.elapsed().as_secs_f64();
    assert!(report.summary.all_passed(), "{:?}", report.summary);
    cases as f64 / secs
}

fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sandbox = match Sandbox::new(SandboxConfig::default()) {
        Ok(sb) => sb,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let cases = count("VERDICT_BENCH_CASES", 1000);
    let per_process_cases = count("VERDICT_BENCH_PER_PROCESS_CASES", cases);
    println!("isolation: {:?}", sandbox.isolation());
    let batched = rate(&sandbox, cases, &OracleOptions::default());
    println!("one interpreter per suite: {cases} cases, {batched:.0} cases/s");
    let per_case = OracleOptions {
        max_cases_per_interpreter: 1,
        ..OracleOptions::default()
    };
    let single = rate(&sandbox, per_process_cases, &per_case);
    println!(
        "one process per case:      {per_process_cases} cases, {single:.1} cases/s ({:.1} ms per case)",
        1000.0 / single
    );
    println!("ratio: {:.1}x", batched / single);
}
