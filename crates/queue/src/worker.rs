//! Worker mode: consume Submissions from the request queue, judge them, publish the report so
//! far after every finished task and the final one at the end, and ack only after the broker
//! confirmed the final report.
//!
//! A delivery that is not a valid Submission gets the contract's invalid-request report
//! (`results: []`, `message`) and is acked: it is never redelivered for ever. When the
//! connection is lost, the submissions being judged are abandoned (their deliveries are
//! unacked, so the broker hands them out again) and the worker reconnects with backoff.

use crate::batch::UnitJudging;
use crate::broker;
use crate::cancel_sets::{Cancels, SubmissionCancels};
use crate::config::AmqpConfig;
use crate::error::Error;
use crate::link::Link;
use crate::metrics::QueueMetrics;
use futures::StreamExt;
use futures::future::BoxFuture;
use lapin::Channel;
use lapin::message::Delivery;
use lapin::options::{BasicAckOptions, BasicCancelOptions, BasicQosOptions};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use verdict_contracts::{
    JudgeReport, JudgeStatus, JudgeTaskResult, Submission, Valid, parse_submission,
};

/// The judge as the worker sees it: judges one valid submission, sending each finished task as
/// `(index, result)` while it runs, and returns the final report (never failing: a judge failure
/// is a `System Error` result). `cancel` fires when a front end cancels the submission (it may
/// have fired already: the submission was cancelled before it was taken); then no task starts
/// and the running ones stop, their results `System Error` `cancelled: ...`.
pub trait Judging: Send + Sync + 'static {
    /// Judges `submission`.
    fn judge(
        &self,
        submission: Valid<Submission>,
        updates: mpsc::UnboundedSender<(usize, JudgeTaskResult)>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, JudgeReport>;
}

/// A worker: one connection, `prefetch` submissions judged at once (and, with
/// [`Worker::with_units`], `prefetch` batch units besides, holding up to `prefetch` of each lane).
pub struct Worker {
    pub(crate) config: AmqpConfig,
    pub(crate) prefetch: u16,
    judging: Arc<dyn Judging>,
    units: Option<Arc<dyn UnitJudging>>,
    pub(crate) cancels: Cancels,
    /// The submissions cancelled (read from the cancels' stream, [`crate::cancels`]).
    pub(crate) sub_cancels: SubmissionCancels,
    /// The batch units judged at once (`prefetch`); those held beyond wait here in turn.
    pub(crate) unit_slots: tokio::sync::Semaphore,
    pub(crate) metrics: Arc<QueueMetrics>,
    link: Arc<Link>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("prefetch", &self.prefetch)
            .field("link", &self.link)
            .finish_non_exhaustive()
    }
}

impl Worker {
    /// A worker judging with `judging`, at most `prefetch` submissions at once (the broker's
    /// prefetch count, the home system's `concurrency`).
    pub fn new(
        config: AmqpConfig,
        prefetch: usize,
        judging: Arc<dyn Judging>,
        metrics: Arc<QueueMetrics>,
        link: Arc<Link>,
    ) -> Worker {
        let prefetch = u16::try_from(prefetch.max(1)).unwrap_or(u16::MAX);
        Worker {
            config,
            prefetch,
            judging,
            units: None,
            cancels: Cancels::default(),
            sub_cancels: Default::default(),
            unit_slots: tokio::sync::Semaphore::new(usize::from(prefetch)),
            metrics,
            link,
        }
    }

    /// Also judges batch units (`crate::batch`) with `judging`.
    pub fn with_units(mut self, judging: Arc<dyn UnitJudging>) -> Worker {
        self.units = Some(judging);
        self
    }

