//! Comparing a test's outputs as the plan says: a built-in comparator, or the problem's
//! custom comparator (its build and protocol from the submission run, its box and verdict
//! from `verdict_scripts::compare`).

use crate::error::JudgeError;
use crate::plan::Comparison;
use crate::submission::{BuildResult, SubmissionRun};
use std::path::Path;
use verdict_compare::CompareSummary;
use verdict_scripts::compare::{compare_builtin, compare_default, run_comparator};
use verdict_scripts::{ProducedOutput, TestFiles};

/// The comparison's status, score and log.
pub(super) fn compare_outputs(
    run: &SubmissionRun,
    comparison: &Comparison,
    flags: &[String],
    test: &TestFiles,
    output: ProducedOutput<'_>,
    run_dir: &Path,
) -> Result<CompareSummary, JudgeError> {
    let limits = match comparison {
        Comparison::Builtin(builtin) => return Ok(compare_builtin(*builtin, test, output)?),
        Comparison::Default(Ok(validator)) => return Ok(compare_default(validator, test, output)?),
        Comparison::Default(Err(reason)) => {
            return Ok(CompareSummary::compare_error(format!(
                "validator_flags: {reason}"
            )));
        }
        Comparison::Custom(limits) => *limits,
    };
    let Some(program) = run.compare_program() else {
        return Ok(CompareSummary::compare_error(
            "compare_script \"\" needs Submission.compare",
        ));
    };
    let build = match run.problem_build("compare", program) {
        BuildResult::Built(build) => build,
        BuildResult::Failed(log) => {
            return Ok(CompareSummary::compare_error(format!(
                "the compare program did not compile: {log}"
            )));
        }
        BuildResult::Broken(reason) => return Err(JudgeError::Unbuildable(reason)),
    };
    // The protocol is the problem's: detected once per submission, not per test.
    let protocol = run.compare_protocol(program);
    let summary = run_comparator(
        run.executor(),
        run.cancel(),
        &build,
        protocol,
        flags,
        test,
        output,
        run_dir,
        limits,
    )?;
    Ok(summary)
}
