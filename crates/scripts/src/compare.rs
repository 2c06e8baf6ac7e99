//! Comparing a finished run's outputs with a test's expected ones (design #6, #11): the
//! built-in comparators over every expected file, or the problem's custom comparator in its
//! own box holding `input/`, `user_output/`, `answer/` and an empty `feedback/`.

use crate::exec::CancelToken;
use crate::judge::files::TestFiles;
use crate::judge::files::{STDERR_TAIL, read_tail};
use crate::{BoxFile, Build, Executor, ProducedOutput, RunLimits, RunRequest, ScriptError};
use crate::{join_inside, read_capped};
use std::io::Read;
use std::path::Path;
use verdict_compare::{
    BuiltinComparator, ComparatorExit, ComparatorProtocol, CompareError, CompareOutcome,
    CompareSummary, CompareVerdict, DefaultValidator, interpret_judge_system, interpret_kattis,
    interpret_testlib,
};
use verdict_contracts::{JudgeStatus, STDIN_ASSET, STDOUT_ASSET, Score};

/// The most of a comparator's feedback file read.
const FEEDBACK_MAX: u64 = 64 * 1024;

/// Compares every expected output with `builtin`; with several, the worst verdict wins.
pub fn compare_builtin(
    builtin: BuiltinComparator,
    test: &TestFiles,
    output: ProducedOutput<'_>,
) -> Result<CompareSummary, ScriptError> {
    compare_each(test, output, |out, ans| builtin.compare_readers(out, ans))
}

/// Compares every expected output with the ICPC default validator; the worst verdict wins.
pub fn compare_default(
    validator: &DefaultValidator,
    test: &TestFiles,
    output: ProducedOutput<'_>,
) -> Result<CompareSummary, ScriptError> {
    compare_each(test, output, |out, ans| validator.compare_readers(out, ans))
}

/// Compares every expected output with `compare` (program output, answer); with several, the
/// worst verdict wins.
fn compare_each(
    test: &TestFiles,
    output: ProducedOutput<'_>,
    compare: impl Fn(std::fs::File, std::fs::File) -> Result<CompareOutcome, CompareError>,
) -> Result<CompareSummary, ScriptError> {
    let mut worst: Option<(u8, CompareSummary)> = None;
    for (name, expected) in &test.expected {
        let answer =
            || std::fs::File::open(expected).map_err(|e| ScriptError::io("open", expected, e));
        let outcome = if TestFiles::is_stdout(name) {
            let out = std::fs::File::open(output.stdout)
                .map_err(|e| ScriptError::io("open", output.stdout, e))?;
            compare(out, answer()?)
        } else {
            match verdict_sandbox::open_box_file(output.box_dir, Path::new(name)) {
                Ok(file) => compare(file, answer()?),
                Err(_) => Ok(CompareOutcome::new(
                    CompareVerdict::WrongAnswer,
                    format!("the program did not write {name}"),
                )),
            }
        };
        let outcome = outcome.map_err(|source| ScriptError::Compare {
            output: name.clone(),
            source,
        })?;
        let mut summary = CompareSummary::from(outcome);
        if test.expected.len() > 1 && !summary.log.is_empty() {
            summary.log = format!("{name}: {}", summary.log);
        }
        let rank = match summary.status {
            JudgeStatus::Accepted => 0,
            JudgeStatus::PresentationError => 1,
            _ => 2,
        };
        if worst.as_ref().is_none_or(|(r, _)| rank > *r) {
            worst = Some((rank, summary));
        }
    }
    Ok(worst.map_or_else(
        || CompareSummary {
            status: JudgeStatus::Accepted,
            score: Score::FULL,
            log: "no expected output to compare".into(),
            validator_score: None,
        },
        |(_, s)| s,
    ))
}

