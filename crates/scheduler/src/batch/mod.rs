//! Batches (design #26, #27): one problem, many candidates, each judged with the plan a single
//! Submission or suite would get, a result per candidate streamed as it finishes.
//!
//! - The problem is checked once, and every candidate's Submission or suite before anything runs
//!   (an error names `candidates[i]...`).
//! - Its data and programs are fetched and compiled once per problem version (the judge's
//!   problem cache, as for submissions); each candidate is compiled once (its tasks share its
//!   build).
//! - Candidates with the same content address ([`key`]) are judged once and reported under
//!   every id (`same_as`), also across batches while the result is kept.
//! - A candidate's tests run in order on one blocking thread holding one of the judge's run
//!   permits; the batch keeps as many candidates in flight as the judge has permits.
//! - Stopping ([`control`]) is decided outside the box.

mod control;
mod infra;
mod key;
mod program;
mod suite;

pub use control::BatchCancel;

use crate::pipeline::Judge;
use control::Control;
use key::{Key, ResultCache, candidate_key, problem_hasher};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{Semaphore, mpsc};
use verdict_contracts::FieldError;
use verdict_contracts::batch::{
    BatchEvent, BatchOptions, BatchProblem, BatchReport, BatchRequest, BatchSummary, Candidate,
    CandidateResult, CandidateStatus, InfraError,
};
use verdict_contracts::oracle::OracleReport;
use verdict_contracts::oracle::{OracleCaseStatus, TestSuite, check_suite};
use verdict_contracts::{JudgeStatus, Submission};
use verdict_oracle::{OracleError, OracleOptions, run_suite};

/// How many candidates' results a [`BatchJudge`] keeps for identical candidates of later batches.
pub const DEFAULT_RESULT_CACHE: usize = 4096;

/// Judges batches with a [`Judge`] (its sandbox, cache, profiles and run permits) and the
/// oracle's options for suites.
#[derive(Debug, Clone)]
pub struct BatchJudge {
    judge: Judge,
    oracle: OracleOptions,
    results: Arc<ResultCache>,
}

/// One unit of judging: a candidate made into a Submission or a suite.
enum Unit {
    Program(Box<Submission>),
    Suite(Box<TestSuite>),
    /// The host cannot judge it (a toolchain or an interpreter is missing).
    Infra(InfraError),
}

/// A group of identical candidates: the first is judged, the others share its result.
struct Group {
    key: Key,
    members: Vec<usize>,
}

impl BatchJudge {
    /// A batch judge over `judge`, judging suites with `oracle`.
    pub fn new(judge: Judge, oracle: OracleOptions) -> Self {
        BatchJudge {
            judge,
            oracle,
            results: Arc::new(ResultCache::new(DEFAULT_RESULT_CACHE)),
        }
    }

    /// The judge underneath.
    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// The oracle's options suites are judged with.
    pub fn oracle(&self) -> &OracleOptions {
        &self.oracle
    }

    /// Checks a batch as [`BatchJudge::run`] will, without running anything: every problem
    /// with it, each naming its field.
    pub fn check(&self, batch: &BatchRequest) -> Result<(), Vec<FieldError>> {
        check_batch(batch, &self.oracle)
    }

    /// Checks a batch once and keeps it as a [`ValidBatch`], which
    /// [`BatchJudge::run_valid`] judges without checking it again.
    pub fn validate(&self, batch: BatchRequest) -> Result<ValidBatch, Vec<FieldError>> {
        ValidBatch::check(batch, &self.oracle)
    }

    /// Checks a batch, then judges it ([`BatchJudge::run_valid`]). `Err` when the batch is
    /// invalid (nothing ran).
    pub async fn run(
        &self,
        batch: BatchRequest,
        events: Option<mpsc::UnboundedSender<BatchEvent>>,
        cancel: BatchCancel,
    ) -> Result<BatchReport, Vec<FieldError>> {
        let batch = self.validate(batch)?;
        Ok(self.run_valid(batch, events, cancel).await)
    }

