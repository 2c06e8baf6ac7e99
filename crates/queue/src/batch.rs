//! Batches over the broker (docs/batches.md, "Over RabbitMQ"): the messages verdict's own
//! processes exchange on the batches' topic exchange (`amqp.batches.exchange`), told apart by
//! their routing key. They are verdict's, not the home system's: a platform never sees them.
//!
//! - `batch.unit.<lane>` ([`UnitMessage`]): one candidate to judge, with its problem and
//!   options; to its category's lane (`<amqp.batches.queue>.<lane>`, durable), and every worker
//!   takes from every lane, so the categories take turns ([`unit_key`]). Units published with
//!   the plain `batch.unit` key (by a front end of an older version) wait in
//!   `amqp.batches.queue` itself, which workers still drain.
//! - `batch.accepted` ([`AcceptedMessage`]): a front end accepted a batch (its id, category and
//!   request text); to every front end, which then serves it.
//! - `batch.result` ([`ResultMessage`]): a worker's result for one unit; to every front end.
//! - `batch.cancel` ([`CancelMessage`]): a batch was cancelled; to every front end and every
//!   worker.

use crate::broker;
use crate::error::Error;
use futures::future::BoxFuture;
use lapin::Channel;
use lapin::ExchangeKind;
use lapin::options::{QueueBindOptions, QueueDeclareOptions};
use lapin::types::FieldTable;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use verdict_contracts::batch::{BatchOptions, BatchProblem, Candidate, CandidateResult};

/// The routing key of a unit without a lane (older front ends); [`unit_key`] gives a lane's.
pub const UNIT_KEY: &str = "batch.unit";
/// The routing key of an accepted batch's announcement.
pub const ACCEPTED_KEY: &str = "batch.accepted";
/// The routing key of a unit's result.
pub const RESULT_KEY: &str = "batch.result";
/// The routing key of a cancel.
pub const CANCEL_KEY: &str = "batch.cancel";

/// One candidate of a batch to judge: the candidate judged once for every identical one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitMessage {
    /// The batch's id.
    pub batch: String,
    /// The batch's category (for logs).
    pub category: String,
    /// The candidate's index in the batch's request.
    pub index: usize,
    /// The batch's problem (every unit carries it: a worker needs nothing else).
    pub problem: BatchProblem,
    /// The batch's options.
    pub options: BatchOptions,
    /// The candidate.
    pub candidate: Candidate,
}

/// A batch a front end accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedMessage {
    /// The batch's id.
    pub batch: String,
    /// Its category.
    pub category: String,
    /// The request's text, as the client sent it.
    pub request: String,
}

/// A unit's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultMessage {
    /// The batch's id.
    pub batch: String,
    /// The unit's candidate index.
    pub index: usize,
    /// Its result.
    pub result: CandidateResult,
}

/// A cancelled batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CancelMessage {
    /// The batch's id.
    pub batch: String,
}

/// A batch message a front end consumes.
#[derive(Debug, Clone, PartialEq)]
pub enum BatchMessage {
    /// `batch.accepted`.
    Accepted(AcceptedMessage),
    /// `batch.result`.
    Result(Box<ResultMessage>),
    /// `batch.cancel`.
    Cancel(CancelMessage),
}

impl BatchMessage {
    /// The message published with `routing_key`, or why it is not one.
    pub fn read(routing_key: &str, body: &[u8]) -> Result<BatchMessage, String> {
        let text = |e: serde_json::Error| format!("{routing_key}: {e}");
        match routing_key {
            ACCEPTED_KEY => serde_json::from_slice(body)
                .map(BatchMessage::Accepted)
                .map_err(text),
            RESULT_KEY => serde_json::from_slice(body)
                .map(|r| BatchMessage::Result(Box::new(r)))
                .map_err(text),
            CANCEL_KEY => serde_json::from_slice(body)
                .map(BatchMessage::Cancel)
                .map_err(text),
            other => Err(format!("unexpected routing key {other:?}")),
        }
    }
}

/// The judge as a worker sees it for batches: judges one unit (never failing: a judge failure
/// is an `infra_error` in the result); `cancel` fires when the unit's batch is cancelled.
pub trait UnitJudging: Send + Sync + 'static {
    /// Judges `unit`.
    fn judge(
        &self,
        unit: UnitMessage,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CandidateResult>;
}

