//! The sandbox's side of an interactive test (`Executor::run_interactive` on the sandbox):
//! the program and the interactor started in two boxes at once, wired crosswise through four
//! pipes and the [`super::relay`], and their ends collected (docs/interactive.md).

use super::relay::{self, RelayEnds, RelayReport};
use crate::ScriptError;
use crate::exec::cancel::CancelToken;
use crate::judge::run::{RunOutput, RunRequest, prepare_box};
use std::path::Path;
use verdict_sandbox::{ExitKind, PipeEnd, Sandbox, SandboxSpec, StdioSpec};

/// The program and the interactor, each a run of its own (their `stdin` is ignored: each
/// reads the other).
#[derive(Debug, Clone)]
pub struct InteractiveRequest<'a> {
    /// The submission.
    pub program: RunRequest<'a>,
    /// The interactor, with its arguments and files.
    pub interactor: RunRequest<'a>,
    /// The interactor's exit codes that reject the program (Kattis 43, testlib 1 and 2): when
    /// the interactor ends with one, a program still running is killed at once (its verdict
    /// is already the interactor's, rule 2 of [`super::verdict::decide`]).
    pub rejecting_exits: &'a [i32],
}

/// Both finished runs and what the relay saw.
#[derive(Debug)]
pub struct InteractiveOutput {
    /// The submission's run (its `stdout` file is empty: its output went to the interactor).
    pub program: RunOutput,
    /// The interactor's run.
    pub interactor: RunOutput,
    /// The exchange.
    pub relay: RelayReport,
    /// The interactor rejected the program and its box was told to stop (killed if it still
    /// ran).
    pub stopped: bool,
}

fn pipe() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd), ScriptError> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| ScriptError::io("make a pipe for", "the interactive test", e.into()))
}

/// Runs the program in `run_dir/box` and the interactor in `run_dir/interactor/box`, at the
/// same time, wired through the relay.
pub fn run_interactive(
    sandbox: &Sandbox,
    cancel: &CancelToken,
    request: &InteractiveRequest<'_>,
    run_dir: &Path,
) -> Result<InteractiveOutput, ScriptError> {
    let (program, program_paths) = prepare_box(&request.program, run_dir)?;
    let mut program = cancel.applied_to(SandboxSpec::from(program));
    let interactor_dir = run_dir.join("interactor");
    std::fs::create_dir_all(&interactor_dir)
        .map_err(|e| ScriptError::io("create", &interactor_dir, e))?;
    let (interactor, interactor_paths) = prepare_box(&request.interactor, &interactor_dir)?;
    let mut interactor = cancel.applied_to(SandboxSpec::from(interactor));
    let (program_in, to_program) = pipe()?;
    let (from_program, program_out) = pipe()?;
    let (interactor_in, to_interactor) = pipe()?;
    let (from_interactor, interactor_out) = pipe()?;
    let (stop, stop_writer) = pipe()?;
    // Closed when the program's run returns: the relay passes its stdout's end on only then.
    let (program_exited, exit_writer) = pipe()?;
    // The program's box is killed when this pipe's write end closes: the interactor rejected
    // it, or the interactor's side is done with whatever it ran (see below).
    let (kill_program, kill_writer) = pipe()?;
    program.stop = Some(PipeEnd::new(kill_program));
    program.stdin = StdioSpec::Pipe(PipeEnd::new(program_in));
    program.stdout = StdioSpec::Pipe(PipeEnd::new(program_out));
    interactor.stdin = StdioSpec::Pipe(PipeEnd::new(interactor_in));
    interactor.stdout = StdioSpec::Pipe(PipeEnd::new(interactor_out));
    let ends = RelayEnds {
        to_program,
        from_program,
        to_interactor,
        from_interactor,
        stop,
        program_exited,
    };
    let cap = request
        .program
        .limits
        .output_kb
        .map(|kb| kb.saturating_mul(1024));
    let (program_outcome, interactor_outcome, relayed) = std::thread::scope(|s| {
        let relay = s.spawn(move || relay::relay(ends, cap));
        let rejecting = request.rejecting_exits;
        // A cancel that kills the program's box kills the interactor's too.
        let other = s.spawn(move || {
            let outcome = sandbox.run(&interactor);
            // A run that failed before taking its pipe ends closes them here.
            drop(interactor);
            let rejected = outcome.as_ref().is_ok_and(|o| {
                o.limit_hit.is_none()
                    && matches!(o.exit, ExitKind::Exited(code) if rejecting.contains(&code))
            });
            // Closed now if it rejected; else kept open until the program ends (it runs on
            // to its own end or limit).
            let keep = (!rejected).then_some(kill_writer);
            (outcome, keep)
        });
        let outcome = sandbox.run(&program);
        drop(program);
        drop(exit_writer);
        let other = other.join().map(|(outcome, keep)| {
            let stopped = keep.is_none();
            drop(keep);
            (outcome, stopped)
        });
        drop(stop_writer);
        (outcome, other, relay.join())
    });
    let (interactor_outcome, stopped) = interactor_outcome.map_err(|_| {
        ScriptError::Toolchain("the interactor's supervising thread panicked".into())
    })?;
    let interactor_outcome = interactor_outcome?;
    let program_outcome = program_outcome?;
    let relayed = relayed
        .map_err(|_| ScriptError::Toolchain("the interactive relay panicked".into()))?
        .map_err(|e| ScriptError::io("relay", run_dir, e))?;
    Ok(InteractiveOutput {
        program: program_paths.with(program_outcome.into()),
        interactor: interactor_paths.with(interactor_outcome.into()),
        relay: relayed,
        stopped,
    })
}
