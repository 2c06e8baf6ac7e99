//! Batches (design #26, #27): one problem sent once, many candidate programs judged against it,
//! one [`CandidateResult`] per candidate and a [`BatchSummary`] with pass@k.
//!
//! The problem is a Task Oracle suite without its deliverable ([`SuiteProblem`]) or a
//! Submission's problem part ([`ProgrammingProblem`]). Each candidate becomes the deliverable
//! of that suite ([`SuiteProblem::suite_for`]) or the `submission` of that Submission
//! ([`ProgrammingProblem::submission_for`]), so every status, limit and report means what it
//! means for a single suite or Submission.
//!
//! ```
//! use verdict_contracts::batch::{BatchProblem, parse_batch};
//! let batch = parse_batch(r#"{
//!   "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
//!               "entry_point": "add",
//!               "test_cases": [{"name": "one", "input": [1, 2], "expected": 3}]},
//!   "candidates": [{"id": "a", "code": "def add(a, b):\n    return a + b\n"},
//!                  {"id": "b", "code": "def add(a, b):\n    return a - b\n"}],
//!   "options": {"stop_at_first_failure": true, "pass_at_k": [1]}
//! }"#).unwrap();
//! let BatchProblem::Suite(problem) = &batch.problem else { unreachable!() };
//! let suite = problem.suite_for(0, &batch.candidates[0]).unwrap();
//! assert_eq!(suite.source_files[0].name, "solution.py");
//! ```

use crate::judge::{
    Asset, CompareProtocol, JudgeStatus, JudgeTask, JudgeTaskResult, Language, Program, SourceCode,
    SubType, Submission, TestDatum,
};
use crate::oracle::{
    DeliverableType, FloatTolerance, OracleCaseResult, OracleCaseStatus, TestCase, TestSuite,
};
use crate::validate::FieldError;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};

/// A batch: one problem, many candidates, and how to judge them. Unknown fields are refused
/// here and in `options` (a misspelt option would silently change what is measured); the
/// problem and candidates ignore them, as the contract's types do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    /// The problem, sent once for every candidate.
    pub problem: BatchProblem,
    /// The candidate programs; ids are unique.
    pub candidates: Vec<Candidate>,
    /// How the candidates are judged.
    #[serde(default)]
    pub options: BatchOptions,
}

/// The problem of a batch, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BatchProblem {
    /// A Task Oracle suite without its deliverable.
    Suite(SuiteProblem),
    /// A Submission without its `sub_id` and `submission`.
    Programming(Box<ProgrammingProblem>),
    /// One record of a public dataset, judged as `judge eval` judges it (docs/datasets.md);
    /// judged by `verdict-datasets`, which the judging binaries compose.
    Dataset(DatasetProblem),
}

/// One record of a public code dataset as its publisher (or a trainer) holds it: its tests are
/// the record's, read by the dataset's reader (docs/datasets.md, "Over HTTP").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DatasetProblem {
    /// The record's format: a `judge eval --format` name (`humaneval`, `mbpp`, `apps`, ...) or
    /// `ground-truth` (verl's `{"inputs", "outputs", "fn_name"?}`). When absent it is told
    /// from the record's fields as `judge eval` tells it (`ground-truth` is never guessed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The record: a JSON object, or JSON text of one (as verl stores its ground truth).
    pub record: serde_json::Value,
}

/// A Task Oracle suite without `source_files` (each candidate brings its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SuiteProblem {
    /// `function`, `script` or `cli`.
    pub deliverable_type: DeliverableType,
    /// The language of candidates that name none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// The function's name (function) or the file to run (script, cli).
    pub entry_point: String,
    /// Time limit of one case in milliseconds (the runner's default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// How close two floats must be to count as equal (function deliverables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub float_tolerance: Option<FloatTolerance>,
    /// The test cases, in order.
    pub test_cases: Vec<TestCase>,
}

