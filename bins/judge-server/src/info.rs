//! `GET /v1/health`, `GET /v1/languages`, `GET /metrics` and `GET /v1/openapi.json`.

use crate::app::AppState;
use crate::error::ApiError;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use verdict_scripts::{ToolchainStatus, probe_all};

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

/// The languages, probed on first use and kept (toolchains do not change under a running server).
#[derive(Debug, Default)]
pub struct LanguageCache {
    statuses: tokio::sync::OnceCell<Arc<Vec<ToolchainStatus>>>,
}

/// `GET /v1/languages`: which languages work here, with versions, and why the others do not.
pub async fn languages(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Vec<ToolchainStatus>>, ApiError> {
    state.auth.caller(&headers)?;
    let judge = state.judge.clone();
    let statuses = state
        .languages
        .statuses
        .get_or_try_init(|| async move {
            tokio::task::spawn_blocking(move || {
                Arc::new(probe_all(judge.profiles(), Duration::from_secs(20)))
            })
            .await
            .map_err(|e| ApiError::Internal(format!("language probe panicked: {e}")))
        })
        .await?;
    Ok(Json(statuses.as_ref().clone()))
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    state.auth.caller(&headers)?;
    let mut response = state
        .metrics
        .render(state.judge.cache_stats())
        .into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    Ok(response)
}

/// `GET /v1/openapi.json`: the OpenAPI 3.1 document (no token needed).
pub async fn openapi() -> Json<&'static Value> {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    Json(DOCUMENT.get_or_init(crate::openapi::document))
}
