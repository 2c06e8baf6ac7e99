//! Memory tests (design #9, docs/special-tests.md): the debug build of the submission under
//! valgrind, on the data the plan chose; `verdict_scripts::special::valgrind` says what the
//! run means.

use super::random::generate;
use crate::error::JudgeError;
use crate::plan::DataSource;
use crate::submission::SubmissionRun;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::special::{c_or_cpp_only, valgrind::memory_result};
use verdict_scripts::{RunLimits, RunRequest, TestFiles};

/// A memory test.
pub(super) fn memory_task(
    run: &SubmissionRun,
    index: usize,
    data: DataSource,
    args: &[String],
    limits: RunLimits,
) -> Result<JudgeTaskResult, JudgeError> {
    if let Some(refused) = c_or_cpp_only(run.source().language, "memory tests") {
        return Ok(refused);
    }
    let build = match run.valgrind_build().built(
        JudgeStatus::CompilationError,
        Some("the program (debug build for valgrind)"),
    ) {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let run_dir = run.fresh_dir(&format!("task{index}-valgrind"))?;
    let (test, input_note) = match data {
        DataSource::Datum(datum) => (run.datum_files(datum)?, format!("test datum {datum}")),
        DataSource::Random(generator) => match generate(run, &generator, &run_dir)? {
            Ok((test, origin)) => (
                test,
                format!("the random data of task {}, {origin}", generator.task),
            ),
            Err(result) => return Ok(result),
        },
        DataSource::Nothing => (TestFiles::default(), "no input".to_owned()),
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
    let result = memory_result(&output, &limits, &input_note);
    run.executor().remove_box(&output.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
    Ok(result?)
}
