//! Memory tests (design #9, docs/special-tests.md): the debug build of the submission under
//! valgrind, on the data the plan chose; `verdict_scripts::special::valgrind` says what the
//! run means.

use super::random::generate;
use super::special::{SpecialKind, special_task};
use crate::error::JudgeError;
use crate::plan::DataSource;
use crate::submission::SubmissionRun;
use std::path::Path;
use verdict_contracts::JudgeTaskResult;
use verdict_scripts::special::valgrind::memory_result;
use verdict_scripts::{RunLimits, TestFiles};

/// A memory test.
pub(super) fn memory_task(
    run: &SubmissionRun,
    index: usize,
    data: DataSource,
    args: &[String],
    limits: RunLimits,
) -> Result<JudgeTaskResult, JudgeError> {
    let kind = SpecialKind {
        tests: "memory tests",
        build: SubmissionRun::valgrind_build,
        what: "the program (debug build for valgrind)",
        dir: "valgrind",
    };
    let data = |run_dir: &Path| match data {
        DataSource::Datum(datum) => {
            Ok(Ok((run.datum_files(datum)?, format!("test datum {datum}"))))
        }
        DataSource::Random(generator) => {
            Ok(generate(run, &generator, run_dir)?.map(|(test, origin)| {
                let note = format!("the random data of task {}, {origin}", generator.task);
                (test, note)
            }))
        }
        DataSource::Nothing => Ok(Ok((TestFiles::default(), "no input".to_owned()))),
    };
    special_task(run, index, kind, args, limits, data, memory_result)
}
