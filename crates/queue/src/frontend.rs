//! Front-end mode: publish accepted Submissions to the request exchange, and consume every
//! JudgeReport from a queue of this front end's own, bound to the report exchange with `#`, so
//! that every front end sees every report without taking any from the platform's result queue.
//! The same queue is bound to the request exchange too: each front end also gets a copy of every
//! Submission published (by any front end or platform), and knows it is queued before its first
//! report. It is bound to the batches' exchange too, for every batch accepted, every unit's
//! result and every cancel ([`crate::batch`]).

use crate::batch::{self, ACCEPTED_KEY, BatchMessage, CANCEL_KEY, RESULT_KEY};
use crate::broker;
use crate::cancels::{SUBMISSION_CANCEL_KEY, SubmissionCancelMessage};
use crate::config::AmqpConfig;
use crate::error::Error;
use crate::link::Link;
use crate::metrics::QueueMetrics;
use futures::StreamExt;
use futures::future::BoxFuture;
use lapin::options::{BasicAckOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable};
use lapin::{Channel, Connection};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;
use verdict_contracts::{JudgeReport, JudgeStatus};

/// What a front end consumes from its queue.
#[derive(Debug, Clone)]
pub enum Consumed {
    /// A copy of a message published to the request exchange (a Submission, unchecked).
    Submission(Vec<u8>),
    /// A report, with the routing key it was published with (the home system's: the
    /// submission's category).
    Report(JudgeReport, String),
    /// A batch message (an accepted batch, a unit's result, a cancel).
    Batch(BatchMessage),
}

/// Receives each message a front end consumes. It is acked when the returned future ends, so a
/// sink that stores it before it ends loses none (with a named `frontend_queue`, whatever was
/// not acked is delivered again after a reconnection).
pub type ReportSink = Arc<dyn Fn(Consumed) -> BoxFuture<'static, ()> + Send + Sync>;

/// A front end's link to the broker.
pub struct FrontEnd {
    config: AmqpConfig,
    metrics: Arc<QueueMetrics>,
    link: Arc<Link>,
    publishing: Mutex<Option<Channel>>,
    sink: ReportSink,
    published: Mutex<Published>,
}

/// When this front end last published each submission (by category and `sub_id`; the newest
/// [`PUBLISHED_REMEMBERED`] kept): a report that echoes another acceptance of the same key is
/// an earlier submission's (a cancelled one's, judged late), never the current one's.
#[derive(Debug, Default)]
struct Published {
    at: std::collections::HashMap<String, i64>,
    order: std::collections::VecDeque<String>,
}

/// The most submissions whose publish a front end remembers.
const PUBLISHED_REMEMBERED: usize = 100_000;

impl Published {
    fn note(&mut self, key: String, at: i64) {
        if self.at.insert(key.clone(), at).is_none() {
            self.order.push_back(key);
            if self.order.len() > PUBLISHED_REMEMBERED
                && let Some(old) = self.order.pop_front()
            {
                self.at.remove(&old);
            }
        }
    }

    /// Whether a report of `key` echoing the acceptance `echoed` is of an earlier submission.
    fn is_stale(&self, key: &str, echoed: i64) -> bool {
        echoed != i64::MIN && self.at.get(key).is_some_and(|&at| at != echoed)
    }
}

impl std::fmt::Debug for FrontEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrontEnd")
            .field("link", &self.link)
            .finish_non_exhaustive()
    }
}

/// Whether `report` is a submission's last: an invalid-request report (`results: []`), or one
/// in which no task is waiting or running. A worker publishes reports so far with unfinished
/// tasks `Pending`.
pub fn is_final(report: &JudgeReport) -> bool {
    report.results.iter().all(|r| {
        !matches!(
            r.status,
            JudgeStatus::Pending | JudgeStatus::Running | JudgeStatus::Compiling
        )
    })
}

impl FrontEnd {
    /// A front end handing every consumed report to `sink`; [`FrontEnd::run`] connects it.
    pub fn new(
        config: AmqpConfig,
        metrics: Arc<QueueMetrics>,
        link: Arc<Link>,
        sink: ReportSink,
    ) -> FrontEnd {
        FrontEnd {
            config,
            metrics,
            link,
            publishing: Mutex::new(None),
            sink,
            published: Mutex::default(),
        }
    }

