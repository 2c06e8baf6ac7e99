//! Judge0 CE's API (docs/compat.md) at Judge0's own paths (`/submissions`,
//! `/submissions/batch`, `/languages`, `/statuses`, `/about`, `/config_info`, ...), so a
//! Judge0 app or the `judge0` SDK changes its base URL and runs on verdict's sandbox. Off by
//! default; a caller is let in by a key of `[[judge0.keys]]` in `X-Auth-Token` (`auth_header`:
//! header or query parameter, as Judge0 takes its AUTHN token) or by its network. Submissions are kept in the
//! server's store by token: one that was waiting or running when the server stopped runs
//! again at start. Every run goes through the compat runner (one compile for identical
//! sources); `callback_url` gets Judge0's PUT, through the guarded client of remote assets.

use crate::extract::{ApiCall, Refused};
use crate::platforms::gate::{Denied, constant_time_eq};
use crate::platforms::judge0::{Judge0, now_ms};
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, Query};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use verdict_compat::judge0::{
    self, Judge0Language, NOT_UTF8_MESSAGE, Record, parse_fields, parse_submission, render,
    statuses,
};

/// The routes, at Judge0's paths.
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/submissions", post(create).get(index))
        .route("/submissions/", post(create).get(index))
        .route("/submissions/batch", post(batch_create).get(batch_show))
        .route("/submissions/{token}", get(show).delete(destroy))
        .route("/languages", get(list_languages))
        .route("/languages/all", get(all_languages))
        .route("/languages/{id}", get(one_language))
        .route("/statuses", get(list_statuses))
        .route("/about", get(about))
        .route("/version", get(version))
        .route("/config_info", get(config_info))
        .route("/workers", get(workers))
        .route("/authenticate", post(authenticate))
        .route("/authorize", post(authorize))
}

fn error(status: StatusCode, text: &str) -> Response {
    (status, axum::Json(json!({ "error": text }))).into_response()
}

/// What a route answers: its own response, or the refusal of the first check that failed.
type Answer = Result<Response, Refused>;

/// What every route reads of a request: what lets its caller in ([`ApiCall`]) and the query.
/// Its extraction refuses only a query that cannot be read; the caller is checked in the
/// route, after the body was read (a body over the limit is `413` before a missing key's
/// `401`).
struct Call {
    api: ApiCall,
    params: HashMap<String, String>,
}

impl FromRequestParts<AppState> for Call {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Call, Response> {
        let Query(params) = Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let Ok(api) = ApiCall::from_request_parts(parts, state).await;
        Ok(Call { api, params })
    }
}

impl Call {
    /// The key a Judge0 client sends: `name` (`X-Auth-Token`) as a header or a query
    /// parameter.
    fn key(&self, name: &str) -> Option<&str> {
        self.api
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .or_else(|| self.params.get(name).map(String::as_str))
    }

    /// The service and the caller's category, or Judge0's `401` (no body) or `404` when off.
    fn caller(&self) -> Result<(Arc<Judge0>, String), Refused> {
        let Some(judge0) = self.api.state.judge0.clone() else {
            return Err(error(StatusCode::NOT_FOUND, "Not Found").into());
        };
        let key = self.key(&judge0.auth_header);
        match judge0.gate.category(self.api.client, key) {
            Ok(category) => Ok((judge0, category)),
            Err(Denied::UnknownKey | Denied::NoKey) => {
                Err(StatusCode::UNAUTHORIZED.into_response().into())
            }
        }
    }

    /// Judge0's `authorize_request`: an AUTHZ token of `judge0`'s `authz_keys` in its
    /// `authz_header`, else `403` with no body.
    fn authorized(&self, judge0: &Judge0) -> Result<(), Refused> {
        let sent = self.key(&judge0.authz_header).map(str::trim);
        let known = sent.is_some_and(|sent| {
            judge0
                .authz_keys
                .iter()
                .any(|k| constant_time_eq(k.as_bytes(), sent.as_bytes()))
        });
        if known {
            Ok(())
        } else {
            Err(StatusCode::FORBIDDEN.into_response().into())
        }
    }

    /// Whether the query parameter `name` is `true`.
    fn flag(&self, name: &str) -> bool {
        self.params.get(name).is_some_and(|v| v == "true")
    }

