//! Batches over HTTP (`docs/batches.md`): `POST /v1/batches` (durable, idempotent under an
//! `Idempotency-Key`, `?wait=MS` for a small synchronous form), `GET /v1/batches/{id}` (a
//! snapshot), `GET /v1/batches/{id}/events` (NDJSON, or SSE with `Accept: text/event-stream`)
//! and `DELETE /v1/batches/{id}` (cancel).

use crate::auth::Caller;
use crate::error::ApiError;
use crate::extract::Text;
use crate::state::AppState;
use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use verdict_contracts::batch::BatchEvent;
use verdict_oracle::OracleError;
use verdict_submissions::batches::{BatchEntry, BatchError};

/// How long an event stream stays silent at most: then a keep-alive (an empty NDJSON line, an
/// SSE comment).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The query of `POST /v1/batches`.
#[derive(Debug, Deserialize)]
pub struct SubmitQuery {
    /// Wait at most this many ms for the batch to finish (200 with its results), else 202.
    pub wait: Option<u64>,
    /// The category to queue it under (default: a programming problem's, else `default`).
    pub category: Option<String>,
}

/// The answer to a refused batch or suite.
pub(crate) fn api_error(err: BatchError) -> ApiError {
    if err.is_unavailable() {
        // The host's fault, which may pass (a full, read-only or removed data disk).
        tracing::error!("{err}");
        return ApiError::Unavailable {
            message: "the server cannot store the batch now (its data disk); retry later".into(),
            retry_after_secs: 5,
        };
    }
    match err {
        BatchError::Invalid(errors) => {
            let field = errors
                .first()
                .map_or_else(|| "batch".to_owned(), |e| e.field.clone());
            let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
            ApiError::invalid(field, list.join("; "))
        }
        err @ BatchError::NotJson(_) => ApiError::bad_body(err.to_string()),
        BatchError::Conflict(id) => {
            ApiError::Conflict(format!("batch {id:?} exists with another request"))
        }
        err @ (BatchError::QueueFull {
            retry_after_secs, ..
        }
        | BatchError::WaitTooLong {
            retry_after_secs, ..
        }) => ApiError::Busy {
            message: format!("{err}; retry later"),
            retry_after_secs,
        },
        BatchError::ShuttingDown => ApiError::ShuttingDown,
        BatchError::Oracle(OracleError::Suite(e)) => {
            ApiError::invalid(e.field.clone(), e.to_string())
        }
        BatchError::Unavailable(why) => ApiError::Unavailable {
            message: format!("the broker did not take it ({why}); nothing was done: retry later"),
            retry_after_secs: 2,
        },
        err @ (BatchError::Io { .. } | BatchError::Oracle(_)) => {
            ApiError::Internal(err.to_string())
        }
    }
}

/// `POST /v1/batches`.
pub async fn submit(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    query: Result<Query<SubmitQuery>, axum::extract::rejection::QueryRejection>,
    Text(text): Text,
) -> Result<Response, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::invalid("query", format!("query: {}", e.body_text())))?;
    let id = match headers.get("idempotency-key") {
        Some(v) => {
            let v = v
                .to_str()
                .map_err(|_| ApiError::invalid("Idempotency-Key", "not visible ASCII"))?;
            if v.is_empty() || v.len() > 200 {
                return Err(ApiError::invalid("Idempotency-Key", "1 to 200 characters"));
            }
            Some(v.to_owned())
        }
        None => None,
    };
    let dispatch = state.dispatch()?;
    let batch = dispatch.check_batch(text).map_err(api_error)?;
    let category = query
        .category
        .or_else(|| batch.category().map(str::to_owned))
        .unwrap_or_else(|| "default".to_owned());
    caller.check_category(&category)?;
    let (entry, _new) = dispatch
        .accept_batch(id, category, batch)
        .await
        .map_err(api_error)?;
    if let Some(ms) = query.wait {
        let limit = Duration::from_millis(ms).min(state.config.request_timeout());
        let _ = tokio::time::timeout(limit, entry.wait()).await;
        if entry.is_done() {
            return Ok((StatusCode::OK, Json(entry.status())).into_response());
        }
    }
    let mut response = (StatusCode::ACCEPTED, Json(entry.status())).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!(
        "/v1/batches/{}",
        crate::submissions::encode_segment(&entry.id)
    )) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

fn visible(state: &AppState, caller: &Caller, id: &str) -> Result<Arc<BatchEntry>, ApiError> {
    match state.dispatch()?.batch(id) {
        Some(entry) if caller.may_use(&entry.category) => Ok(entry),
        _ => Err(ApiError::NotFound(format!("no batch {id:?}"))),
    }
}

/// `GET /v1/batches/{id}`.
pub async fn status(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(Json(visible(&state, &caller, &id)?.status()).into_response())
}

/// `DELETE /v1/batches/{id}`.
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    visible(&state, &caller, &id)?;
    let entry = state
        .dispatch()?
        .cancel_batch(&id)
        .await
        .map_err(api_error)?
        .ok_or_else(|| ApiError::NotFound(format!("no batch {id:?}")))?;
    Ok(Json(entry.status()).into_response())
}

/// `GET /v1/batches/{id}/events`: every candidate's result in the order they finished, then
/// the summary; NDJSON, or SSE when asked for; under the same stream caps as a submission's.
pub async fn events(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let entry = visible(&state, &caller, &id)?;
    let sse = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    let slot = state.open_stream(format!("batch {}", entry.id), &caller)?;
    let rx = entry.subscribe();
    // `None`: nothing happened for a keep-alive period (a batch waiting in the queue, a long
    // candidate): NDJSON sends an empty line, so a client's read timeout never fires on a
    // batch that is merely waiting (SSE has its own comment line).
    let stream = futures::stream::unfold(
        (
            entry,
            rx,
            0usize,
            std::collections::VecDeque::new(),
            false,
            slot,
        ),
        |(entry, mut rx, mut seen, mut pending, mut over, slot)| async move {
            loop {
                if let Some(event) = pending.pop_front() {
                    return Some((Some(event), (entry, rx, seen, pending, over, slot)));
                }
                if over {
                    return None;
                }
                let (events, done) = entry.events_after(seen);
                seen += events
                    .iter()
                    .filter(|e| matches!(e, BatchEvent::Candidate(_)))
                    .count();
                pending.extend(events);
                over = done;
                if pending.is_empty() && !over {
                    match tokio::time::timeout(KEEP_ALIVE, rx.changed()).await {
                        Err(_) => {
                            return Some((None, (entry, rx, seen, pending, over, slot)));
                        }
                        Ok(Err(_)) => over = true,
                        Ok(Ok(())) => {}
                    }
                }
            }
        },
    );
    if sse {
        let stream = futures::StreamExt::filter_map(stream, |event| async move {
            let event = event?;
            let name = match &event {
                BatchEvent::Candidate(_) => "candidate",
                BatchEvent::Summary(_) => "summary",
            };
            Some(Ok::<_, Infallible>(
                Event::default()
                    .event(name)
                    .data(serde_json::to_string(&event).unwrap_or_default()),
            ))
        });
        return Ok(Sse::new(stream)
            .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
            .into_response());
    }
    let stream = futures::StreamExt::map(stream, |event| {
        let mut line = match event {
            Some(event) => serde_json::to_vec(&event).unwrap_or_default(),
            None => Vec::new(),
        };
        line.push(b'\n');
        Ok::<_, Infallible>(Bytes::from(line))
    });
    let mut response = Body::from_stream(stream).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    Ok(response)
}
