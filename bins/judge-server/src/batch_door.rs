//! Where a server's batches are: judged here (standalone: [`Batches`]) or relayed over the
//! broker to the workers (front end: [`Relay`]). The batch handlers are written once against
//! this door.

use std::sync::Arc;
use verdict_submissions::batches::{BatchEntry, BatchError, Batches, Relay};

/// The batches of a server that accepts them.
#[derive(Debug, Clone, Copy)]
pub enum BatchDoor<'a> {
    /// Judged here (standalone).
    Local(&'a Arc<Batches>),
    /// Published to the workers through the broker (front end).
    Relay(&'a Arc<Relay>),
}

impl BatchDoor<'_> {
    /// Whether the batches are relayed to workers (a front end).
    pub fn is_relay(self) -> bool {
        matches!(self, BatchDoor::Relay(_))
    }

    /// Accepts a batch (see [`Batches::accept`] and [`Relay::accept`]).
    pub async fn accept(
        self,
        id: Option<String>,
        category: String,
        text: String,
    ) -> Result<(Arc<BatchEntry>, bool), BatchError> {
        match self {
            BatchDoor::Local(batches) => batches.accept(id, category, text).await,
            BatchDoor::Relay(relay) => relay.accept(id, category, text).await,
        }
    }

    /// The batch under `id`, if known here.
    pub fn get(self, id: &str) -> Option<Arc<BatchEntry>> {
        match self {
            BatchDoor::Local(batches) => batches.get(id),
            BatchDoor::Relay(relay) => relay.get(id),
        }
    }

    /// Cancels the batch under `id`; `None` when it is not known here.
    pub async fn cancel(self, id: &str) -> Result<Option<Arc<BatchEntry>>, BatchError> {
        match self {
            BatchDoor::Local(batches) => Ok(batches.cancel(id)),
            BatchDoor::Relay(relay) => relay.cancel(id).await,
        }
    }
}
