//! Interactive tests: the submission beside the problem's interactor (`Submission.compare`),
//! judged by `verdict_scripts::interactive`; and multi-pass tests (`JudgeTask.passes`),
//! plain or interactive, judged by `verdict_scripts::multipass`.

use super::standard::STDERR_EXCERPT;
use crate::error::JudgeError;
use crate::plan::InteractiveRun;
use crate::submission::{BuildResult, SubmissionRun};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::interactive::{InteractiveTest, judge_interactive};
use verdict_scripts::multipass::{MultiPassTest, judge_multipass};
use verdict_scripts::{TestFiles, log_text};

/// An interactive test.
pub(super) fn interactive_task(
    run: &SubmissionRun,
    index: usize,
    test: &InteractiveRun,
) -> Result<JudgeTaskResult, JudgeError> {
    let build = match run.built_submission() {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let Some(program) = run.compare_program() else {
        return Ok(JudgeTaskResult::with_status(
            JudgeStatus::CompareError,
            "run_script \"interactive\" needs Submission.compare (the interactor)",
        ));
    };
    let interactor = match run.problem_build("compare", program) {
        BuildResult::Built(build) => build,
        BuildResult::Failed(log) => {
            return Ok(JudgeTaskResult::with_status(
                JudgeStatus::CompareError,
                format!("the interactor did not compile: {log}"),
            ));
        }
        BuildResult::Broken(reason) => return Err(JudgeError::Unbuildable(reason)),
    };
    let files = match test.datum {
        Some(datum) => run.datum_files(datum)?,
        None => TestFiles::default(),
    };
    let run_dir = run.fresh_dir(&format!("task{index}"))?;
    let runs = InteractiveTest {
        program: build,
        args: &test.args,
        limits: test.limits,
        interactor: &interactor,
        protocol: run.interactor_protocol(program),
        interactor_limits: test.interactor_limits,
        flags: &test.flags,
        memory_error_patterns: &build.profile.memory_error_patterns,
    };
    if let Some(passes) = test.passes {
        let judged = judge_multipass(
            run.executor(),
            run.cancel(),
            &MultiPassTest {
                runs,
                passes,
                relayed: test.relayed,
            },
            &files,
            &run_dir,
        );
        run.discard(run_dir);
        let judged = judged?;
        return Ok(task_result(
            judged.decision,
            &judged.program_stderr,
            &judged.log,
            judged.run_time_ms,
            judged.memory_kb,
        ));
    }
    let judged = judge_interactive(run.executor(), run.cancel(), &runs, &files, &run_dir);
    run.discard(run_dir);
    let judged = judged?;
    Ok(task_result(
        judged.decision,
        &judged.program_stderr,
        &judged.transcript,
        judged.program.cpu_time_ms,
        judged.program.peak_memory_kb,
    ))
}

/// The task's result from the validator's decision: its reason, the program's stderr when it
/// was not accepted, then `exchange` (the transcript, or each pass's); the program's cost.
fn task_result(
    decision: verdict_scripts::interactive::verdict::Decision,
    program_stderr: &[u8],
    exchange: &str,
    run_time_ms: u64,
    memory_kb: u64,
) -> JudgeTaskResult {
    let mut log = decision.reason;
    if decision.status != JudgeStatus::Accepted && !program_stderr.is_empty() {
        log.push_str("\nstderr:\n");
        log.push_str(&log_text(program_stderr, STDERR_EXCERPT));
    }
    log.push('\n');
    log.push_str(exchange);
    let mut result = JudgeTaskResult::with_status(decision.status, log);
    result.score = decision.score;
    result.validator_score = decision.validator_score;
    result.run_time = run_time_ms;
    result.memory_used = memory_kb;
    result
}