/// A Submission's problem part: everything but `sub_id` and `submission`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProgrammingProblem {
    /// The kind of submission (`programming`).
    #[serde(default = "programming")]
    pub sub_type: SubType,
    /// Which platform sent the request.
    pub category: String,
    /// The problem id; the judge caches per problem.
    pub prob_id: String,
    /// When the problem last changed; a newer value refreshes the problem's cache.
    pub updated_at: i64,
    /// The judge tasks, in order.
    pub judge_tasks: Vec<JudgeTask>,
    /// The problem's standard test data.
    #[serde(default)]
    pub test_data: Vec<TestDatum>,
    /// The standard program (for random tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard: Option<Program>,
    /// The random input generator (for random tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<Program>,
    /// The custom comparator (for `compare_script: ""`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Program>,
    /// How the comparator (or interactor) speaks, as in the Submission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare_protocol: Option<CompareProtocol>,
}

fn programming() -> SubType {
    SubType::Programming
}

/// One candidate program: an id, its language, and one `code` string or its `source_files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Candidate {
    /// The candidate's id, echoed in its result; unique in the batch.
    pub id: String,
    /// Its language (a suite's `language` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// The whole program as one file (named by [`default_file_name`] or the suite's entry point).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The program's files, when not one `code` string.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_files: Vec<Asset>,
    /// Header and helper files (programming problems).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assist_files: Vec<Asset>,
    /// Main class or entry script (programming problems; `null`: the first source file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<String>,
    /// Extra compiler arguments (programming problems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_command: Option<Vec<String>>,
}

/// How a batch judges its candidates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchOptions {
    /// Stop a candidate at its first test that does not pass (binary rewards); `false` runs
    /// every test (partial credit). The judge decides, from outside the candidate's box.
    #[serde(default)]
    pub stop_at_first_failure: bool,
    /// Caps every test's time limit (a task's `time_limit`, a suite's `timeout_ms`), in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_timeout_ms: Option<u64>,
    /// Wall time one candidate may take over all its tests, in ms; tests not started by then
    /// are not run (they count as failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_timeout_ms: Option<u64>,
    /// The k of pass@k in the summary (default `[1]`).
    #[serde(default = "default_ks")]
    pub pass_at_k: Vec<u32>,
}

fn default_ks() -> Vec<u32> {
    vec![1]
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            stop_at_first_failure: false,
            test_timeout_ms: None,
            candidate_timeout_ms: None,
            pass_at_k: default_ks(),
        }
    }
}

/// The file a one-string candidate is written to: `solution.<ext>` of its language, or for a
/// script or cli suite the suite's entry point.
pub fn default_file_name(language: Language) -> String {
    let ext = match language {
        Language::Ada => "adb",
        Language::Awk => "awk",
        Language::Bash => "sh",
        Language::C => "c",
        Language::Cpp => "cpp",
        Language::Csharp => "cs",
        Language::Fortran95 => "f95",
        Language::Fsharp => "fs",
        Language::Go => "go",
        Language::Haskell => "hs",
        Language::Java => "java",
        Language::Js => "js",
        Language::Kotlin => "kt",
        Language::Lua => "lua",
        Language::Make => "mk",
        Language::Octave => "m",
        Language::Pas => "pas",
        Language::Perl => "pl",
        Language::Php => "php",
        Language::Python2 | Language::Python3 => "py",
        Language::R => "R",
        Language::Ruby => "rb",
        Language::Rust => "rs",
        Language::Scala => "scala",
        Language::Swift => "swift",
        Language::Typescript => "ts",
        Language::Vbnet => "vb",
    };
    match language {
        Language::Java => "Main.java".to_owned(),
        Language::Make => "Makefile".to_owned(),
        _ => format!("solution.{ext}"),
    }
}

impl Candidate {
    /// The candidate's files: its `source_files`, or its `code` as one file named `file`.
    fn files(&self, at: &str, file: impl FnOnce() -> String) -> Result<Vec<Asset>, FieldError> {
        match (&self.code, self.source_files.is_empty()) {
            (Some(code), true) => Ok(vec![Asset::text(file(), code.clone())]),
            (None, false) => Ok(self.source_files.clone()),
            (Some(_), false) => Err(FieldError::new(
                format!("{at}.code"),
                "give either code or source_files, not both",
            )),
            (None, true) => Err(FieldError::new(
                format!("{at}.source_files"),
                "give code or at least one source file",
            )),
        }
    }
}

