//! A worker's side of batches: it consumes units (one candidate each) from every lane of the
//! batches' work queue on a channel of their own (prefetch = the worker's count per lane, so
//! the lanes with work share the worker),
//! judges each, publishes its result to the batches' exchange, and acks only after the broker
//! confirmed the result: a worker that dies holding a unit loses nothing, the broker hands the
//! unit to another worker. It also consumes every `batch.cancel` from a queue of its own: the
//! units it is judging of a cancelled batch stop at once (their boxes killed), and the units of
//! that batch it is handed later are acked unjudged.

use crate::batch::{
    self, CANCEL_KEY, CancelMessage, RESULT_KEY, ResultMessage, UnitJudging, UnitMessage,
};
use crate::broker;
use crate::error::Error;
use crate::metrics::QueueMetrics;
use crate::worker::Worker;
use futures::stream::SelectAll;
use lapin::message::Delivery;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, BasicQosOptions, QueueDeclareOptions};
use lapin::types::FieldTable;
use lapin::{Channel, Connection, Consumer};
use std::sync::Arc;

/// A worker's batch consumers on their channels.
pub(crate) struct UnitLane {
    /// The units, from the work queue and its lanes.
    pub units: SelectAll<Consumer>,
    /// The tags of the units' consumers (cancelled at shutdown).
    pub unit_tags: Vec<String>,
    /// Every cancel, from the worker's own exclusive queue (no acks).
    pub cancels: Consumer,
    /// The channel the units are consumed on.
    pub channel: Channel,
    /// The cancels' own channel, apart from the units' prefetch counts: a cancel never waits
    /// behind the units it is meant to stop.
    pub cancel_channel: Channel,
}

impl Worker {
    /// Declares the batches' exchange, work queue and lanes, and starts consuming units and
    /// cancels.
    pub(crate) async fn open_units(&self, connection: &Connection) -> Result<UnitLane, Error> {
        let config = &self.config.batches;
        let channel = connection
            .create_channel()
            .await
            .map_err(Error::amqp("opening a channel for batch units"))?;
        batch::declare(&channel, config, true).await?;
        // A count per consumer, so per lane: a worker holds at most `prefetch` units of each
        // lane with work, and a lane gets its next unit only when one of its own is acked, so
        // the lanes with work take turns at the judge's run permits. (A channel-wide count
        // would bound the worker's units in all, but RabbitMQ deprecated it and 4.3 refuses it.)
        channel
            .basic_qos(self.prefetch, BasicQosOptions::default())
            .await
            .map_err(Error::amqp("setting the prefetch count of batch units"))?;
        let cancel_channel = connection
            .create_channel()
            .await
            .map_err(Error::amqp("opening a channel for batch cancels"))?;
        let own = cancel_channel
            .queue_declare(
                "".into(),
                QueueDeclareOptions {
                    exclusive: true,
                    auto_delete: true,
                    ..QueueDeclareOptions::default()
                },
                FieldTable::default(),
            )
            .await
            .map_err(Error::amqp("declaring the worker's cancel queue"))?;
        let own = own.name().to_string();
        batch::bind(&cancel_channel, &own, &config.exchange, CANCEL_KEY).await?;
        let cancels = cancel_channel
            .basic_consume(
                own.as_str().into(),
                "".into(),
                BasicConsumeOptions {
                    no_ack: true,
                    ..BasicConsumeOptions::default()
                },
                FieldTable::default(),
            )
            .await
            .map_err(Error::amqp("consuming batch cancels"))?;
        let mut units = Vec::new();
        for queue in batch::unit_queues(config) {
            units.push(broker::consume(&channel, &queue).await?);
        }
        Ok(UnitLane {
            unit_tags: units.iter().map(|c| c.tag().to_string()).collect(),
            units: futures::stream::select_all(units),
            cancels,
            channel,
            cancel_channel,
        })
    }

    /// A cancel delivered to this worker.
    pub(crate) fn cancel_delivered(&self, delivery: &Delivery) {
        match serde_json::from_slice::<CancelMessage>(&delivery.data) {
            Ok(cancel) => {
                tracing::info!(batch = %cancel.batch, "batch cancelled");
                self.cancels.cancel(&cancel.batch);
            }
            Err(err) => tracing::warn!(error = %err, "a batch cancel that cannot be read; dropped"),
        }
    }

    /// Judges (or skips) one unit, publishes its result, then acks it.
    pub(crate) async fn handle_unit(
        &self,
        judging: Arc<dyn UnitJudging>,
        publishing: &Channel,
        delivery: Delivery,
    ) -> Result<(), Error> {
        QueueMetrics::inc(&self.metrics.units_delivered);
        if delivery.redelivered {
            QueueMetrics::inc(&self.metrics.units_redelivered);
        }
        let unit = match serde_json::from_slice::<UnitMessage>(&delivery.data) {
            Ok(unit) => Some(unit),
            Err(err) => {
                tracing::warn!(error = %err, "a batch unit that cannot be read; acked unjudged");
                None
            }
        };
        let Some(unit) = unit.filter(|u| !self.cancels.is_cancelled(&u.batch)) else {
            return self.ack_unit(delivery, false).await;
        };
        // The worker holds up to `prefetch` units of each lane but judges `prefetch` at once, in
        // the order they came (the semaphore is fair): a unit's time, and its budget, start here.
        let Ok(_slot) = self.unit_slots.acquire().await else {
            return Err(Error::Lost("the worker's unit slots were closed".into()));
        };
        let Some(token) = self.cancels.enter(&unit.batch) else {
            return self.ack_unit(delivery, false).await;
        };
        let (batch, index) = (unit.batch.clone(), unit.index);
        tracing::info!(%batch, index, redelivered = delivery.redelivered, "judging a batch unit");
        let result = judging.judge(unit, token.clone()).await;
        self.cancels.leave(&batch);
        if token.is_cancelled() {
            // Every front end ended the batch when it heard the cancel: no one reads this.
            return self.ack_unit(delivery, false).await;
        }
        let body = serde_json::to_vec(&ResultMessage {
            batch,
            index,
            result,
        })
        .unwrap_or_default();
        let published =
            broker::publish(publishing, &self.config.batches.exchange, RESULT_KEY, &body).await;
        if published.is_err() {
            QueueMetrics::inc(&self.metrics.publish_failures);
        }
        published?;
        self.ack_unit(delivery, true).await
    }

    async fn ack_unit(&self, delivery: Delivery, judged: bool) -> Result<(), Error> {
        delivery
            .acker
            .ack(BasicAckOptions::default())
            .await
            .map_err(Error::amqp("acking a batch unit"))?;
        QueueMetrics::inc(if judged {
            &self.metrics.units_judged
        } else {
            &self.metrics.units_skipped
        });
        Ok(())
    }
}