    /// Consumes until `shutdown` fires, reconnecting with backoff whenever the broker is
    /// unreachable or the connection is lost. On shutdown it stops consuming, finishes (and
    /// acks) the submissions it holds, and closes the connection.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let mut reconnect = broker::Reconnect::new(&self.config, &self.metrics, &self.link);
        while !shutdown.is_cancelled() {
            let ended = self
                .clone()
                .session(&shutdown, &mut reconnect.attempt)
                .await;
            if !reconnect.again(ended, &shutdown).await {
                break;
            }
        }
        self.link.down("shut down");
    }

    /// One connection's life: `Ok` after a clean shutdown, `Err` when the broker was lost.
    async fn session(
        self: Arc<Self>,
        shutdown: &CancellationToken,
        attempt: &mut u32,
    ) -> Result<(), Error> {
        let (connection, consuming) = broker::open_routes(&self.config, "verdict worker").await?;
        let publishing = broker::confirming_channel(&connection).await?;
        consuming
            .basic_qos(self.prefetch, BasicQosOptions::default())
            .await
            .map_err(Error::amqp("setting the prefetch count"))?;
        // Every cancel published so far is known before the first submission is taken.
        let mut cancel_stream = self.open_cancel_stream(&connection, &publishing).await?;
        let mut consumer = broker::consume(&consuming, &self.config.request.queue).await?;
        let lane = match &self.units {
            Some(_) => Some(self.open_units(&connection).await?),
            None => None,
        };
        // The channels stay open for the session (`_cancel_channel` too).
        let (mut units, mut cancels, lane_channel, _cancel_channel, unit_tags) = match lane {
            Some(lane) => (
                Some(lane.units),
                Some(lane.cancels),
                Some(lane.channel),
                Some(lane.cancel_channel),
                lane.unit_tags,
            ),
            None => (None, None, None, None, Vec::new()),
        };
        self.link.up();
        QueueMetrics::inc(&self.metrics.connections);
        *attempt = 0;
        tracing::info!(
            uri = %broker::redacted(&self.config.uri),
            queue = %self.config.request.queue,
            prefetch = self.prefetch,
            "worker consuming"
        );
        let mut inflight: JoinSet<Result<(), Error>> = JoinSet::new();
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                next = consumer.next() => match next {
                    Some(Ok(delivery)) => {
                        let worker = self.clone();
                        let publishing = publishing.clone();
                        inflight.spawn(async move { worker.handle(&publishing, delivery).await });
                    }
                    Some(Err(err)) => return Err(Error::Lost(err.to_string())),
                    None => return Err(Error::Lost("the broker cancelled the consumer".into())),
                },
                next = next_of(&mut units) => match next {
                    Some(Ok(delivery)) => {
                        let (worker, publishing) = (self.clone(), publishing.clone());
                        let judging = self.units.clone();
                        inflight.spawn(async move {
                            match judging {
                                Some(judging) => worker.handle_unit(judging, &publishing, delivery).await,
                                None => Ok(()),
                            }
                        });
                    }
                    Some(Err(err)) => return Err(Error::Lost(err.to_string())),
                    None => return Err(Error::Lost("the broker cancelled the unit consumer".into())),
                },
                next = cancel_stream.consumer.next() => match next {
                    Some(Ok(delivery)) => self.stream_delivered(delivery).await?,
                    Some(Err(err)) => return Err(Error::Lost(err.to_string())),
                    None => return Err(Error::Lost("the broker cancelled the stream consumer".into())),
                },
                next = next_of(&mut cancels) => match next {
                    Some(Ok(delivery)) => self.cancel_delivered(&delivery),
                    Some(Err(err)) => return Err(Error::Lost(err.to_string())),
                    None => return Err(Error::Lost("the broker cancelled the cancel consumer".into())),
                },
                Some(joined) = inflight.join_next(), if !inflight.is_empty() => {
                    ended(joined)?;
                }
            }
        }
        // Shutting down: no new deliveries; finish and ack what is held.
        let _ = consuming
            .basic_cancel(consumer.tag(), BasicCancelOptions::default())
            .await;
        if let Some(channel) = &lane_channel {
            for tag in &unit_tags {
                let _ = channel
                    .basic_cancel(tag.as_str().into(), BasicCancelOptions::default())
                    .await;
            }
        }
        while let Some(joined) = inflight.join_next().await {
            if let Err(err) = ended(joined) {
                tracing::warn!(error = %err, "a submission was left for redelivery");
            }
        }
        let _ = cancel_stream
            .channel
            .close(200, "shutting down".into())
            .await;
        let _ = connection.close(200, "shutting down".into()).await;
        Ok(())
    }

    /// Judges (or refuses) one delivery, publishes its reports, then acks it.
    async fn handle(&self, publishing: &Channel, delivery: Delivery) -> Result<(), Error> {
        QueueMetrics::inc(&self.metrics.deliveries);
        if delivery.redelivered {
            QueueMetrics::inc(&self.metrics.redeliveries);
        }
        let report = match read_submission(&delivery.data) {
            Ok(submission) => {
                let key = crate::cancel_sets::key_of(&submission.category, &submission.sub_id);
                let accepted = crate::cancel_sets::accepted_at(&delivery);
                let cancel = self.sub_cancels.enter(&key, accepted);
                tracing::info!(
                    sub_id = %submission.sub_id,
                    redelivered = delivery.redelivered,
                    cancelled = cancel.is_none(),
                    "judging"
                );
                // A submission cancelled before it was taken is not judged: its report comes
                // at once, every task `System Error` `cancelled: ...`.
                let judged = match cancel {
                    Some(token) => {
                        let judged = self.judge(publishing, submission, token, accepted).await;
                        self.sub_cancels.leave(&key);
                        judged
                    }
                    None => {
                        let token = CancellationToken::new();
                        token.cancel();
                        self.judge(publishing, submission, token, accepted).await
                    }
                };
                (judged?, accepted)
            }
            Err(report) => {
                QueueMetrics::inc(&self.metrics.invalid);
                tracing::warn!(
                    sub_id = %report.sub_id,
                    message = report.message.as_deref().unwrap_or(""),
                    "invalid submission; reporting it and acking"
                );
                (*report, crate::cancel_sets::accepted_at(&delivery))
            }
        };
        let (report, accepted) = report;
        self.publish_report(publishing, &report, accepted).await?;
        delivery
            .acker
            .ack(BasicAckOptions::default())
            .await
            .map_err(Error::amqp("acking a delivery"))?;
        QueueMetrics::inc(&self.metrics.acks);
        Ok(())
    }

    /// Judges `submission`, publishing the report so far after every finished task (unfinished
    /// tasks `Pending`); returns the final report (not yet published).
    async fn judge(
        &self,
        publishing: &Channel,
        submission: Valid<Submission>,
        cancel: CancellationToken,
        accepted: i64,
    ) -> Result<JudgeReport, Error> {
        let mut so_far = JudgeReport::echoing(
            &submission,
            vec![
                JudgeTaskResult::with_status(JudgeStatus::Pending, "");
                submission.judge_tasks.len()
            ],
        );
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut judging = self.judging.judge(submission, tx, cancel);
        let report = loop {
            tokio::select! {
                biased;
                Some((index, result)) = rx.recv() => {
                    self.progress(publishing, &mut so_far, index, result, accepted).await?;
                }
                report = &mut judging => break report,
            }
        };
        // Tasks that finished in the judge's last step.
        while let Ok((index, result)) = rx.try_recv() {
            self.progress(publishing, &mut so_far, index, result, accepted)
                .await?;
        }
        Ok(report)
    }

    /// Records a finished task and publishes the report so far, unless that was the last task:
    /// the complete report is published once, as the final one.
    async fn progress(
        &self,
        publishing: &Channel,
        so_far: &mut JudgeReport,
        index: usize,
        result: JudgeTaskResult,
        accepted: i64,
    ) -> Result<(), Error> {
        match so_far.results.get_mut(index) {
            Some(slot) => *slot = result,
            None => return Ok(()),
        }
        if so_far
            .results
            .iter()
            .all(|r| r.status != JudgeStatus::Pending)
        {
            return Ok(());
        }
        self.publish_report(publishing, so_far, accepted).await
    }

    /// Publishes `report` to the report exchange, with the submission's category as the routing
    /// key (as the home system does), and waits for the broker's confirm.
    async fn publish_report(
        &self,
        publishing: &Channel,
        report: &JudgeReport,
        accepted: i64,
    ) -> Result<(), Error> {
        let body = serde_json::to_vec(report).unwrap_or_default();
        // The submission's acceptance, echoed: a front end tells this report from one of an
        // earlier submission of the same sub_id (crate::frontend).
        let headers = (accepted != i64::MIN).then(|| {
            let mut headers = lapin::types::FieldTable::default();
            headers.insert(
                crate::cancel_sets::ACCEPTED_AT_HEADER.into(),
                lapin::types::AMQPValue::LongLongInt(accepted),
            );
            headers
        });
        let published = broker::publish_with(
            publishing,
            &self.config.report.exchange,
            &report.category,
            &body,
            headers,
        )
        .await;
        match &published {
            Ok(()) => QueueMetrics::inc(&self.metrics.reports_published),
            Err(_) => QueueMetrics::inc(&self.metrics.publish_failures),
        }
        published
    }
}