impl SuiteProblem {
    /// The suite a candidate is judged against; `Err` names the candidate's field at fault.
    /// `index` is the candidate's place in the batch, for the error's field.
    pub fn suite_for(&self, index: usize, candidate: &Candidate) -> Result<TestSuite, FieldError> {
        let at = format!("candidates[{index}]");
        let Some(language) = candidate.language.or(self.language) else {
            return Err(FieldError::new(
                format!("{at}.language"),
                "missing (the problem names no language either)",
            ));
        };
        let source_files = candidate.files(&at, || match self.deliverable_type {
            DeliverableType::Function => default_file_name(language),
            DeliverableType::Script | DeliverableType::Cli => self.entry_point.clone(),
        })?;
        Ok(TestSuite {
            deliverable_type: self.deliverable_type,
            language,
            entry_point: self.entry_point.clone(),
            source_files,
            timeout_ms: self.timeout_ms,
            float_tolerance: self.float_tolerance,
            test_cases: self.test_cases.clone(),
        })
    }
}

impl ProgrammingProblem {
    /// The Submission a candidate is judged as (`sub_id` is the candidate's id).
    /// `index` is the candidate's place in the batch, for the error's field.
    pub fn submission_for(
        &self,
        index: usize,
        candidate: &Candidate,
    ) -> Result<Submission, FieldError> {
        let at = format!("candidates[{index}]");
        let Some(language) = candidate.language else {
            return Err(FieldError::new(format!("{at}.language"), "missing"));
        };
        let source_files = candidate.files(&at, || default_file_name(language))?;
        Ok(Submission {
            sub_type: self.sub_type,
            category: self.category.clone(),
            prob_id: self.prob_id.clone(),
            sub_id: candidate.id.clone(),
            updated_at: self.updated_at,
            judge_tasks: self.judge_tasks.clone(),
            test_data: self.test_data.clone(),
            submission: Program::SourceCode(SourceCode {
                language,
                entry_point: candidate.entry_point.clone(),
                source_files,
                assist_files: candidate.assist_files.clone(),
                compile_command: candidate.compile_command.clone(),
            }),
            standard: self.standard.clone(),
            random: self.random.clone(),
            compare: self.compare.clone(),
            compare_protocol: self.compare_protocol,
        })
    }

    /// Whether judge task `index` is a test (counted in a candidate's fraction passed).
    pub fn is_test(&self, index: usize) -> bool {
        self.judge_tasks
            .get(index)
            .is_some_and(|t| t.run_script.is_some())
    }

    /// How many judge tasks are tests (those with a run script).
    pub fn test_count(&self) -> usize {
        self.judge_tasks
            .iter()
            .filter(|t| t.run_script.is_some())
            .count()
    }
}

/// The most candidates one batch may hold.
pub const MAX_CANDIDATES: usize = 100_000;

impl BatchRequest {
    /// Checks what the types cannot: unique non-empty ids, `code` or `source_files`, k >= 1.
    /// Each candidate's program is checked again as the Submission or suite it becomes.
    pub fn problems(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        if self.candidates.len() > MAX_CANDIDATES {
            errors.push(FieldError::new(
                "candidates",
                format!("at most {MAX_CANDIDATES} candidates per batch"),
            ));
        }
        let mut seen = HashSet::new();
        for (i, c) in self.candidates.iter().enumerate() {
            if c.id.is_empty() {
                errors.push(FieldError::new(format!("candidates[{i}].id"), "empty"));
            } else if !seen.insert(c.id.as_str()) {
                errors.push(FieldError::new(
                    format!("candidates[{i}].id"),
                    format!("{:?} is not unique", c.id),
                ));
            }
        }
        for (i, k) in self.options.pass_at_k.iter().enumerate() {
            if *k == 0 {
                errors.push(FieldError::new(
                    format!("options.pass_at_k[{i}]"),
                    "k must be at least 1",
                ));
            }
        }
        for (field, v) in [
            ("options.test_timeout_ms", self.options.test_timeout_ms),
            (
                "options.candidate_timeout_ms",
                self.options.candidate_timeout_ms,
            ),
        ] {
            if v == Some(0) {
                errors.push(FieldError::new(field, "must be positive"));
            }
        }
        errors
    }
}