    /// Publishes a Submission of `category` and `sub_id` (its JSON text, already validated) to
    /// the request exchange and waits for the broker's confirm. `Disconnected` while the broker
    /// is unreachable.
    pub async fn publish_submission(
        &self,
        category: &str,
        sub_id: &str,
        body: &[u8],
    ) -> Result<(), Error> {
        // When it was accepted: a cancel of its sub_id from before does not touch it (a
        // rejudge after a cancel is judged), one from after does (crate::cancels); the worker
        // echoes it on its reports, so a late report of an earlier submission of the same
        // sub_id is not taken for this one's.
        let accepted = crate::cancels::now_ms();
        self.published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .note(crate::cancel_sets::key_of(category, sub_id), accepted);
        let mut headers = lapin::types::FieldTable::default();
        headers.insert(
            crate::cancel_sets::ACCEPTED_AT_HEADER.into(),
            lapin::types::AMQPValue::LongLongInt(accepted),
        );
        let request = &self.config.request;
        let published = self
            .publish_counted(&request.exchange, &request.routing_key, body, Some(headers))
            .await;
        if published.is_ok() {
            QueueMetrics::inc(&self.metrics.submissions_published);
        }
        published
    }

    /// Whether `report` echoes an acceptance of its key other than the one this front end
    /// published last: an earlier submission's report.
    fn is_stale(&self, report: &JudgeReport, delivery: &lapin::message::Delivery) -> bool {
        let category = if report.category.is_empty() {
            delivery.routing_key.as_str()
        } else {
            report.category.as_str()
        };
        let key = crate::cancel_sets::key_of(category, &report.sub_id);
        self.published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_stale(&key, crate::cancel_sets::accepted_at(delivery))
    }

    /// The routing key of a unit of `category`: its lane's (see [`batch::unit_key`]).
    pub fn unit_key(&self, category: &str) -> String {
        batch::unit_key(category, self.config.batches.lanes)
    }

    /// Publishes batch messages (`(routing key, body)`, see [`crate::batch`]) to the batches'
    /// exchange and waits for every confirm. `Disconnected` while the broker is unreachable.
    pub async fn publish_batch(&self, messages: &[(String, Vec<u8>)]) -> Result<(), Error> {
        let channel = self.channel()?;
        let published = batch::publish_all(&channel, &self.config.batches.exchange, messages).await;
        match &published {
            Ok(()) => {
                let n = u64::try_from(messages.len()).unwrap_or(u64::MAX);
                self.metrics
                    .batch_messages_published
                    .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            }
            Err(_) => QueueMetrics::inc(&self.metrics.publish_failures),
        }
        published
    }

    /// Publishes the cancel of the submission `sub_id` of `category` to the cancels' stream
    /// ([`crate::cancels`]), which every worker reads, and waits for the broker's confirm.
    /// `Disconnected` while the broker is unreachable.
    pub async fn publish_cancel(&self, category: &str, sub_id: &str) -> Result<(), Error> {
        let body = serde_json::to_vec(&SubmissionCancelMessage {
            category: category.to_owned(),
            sub_id: sub_id.to_owned(),
            cancelled_at_ms: Some(crate::cancels::now_ms()),
        })
        .unwrap_or_default();
        let exchange = &self.config.batches.exchange;
        self.publish_counted(exchange, SUBMISSION_CANCEL_KEY, &body, None)
            .await
    }

    /// Publishes a report to the report exchange (its category as the routing key, as a worker
    /// does) and waits for the broker's confirm: every front end and the platform get it.
    pub async fn publish_report(&self, report: &JudgeReport) -> Result<(), Error> {
        let body = serde_json::to_vec(report).unwrap_or_default();
        let exchange = &self.config.report.exchange;
        self.publish_counted(exchange, &report.category, &body, None)
            .await
    }

    /// Publishes `body` (with `headers`) on the publishing channel and waits for the confirm;
    /// a failed publish is counted in `publish_failures` (`Disconnected` is not a publish).
    async fn publish_counted(
        &self,
        exchange: &str,
        routing_key: &str,
        body: &[u8],
        headers: Option<lapin::types::FieldTable>,
    ) -> Result<(), Error> {
        let channel = self.channel()?;
        let published = broker::publish_with(&channel, exchange, routing_key, body, headers).await;
        if published.is_err() {
            QueueMetrics::inc(&self.metrics.publish_failures);
        }
        published
    }