/// The next delivery of `consumer`, or never when there is none.
async fn next_of<S>(consumer: &mut Option<S>) -> Option<Result<Delivery, lapin::Error>>
where
    S: futures::Stream<Item = Result<Delivery, lapin::Error>> + Unpin,
{
    match consumer {
        Some(consumer) => consumer.next().await,
        None => std::future::pending().await,
    }
}

/// What a finished handler means for the session: a lost connection, a refused report or a
/// panicked handler ends it (its delivery stays unacked and is redelivered).
fn ended(joined: Result<Result<(), Error>, tokio::task::JoinError>) -> Result<(), Error> {
    match joined {
        Ok(result) => result,
        Err(join) => {
            tracing::error!(error = %join, "a delivery handler panicked");
            Err(Error::Lost(format!("a delivery handler failed: {join}")))
        }
    }
}

/// The Submission in a message body, or the contract's invalid-request report for it.
pub fn read_submission(body: &[u8]) -> Result<Valid<Submission>, Box<JudgeReport>> {
    match std::str::from_utf8(body) {
        Ok(text) => parse_submission(text).map_err(|err| Box::new(err.into_report())),
        Err(err) => Err(Box::new(JudgeReport {
            sub_type: String::new(),
            category: String::new(),
            prob_id: String::new(),
            sub_id: String::new(),
            results: Vec::new(),
            message: Some(format!("request is not UTF-8: {err}")),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_body_becomes_the_contracts_report() {
        let report = read_submission(b"{\"sub_id\": \"s9\", \"judge_tasks\": 3}").unwrap_err();
        assert_eq!(report.sub_id, "s9");
        assert!(report.results.is_empty());
        assert!(report.message.is_some_and(|m| !m.is_empty()));
        let report = read_submission(&[0xff, 0xfe]).unwrap_err();
        assert!(report.message.is_some_and(|m| m.contains("UTF-8")));
    }
}