    /// Judges a checked batch: sends each candidate's result on `events` as it finishes (then
    /// the summary) and returns them all in the request's order. After `cancel`, no candidate
    /// starts; running ones stop before their next test and report an `infra_error`.
    pub async fn run_valid(
        &self,
        batch: ValidBatch,
        events: Option<mpsc::UnboundedSender<BatchEvent>>,
        cancel: BatchCancel,
    ) -> BatchReport {
        let started = Instant::now();
        self.judge.warm_once();
        let BatchRequest {
            problem,
            candidates,
            options,
        } = batch.into_request();
        let problem = Arc::new(capped(&problem, &options));
        let base = problem_hasher(&problem, &options);
        let mut groups: Vec<Group> = Vec::new();
        let mut by_key: HashMap<Key, usize> = HashMap::new();
        for (i, candidate) in candidates.iter().enumerate() {
            let key = candidate_key(&base, candidate);
            match by_key.get(&key) {
                Some(&g) => groups[g].members.push(i),
                None => {
                    by_key.insert(key.clone(), groups.len());
                    groups.push(Group {
                        key,
                        members: vec![i],
                    });
                }
            }
        }
        let candidates = Arc::new(candidates);
        let mut slots: Vec<Option<CandidateResult>> = vec![None; candidates.len()];
        // (group, result, whether it was judged now rather than kept from an earlier batch)
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(usize, CandidateResult, bool)>();
        let in_flight = Arc::new(Semaphore::new(self.judge.config().parallelism.max(1)));
        let driver = {
            let (this, problem, candidates) = (self.clone(), problem.clone(), candidates.clone());
            let (options, cancel) = (options.clone(), cancel.clone());
            let groups: Vec<(usize, Key, usize)> = groups
                .iter()
                .enumerate()
                .map(|(g, group)| (g, group.key.clone(), group.members[0]))
                .collect();
            async move {
                for (g, key, first) in groups {
                    if let Some(cached) = this.results.get(&key) {
                        let _ = done_tx.send((g, cached, false));
                        continue;
                    }
                    let Ok(permit) = in_flight.clone().acquire_owned().await else {
                        break;
                    };
                    if cancel.is_cancelled() {
                        break;
                    }
                    let (this, problem, candidates) =
                        (this.clone(), problem.clone(), candidates.clone());
                    let (options, cancel, done_tx) =
                        (options.clone(), cancel.clone(), done_tx.clone());
                    tokio::spawn(async move {
                        let result = this
                            .judge_one(&problem, &candidates, first, &options, cancel)
                            .await;
                        this.results.put(key, &result);
                        drop(permit);
                        let _ = done_tx.send((g, result, true));
                    });
                }
            }
        };
        let collector = async {
            while let Some((g, result, fresh)) = done_rx.recv().await {
                for (n, &i) in groups[g].members.iter().enumerate() {
                    let mut shared = result.clone();
                    shared.id.clone_from(&candidates[i].id);
                    if n > 0 || !fresh {
                        shared.same_as = Some(result.id.clone());
                        shared.time_ms = 0;
                    }
                    if let Some(events) = &events {
                        let _ = events.send(BatchEvent::Candidate(shared.clone()));
                    }
                    slots[i] = Some(shared);
                }
            }
        };
        tokio::join!(driver, collector);
        let results: Vec<CandidateResult> = slots.into_iter().flatten().collect();
        let time_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let summary = BatchSummary::of(&results, candidates.len(), &options.pass_at_k, time_ms);
        if let Some(events) = &events {
            let _ = events.send(BatchEvent::Summary(summary.clone()));
        }
        BatchReport { results, summary }
    }

