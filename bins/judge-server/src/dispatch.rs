//! Where a server's accepted work is judged: here (standalone: the submissions' [`Jobs`], the
//! batches' and suites' [`Batches`]) or on the workers, relayed through the broker (front end:
//! [`FrontEnd`] for submissions, [`Relay`] for batches and suites). Decided once, at start-up,
//! by the role; every handler that takes work asks [`Dispatch`] and nothing else
//! (docs/architecture.md, "bins/judge, bins/judge-server").

use std::sync::Arc;
use verdict_contracts::oracle::TestSuite;
use verdict_queue::FrontEnd;
use verdict_submissions::Jobs;
use verdict_submissions::batches::{BatchEntry, BatchError, Batches, CheckedBatch, Relay};

/// Where accepted submissions, batches and oracle suites go.
#[derive(Debug)]
pub enum Dispatch {
    /// Judged here (standalone).
    Local {
        /// The submissions' queue and its workers.
        jobs: Arc<Jobs>,
        /// The batches and the queue they share with oracle suites (`data_dir/batches`).
        batches: Arc<Batches>,
    },
    /// Relayed to the workers through the broker (front end); nothing is judged here.
    Relayed {
        /// The link that publishes submissions and their cancels.
        front: Arc<FrontEnd>,
        /// The batches (and suites, as batches of one) published as units to the workers.
        relay: Arc<Relay>,
    },
}

impl Dispatch {
    /// Reads and checks a batch once (its shape, the operator's caps, what the judges can run),
    /// as the side that takes it checks it.
    pub fn check_batch(&self, text: String) -> Result<CheckedBatch, BatchError> {
        match self {
            Dispatch::Local { batches, .. } => batches.check(text),
            Dispatch::Relayed { relay, .. } => relay.check(text),
        }
    }

    /// Reads and checks one Task Oracle suite once, as the side that judges it checks it.
    pub fn check_suite(&self, text: &str) -> Result<TestSuite, BatchError> {
        match self {
            Dispatch::Local { batches, .. } => batches.check_suite(text),
            Dispatch::Relayed { relay, .. } => relay.check_suite(text),
        }
    }

    /// Accepts a checked batch (see [`Batches::accept`] and [`Relay::accept`]).
    pub async fn accept_batch(
        &self,
        id: Option<String>,
        category: String,
        batch: CheckedBatch,
    ) -> Result<(Arc<BatchEntry>, bool), BatchError> {
        match self {
            Dispatch::Local { batches, .. } => batches.accept(id, category, batch).await,
            Dispatch::Relayed { relay, .. } => relay.accept(id, category, batch).await,
        }
    }

    /// The batch under `id`, if known here.
    pub fn batch(&self, id: &str) -> Option<Arc<BatchEntry>> {
        match self {
            Dispatch::Local { batches, .. } => batches.get(id),
            Dispatch::Relayed { relay, .. } => relay.get(id),
        }
    }

    /// Cancels the batch under `id`; `None` when it is not known here.
    pub async fn cancel_batch(&self, id: &str) -> Result<Option<Arc<BatchEntry>>, BatchError> {
        match self {
            Dispatch::Local { batches, .. } => Ok(batches.cancel(id)),
            Dispatch::Relayed { relay, .. } => relay.cancel(id).await,
        }
    }

    /// Whether the queues here take new work (`None` on a front end: the broker decides).
    pub fn accepting(&self) -> Option<bool> {
        match self {
            Dispatch::Local { jobs, batches } => Some(jobs.accepting() && batches.accepting()),
            Dispatch::Relayed { .. } => None,
        }
    }

    /// Refuses new work from now on (shutdown); a front end has no queue of its own.
    pub fn stop_accepting(&self) {
        if let Dispatch::Local { jobs, batches } = self {
            jobs.stop_accepting();
            batches.stop_accepting();
        }
    }

    /// Waits until the submissions accepted here are judged (at once on a front end).
    pub async fn drained(&self) {
        if let Dispatch::Local { jobs, .. } = self {
            jobs.drained().await;
        }
    }
}
