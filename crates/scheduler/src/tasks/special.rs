//! What the special tests share (docs/special-tests.md): a C or C++ submission's own build
//! (linked with Google Test, or the debug build for valgrind) run once on the task's data in a
//! fresh directory, the outcome judged by `verdict_scripts::special`.

use crate::error::JudgeError;
use crate::submission::{BuildResult, SubmissionRun};
use std::path::Path;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::special::c_or_cpp_only;
use verdict_scripts::{RunLimits, RunOutput, RunRequest, ScriptError, TestFiles};

/// A kind of special test: what it is called, the build it runs and its directory's name.
pub(super) struct SpecialKind {
    /// What its tests are called where another language is refused ("memory tests").
    pub tests: &'static str,
    /// The build it runs, fetched (and compiled on first use) only for C and C++.
    pub build: fn(&SubmissionRun) -> &BuildResult,
    /// What a failed compile of that build is called ("the sources with Google Test").
    pub what: &'static str,
    /// The run directory's label after `task{index}-`.
    pub dir: &'static str,
}

/// The test data and how the log names them, or the task's result when there are none.
pub(super) type SpecialData = Result<(TestFiles, String), JudgeTaskResult>;

/// Runs a special test of `kind`: the data from `data` (given the run directory), one run with
/// `args` and `limits`, whose output `judge` decides given the data's name; the box and the
/// directory are removed after.
pub(super) fn special_task(
    run: &SubmissionRun,
    index: usize,
    kind: SpecialKind,
    args: &[String],
    limits: RunLimits,
    data: impl FnOnce(&Path) -> Result<SpecialData, JudgeError>,
    judge: impl FnOnce(&RunOutput, &RunLimits, &str) -> Result<JudgeTaskResult, ScriptError>,
) -> Result<JudgeTaskResult, JudgeError> {
    if let Some(refused) = c_or_cpp_only(run.source().language, kind.tests) {
        return Ok(refused);
    }
    let build = match (kind.build)(run).built(JudgeStatus::CompilationError, Some(kind.what)) {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let run_dir = run.fresh_dir(&format!("task{index}-{}", kind.dir))?;
    let (test, input_note) = match data(&run_dir)? {
        Ok(data) => data,
        Err(result) => return Ok(result),
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
    let result = judge(&output, &limits, &input_note);
    run.executor().remove_box(&output.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
    Ok(result?)
}
