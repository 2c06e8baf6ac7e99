//! Serving, for every role: the role's router (`routes.rs`) on a listener, the sweeper of
//! finished submissions where there are some, and one graceful shutdown: when the token fires,
//! new work is refused (503), the listener closes, and requests in flight, accepted submissions
//! and the role's own work (a worker's deliveries) get `shutdown_grace_ms` to finish.

use crate::connections::{ConnectionLimits, serve_connections, usable_connections};
use crate::routes::router;
use crate::state::AppState;
use anyhow::Context;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Serves a standalone server's `state` on `listener` until `shutdown` is cancelled; then
/// refuses new work, lets the queued and running submissions finish (at most
/// `shutdown_grace_ms`) and returns.
pub async fn serve(
    state: AppState,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    run(state, listener, shutdown, None).await
}

/// Serves `state` on `listener` until `shutdown` is cancelled (or `work`, the role's own
/// background work, ends first); then the graceful shutdown described above.
pub(crate) async fn run(
    state: AppState,
    listener: TcpListener,
    shutdown: CancellationToken,
    mut work: Option<JoinHandle<()>>,
) -> anyhow::Result<()> {
    let sweeper = state.submissions.as_ref().map(|s| {
        verdict_submissions::spawn_sweeper(
            s.store.clone(),
            state.config.retention_secs,
            shutdown.clone(),
        )
    });
    if let Some(judge0) = &state.judge0 {
        judge0.recover().await;
    }
    let signal = {
        let state = state.clone();
        let shutdown = shutdown.clone();
        async move {
            shutdown.cancelled().await;
            tracing::info!(
                queued = state.load().0,
                "shutting down: refusing new work, finishing accepted work"
            );
            state.stopping.cancel();
            if let Some(submissions) = &state.submissions {
                submissions.dispatch.stop_accepting();
            }
        }
    };
    let limits = ConnectionLimits {
        max_connections: usable_connections(state.config.max_connections),
        max_per_address: state.config.max_connections_per_address,
        header_timeout: Duration::from_millis(state.config.header_timeout_ms),
    };
    let app = router(state.clone());
    let mut server = tokio::spawn(async move {
        serve_connections(listener, app, limits, signal).await;
        Ok::<(), std::io::Error>(())
    });
    let ended = async {
        match &mut work {
            Some(work) => work.await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        result = &mut server => {
            abort(&sweeper);
            return result.context("server task failed")?.context("server failed");
        }
        joined = ended => {
            server.abort();
            abort(&sweeper);
            return joined.context("the worker task failed");
        }
        () = shutdown.cancelled() => {}
    }
    let grace = Duration::from_millis(state.config.shutdown_grace_ms);
    let finished = async {
        if let Some(submissions) = &state.submissions {
            submissions.dispatch.drained().await;
        }
        if let Some(work) = work {
            let _ = work.await;
        }
        let _ = (&mut server).await;
    };
    if tokio::time::timeout(grace, finished).await.is_err() {
        tracing::warn!(
            grace_ms = state.config.shutdown_grace_ms,
            "shutdown grace period over; exiting with work unfinished"
        );
        server.abort();
    } else {
        tracing::info!("shut down cleanly");
    }
    abort(&sweeper);
    Ok(())
}

fn abort(task: &Option<JoinHandle<()>>) {
    if let Some(task) = task {
        task.abort();
    }
}
