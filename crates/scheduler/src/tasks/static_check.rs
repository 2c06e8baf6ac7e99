//! Static tests (design #10, docs/special-tests.md): the chosen analyser runs in the sandbox
//! on the submission's files; `verdict_scripts::special::static_analysis` chooses it, builds
//! its command and reads its findings.

use crate::error::JudgeError;
use crate::submission::SubmissionRun;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::special::c_or_cpp_only;
use verdict_scripts::special::static_analysis::StaticCheck;
use verdict_scripts::{RunLimits, RunRequest, tool_build};

/// A static test.
pub(super) fn static_task(
    run: &SubmissionRun,
    index: usize,
    limits: RunLimits,
) -> Result<JudgeTaskResult, JudgeError> {
    let source = run.source();
    if let Some(refused) = c_or_cpp_only(source.language, "static tests") {
        return Ok(refused);
    }
    let check = match StaticCheck::new(run.config().special.static_analyser, source) {
        Ok(check) => check,
        Err(reason) => {
            return Ok(JudgeTaskResult::with_status(
                JudgeStatus::SystemError,
                reason,
            ));
        }
    };
    let (sources_dir, _) = run.submission_files(&format!("task{index}-static-src"))?;
    let build = tool_build(
        &sources_dir,
        source.language,
        check.profile.clone(),
        check.vars.clone(),
    );
    let run_dir = run.fresh_dir(&format!("task{index}-static"))?;
    let request = RunRequest::new(&build, limits);
    let output = run.executor().run(run.cancel(), &request, &run_dir);
    let _ = std::fs::remove_dir_all(&sources_dir);
    let output = output?;
    let result = check.result(&output, &limits);
    run.executor().remove_box(&output.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
    Ok(result?)
}