    /// The `fields` the caller asked for, or Judge0's `400` naming the unknown one.
    fn fields(&self) -> Result<Vec<&'static str>, Refused> {
        parse_fields(self.params.get("fields").map(String::as_str))
            .map_err(|message| error(StatusCode::BAD_REQUEST, &message).into())
    }
}

/// Judge0's `503` of a server that is shutting down.
fn shutting_down() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "the server is shutting down",
    )
}

/// Judge0's `503` when the submissions' store cannot be read or written.
fn store_unavailable() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        "the submission store is unavailable; retry later",
    )
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"status": 404, "error": "Not Found"})),
    )
        .into_response()
}

/// The request's parameters as Rails gathers them: the body's JSON object (or its form
/// fields, for `application/x-www-form-urlencoded`), with the query string's parameters for
/// the fields the body lacks; an empty body is no fields; a body that cannot be read is
/// Judge0's `400`.
fn body_json(
    auth_header: &str,
    headers: &HeaderMap,
    body: &[u8],
    query: &HashMap<String, String>,
) -> Result<Value, Refused> {
    let bad = |what: String| Refused::from(error(StatusCode::BAD_REQUEST, &what));
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    let mut value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else if form {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body)
            .map_err(|e| bad(format!("the body is not a form: {e}")))?;
        Value::Object(
            pairs
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        )
    } else {
        serde_json::from_slice(body).map_err(|e| bad(format!("the body is not JSON: {e}")))?
    };
    if let Value::Object(fields) = &mut value {
        for (name, text) in query {
            if !matches!(
                name.as_str(),
                "base64_encoded" | "wait" | "fields" | "tokens"
            ) && !name.eq_ignore_ascii_case(auth_header)
            {
                fields
                    .entry(name.clone())
                    .or_insert_with(|| Value::String(text.clone()));
            }
        }
    }
    Ok(value)
}

impl Judge0 {
    /// Judge0's `400` for a batch of `n` submissions or tokens: none, or more than
    /// `max_submission_batch_size`.
    fn check_batch_size(&self, n: usize) -> Result<(), Refused> {
        let most = self.limits.max_submission_batch_size;
        let why = if n > most {
            format!("number of submissions in a batch should be less than or equal to {most}")
        } else if n == 0 {
            "there should be at least one submission in a batch".to_owned()
        } else {
            return Ok(());
        };
        Err(error(StatusCode::BAD_REQUEST, &why).into())
    }

    /// One submission as Judge0 answers it (its `fields`, in base64 or not), or `400` when
    /// a field is not UTF-8 and base64 was not asked for.
    async fn reply(&self, record: &Record, fields: &[&str], base64: bool) -> Response {
        let languages = self.languages().await;
        match render(record, fields, base64, &languages) {
            Ok(value) => axum::Json(value).into_response(),
            Err(_) => error(StatusCode::BAD_REQUEST, NOT_UTF8_MESSAGE),
        }
    }

