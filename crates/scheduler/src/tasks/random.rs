//! Random tests (design #7): the data come from the problem's `random` and `standard`
//! programs (`verdict_scripts::generate`), then the test runs as a standard one. The seed and
//! the generator's command line head the task's `error_log`.

use super::standard::run_test;
use crate::error::JudgeError;
use crate::plan::{Generator, TestRun};
use crate::submission::SubmissionRun;
use std::path::Path;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::{Build, Generated, TestFiles};

/// A random test.
pub(super) fn random_task(
    run: &SubmissionRun,
    index: usize,
    test: &TestRun,
    generator: &Generator,
) -> Result<JudgeTaskResult, JudgeError> {
    if let Err(result) = run.built_submission() {
        return Ok(*result);
    }
    let run_dir = run.test_dir(&format!("task{index}"))?;
    let result = match generate(run, generator, &run_dir)? {
        Ok((files, origin)) => {
            let mut result = run_test(run, index, test, &files, &run_dir)?;
            // A platform can regenerate the input a random task ran on (docs/judge.md, #7).
            result.error_log = match result.error_log.is_empty() {
                true => format!("random input: {origin}"),
                false => format!("random input: {origin}\n{}", result.error_log),
            };
            result
        }
        Err(result) => result,
    };
    run.finish_test_dir(run_dir);
    Ok(result)
}

/// The random data of `generator.task` in `dir` and where they came from, or the task's
/// result when they could not be made (Random Gen Error; System Error for a broken build).
pub(super) fn generate(
    run: &SubmissionRun,
    generator: &Generator,
    dir: &Path,
) -> Result<Result<(TestFiles, String), JudgeTaskResult>, JudgeError> {
    let seed_only = format!("random input: seed {}", generator.seed);
    let failed = |status, log: String| {
        Ok(Err(JudgeTaskResult::with_status(
            status,
            format!("{log}\n{seed_only}"),
        )))
    };
    let Some((random, standard)) = run.generator_programs() else {
        let why = "a random test needs both the random and the standard program";
        return failed(JudgeStatus::RandomGenError, why.to_owned());
    };
    let build_of = |role: &str, program| -> Result<Build, Box<JudgeTaskResult>> {
        let what = format!("the {role} program");
        run.problem_build(role, program)
            .built(JudgeStatus::RandomGenError, Some(&what))
            .cloned()
    };
    let random = match build_of("random", random) {
        Ok(build) => build,
        Err(result) => return failed(result.status, result.error_log),
    };
    let standard = match build_of("standard", standard) {
        Ok(build) => build,
        Err(result) => return failed(result.status, result.error_log),
    };
    let generated = verdict_scripts::generate(
        run.executor(),
        run.cancel(),
        &random,
        &standard,
        generator.seed,
        generator.limits,
        dir,
    )?;
    Ok(match generated {
        Generated::Test(files, origin) => Ok((files, origin)),
        Generated::Failed(reason) => Err(JudgeTaskResult::with_status(
            JudgeStatus::RandomGenError,
            reason,
        )),
    })
}
