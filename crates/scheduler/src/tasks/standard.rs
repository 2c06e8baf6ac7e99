//! Standard tests: run the submission on a test datum (or on no data), classify, compare.

use super::compare::compare_outputs;
use crate::error::JudgeError;
use crate::plan::TestRun;
use crate::submission::SubmissionRun;
use std::path::Path;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::{
    RunLimits, RunRequest, TestFiles, classify_run, read_capture, starved_by_host, timing,
};

/// How much of a failing program's stderr goes into `error_log`.
pub(super) const STDERR_EXCERPT: usize = 2048;

/// How many times longer the wall clock of a starved run's second run is.
const STARVED_WALL_FACTOR: u64 = 4;

/// A standard test.
pub(super) fn standard_task(
    run: &SubmissionRun,
    index: usize,
    test: &TestRun,
) -> Result<JudgeTaskResult, JudgeError> {
    let preparing = timing::phase("test.prepare");
    let run_dir = run.test_dir(&format!("task{index}"))?;
    let files = match test.datum {
        Some(datum) => run.datum_files(datum)?,
        None => TestFiles::default(),
    };
    preparing.end();
    let result = run_test(run, index, test, &files, &run_dir);
    let _discarding = timing::phase("test.discard");
    run.finish_test_dir(run_dir);
    result
}

/// Runs the submission's build on `files` in `run_dir`, classifies the outcome and, when the
/// program ended well, compares its outputs (shared with random tests).
pub(super) fn run_test(
    run: &SubmissionRun,
    index: usize,
    test: &TestRun,
    files: &TestFiles,
    run_dir: &Path,
) -> Result<JudgeTaskResult, JudgeError> {
    let build = match run.built_submission() {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let started = std::time::Instant::now();
    let request = RunRequest {
        build,
        args: &test.args,
        stdin: files.stdin.as_deref(),
        files: &files.inputs,
        empty_dirs: &[],
        limits: test.limits,
    };
    let mut output = run.executor().run(run.cancel(), &request, run_dir)?;
    if starved_by_host(&output.outcome, &test.limits) {
        // Kept off the CPUs by the host's other work, not by its own waiting: run once more
        // with a wall clock long enough for a loaded host to give it its CPU time (the CPU
        // limit decides then), and a second such run is the host's failure, never the
        // program's Time Limit Exceeded (docs/sandbox.md, Wall time).
        let first = output.outcome.clone();
        tracing::warn!(
            task = index,
            wall_ms = first.wall_time_ms,
            cpu_ms = first.cpu_time_ms,
            cpu_wait_ms = first.cpu_wait_ms,
            "a run was starved of CPU by the host: running it again"
        );
        run.executor().remove_box(&output.box_dir);
        let patient = RunLimits {
            wall_ms: test.limits.wall_ms.saturating_mul(STARVED_WALL_FACTOR),
            ..test.limits
        };
        output = run.executor().run(
            run.cancel(),
            &RunRequest {
                limits: patient,
                ..request
            },
            run_dir,
        )?;
        if starved_by_host(&output.outcome, &patient) {
            let o = &output.outcome;
            return Err(JudgeError::HostBusy(format!(
                "the host was too busy to judge this test: twice its wall clock ran out \
                 ({} ms, then {} ms) while it waited for a CPU ({} ms, then {} ms) and its CPU \
                 time stayed under the limit of {} ms ({} ms, then {} ms); not the program's \
                 time",
                first.wall_time_ms,
                o.wall_time_ms,
                first.cpu_wait_ms.unwrap_or(0),
                o.cpu_wait_ms.unwrap_or(0),
                test.limits.time_ms,
                first.cpu_time_ms,
                o.cpu_time_ms
            )));
        }
    }
    let ran = started.elapsed();
    let _checking = timing::phase("test.check");
    let stderr = read_capture(&output.stderr, 64 * 1024)?;
    let outcome = &output.outcome;
    let failure = classify_run(
        outcome,
        &test.limits,
        &String::from_utf8_lossy(&stderr),
        &build.profile.memory_error_patterns,
    );
    let mut result = match failure {
        Some(failure) => {
            let mut log = failure.reason;
            if !stderr.is_empty() && failure.status != JudgeStatus::OutputLimitExceeded {
                log.push_str("\nstderr:\n");
                log.push_str(&stderr.excerpt(STDERR_EXCERPT));
            }
            JudgeTaskResult::with_status(failure.status, log)
        }
        None => {
            let summary = compare_outputs(
                run,
                &test.compare,
                &test.flags,
                files,
                output.produced(),
                run_dir,
            )?;
            let mut result = JudgeTaskResult::with_status(summary.status, summary.log);
            result.score = summary.score;
            result.validator_score = summary.validator_score;
            result.diff = output_diff(summary.status, files, output.produced()).map(Box::new);
            result
        }
    };
    result.run_time = outcome.cpu_time_ms;
    result.memory_used = outcome.peak_memory_kb;
    tracing::debug!(
        task = index,
        run_us = ran.as_micros() as u64,
        judge_us = (started.elapsed() - ran).as_micros() as u64,
        sandbox_wall_ms = outcome.wall_time_ms,
        "task timings"
    );
    Ok(result)
}

/// For a wrong answer or a layout error, the lines around the first difference of the program's
/// standard output from the expected one (the report's `diff`); a file the judge cannot read
/// again only leaves it out.
pub(super) fn output_diff(
    status: JudgeStatus,
    files: &TestFiles,
    output: verdict_scripts::ProducedOutput<'_>,
) -> Option<verdict_contracts::OutputDiff> {
    if !matches!(
        status,
        JudgeStatus::WrongAnswer | JudgeStatus::PresentationError
    ) {
        return None;
    }
    let (name, expected) = files
        .expected
        .iter()
        .find(|(name, _)| TestFiles::is_stdout(name))?;
    match verdict_compare::first_difference(name, output.stdout, expected) {
        Ok(diff) => diff,
        Err(e) => {
            tracing::warn!(error = %e, "the first difference's lines were not read");
            None
        }
    }
}
