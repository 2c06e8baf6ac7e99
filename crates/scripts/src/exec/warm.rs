//! A python build's run served by the executor's warm interpreter of the slot, where it has
//! one (docs/sandbox.md, "A warm interpreter").

use super::{CancelToken, Executor, WarmScript};
use crate::ScriptError;
use crate::judge::files::{join_inside, open_up_dirs};
use crate::judge::run::{
    PYTHON_WARM_RUNNER, PYTHON_WARM_RUNNER_PATH, RunOutput, RunRequest, prepare_box, python_warm,
};
use std::path::Path;
use verdict_contracts::Language;

/// Runs a python build as [`crate::run_program`] does, served by `executor`'s warm interpreter of
/// the slot where it has one (the same box, limits and measurement; the interpreter's start is
/// paid once per slot), else cold. `warm` comes from [`crate::python_warm`].
pub fn run_python_warm(
    executor: &dyn Executor,
    cancel: &CancelToken,
    request: &RunRequest<'_>,
    run_dir: &Path,
    warm: &WarmScript,
) -> Result<RunOutput, ScriptError> {
    let (mut spec, paths) = prepare_box(request, run_dir)?;
    let runner = join_inside(&paths.box_dir, PYTHON_WARM_RUNNER_PATH)?;
    if let Some(dir) = runner.parent() {
        std::fs::create_dir_all(dir).map_err(|e| ScriptError::io("create", dir, e))?;
    }
    std::fs::write(&runner, PYTHON_WARM_RUNNER)
        .map_err(|e| ScriptError::io("write", &runner, e))?;
    open_up_dirs(&paths.box_dir)?;
    // `python3 <flags> <main> <args>` becomes `python3 <flags> <runner> <main> <args>`.
    let flags = warm.flags.len();
    if spec.args.len() < flags {
        return Err(ScriptError::Toolchain(
            "the python run command has no main file".into(),
        ));
    }
    spec.args.insert(flags, PYTHON_WARM_RUNNER_PATH.into());
    let running = crate::timing::phase("run.sandbox");
    let outcome = executor.run_warm_python(cancel, warm, spec)?;
    running.end();
    Ok(paths.with(outcome))
}

/// Runs a built program once in a fresh box under `run_dir`: what a caller that runs one program
/// (another tool's wire protocol, a dataset's sample) needs from the seam. A Python 3 build is
/// served by the executor's warm interpreter of the slot where it has one and `may_warm` (a
/// caller whose interpreter arguments change what python runs passes `false`), else it runs
/// cold, with the same box, limits and measurement either way.
pub fn run_once(
    executor: &dyn Executor,
    cancel: &CancelToken,
    request: &RunRequest<'_>,
    run_dir: &Path,
    may_warm: bool,
) -> Result<RunOutput, ScriptError> {
    let build = request.build;
    let warm =
        (may_warm && build.language == Language::Python3 && executor.has_warm_interpreters())
            .then(|| python_warm(build))
            .flatten();
    match &warm {
        Some(warm) => run_python_warm(executor, cancel, request, run_dir, warm),
        None => executor.run(cancel, request, run_dir),
    }
}
