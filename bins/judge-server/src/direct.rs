//! Requests answered directly, without the submission queue: `POST /v1/oracle` (a Task Oracle
//! suite) and `POST /v1/lab/runs` (an Agent Lab task). They share `direct_concurrency` slots;
//! when none is free the answer is 429 with Retry-After.

use crate::app::AppState;
use crate::error::ApiError;
use crate::submissions::body_text;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use std::sync::atomic::Ordering;
use tokio::sync::OwnedSemaphorePermit;
use verdict_contracts::oracle::parse_suite;
use verdict_scripts::oracle::{OracleError, OracleOptions, run_suite};

/// A direct slot, or 429 / 503.
fn slot(state: &AppState) -> Result<OwnedSemaphorePermit, ApiError> {
    if !state.jobs.accepting() {
        return Err(ApiError::ShuttingDown);
    }
    state
        .direct
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::Busy {
            message: format!(
                "all {} oracle/lab slots are busy (direct_concurrency); retry later",
                state.config.direct_concurrency
            ),
            retry_after_secs: 2,
        })
}

/// `POST /v1/oracle`: a Task Oracle suite in, its report out.
pub async fn oracle(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    state.auth.caller(&headers)?;
    let text = body_text(body, state.config.max_body_bytes())?;
    let suite = parse_suite(&text).map_err(|e| {
        if e.field == "suite" && e.message.starts_with("not JSON") {
            ApiError::bad_body(format!("body: {}", e.message))
        } else {
            ApiError::invalid(e.field.clone(), e.to_string())
        }
    })?;
    let permit = slot(&state)?;
    let judge = state.judge.clone();
    let options = OracleOptions {
        default_timeout_ms: state.config.oracle_default_timeout_ms,
        work_dir: Some(judge.config().work_dir.clone()),
        ..OracleOptions::default()
    };
    state.metrics.oracle_runs.fetch_add(1, Ordering::Relaxed);
    let report = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        run_suite(judge.sandbox(), &suite, &options)
    })
    .await
    .map_err(|e| ApiError::Internal(format!("oracle run panicked: {e}")))?
    .map_err(|e| match e {
        OracleError::Suite(e) => ApiError::invalid(e.field.clone(), e.to_string()),
        other => ApiError::Internal(format!("oracle: {other}")),
    })?;
    Ok(Json(report).into_response())
}

/// `POST /v1/lab/runs`: an Agent Lab task in, its RunRecord and ScoreRecords out.
pub async fn lab_run(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    state.auth.caller(&headers)?;
    let _text = body_text(body, state.config.max_body_bytes())?;
    Err(ApiError::NotImplemented(
        "Agent Lab runs are not available in this build of judge-server".into(),
    ))
}
