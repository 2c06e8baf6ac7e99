//! `GET /v1/health`, `GET /v1/languages`, `GET /metrics` and `GET /v1/openapi.json`.

use crate::auth::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use verdict_scripts::ToolchainStatus;

/// `GET /v1/health`: up, and how loaded (no token needed).
pub async fn health(State(state): State<AppState>) -> Json<Value> {
    let accepting = state.jobs.accepting();
    Json(json!({
        "status": if accepting { "ok" } else { "shutting_down" },
        "version": env!("CARGO_PKG_VERSION"),
        "queue_length": state.jobs.queued(),
        "running_submissions": state.metrics.running_submissions.load(Ordering::Relaxed).max(0),
        "accepting": accepting,
    }))
}

/// `GET /v1/languages`: which languages work here, with versions, and why the others do not.
pub async fn languages(
    State(state): State<AppState>,
    _caller: Caller,
) -> Result<Json<Vec<ToolchainStatus>>, ApiError> {
    let statuses = state.languages.get(&state.judge).await?;
    Ok(Json(statuses.as_ref().clone()))
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(State(state): State<AppState>, _caller: Caller) -> Response {
    let mut response = state
        .metrics
        .render(state.judge.cache_stats())
        .into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// `GET /v1/openapi.json`: the OpenAPI 3.1 document (no token needed).
pub async fn openapi() -> Json<&'static Value> {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    Json(DOCUMENT.get_or_init(crate::openapi::document))
}
