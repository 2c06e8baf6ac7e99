//! Comparing a run's outputs with the expected ones: the built-in comparators
//! (`diff-all`, `diff-ign-space`) or the problem's custom comparator (design #6, #11).

use super::compile::{BuildResult, problem_build};
use super::data::TestFiles;
use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use std::path::Path;
use verdict_contracts::{CompareScript, JudgeStatus, JudgeTask, STDIN_ASSET, STDOUT_ASSET, Score};
use verdict_scripts::compare::{
    BuiltinComparator, ComparatorExit, ComparatorProtocol, CompareOutcome, CompareVerdict,
    detect_protocol, interpret_judge_system, interpret_testlib,
};
use verdict_scripts::{BoxFile, RunOutput, RunRequest, join_inside, read_capped, run_program};

/// The comparison's status, score and log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareSummary {
    /// Accepted, Partial Correct, Presentation Error, Wrong Answer or Compare Error.
    pub status: JudgeStatus,
    /// The score.
    pub score: Score,
    /// Feedback for `error_log`.
    pub log: String,
}

impl CompareSummary {
    fn from_outcome(outcome: CompareOutcome) -> Self {
        let (status, score) = match outcome.verdict {
            CompareVerdict::Accepted => (JudgeStatus::Accepted, Score::FULL),
            CompareVerdict::PresentationError => (JudgeStatus::PresentationError, Score::ZERO),
            CompareVerdict::WrongAnswer => (JudgeStatus::WrongAnswer, Score::ZERO),
            CompareVerdict::CompareError => (JudgeStatus::CompareError, Score::ZERO),
            CompareVerdict::PartialCorrect {
                numerator,
                denominator,
            } => {
                let score = u32::try_from(numerator)
                    .ok()
                    .zip(u32::try_from(denominator).ok())
                    .and_then(|(n, d)| Score::new(n, d))
                    .unwrap_or(Score::ZERO);
                (JudgeStatus::PartialCorrect, score)
            }
        };
        let mut log = outcome.message;
        if let Some(report) = outcome.report {
            if !log.is_empty() {
                log.push('\n');
            }
            log.push_str(&report);
        }
        CompareSummary { status, score, log }
    }
}

/// Compares the run's outputs as the task's `compare_script` says.
pub fn compare_outputs(
    run: &SubmissionRun,
    task: &JudgeTask,
    test: &TestFiles,
    output: &RunOutput,
    run_dir: &Path,
) -> Result<CompareSummary, JudgeError> {
    let builtin = match task.compare_script {
        Some(CompareScript::DiffAll) => BuiltinComparator::DiffAll,
        Some(CompareScript::Custom) => return custom_compare(run, task, test, output, run_dir),
        _ => BuiltinComparator::DiffIgnSpace,
    };
    let mut worst: Option<(u8, CompareSummary)> = None;
    for (name, expected) in &test.expected {
        let outcome = if TestFiles::is_stdout(name) {
            builtin.compare_files(&output.stdout, expected)
        } else {
            match verdict_sandbox::open_box_file(&output.box_dir, Path::new(name)) {
                Ok(file) => {
                    let answer = std::fs::File::open(expected)
                        .map_err(|e| JudgeError::io("open", expected, e))?;
                    builtin.compare_readers(file, answer)
                }
                Err(_) => Ok(CompareOutcome::new(
                    CompareVerdict::WrongAnswer,
                    format!("the program did not write {name}"),
                )),
            }
        };
        let outcome = outcome.map_err(|e| JudgeError::Other(format!("comparing {name}: {e}")))?;
        let mut summary = CompareSummary::from_outcome(outcome);
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
        },
        |(_, s)| s,
    ))
}

/// Runs the problem's custom comparator in its own box and reads its verdict.
fn custom_compare(
    run: &SubmissionRun,
    task: &JudgeTask,
    test: &TestFiles,
    output: &RunOutput,
    run_dir: &Path,
) -> Result<CompareSummary, JudgeError> {
    let compare_error = |log: String| CompareSummary {
        status: JudgeStatus::CompareError,
        score: Score::ZERO,
        log,
    };
    let Some(program) = &run.submission.compare else {
        return Ok(compare_error(
            "compare_script \"\" needs Submission.compare".into(),
        ));
    };
    let build = match problem_build(run, "compare", program) {
        BuildResult::Built(build) => build,
        BuildResult::Failed(log) => {
            return Ok(compare_error(format!(
                "the compare program did not compile:\n{log}"
            )));
        }
        BuildResult::Broken(reason) => return Err(JudgeError::Other(reason)),
    };
    // The protocol is the problem's: detected once per submission, not per test.
    let protocol = *run.compare_protocol.get_or_init(|| {
        let source = program.source();
        let texts: Vec<(&str, &str)> = source
            .source_files
            .iter()
            .chain(&source.assist_files)
            .map(|a| (a.name.as_str(), a.text.as_deref().unwrap_or_default()))
            .collect();
        detect_protocol(&texts)
    });
    // The comparator's files: inputs, the program's outputs and the answers, as copies.
    let dir = run_dir.join("compare");
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
            std::fs::create_dir_all(parent).map_err(|e| JudgeError::io("create", parent, e))?;
        }
        let copied = if TestFiles::is_stdout(name) {
            std::fs::copy(&output.stdout, &user_copy).is_ok()
        } else {
            match verdict_sandbox::open_box_file(&output.box_dir, Path::new(name)) {
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
    };
    let limits = run.shared.config.generator.limits(task);
    std::fs::create_dir_all(&dir).map_err(|e| JudgeError::io("create", &dir, e))?;
    let request = RunRequest {
        build: &build,
        args: &args,
        stdin: None,
        files: &files,
        empty_dirs: &["feedback"],
        limits,
    };
    let result = run_program(&run.shared.sandbox, &request, &dir)?;
    let exit = match (result.outcome.limit_hit, result.outcome.exit) {
        (Some(limit), _) => ComparatorExit::LimitHit(format!("{limit:?}")),
        (None, verdict_sandbox::ExitKind::Exited(code)) => ComparatorExit::Code(code),
        (None, verdict_sandbox::ExitKind::Signaled(sig)) => ComparatorExit::Signal(sig),
    };
    let outcome = match protocol {
        ComparatorProtocol::JudgeSystem => {
            let mut feedback_files = Vec::new();
            for name in ["score.txt", "report.txt"] {
                if let Ok(mut file) = verdict_sandbox::open_box_file(
                    &result.box_dir,
                    &Path::new("feedback").join(name),
                ) {
                    let mut bytes = Vec::new();
                    use std::io::Read;
                    let _ = (&mut file).take(64 * 1024).read_to_end(&mut bytes);
                    feedback_files.push((name.to_owned(), bytes));
                }
            }
            interpret_judge_system(&exit, &feedback_files)
        }
        ComparatorProtocol::Testlib => {
            let mut message = read_capped(&result.stderr, 4096)?;
            message.extend(read_capped(&result.stdout, 4096)?);
            interpret_testlib(&exit, &String::from_utf8_lossy(&message))
        }
    };
    let _ = verdict_sandbox::remove_box_dir(&result.box_dir);
    Ok(CompareSummary::from_outcome(outcome))
}
