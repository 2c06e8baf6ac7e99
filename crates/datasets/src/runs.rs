//! How a problem's programs run as the scheduler's batches, shared by the evaluation's test
//! kinds (`eval.rs`) and the programs in a record's own language (`program.rs`): the batch a
//! problem's candidates are judged in, one program's result, and the nonce marker of a passed
//! assertion script.

use crate::result::SampleResult;
use tokio::sync::mpsc;
use verdict_contracts::batch::{
    BatchEvent, BatchOptions, BatchProblem, BatchRequest, Candidate, CandidateResult, SuiteProblem,
};
use verdict_contracts::judge::Asset;
use verdict_contracts::oracle::{OracleCaseResult, OracleCaseStatus, TestSuite};
use verdict_oracle::OracleOptions;
use verdict_scheduler::{BatchCancel, BatchJudge, Judge};

/// How a dataset batch's programs run beyond [`EvalOptions`](crate::EvalOptions): the batch's stopping rules,
/// its cancel switch, and where each program's result goes as it finishes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Run {
    /// `stop_at_first_failure` and `candidate_timeout_ms` (the rest is applied by the caller).
    pub options: BatchOptions,
    /// Cancels the programs' boxes.
    pub cancel: BatchCancel,
    /// Each program's result (by index) as it finishes.
    pub sink: Option<mpsc::UnboundedSender<(usize, Judged)>>,
}

/// One program's result as a batch reports it.
#[derive(Debug, Clone)]
pub(crate) struct Judged {
    /// The sample's result (its tests as far as they ran).
    pub sample: SampleResult,
    /// Whether tests were left unrun (the batch's stopping rules).
    pub stopped_early: bool,
    /// Why tests were left unrun.
    pub message: Option<String>,
    /// The program whose result this one shares (identical programs are judged once).
    pub same_as: Option<usize>,
    /// Wall time spent judging it.
    pub time_ms: u64,
}

impl Judged {
    /// A result with nothing stopped and no duplicate.
    pub(crate) fn of(sample: SampleResult) -> Judged {
        Judged {
            sample,
            stopped_early: false,
            message: None,
            same_as: None,
            time_ms: 0,
        }
    }
}

/// A problem's suite and how its candidates run.
pub(crate) struct Batch<'a> {
    /// The judge whose sandbox and run slots are used.
    pub judge: &'a Judge,
    /// The oracle's options (limits).
    pub oracle: OracleOptions,
    /// Time limit of one test in ms.
    pub timeout_ms: u64,
    /// The batch's stopping rules, cancel switch and result stream.
    pub run: &'a Run,
}

/// What one candidate's suite gave: its case results, or its sample result when the judge
/// or the candidate's files failed.
pub(crate) type Ran = Result<Vec<OracleCaseResult>, SampleResult>;

