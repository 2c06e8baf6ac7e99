//! verdict-submissions: the submissions a server has accepted, with no HTTP in it.
//!
//! - [`Store`]: every submission by `(category, sub_id)` ([`SubKey`]: each category is a
//!   namespace), written to an SQLite file in the server's `data_dir` before the client hears
//!   it was accepted, its progress ([`Entry`]: per-task results as they stream in, event
//!   streams' cursors, the final report) in memory, finished ones kept for their retention.
//! - [`Jobs`]: the bounded queue that judges accepted submissions with a
//!   [`Judge`](verdict_scheduler::Judge) (per-category quotas, worker slots), and drains on
//!   shutdown.
//! - Start-up recovery, once: [`Store::open`] reads back what a previous run accepted and did
//!   not finish, [`Store::recover`] puts it back in memory and [`Jobs::recover`] judges it again.
//! - [`Metrics`]: the counters and histograms `/metrics` shows, in the Prometheus text format.
//! - [`batches::Batches`]: accepted batches (one problem, many candidates), durable, queued
//!   with fair sharing between categories, streamed and cancellable.
//! - The Agent Lab runs the server made ([`KeptLabRun`]), in the same database, listed after a
//!   restart.
//! - Judge0's submissions by token ([`KeptJudge0`]), in the same database, pending ones run
//!   again after a restart (docs/compat.md).
//! - [`read_submission`]: a Submission read and checked once, as a server takes it (its ids,
//!   the operator's caps).
//! - [`SubmissionError`]: why a submission was refused; the server maps it to HTTP in one place.
//!
//! ```no_run
//! # async fn demo(judge: verdict_scheduler::Judge, text: String) -> anyhow::Result<()> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use verdict_submissions::{Jobs, Metrics, Store};
//! let submission = verdict_contracts::parse_submission(&text)?; // validated once, here
//! let (store, unfinished) = Store::open("data".as_ref(), Duration::from_secs(3600), 10_000)?;
//! let (store, metrics) = (Arc::new(store), Arc::new(Metrics::default()));
//! let jobs = Arc::new(Jobs::new(judge, metrics, store, 256, 2, &Default::default()));
//! jobs.recover(unfinished);
//! let entry = jobs.accept(submission, text, None).await?;
//! let report = entry.wait().await;
//! # Ok(()) }
//! ```

pub mod batches;
mod claim;
mod db;
mod entry;
mod error;
mod ids;
mod jobs;
mod judge0;
mod lab_runs;
mod metrics;
mod plan;
mod store;

pub use claim::AcceptClaim;
pub use db::{DbError, Phase, SubKey, Unfinished};
pub use entry::{Entry, EventCursor, StreamEvent};
pub use error::SubmissionError;
pub use ids::{MAX_ID_BYTES, check_ids, read_submission};
pub use jobs::Jobs;
pub use judge0::KeptJudge0;
pub use lab_runs::{KeptLabRun, LAB_RUNS_KEPT};
pub use metrics::{CANCELLED_LABEL, Histogram, Metrics, Reject, is_cancelled};
pub use plan::plan_of;
pub use store::{DiskWait, Store, spawn_sweeper};
