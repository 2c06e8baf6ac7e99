//! Judge0 CE's API (docs/compat.md) at Judge0's own paths (`/submissions`,
//! `/submissions/batch`, `/languages`, `/statuses`, `/about`, `/config_info`, ...), so a
//! Judge0 app or the `judge0` SDK changes its base URL and runs on verdict's sandbox. Off by
//! default; a caller is let in by a key of `[[judge0.keys]]` in `X-Auth-Token` (`auth_header`:
//! header or query parameter, as Judge0 takes its AUTHN token) or by its network. Submissions are kept in the
//! server's store by token: one that was waiting or running when the server stopped runs
//! again at start. Every run goes through the compat runner (one compile for identical
//! sources); `callback_url` gets Judge0's PUT, through the guarded client of remote assets.

use crate::platforms::gate::{ClientAddr, Denied, constant_time_eq};
use crate::platforms::judge0::{Judge0, now_ms};
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
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

type Params = Query<HashMap<String, String>>;

fn error(status: StatusCode, text: &str) -> Response {
    (status, axum::Json(json!({ "error": text }))).into_response()
}

/// The key a Judge0 client sends: `name` (`X-Auth-Token`) as a header or a query parameter.
fn key<'a>(
    name: &str,
    headers: &'a HeaderMap,
    params: &'a HashMap<String, String>,
) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .or_else(|| params.get(name).map(String::as_str))
}