impl Batch<'_> {
    /// The same result for every program (the judge cannot run the problem), each sent on the
    /// run's sink.
    pub(crate) fn all(
        &self,
        n: usize,
        message: &str,
        retryable: bool,
        tests: usize,
    ) -> Vec<Judged> {
        self.fixed(n, || {
            SampleResult::infra(message.to_string(), retryable, tests)
        })
    }

    /// `sample()` for each of `n` programs (nothing to run), each sent on the run's sink.
    pub(crate) fn fixed(&self, n: usize, sample: impl Fn() -> SampleResult) -> Vec<Judged> {
        (0..n)
            .map(|i| {
                let judged = Judged::of(sample());
                if let Some(sink) = &self.run.sink {
                    let _ = sink.send((i, judged.clone()));
                }
                judged
            })
            .collect()
    }

    /// Judges one candidate per entry of `files` (the program's index and its files) against
    /// `suite` (whose `source_files` are ignored); `finish` makes each candidate's sample
    /// result of what its suite gave. Each result goes to the run's sink as it finishes;
    /// all come back by program index.
    pub(crate) async fn run(
        &self,
        suite: &TestSuite,
        files: Vec<(usize, Vec<Asset>)>,
        finish: &(dyn Fn(usize, Ran) -> SampleResult + Sync),
    ) -> Vec<(usize, Judged)> {
        let problem = SuiteProblem {
            deliverable_type: suite.deliverable_type,
            language: Some(suite.language),
            entry_point: suite.entry_point.clone(),
            timeout_ms: suite.timeout_ms,
            float_tolerance: suite.float_tolerance,
            test_cases: suite.test_cases.clone(),
        };
        let tests = suite.test_cases.len();
        let candidates: Vec<Candidate> = files
            .into_iter()
            .map(|(i, source_files)| Candidate {
                id: i.to_string(),
                language: None,
                code: None,
                source_files,
                assist_files: Vec::new(),
                entry_point: None,
                compile_command: None,
            })
            .collect();
        let options = BatchOptions {
            stop_at_first_failure: self.run.options.stop_at_first_failure,
            candidate_timeout_ms: self.run.options.candidate_timeout_ms,
            ..BatchOptions::default()
        };
        let batches = BatchJudge::new(self.judge.clone(), self.oracle.clone());
        let judged_of = |result: CandidateResult| -> (usize, Judged) {
            let index = result.id.parse().unwrap_or(usize::MAX);
            let stopped_early = result.stopped_early && result.infra_error.is_none();
            let mut sample = finish(index, cases_of(result.clone(), tests));
            if stopped_early && sample.passed {
                // Every test that ran passed, and the candidate's budget stopped the rest.
                sample.passed = false;
                sample.status = crate::SampleStatus::Timeout;
                sample.result = "timed out".into();
            }
            let judged = Judged {
                stopped_early,
                message: result.message.clone().filter(|_| stopped_early),
                same_as: result.same_as.as_deref().and_then(|id| id.parse().ok()),
                time_ms: result.time_ms,
                sample,
            };
            if let Some(sink) = &self.run.sink {
                let _ = sink.send((index, judged.clone()));
            }
            (index, judged)
        };
        let request = BatchRequest {
            problem: BatchProblem::Suite(problem.clone()),
            candidates: candidates.clone(),
            options: options.clone(),
        };
        let (tx, mut rx) = mpsc::unbounded_channel();
        let running = batches.run(request, Some(tx), self.run.cancel.clone());
        let collecting = async {
            let mut out = Vec::new();
            while let Some(event) = rx.recv().await {
                if let BatchEvent::Candidate(result) = event {
                    out.push(judged_of(result));
                }
            }
            out
        };
        let (ran, out) = tokio::join!(running, collecting);
        if ran.is_ok() {
            return out;
        }
        // One candidate's files made the batch invalid: each alone, so that only its own
        // result says so.
        let mut out = Vec::new();
        for candidate in candidates {
            let request = BatchRequest {
                problem: BatchProblem::Suite(problem.clone()),
                candidates: vec![candidate.clone()],
                options: options.clone(),
            };
            let result = match batches.run(request, None, self.run.cancel.clone()).await {
                Ok(mut report) if report.results.len() == 1 => report.results.remove(0),
                Ok(_) => unjudged(&candidate.id, "no result", tests),
                Err(errors) => {
                    let message: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    unjudged(&candidate.id, &message.join("; "), tests)
                }
            };
            out.push(judged_of(result));
        }
        out
    }
}

/// Results by program index (`n` programs), each program's from `judged`; a program without
/// one is an infra error (retryable: the judge lost it).
pub(crate) fn in_order(n: usize, judged: Vec<(usize, Judged)>, tests: usize) -> Vec<Judged> {
    let mut slots: Vec<Option<Judged>> = vec![None; n];
    for (i, j) in judged {
        if let Some(slot) = slots.get_mut(i) {
            *slot = Some(j);
        }
    }
    slots
        .into_iter()
        .map(|j| {
            j.unwrap_or_else(|| Judged::of(SampleResult::infra("no result".into(), true, tests)))
        })
        .collect()
}

/// A candidate the batch refused (its files): the oracle's own refusal, as before batches.
fn unjudged(id: &str, message: &str, tests: usize) -> CandidateResult {
    let status = verdict_contracts::batch::CandidateStatus::Case(OracleCaseStatus::Error);
    CandidateResult {
        cases: Some(Vec::new()),
        message: Some(message.to_string()),
        infra_error: Some(verdict_contracts::batch::InfraError {
            message: message.to_string(),
            retryable: false,
        }),
        ..CandidateResult::new(id, status, false, 0, tests)
    }
}

/// A candidate's case results, or its sample result when the judge failed (`infra_error`) or
/// its files could not be judged at all (no case ran, a message says why: not retryable).
fn cases_of(result: CandidateResult, tests: usize) -> Result<Vec<OracleCaseResult>, SampleResult> {
    if let Some(infra) = result.infra_error {
        return Err(SampleResult::infra(infra.message, infra.retryable, tests));
    }
    let cases = result.cases.unwrap_or_default();
    match result.message {
        Some(message) if cases.is_empty() && tests > 0 => {
            Err(SampleResult::infra(message, false, tests))
        }
        _ => Ok(cases),
    }
}

/// A fresh marker per run: 32 hex digits nobody outside this process has seen.
pub(crate) fn marker() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = blake3::Hasher::new();
    let mut seed = [0u8; 32];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = std::io::Read::read_exact(&mut f, &mut seed);
    }
    hasher.update(&seed);
    hasher.update(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.update(&now.to_le_bytes());
    hasher.update(&std::process::id().to_le_bytes());
    format!("verdict-passed-{}", &hasher.finalize().to_hex()[..32])
}