    /// Judges one Task Oracle suite whole, as `POST /v1/oracle` answers it (its own
    /// [`OracleReport`], the oracle's options unchanged), holding one of the judge's run permits
    /// (shared with submissions and batch candidates) on one blocking thread. No case starts
    /// after `deadline` and a function suite's interpreter is stopped there (the cases left are
    /// reported not run): a suite ends, and gives its permit back, when its request does.
    /// `cancel` kills its runs at once (its caller went away).
    pub async fn suite(
        &self,
        suite: TestSuite,
        deadline: Option<Instant>,
        cancel: BatchCancel,
    ) -> Result<OracleReport, OracleError> {
        let failed = |message: String| OracleError::Io {
            action: "run the suite in",
            path: self.judge.config().work_dir.clone(),
            source: std::io::Error::other(message),
        };
        let Ok(_permit) = self.judge.inner.permits.acquire().await else {
            return Err(failed("the judge is shutting down".into()));
        };
        let (judge, mut options) = (self.judge.clone(), self.oracle.clone());
        options.deadline = match (options.deadline, deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        tokio::task::spawn_blocking(move || {
            run_suite(judge.executor(), cancel.runs(), &suite, &options)
        })
        .await
        .unwrap_or_else(|err| Err(failed(format!("judging the suite panicked: {err}"))))
    }

    /// Judges candidate `i` on the judge's pool (one run permit, one blocking thread).
    async fn judge_one(
        &self,
        problem: &Arc<BatchProblem>,
        candidates: &Arc<Vec<Candidate>>,
        i: usize,
        options: &BatchOptions,
        cancel: BatchCancel,
    ) -> CandidateResult {
        let id = candidates[i].id.clone();
        let (tests, program) = (test_count(problem), is_program(problem));
        let Ok(_permit) = self.judge.inner.permits.acquire().await else {
            let infra = InfraError {
                message: "the judge is shutting down".into(),
                retryable: true,
            };
            return infra_result(id, tests, program, infra);
        };
        let (this, problem, candidates) = (self.clone(), problem.clone(), candidates.clone());
        let (stop, budget) = (options.stop_at_first_failure, options.candidate_timeout_ms);
        let work = move || {
            // Every box the candidate starts is killed at once by the batch's cancel: its
            // control holds the token and gives it to every run.
            let control = Control::start(stop, budget, cancel);
            let unit = match this.unit(&problem, i, &candidates[i]) {
                Ok(unit) => unit,
                Err(errors) => Unit::Infra(InfraError {
                    message: format!("{errors:?}"),
                    retryable: false,
                }),
            };
            let id = candidates[i].id.clone();
            let mut result = match (unit, &*problem) {
                (Unit::Program(submission), BatchProblem::Programming(p)) => {
                    program::judge_program(&this.judge.inner, p, *submission, &control)
                }
                (Unit::Suite(suite), _) => {
                    suite::judge_suite(this.judge.executor(), id, &suite, &this.oracle, &control)
                }
                (Unit::Infra(infra), problem) => {
                    infra_result(id, test_count(problem), is_program(problem), infra)
                }
                (Unit::Program(_), problem) => infra_result(
                    id,
                    test_count(problem),
                    false,
                    InfraError {
                        message: "a program candidate of a suite problem".into(),
                        retryable: false,
                    },
                ),
            };
            // The judge's directories are the operator's business: `<work>`.
            if let Some(infra) = &mut result.infra_error {
                let config = &this.judge.inner.config;
                crate::pipeline::hide_host_paths(&mut infra.message, config, &result.id);
            }
            result
        };
        match tokio::task::spawn_blocking(work).await {
            Ok(result) => result,
            Err(err) => infra_result(
                id,
                tests,
                program,
                InfraError {
                    message: format!("judging the candidate panicked: {err}"),
                    retryable: true,
                },
            ),
        }
    }

    /// Candidate `i` as the Submission or suite it becomes, or why this host cannot judge it;
    /// `Err` when the candidate itself is invalid (naming `candidates[i]...`).
    fn unit(
        &self,
        problem: &BatchProblem,
        i: usize,
        candidate: &Candidate,
    ) -> Result<Unit, Vec<FieldError>> {
        Ok(match checked(problem, i, candidate, &self.oracle)? {
            Unit::Program(submission) => {
                let language = submission.submission.source().language;
                match infra::toolchain_missing(self.judge.profiles(), language) {
                    Some(infra) => Unit::Infra(infra),
                    None => Unit::Program(submission),
                }
            }
            Unit::Suite(suite) => {
                match infra::interpreter_missing(&self.oracle.interpreters, suite.language) {
                    Some(infra) => Unit::Infra(infra),
                    None => Unit::Suite(suite),
                }
            }
            infra @ Unit::Infra(_) => infra,
        })
    }
}

/// A batch request that passed [`check_batch`]: made only by checking, so that
/// [`BatchJudge::run_valid`] judges it without checking it again (docs/batches.md, "Checked
/// once").
#[derive(Debug, Clone)]
pub struct ValidBatch {
    request: BatchRequest,
}

impl ValidBatch {
    /// Checks `batch` as [`check_batch`] does and keeps it when it passes.
    pub fn check(batch: BatchRequest, oracle: &OracleOptions) -> Result<Self, Vec<FieldError>> {
        check_batch(&batch, oracle)?;
        Ok(ValidBatch { request: batch })
    }

    /// The request.
    pub fn request(&self) -> &BatchRequest {
        &self.request
    }