/// The state and category of a caller, or Judge0's `401` (no body) or `404` when off.
fn caller(
    state: &AppState,
    client: Option<axum::Extension<ClientAddr>>,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<(Arc<Judge0>, String), Box<Response>> {
    let Some(judge0) = state.judge0.clone() else {
        return Err(Box::new(error(StatusCode::NOT_FOUND, "Not Found")));
    };
    let key = key(&judge0.auth_header, headers, params);
    match judge0.gate.category(client.map(|c| c.0), key) {
        Ok(category) => Ok((judge0, category)),
        Err(Denied::UnknownKey | Denied::NoKey) => {
            Err(Box::new(StatusCode::UNAUTHORIZED.into_response()))
        }
    }
}

impl Judge0 {
    /// Judge0's `authorize_request`: an AUTHZ token of `authz_keys` in `authz_header`, else
    /// `403` with no body.
    fn authorized(
        &self,
        headers: &HeaderMap,
        params: &HashMap<String, String>,
    ) -> Result<(), Box<Response>> {
        let sent = key(&self.authz_header, headers, params).map(str::trim);
        let known = sent.is_some_and(|sent| {
            self.authz_keys
                .iter()
                .any(|k| constant_time_eq(k.as_bytes(), sent.as_bytes()))
        });
        if known {
            Ok(())
        } else {
            Err(Box::new(StatusCode::FORBIDDEN.into_response()))
        }
    }
}

macro_rules! let_caller {
    ($state:expr, $client:expr, $headers:expr, $params:expr) => {
        match caller(&$state, $client, &$headers, &$params) {
            Ok(found) => found,
            Err(response) => return *response,
        }
    };
}

fn flag(params: &HashMap<String, String>, name: &str) -> bool {
    params.get(name).is_some_and(|v| v == "true")
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

/// The `fields` a caller asked for, or Judge0's `400` naming the unknown one.
fn fields_of(params: &HashMap<String, String>) -> Result<Vec<&'static str>, Box<Response>> {
    parse_fields(params.get("fields").map(String::as_str))
        .map_err(|message| Box::new(error(StatusCode::BAD_REQUEST, &message)))
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
) -> Result<Value, Box<Response>> {
    let bad = |what: String| Box::new(error(StatusCode::BAD_REQUEST, &what));
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
    fn check_batch_size(&self, n: usize) -> Result<(), Box<Response>> {
        let most = self.limits.max_submission_batch_size;
        let why = if n > most {
            format!("number of submissions in a batch should be less than or equal to {most}")
        } else if n == 0 {
            "there should be at least one submission in a batch".to_owned()
        } else {
            return Ok(());
        };
        Err(Box::new(error(StatusCode::BAD_REQUEST, &why)))
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

    /// The installed languages by name (then id), as Judge0 lists them.
    async fn languages_by_name(&self) -> Vec<Judge0Language> {
        let mut list = self.languages().await;
        list.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        list
    }

    /// `503 queue is full` when `n` more submissions would pass `max_queue_size`.
    fn check_queue(&self, n: usize) -> Result<(), Box<Response>> {
        if self.pending.load(Ordering::SeqCst) + n > self.limits.max_queue_size {
            return Err(Box::new(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "queue is full",
            )));
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
    ) -> Result<Result<(Record, tokio::task::JoinHandle<Option<Record>>), Value>, Box<Response>>
    {
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
            return Err(Box::new(store_unavailable()));
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
    ) -> Result<HashMap<String, Record>, Box<Response>> {
        let rows = self.store.judge0(tokens).await.map_err(|e| {
            tracing::warn!(error = %e, "judge0: cannot read submissions");
            Box::new(store_unavailable())
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
    async fn find_one(&self, token: &str, category: &str) -> Result<Record, Box<Response>> {
        self.find(vec![token.to_string()], category)
            .await?
            .remove(token)
            .ok_or_else(|| Box::new(not_found()))
    }
}

/// `POST /submissions`: `201 {"token"}`, or with `wait=true` the finished submission.
async fn create(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
    body: Bytes,
) -> Response {
    let (judge0, category) = let_caller!(state, client, headers, params);
    if state.stopping.is_cancelled() {
        return shutting_down();
    }
    let wait = flag(&params, "wait");
    if let Err(response) = judge0.check_queue(1) {
        return *response;
    }
    let fields = match fields_of(&params) {
        Ok(fields) => fields,
        Err(response) => return *response,
    };
    let base64 = flag(&params, "base64_encoded");
    let body = match body_json(&judge0.auth_header, &headers, &body, &params) {
        Ok(body) => body,
        Err(response) => return *response,
    };
    state.metrics.compat_call(&category);
    let languages = judge0.languages().await;
    let (record, handle) = match judge0.accept(&body, base64, &languages, &category).await {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(errors)) => {
            return (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(errors)).into_response();
        }
        Err(response) => return *response,
    };
    if !wait {
        return (
            StatusCode::CREATED,
            axum::Json(json!({"token": record.token})),
        )
            .into_response();
    }
    let finished = match handle.await {
        Ok(Some(finished)) => finished,
        _ => return shutting_down(),
    };
    match render(&finished, &fields, base64, &languages) {
        Ok(value) => (StatusCode::CREATED, axum::Json(value)).into_response(),
        Err(_) => (
            StatusCode::CREATED,
            axum::Json(json!({"error": NOT_UTF8_MESSAGE, "token": finished.token})),
        )
            .into_response(),
    }
}

/// `GET /submissions/{token}`.
async fn show(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Path(token): Path<String>,
    Query(params): Params,
) -> Response {
    let (judge0, category) = let_caller!(state, client, headers, params);
    let fields = match fields_of(&params) {
        Ok(fields) => fields,
        Err(response) => return *response,
    };
    let base64 = flag(&params, "base64_encoded");
    let record = match judge0.find_one(&token, &category).await {
        Ok(record) => record,
        Err(response) => return *response,
    };
    judge0.reply(&record, &fields, base64).await
}

/// `DELETE /submissions/{token}`: only where `enable_submission_delete` is on, and not while
/// the submission waits or runs; answers what was deleted, in base64.
async fn destroy(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Path(token): Path<String>,
    Query(params): Params,
) -> Response {
    let (judge0, category) = let_caller!(state, client, headers, params);
    if let Err(response) = judge0.authorized(&headers, &params) {
        return *response;
    }
    let fields = match fields_of(&params) {
        Ok(fields) => fields,
        Err(response) => return *response,
    };
    if !judge0.switches.enable_submission_delete {
        return error(StatusCode::BAD_REQUEST, "delete not allowed");
    }
    let record = match judge0.find_one(&token, &category).await {
        Ok(record) => record,
        Err(response) => return *response,
    };
    let status = record.status();
    if status.is_pending() {
        return error(
            StatusCode::BAD_REQUEST,
            &format!(
                "submission cannot be deleted because its status is {} ({})",
                status.id, status.description
            ),
        );
    }
    if let Err(e) = judge0.store.delete_judge0(token).await {
        tracing::warn!(error = %e, "judge0: cannot delete a submission");
        return store_unavailable();
    }
    judge0.reply(&record, &fields, true).await
}

/// `GET /submissions`: the caller's category's submissions, newest first, a page at a time
/// (`page`, `per_page` 20), with will_paginate's `meta`; only to an AUTHZ token (`403`).
async fn index(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, category) = let_caller!(state, client, headers, params);
    if let Err(response) = judge0.authorized(&headers, &params) {
        return *response;
    }
    let fields = match fields_of(&params) {
        Ok(fields) => fields,
        Err(response) => return *response,
    };
    // Ruby's `to_i`: the leading digits, 0 without any.
    let number = |name: &str, default: i64| {
        params.get(name).map_or(default, |text| {
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
        return error(StatusCode::BAD_REQUEST, &format!("invalid page: {page}"));
    }
    if per_page < 0 {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("invalid per_page: {per_page}"),
        );
    }
    let (page, per_page) = (page as u64, (per_page as u64).max(1));
    let base64 = flag(&params, "base64_encoded");
    let (rows, total) = match judge0
        .store
        .judge0_page(category, (page - 1).saturating_mul(per_page), per_page)
        .await
    {
        Ok(found) => found,
        Err(e) => {
            tracing::warn!(error = %e, "judge0: cannot list submissions");
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the submission store is unavailable; retry later",
            );
        }
    };
    let languages = judge0.languages().await;
    let mut submissions = Vec::with_capacity(rows.len());
    for row in rows {
        let Ok(record) = serde_json::from_str::<Record>(&row.record) else {
            continue;
        };
        match render(&record, &fields, base64, &languages) {
            Ok(value) => submissions.push(value),
            Err(_) => return error(StatusCode::BAD_REQUEST, NOT_UTF8_MANY),
        }
    }
    let total_pages = total.div_ceil(per_page);
    axum::Json(json!({
        "submissions": submissions,
        "meta": {
            "current_page": page,
            "next_page": (page < total_pages).then_some(page + 1),
            "prev_page": (page > 1).then_some(page - 1),
            "total_pages": total_pages,
            "total_count": total,
        },
    }))
    .into_response()
}

/// Judge0's conversion error for a list.
const NOT_UTF8_MANY: &str = "some attributes for one or more submissions cannot be converted to UTF-8, use base64_encoded=true query parameter";

/// `POST /submissions/batch`: `{"submissions": [...]}` → a `{token}` or the field errors of
/// each, `201` when one was accepted, else `422`.
async fn batch_create(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
    body: Bytes,
) -> Response {
    let (judge0, category) = let_caller!(state, client, headers, params);
    if state.stopping.is_cancelled() {
        return shutting_down();
    }
    let body = match body_json(&judge0.auth_header, &headers, &body, &HashMap::new()) {
        Ok(body) => body,
        Err(response) => return *response,
    };
    let items = body
        .get("submissions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Err(response) = judge0.check_queue(items.len().max(1)) {
        return *response;
    }
    if let Err(response) = judge0.check_batch_size(items.len()) {
        return *response;
    }
    let base64 = flag(&params, "base64_encoded");
    state.metrics.compat_call(&category);
    let languages = judge0.languages().await;
    let mut answers = Vec::with_capacity(items.len());
    let mut accepted = false;
    for item in &items {
        match judge0.accept(item, base64, &languages, &category).await {
            Ok(Ok((record, _))) => {
                accepted = true;
                answers.push(json!({"token": record.token}));
            }
            Ok(Err(errors)) => answers.push(errors),
            Err(response) => return *response,
        }
    }
    let status = if accepted {
        StatusCode::CREATED
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    (status, axum::Json(Value::Array(answers))).into_response()
}

/// `GET /submissions/batch?tokens=a,b`: `{"submissions": [...]}` in the tokens' order,
/// `null` for an unknown one.
async fn batch_show(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, category) = let_caller!(state, client, headers, params);
    let fields = match fields_of(&params) {
        Ok(fields) => fields,
        Err(response) => return *response,
    };
    let base64 = flag(&params, "base64_encoded");
    let tokens: Vec<String> = headers
        .get("tokens")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| params.get("tokens").cloned())
        .unwrap_or_default()
        .trim()
        .split(',')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    if let Err(response) = judge0.check_batch_size(tokens.len()) {
        return *response;
    }
    let found = match judge0.find(tokens.clone(), &category).await {
        Ok(found) => found,
        Err(response) => return *response,
    };
    let languages = judge0.languages().await;
    let mut submissions = Vec::with_capacity(tokens.len());
    for token in &tokens {
        match found.get(token) {
            None => submissions.push(Value::Null),
            Some(record) => match render(record, &fields, base64, &languages) {
                Ok(value) => submissions.push(value),
                Err(_) => return error(StatusCode::BAD_REQUEST, NOT_UTF8_MANY),
            },
        }
    }
    axum::Json(json!({ "submissions": submissions })).into_response()
}

/// `GET /languages`: `[{id, name}]`, by name.
async fn list_languages(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, _) = let_caller!(state, client, headers, params);
    let list = judge0.languages_by_name().await;
    let list: Vec<Value> = list
        .iter()
        .map(|l| json!({"id": l.id, "name": l.name}))
        .collect();
    axum::Json(list).into_response()
}

/// `GET /languages/all`: `[{id, name, is_archived}]`, by name.
async fn all_languages(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, _) = let_caller!(state, client, headers, params);
    let list = judge0.languages_by_name().await;
    let list: Vec<Value> = list
        .iter()
        .map(|l| json!({"id": l.id, "name": l.name, "is_archived": l.is_archived}))
        .collect();
    axum::Json(list).into_response()
}

