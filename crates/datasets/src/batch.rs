//! Dataset problems in batches (docs/datasets.md, "Over HTTP"): a batch whose problem is one
//! record of a published dataset (`{"kind": "dataset", "format"?, "record"}`) is judged as
//! `judge eval` judges that record's samples: the same reader, the same programs taken from
//! the candidates' completions, the same runs ([`crate::evaluate`]'s path), each candidate's
//! result streamed as it finishes and summed up with pass@k as every batch is.
//!
//! [`DatasetBatchJudge`] judges batches of every kind: dataset problems here, the others by the
//! scheduler's [`BatchJudge`]. The judging binaries hold a [`DatasetBatchJudge`]; a batch is
//! checked once into a [`JudgeableBatch`] (by a front end that judges nothing too), which
//! [`DatasetBatchJudge::run_valid`] judges as it is.

use crate::eval::{EvalOptions, judge_programs};
use crate::jsonl::Record;
use crate::result::SampleStatus;
use crate::runs::{Judged, Run};
use crate::samples::{Sample, SampleCode};
use crate::{Error, Format, Problem, Tests};
use serde_json::{Map, Value};
use std::path::Path;
use std::time::Instant;
use tokio::sync::mpsc;
use verdict_contracts::FieldError;
use verdict_contracts::batch::{
    BatchEvent, BatchProblem, BatchReport, BatchRequest, BatchSummary, CandidateResult,
    CandidateStatus, DatasetProblem,
};
use verdict_contracts::judge::Language;
use verdict_contracts::oracle::{OracleCaseResult, OracleCaseStatus};
use verdict_oracle::OracleOptions;
use verdict_scheduler::{BatchCancel, BatchJudge, ValidBatch};

/// The format name of verl's ground truth (`{"inputs", "outputs", "fn_name"?}`), read as
/// APPS's `input_output`.
pub const GROUND_TRUTH: &str = "ground-truth";

/// Judges batches of every kind: dataset problems by their dataset's reader and `judge eval`'s
/// runs, suites and programming problems by the [`BatchJudge`] underneath.
#[derive(Debug, Clone)]
pub struct DatasetBatchJudge {
    inner: BatchJudge,
    timeout_ms: u64,
}

impl DatasetBatchJudge {
    /// DatasetBatchJudge judged by `inner`; a dataset test without a time limit of its own gets
    /// `judge eval`'s default (6 s, [`EvalOptions`]).
    pub fn new(inner: BatchJudge) -> Self {
        DatasetBatchJudge {
            inner,
            timeout_ms: EvalOptions::default().timeout_ms,
        }
    }

    /// The batch judge underneath (suites, programming problems, its judge).
    pub fn inner(&self) -> &BatchJudge {
        &self.inner
    }

    /// Checks a batch once and keeps it as a [`JudgeableBatch`] (a dataset problem with its
    /// record read), which [`DatasetBatchJudge::run_valid`] judges without checking again.
    pub fn validate(&self, batch: BatchRequest) -> Result<JudgeableBatch, Vec<FieldError>> {
        JudgeableBatch::check(batch, self.inner.oracle())
    }

