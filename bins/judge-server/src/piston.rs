//! Piston's API v2 (docs/compat.md): `GET /api/v2/runtimes` and `POST /api/v2/execute` as
//! engineer-man/Piston serves them (also under `/api/v2/piston/`, the public instance's
//! prefix, and with a trailing slash, which some clients send), so a Discord bot, a web IDE
//! or an eval script changes its base URL and runs on verdict's sandbox. Off by default; a
//! caller is let in by a key in `Authorization` (as the public instance takes keys) or by its
//! network. Errors are Piston's `{"message": ...}`.

use crate::extract::{ApiCall, Refused};
use crate::platforms::gate::Denied;
use crate::platforms::piston::Piston;
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use std::time::Duration;
use verdict_compat::piston::{ExecuteResponse, parse_execute, runtimes};

/// The routes, at Piston's own prefix and at the public instance's.
pub(crate) fn router() -> Router<AppState> {
    let mut router = Router::new();
    for prefix in ["/api/v2", "/api/v2/piston"] {
        for slash in ["", "/"] {
            router = router
                .route(&format!("{prefix}/runtimes{slash}"), get(list_runtimes))
                .route(&format!("{prefix}/execute{slash}"), post(execute));
        }
    }
    router
}

fn message(status: StatusCode, text: &str) -> Response {
    (status, axum::Json(json!({ "message": text }))).into_response()
}

/// The key a Piston client sends: `Authorization: <key>` (or `Bearer <key>`).
fn key(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    Some(value.strip_prefix("Bearer ").unwrap_or(value))
}

/// The service and the category of a caller, or the answer that refuses it.
fn caller(call: &ApiCall) -> Result<(&Piston, String), Refused> {
    let Some(piston) = call.state.piston.as_ref() else {
        return Err(message(StatusCode::NOT_FOUND, "Not Found").into());
    };
    let why = match piston.gate.category(call.client, key(&call.headers)) {
        Ok(category) => return Ok((piston, category)),
        Err(Denied::UnknownKey) => "invalid authorization key",
        Err(Denied::NoKey) => "an authorization key is required from this address",
    };
    Err(message(StatusCode::UNAUTHORIZED, why).into())
}

/// `GET /api/v2/runtimes`: the installed languages under Piston's names.
async fn list_runtimes(call: ApiCall) -> Result<Response, Refused> {
    let (piston, _) = caller(&call)?;
    let installed = piston.toolchains.get(piston.runner.judge()).await;
    Ok(axum::Json(runtimes(&installed)).into_response())
}

/// `POST /api/v2/execute`: Piston's answer, `400 {"message"}` for what Piston refuses, `429`
/// with `Retry-After` when every run slot stayed busy for `max_wait_ms`.
async fn execute(call: ApiCall, body: Bytes) -> Result<Response, Refused> {
    let (piston, category) = caller(&call)?;
    let state = &call.state;
    let json = call
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json {
        return Ok(message(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "requests must be of type application/json",
        ));
    }
    let installed = piston.toolchains.get(piston.runner.judge()).await;
    let execute = match parse_execute(&body, &runtimes(&installed), &piston.limits, &category) {
        Ok(execute) => execute,
        Err(error) => {
            let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::BAD_REQUEST);
            return Ok((status, axum::Json(error.body())).into_response());
        }
    };
    if state.stopping.is_cancelled() {
        return Ok(busy(Duration::from_secs(5), "the server is shutting down"));
    }
    state.metrics.compat_call(&category);
    Ok(match piston.runner.run(execute.program.clone()).await {
        Ok(outcome) => axum::Json(ExecuteResponse::of(&execute, &outcome)).into_response(),
        Err(error) => match error.retry_after() {
            Some(after) => busy(after, &error.to_string()),
            None => {
                tracing::warn!(%error, category, "piston execute: the judge failed");
                message(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string())
            }
        },
    })
}

/// `429` with `Retry-After` and Piston's `message`.
fn busy(retry_after: Duration, why: &str) -> Response {
    let mut response = message(
        StatusCode::TOO_MANY_REQUESTS,
        &format!("busy: {why}; retry later"),
    );
    if let Ok(value) = HeaderValue::from_str(&retry_after.as_secs().max(1).to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}
