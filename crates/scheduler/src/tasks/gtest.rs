//! Google Test tasks (design #8, docs/special-tests.md): the submission linked with gtest runs
//! on the task's datum; `verdict_scripts::special::gtest` builds it and scores the run.

use crate::error::JudgeError;
use crate::submission::SubmissionRun;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::special::{c_or_cpp_only, gtest::gtest_result};
use verdict_scripts::{RunLimits, RunRequest, TestFiles};

/// A Google Test task.
pub(super) fn gtest_task(
    run: &SubmissionRun,
    index: usize,
    datum: Option<usize>,
    args: &[String],
    limits: RunLimits,
) -> Result<JudgeTaskResult, JudgeError> {
    if let Some(refused) = c_or_cpp_only(run.source().language, "Google Test tasks") {
        return Ok(refused);
    }
    let build = match run.gtest_build().built(
        JudgeStatus::CompilationError,
        Some("the sources with Google Test"),
    ) {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let run_dir = run.fresh_dir(&format!("task{index}-gtest"))?;
    let test = match datum {
        Some(datum) => run.datum_files(datum)?,
        None => TestFiles::default(),
    };
    let request = RunRequest {
        build,
        args,
        stdin: test.stdin.as_deref(),
        files: &test.inputs,
        empty_dirs: &[],
        limits,
    };
    let output = run.executor().run(run.cancel(), &request, &run_dir)?;
    let result = gtest_result(&output, &limits);
    run.executor().remove_box(&output.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
    Ok(result?)
}
