//! The compile task: the submission (its plain and/or Google Test build, once per submission),
//! then the problem's standard, random and compare programs (once per problem version, cached;
//! design #7 and #14).

use crate::error::JudgeError;
use crate::submission::{BuildResult, SubmissionRun};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};

/// Compilation Error for the submission, Executable Compilation Error for the problem's
/// programs. A Google Test submission is the student's files beside the teacher's test file
/// (design #8): its plain build has no `main`, so the plan says which builds its tasks use.
pub(super) fn compile_task(
    run: &SubmissionRun,
    plain: bool,
    gtest: bool,
) -> Result<JudgeTaskResult, JudgeError> {
    let mut builds = Vec::new();
    if plain {
        builds.push(run.submission_build());
    }
    if gtest {
        builds.push(run.gtest_build());
    }
    for build in builds {
        if let Err(result) = build.built(JudgeStatus::CompilationError, None) {
            return Ok(*result);
        }
    }
    for (role, program) in run.problem_programs() {
        let Some(program) = program else { continue };
        match run.problem_build(role, program) {
            BuildResult::Built(_) => {}
            BuildResult::Failed(log) => {
                let log = format!("the {role} program did not compile: {log}");
                return Ok(JudgeTaskResult::with_status(
                    JudgeStatus::ExecutableCompilationError,
                    log,
                ));
            }
            BuildResult::Broken(reason) => {
                return Ok(JudgeTaskResult::with_status(
                    JudgeStatus::SystemError,
                    format!("{role}: {reason}"),
                ));
            }
        }
    }
    Ok(JudgeTaskResult::with_status(JudgeStatus::Accepted, ""))
}