/// Reads a batch from JSON text; `Err` names the field at fault (every problem, in order):
/// a value of the wrong type is named by its path (`candidates[1].language`,
/// `problem.test_cases[0].name`, `options.pass_at_k[0]`), text that is not JSON is
/// `batch (JSON)`.
pub fn parse_batch(text: &str) -> Result<BatchRequest, Vec<FieldError>> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| vec![FieldError::new("batch (JSON)", e.to_string())])?;
    let batch = typed_batch(&value).map_err(|e| vec![e])?;
    let errors = batch.problems();
    if errors.is_empty() {
        Ok(batch)
    } else {
        Err(errors)
    }
}

/// The batch as its types, or the first field that does not fit, by its path.
fn typed_batch(value: &serde_json::Value) -> Result<BatchRequest, FieldError> {
    use crate::parse::{misfit, typed_object};
    // The problem is tagged by `kind`, which hides the path inside it: read it again as the
    // kind it names to find the field.
    typed_object(value, "batch", |path| {
        let problem = value.get("problem").filter(|_| path == "problem")?;
        match problem.get("kind").and_then(serde_json::Value::as_str) {
            Some("suite") => misfit::<SuiteProblem>(problem),
            Some("programming") => misfit::<ProgrammingProblem>(problem),
            Some("dataset") => misfit::<DatasetProblem>(problem),
            _ => None,
        }
    })
}

/// A candidate's overall status: the contract's `JudgeStatus` for programming problems, the
/// oracle's case status for suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CandidateStatus {
    /// A programming problem's status (`Accepted`, `Wrong Answer`, ...).
    Judge(JudgeStatus),
    /// A suite's status (`passed`, `failed`, `error`, `timeout`, `invalid_test_format`).
    Case(OracleCaseStatus),
}

impl CandidateStatus {
    /// The wire string of this status.
    pub fn as_str(self) -> &'static str {
        match self {
            CandidateStatus::Judge(s) => s.as_str(),
            CandidateStatus::Case(s) => s.as_str(),
        }
    }
}

/// The judge, not the candidate, failed (design #27): drop the candidate, never score it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InfraError {
    /// What failed (a toolchain, the sandbox, the host, the cache, a fetch).
    pub message: String,
    /// Whether the same request may succeed when sent again (false: e.g. a missing toolchain).
    pub retryable: bool,
}

/// One candidate's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CandidateResult {
    /// The candidate's id.
    pub id: String,
    /// The first status that is not a pass (`Accepted` / `passed` when every test passed).
    pub status: CandidateStatus,
    /// Whether every test passed (and the judge did not fail).
    pub passed: bool,
    /// Tests passed / tests in the problem (tests not run count as not passed; 1 with no tests
    /// when `passed`).
    pub fraction: f64,
    /// Tests that passed.
    pub tests_passed: usize,
    /// Tests in the problem.
    pub tests_total: usize,
    /// Whether tests were left unrun (`stop_at_first_failure`, the candidate's time budget, a
    /// cancel); the per-test lists then hold only those that ran, in order.
    #[serde(default)]
    pub stopped_early: bool,
    /// Programming problems: one result per judge task that ran, in task order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<JudgeTaskResult>>,
    /// Suites: one result per case that ran, in suite order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<Vec<OracleCaseResult>>,
    /// Why tests were left unrun, or why the candidate could not be judged as sent (e.g. a
    /// suite's function module with the wrong extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Set when the judge failed: the status and tests mean nothing then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infra_error: Option<InfraError>,
    /// Set when an identical candidate (same language, files and options) was judged instead:
    /// its id (a result kept from an earlier batch names the id it was judged under there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
    /// Wall time spent judging it, in ms (0 for a result shared with an identical candidate).
    pub time_ms: u64,
}

