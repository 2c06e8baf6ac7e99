//! The execution seam: the one interface through which the judge's steps and the Task Oracle
//! run a command (go-judge's envexec: copy in, run, collect), in verdict's own words. A
//! request names a program, its files, limits and streams ([`ProcessSpec`], or the judge's
//! `RunRequest` / [`CompileRequest`]); a run gives a [`RunOutcome`] (how it ended, what it
//! used, the limit hit and its evidence) or an [`ExecError`]; every run takes the
//! [`CancelToken`] that stops it from outside, passed explicitly as go-judge passes its context. No sandbox type is in its signatures: the sandbox implements it in
//! `sandbox.rs` (the adapter, the one file of the seam that names the sandbox's run types),
//! unit tests use the fake. Callers above the scheduler hold a `&dyn Executor`
//! (`Judge::executor`), never the sandbox itself (docs/architecture.md).

pub(crate) mod cancel;
#[cfg(any(test, feature = "fake-executor"))]
pub mod fake;
pub(crate) mod outcome;
mod sandbox;
pub(crate) mod spec;
mod warm;

pub use cancel::{CancelOnDrop, CancelToken};
pub use outcome::{ExecError, ExitKind, IsolationLevel, LimitHit, RunOutcome};
pub use spec::{Limits, ProcessSpec, Stream, WarmScript};
pub use warm::{run_once, run_python_warm};

use crate::ScriptError;
use crate::interactive::pair::{InteractiveOutput, InteractiveRequest};
pub use crate::judge::compile::CompileRequest;
use crate::judge::compile::{Build, CompileOutcome};
use crate::judge::run::{RunOutput, RunRequest};
use crate::language::LanguageProfile;
use std::path::Path;
use std::sync::Arc;
use verdict_contracts::Language;

/// Where a box is seen from inside it: the program's working directory.
pub const BOX_PATH: &str = verdict_sandbox::BOX_PATH;

/// Reads a file a run left in its box, at most `max_bytes` of it (more is an error), never
/// following a link out of the box.
pub fn read_box_file(box_dir: &Path, name: &Path, max_bytes: u64) -> Result<Vec<u8>, ExecError> {
    Ok(verdict_sandbox::read_box_file(box_dir, name, max_bytes)?)
}

/// Runs the judge's commands: copies the files in, runs, collects the outcome and outputs.
pub trait Executor: Send + Sync + std::fmt::Debug {
    /// Runs a built program once in a fresh box under `run_dir` (created; the caller removes it).
    fn run(
        &self,
        cancel: &CancelToken,
        request: &RunRequest<'_>,
        run_dir: &Path,
    ) -> Result<RunOutput, ScriptError>;
    /// Compiles (or syntax-checks) a program into its build directory.
    fn compile(
        &self,
        cancel: &CancelToken,
        request: &CompileRequest<'_>,
    ) -> Result<CompileOutcome, ScriptError>;
    /// Runs a program and its interactor side by side, wired crosswise
    /// ([`crate::interactive::pair::run_interactive`]); an executor that cannot says so.
    fn run_interactive(
        &self,
        cancel: &CancelToken,
        request: &InteractiveRequest<'_>,
        run_dir: &Path,
    ) -> Result<InteractiveOutput, ScriptError> {
        let _ = (cancel, request, run_dir);
        Err(ScriptError::Toolchain(
            "this executor cannot run interactive tests".into(),
        ))
    }

    /// Runs one command exactly as `spec` describes, in its box (the Task Oracle's cases, whose
    /// stdin, box files and captures it arranges itself); an executor that cannot says so.
    fn run_spec(&self, cancel: &CancelToken, spec: ProcessSpec) -> Result<RunOutcome, ExecError> {
        let _ = (cancel, spec);
        Err(ExecError::Unsupported("run a process spec"))
    }

    /// Whether [`Executor::run_warm_python`] serves from warm interpreters (else it runs cold).
    fn has_warm_interpreters(&self) -> bool {
        false
    }

    /// Runs `spec` as `warm`'s python script in a warm interpreter of the slot, where there is
    /// one; by default as [`Executor::run_spec`] does.
    fn run_warm_python(
        &self,
        cancel: &CancelToken,
        warm: &WarmScript,
        spec: ProcessSpec,
    ) -> Result<RunOutcome, ExecError> {
        let _ = warm;
        self.run_spec(cancel, spec)
    }

    /// A directory of the judge's own state, root's alone, where compiled helpers are kept
    /// across processes (the oracle's harness bytecode); `None`: keep them in memory only.
    fn state_dir(&self) -> Option<&Path> {
        None
    }

    /// Starts the boxes of `slots` run slots ahead of the first run (a run makes any still
    /// missing itself); by default nothing to do.
    fn warm(&self, slots: usize) -> Result<(), ExecError> {
        let _ = slots;
        Ok(())
    }

    /// How isolated the runs are and what this host lacks for more (for a health check);
    /// `None` when the executor is not a sandbox.
    fn isolation(&self) -> Option<(IsolationLevel, &[String])> {
        None
    }

    /// Removes a run's box directory when its run is done (what the run's own uid left in it
    /// included, never following a link out of it).
    fn remove_box(&self, box_dir: &Path) {
        let _ = verdict_sandbox::remove_box_dir(box_dir);
    }

    /// Empties a finished run's box directory back to what a fresh one is, for the next run:
    /// `Ok(false)` when it cannot be (the caller removes it).
    fn reset_box(&self, box_dir: &Path) -> Result<bool, ExecError> {
        verdict_sandbox::reset_box_dir(box_dir).map_err(ExecError::from)
    }
}

/// A build made ready elsewhere rather than compiled by this run (a tool: an analyser, a
/// checker; a program built beforehand): its files in `dir`, run with `profile`'s run command
/// and these template values.
pub fn tool_build(
    dir: &Path,
    language: Language,
    profile: LanguageProfile,
    vars: crate::TemplateVars,
) -> Build {
    Build {
        dir: dir.to_owned(),
        language,
        profile: Arc::new(profile),
        vars,
    }
}