/// `GET /languages/{id}`: the language with its source file and commands.
async fn one_language(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(params): Params,
) -> Response {
    let (judge0, _) = let_caller!(state, client, headers, params);
    let languages = judge0.languages().await;
    match id
        .parse::<u16>()
        .ok()
        .and_then(|id| languages.into_iter().find(|l| l.id == id))
    {
        Some(language) => axum::Json(language).into_response(),
        None => not_found(),
    }
}

/// `GET /statuses`.
async fn list_statuses(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let _ = let_caller!(state, client, headers, params);
    axum::Json(statuses::ALL.to_vec()).into_response()
}

/// `GET /about`: the Judge0 version answered as (the SDK picks its language ids by it).
async fn about(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let _ = let_caller!(state, client, headers, params);
    axum::Json(json!({
        "version": judge0::VERSION,
        "homepage": "https://judge0.com",
        "source_code": env!("CARGO_PKG_REPOSITORY"),
        "maintainer": concat!("verdict ", env!("CARGO_PKG_VERSION"), " (Judge0 CE's API on verdict's engine)"),
    }))
    .into_response()
}

/// `GET /version`: plain text.
async fn version(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let _ = let_caller!(state, client, headers, params);
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        judge0::VERSION,
    )
        .into_response()
}

/// `GET /config_info`.
async fn config_info(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, _) = let_caller!(state, client, headers, params);
    axum::Json(judge0.limits.config_info(&judge0.switches)).into_response()
}

/// `GET /workers`: one queue, its waiting submissions and the judge's run slots.
async fn workers(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, _) = let_caller!(state, client, headers, params);
    let slots = judge0.runner.judge().config().parallelism.max(1);
    let pending = judge0.pending.load(Ordering::SeqCst);
    let working = slots.saturating_sub(judge0.running.available_permits());
    axum::Json(json!([{
        "queue": judge0::VERSION,
        "size": pending.saturating_sub(working),
        "available": slots,
        "idle": slots - working,
        "working": working,
        "paused": 0,
    }]))
    .into_response()
}

/// `POST /authenticate`: `200` when the caller is let in.
async fn authenticate(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let _ = let_caller!(state, client, headers, params);
    StatusCode::OK.into_response()
}

/// `POST /authorize`: `200` for an AUTHZ token, else `403`.
async fn authorize(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    Query(params): Params,
) -> Response {
    let (judge0, _) = let_caller!(state, client, headers, params);
    match judge0.authorized(&headers, &params) {
        Ok(()) => StatusCode::OK.into_response(),
        Err(response) => *response,
    }
}
