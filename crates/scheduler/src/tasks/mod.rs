//! One module per kind of judge task; `execute` picks the kind and turns judge failures
//! into `System Error` results with their reason.

pub mod compare;
pub mod compile;
pub mod data;
pub mod gtest;
pub mod random;
pub mod standard;
pub mod static_check;
pub mod valgrind;

use crate::pipeline::SubmissionRun;
use verdict_contracts::{CheckScript, JudgeStatus, JudgeTaskResult, RunScript};

/// Runs task `index` of the submission (blocking) and returns its result.
pub(crate) fn execute(run: &SubmissionRun, index: usize) -> JudgeTaskResult {
    let task = &run.submission.judge_tasks[index];
    let result = match (task.check_script, task.run_script) {
        (CheckScript::Compile, _) => compile::compile_task(run),
        (CheckScript::Standard, Some(RunScript::Standard) | None) => {
            standard::standard_task(run, index)
        }
        (CheckScript::Static, _) => static_check::static_task(run, index),
        (CheckScript::Standard, Some(RunScript::Gtest)) => gtest::gtest_task(run, index),
        (CheckScript::Standard, Some(RunScript::Valgrind)) => valgrind::valgrind_task(run, index),
    };
    result.unwrap_or_else(|err| {
        tracing::warn!(sub_id = %run.submission.sub_id, task = index, "system error: {err}");
        JudgeTaskResult::with_status(JudgeStatus::SystemError, err.to_string())
    })
}