impl CandidateResult {
    /// A result of `tests_passed` of `tests_total` tests ending in `status`, its `fraction` by
    /// the contract's rule (tests passed over tests; 1 with no tests when `passed`), nothing
    /// else set (no per-test lists, message, infra error, `same_as`; 0 ms).
    pub fn new(
        id: impl Into<String>,
        status: CandidateStatus,
        passed: bool,
        tests_passed: usize,
        tests_total: usize,
    ) -> Self {
        let fraction = if tests_total == 0 {
            f64::from(u8::from(passed))
        } else {
            tests_passed as f64 / tests_total as f64
        };
        CandidateResult {
            id: id.into(),
            status,
            passed,
            fraction,
            tests_passed,
            tests_total,
            stopped_early: false,
            results: None,
            cases: None,
            message: None,
            infra_error: None,
            same_as: None,
            time_ms: 0,
        }
    }
}

/// Counts and pass@k over a batch's candidates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchSummary {
    /// Candidates in the batch.
    pub candidates: usize,
    /// Candidates judged (the others shared an identical candidate's result or were cancelled).
    pub judged: usize,
    /// Candidates that passed.
    pub passed: usize,
    /// Candidates the judge failed on (left out of pass@k).
    pub infra_errors: usize,
    /// Candidates with no result (the batch was cancelled first).
    #[serde(default)]
    pub cancelled: usize,
    /// How many candidates ended in each status (infra errors not counted).
    pub statuses: BTreeMap<String, usize>,
    /// Mean fraction of tests passed (infra errors left out; 0 with none).
    pub mean_fraction: f64,
    /// pass@k by k (the unbiased estimator over the candidates without infra errors; `null`
    /// when fewer than k were judged).
    pub pass_at_k: BTreeMap<String, Option<f64>>,
    /// Wall time of the batch in ms.
    pub time_ms: u64,
}

/// A batch's results as a stream: each candidate as it finishes, then the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum BatchEvent {
    /// A candidate finished.
    Candidate(CandidateResult),
    /// Every candidate finished (the last event).
    Summary(BatchSummary),
}

/// Where an accepted batch is (HTTP: `GET /v1/batches/{id}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BatchState {
    /// Accepted (on disk), waiting for a worker.
    Queued,
    /// Candidates are being judged.
    Running,
    /// Every candidate has a result.
    Finished,
    /// Cancelled: the candidates judged before stay, the others have no result.
    Cancelled,
}

/// A snapshot of an accepted batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchStatus {
    /// The batch's id (the client's idempotency key, or one made for it).
    pub id: String,
    /// The category it was queued under.
    pub category: String,
    /// Where it is.
    pub state: BatchState,
    /// The results so far (in the order they finished; in the request's order once done).
    pub results: Vec<CandidateResult>,
    /// The summary, once finished or cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<BatchSummary>,
}

/// A whole batch's results: every candidate in the request's order, and the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchReport {
    /// One result per candidate, in the request's order.
    pub results: Vec<CandidateResult>,
    /// Counts and pass@k.
    pub summary: BatchSummary,
}

impl BatchSummary {
    /// The summary of `results` (one per candidate that finished) out of `candidates`.
    pub fn of(
        results: &[CandidateResult],
        candidates: usize,
        ks: &[u32],
        time_ms: u64,
    ) -> BatchSummary {
        let mut statuses = BTreeMap::new();
        let (mut passed, mut infra, mut judged, mut fractions) = (0, 0, 0, 0.0);
        for r in results {
            if r.same_as.is_none() {
                judged += 1;
            }
            if r.infra_error.is_some() {
                infra += 1;
                continue;
            }
            passed += usize::from(r.passed);
            fractions += r.fraction;
            *statuses.entry(r.status.as_str().to_owned()).or_insert(0) += 1;
        }
        let scored = results.len() - infra;
        let pass_at_k = ks
            .iter()
            .map(|&k| {
                let value = crate::pass_at_k::pass_at_k(scored as u64, passed as u64, u64::from(k));
                (k.to_string(), value)
            })
            .collect();
        BatchSummary {
            candidates,
            judged,
            passed,
            infra_errors: infra,
            cancelled: candidates.saturating_sub(results.len()),
            statuses,
            mean_fraction: if scored == 0 {
                0.0
            } else {
                fractions / scored as f64
            },
            pass_at_k,
            time_ms,
        }
    }
}

#[cfg(test)]
mod tests;
