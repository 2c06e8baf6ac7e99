//! Standard and random tests: run the submission on a test, classify, compare.

use super::compare::{CompareSummary, compare_outputs};
use super::compile::submission_build;
use super::data::{TestFiles, datum_files};
use super::random::{Generated, generate};
use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use verdict_contracts::{JudgeStatus, JudgeTask, JudgeTaskResult};
use verdict_scripts::{RunLimits, RunRequest, classify_run, log_text, read_capped, run_program};

/// How much of a failing program's stderr goes into `error_log`.
const STDERR_EXCERPT: usize = 2048;

/// The run limits of a task (design #1-#4, #19), with the judge's global output cap for `-1`.
pub fn task_limits(task: &JudgeTask, global_output_cap_kb: u64) -> RunLimits {
    RunLimits {
        time_ms: task.time_limit_ms().unwrap_or(1000),
        wall_ms: None,
        memory_kb: task.memory_limit_kb(),
        output_kb: Some(task.file_limit_kb().unwrap_or(global_output_cap_kb)),
        processes: task.proc_limit(),
    }
}

/// A standard or random test.
pub fn standard_task(run: &SubmissionRun, index: usize) -> Result<JudgeTaskResult, JudgeError> {
    let task = &run.submission.judge_tasks[index];
    let build = match submission_build(run).built(JudgeStatus::CompilationError, None) {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let started = std::time::Instant::now();
    let run_dir = run.fresh_dir(&format!("task{index}"))?;
    let (test, origin) = if task.is_random {
        match generate(run, index, &run_dir)? {
            Generated::Test(test, origin) => (test, Some(origin)),
            Generated::Failed(result) => return Ok(result),
        }
    } else {
        let test = match task.testcase() {
            Some(datum) => datum_files(run, datum)?,
            None => TestFiles::default(),
        };
        (test, None)
    };
    let limits = task_limits(task, run.shared.config.global_output_cap_kb);
    let request = RunRequest {
        build,
        args: task.run_args(),
        stdin: test.stdin.as_deref(),
        files: &test.inputs,
        empty_dirs: &[],
        limits,
    };
    let prepared = started.elapsed();
    let output = run_program(&run.shared.sandbox, &request, &run_dir)?;
    let ran = started.elapsed();
    let stderr = read_capped(&output.stderr, 64 * 1024)?;
    let stderr_text = String::from_utf8_lossy(&stderr);
    let outcome = &output.outcome;
    let mut result = if let Some(failure) = classify_run(
        outcome,
        &limits,
        &stderr_text,
        &build.profile.memory_error_patterns,
    ) {
        let mut log = failure.reason;
        if !stderr.is_empty() && failure.status != JudgeStatus::OutputLimitExceeded {
            log.push_str("\nstderr:\n");
            log.push_str(&log_text(&stderr, STDERR_EXCERPT));
        }
        JudgeTaskResult::with_status(failure.status, log)
    } else {
        let CompareSummary { status, score, log } =
            compare_outputs(run, task, &test, &output, &run_dir)?;
        let mut result = JudgeTaskResult::with_status(status, log);
        result.score = score;
        result
    };
    if let Some(origin) = origin {
        // A platform can regenerate the input a random task ran on (docs/judge.md, #7).
        result.error_log = match result.error_log.is_empty() {
            true => format!("random input: {origin}"),
            false => format!("random input: {origin}\n{}", result.error_log),
        };
    }
    result.run_time = outcome.cpu_time_ms;
    result.memory_used = outcome.peak_memory_kb;
    tracing::debug!(
        task = index,
        prepare_us = prepared.as_micros() as u64,
        run_us = (ran - prepared).as_micros() as u64,
        judge_us = (started.elapsed() - ran).as_micros() as u64,
        sandbox_wall_ms = outcome.wall_time_ms,
        "task timings"
    );
    run.discard(run_dir);
    Ok(result)
}
