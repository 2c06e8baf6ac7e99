//! Multi-pass tests (docs/interactive.md, "Multi-pass tests"; the package format's
//! `multi-pass` type): the submission runs, its Kattis validator (or interactor) judges the
//! pass, and when it accepted with a `nextpass.in` in its feedback directory the submission
//! runs again, in fresh boxes, with that file as its input, up to the test's `passes`.
//!
//! - Each pass is a plain run then the validator on its output (`relayed: false`), or an
//!   interactive run ([`crate::interactive`], `relayed: true`): the same loop serves both.
//! - The validator's input file (its first argument) is the pass's input, as BAPCtools and
//!   DOMjudge give it; its answer file is the test's throughout.
//! - Every file of the validator's `feedback/` but `nextpass.in` is carried into the next
//!   pass's validator box (the format: they persist between passes), so a validator keeps
//!   state there and appends to `judgemessage.txt`.
//! - A `nextpass.in` with any exit but 42, or after the last allowed pass, is the judge's
//!   error (`Compare Error`), as the format says; a pass that is not accepted ends the test
//!   with its verdict.
//! - The time and memory limits apply to each pass; `run_time` and `memory_used` are the
//!   largest of any pass (the limit is per pass, so the largest is what it is measured
//!   against).

use crate::exec::CancelToken;
use crate::exec::ExitKind;
use crate::interactive::{
    InteractiveTest, interactor_command, interpret, judge_interactive_pass, verdict::Decision,
};
use crate::judge::classify::classify_run;
use crate::judge::files::TestFiles;
use crate::judge::files::{BoxFile, read_capped};
use crate::judge::run::RunRequest;
use crate::{Executor, ScriptError};
use std::io::Read;
use std::path::{Path, PathBuf};
use verdict_compare::{ComparatorProtocol, CompareSummary};
use verdict_contracts::{JudgeStatus, STDIN_ASSET};

/// The most bytes of feedback files carried from one pass to the next (the format's
/// `validation_output` default, 8 MiB); more is the validator's failure.
pub const CARRY_MAX: u64 = 8 * 1024 * 1024;

/// The largest `nextpass.in` read (64 MiB); a larger one is the validator's failure.
pub const NEXT_INPUT_MAX: u64 = 64 * 1024 * 1024;

/// How many passes' transcripts an interactive multi-pass test keeps: the first and the last
/// this many (each is bounded already).
const TRANSCRIPT_PASSES: usize = 2;

/// A multi-pass test: the runs of an interactive test, how many passes, and whether the
/// program talks to the validator while it runs.
#[derive(Debug, Clone)]
pub struct MultiPassTest<'a> {
    /// The program, the validator (as `interactor`), their limits, flags and dialect (which
    /// must be Kattis: only its validators write `nextpass.in`).
    pub runs: InteractiveTest<'a>,
    /// The most passes (`JudgeTask.passes`, the format's `limits.validation_passes`).
    pub passes: u32,
    /// The program talks to the validator (interactive multi-pass); else the validator reads
    /// the program's output after it ended.
    pub relayed: bool,
}

/// The judged test.
#[derive(Debug)]
pub struct MultiPassJudgement {
    /// Status, score and reason (naming the pass that decided).
    pub decision: Decision,
    /// The largest CPU time of any pass, in ms.
    pub run_time_ms: u64,
    /// The largest peak memory of any pass, in KB.
    pub memory_kb: u64,
    /// The first lines of the deciding pass's stderr, when it failed.
    pub program_stderr: Vec<u8>,
    /// One line per pass, then (interactive) the transcripts of the first and last passes.
    pub log: String,
    /// How many passes ran.
    pub passes_run: u32,
}

/// What a pass ended with.
struct Pass {
    decision: Decision,
    cpu_ms: u64,
    memory_kb: u64,
    stderr: Vec<u8>,
    transcript: Option<String>,
    /// The validator's run, its box still there (absent when it did not run).
    validator: Option<crate::RunOutput>,
}

