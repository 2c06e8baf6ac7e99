//! The programming judge's endpoints: `POST /v1/judge`, `POST /v1/submissions`,
//! `GET /v1/submissions/{sub_id}`, its event stream and `DELETE /v1/submissions/{sub_id}`.

use crate::access::allow_local_assets;
use crate::auth::Caller;
use crate::dispatch::Dispatch;
use crate::error::ApiError;
use crate::extract::{CategoryQuery, SubIdPath, Text};
use crate::listing::OwnLimits;
use crate::state::AppState;
use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use verdict_contracts::{JudgeTask, RequestError, Submission, Valid};
use verdict_submissions::{Entry, Reject, StreamEvent, SubKey, read_submission};

/// Reads a Submission ([`read_submission`]) and checks `caller` may submit it.
async fn take_submission(
    state: &AppState,
    caller: &Caller,
    text: &str,
) -> Result<Valid<Submission>, ApiError> {
    let submission = read_submission(text, &state.config.caps).map_err(|err| {
        state.metrics.rejected(Reject::Invalid);
        match err {
            RequestError::NotJson(e) => ApiError::bad_body(format!("body: not JSON: {e}")),
            RequestError::Invalid(invalid) => {
                let field = invalid
                    .errors
                    .first()
                    .map(|e| e.field.clone())
                    .unwrap_or_else(|| "request".into());
                ApiError::InvalidSubmission {
                    report: Box::new(invalid.into_report()),
                    field,
                }
            }
        }
    })?;
    caller
        .check_category(&submission.category)
        .inspect_err(|_| state.metrics.rejected(Reject::Forbidden))?;
    allow_local_assets(state, caller, submission)
        .await
        .inspect_err(|_| state.metrics.rejected(Reject::Forbidden))
}

/// `POST /v1/judge`: judges a Submission and answers with the complete JudgeReport.
pub async fn judge(
    State(state): State<AppState>,
    caller: Caller,
    Text(text): Text,
) -> Result<Response, ApiError> {
    let submission = take_submission(&state, &caller, &text).await?;
    let sub_id = submission.sub_id.clone();
    let entry = accept(&state, submission, text).await?;
    let limit = state.config.request_timeout();
    match tokio::time::timeout(limit, entry.wait()).await {
        Ok(report) => Ok(Json(report.as_ref()).into_response()),
        Err(_) => Err(ApiError::Timeout(format!(
            "sub_id: judging {sub_id:?} took longer than request_timeout_ms ({} ms); it goes on: GET /v1/submissions/{}?category={}",
            limit.as_millis(),
            encode_segment(&sub_id),
            encode_segment(&entry.key.category)
        ))),
    }
}

/// `POST /v1/submissions`'s answer: where to poll the submission and stream its events.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Accepted {
    /// Its `sub_id`.
    pub sub_id: String,
    /// `GET` this for the report so far (with `?category=`).
    pub status_url: String,
    /// `GET` this for its event stream (with `?category=`).
    pub events_url: String,
}

