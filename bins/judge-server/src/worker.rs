//! `role = "worker"`: judge Submissions from the broker's request queue (verdict-queue's
//! [`Worker`]) with this host's judge; HTTP serves only `/v1/health` and `/metrics`.

use crate::auth::Auth;
use crate::config::ServerConfig;
use anyhow::Context;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::json;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use verdict_contracts::{JudgeReport, JudgeStatus, JudgeTaskResult, Submission};
use verdict_queue::{Judging, Link, QueueMetrics, Worker};
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

#[derive(Clone)]
struct WorkerState {
    judge: Judge,
    auth: Arc<Auth>,
    metrics: Arc<Metrics>,
    queue: Arc<QueueMetrics>,
    link: Arc<Link>,
    stopping: CancellationToken,
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
    let queue = Arc::new(QueueMetrics::default());
    let link = Arc::new(Link::default());
    let worker = Arc::new(Worker::new(
        config.amqp.clone(),
        config.workers,
        Arc::new(JudgeJudging {
            judge: judge.clone(),
            metrics: metrics.clone(),
        }),
        queue.clone(),
        link.clone(),
    ));
    let mut consuming = tokio::spawn(worker.run(shutdown.clone()));
    let state = WorkerState {
        judge,
        auth: Arc::new(Auth::new(config.tokens.clone())),
        metrics,
        queue,
        link,
        stopping: shutdown.clone(),
    };
    let app = Router::new()
        .route("/v1/health", get(health))
        .route("/metrics", get(prometheus))
        .with_state(state);
    let server = tokio::spawn(
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.clone().cancelled_owned())
            .into_future(),
    );
    tokio::select! {
        joined = &mut consuming => joined.context("the worker task failed")?,
        () = shutdown.cancelled() => {
            let grace = Duration::from_millis(config.shutdown_grace_ms);
            if tokio::time::timeout(grace, &mut consuming).await.is_err() {
                tracing::warn!(
                    grace_ms = config.shutdown_grace_ms,
                    "shutdown grace period over; the broker redelivers what was not finished"
                );
                consuming.abort();
            } else {
                tracing::info!("worker shut down cleanly");
            }
        }
    }
    server.abort();
    Ok(())
}

/// `GET /v1/health`: `ok` while connected to the broker, `degraded` (with the error) while not.
async fn health(State(state): State<WorkerState>) -> Json<serde_json::Value> {
    let broker = state.link.status();
    let status = if state.stopping.is_cancelled() {
        "shutting_down"
    } else if broker.connected {
        "ok"
    } else {
        "degraded"
    };
    Json(json!({
        "status": status,
        "role": "worker",
        "version": env!("CARGO_PKG_VERSION"),
        "broker": broker,
        "running_submissions": state.metrics.running_submissions.load(Ordering::Relaxed).max(0),
    }))
}

/// `GET /metrics`: the judge's metrics and the broker traffic.
async fn prometheus(State(state): State<WorkerState>, headers: HeaderMap) -> Response {
    if let Err(err) = state.auth.caller(&headers) {
        return err.into_response();
    }
    let mut text = state.metrics.render(state.judge.cache_stats());
    state.queue.render(state.link.is_up(), &mut text);
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}
