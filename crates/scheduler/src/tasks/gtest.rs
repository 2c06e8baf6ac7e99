//! Google Test tasks (design #8, docs/special-tests.md): the submission linked with gtest runs
//! on the task's datum; `verdict_scripts::special::gtest` builds it and scores the run.

use super::special::{SpecialKind, special_task};
use crate::error::JudgeError;
use crate::submission::SubmissionRun;
use verdict_contracts::JudgeTaskResult;
use verdict_scripts::special::gtest::gtest_result;
use verdict_scripts::{RunLimits, TestFiles};

/// A Google Test task.
pub(super) fn gtest_task(
    run: &SubmissionRun,
    index: usize,
    datum: Option<usize>,
    args: &[String],
    limits: RunLimits,
) -> Result<JudgeTaskResult, JudgeError> {
    let kind = SpecialKind {
        tests: "Google Test tasks",
        build: SubmissionRun::gtest_build,
        what: "the sources with Google Test",
        dir: "gtest",
    };
    let data = |_: &_| {
        let test = match datum {
            Some(datum) => run.datum_files(datum)?,
            None => TestFiles::default(),
        };
        Ok(Ok((test, String::new())))
    };
    special_task(run, index, kind, args, limits, data, |output, limits, _| {
        gtest_result(output, limits)
    })
}
