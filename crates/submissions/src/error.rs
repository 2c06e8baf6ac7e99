//! Why a submission was not accepted or could not be read: the crate's one error type. It knows
//! nothing of HTTP; the server maps each variant to a status in one place.

use crate::db::DbError;

/// Why the store or the queue refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum SubmissionError {
    /// A submission with this key is still queued or running.
    #[error("sub_id: submission {sub_id:?} is still queued or running")]
    Conflict {
        /// The `sub_id` in flight.
        sub_id: String,
    },
    /// The queue is full.
    #[error("the queue is full ({capacity} submissions waiting); retry later")]
    QueueFull {
        /// How many submissions may wait.
        capacity: usize,
        /// When a place is expected to free, in whole seconds.
        retry_after_secs: u64,
    },
    /// The queue's byte budget would be passed: the requests waiting and this one together are
    /// more than `queue_budget_mb`.
    #[error(
        "the queue is full by bytes: {waiting} bytes of requests wait and this one has {bytes}, over the budget of {budget} bytes (queue_budget_mb); retry later"
    )]
    QueueBytesFull {
        /// This request's size.
        bytes: usize,
        /// The bytes of the requests waiting.
        waiting: usize,
        /// The budget.
        budget: usize,
        /// When a place is expected to free, in whole seconds.
        retry_after_secs: u64,
    },
    /// The queue stopped accepting (shutdown).
    #[error("the queue accepts no new submissions (shutting down)")]
    ShuttingDown,
    /// The store's disk did not commit the submission within the accept's deadline
    /// (`store_timeout_ms`): nothing was accepted (a commit that ends later is taken back).
    #[error(
        "the submission store's disk did not commit within {waited_ms} ms; nothing was accepted: retry later"
    )]
    Stalled {
        /// How long the accept waited.
        waited_ms: u64,
    },
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// Something else failed (a stored report that no longer reads, a panicked disk task).
    #[error("submission store: {0}")]
    Internal(String),
}