    /// The request, given back.
    pub fn into_request(self) -> BatchRequest {
        self.request
    }
}

/// Checks a batch without a judge (what a front end that judges nothing can check): every
/// problem [`BatchJudge::check`] finds, each naming its field; `oracle` says which languages
/// suites run in. Whether this host has a toolchain is not checked (a missing one is a
/// candidate's `infra_error`, not the batch's fault).
pub fn check_batch(batch: &BatchRequest, oracle: &OracleOptions) -> Result<(), Vec<FieldError>> {
    let mut errors = batch.problems();
    if errors.is_empty() {
        let problem = capped(&batch.problem, &batch.options);
        for (i, candidate) in batch.candidates.iter().enumerate() {
            // A problem's own error comes back with every candidate: named once.
            for e in checked(&problem, i, candidate, oracle)
                .err()
                .unwrap_or_default()
            {
                if !errors.contains(&e) {
                    errors.push(e);
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The candidates of a batch judged once for all, by index: each group's members have the same
/// content address (the whole problem, the options and the candidate without its id); the
/// first is judged. Groups come in the request's order of their first members.
pub fn identical_groups(batch: &BatchRequest) -> Vec<Vec<usize>> {
    let problem = capped(&batch.problem, &batch.options);
    let base = problem_hasher(&problem, &batch.options);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key: HashMap<Key, usize> = HashMap::new();
    for (i, candidate) in batch.candidates.iter().enumerate() {
        let key = candidate_key(&base, candidate);
        match by_key.get(&key) {
            Some(&g) => groups[g].push(i),
            None => {
                by_key.insert(key, groups.len());
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// Candidate `i` as the Submission or suite it becomes (never `Unit::Infra`); `Err` when it is
/// invalid (naming `candidates[i]...` or `problem...`).
fn checked(
    problem: &BatchProblem,
    i: usize,
    candidate: &Candidate,
    oracle: &OracleOptions,
) -> Result<Unit, Vec<FieldError>> {
    let at = format!("candidates[{i}]");
    match problem {
        BatchProblem::Programming(p) => {
            let submission = p.submission_for(i, candidate).map_err(|e| vec![e])?;
            let problems = submission.problems();
            if !problems.is_empty() {
                return Err(problems
                    .into_iter()
                    .map(|e| FieldError::new(renamed(&e.field, &at), e.message))
                    .collect());
            }
            Ok(Unit::Program(Box::new(submission)))
        }
        BatchProblem::Suite(p) => {
            let suite = p.suite_for(i, candidate).map_err(|e| vec![e])?;
            check_suite(&suite)
                .map_err(|e| vec![FieldError::new(renamed(&e.field, &at), e.message)])?;
            if oracle.interpreters.command(suite.language).is_none() {
                return Err(vec![FieldError::new(
                    format!("{at}.language"),
                    format!(
                        "{} is not run by the oracle (python3, js, bash)",
                        suite.language
                    ),
                )]);
            }
            Ok(Unit::Suite(Box::new(suite)))
        }
        // Read and judged by `verdict-datasets` (its `Batches`), which sits above this crate.
        BatchProblem::Dataset(_) => Err(vec![FieldError::new(
            "problem.kind",
            "dataset problems are judged by verdict_datasets::batch::Batches, not BatchJudge",
        )]),
    }
}

/// A field of the Submission or suite a candidate became, named in the batch: the program's
/// fields (`submission.source_files[0]`, `source_files[0]`) under `candidates[i]`, the
/// problem's under `problem`.
fn renamed(field: &str, at: &str) -> String {
    if let Some(rest) = field.strip_prefix("submission.") {
        format!("{at}.{rest}")
    } else if field.starts_with("source_files") || field == "language" {
        format!("{at}.{field}")
    } else {
        format!("problem.{field}")
    }
}

/// The problem with every test's time limit capped by `test_timeout_ms`.
fn capped(problem: &BatchProblem, options: &BatchOptions) -> BatchProblem {
    let mut problem = problem.clone();
    let Some(cap) = options.test_timeout_ms else {
        return problem;
    };
    match &mut problem {
        BatchProblem::Suite(suite) => {
            suite.timeout_ms = Some(suite.timeout_ms.map_or(cap, |t| t.min(cap)));
        }
        BatchProblem::Programming(p) => {
            let cap = i64::try_from(cap).unwrap_or(i64::MAX);
            for task in p.judge_tasks.iter_mut().filter(|t| t.run_script.is_some()) {
                if task.time_limit < 0 || task.time_limit > cap {
                    task.time_limit = cap;
                }
            }
        }
        BatchProblem::Dataset(_) => {}
    }
    problem
}

fn is_program(problem: &BatchProblem) -> bool {
    matches!(problem, BatchProblem::Programming(_))
}

fn test_count(problem: &BatchProblem) -> usize {
    match problem {
        BatchProblem::Programming(p) => p.test_count(),
        BatchProblem::Suite(s) => s.test_cases.len(),
        BatchProblem::Dataset(_) => 0,
    }
}

/// A candidate that did not pass, with no tests run.
pub(crate) fn failed(id: String, status: CandidateStatus, tests_total: usize) -> CandidateResult {
    CandidateResult::new(id, status, false, 0, tests_total)
}

/// A candidate the judge failed on: `System Error` (programs) or `error` (suites), and `infra`.
pub(crate) fn infra_result(
    id: String,
    tests_total: usize,
    program: bool,
    infra: InfraError,
) -> CandidateResult {
    let status = if program {
        CandidateStatus::Judge(JudgeStatus::SystemError)
    } else {
        CandidateStatus::Case(OracleCaseStatus::Error)
    };
    CandidateResult {
        infra_error: Some(infra),
        ..failed(id, status, tests_total)
    }
}
