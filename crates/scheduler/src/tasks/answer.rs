//! Submit-answer tests (`run_script: "answer"`): nothing runs; the submission's file named by
//! `answer_file` is compared with the test's expected output as a program's standard output
//! would be, by the same comparison (built in, the default validator or the problem's own).

use super::compare::compare_outputs;
use super::standard::output_diff;
use crate::error::JudgeError;
use crate::plan::AnswerTest;
use crate::submission::SubmissionRun;
use std::path::Path;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scripts::{ProducedOutput, TestFiles};

/// The directory of a test's run directory the answer is written to.
const ANSWER_DIR: &str = "answer-file";

/// A submit-answer test.
pub(super) fn answer_task(
    run: &SubmissionRun,
    index: usize,
    test: &AnswerTest,
) -> Result<JudgeTaskResult, JudgeError> {
    let run_dir = run.test_dir(&format!("task{index}"))?;
    let files = match test.datum {
        Some(datum) => run.datum_files(datum)?,
        None => TestFiles::default(),
    };
    let result = judge_answer(run, test, &files, &run_dir);
    run.finish_test_dir(run_dir);
    result
}

/// Writes the answer into `run_dir` and compares it.
fn judge_answer(
    run: &SubmissionRun,
    test: &AnswerTest,
    files: &TestFiles,
    run_dir: &Path,
) -> Result<JudgeTaskResult, JudgeError> {
    let answers = run_dir.join(ANSWER_DIR);
    let Some(answer) = run.submission_file(&test.file, &answers)? else {
        return Ok(JudgeTaskResult::with_status(
            JudgeStatus::WrongAnswer,
            format!(
                "no answer: the submission has no file named {:?}",
                test.file
            ),
        ));
    };
    let size = std::fs::metadata(&answer)
        .map_err(|e| JudgeError::io("read", &answer, e))?
        .len();
    if size > test.size_limit_kb.saturating_mul(1024) {
        return Ok(JudgeTaskResult::with_status(
            JudgeStatus::OutputLimitExceeded,
            format!(
                "the answer {:?} is {size} bytes, over the output limit of {} KB",
                test.file, test.size_limit_kb
            ),
        ));
    }
    let output = ProducedOutput {
        stdout: &answer,
        box_dir: &answers,
    };
    let summary = compare_outputs(run, &test.compare, &test.flags, files, output, run_dir)?;
    let mut result = JudgeTaskResult::with_status(summary.status, summary.log);
    result.score = summary.score;
    result.validator_score = summary.validator_score;
    result.diff = output_diff(summary.status, files, output).map(Box::new);
    Ok(result)
}
