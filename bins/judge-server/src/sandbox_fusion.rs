//! SandboxFusion's routes (docs/compat.md): `POST /run_code`, `GET /v1/ping` and `POST /submit`
//! (its `provided_data` form) as bytedance/SandboxFusion serves them, so that verl (`reward_model.sandbox_fusion.url`),
//! its tool and the `sandbox-fusion` package switch by changing one URL. Off by default. Those
//! clients send no `Authorization` header: a caller is let in by a secret path prefix
//! (`/sf/<token>/run_code`, whose token names a category) or by its network (the routes at the
//! root, loopback by default). Errors are FastAPI's (`{"detail": ...}`), never verdict's shape.

use crate::platforms::gate::ClientAddr;
use crate::platforms::sandbox_fusion::SandboxFusion;
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::time::Duration;
use verdict_compat::fastapi;
use verdict_compat::sandbox_fusion::submit::{eval_result, parse_submit};
use verdict_compat::sandbox_fusion::{RunCodeResponse, parse_run_code, program_request};
use verdict_contracts::FieldError;
use verdict_contracts::batch::{BatchOptions, BatchProblem, BatchRequest, Candidate};
use verdict_scheduler::BatchCancel;

/// The routes, at the root (by network) and under `/sf/{token}` (by secret path).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/run_code", post(run_code))
        .route("/v1/ping", get(ping))
        .route("/submit", post(submit))
        .route("/sf/{token}/run_code", post(run_code))
        .route("/sf/{token}/submit", post(submit))
        .route("/sf/{token}/v1/ping", get(ping))
}

/// FastAPI's 404.
fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"detail": "Not Found"})),
    )
        .into_response()
}

/// Who called: the secret path's token under `/sf/{token}`, the client's address at the root.
/// Its extraction refuses only a path that cannot be read; whether the caller is let in is
/// asked after the body was read.
struct Caller {
    token: Option<String>,
    client: Option<ClientAddr>,
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = PathRejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Caller, PathRejection> {
        let token = Option::<Path<String>>::from_request_parts(parts, state).await?;
        Ok(Caller {
            token: token.map(|Path(token)| token),
            client: parts.extensions.get::<ClientAddr>().copied(),
        })
    }
}

impl Caller {
    /// The service and the caller's category (its token's, or its network's at the root), or
    /// `None` when it is not let in.
    fn let_in<'a>(&self, state: &'a AppState) -> Option<(&'a SandboxFusion, String)> {
        let sf = state.sandbox_fusion.as_ref()?;
        let category = match &self.token {
            Some(token) => sf.category_of_token(token),
            None => sf.category_of_network(self.client),
        }?;
        Some((sf, category.to_string()))
    }
}

/// `GET /v1/ping`: `"pong"`.
async fn ping(State(state): State<AppState>, caller: Caller) -> Response {
    match caller.let_in(&state) {
        Some(_) => axum::Json(Value::String("pong".into())).into_response(),
        None => not_found(),
    }
}

/// `POST /run_code`: SandboxFusion's answer, `422` as FastAPI's, `504` with `Retry-After`
/// when every run slot stayed busy for `max_wait_ms` (the one status verl retries).
async fn run_code(State(state): State<AppState>, caller: Caller, body: Bytes) -> Response {
    let Some((sf, category)) = caller.let_in(&state) else {
        return not_found();
    };
    let category = category.as_str();
    let unprocessable = |details: Vec<fastapi::Detail>| {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(fastapi::body(&details)),
        )
            .into_response()
    };
    let request = match parse_run_code(&body) {
        Ok(request) => request,
        Err(details) => return unprocessable(details),
    };
    let program = match program_request(&request, category, &sf.limits) {
        Ok(program) => program,
        Err(details) => return unprocessable(details),
    };
    if state.stopping.is_cancelled() {
        return busy(Duration::from_secs(5), "the server is shutting down");
    }
    // A category with a quota runs at most that many programs at once; beyond it a call waits
    // as for a run slot, within the same bound.
    let wait = Duration::from_millis(sf.config.max_wait_ms);
    let _quota = match sf.quotas.get(category) {
        Some(slots) => match tokio::time::timeout(wait, slots.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Some(permit),
            _ => {
                return busy(
                    Duration::from_secs(1).max(wait / 10),
                    &format!("category {category:?} is at its quota"),
                );
            }
        },
        None => None,
    };
    state.metrics.compat_call(category);
    match sf.runner.run(program).await {
        Ok(outcome) => axum::Json(RunCodeResponse::of(&outcome)).into_response(),
        Err(error) => match error.retry_after() {
            Some(after) => busy(after, &error.to_string()),
            None => {
                tracing::warn!(%error, category, "run_code: the judge failed");
                axum::Json(RunCodeResponse::sandbox_error(&error)).into_response()
            }
        },
    }
}

