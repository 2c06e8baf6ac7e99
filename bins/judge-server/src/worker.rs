//! `role = "worker"`: judge Submissions from the broker's request queue (verdict-queue's
//! [`Worker`]) with this host's judge; HTTP serves only `/v1/health` and `/metrics`.

use crate::auth::Auth;
use crate::config::ServerConfig;
use crate::state::{AppState, Broker, Shared};
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
use verdict_contracts::{JudgeReport, JudgeStatus, JudgeTaskResult, Submission};
use verdict_queue::{Judging, Worker};
use verdict_scheduler::{Judge, TaskUpdate};
use verdict_submissions::Metrics;

/// The judge behind a worker: `Judge::judge_with_updates`, its updates forwarded, a panic
/// turned into `System Error` results (a panicking message must not be redelivered for ever).
struct JudgeJudging {
    judge: Judge,
    metrics: Arc<Metrics>,
}

impl Judging for JudgeJudging {
    fn judge(
        &self,
        submission: Submission,
        updates: mpsc::UnboundedSender<(usize, JudgeTaskResult)>,
    ) -> BoxFuture<'static, JudgeReport> {
        let judge = self.judge.clone();
        let metrics = self.metrics.clone();
        Box::pin(async move {
            let started = Instant::now();
            metrics.running_submissions.fetch_add(1, Ordering::Relaxed);
            let header = JudgeReport::echoing(&submission, Vec::new());
            let count = submission.judge_tasks.len();
            let (tx, mut rx) = mpsc::unbounded_channel::<TaskUpdate>();
            let judging =
                AssertUnwindSafe(judge.judge_with_updates(submission, Some(tx))).catch_unwind();
            let forwarding = async {
                while let Some(update) = rx.recv().await {
                    metrics.task_finished(&update.result);
                    let _ = updates.send((update.index, update.result));
                }
            };
            let (judged, ()) = tokio::join!(judging, forwarding);
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
    let worker = Arc::new(Worker::new(
        config.amqp.clone(),
        config.workers,
        Arc::new(JudgeJudging {
            judge: judge.clone(),
            metrics: metrics.clone(),
        }),
        broker.queue.clone(),
        broker.link.clone(),
    ));
    let consuming = tokio::spawn(worker.run(shutdown.clone()));
    let state = AppState::assemble(Shared {
        auth: Auth::new(config.tokens.clone()),
        config,
        metrics,
        stopping: shutdown.clone(),
        judge: Some(judge),
        submissions: None,
        direct: None,
        broker: Some(broker),
    });
    crate::serve::run(state, listener, shutdown, Some(consuming)).await
}