    /// Judges a checked batch (see [`BatchJudge::run_valid`]): each candidate's result on
    /// `events` as it finishes, then the summary; all of them returned in the request's order.
    pub async fn run_valid(
        &self,
        batch: JudgeableBatch,
        events: Option<mpsc::UnboundedSender<BatchEvent>>,
        cancel: BatchCancel,
    ) -> BatchReport {
        let (batch, problem) = match batch.0 {
            Checked::Scheduled(batch) => return self.inner.run_valid(batch, events, cancel).await,
            Checked::Dataset(dataset) => (dataset.request, dataset.problem),
        };
        let started = Instant::now();
        let programs: Vec<String> = batch
            .candidates
            .iter()
            .map(|c| program_of(c.code.as_deref().unwrap_or_default(), &problem))
            .collect();
        let mut oracle = self.inner.oracle().clone();
        oracle.parallelism = 1;
        let options = EvalOptions {
            oracle,
            timeout_ms: self.timeout_ms,
        };
        let (sink, mut judged_rx) = mpsc::unbounded_channel::<(usize, Judged)>();
        let run = Run {
            options: batch.options.clone(),
            cancel: cancel.clone(),
            sink: Some(sink),
        };
        let tests_total = problem.tests.len();
        let ids: Vec<&str> = batch.candidates.iter().map(|c| c.id.as_str()).collect();
        let mut slots: Vec<Option<CandidateResult>> = vec![None; ids.len()];
        let judging = async {
            let judge = self.inner.judge();
            let judged = judge_programs(judge, &problem, &programs, &options, &run).await;
            drop(run);
            judged
        };
        let collecting = async {
            while let Some((i, judged)) = judged_rx.recv().await {
                let Some(id) = ids.get(i) else { continue };
                let same_as = judged
                    .same_as
                    .and_then(|j| ids.get(j))
                    .map(|s| s.to_string());
                let result = candidate_result(id, &judged, tests_total, same_as);
                if let Some(events) = &events {
                    let _ = events.send(BatchEvent::Candidate(result.clone()));
                }
                slots[i] = Some(result);
            }
        };
        let (judged, ()) = tokio::join!(judging, collecting);
        // A program the runs gave no result for: lost by the judge, unless it was cancelled
        // before it started (then it has no result, as in every batch).
        if !cancel.is_cancelled() {
            for (i, slot) in slots.iter_mut().enumerate() {
                if slot.is_none() {
                    let fallback = judged.get(i).cloned().map_or_else(
                        || candidate_result(ids[i], &lost(tests_total), tests_total, None),
                        |j| candidate_result(ids[i], &j, tests_total, None),
                    );
                    if let Some(events) = &events {
                        let _ = events.send(BatchEvent::Candidate(fallback.clone()));
                    }
                    *slot = Some(fallback);
                }
            }
        }
        let results: Vec<CandidateResult> = slots.into_iter().flatten().collect();
        let time_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let summary = BatchSummary::of(
            &results,
            batch.candidates.len(),
            &batch.options.pass_at_k,
            time_ms,
        );
        if let Some(events) = &events {
            let _ = events.send(BatchEvent::Summary(summary.clone()));
        }
        BatchReport { results, summary }
    }
}

/// A batch of any kind that passed its checks: made only by checking, so that
/// [`DatasetBatchJudge::run_valid`] judges it without checking it again; a dataset problem
/// keeps the record as its reader read it (docs/batches.md, "Checked once").
#[derive(Debug, Clone)]
pub struct JudgeableBatch(Checked);

#[derive(Debug, Clone)]
enum Checked {
    /// A programming problem or a suite: the scheduler's.
    Scheduled(ValidBatch),
    /// A dataset problem, its record read.
    Dataset(Box<DatasetBatch>),
}

#[derive(Debug, Clone)]
struct DatasetBatch {
    request: BatchRequest,
    problem: Problem,
}

impl JudgeableBatch {
    /// Checks a batch without a judge (what a front end that judges nothing checks too): a
    /// dataset problem's record as its reader reads it and its candidates as completions,
    /// other problems as [`verdict_scheduler::check_batch`] checks them (every problem, each
    /// naming its field); keeps it, with a dataset problem's record read, when it passes.
    pub fn check(batch: BatchRequest, oracle: &OracleOptions) -> Result<Self, Vec<FieldError>> {
        let BatchProblem::Dataset(dataset) = &batch.problem else {
            return ValidBatch::check(batch, oracle).map(|b| JudgeableBatch(Checked::Scheduled(b)));
        };
        let problem = dataset_problem(&batch, dataset)?;
        Ok(JudgeableBatch(Checked::Dataset(Box::new(DatasetBatch {
            request: batch,
            problem,
        }))))
    }

    /// The request.
    pub fn request(&self) -> &BatchRequest {
        match &self.0 {
            Checked::Scheduled(batch) => batch.request(),
            Checked::Dataset(dataset) => &dataset.request,
        }
    }

    /// A dataset problem's record as its reader read it (`None` for other problems).
    pub fn dataset_problem(&self) -> Option<&Problem> {
        match &self.0 {
            Checked::Scheduled(_) => None,
            Checked::Dataset(dataset) => Some(&dataset.problem),
        }
    }

    /// The request, given back.
    pub fn into_request(self) -> BatchRequest {
        match self.0 {
            Checked::Scheduled(batch) => batch.into_request(),
            Checked::Dataset(dataset) => dataset.request,
        }
    }
}

