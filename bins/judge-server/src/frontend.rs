//! `role = "frontend"`: HTTP in front of the broker. An accepted Submission is written to the
//! store, published to the request exchange with verdict-queue's [`FrontEnd`] and answered `202`
//! only after the broker confirmed it; every report the workers publish (for submissions any
//! front end accepted, or a platform published directly) feeds the store, from which `GET`, the
//! event stream and `POST /v1/judge` answer. Batches go the same way ([`Relay`]): kept on disk,
//! cut into units for the workers, their results consumed by every front end. Nothing is judged
//! here: no sandbox is needed.

use crate::auth::Auth;
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::state::{AppState, Broker, Handoff, Shared, Submissions, open_store};
use anyhow::Context;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Submission, Valid, parse_submission};
use verdict_oracle::OracleOptions;
use verdict_queue::{Consumed, FrontEnd, ReportSink};
use verdict_submissions::batches::Relay;
use verdict_submissions::{AcceptClaim, Entry, Metrics, Reject, Store};

/// Opens the store (taking back the submissions in progress when the front end stopped) and
/// sets up the link to the broker; the caller runs the link ([`FrontEnd::run`]).
fn front_end(
    mut config: ServerConfig,
    stopping: CancellationToken,
) -> anyhow::Result<(AppState, Arc<FrontEnd>)> {
    config.check()?;
    let metrics = Arc::new(Metrics::default());
    let (store, unfinished) = open_store(&config)?;
    let store = Arc::new(store);
    // Those in progress when the front end stopped come back as their newest report said, or
    // queued as accepted; their reports keep coming from the broker (all of them when
    // `amqp.frontend_queue` is named), so nothing is judged here.
    drop(store.recover(unfinished, &metrics));
    if config.amqp.frontend_queue.is_empty() {
        config.amqp.frontend_queue = own_queue_name(&config.data_dir())?;
    }
    // Batches: kept in data_dir/batches, judged by the workers (docs/batches.md).
    let oracle = OracleOptions {
        default_timeout_ms: config.oracle_default_timeout_ms,
        ..OracleOptions::default()
    };
    let (batches_dir, limits) = config.batches();
    let relay = Relay::open(batches_dir, oracle, limits).context("cannot open the batches")?;
    let sink: ReportSink = {
        let (store, metrics, relay) = (store.clone(), metrics.clone(), relay.clone());
        Arc::new(move |consumed| {
            let (store, metrics, relay) = (store.clone(), metrics.clone(), relay.clone());
            Box::pin(async move {
                match consumed {
                    Consumed::Batch(message) => relay.ingest(message).await,
                    Consumed::Submission(body) => seen_published(&store, body).await,
                    Consumed::Report(mut report, routing_key) => {
                        // The home system publishes each report with its category as the
                        // routing key: the fallback for a report that could not name its own.
                        if report.category.is_empty() {
                            report.category = routing_key;
                        }
                        store.ingest(report, &metrics).await;
                    }
                }
            })
        })
    };
    let broker = Broker::default();
    let front = Arc::new(FrontEnd::new(
        config.amqp.clone(),
        broker.queue.clone(),
        broker.link.clone(),
        sink,
    ));
    relay.connect(front.clone());
    tracing::info!(queue = %config.amqp.frontend_queue, "the front end's report queue");
    let state = AppState::assemble(Shared {
        sandbox_fusion: None,
        piston: None,
        jobe: None,
        judge0: None,
        streams: Default::default(),
        auth: Auth::new(config.tokens.clone()),
        config,
        metrics,
        stopping,
        judge: None,
        submissions: Some(Submissions {
            store,
            handoff: Handoff::Publish(front.clone()),
        }),
        direct: None,
        broker: Some(broker),
        relay: Some(relay),
    });
    Ok((state, front))
}

/// A front end's acceptance: an entry in the store (409 for a key in flight), the request on
/// disk, then the publish and its confirm; a publish that fails takes the submission back (503).
pub(crate) async fn publish(
    state: &AppState,
    store: &Arc<Store>,
    front: &Arc<FrontEnd>,
    submission: Valid<Submission>,
    request: String,
) -> Result<Arc<Entry>, ApiError> {
    if state.stopping.is_cancelled() {
        state.metrics.rejected(Reject::ShuttingDown);
        return Err(ApiError::ShuttingDown);
    }
    let link = state.broker.as_ref().map(|b| b.link.status());
    if let Some(link) = link.filter(|l| !l.connected) {
        return Err(unavailable(
            state,
            &format!(
                "not connected: {}",
                link.last_error.as_deref().unwrap_or("connecting")
            ),
        ));
    }
    let (entry, previous) = store
        .insert(&submission)
        .inspect_err(|_| state.metrics.rejected(Reject::Conflict))?;
    // On its own task: a request dropped meanwhile (timeout, client gone) must not leave the
    // submission half-accepted; it ends published, or taken back. The request waits for the
    // commit to disk at most `store_timeout_ms`: past it (a stalled or frozen data disk) it is
    // 503 and the late commit is taken back, as a standalone server's accept.
    let claim = Arc::new(AcceptClaim::default());
    let (committed, commit) = tokio::sync::oneshot::channel::<()>();
    let handing = {
        let (state, store, front, entry, claim) = (
            state.clone(),
            store.clone(),
            front.clone(),
            entry.clone(),
            claim.clone(),
        );
        tokio::spawn(async move {
            // On disk before it is published: its reports may come back at once.
            if let Err(err) = store.persist(&entry, request.clone()).await {
                store.undo_insert(&entry, previous);
                return Err(ApiError::from(err));
            }
            claim.stand(&store, &entry, previous.clone()).await?;
            let _ = committed.send(());
            let (category, sub_id) = (&entry.key.category, &entry.key.sub_id);
            if let Err(err) = front
                .publish_submission(category, sub_id, request.as_bytes())
                .await
            {
                tracing::warn!(sub_id = %entry.key.sub_id, error = %err, "publish failed");
                store.withdraw(&entry, previous).await;
                return Err(unavailable(&state, &err.to_string()));
            }
            Ok(())
        })
    };
    let deadline = tokio::time::Instant::now() + state.config.store_timeout();
    claim.wait(Some(deadline), commit).await?;
    handing
        .await
        .map_err(|e| ApiError::Internal(format!("publishing: {e}")))??;
    state
        .metrics
        .submissions_accepted
        .fetch_add(1, Ordering::Relaxed);
    Ok(entry)
}