/// Runs the passes of `test` on `files` in `run_dir` (a directory per pass) and decides.
pub fn judge_multipass(
    executor: &dyn Executor,
    cancel: &CancelToken,
    test: &MultiPassTest<'_>,
    files: &TestFiles,
    run_dir: &Path,
) -> Result<MultiPassJudgement, ScriptError> {
    let mut judged = MultiPassJudgement {
        decision: Decision::of(JudgeStatus::CompareError, String::new()),
        run_time_ms: 0,
        memory_kb: 0,
        program_stderr: Vec::new(),
        log: String::new(),
        passes_run: 0,
    };
    if test.runs.protocol != ComparatorProtocol::Kattis {
        judged.decision.reason = format!(
            "a multi-pass test needs a kattis validator (this one speaks {})",
            test.runs.protocol.as_str()
        );
        return Ok(judged);
    }
    let mut input: Option<PathBuf> = files.stdin.clone().or_else(|| {
        files
            .inputs
            .iter()
            .find(|i| i.name == STDIN_ASSET)
            .map(|i| i.source.clone())
    });
    let mut carried: Vec<BoxFile> = Vec::new();
    let mut lines = Vec::new();
    let mut transcripts: Vec<(u32, String)> = Vec::new();
    for pass in 1..=test.passes {
        let pass_dir = run_dir.join(format!("pass{pass}"));
        std::fs::create_dir_all(&pass_dir).map_err(|e| ScriptError::io("create", &pass_dir, e))?;
        let pass_files = with_input(files, input.as_deref());
        let ran = if test.relayed {
            run_relayed(
                executor,
                cancel,
                &test.runs,
                &pass_files,
                &carried,
                &pass_dir,
            )?
        } else {
            run_then_validate(
                executor,
                cancel,
                &test.runs,
                &pass_files,
                &carried,
                &pass_dir,
            )?
        };
        judged.passes_run = pass;
        judged.run_time_ms = judged.run_time_ms.max(ran.cpu_ms);
        judged.memory_kb = judged.memory_kb.max(ran.memory_kb);
        let _ = verdict_sandbox::remove_box_dir(&pass_dir.join("box"));
        if let Some(t) = ran.transcript {
            transcripts.push((pass, t));
            if transcripts.len() > 2 * TRANSCRIPT_PASSES {
                transcripts.remove(TRANSCRIPT_PASSES);
            }
        }
        // What the validator left: the next input and the files it keeps.
        let (next, exit) = match &ran.validator {
            Some(v) => {
                let exit = validator_exit(v);
                let kept = carry(&v.box_dir, &pass_dir.join("feedback"));
                let _ = verdict_sandbox::remove_box_dir(&v.box_dir);
                match kept {
                    Ok((next, files)) => {
                        carried = files;
                        (next, exit)
                    }
                    Err(reason) => {
                        lines.push(format!("pass {pass}: {reason}"));
                        judged.decision = Decision::of(
                            JudgeStatus::CompareError,
                            format!("pass {pass}: {reason}"),
                        );
                        break;
                    }
                }
            }
            None => (None, None),
        };
        let accepted = ran.decision.status == JudgeStatus::Accepted;
        lines.push(format!(
            "pass {pass}: {}, {} ms{}",
            ran.decision.status.as_str(),
            ran.cpu_ms,
            if next.is_some() {
                ", the validator wrote nextpass.in"
            } else {
                ""
            }
        ));
        let failure = match (&next, exit) {
            (Some(_), code) if code != Some(42) => Some(format!(
                "the validator wrote nextpass.in and exited {} (only an accepting validator, exit 42, may ask for another pass)",
                code.map_or("by a signal or a limit".to_owned(), |c| format!("with {c}"))
            )),
            (Some(_), _) if accepted && pass == test.passes => Some(format!(
                "the validator asked for pass {} of a test of at most {} (limits.validation_passes)",
                pass + 1,
                test.passes
            )),
            _ => None,
        };
        if let Some(reason) = failure {
            judged.decision =
                Decision::of(JudgeStatus::CompareError, format!("pass {pass}: {reason}"));
            break;
        }
        match next {
            Some(next) if accepted => input = Some(next),
            _ => {
                let mut decision = ran.decision;
                if test.passes > 1 {
                    decision.reason = format!("pass {pass}: {}", decision.reason);
                }
                judged.decision = decision;
                judged.program_stderr = ran.stderr;
                break;
            }
        }
    }
    let mut log = lines.join("\n");
    for (pass, transcript) in transcripts {
        log.push_str(&format!("\npass {pass} {transcript}"));
    }
    judged.log = log;
    Ok(judged)
}

