//! Submission cancels over the broker (`DELETE /v1/submissions/{sub_id}` on a front end): a
//! front end publishes [`SubmissionCancelMessage`] to the batches' exchange with
//! [`SUBMISSION_CANCEL_KEY`]; it lands in a durable stream ([`stream_name`], kept
//! [`RETENTION`]), which every worker reads from its first message at each connection and then
//! follows. So a worker knows every cancel, also those published before it was up or while it
//! was away: a submission it is judging stops at once (its boxes killed), one it takes later is
//! not judged (its report has every task `System Error` `cancelled: ...`).
//!
//! A worker reads the stream up to a marker of its own ([`SYNC_KEY`]) before it takes any
//! submission: every cancel published before it connected is known by then.

use crate::broker;
pub use crate::cancel_sets::ACCEPTED_AT_HEADER;
use crate::cancel_sets::key_of;
use crate::config::BatchRoute;
use crate::error::Error;
use crate::worker::Worker;
use futures::StreamExt;
use lapin::message::Delivery;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, BasicQosOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Channel, Connection, Consumer};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The routing key of a submission's cancel (on the batches' exchange).
pub const SUBMISSION_CANCEL_KEY: &str = "submission.cancel";
/// The routing key of a worker's marker in the cancels' stream.
pub const SYNC_KEY: &str = "submission.cancel.sync";
/// How long the stream keeps a cancel (`x-max-age`).
pub const RETENTION: &str = "7D";
/// How long a connecting worker reads the stream for its marker before it takes submissions
/// anyway (a warning in its log).
const SYNC_WAIT: Duration = Duration::from_secs(10);
/// How many stream messages a worker holds unacked (a stream consumer needs a prefetch count).
const STREAM_PREFETCH: u16 = 1000;

/// A cancelled submission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmissionCancelMessage {
    /// Its category.
    pub category: String,
    /// Its `sub_id`.
    pub sub_id: String,
    /// When it was cancelled (ms since the epoch, the front end's clock): the submissions of
    /// this `sub_id` accepted until then are cancelled, not those accepted later. Absent: when
    /// the worker reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at_ms: Option<i64>,
}

/// Now, in ms since the epoch.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The name of the durable stream of submission cancels: `<amqp.batches.exchange>.cancels`.
pub fn stream_name(config: &BatchRoute) -> String {
    format!("{}.cancels", config.exchange)
}

/// Declares the batches' exchange and the cancels' stream bound to it (front ends and workers
/// both do, so a cancel published before any worker was up is kept).
pub(crate) async fn declare(channel: &Channel, config: &BatchRoute) -> Result<(), Error> {
    crate::batch::declare(channel, config, false).await?;
    let name = stream_name(config);
    let mut arguments = FieldTable::default();
    arguments.insert(
        "x-queue-type".into(),
        AMQPValue::LongString("stream".into()),
    );
    arguments.insert("x-max-age".into(), AMQPValue::LongString(RETENTION.into()));
    channel
        .queue_declare(
            name.as_str().into(),
            QueueDeclareOptions::durable(),
            arguments,
        )
        .await
        .map_err(Error::amqp(format!(
            "declaring the stream {name:?} (RabbitMQ 3.9 or later)"
        )))?;
    for key in [SUBMISSION_CANCEL_KEY, SYNC_KEY] {
        crate::batch::bind(channel, &name, &config.exchange, key).await?;
    }
    Ok(())
}

/// A worker's reader of the cancels' stream, on a channel of its own.
pub(crate) struct CancelStream {
    /// The stream's messages, from its first.
    pub consumer: Consumer,
    /// Its channel (open for the session).
    pub channel: Channel,
}

impl Worker {
    /// Declares the cancels' stream and reads it from its first message up to a marker
    /// published now (every cancel published before is then known), then hands the reader on.
    pub(crate) async fn open_cancel_stream(
        &self,
        connection: &Connection,
        publishing: &Channel,
    ) -> Result<CancelStream, Error> {
        let config = &self.config.batches;
        let channel = connection
            .create_channel()
            .await
            .map_err(Error::amqp("opening a channel for submission cancels"))?;
        declare(&channel, config).await?;
        channel
            .basic_qos(STREAM_PREFETCH, BasicQosOptions::default())
            .await
            .map_err(Error::amqp(
                "setting the prefetch count of the cancels' stream",
            ))?;
        let mut arguments = FieldTable::default();
        arguments.insert(
            "x-stream-offset".into(),
            AMQPValue::LongString("first".into()),
        );
        let name = stream_name(config);
        let mut consumer = channel
            .basic_consume(
                name.as_str().into(),
                "".into(),
                BasicConsumeOptions::default(),
                arguments,
            )
            .await
            .map_err(Error::amqp(format!("consuming from the stream {name:?}")))?;
        let marker = format!(
            "{:x}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        );
        broker::publish(publishing, &config.exchange, SYNC_KEY, marker.as_bytes()).await?;
        let reading = async {
            while let Some(next) = consumer.next().await {
                let delivery = next.map_err(|e| Error::Lost(e.to_string()))?;
                let mine =
                    delivery.routing_key.as_str() == SYNC_KEY && delivery.data == marker.as_bytes();
                self.stream_delivered(delivery).await?;
                if mine {
                    return Ok(());
                }
            }
            Err(Error::Lost(
                "the broker cancelled the stream consumer".into(),
            ))
        };
        match tokio::time::timeout(SYNC_WAIT, reading).await {
            Ok(read) => read?,
            Err(_) => tracing::warn!(
                stream = %name,
                "the cancels' stream was not read to its end in time; taking submissions anyway"
            ),
        }
        Ok(CancelStream { consumer, channel })
    }

    /// A message of the cancels' stream: a cancel is noted (the submission stops if it is
    /// being judged here), a marker is skipped; acked either way.
    pub(crate) async fn stream_delivered(&self, delivery: Delivery) -> Result<(), Error> {
        if delivery.routing_key.as_str() == SUBMISSION_CANCEL_KEY {
            match serde_json::from_slice::<SubmissionCancelMessage>(&delivery.data) {
                Ok(cancel) => {
                    tracing::debug!(sub_id = %cancel.sub_id, category = %cancel.category, "submission cancel");
                    let at = cancel.cancelled_at_ms.unwrap_or_else(now_ms);
                    self.sub_cancels
                        .cancel(&key_of(&cancel.category, &cancel.sub_id), at);
                }
                Err(err) => {
                    tracing::warn!(error = %err, "a submission cancel that cannot be read; dropped")
                }
            }
        }
        delivery
            .acker
            .ack(BasicAckOptions::default())
            .await
            .map_err(Error::amqp("acking a message of the cancels' stream"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_is_named_after_the_batches_exchange_and_keys_do_not_collide() {
        let config = crate::config::AmqpConfig::default().batches;
        assert_eq!(stream_name(&config), "verdict-batch-exchange.cancels");
        assert_eq!(key_of("a", "b"), "a\u{0}b");
    }
}
