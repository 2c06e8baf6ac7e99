//! A front end's side of a submission's life on the broker: accepted by publishing it (the
//! `202` only after the broker confirmed it) and cancelled through it. The submission handlers
//! call these; the front end's start-up (`frontend.rs`) is not on their path, so that no
//! handler leads back to the route table (docs/architecture.md, "Invariants").

use crate::error::ApiError;
use crate::state::AppState;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Submission, Valid};
use verdict_queue::FrontEnd;
use verdict_submissions::{AcceptClaim, Entry, Reject, Store};

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