/// A program the judge lost (no result): a retryable infra error.
fn lost(tests: usize) -> Judged {
    Judged {
        sample: crate::SampleResult::infra("no result".into(), true, tests),
        stopped_early: false,
        message: None,
        same_as: None,
        time_ms: 0,
    }
}

/// Checks a batch whose problem is `dataset`: its record as its reader reads it (given back)
/// and its candidates as completions. Every problem, each naming its field.
fn dataset_problem(
    batch: &BatchRequest,
    dataset: &DatasetProblem,
) -> Result<Problem, Vec<FieldError>> {
    let mut errors = batch.problems();
    let mut language = Language::Python3;
    let read = read_problem(dataset);
    match &read {
        Ok(problem) => {
            if let Tests::Program(program) = &problem.tests {
                language = program.language;
            }
            if let Tests::Unsupported(unsupported) = &problem.tests {
                errors.push(FieldError::new(
                    "problem.record",
                    format!("this judge cannot run it: {}", unsupported.reason),
                ));
            }
        }
        Err(e) => errors.push(e.clone()),
    }
    for (i, c) in batch.candidates.iter().enumerate() {
        let at = format!("candidates[{i}]");
        if c.code.is_none() {
            errors.push(FieldError::new(
                format!("{at}.code"),
                "a dataset problem's candidate is its completion: give it as code",
            ));
        }
        if !c.source_files.is_empty() {
            errors.push(FieldError::new(
                format!("{at}.source_files"),
                "a dataset problem's candidate is one completion: give it as code",
            ));
        }
        if !c.assist_files.is_empty() || c.entry_point.is_some() || c.compile_command.is_some() {
            let field = if !c.assist_files.is_empty() {
                "assist_files"
            } else if c.entry_point.is_some() {
                "entry_point"
            } else {
                "compile_command"
            };
            errors.push(FieldError::new(
                format!("{at}.{field}"),
                "not used with a dataset problem (the record says how it runs)",
            ));
        }
        if let Some(named) = c.language.filter(|l| *l != language) {
            errors.push(FieldError::new(
                format!("{at}.language"),
                format!("this dataset problem is judged in {language}, not {named}"),
            ));
        }
    }
    match read {
        Ok(problem) if errors.is_empty() => Ok(problem),
        _ => Err(errors),
    }
}

/// Reads a dataset problem's record with its format's reader (`judge eval`'s); an error names
/// the field under `problem.` (`problem.record.test`, `problem.format`).
pub fn read_problem(dataset: &DatasetProblem) -> Result<Problem, FieldError> {
    let fields = match &dataset.record {
        Value::Object(map) => map.clone(),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return Err(FieldError::new(
                    "problem.record",
                    format!(
                        "JSON text of {}, not of an object",
                        crate::jsonl::kind(&other)
                    ),
                ));
            }
            Err(e) => {
                return Err(FieldError::new(
                    "problem.record",
                    format!("neither an object nor JSON text of one: {e}"),
                ));
            }
        },
        other => {
            return Err(FieldError::new(
                "problem.record",
                format!(
                    "must be an object (or JSON text of one), not {}",
                    crate::jsonl::kind(other)
                ),
            ));
        }
    };
    let names = || {
        let mut names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        names.push(GROUND_TRUTH);
        names.join(", ")
    };
    let (format, record, prefix) = match dataset.format.as_deref() {
        Some(GROUND_TRUTH) => {
            let mut wrapped = Map::new();
            wrapped.insert("problem_id".into(), Value::String(GROUND_TRUTH.into()));
            wrapped.insert("input_output".into(), Value::Object(fields));
            (Format::Apps, wrapped, "input_output")
        }
        Some(name) => match Format::from_name(name) {
            Some(format) => (format, fields, ""),
            None => {
                return Err(FieldError::new(
                    "problem.format",
                    format!(
                        "{name:?} is not a dataset format verdict reads ({})",
                        names()
                    ),
                ));
            }
        },
        None => {
            let record = Record {
                line: 1,
                fields: fields.clone(),
            };
            match Format::detect(&record) {
                Some(format) => (format, fields, ""),
                None => {
                    return Err(FieldError::new(
                        "problem.format",
                        format!(
                            "absent, and the record's fields do not tell the format: name one ({})",
                            names()
                        ),
                    ));
                }
            }
        }
    };
    let record = Record {
        line: 1,
        fields: record,
    };
    format
        .read(Path::new("problem.record"), 0, &record)
        .map_err(|e| match e {
            Error::Record { field, message, .. } => {
                let inner = field.strip_prefix(prefix).unwrap_or(&field);
                let inner = inner.strip_prefix('.').unwrap_or(inner);
                let field = if inner.is_empty() {
                    "problem.record".to_string()
                } else {
                    format!("problem.record.{inner}")
                };
                FieldError::new(field, message)
            }
            other => FieldError::new("problem.record", other.to_string()),
        })
}

