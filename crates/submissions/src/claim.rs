//! Accepting under a deadline ([`AcceptClaim`]): an accept whose commit to disk outlives its
//! caller's deadline (a stalled or frozen data disk) is answered "not accepted", and the commit
//! that ends later is taken back, so the answer and the outcome agree.

use crate::entry::Entry;
use crate::error::SubmissionError;
use crate::store::Store;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Who decides an accept whose commit outlived its caller's deadline: the accepting task once
/// the commit is on disk ([`AcceptClaim::stand`]), or the caller at its deadline
/// ([`AcceptClaim::wait`]); whichever comes first wins, so the answer and the outcome agree.
#[derive(Debug)]
pub struct AcceptClaim {
    state: std::sync::atomic::AtomicU8,
    started: std::time::Instant,
}

impl Default for AcceptClaim {
    fn default() -> Self {
        AcceptClaim {
            state: std::sync::atomic::AtomicU8::new(Self::PENDING),
            started: std::time::Instant::now(),
        }
    }
}

impl AcceptClaim {
    const PENDING: u8 = 0;
    const COMMITTED: u8 = 1;
    const ABANDONED: u8 = 2;

    /// The accepting task's side, once its commit is on disk: `Ok` when the accept stands;
    /// when the caller gave up first, the late commit is taken back (`entry` withdrawn, the
    /// finished `previous` it replaced restored) and it is [`SubmissionError::Stalled`].
    pub async fn stand(
        &self,
        store: &Store,
        entry: &Arc<Entry>,
        previous: Option<Arc<Entry>>,
    ) -> Result<(), SubmissionError> {
        if self.commit() {
            return Ok(());
        }
        store.withdraw(entry, previous).await;
        Err(self.stalled())
    }

    /// The caller's side: waits for `commit` (the accepting task, or a signal it sends once its
    /// commit stands) until `deadline` (none: as long as it takes). `Some` of its output when it
    /// came in time; `None` when the deadline passed just after the commit (the accept stands:
    /// the caller waits on); [`SubmissionError::Stalled`] when the deadline came first, and then
    /// nothing is accepted.
    pub async fn wait<F: std::future::Future>(
        &self,
        deadline: Option<tokio::time::Instant>,
        commit: F,
    ) -> Result<Option<F::Output>, SubmissionError> {
        let Some(deadline) = deadline else {
            return Ok(Some(commit.await));
        };
        match tokio::time::timeout_at(deadline, commit).await {
            Ok(output) => Ok(Some(output)),
            Err(_) if !self.abandon() => Ok(None),
            Err(_) => Err(self.stalled()),
        }
    }

    fn stalled(&self) -> SubmissionError {
        SubmissionError::Stalled {
            waited_ms: self.waited_ms(),
        }
    }

    /// The commit is done: whether the accept stands (the caller had not given up).
    fn commit(&self) -> bool {
        self.state
            .compare_exchange(
                Self::PENDING,
                Self::COMMITTED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// The caller's deadline passed: whether it gave up (the commit was not done yet).
    fn abandon(&self) -> bool {
        self.state
            .compare_exchange(
                Self::PENDING,
                Self::ABANDONED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// How long the accept has waited, in ms.
    fn waited_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
