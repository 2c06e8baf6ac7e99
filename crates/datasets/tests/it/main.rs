//! Integration tests of verdict-datasets: real candidates judged in the real sandbox, right and
//! wrong ones and the reward hacks that must fail (exiting early, forged output, always-equal
//! objects, rewritten test files).
//!
//! Tests that need the sandbox print `skipped: <reason>` when it cannot be set up, unless
//! `VERDICT_REQUIRE_SANDBOX=1`, under which they fail instead.

mod assertion;
mod formats;
mod function;
mod humaneval_x;
mod mbxp;
mod multiple;
mod stdio;

use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;
use verdict_datasets::jsonl::parse_records;
use verdict_datasets::samples::samples_from;
use verdict_datasets::{EvalOptions, Format, Problem, SampleResult, evaluate};
use verdict_oracle::Executor;
use verdict_scheduler::Judge;

/// A runtime and the shared judge (its sandbox, run permits), or `None` as the test kit's
/// `skip_or_fail` says.
pub fn judge_env() -> Option<(&'static tokio::runtime::Runtime, &'static Judge)> {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    let judge = verdict_testkit::judge()?;
    Some((RUNTIME.get_or_init(verdict_testkit::runtime), judge))
}

/// The shared judge's executor (its sandbox), or `None` when it cannot be set up here.
pub fn sandbox() -> Option<&'static dyn Executor> {
    judge_env().map(|(_, judge)| judge.executor())
}

/// Says a test was skipped (the test kit's words), on stdout as the test harness captures it.
#[allow(clippy::print_stdout)]
fn skipped(why: &str) {
    println!("skipped: {why}");
}

/// The problem of one dataset record, read by the format its fields name.
pub fn problem(record: &Value) -> Problem {
    let records = parse_records(Path::new("dataset.jsonl"), &record.to_string()).expect("record");
    let format = Format::detect(&records[0]).expect("a known format");
    format
        .read(Path::new("dataset.jsonl"), 0, &records[0])
        .expect("the record reads")
}

/// Judges each sample record against `problem`, as `judge eval` does (one batch); `None` when
/// the sandbox is unavailable.
pub fn judge(problem: &Problem, samples: &[Value], timeout_ms: u64) -> Option<Vec<SampleResult>> {
    let (runtime, judge) = judge_env()?;
    // A language whose toolchain this machine lacks is skipped, unless VERDICT_REQUIRE_LANGS
    // (CI's list) names it.
    let language = problem.language();
    if let Some(profile) = judge.profiles().get(language) {
        let missing = verdict_scripts::missing_programs(profile);
        let required = std::env::var("VERDICT_REQUIRE_LANGS")
            .unwrap_or_default()
            .split(',')
            .any(|l| l.trim() == language.as_str());
        if !missing.is_empty() && !required {
            skipped(&format!(
                "{} ({language}): toolchain missing: {}",
                problem.task_id,
                missing.join(", ")
            ));
            return None;
        }
    }
    let text: Vec<String> = samples.iter().map(Value::to_string).collect();
    let records =
        parse_records(Path::new("samples.jsonl"), &text.join("\n")).expect("sample records");
    let samples = samples_from(Path::new("samples.jsonl"), records).expect("samples");
    let options = EvalOptions {
        timeout_ms,
        ..EvalOptions::default()
    };
    let programs: Vec<String> = samples.iter().map(|s| s.program(problem)).collect();
    Some(runtime.block_on(evaluate(judge, problem, &programs, &options)))
}

/// Judges a right and a wrong completion of `problem` (samples of `task_id`) and checks only
/// the right one passes; their results, `None` when skipped.
pub fn right_passes_wrong_fails(
    problem: &Problem,
    task_id: Value,
    [right, wrong]: [&str; 2],
    timeout_ms: u64,
) -> Option<Vec<SampleResult>> {
    let samples = [right, wrong].map(|c| serde_json::json!({"task_id": task_id, "completion": c}));
    let results = judge(problem, &samples, timeout_ms)?;
    assert!(results[0].passed, "{results:#?}");
    assert!(!results[1].passed, "{results:#?}");
    Some(results)
}

/// Checks that `result` failed, its result line starting with `failed: <at>`.
pub fn assert_failed_at(result: &SampleResult, at: &str) {
    let want = format!("failed: {at}");
    assert!(result.result.starts_with(&want), "{result:#?}");
}