/// `POST /v1/submissions`: queues a Submission and answers 202 with its `sub_id`.
pub async fn submit(
    State(state): State<AppState>,
    caller: Caller,
    Text(text): Text,
) -> Result<Response, ApiError> {
    let submission = take_submission(&state, &caller, &text).await?;
    let (sub_id, category) = (submission.sub_id.clone(), submission.category.clone());
    accept(&state, submission, text).await?;
    let path = format!("/v1/submissions/{}", encode_segment(&sub_id));
    let query = format!("?category={}", encode_segment(&category));
    let status_url = format!("{path}{query}");
    let events_url = format!("{path}/events{query}");
    let mut response = (
        StatusCode::ACCEPTED,
        Json(Accepted {
            sub_id,
            status_url: status_url.clone(),
            events_url,
        }),
    )
        .into_response();
    if let Ok(location) = HeaderValue::from_str(&status_url) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// The submission of a `/v1/submissions/{sub_id}` route that the caller may see
/// ([`visible_entry`]), read in the order the routes refuse: the token (401), the `sub_id` and
/// `?category=` (400), then the submission (404, 409).
pub struct Visible {
    /// Who asked.
    pub caller: Caller,
    /// The submission.
    pub entry: Arc<Entry>,
}

impl FromRequestParts<AppState> for Visible {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Visible, ApiError> {
        let caller = Caller::from_request_parts(parts, state).await?;
        let SubIdPath(sub_id) = SubIdPath::from_request_parts(parts, state).await?;
        let which = CategoryQuery::from_request_parts(parts, state).await?;
        let entry = visible_entry(state, &caller, &sub_id, which).await?;
        Ok(Visible { caller, entry })
    }
}

/// The submission `sub_id` that `caller` may see. A category token sees only its own
/// category's (another's, or a `?category=` naming another, is "not found": nothing tells it
/// the id exists there). A token bound to no category names the category with `?category=`, or
/// leaves it out when only one category has that `sub_id` (409 listing them otherwise).
async fn visible_entry(
    state: &AppState,
    caller: &Caller,
    sub_id: &str,
    which: CategoryQuery,
) -> Result<Arc<Entry>, ApiError> {
    let store = &state.submissions()?.store;
    let not_found = || ApiError::NotFound(format!("sub_id: no submission {sub_id:?}"));
    let category = match (&caller.category, which.category) {
        (Some(own), Some(asked)) if *own != asked => return Err(not_found()),
        (Some(own), _) => own.clone(),
        (None, Some(asked)) => asked,
        (None, None) => {
            let mut categories = store.categories_of(sub_id).await?;
            match categories.len() {
                0 => return Err(not_found()),
                1 => categories.remove(0),
                _ => {
                    return Err(ApiError::Conflict(format!(
                        "sub_id: {sub_id:?} exists in the categories {categories:?}; add ?category=<one of them>"
                    )));
                }
            }
        }
    };
    store
        .get(&SubKey::new(category, sub_id))
        .await?
        .ok_or_else(not_found)
}

/// `GET /v1/submissions/{sub_id}`: the report so far.
pub async fn status(visible: Visible) -> Result<Response, ApiError> {
    status_of(&visible.entry)
}

/// How long `DELETE /v1/submissions/{sub_id}` waits for the tasks running at the cancel to end
/// (their boxes are killed at once; a task between two runs ends at its next) before answering
/// with the report so far.
const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// `DELETE /v1/submissions/{sub_id}`: cancels a queued or running submission (seen by the same
/// rules as `GET`): no task of it starts from now on, the boxes of the tasks running are killed
/// at once (their run permits and its worker place come back then), and its report, final and
/// kept like any other (a restart does not judge it again), has the tasks not run or stopped
/// as `System Error` with the `error_log` "cancelled: ...".
/// Answers with the report (200), the final one unless running tasks took longer than
/// [`CANCEL_WAIT`] to end (`Verdict-Complete: false` then). A finished submission is answered
/// as it is. On a front end the cancel goes to every worker through the broker
/// ([`crate::publish::cancel`]); 503 when the broker does not take it.
pub async fn cancel(
    State(state): State<AppState>,
    Visible { entry, .. }: Visible,
) -> Result<Response, ApiError> {
    let submissions = state.submissions()?;
    match &submissions.dispatch {
        Dispatch::Local { jobs, .. } => {
            if jobs.cancel(&entry.key) {
                tracing::info!(sub_id = %entry.key.sub_id, category = %entry.key.category, "cancelled");
            }
        }
        Dispatch::Relayed { .. } if entry.is_finished() => {}
        Dispatch::Relayed { front, .. } => {
            crate::publish::cancel(&state, &submissions.store, front, &entry).await?;
        }
    }
    let _ = tokio::time::timeout(CANCEL_WAIT, entry.wait()).await;
    status_of(&entry)
}

/// The report so far, with its `Verdict-Complete` and `Verdict-State` headers.
fn status_of(entry: &Entry) -> Result<Response, ApiError> {
    let phase = entry.phase();
    let (report, complete) = entry.snapshot();
    let mut response = Json(report).into_response();
    let headers = response.headers_mut();
    headers.insert(
        "verdict-complete",
        HeaderValue::from_static(if complete { "true" } else { "false" }),
    );
    headers.insert("verdict-state", HeaderValue::from_static(phase.as_str()));
    Ok(response)
}

/// `GET /v1/submissions/{sub_id}/plan`: what the page needs to show a submission whole, to
/// every viewer (not only the tab that sent it): its judge tasks (kinds, limits, dependencies)
/// and its tests' inline inputs, kept as long as its report.
pub async fn plan(
    State(state): State<AppState>,
    Visible { entry, .. }: Visible,
) -> Result<Json<serde_json::Value>, ApiError> {
    let sub_id = &entry.key.sub_id;
    let plan = state
        .submissions()?
        .store
        .plan(&entry.key)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no plan is kept for {sub_id:?}")))?;
    let mut plan: serde_json::Value = serde_json::from_str(&plan)
        .map_err(|e| ApiError::Internal(format!("stored plan of {sub_id:?}: {e}")))?;
    let config = match state.judge() {
        Ok(judge) => judge.config(),
        Err(_) => &state.config.judge,
    };
    let judge_limits: Vec<Option<OwnLimits>> = plan["judge_tasks"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|task| {
            let task: JudgeTask = serde_json::from_value(task.clone()).ok()?;
            let l = verdict_scheduler::own_limits(&task, config)?;
            Some(OwnLimits {
                time_ms: l.time_ms,
                wall_ms: l.wall_ms,
                memory_kb: l.memory_kb,
                output_kb: l.output_kb,
                processes: l.processes,
            })
        })
        .collect();
    plan["judge_limits"] = json!(judge_limits);
    Ok(Json(plan))
}

/// `GET /v1/submissions/{sub_id}/events`: one `task` event per finished task, then `report`;
/// at most `max_streams_per_submission` at once on one submission and `max_streams_per_token`
/// by one token (429 beyond).
pub async fn events(
    State(state): State<AppState>,
    Visible { caller, entry }: Visible,
) -> Result<Response, ApiError> {
    let slot = state.open_stream(
        format!("submission {}/{}", entry.key.category, entry.key.sub_id),
        &caller,
    )?;
    // A cursor over the entry, read only as the client takes events (hyper polls the body
    // when it can write): a reader that does not read holds no copy of the stream.
    let cursor = entry.events();
    drop(entry);
    let stream = futures::stream::unfold((cursor, slot), |(mut cursor, slot)| async move {
        let event = cursor.next().await?;
        Some((Ok::<_, Infallible>(sse_event(&event)), (cursor, slot)))
    });
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response())
}