/// `POST /submit` with `config.provided_data`: the record judged as a dataset batch of one
/// candidate, answered as SandboxFusion's `EvalResult`.
async fn submit(State(state): State<AppState>, caller: Caller, body: Bytes) -> Response {
    let Some((sf, _)) = caller.let_in(&state) else {
        return not_found();
    };
    let unprocessable = |details: Vec<fastapi::Detail>| {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(fastapi::body(&details)),
        )
            .into_response()
    };
    let mut formats: Vec<&str> = verdict_datasets::Format::ALL
        .iter()
        .map(|f| f.as_str())
        .collect();
    formats.extend(["taco", verdict_datasets::batch::GROUND_TRUTH]);
    let request = match parse_submit(&body, &formats) {
        Ok(request) => request,
        Err(details) => return unprocessable(details),
    };
    let batch = BatchRequest {
        problem: BatchProblem::Dataset(request.problem.clone()),
        candidates: vec![Candidate {
            id: "0".into(),
            language: None,
            code: Some(request.completion.clone()),
            source_files: Vec::new(),
            assist_files: Vec::new(),
            entry_point: None,
            compile_command: None,
        }],
        options: BatchOptions {
            test_timeout_ms: request
                .run_timeout
                .map(|secs| ((secs * 1000.0).ceil() as u64).max(1)),
            ..BatchOptions::default()
        },
    };
    let batch = match sf.datasets.validate(batch) {
        Ok(batch) => batch,
        Err(errors) => return unprocessable(errors.iter().map(submit_detail).collect()),
    };
    let program = match batch.dataset_problem() {
        Some(problem) => verdict_datasets::batch::program_of(&request.completion, problem),
        // A dataset problem by construction: its record was read when it was checked.
        None => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let report = sf.datasets.run_valid(batch, None, BatchCancel::new()).await;
    match report.results.first() {
        Some(result) => axum::Json(eval_result(&request, &program, result)).into_response(),
        None => busy(Duration::from_secs(1), "the submission was not judged"),
    }
}

/// A dataset batch's field error as FastAPI names it in a `/submit` body: the record is
/// `config.provided_data`, its format `config.extra.format`.
fn submit_detail(error: &FieldError) -> fastapi::Detail {
    let path: Vec<String> = if let Some(rest) = error.field.strip_prefix("problem.record") {
        let mut path = vec!["config".to_string(), "provided_data".to_string()];
        path.extend(
            rest.split('.')
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        path
    } else if error.field == "problem.format" {
        vec!["config".into(), "extra".into(), "format".into()]
    } else {
        vec!["completion".into()]
    };
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    fastapi::Detail::value_error(&path, &error.message, &Value::Null)
}

/// `504` with `Retry-After` and FastAPI's `detail`.
fn busy(retry_after: Duration, why: &str) -> Response {
    let mut response = (
        StatusCode::GATEWAY_TIMEOUT,
        axum::Json(json!({"detail": format!("busy: {why}; retry later")})),
    )
        .into_response();
    let secs = retry_after.as_secs().max(1).to_string();
    if let Ok(value) = HeaderValue::from_str(&secs) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}
