//! The application: the router (every endpoint, the body limit, timeouts, fallbacks, response
//! counting) and serving with a graceful shutdown. The handlers know only [`AppState`].

use crate::error::ApiError;
use crate::host::Host;
use crate::state::AppState;
use crate::{direct, info, listing, page, submissions};
use anyhow::Context;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The router: every endpoint, the body limit, timeouts, fallbacks and response counting.
pub fn router(state: AppState) -> Router {
    // Requests that end by themselves within the request timeout.
    let timed = Router::new()
        .route(
            "/v1/submissions",
            post(submissions::submit::<AppState>).get(listing::list::<AppState>),
        )
        .route(
            "/v1/submissions/{sub_id}",
            get(submissions::status::<AppState>),
        )
        .route("/v1/oracle", post(direct::oracle))
        .route("/v1/lab/runs", post(direct::lab_run).get(direct::lab_runs))
        .route("/", get(page::index))
        .route("/assets/{name}", get(page::asset))
        .route("/v1/health", get(info::health))
        .route("/v1/languages", get(info::languages))
        .route("/metrics", get(info::metrics))
        .route("/v1/openapi.json", get(info::openapi))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            timeout::<AppState>,
        ));
    // `/v1/judge` applies the timeout itself (its answer says where to poll); event streams
    // last as long as their submission.
    let untimed = Router::new()
        .route("/v1/judge", post(submissions::judge::<AppState>))
        .route(
            "/v1/submissions/{sub_id}/events",
            get(submissions::events::<AppState>),
        );
    Router::new()
        .merge(timed)
        .merge(untimed)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(state.config.max_body_bytes()))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            count::<AppState>,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

/// Answers 504 when a request takes longer than `request_timeout_ms`.
pub(crate) async fn timeout<H: Host>(
    State(state): State<H>,
    request: Request,
    next: Next,
) -> Response {
    let limit = state.config().request_timeout();
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::Timeout(format!(
            "the request took longer than request_timeout_ms ({} ms)",
            limit.as_millis()
        ))
        .into_response(),
    }
}

/// Counts each response by status.
pub(crate) async fn count<H: Host>(
    State(state): State<H>,
    request: Request,
    next: Next,
) -> Response {
    let response = next.run(request).await;
    state.metrics().response(response.status().as_u16());
    response
}

/// The fallback: 404 naming the path.
pub(crate) async fn not_found(request: Request) -> ApiError {
    ApiError::NotFound(format!("path: no endpoint at {}", request.uri().path()))
}

/// 405.
pub(crate) async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// Serves `state` on `listener` until `shutdown` is cancelled; then refuses new work, lets the
/// queued and running submissions finish (at most `shutdown_grace_ms`) and returns.
pub async fn serve(
    state: AppState,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let app = router(state.clone());
    let sweeper = verdict_submissions::spawn_sweeper(
        state.store.clone(),
        state.config.retention_secs,
        shutdown.clone(),
    );
    let signal = {
        let state = state.clone();
        let shutdown = shutdown.clone();
        async move {
            shutdown.cancelled().await;
            tracing::info!(
                queued = state.jobs.queued(),
                "shutting down: refusing new work, finishing accepted submissions"
            );
            state.jobs.stop_accepting();
        }
    };
    let mut server = tokio::spawn(
        axum::serve(listener, app)
            .with_graceful_shutdown(signal)
            .into_future(),
    );
    tokio::select! {
        result = &mut server => {
            sweeper.abort();
            return result.context("server task failed")?.context("server failed");
        }
        () = shutdown.cancelled() => {}
    }
    let grace = Duration::from_millis(state.config.shutdown_grace_ms);
    let drained = async {
        state.jobs.drained().await;
        let _ = (&mut server).await;
    };
    if tokio::time::timeout(grace, drained).await.is_err() {
        tracing::warn!(
            grace_ms = state.config.shutdown_grace_ms,
            "shutdown grace period over; exiting with work unfinished"
        );
        server.abort();
    } else {
        tracing::info!("shut down cleanly");
    }
    sweeper.abort();
    Ok(())
}