/// `files` with the pass's input as standard input and `testdata.in`.
fn with_input(files: &TestFiles, input: Option<&Path>) -> TestFiles {
    let mut out = files.clone();
    if let Some(input) = input {
        out.stdin = Some(input.to_owned());
        out.inputs.retain(|i| i.name != STDIN_ASSET);
        out.inputs.push(BoxFile {
            name: STDIN_ASSET.into(),
            source: input.to_owned(),
        });
    }
    out
}

/// The validator's exit code, if it exited within its limits.
fn validator_exit(run: &crate::RunOutput) -> Option<i32> {
    match (run.outcome.limit_hit, run.outcome.exit) {
        (None, ExitKind::Exited(code)) => Some(code),
        _ => None,
    }
}

/// An interactive pass: the program beside the validator.
fn run_relayed(
    executor: &dyn Executor,
    cancel: &CancelToken,
    runs: &InteractiveTest<'_>,
    files: &TestFiles,
    carried: &[BoxFile],
    dir: &Path,
) -> Result<Pass, ScriptError> {
    let (judged, validator) = judge_interactive_pass(executor, cancel, runs, files, carried, dir)?;
    Ok(Pass {
        decision: judged.decision,
        cpu_ms: judged.program.cpu_time_ms,
        memory_kb: judged.program.peak_memory_kb,
        stderr: judged.program_stderr,
        transcript: Some(judged.transcript),
        validator: Some(validator),
    })
}

/// A plain pass: the program on the pass's input, then (when it ended well) the validator on
/// its output.
fn run_then_validate(
    executor: &dyn Executor,
    cancel: &CancelToken,
    runs: &InteractiveTest<'_>,
    files: &TestFiles,
    carried: &[BoxFile],
    dir: &Path,
) -> Result<Pass, ScriptError> {
    let request = RunRequest {
        build: runs.program,
        args: runs.args,
        stdin: files.stdin.as_deref(),
        files: &files.inputs,
        empty_dirs: &[],
        limits: runs.limits,
    };
    let output = executor.run(cancel, &request, dir)?;
    let stderr = read_capped(&output.stderr, 64 * 1024)?;
    let outcome = &output.outcome;
    let mut pass = Pass {
        decision: Decision::of(JudgeStatus::Accepted, String::new()),
        cpu_ms: outcome.cpu_time_ms,
        memory_kb: outcome.peak_memory_kb,
        stderr: Vec::new(),
        transcript: None,
        validator: None,
    };
    if let Some(failure) = classify_run(
        outcome,
        &runs.limits,
        &String::from_utf8_lossy(&stderr),
        runs.memory_error_patterns,
    ) {
        pass.decision = Decision::of(failure.status, failure.reason);
        pass.stderr = stderr;
        return Ok(pass);
    }
    let validator_dir = dir.join("validator");
    std::fs::create_dir_all(&validator_dir)
        .map_err(|e| ScriptError::io("create", &validator_dir, e))?;
    let (args, mut box_files) = interactor_command(
        ComparatorProtocol::Kattis,
        files,
        runs.flags,
        &validator_dir.join("empty-answer"),
    )?;
    box_files.extend(carried.iter().cloned());
    let request = RunRequest {
        build: runs.interactor,
        args: &args,
        stdin: Some(&output.stdout),
        files: &box_files,
        empty_dirs: &["feedback"],
        limits: runs.interactor_limits,
    };
    let validator = executor.run(cancel, &request, &validator_dir)?;
    let summary = CompareSummary::from(interpret(ComparatorProtocol::Kattis, &validator)?);
    pass.decision = Decision {
        status: summary.status,
        score: summary.score,
        reason: summary.log,
        validator_score: summary.validator_score,
    };
    if pass.decision.status != JudgeStatus::Accepted {
        pass.stderr = stderr;
    }
    pass.validator = Some(validator);
    Ok(pass)
}

