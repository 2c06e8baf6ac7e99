//! Interactive tests (design #25, docs/interactive.md): the submission and the problem's
//! interactor run side by side, each in its own box with its own limits, the program's stdout
//! relayed to the interactor's stdin and back.
//!
//! - [`run_interactive`] ([`pair`], the sandbox's side) runs the pair: two boxes, four pipes
//!   and a [`relay`] thread that copies and records the exchange ([`transcript`]); each box
//!   holds only its own pipe ends, so either side ending reaches the other as end-of-file or
//!   `SIGPIPE`.
//! - [`interactor_command`] builds the interactor's arguments and files for its dialect:
//!   testlib (`interactor input output [answer]`, exit codes 0/1/2/3/7 with `points`) or the
//!   Kattis / ICPC validator protocol (`validator input answer feedback_dir [flags]`, exit
//!   42/43, `judgemessage.txt`, `score.txt`).
//! - [`judge_interactive`] runs a test and decides its verdict by [`verdict::decide`]'s rules.
//!
//! `run_time` and `memory_used` are the program's alone: the interactor's costs never count.

pub mod pair;
pub mod relay;
pub mod transcript;
pub mod verdict;

pub use pair::{InteractiveOutput, InteractiveRequest, run_interactive};

use crate::ScriptError;
use crate::exec::CancelToken;
use crate::exec::{Executor, ExitKind, RunOutcome};
use crate::judge::classify::{RunFailure, classify_run};
use crate::judge::compile::Build;
use crate::judge::files::TestFiles;
use crate::judge::files::{BoxFile, STDERR_TAIL, read_capped, read_tail};
use crate::judge::run::{RunLimits, RunOutput, RunRequest};
use std::io::Read;
use std::path::Path;
use verdict::{Decision, Ends};
use verdict_compare::{
    ComparatorExit, ComparatorProtocol, CompareOutcome, interpret_kattis, interpret_testlib,
};
use verdict_contracts::{STDIN_ASSET, STDOUT_ASSET};

/// The interactor's arguments and box files for its dialect: `input/<inputs>`,
/// `answer/testdata.out` (empty when the test has none) and an empty `feedback/`.
/// testlib: `input/testdata.in output.txt answer/testdata.out`; Kattis:
/// `input/testdata.in answer/testdata.out feedback/` then `flags`. `answer_host` is where an
/// empty answer file is written when the test has no expected output.
pub fn interactor_command(
    protocol: ComparatorProtocol,
    test: &TestFiles,
    flags: &[String],
    answer_host: &Path,
) -> Result<(Vec<String>, Vec<BoxFile>), ScriptError> {
    let mut files: Vec<BoxFile> = test
        .inputs
        .iter()
        .map(|i| BoxFile {
            name: format!("input/{}", i.name),
            source: i.source.clone(),
        })
        .collect();
    let answer = match test.expected.iter().find(|(n, _)| TestFiles::is_stdout(n)) {
        Some((_, path)) => path.clone(),
        None => {
            std::fs::write(answer_host, b"")
                .map_err(|e| ScriptError::io("write", answer_host, e))?;
            answer_host.to_owned()
        }
    };
    files.push(BoxFile {
        name: format!("answer/{STDOUT_ASSET}"),
        source: answer,
    });
    if !test.inputs.iter().any(|i| i.name == STDIN_ASSET) {
        std::fs::write(answer_host.with_extension("in"), b"")
            .map_err(|e| ScriptError::io("write", answer_host, e))?;
        files.push(BoxFile {
            name: format!("input/{STDIN_ASSET}"),
            source: answer_host.with_extension("in"),
        });
    }
    let input = format!("input/{STDIN_ASSET}");
    let answer = format!("answer/{STDOUT_ASSET}");
    let args = match protocol {
        ComparatorProtocol::Testlib => vec![input, "output.txt".into(), answer],
        ComparatorProtocol::Kattis | ComparatorProtocol::JudgeSystem => {
            let mut args = vec![input, answer, "feedback/".into()];
            args.extend(flags.iter().cloned());
            args
        }
    };
    Ok((args, files))
}

/// An interactive test: the submission's build and limits, the interactor's build, dialect,
/// limits and flags.
#[derive(Debug, Clone)]
pub struct InteractiveTest<'a> {
    /// The submission's build.
    pub program: &'a Build,
    /// `run_args`.
    pub args: &'a [String],
    /// The submission's limits.
    pub limits: RunLimits,
    /// The interactor's build.
    pub interactor: &'a Build,
    /// Its dialect (judge-system is read as Kattis: the home system has no interactors).
    pub protocol: ComparatorProtocol,
    /// Its limits (its wall clock is raised to outlast the program's).
    pub interactor_limits: RunLimits,
    /// Extra arguments for a Kattis validator (`validator_flags`).
    pub flags: &'a [String],
    /// The program's memory-error patterns (its language profile's).
    pub memory_error_patterns: &'a [String],
}

/// The judged test: the decision, the program's run and the transcript.
#[derive(Debug)]
pub struct InteractiveJudgement {
    /// Status, score and reason.
    pub decision: Decision,
    /// The program's outcome (its CPU time is `run_time`, its memory `memory_used`).
    pub program: RunOutcome,
    /// The first lines of the program's stderr, when it failed.
    pub program_stderr: Vec<u8>,
    /// The exchange, rendered.
    pub transcript: String,
}

/// The most of the interactor's messages read.
const MESSAGE_MAX: u64 = 64 * 1024;

