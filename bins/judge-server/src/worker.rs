//! `role = "worker"`: judge Submissions from the broker's request queue and batch units from
//! the batches' work queue (verdict-queue's [`Worker`]) with this host's judge; HTTP serves
//! only `/v1/health` and `/metrics`.

use crate::config::ServerConfig;
use crate::state::{AppState, Broker, Shared, oracle_options};
use anyhow::Context;
use futures::FutureExt;
use futures::future::BoxFuture;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use verdict_contracts::batch::{BatchRequest, CandidateResult, CandidateStatus, InfraError};
use verdict_contracts::{JudgeReport, JudgeStatus, JudgeTaskResult, Submission, Valid};
use verdict_datasets::DatasetBatchJudge;
use verdict_queue::batch::{UnitJudging, UnitMessage};
use verdict_queue::{Judging, Worker};
use verdict_scheduler::{BatchCancel, BatchJudge, Judge, SubmissionCancel, TaskUpdate};
use verdict_submissions::Metrics;

/// The judge behind a worker: `Judge::judge_cancellable`, its updates forwarded, a front end's
/// cancel relayed to the submission's cancel switch (its running boxes killed at once, no task
/// started after it), a panic turned into `System Error` results (a panicking message must not
/// be redelivered for ever).
struct JudgeJudging {
    judge: Judge,
    metrics: Arc<Metrics>,
}

impl Judging for JudgeJudging {
    fn judge(
        &self,
        submission: Valid<Submission>,
        updates: mpsc::UnboundedSender<(usize, JudgeTaskResult)>,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, JudgeReport> {
        let judge = self.judge.clone();
        let metrics = self.metrics.clone();
        Box::pin(async move {
            let started = Instant::now();
            metrics.running_submissions.fetch_add(1, Ordering::Relaxed);
            let header = JudgeReport::echoing(&submission, Vec::new());
            let count = submission.judge_tasks.len();
            let (tx, mut rx) = mpsc::unbounded_channel::<TaskUpdate>();
            let switch = SubmissionCancel::default();
            if cancel.is_cancelled() {
                switch.cancel();
            }
            let relay = {
                let switch = switch.clone();
                tokio::spawn(async move {
                    cancel.cancelled().await;
                    switch.cancel();
                })
            };
            let judging = AssertUnwindSafe(judge.judge_cancellable(submission, Some(tx), switch))
                .catch_unwind();
            let forwarding = async {
                while let Some(update) = rx.recv().await {
                    metrics.task_finished(&update.result);
                    let _ = updates.send((update.index, update.result));
                }
            };
            let (judged, ()) = tokio::join!(judging, forwarding);
            relay.abort();
            let report = judged.unwrap_or_else(|_| {
                tracing::error!(sub_id = %header.sub_id, "the judge panicked");
                JudgeReport {
                    results: vec![
                        JudgeTaskResult::with_status(
                            JudgeStatus::SystemError,
                            "the judge failed; the worker's log has the details",
                        );
                        count
                    ],
                    ..header
                }
            });
            metrics
                .submission_duration
                .observe(started.elapsed().as_secs_f64());
            metrics.submissions_finished.fetch_add(1, Ordering::Relaxed);
            metrics.running_submissions.fetch_sub(1, Ordering::Relaxed);
            report
        })
    }
}

/// The batch judge behind a worker: a unit is judged as a batch of one candidate (the
/// problem's builds and data come from the judge's cache, identical candidates from the batch
/// judge's results); the batch's cancel kills the candidate's running box and starts no
/// other test.
struct UnitJudge {
    batches: DatasetBatchJudge,
}

impl UnitJudging for UnitJudge {
    fn judge(
        &self,
        unit: UnitMessage,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CandidateResult> {
        let batches = self.batches.clone();
        Box::pin(async move {
            let id = unit.candidate.id.clone();
            let request = BatchRequest {
                problem: unit.problem,
                candidates: vec![unit.candidate],
                options: unit.options,
            };
            let switch = BatchCancel::new();
            let relay = {
                let switch = switch.clone();
                tokio::spawn(async move {
                    cancel.cancelled().await;
                    switch.cancel();
                })
            };
            // A unit from the broker crossed a trust boundary: checked here, once.
            let judged = match batches.validate(request) {
                Ok(batch) => AssertUnwindSafe(batches.run_valid(batch, None, switch))
                    .catch_unwind()
                    .await
                    .map(Ok),
                Err(errors) => Ok(Err(errors)),
            };
            relay.abort();
            let failed = |message: String| CandidateResult {
                infra_error: Some(InfraError {
                    message,
                    retryable: false,
                }),
                ..CandidateResult::new(
                    id.clone(),
                    CandidateStatus::Judge(JudgeStatus::SystemError),
                    false,
                    0,
                    0,
                )
            };
            match judged {
                Ok(Ok(mut report)) if !report.results.is_empty() => report.results.remove(0),
                Ok(Ok(_)) => failed("the unit had no result".into()),
                Ok(Err(errors)) => failed(format!(
                    "the worker refused the unit: {}",
                    errors
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                )),
                Err(_) => {
                    tracing::error!(candidate = %id, "the batch judge panicked");
                    failed("the judge failed; the worker's log has the details".into())
                }
            }
        })
    }
}

/// Runs a worker until `shutdown` fires: consumes from the broker (reconnecting while it is
/// away) and serves `/v1/health` and `/metrics` on `listener`. On shutdown it stops consuming
/// and finishes the submissions it holds (at most `shutdown_grace_ms`; the broker redelivers
/// whatever was not acked).
pub async fn serve_worker(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let judge = Judge::new(config.judge.clone()).context("cannot set up the judge")?;
    let metrics = Arc::new(Metrics::default());
    let broker = Broker::default();
    let batches = DatasetBatchJudge::new(BatchJudge::new(
        judge.clone(),
        oracle_options(&config, &judge),
    ));
    let worker = Arc::new(
        Worker::new(
            config.amqp.clone(),
            config.workers,
            Arc::new(JudgeJudging {
                judge: judge.clone(),
                metrics: metrics.clone(),
            }),
            broker.queue.clone(),
            broker.link.clone(),
        )
        .with_units(Arc::new(UnitJudge { batches })),
    );
    let consuming = tokio::spawn(worker.run(shutdown.clone()));
    let state = AppState::assemble(Shared {
        broker: Some(broker),
        ..Shared::new(config, metrics, shutdown.clone()).judging(judge)?
    });
    crate::serve::run(state, listener, shutdown, Some(consuming)).await
}
