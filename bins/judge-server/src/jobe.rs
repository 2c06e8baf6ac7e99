//! Jobe's REST API (docs/compat.md), at the URLs Moodle's CodeRunner builds
//! (`<host>/jobe/index.php/restapi/...`) and Jobe's legacy root ones (`/restapi/...`):
//! `GET languages`, `POST runs`, `PUT`/`HEAD files/{id}`, so a Moodle site points its
//! `jobe_host` at judge-server and keeps its questions. Off by default; a caller is let in
//! by an `X-API-KEY` of `[[jobe.keys]]` or by its network. Errors are Jobe's: a JSON string
//! with 400 or 404, `403 Missing API key` / `Unknown API key` in plain text.

use crate::extract::{ApiCall, Refused};
use crate::platforms::gate::Denied;
use crate::platforms::jobe::Jobe;
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde_json::Value;
use verdict_compat::CompatError;
use verdict_compat::jobe::cache::valid_id;
use verdict_compat::jobe::{
    OVERLOAD_TEST, RunResult, jobe_id, languages, parse_put, parse_run, program_request,
};

/// The routes, at CodeRunner's URLs and Jobe's legacy root ones.
pub(crate) fn router() -> Router<AppState> {
    let mut router = Router::new();
    for prefix in ["/jobe/index.php/restapi", "/restapi"] {
        for slash in ["", "/"] {
            router = router
                .route(&format!("{prefix}/languages{slash}"), get(list_languages))
                .route(&format!("{prefix}/runs{slash}"), post(run));
        }
        router = router.route(
            &format!("{prefix}/files/{{id}}"),
            put(put_file).head(check_file),
        );
    }
    router
}

/// Jobe's body for a message: a JSON string.
fn text(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(Value::String(message.to_string()))).into_response()
}

/// The service and the category of a caller, or Jobe's 403 (404 when Jobe's routes are off).
fn caller(call: &ApiCall) -> Result<(&Jobe, String), Refused> {
    let Some(jobe) = call.state.jobe.as_ref() else {
        return Err(text(StatusCode::NOT_FOUND, "Not Found").into());
    };
    let key = call.headers.get("x-api-key").and_then(|v| v.to_str().ok());
    match jobe.gate.category(call.client, key) {
        Ok(category) => Ok((jobe, category)),
        Err(Denied::NoKey) => Err((StatusCode::FORBIDDEN, "Missing API key")
            .into_response()
            .into()),
        Err(Denied::UnknownKey) => Err((StatusCode::FORBIDDEN, "Unknown API key")
            .into_response()
            .into()),
    }
}

/// `GET languages`: `[[id, version], ...]`.
async fn list_languages(call: ApiCall) -> Result<Response, Refused> {
    let (jobe, _) = caller(&call)?;
    let installed = jobe.toolchains.get(jobe.runner.judge()).await;
    Ok(axum::Json(languages(&installed)).into_response())
}

/// `POST runs`: the run's result (200), Jobe's 400 for a bad `run_spec`, 404 for a file the
/// cache does not hold (CodeRunner then puts its files and runs again), outcome 21 when no
/// run slot came free within `max_wait_ms`.
async fn run(call: ApiCall, body: Bytes) -> Result<Response, Refused> {
    let (jobe, category) = caller(&call)?;
    let state = &call.state;
    let installed = jobe.toolchains.get(jobe.runner.judge()).await;
    let known = |id: &str| {
        installed
            .iter()
            .map(|i| i.language)
            .find(|l| jobe_id(*l) == id)
    };
    let spec = match parse_run(&body, &known, &jobe.limits) {
        Ok(spec) => spec,
        Err(error) => {
            let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::BAD_REQUEST);
            return Ok(text(status, &error.message));
        }
    };
    let mut files = Vec::new();
    for (id, name) in &spec.file_list {
        match jobe.files.get(&category, id) {
            Some(bytes) => files.push((name.clone(), bytes)),
            None => {
                return Ok(text(
                    StatusCode::NOT_FOUND,
                    "One or more of the specified files is missing/unavailable",
                ));
            }
        }
    }
    if spec.sourcecode == OVERLOAD_TEST || state.stopping.is_cancelled() {
        return Ok(axum::Json(RunResult::overload()).into_response());
    }
    state.metrics.compat_call(&category);
    let program = program_request(&spec, files, &category, &jobe.limits);
    Ok(match jobe.runner.run(program).await {
        Ok(outcome) => axum::Json(RunResult::of(&spec, &outcome)).into_response(),
        Err(CompatError::Busy(_) | CompatError::ShuttingDown) => {
            axum::Json(RunResult::overload()).into_response()
        }
        Err(error) => {
            tracing::warn!(%error, category, "jobe run: the judge failed");
            axum::Json(RunResult::internal(&error.to_string())).into_response()
        }
    })
}

/// `PUT files/{id}` with `{"file_contents": base64}`: 204, or Jobe's 400.
async fn put_file(call: ApiCall, Path(id): Path<String>, body: Bytes) -> Result<Response, Refused> {
    let (jobe, category) = caller(&call)?;
    if !valid_id(&id) {
        return Ok(text(StatusCode::NOT_FOUND, "Not Found"));
    }
    let bytes = match parse_put(&body, &id) {
        Ok(bytes) => bytes,
        Err(error) => return Ok(text(StatusCode::BAD_REQUEST, &error.message)),
    };
    Ok(match jobe.files.put(&category, &id, &bytes) {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(error) => {
            tracing::warn!(%error, "jobe put: the file cache failed");
            text(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("put: failed to write file {id} to cache"),
            )
        }
    })
}

/// `HEAD files/{id}`: 204 when the cache holds it, else 404.
async fn check_file(call: ApiCall, Path(id): Path<String>) -> Result<Response, Refused> {
    let (jobe, category) = caller(&call)?;
    Ok(if jobe.files.contains(&category, &id) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        StatusCode::NOT_FOUND.into_response()
    })
}