    /// The publishing channel, or `Disconnected`.
    fn channel(&self) -> Result<Channel, Error> {
        self.publishing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| {
                Error::Disconnected(
                    self.link
                        .status()
                        .last_error
                        .unwrap_or_else(|| "connecting".into()),
                )
            })
    }

    /// Keeps the link up until `shutdown` fires, reconnecting with backoff.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let mut reconnect = broker::Reconnect::new(&self.config, &self.metrics, &self.link);
        while !shutdown.is_cancelled() {
            let ended = self.session(&shutdown, &mut reconnect.attempt).await;
            *self.publishing.lock().unwrap_or_else(|p| p.into_inner()) = None;
            if !reconnect.again(ended, &shutdown).await {
                break;
            }
        }
        self.link.down("shut down");
    }

    async fn session(&self, shutdown: &CancellationToken, attempt: &mut u32) -> Result<(), Error> {
        let (connection, consuming) =
            broker::open_routes(&self.config, "verdict front end").await?;
        batch::declare(&consuming, &self.config.batches, true).await?;
        // The cancels' stream exists before the first cancel is published: one published before
        // any worker was up is kept for the workers to come.
        crate::cancels::declare(&consuming, &self.config.batches).await?;
        let queue = self.declare_own_queue(&consuming).await?;
        let mut consumer = broker::consume(&consuming, &queue).await?;
        let publishing = broker::confirming_channel(&connection).await?;
        *self.publishing.lock().unwrap_or_else(|p| p.into_inner()) = Some(publishing);
        self.link.up();
        QueueMetrics::inc(&self.metrics.connections);
        *attempt = 0;
        tracing::info!(
            uri = %broker::redacted(&self.config.uri),
            %queue,
            "front end connected"
        );
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                next = consumer.next() => match next {
                    Some(Ok(delivery)) => {
                        if delivery.exchange.as_str() == self.config.batches.exchange {
                            match BatchMessage::read(delivery.routing_key.as_str(), &delivery.data) {
                                Ok(message) => {
                                    QueueMetrics::inc(&self.metrics.batch_messages_consumed);
                                    (self.sink)(Consumed::Batch(message)).await;
                                }
                                Err(err) => tracing::warn!(error = %err, "a batch message that cannot be read; dropped"),
                            }
                        } else if delivery.exchange.as_str() == self.config.request.exchange {
                            (self.sink)(Consumed::Submission(delivery.data.clone())).await;
                        } else {
                            match serde_json::from_slice::<JudgeReport>(&delivery.data) {
                                Ok(report) if self.is_stale(&report, &delivery) => {
                                    tracing::info!(sub_id = %report.sub_id, "a report of an earlier submission of this sub_id; dropped");
                                }
                                Ok(report) => {
                                    QueueMetrics::inc(&self.metrics.reports_consumed);
                                    let key = delivery.routing_key.to_string();
                                    (self.sink)(Consumed::Report(report, key)).await;
                                }
                                Err(err) => tracing::warn!(error = %err, "a report that is not a JudgeReport; dropped"),
                            }
                        }
                        delivery
                            .acker
                            .ack(BasicAckOptions::default())
                            .await
                            .map_err(Error::amqp("acking a report"))?;
                    }
                    Some(Err(err)) => return Err(Error::Lost(err.to_string())),
                    None => return Err(Error::Lost("the broker cancelled the consumer".into())),
                },
            }
        }
        close(&connection).await;
        Ok(())
    }

    /// This front end's queue: server-named and exclusive, or the configured durable one
    /// (expiring when unused); bound to the report exchange with `#` and to the request exchange
    /// with the requests' routing key.
    async fn declare_own_queue(&self, channel: &Channel) -> Result<String, Error> {
        let named = !self.config.frontend_queue.is_empty();
        let mut arguments = FieldTable::default();
        let options = if named {
            let ms = self.config.frontend_queue_expires_secs.saturating_mul(1000);
            arguments.insert(
                "x-expires".into(),
                AMQPValue::LongLongInt(i64::try_from(ms).unwrap_or(i64::MAX)),
            );
            QueueDeclareOptions::durable()
        } else {
            QueueDeclareOptions {
                exclusive: true,
                auto_delete: true,
                ..QueueDeclareOptions::default()
            }
        };
        let queue = channel
            .queue_declare(
                self.config.frontend_queue.as_str().into(),
                options,
                arguments,
            )
            .await
            .map_err(Error::amqp(format!(
                "declaring the front end's queue {:?}",
                self.config.frontend_queue
            )))?;
        let name = queue.name().to_string();
        let bindings = [
            (&self.config.report.exchange, "#"),
            (
                &self.config.request.exchange,
                self.config.request.routing_key.as_str(),
            ),
        ];
        for (exchange, key) in bindings {
            batch::bind(channel, &name, exchange, key).await?;
        }
        for key in [ACCEPTED_KEY, RESULT_KEY, CANCEL_KEY] {
            batch::bind(channel, &name, &self.config.batches.exchange, key).await?;
        }
        Ok(name)
    }
}

async fn close(connection: &Connection) {
    let _ = connection.close(200, "shutting down".into()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_echoing_an_earlier_acceptance_of_its_key_is_stale() {
        let mut published = Published::default();
        published.note("oj/a".into(), 100);
        published.note("oj/a".into(), 200);
        assert!(
            published.is_stale("oj/a", 100),
            "the cancelled submission's"
        );
        assert!(!published.is_stale("oj/a", 200), "the current one's");
        // No echo (an older worker), or a key another front end published: taken as before.
        assert!(!published.is_stale("oj/a", i64::MIN));
        assert!(!published.is_stale("oj/b", 100));
    }
}