/// Copies the validator's `feedback/` out of its box into `to`: `nextpass.in` apart, the other
/// regular files as the next pass's carried files (writable by the next validator). `Err`
/// names what the validator did wrong (too much feedback).
fn carry(box_dir: &Path, to: &Path) -> Result<(Option<PathBuf>, Vec<BoxFile>), String> {
    let feedback = box_dir.join("feedback");
    let mut next = None;
    let mut kept = Vec::new();
    // The validator has ended and every process of its box with it: the directory is what it
    // left, a real directory or nothing.
    let is_dir = std::fs::symlink_metadata(&feedback).is_ok_and(|m| m.is_dir());
    if !is_dir {
        return Ok((None, kept));
    }
    let Ok(entries) = std::fs::read_dir(&feedback) else {
        return Ok((None, kept));
    };
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let mut budget = CARRY_MAX;
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect();
    names.sort();
    for name in names {
        let nextpass = name == "nextpass.in";
        let cap = if nextpass { NEXT_INPUT_MAX } else { budget };
        let Ok(file) = verdict_sandbox::open_box_file(box_dir, &Path::new("feedback").join(&name))
        else {
            continue;
        };
        let mut bytes = Vec::new();
        file.take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| format!("feedback/{name}: {e}"))?;
        if bytes.len() as u64 > cap {
            return Err(if nextpass {
                format!("the validator's nextpass.in is over {NEXT_INPUT_MAX} bytes")
            } else {
                format!("the validator's feedback files are over {CARRY_MAX} bytes")
            });
        }
        let path = to.join(&name);
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        if nextpass {
            next = Some(path);
            continue;
        }
        budget -= bytes.len() as u64;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666))
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        kept.push(BoxFile {
            name: format!("feedback/{name}"),
            source: path,
        });
    }
    Ok((next, kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_passes_input_replaces_the_tests_stdin_and_testdata_in() {
        let files = TestFiles {
            stdin: Some("/t/in".into()),
            inputs: vec![
                BoxFile {
                    name: STDIN_ASSET.into(),
                    source: "/t/in".into(),
                },
                BoxFile {
                    name: "extra.txt".into(),
                    source: "/t/extra".into(),
                },
            ],
            expected: Vec::new(),
        };
        let next = with_input(&files, Some(Path::new("/p/nextpass.in")));
        assert_eq!(next.stdin.as_deref(), Some(Path::new("/p/nextpass.in")));
        let names: Vec<(&str, &Path)> = next
            .inputs
            .iter()
            .map(|i| (i.name.as_str(), i.source.as_path()))
            .collect();
        assert_eq!(
            names,
            [
                ("extra.txt", Path::new("/t/extra")),
                (STDIN_ASSET, Path::new("/p/nextpass.in"))
            ]
        );
    }

    #[test]
    fn the_feedback_carried_leaves_nextpass_in_apart_and_is_bounded() {
        let dir = tempfile::tempdir().expect("dir");
        let feedback = dir.path().join("box/feedback");
        std::fs::create_dir_all(&feedback).expect("mkdir");
        std::fs::write(feedback.join("judgemessage.txt"), "pass 1 ok\n").expect("write");
        std::fs::write(feedback.join("nextpass.in"), "7\n").expect("write");
        std::fs::create_dir(feedback.join("sub")).expect("mkdir");
        let (next, kept) = carry(&dir.path().join("box"), &dir.path().join("out")).expect("carry");
        let next = next.expect("nextpass.in");
        assert_eq!(std::fs::read_to_string(next).expect("read"), "7\n");
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].name, "feedback/judgemessage.txt");
        std::fs::write(
            feedback.join("state.bin"),
            vec![0u8; CARRY_MAX as usize + 1],
        )
        .expect("write");
        let err = carry(&dir.path().join("box"), &dir.path().join("out2")).expect_err("too big");
        assert!(err.contains("over"), "{err}");
    }
}