fn sse_event(event: &StreamEvent) -> Event {
    match event {
        StreamEvent::Task { index, result } => Event::default()
            .event("task")
            .id(index.to_string())
            .data(json!({"index": index, "result": result}).to_string()),
        StreamEvent::Report(report) => Event::default()
            .event("report")
            .data(serde_json::to_string(report.as_ref()).unwrap_or_default()),
    }
}

/// Percent-encodes what a path segment cannot hold as it is.
pub(crate) fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Accepts a valid Submission (`request` is its text): when this returns `Ok`, it is durable
/// and on its way to being judged (here, or by a worker of the broker), and the entry follows
/// its progress.
async fn accept(
    state: &AppState,
    submission: Valid<Submission>,
    request: String,
) -> Result<Arc<Entry>, ApiError> {
    let submissions = state.submissions()?;
    match &submissions.dispatch {
        Dispatch::Local { jobs, .. } => {
            let deadline = std::time::Instant::now() + state.config.store_timeout();
            Ok(jobs.accept(submission, request, Some(deadline)).await?)
        }
        Dispatch::Relayed { front, .. } => {
            crate::publish::publish(state, &submissions.store, front, submission, request).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_encoded() {
        assert_eq!(encode_segment("abc-1_2.x"), "abc-1_2.x");
        assert_eq!(encode_segment("a b/c"), "a%20b%2Fc");
    }
}