/// The program a candidate's completion gives for `problem`: `judge eval`'s sample rules
/// (docs/datasets.md, "Samples and the code in them").
pub fn program_of(completion: &str, problem: &Problem) -> String {
    let sample = Sample {
        line: 0,
        task_id: problem.task_id.clone(),
        code: SampleCode::Completion(completion.to_string()),
        fields: Map::new(),
    };
    sample.program(problem)
}

/// A program's result as the batch contract's [`CandidateResult`]: the oracle's case statuses,
/// one case per test that ran.
fn candidate_result(
    id: &str,
    judged: &Judged,
    tests_total: usize,
    same_as: Option<String>,
) -> CandidateResult {
    let sample = &judged.sample;
    let status = match sample.status {
        SampleStatus::Passed => OracleCaseStatus::Passed,
        SampleStatus::Failed => OracleCaseStatus::Failed,
        SampleStatus::Error | SampleStatus::InfraError => OracleCaseStatus::Error,
        SampleStatus::Timeout => OracleCaseStatus::Timeout,
        SampleStatus::InvalidTestFormat => OracleCaseStatus::InvalidTestFormat,
    };
    let tests_total = tests_total.max(sample.tests_total);
    let passed = sample.passed && sample.infra_error.is_none();
    let cases = sample
        .tests
        .iter()
        .map(|t| OracleCaseResult {
            name: t.name.clone(),
            status: t.status,
            got: None,
            expected: None,
            message: t.message.clone(),
            time_ms: t.time_ms,
        })
        .collect();
    let message = judged
        .message
        .clone()
        .or_else(|| (!passed && sample.infra_error.is_none()).then(|| sample.result.clone()));
    CandidateResult {
        stopped_early: judged.stopped_early,
        cases: Some(cases),
        message,
        infra_error: sample.infra_error.clone(),
        time_ms: if same_as.is_some() { 0 } else { judged.time_ms },
        same_as,
        ..CandidateResult::new(
            id,
            CandidateStatus::Case(status),
            passed,
            sample.tests_passed,
            tests_total,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dataset(format: Option<&str>, record: Value) -> DatasetProblem {
        DatasetProblem {
            format: format.map(str::to_string),
            record,
        }
    }

    #[test]
    fn verls_ground_truth_is_read_as_apps_input_output_from_an_object_or_json_text() {
        let truth = json!({"inputs": ["1 2\n"], "outputs": ["3\n"]});
        for record in [truth.clone(), Value::String(truth.to_string())] {
            let problem = read_problem(&dataset(Some(GROUND_TRUTH), record)).expect("read");
            assert!(matches!(problem.tests, Tests::Stdio(ref t) if t.cases.len() == 1));
        }
        let functional = json!({"inputs": [[1, 2]], "outputs": [3], "fn_name": "add"});
        let problem = read_problem(&dataset(Some(GROUND_TRUTH), functional)).expect("read");
        assert!(matches!(problem.tests, Tests::Function(ref t) if t.fn_name == "add"));
    }

    #[test]
    fn ground_truth_is_never_guessed_from_the_records_shape() {
        let err = read_problem(&dataset(None, json!({"inputs": [], "outputs": []})))
            .expect_err("refused");
        assert_eq!(err.field, "problem.format");
    }

    #[test]
    fn a_records_errors_name_the_field_under_problem_record() {
        let record = json!({"task_id": "HumanEval/0", "prompt": "", "entry_point": "f"});
        let err = read_problem(&dataset(Some("humaneval"), record)).expect_err("refused");
        assert_eq!(err.field, "problem.record.test", "{err}");
        let err = read_problem(&dataset(Some("leetcode"), json!({}))).expect_err("refused");
        assert_eq!(err.field, "problem.format");
        assert!(err.message.contains("ground-truth"), "{err}");
        let err = read_problem(&dataset(Some(GROUND_TRUTH), json!(3))).expect_err("refused");
        assert_eq!(err.field, "problem.record");
        let err = read_problem(&dataset(Some(GROUND_TRUTH), json!("[1]"))).expect_err("refused");
        assert_eq!(err.field, "problem.record");
    }

    #[test]
    fn a_humaneval_record_is_detected_and_its_completion_follows_the_prompt() {
        let record = json!({"task_id": "HumanEval/0", "prompt": "def f():\n", "entry_point": "f",
                            "test": "def check(c):\n    assert c() == 1\n"});
        let problem = read_problem(&dataset(None, record)).expect("read");
        assert_eq!(problem.format, Format::HumanEval);
        assert_eq!(
            program_of("    return 1\n", &problem),
            "def f():\n    return 1\n"
        );
        let fenced = "Here:\n```python\ndef f():\n    return 1\n```\n";
        assert_eq!(program_of(fenced, &problem), "def f():\n    return 1\n");
    }

    #[test]
    fn a_dataset_batch_refuses_files_other_languages_and_records_this_judge_cannot_run() {
        let batch = verdict_contracts::batch::parse_batch(
            &json!({
                "problem": {"kind": "dataset", "format": "verification-info", "record": {
                    "verification_info": {"language": "cobol", "test_cases": [
                        {"type": "stdin_stdout", "input": "1\n", "output": "1\n"}]}}},
                "candidates": [
                    {"id": "a", "source_files": [{"type": "text", "name": "a.py", "text": ""}]},
                    {"id": "b", "code": "print(1)", "language": "c"}
                ]
            })
            .to_string(),
        )
        .expect("parsed");
        let errors = JudgeableBatch::check(batch, &OracleOptions::default()).expect_err("refused");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "problem.record",
                "candidates[0].code",
                "candidates[0].source_files",
                "candidates[1].language"
            ],
            "{errors:?}"
        );
    }

    #[test]
    fn a_humaneval_x_record_takes_candidates_in_its_language_and_refuses_others() {
        let record = json!({"task_id": "CPP/0", "prompt": "int f(){\n", "declaration": "int f(){\n",
                            "canonical_solution": "    return 1;\n}\n", "example_test": "",
                            "test": "#undef NDEBUG\n#include<assert.h>\nint main(){\n    assert (f()==1);\n}\n"});
        let batch = verdict_contracts::batch::parse_batch(
            &json!({
                "problem": {"kind": "dataset", "record": record},
                "candidates": [
                    {"id": "a", "code": "    return 1;\n}\n", "language": "cpp"},
                    {"id": "b", "code": "    return 1;\n}\n", "language": "python3"}
                ]
            })
            .to_string(),
        )
        .expect("parsed");
        let errors = JudgeableBatch::check(batch, &OracleOptions::default()).expect_err("refused");
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["candidates[1].language"], "{errors:?}");
        assert!(errors[0].message.contains("judged in cpp"), "{errors:?}");
    }

    #[test]
    fn a_checked_dataset_batch_keeps_its_record_read_and_refuses_a_candidate_in_another_language() {
        let record = json!({"task_id": "HumanEval/0", "prompt": "def f():\n", "entry_point": "f",
                            "test": "def check(c):\n    assert c() == 1\n"});
        let batch = |language: &str| {
            verdict_contracts::batch::parse_batch(
                &json!({
                    "problem": {"kind": "dataset", "record": record},
                    "candidates": [{"id": "a", "code": "    return 1\n", "language": language}]
                })
                .to_string(),
            )
            .expect("parsed")
        };
        let oracle = OracleOptions::default();
        let checked = JudgeableBatch::check(batch("python3"), &oracle).expect("valid");
        let problem = checked.dataset_problem().expect("a dataset problem");
        assert_eq!(problem.task_id, "HumanEval/0");
        assert_eq!(checked.request().candidates[0].id, "a");
        let refused = JudgeableBatch::check(batch("cpp"), &oracle).expect_err("refused");
        let fields: Vec<&str> = refused.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["candidates[0].language"], "{refused:?}");
    }
}