    /// Submissions as Judge0 lists them (`null` for a missing one), or `400` when a field of
    /// one is not UTF-8 and base64 was not asked for.
    async fn reply_many<'a>(
        &self,
        records: impl IntoIterator<Item = Option<&'a Record>>,
        fields: &[&str],
        base64: bool,
    ) -> Result<Vec<Value>, Refused> {
        let languages = self.languages().await;
        records
            .into_iter()
            .map(|record| match record {
                None => Ok(Value::Null),
                Some(record) => render(record, fields, base64, &languages)
                    .map_err(|_| error(StatusCode::BAD_REQUEST, NOT_UTF8_MANY).into()),
            })
            .collect()
    }

    /// The installed languages by name (then id), as Judge0 lists them.
    async fn languages_by_name(&self) -> Vec<Judge0Language> {
        let mut list = self.languages().await;
        list.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        list
    }

    /// `503 queue is full` when `n` more submissions would pass `max_queue_size`.
    fn check_queue(&self, n: usize) -> Result<(), Refused> {
        if self.pending.load(Ordering::SeqCst) + n > self.limits.max_queue_size {
            return Err(error(StatusCode::SERVICE_UNAVAILABLE, "queue is full").into());
        }
        Ok(())
    }

    /// Checks, keeps and starts one submission: its token, or Judge0's field errors.
    async fn accept(
        self: &Arc<Self>,
        body: &Value,
        base64: bool,
        languages: &[Judge0Language],
        category: &str,
    ) -> Result<Result<(Record, tokio::task::JoinHandle<Option<Record>>), Value>, Refused> {
        let token = uuid::Uuid::new_v4().to_string();
        let now = now_ms();
        let mut record = match parse_submission(
            body,
            base64,
            languages,
            &self.limits,
            &self.switches,
            token,
            now,
        ) {
            Ok(record) => record,
            Err(errors) => return Ok(Err(json!(errors))),
        };
        record.queue_host = self.host.clone();
        if let Err(why) = self.save(&record, category).await {
            tracing::warn!(error = why, "judge0: cannot keep a submission");
            return Err(store_unavailable().into());
        }
        self.pending.fetch_add(1, Ordering::SeqCst);
        let this = self.clone();
        let (queued, category) = (record.clone(), category.to_string());
        let handle = tokio::spawn(async move { this.process(queued, category).await });
        Ok(Ok((record, handle)))
    }

    /// The kept submissions of `tokens` a caller of `category` may see, by token.
    async fn find(
        &self,
        tokens: Vec<String>,
        category: &str,
    ) -> Result<HashMap<String, Record>, Refused> {
        let rows = self.store.judge0(tokens).await.map_err(|e| {
            tracing::warn!(error = %e, "judge0: cannot read submissions");
            Refused::from(store_unavailable())
        })?;
        Ok(rows
            .into_iter()
            .filter(|row| row.category == category)
            .filter_map(|row| serde_json::from_str::<Record>(&row.record).ok())
            .map(|record| (record.token.clone(), record))
            .collect())
    }

    /// The submission `token` of `category`, or the answer to give instead (`404`, or the
    /// store unavailable).
    async fn find_one(&self, token: &str, category: &str) -> Result<Record, Refused> {
        self.find(vec![token.to_string()], category)
            .await?
            .remove(token)
            .ok_or_else(|| not_found().into())
    }
}

/// `POST /submissions`: `201 {"token"}`, or with `wait=true` the finished submission.
async fn create(call: Call, body: Bytes) -> Answer {
    let (judge0, category) = call.caller()?;
    if call.api.state.stopping.is_cancelled() {
        return Ok(shutting_down());
    }
    let wait = call.flag("wait");
    judge0.check_queue(1)?;
    let fields = call.fields()?;
    let base64 = call.flag("base64_encoded");
    let body = body_json(&judge0.auth_header, &call.api.headers, &body, &call.params)?;
    call.api.state.metrics.compat_call(&category);
    let languages = judge0.languages().await;
    let (record, handle) = match judge0.accept(&body, base64, &languages, &category).await? {
        Ok(accepted) => accepted,
        Err(errors) => {
            return Ok((StatusCode::UNPROCESSABLE_ENTITY, axum::Json(errors)).into_response());
        }
    };
    if !wait {
        return Ok((
            StatusCode::CREATED,
            axum::Json(json!({"token": record.token})),
        )
            .into_response());
    }
    let finished = match handle.await {
        Ok(Some(finished)) => finished,
        _ => return Ok(shutting_down()),
    };
    Ok(match render(&finished, &fields, base64, &languages) {
        Ok(value) => (StatusCode::CREATED, axum::Json(value)).into_response(),
        Err(_) => (
            StatusCode::CREATED,
            axum::Json(json!({"error": NOT_UTF8_MESSAGE, "token": finished.token})),
        )
            .into_response(),
    })
}

/// `GET /submissions/{token}`.
async fn show(Path(token): Path<String>, call: Call) -> Answer {
    let (judge0, category) = call.caller()?;
    let fields = call.fields()?;
    let base64 = call.flag("base64_encoded");
    let record = judge0.find_one(&token, &category).await?;
    Ok(judge0.reply(&record, &fields, base64).await)
}

