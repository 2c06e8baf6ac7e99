//! Requests answered in their own call, without the submission queue: `POST /v1/oracle` (a
//! Task Oracle suite, judged through the batches' queue: it waits for a place, 429 with
//! Retry-After when that queue is full or the wait would be too long; on a front end, relayed
//! to the workers as a batch of one: `relayed_suite`) and `POST /v1/lab/runs` (an Agent Lab task, in
//! `direct_concurrency` slots: 429 with Retry-After when none is free). `GET /v1/lab/runs`
//! reads the runs kept.

use crate::access::{allow_local_assets, check_lab_task};
use crate::auth::Caller;
use crate::dispatch::Dispatch;
use crate::error::ApiError;
use crate::extract::Text;
use crate::lab_runs::LabRunList;
use crate::state::{AppState, Direct};
use axum::Json;
use axum::extract::State;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::sync::atomic::Ordering;
use tokio::sync::OwnedSemaphorePermit;
use verdict_contracts::oracle::OracleReport;
use verdict_contracts::{RunRecord, ScoreRecord};
use verdict_lab::LabTask;

/// A direct slot, or 429 / 503.
fn slot(state: &AppState, direct: &Direct) -> Result<OwnedSemaphorePermit, ApiError> {
    if !state.accepting() {
        return Err(ApiError::ShuttingDown);
    }
    direct
        .slots
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::Busy {
            message: format!(
                "all {} lab slots are busy (direct_concurrency); retry later",
                state.config.direct_concurrency
            ),
            retry_after_secs: 2,
        })
}

/// `POST /v1/oracle`: a Task Oracle suite in, its report out. The suite is a job of the
/// batches' queue (under the caller's category, `default` for a token without one): it waits
/// for a place there, fairly with the batches, and holds one of the judge's run permits while
/// it runs, until `request_timeout_ms` at most (then its request is answered 504 and no case
/// starts: the cases left are reported not run to nobody).
pub async fn oracle(
    State(state): State<AppState>,
    caller: Caller,
    Text(text): Text,
) -> Result<Json<OracleReport>, ApiError> {
    let dispatch = state.dispatch()?;
    let suite = dispatch
        .check_suite(&text)
        .map_err(crate::batches::api_error)?;
    if !state.accepting() {
        return Err(ApiError::ShuttingDown);
    }
    let category = caller.category.as_deref().unwrap_or("default");
    state.metrics.oracle_runs.fetch_add(1, Ordering::Relaxed);
    // The suite ends when its request does (the 504 at request_timeout_ms): no case starts
    // after it, so its place and run permit are not held for a caller that is gone.
    let deadline = std::time::Instant::now() + state.config.request_timeout();
    let batches = match dispatch {
        Dispatch::Local { batches, .. } => batches,
        Dispatch::Relayed { relay, .. } => {
            return crate::relayed_suite::judge(&state, relay, category, suite, deadline)
                .await
                .map(Json);
        }
    };
    let report = batches
        .suite(category, suite, Some(deadline))
        .await
        .map_err(crate::batches::api_error)?;
    // A suite its deadline stopped is the request's timeout, whichever noticed it first (the
    // suite's stop can answer a moment before the 504 of the timeout layer on a busy host):
    // the same 504, never a 200 of cases "not run".
    if std::time::Instant::now() >= deadline {
        return Err(ApiError::Timeout(format!(
            "the request took longer than request_timeout_ms ({} ms)",
            state.config.request_timeout_ms
        )));
    }
    Ok(Json(report))
}

/// `POST /v1/lab/runs`' answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LabRunResponse {
    /// The run (status `completed` or `failed`).
    pub run: RunRecord,
    /// Its scores.
    pub scores: Vec<ScoreRecord>,
    /// Evaluators that could not score the run.
    pub evaluator_failures: Vec<EvaluatorFailure>,
}

/// An evaluator that could not score a run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EvaluatorFailure {
    /// The task (or scenario step) being scored.
    pub task_id: String,
    /// The evaluator, when one was found.
    pub evaluator_id: Option<String>,
    /// What went wrong.
    pub message: String,
}

/// `POST /v1/lab/runs`: an Agent Lab task (AtomicTask, or ScenarioTask when it has `steps`)
/// in; `{run: RunRecord, scores: [ScoreRecord], evaluator_failures: [...]}` out. A run that
/// fails is a record with status `failed` (200), never an error.
pub async fn lab_run(
    State(state): State<AppState>,
    caller: Caller,
    Text(text): Text,
) -> Result<Json<LabRunResponse>, ApiError> {
    let direct = state.direct()?;
    let task = LabTask::from_value(json_value(&text)?).map_err(|message| {
        let field = serde_field(&message).unwrap_or_else(|| "task".into());
        ApiError::invalid(field, message)
    })?;
    if let Err(errors) = direct.lab.check(&task) {
        let field = errors
            .first()
            .map_or_else(|| "task".to_owned(), |e| e.field.clone());
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        return Err(ApiError::invalid(field, messages.join("; ")));
    }
    for submission in check_lab_task(&caller, &task, &direct.sandboxed_lab_types)? {
        allow_local_assets(&state, &caller, submission).await?;
    }
    let permit = slot(&state, direct)?;
    state.metrics.lab_runs.fetch_add(1, Ordering::Relaxed);
    let outcome = direct.lab.run(&task).await;
    drop(permit);
    // Kept for the page; a store that cannot take it (a full disk) does not cost the caller
    // the run it waited for: it is answered all the same, and the failure logged.
    if let Err(err) = direct
        .lab_runs
        .record(&caller, &outcome.run, &outcome.scores)
        .await
    {
        tracing::error!(run = %outcome.run.id, "cannot keep the lab run: {err}");
    }
    Ok(Json(LabRunResponse {
        run: outcome.run,
        scores: outcome.scores,
        evaluator_failures: outcome
            .evaluator_failures
            .into_iter()
            .map(|f| EvaluatorFailure {
                task_id: f.task_id,
                evaluator_id: f.evaluator_id,
                message: f.message,
            })
            .collect(),
    }))
}

/// `GET /v1/lab/runs`: `{runs: [RunRecord], scores: [ScoreRecord]}`.
pub async fn lab_runs(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<LabRunList>, ApiError> {
    Ok(Json(state.direct()?.lab_runs.visible(&caller).await?))
}

/// The body as JSON, or 400: text that is not JSON has no field to name.
fn json_value(text: &str) -> Result<Value, ApiError> {
    serde_json::from_str(text).map_err(|e| ApiError::bad_body(format!("body: not JSON: {e}")))
}

/// The field a serde message names (`missing field `id``, `unknown field `x``), if any.
fn serde_field(message: &str) -> Option<String> {
    let (_, rest) = message.split_once("field `")?;
    let (name, _) = rest.split_once('`')?;
    Some(name.to_owned())
}