/// Runs the problem's comparator (`build`, called by `protocol`; `flags` follow a Kattis
/// validator's arguments) on a run's outputs in a box under `run_dir/compare`, and reads its
/// verdict.
#[allow(clippy::too_many_arguments)]
pub fn run_comparator(
    executor: &dyn Executor,
    cancel: &CancelToken,
    build: &Build,
    protocol: ComparatorProtocol,
    flags: &[String],
    test: &TestFiles,
    output: ProducedOutput<'_>,
    run_dir: &Path,
    limits: RunLimits,
) -> Result<CompareSummary, ScriptError> {
    // The comparator's files: inputs, the program's outputs and the answers, as copies.
    let mut files = Vec::new();
    for input in &test.inputs {
        files.push(BoxFile {
            name: format!("input/{}", input.name),
            source: input.source.clone(),
        });
    }
    let user_dir = run_dir.join("user_output");
    for (name, expected) in &test.expected {
        files.push(BoxFile {
            name: format!("answer/{name}"),
            source: expected.clone(),
        });
        let user_copy = join_inside(&user_dir, name)?;
        if let Some(parent) = user_copy.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ScriptError::io("create", parent, e))?;
        }
        let copied = if TestFiles::is_stdout(name) {
            std::fs::copy(output.stdout, &user_copy).is_ok()
        } else {
            match verdict_sandbox::open_box_file(output.box_dir, Path::new(name)) {
                Ok(mut from) => std::fs::File::create(&user_copy)
                    .and_then(|mut to| std::io::copy(&mut from, &mut to))
                    .is_ok(),
                Err(_) => false,
            }
        };
        if copied {
            files.push(BoxFile {
                name: format!("user_output/{name}"),
                source: user_copy,
            });
        }
    }
    let args: Vec<String> = match protocol {
        ComparatorProtocol::JudgeSystem => ["input", "user_output", "answer", "feedback"]
            .map(String::from)
            .to_vec(),
        ComparatorProtocol::Testlib => vec![
            format!("input/{STDIN_ASSET}"),
            format!("user_output/{STDOUT_ASSET}"),
            format!("answer/{STDOUT_ASSET}"),
        ],
        ComparatorProtocol::Kattis => {
            let mut args = vec![
                format!("input/{STDIN_ASSET}"),
                format!("answer/{STDOUT_ASSET}"),
                "feedback/".to_owned(),
            ];
            args.extend(flags.iter().cloned());
            args
        }
    };
    // A Kattis validator reads the program's output on its stdin (an empty file when the
    // program wrote none).
    let user_stdout = user_dir.join(STDOUT_ASSET);
    let stdin = match protocol {
        ComparatorProtocol::Kattis => {
            if !user_stdout.exists() {
                if let Some(parent) = user_stdout.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| ScriptError::io("create", parent, e))?;
                }
                std::fs::copy(output.stdout, &user_stdout)
                    .or_else(|_| std::fs::write(&user_stdout, b"").map(|()| 0))
                    .map_err(|e| ScriptError::io("write", &user_stdout, e))?;
            }
            Some(user_stdout.as_path())
        }
        _ => None,
    };
    let dir = run_dir.join("compare");
    std::fs::create_dir_all(&dir).map_err(|e| ScriptError::io("create", &dir, e))?;
    let request = RunRequest {
        build,
        args: &args,
        stdin,
        files: &files,
        empty_dirs: &["feedback"],
        limits,
    };
    let result = executor.run(cancel, &request, &dir)?;
    let exit = match (result.outcome.limit_hit, result.outcome.exit) {
        (Some(limit), _) => ComparatorExit::LimitHit(format!("{limit:?}")),
        (None, crate::exec::ExitKind::Exited(code)) => ComparatorExit::Code(code),
        (None, crate::exec::ExitKind::Signaled(sig)) => ComparatorExit::Signal(sig),
    };
    let mut feedback_files = Vec::new();
    for &name in protocol.feedback_files() {
        let path = Path::new("feedback").join(name);
        if let Ok(file) = verdict_sandbox::open_box_file(&result.box_dir, &path) {
            let mut bytes = Vec::new();
            let _ = file.take(FEEDBACK_MAX).read_to_end(&mut bytes);
            feedback_files.push((name.to_owned(), bytes));
        }
    }
    let outcome = match protocol {
        ComparatorProtocol::JudgeSystem => interpret_judge_system(&exit, &feedback_files),
        ComparatorProtocol::Testlib => {
            let mut message = read_capped(&result.stderr, 4096)?;
            message.extend(read_capped(&result.stdout, 4096)?);
            interpret_testlib(&exit, &String::from_utf8_lossy(&message))
        }
        ComparatorProtocol::Kattis => interpret_kattis(&exit, &feedback_files),
    };
    // A testlib checker's message is its stderr already; the others' failures get its end.
    let outcome = match protocol {
        ComparatorProtocol::Testlib => outcome,
        _ => {
            let (tail, cut) = read_tail(&result.stderr, STDERR_TAIL)?;
            outcome.with_stderr_tail(&tail, cut)
        }
    };
    let _ = verdict_sandbox::remove_box_dir(&result.box_dir);
    Ok(CompareSummary::from(outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fake::{FakeExecutor, FakeRun};
    use crate::{LanguageProfile, RunOutput, TemplateVars};
    use std::sync::Arc;
    use verdict_contracts::Language;

    #[test]
    fn a_judge_system_comparator_gets_its_directories_and_its_score_is_read() {
        let dir = tempfile::tempdir().expect("dir");
        let host = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).expect("write");
            path
        };
        let test = TestFiles {
            stdin: None,
            inputs: vec![BoxFile {
                name: STDIN_ASSET.into(),
                source: host("in", "1 2\n"),
            }],
            expected: vec![(STDOUT_ASSET.into(), host("out", "3\n"))],
        };
        let output = RunOutput {
            outcome: FakeRun::exited(0, "").outcome,
            box_dir: dir.path().join("nobox"),
            stdout: host("stdout", "3\n"),
            stderr: host("stderr", ""),
        };
        let mut partial = FakeRun::exited(54, "");
        partial.box_files = vec![
            ("feedback/score.txt".into(), b"2 3\n".to_vec()),
            ("feedback/report.txt".into(), b"2 of 3\n".to_vec()),
        ];
        let fake = FakeExecutor::new(vec![partial]);
        let build = Build {
            dir: dir.path().to_owned(),
            language: Language::C,
            profile: Arc::new(LanguageProfile {
                run: vec!["./main".into()],
                ..LanguageProfile::default()
            }),
            vars: TemplateVars::default(),
        };
        let limits = RunLimits::new(1000, None, None, None);
        let summary = run_comparator(
            &fake,
            &crate::CancelToken::new(),
            &build,
            ComparatorProtocol::JudgeSystem,
            &[],
            &test,
            output.produced(),
            &dir.path().join("run"),
            limits,
        )
        .expect("compare");
        assert_eq!(summary.status, JudgeStatus::PartialCorrect);
        assert_eq!(summary.score.to_string(), "2/3");
        assert!(summary.log.contains("2 of 3"), "{}", summary.log);
        let command = fake.commands.lock().expect("commands")[0].clone();
        assert_eq!(
            command,
            ["./main", "input", "user_output", "answer", "feedback"]
        );
        let copied = dir.path().join("run/user_output").join(STDOUT_ASSET);
        assert_eq!(std::fs::read_to_string(copied).expect("user output"), "3\n");
    }
}