/// `DELETE /submissions/{token}`: only where `enable_submission_delete` is on, and not while
/// the submission waits or runs; answers what was deleted, in base64.
async fn destroy(Path(token): Path<String>, call: Call) -> Answer {
    let (judge0, category) = call.caller()?;
    call.authorized(&judge0)?;
    let fields = call.fields()?;
    if !judge0.switches.enable_submission_delete {
        return Ok(error(StatusCode::BAD_REQUEST, "delete not allowed"));
    }
    let record = judge0.find_one(&token, &category).await?;
    let status = record.status();
    if status.is_pending() {
        return Ok(error(
            StatusCode::BAD_REQUEST,
            &format!(
                "submission cannot be deleted because its status is {} ({})",
                status.id, status.description
            ),
        ));
    }
    if let Err(e) = judge0.store.delete_judge0(token).await {
        tracing::warn!(error = %e, "judge0: cannot delete a submission");
        return Ok(store_unavailable());
    }
    Ok(judge0.reply(&record, &fields, true).await)
}

/// `GET /submissions`: the caller's category's submissions, newest first, a page at a time
/// (`page`, `per_page` 20), with will_paginate's `meta`; only to an AUTHZ token (`403`).
async fn index(call: Call) -> Answer {
    let (judge0, category) = call.caller()?;
    call.authorized(&judge0)?;
    let fields = call.fields()?;
    // Ruby's `to_i`: the leading digits, 0 without any.
    let number = |name: &str, default: i64| {
        call.params.get(name).map_or(default, |text| {
            let text = text.trim();
            let sign = if text.starts_with('-') { -1 } else { 1 };
            let digits: String = text
                .trim_start_matches(['-', '+'])
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<i64>().map_or(0, |n| sign * n)
        })
    };
    let (page, per_page) = (number("page", 1), number("per_page", 20));
    if page <= 0 {
        return Ok(error(
            StatusCode::BAD_REQUEST,
            &format!("invalid page: {page}"),
        ));
    }
    if per_page < 0 {
        return Ok(error(
            StatusCode::BAD_REQUEST,
            &format!("invalid per_page: {per_page}"),
        ));
    }
    let (page, per_page) = (page as u64, (per_page as u64).max(1));
    let base64 = call.flag("base64_encoded");
    let (rows, total) = match judge0
        .store
        .judge0_page(category, (page - 1).saturating_mul(per_page), per_page)
        .await
    {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(error = %e, "judge0: cannot list submissions");
            return Ok(store_unavailable());
        }
    };
    let records: Vec<Record> = rows
        .iter()
        .filter_map(|row| serde_json::from_str::<Record>(&row.record).ok())
        .collect();
    let submissions = judge0
        .reply_many(records.iter().map(Some), &fields, base64)
        .await?;
    let total_pages = total.div_ceil(per_page);
    Ok(axum::Json(json!({
        "submissions": submissions,
        "meta": {
            "current_page": page,
            "next_page": (page < total_pages).then_some(page + 1),
            "prev_page": (page > 1).then_some(page - 1),
            "total_pages": total_pages,
            "total_count": total,
        },
    }))
    .into_response())
}

/// Judge0's conversion error for a list.
const NOT_UTF8_MANY: &str = "some attributes for one or more submissions cannot be converted to UTF-8, use base64_encoded=true query parameter";