/// The lane of `category`'s units among `lanes`: FNV-1a of its bytes, so that every front end
/// of every version puts a category in the same lane.
pub fn lane_of(category: &str, lanes: u16) -> u16 {
    let hash = category.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    u16::try_from(hash % u64::from(lanes.max(1))).unwrap_or(0)
}

/// The routing key a unit of `category` is published with.
pub fn unit_key(category: &str, lanes: u16) -> String {
    format!("{UNIT_KEY}.{}", lane_of(category, lanes))
}

/// The queues a worker takes units from: the plain work queue, then every lane's.
pub fn unit_queues(config: &crate::config::BatchRoute) -> Vec<String> {
    std::iter::once(config.queue.clone())
        .chain((0..config.lanes).map(|lane| format!("{}.{lane}", config.queue)))
        .collect()
}

/// Declares the batches' durable topic exchange and, with `queue`, the durable work queue
/// bound with `batch.unit` and the lanes' queues, each bound with its `batch.unit.<lane>`.
pub(crate) async fn declare(
    channel: &Channel,
    config: &crate::config::BatchRoute,
    queue: bool,
) -> Result<(), Error> {
    broker::declare_exchange(channel, &config.exchange, ExchangeKind::Topic).await?;
    if queue {
        let keys = std::iter::once(UNIT_KEY.to_owned())
            .chain((0..config.lanes).map(|lane| format!("{UNIT_KEY}.{lane}")));
        for (name, key) in unit_queues(config).iter().zip(keys) {
            channel
                .queue_declare(
                    name.as_str().into(),
                    QueueDeclareOptions::durable(),
                    FieldTable::default(),
                )
                .await
                .map_err(Error::amqp(format!("declaring queue {name:?}")))?;
            bind(channel, name, &config.exchange, &key).await?;
        }
    }
    Ok(())
}

/// Binds `queue` to `exchange` with `key`.
pub(crate) async fn bind(
    channel: &Channel,
    queue: &str,
    exchange: &str,
    key: &str,
) -> Result<(), Error> {
    channel
        .queue_bind(
            queue.into(),
            exchange.into(),
            key.into(),
            QueueBindOptions::default(),
            FieldTable::default(),
        )
        .await
        .map_err(Error::amqp(format!(
            "binding queue {queue:?} to exchange {exchange:?} with {key:?}"
        )))
}

/// Publishes persistent messages to `exchange` and waits for every confirm (all published
/// before the first confirm is awaited, so a batch's units cost one round trip, not one each).
pub(crate) async fn publish_all(
    channel: &Channel,
    exchange: &str,
    messages: &[(String, Vec<u8>)],
) -> Result<(), Error> {
    let mut confirms = Vec::with_capacity(messages.len());
    for (key, body) in messages {
        confirms.push(broker::start_publish(channel, exchange, key, body).await?);
    }
    for confirm in confirms {
        broker::confirmed(confirm, exchange).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_category_keeps_its_lane_and_categories_spread_over_the_lanes() {
        assert_eq!(lane_of("default", 16), lane_of("default", 16));
        assert_eq!(unit_key("x", 1), "batch.unit.0");
        let lanes: std::collections::HashSet<u16> = (0..64)
            .map(|i| lane_of(&format!("tenant-{i}"), 16))
            .collect();
        assert!(lanes.len() >= 12, "{lanes:?}");
        assert!(lanes.iter().all(|&lane| lane < 16));
        let config = crate::config::AmqpConfig::default().batches;
        let queues = unit_queues(&config);
        assert_eq!(queues.len(), 65);
        assert_eq!(queues[0], "verdict-batch-units");
        assert_eq!(queues[64], "verdict-batch-units.63");
    }

    #[test]
    fn a_message_is_read_by_its_routing_key() {
        let cancel = serde_json::to_vec(&CancelMessage { batch: "b".into() }).unwrap();
        assert_eq!(
            BatchMessage::read(CANCEL_KEY, &cancel).unwrap(),
            BatchMessage::Cancel(CancelMessage { batch: "b".into() })
        );
        let err = BatchMessage::read(RESULT_KEY, &cancel).unwrap_err();
        assert!(err.starts_with("batch.result: "), "{err}");
        assert!(BatchMessage::read("batch.other", &cancel).is_err());
    }
}