/// Runs one interactive test on `test`'s files in `run_dir` and decides its verdict.
pub fn judge_interactive(
    executor: &dyn Executor,
    cancel: &CancelToken,
    test: &InteractiveTest<'_>,
    files: &TestFiles,
    run_dir: &Path,
) -> Result<InteractiveJudgement, ScriptError> {
    let (judged, interactor) = judge_interactive_pass(executor, cancel, test, files, &[], run_dir)?;
    let _ = verdict_sandbox::remove_box_dir(&interactor.box_dir);
    Ok(judged)
}

/// One interactive run (a test, or a pass of a multi-pass test): `extra` are files added to
/// the interactor's box (a multi-pass test's feedback carried from the pass before). The
/// interactor's run is returned with its box still there (its `feedback/` is read by the
/// caller, who removes it).
pub(crate) fn judge_interactive_pass(
    executor: &dyn Executor,
    cancel: &CancelToken,
    test: &InteractiveTest<'_>,
    files: &TestFiles,
    extra: &[BoxFile],
    run_dir: &Path,
) -> Result<(InteractiveJudgement, RunOutput), ScriptError> {
    let answer_host = run_dir.join("empty-answer");
    let (args, mut interactor_files) =
        interactor_command(test.protocol, files, test.flags, &answer_host)?;
    interactor_files.extend(extra.iter().cloned());
    let mut interactor_limits = test.interactor_limits;
    interactor_limits.wall_ms = interactor_limits
        .wall_ms
        .max(test.limits.wall_ms.saturating_add(1000));
    let request = InteractiveRequest {
        program: RunRequest {
            build: test.program,
            args: test.args,
            stdin: None,
            files: &[],
            empty_dirs: &[],
            limits: test.limits,
        },
        interactor: RunRequest {
            build: test.interactor,
            args: &args,
            stdin: None,
            files: &interactor_files,
            empty_dirs: &["feedback"],
            limits: interactor_limits,
        },
        rejecting_exits: test.protocol.rejecting_exits(),
    };
    let output = executor.run_interactive(cancel, &request, run_dir)?;
    let stderr = read_capped(&output.program.stderr, 64 * 1024)?;
    let program_failure: Option<RunFailure> = classify_run(
        &output.program.outcome,
        &test.limits,
        &String::from_utf8_lossy(&stderr),
        test.memory_error_patterns,
    );
    let interactor = interpret(test.protocol, &output.interactor)?;
    // Who ended first: as the relay saw it (causal: it passes every byte and close between
    // the two), else by when each zygote saw its program exit.
    // A program killed by the stop pipe was running when its interactor had already ended
    // (the relay may see the two ends close in either order then).
    let killed_by_stop = output.stopped
        && output.program.outcome.limit_hit.is_none()
        && output.program.outcome.exit
            == ExitKind::Signaled(nix::sys::signal::Signal::SIGKILL as i32);
    let interactor_first = killed_by_stop
        || output.relay.interactor_first().unwrap_or(
            match (
                output.interactor.outcome.ended,
                output.program.outcome.ended,
            ) {
                (Some(i), Some(p)) => i < p,
                _ => false,
            },
        );
    let ends = Ends {
        program_failure,
        program_signal: match output.program.outcome.exit {
            ExitKind::Signaled(s) => Some(s),
            ExitKind::Exited(_) => None,
        },
        interactor,
        interactor_signal: match output.interactor.outcome.exit {
            ExitKind::Signaled(s) if output.interactor.outcome.limit_hit.is_none() => Some(s),
            _ => None,
        },
        interactor_first,
        output_capped: output.relay.output_capped,
        output_capped_after_interactor: output.relay.output_capped_after_interactor,
    };
    let decision = verdict::decide(&ends);
    let mut transcript = output.relay.transcript.render();
    if output.relay.program_output_dropped {
        transcript
            .push_str("\n(the program's last output was not read: the interactor had finished)");
    }
    Ok((
        InteractiveJudgement {
            decision,
            program: output.program.outcome,
            program_stderr: stderr,
            transcript,
        },
        output.interactor,
    ))
}

/// The interactor's (or a Kattis validator's) verdict from its exit and messages (its
/// dialect's rules).
pub(crate) fn interpret(
    protocol: ComparatorProtocol,
    run: &RunOutput,
) -> Result<CompareOutcome, ScriptError> {
    let exit = match (run.outcome.limit_hit, run.outcome.exit) {
        (Some(limit), _) => ComparatorExit::LimitHit(format!("{limit:?}")),
        (None, ExitKind::Exited(code)) => ComparatorExit::Code(code),
        (None, ExitKind::Signaled(sig)) => ComparatorExit::Signal(sig),
    };
    Ok(match protocol {
        ComparatorProtocol::Testlib => {
            let message = read_capped(&run.stderr, MESSAGE_MAX)?;
            let mut outcome = interpret_testlib(&exit, &String::from_utf8_lossy(&message));
            outcome.message = outcome.message.replace("checker", "interactor");
            outcome
        }
        ComparatorProtocol::Kattis | ComparatorProtocol::JudgeSystem => {
            let mut feedback = Vec::new();
            for &name in ComparatorProtocol::Kattis.feedback_files() {
                let path = Path::new("feedback").join(name);
                if let Ok(file) = verdict_sandbox::open_box_file(&run.box_dir, &path) {
                    let mut bytes = Vec::new();
                    let _ = file.take(MESSAGE_MAX).read_to_end(&mut bytes);
                    feedback.push((name.to_owned(), bytes));
                }
            }
            let mut outcome = interpret_kattis(&exit, &feedback);
            outcome.message = outcome.message.replace("validator", "interactor");
            let (tail, cut) = read_tail(&run.stderr, STDERR_TAIL)?;
            outcome.with_stderr_tail(&tail, cut)
        }
    })
}