/// `POST /submissions/batch`: `{"submissions": [...]}` → a `{token}` or the field errors of
/// each, `201` when one was accepted, else `422`.
async fn batch_create(call: Call, body: Bytes) -> Answer {
    let (judge0, category) = call.caller()?;
    if call.api.state.stopping.is_cancelled() {
        return Ok(shutting_down());
    }
    let body = body_json(
        &judge0.auth_header,
        &call.api.headers,
        &body,
        &HashMap::new(),
    )?;
    let items = body
        .get("submissions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    judge0.check_queue(items.len().max(1))?;
    judge0.check_batch_size(items.len())?;
    let base64 = call.flag("base64_encoded");
    call.api.state.metrics.compat_call(&category);
    let languages = judge0.languages().await;
    let mut answers = Vec::with_capacity(items.len());
    let mut accepted = false;
    for item in &items {
        match judge0.accept(item, base64, &languages, &category).await? {
            Ok((record, _)) => {
                accepted = true;
                answers.push(json!({"token": record.token}));
            }
            Err(errors) => answers.push(errors),
        }
    }
    let status = if accepted {
        StatusCode::CREATED
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    Ok((status, axum::Json(Value::Array(answers))).into_response())
}

/// `GET /submissions/batch?tokens=a,b`: `{"submissions": [...]}` in the tokens' order,
/// `null` for an unknown one.
async fn batch_show(call: Call) -> Answer {
    let (judge0, category) = call.caller()?;
    let fields = call.fields()?;
    let base64 = call.flag("base64_encoded");
    let tokens: Vec<String> = call
        .api
        .headers
        .get("tokens")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| call.params.get("tokens").cloned())
        .unwrap_or_default()
        .trim()
        .split(',')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    judge0.check_batch_size(tokens.len())?;
    let found = judge0.find(tokens.clone(), &category).await?;
    let submissions = judge0
        .reply_many(tokens.iter().map(|token| found.get(token)), &fields, base64)
        .await?;
    Ok(axum::Json(json!({ "submissions": submissions })).into_response())
}

/// `GET /languages`: `[{id, name}]`, by name.
async fn list_languages(call: Call) -> Answer {
    let (judge0, _) = call.caller()?;
    let list = judge0.languages_by_name().await;
    let list: Vec<Value> = list
        .iter()
        .map(|l| json!({"id": l.id, "name": l.name}))
        .collect();
    Ok(axum::Json(list).into_response())
}

/// `GET /languages/all`: `[{id, name, is_archived}]`, by name.
async fn all_languages(call: Call) -> Answer {
    let (judge0, _) = call.caller()?;
    let list = judge0.languages_by_name().await;
    let list: Vec<Value> = list
        .iter()
        .map(|l| json!({"id": l.id, "name": l.name, "is_archived": l.is_archived}))
        .collect();
    Ok(axum::Json(list).into_response())
}

/// `GET /languages/{id}`: the language with its source file and commands.
async fn one_language(Path(id): Path<String>, call: Call) -> Answer {
    let (judge0, _) = call.caller()?;
    let languages = judge0.languages().await;
    Ok(
        match id
            .parse::<u16>()
            .ok()
            .and_then(|id| languages.into_iter().find(|l| l.id == id))
        {
            Some(language) => axum::Json(language).into_response(),
            None => not_found(),
        },
    )
}

/// `GET /statuses`.
async fn list_statuses(call: Call) -> Answer {
    call.caller()?;
    Ok(axum::Json(statuses::ALL.to_vec()).into_response())
}

/// `GET /about`: the Judge0 version answered as (the SDK picks its language ids by it).
async fn about(call: Call) -> Answer {
    call.caller()?;
    Ok(axum::Json(json!({
        "version": judge0::VERSION,
        "homepage": "https://judge0.com",
        "source_code": env!("CARGO_PKG_REPOSITORY"),
        "maintainer": concat!("verdict ", env!("CARGO_PKG_VERSION"), " (Judge0 CE's API on verdict's engine)"),
    }))
    .into_response())
}

/// `GET /version`: plain text.
async fn version(call: Call) -> Answer {
    call.caller()?;
    Ok((
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        judge0::VERSION,
    )
        .into_response())
}

/// `GET /config_info`.
async fn config_info(call: Call) -> Answer {
    let (judge0, _) = call.caller()?;
    Ok(axum::Json(judge0.limits.config_info(&judge0.switches)).into_response())
}

/// `GET /workers`: one queue, its waiting submissions and the judge's run slots.
async fn workers(call: Call) -> Answer {
    let (judge0, _) = call.caller()?;
    let slots = judge0.runner.judge().config().parallelism.max(1);
    let pending = judge0.pending.load(Ordering::SeqCst);
    let working = slots.saturating_sub(judge0.running.available_permits());
    Ok(axum::Json(json!([{
        "queue": judge0::VERSION,
        "size": pending.saturating_sub(working),
        "available": slots,
        "idle": slots - working,
        "working": working,
        "paused": 0,
    }]))
    .into_response())
}

/// `POST /authenticate`: `200` when the caller is let in.
async fn authenticate(call: Call) -> Answer {
    call.caller()?;
    Ok(StatusCode::OK.into_response())
}

/// `POST /authorize`: `200` for an AUTHZ token, else `403`.
async fn authorize(call: Call) -> Answer {
    let (judge0, _) = call.caller()?;
    call.authorized(&judge0)?;
    Ok(StatusCode::OK.into_response())
}