/// How long a front end's cancel waits for the final report of the worker judging the
/// submission (it kills the running boxes as soon as it hears the cancel) before it ends the
/// submission itself (no worker holds it: it is queued, or no worker is up).
const WORKER_CANCEL_WAIT: Duration = Duration::from_secs(3);

/// A front end's cancel of an unfinished submission: published to the cancels' stream (every
/// worker reads it, also one that is not up yet, so the submission is not judged when a worker
/// takes it later), confirmed by the broker (503 when it is not). The worker judging it stops
/// its boxes and publishes its final report; when none came within [`WORKER_CANCEL_WAIT`], the
/// front end ends it itself: the tasks finished so far as they are, the others `System Error`
/// `cancelled: ...`, stored as final here and published to every front end and the platform.
/// Whichever final report comes first is kept; a later one changes nothing.
pub(crate) async fn cancel(
    state: &AppState,
    store: &Arc<Store>,
    front: &Arc<FrontEnd>,
    entry: &Arc<Entry>,
) -> Result<(), ApiError> {
    let (category, sub_id) = (&entry.key.category, &entry.key.sub_id);
    if let Err(err) = front.publish_cancel(category, sub_id).await {
        tracing::warn!(%sub_id, %category, error = %err, "cancel not published");
        let secs = state.config.amqp.reconnect_max_ms.div_ceil(1000);
        return Err(ApiError::Unavailable {
            message: format!(
                "the broker did not take the cancel ({err}); the submission goes on: retry later"
            ),
            retry_after_secs: secs.clamp(1, 60),
        });
    }
    tracing::info!(%sub_id, %category, "cancel published to the workers");
    if tokio::time::timeout(WORKER_CANCEL_WAIT, entry.wait())
        .await
        .is_ok()
    {
        return Ok(());
    }
    let (mut report, _) = entry.snapshot();
    for result in &mut report.results {
        if result.status.is_in_progress() {
            let log = if result.status == JudgeStatus::Pending {
                verdict_scheduler::CANCELLED
            } else {
                verdict_scheduler::CANCELLED_RUNNING
            };
            *result = JudgeTaskResult::with_status(JudgeStatus::SystemError, log);
        }
    }
    store.ingest(report.clone(), &state.metrics).await;
    tracing::info!(%sub_id, %category, "no worker reported it: ended here as cancelled");
    if let Err(err) = front.publish_report(&report).await {
        // Stored here as final; another front end learns it when a worker takes the submission
        // (it reports it cancelled).
        tracing::warn!(%sub_id, error = %err, "the cancelled report was not published");
    }
    Ok(())
}

/// The 503 of a submission the broker did not take.
fn unavailable(state: &AppState, why: &str) -> ApiError {
    state.metrics.rejected(Reject::BrokerUnavailable);
    let secs = state.config.amqp.reconnect_max_ms.div_ceil(1000);
    ApiError::Unavailable {
        message: format!(
            "the broker did not take the submission ({why}); it was not accepted: retry later"
        ),
        retry_after_secs: secs.clamp(1, 60),
    }
}

/// The name of this front end's report queue when `amqp.frontend_queue` does not give one:
/// made once and kept in `data_dir` (which one front end holds at a time), so the queue outlives
/// restarts and lost connections and the reports published meanwhile wait in it.
fn own_queue_name(data_dir: &std::path::Path) -> anyhow::Result<String> {
    let path = data_dir.join("frontend-queue");
    match std::fs::read_to_string(&path) {
        Ok(name) if !name.trim().is_empty() => return Ok(name.trim().to_owned()),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let name = format!("verdict-frontend-{:x}-{nanos:x}", std::process::id());
    std::fs::write(&path, &name).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(name)
}

/// A copy of a Submission published to the request exchange (by this front end, another one or
/// a platform): known here as queued from now on, unless it already is (this front end accepted
/// it) or is not a valid Submission (its worker reports that).
async fn seen_published(store: &Store, body: Vec<u8>) {
    let Ok(text) = String::from_utf8(body) else {
        return;
    };
    let Ok(submission) = parse_submission(&text) else {
        return;
    };
    if crate::ids::check_ids(&submission).is_empty() {
        store.note_published(&submission, text).await;
    }
}

/// Runs a front end until `shutdown` fires: keeps the link to the broker (reconnecting while
/// it is away) and serves HTTP on `listener`. On shutdown it refuses new submissions, lets
/// requests in flight end (at most `shutdown_grace_ms`), then leaves the broker.
pub async fn serve_frontend(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let (state, front) = front_end(config, shutdown.clone())?;
    let link_down = CancellationToken::new();
    let linking = tokio::spawn(front.run(link_down.clone()));
    let served = crate::serve::run(state, listener, shutdown, None).await;
    link_down.cancel();
    let _ = linking.await;
    served
}
