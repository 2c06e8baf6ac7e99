//! What may stop a candidate before its last test, decided by the judge from outside the
//! candidate's box: a failed test (with `stop_at_first_failure`), the candidate's time budget,
//! or the batch's cancellation. Nothing the candidate prints or writes is read here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use verdict_contracts::batch::InfraError;
use verdict_scripts::CancelToken;

/// A batch's cancel switch: shared by its front end and its running candidates.
#[derive(Debug, Clone, Default)]
pub struct BatchCancel(Arc<AtomicBool>, CancelToken);

impl BatchCancel {
    /// A switch that is off.
    pub fn new() -> Self {
        BatchCancel::default()
    }

    /// Cancels: no candidate starts after this, and the boxes of running ones are killed at
    /// once (the test or case running then is dropped, never scored).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
        self.1.cancel();
    }

    /// Whether the batch was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// The token of the batch's runs, given to each of its candidates' runs (a front end that
    /// runs a candidate itself gives it to its runs so that cancelling kills its boxes too).
    pub fn runs(&self) -> &CancelToken {
        &self.1
    }
}

/// Why a candidate stopped before its last test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Halt {
    /// A test did not pass and the batch stops at the first failure.
    Failure,
    /// The candidate's time budget ran out.
    Budget,
    /// The batch was cancelled.
    Cancelled,
}

impl Halt {
    /// The candidate result's `message`.
    pub fn message(self) -> &'static str {
        match self {
            Halt::Failure => "stopped at the first test that did not pass",
            Halt::Budget => "the candidate's time budget ran out; the tests left were not run",
            Halt::Cancelled => "the batch was cancelled; the tests left were not run",
        }
    }
}

/// One candidate's stopping rules.
#[derive(Debug, Clone)]
pub(crate) struct Control {
    /// Stop at the first test that does not pass.
    pub stop_at_first_failure: bool,
    /// When the candidate started.
    pub started: Instant,
    /// Its time budget's end.
    pub deadline: Option<Instant>,
    /// The batch's cancel switch.
    pub cancel: BatchCancel,
}

impl Control {
    /// The rules for a candidate starting now.
    pub fn start(stop_at_first_failure: bool, budget_ms: Option<u64>, cancel: BatchCancel) -> Self {
        let started = Instant::now();
        Control {
            stop_at_first_failure,
            started,
            deadline: budget_ms.map(|ms| started + Duration::from_millis(ms)),
            cancel,
        }
    }

    /// Whether to start no more tests, and why.
    pub fn halt(&self) -> Option<Halt> {
        if self.cancel.is_cancelled() {
            Some(Halt::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(Halt::Budget)
        } else {
            None
        }
    }

    /// A cancelled candidate's result is the judge's doing: never a score.
    pub fn cancelled_error(&self, halt: Option<Halt>) -> Option<InfraError> {
        (halt == Some(Halt::Cancelled)).then(|| InfraError {
            message: Halt::Cancelled.message().to_owned(),
            retryable: true,
        })
    }

    /// Milliseconds since the candidate started.
    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
