//! Judge0 CE's API (docs/compat.md) at Judge0's own paths (`/submissions`,
//! `/submissions/batch`, `/languages`, `/statuses`, `/about`, `/config_info`, ...), so a
//! Judge0 app or the `judge0` SDK changes its base URL and runs on verdict's sandbox. Off by
//! default; a caller is let in by a key of `[[judge0.keys]]` in `X-Auth-Token` (`auth_header`:
//! header or query parameter, as Judge0 takes its AUTHN token) or by its network. Submissions are kept in the
//! server's store by token: one that was waiting or running when the server stopped runs
//! again at start. Every run goes through the compat runner (one compile for identical
//! sources); `callback_url` gets Judge0's PUT, through the guarded client of remote assets.

use crate::compat_gate::{ApiKey, Denied, Gate, default_category, loopback};
use crate::sandbox_fusion::ClientAddr;
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use verdict_compat::judge0::{
    self, Judge0Language, Judge0Limits, Judge0Switches, NOT_UTF8_MESSAGE, Record, parse_fields,
    parse_submission, render, statuses,
};
use verdict_compat::toolchains::Toolchains;
use verdict_compat::{CompatError, ProgramRunner};
use verdict_submissions::{KeptJudge0, Store};

/// `[judge0]`: who may call Judge0's routes, Judge0's settings and limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Judge0Config {
    /// Serve the routes at all (off by default).
    pub enabled: bool,
    /// Keys sent in `auth_header` (Judge0's AUTHN tokens), each with its category.
    pub keys: Vec<ApiKey>,
    /// The header (or query parameter) a key comes in: Judge0's `AUTHN_HEADER`,
    /// `X-Auth-Token` by default (`X-RapidAPI-Key` for an app written for RapidAPI's Judge0).
    pub auth_header: String,
    /// Judge0's AUTHZ tokens, sent in `authz_header` besides a key: they may list
    /// submissions (`GET /submissions`) and delete them; none: those answer `403`, as on a
    /// Judge0 without an `AUTHZ_TOKEN`.
    pub authz_keys: Vec<String>,
    /// The header (or query parameter) an AUTHZ token comes in (Judge0's `AUTHZ_HEADER`).
    pub authz_header: String,
    /// Networks (`addr/prefix`) whose clients may call without a key; loopback by default.
    pub networks: Vec<String>,
    /// The category of calls let in by their network.
    pub network_category: String,
    /// How long one try waits for a run slot, in ms; a submission then waits its turn again.
    pub max_wait_ms: u64,
    /// Builds kept for identical sources.
    pub builds: usize,
    /// Finished submissions kept (the oldest go beyond it); waiting ones are always kept.
    pub kept: usize,
    /// `DELETE /submissions/{token}` allowed (Judge0's `ENABLE_SUBMISSION_DELETE`).
    pub enable_submission_delete: bool,
    /// `callback_url` accepted (Judge0's `ENABLE_CALLBACKS`).
    pub enable_callbacks: bool,
    /// Tries of a callback that fails to connect (Judge0's `CALLBACKS_MAX_TRIES`).
    pub callbacks_max_tries: u32,
    /// One callback try's timeout in seconds (Judge0's `CALLBACKS_TIMEOUT`).
    pub callbacks_timeout: f64,
    /// Hosts callbacks may reach whatever their address (empty: any host whose addresses
    /// are all globally routable or in `callback_allow_networks`), as for remote assets.
    pub callback_allow_hosts: Vec<String>,
    /// Networks callbacks may reach although not globally routable.
    pub callback_allow_networks: Vec<verdict_fetch::Network>,
    /// Judge0's defaults and most for each submission field (its `judge0.conf` names).
    pub limits: Judge0Limits,
}

impl Default for Judge0Config {
    fn default() -> Self {
        Judge0Config {
            enabled: false,
            keys: Vec::new(),
            auth_header: "X-Auth-Token".into(),
            authz_keys: Vec::new(),
            authz_header: "X-Auth-User".into(),
            networks: loopback(),
            network_category: default_category(),
            max_wait_ms: 30_000,
            builds: verdict_compat::program::DEFAULT_BUILDS_KEPT,
            kept: 100_000,
            enable_submission_delete: false,
            enable_callbacks: true,
            callbacks_max_tries: 3,
            callbacks_timeout: 5.0,
            callback_allow_hosts: Vec::new(),
            callback_allow_networks: Vec::new(),
            limits: Judge0Limits::default(),
        }
    }
}

impl Judge0Config {
    /// Checks what serde cannot: keys, networks, limits that bound every run.
    pub fn check(&self) -> Result<(), crate::config::ConfigError> {
        crate::compat_gate::check("judge0", &self.keys, &self.networks)?;
        for (key, name) in [
            ("auth_header", &self.auth_header),
            ("authz_header", &self.authz_header),
        ] {
            if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(crate::config::ConfigError::Value {
                    key: format!("judge0.{key}"),
                    message: format!("{name:?} is not a header name"),
                });
            }
        }
        for (i, key) in self.authz_keys.iter().enumerate() {
            if key.len() < 16 || key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(crate::config::ConfigError::Value {
                    key: format!("judge0.authz_keys[{i}]"),
                    message: "at least 16 characters, no spaces".into(),
                });
            }
        }
        let error = |key: &str, message: &str| crate::config::ConfigError::Value {
            key: format!("judge0.{key}"),
            message: message.into(),
        };
        let l = &self.limits;
        for (key, value) in [
            ("max_wait_ms", self.max_wait_ms as f64),
            ("builds", self.builds as f64),
            ("kept", self.kept as f64),
            ("callbacks_max_tries", f64::from(self.callbacks_max_tries)),
            ("callbacks_timeout", self.callbacks_timeout),
            ("limits.max_cpu_time_limit", l.max_cpu_time_limit),
            ("limits.max_wall_time_limit", l.max_wall_time_limit),
            ("limits.max_memory_limit", l.max_memory_limit as f64),
            (
                "limits.max_max_processes_and_or_threads",
                l.max_max_processes_and_or_threads as f64,
            ),
            ("limits.max_max_file_size", l.max_max_file_size as f64),
            ("limits.max_number_of_runs", l.max_number_of_runs as f64),
            (
                "limits.max_submission_batch_size",
                l.max_submission_batch_size as f64,
            ),
            ("limits.max_queue_size", l.max_queue_size as f64),
        ] {
            if value.is_nan() || value <= 0.0 || !value.is_finite() {
                return Err(error(key, "must be above 0 (every run is bounded)"));
            }
        }
        for (key, default, most) in [
            ("cpu_time_limit", l.cpu_time_limit, l.max_cpu_time_limit),
            ("cpu_extra_time", l.cpu_extra_time, l.max_cpu_extra_time),
            ("wall_time_limit", l.wall_time_limit, l.max_wall_time_limit),
            (
                "memory_limit",
                l.memory_limit as f64,
                l.max_memory_limit as f64,
            ),
            (
                "stack_limit",
                l.stack_limit as f64,
                l.max_stack_limit as f64,
            ),
            (
                "max_processes_and_or_threads",
                l.max_processes_and_or_threads as f64,
                l.max_max_processes_and_or_threads as f64,
            ),
            (
                "max_file_size",
                l.max_file_size as f64,
                l.max_max_file_size as f64,
            ),
            (
                "number_of_runs",
                l.number_of_runs as f64,
                l.max_number_of_runs as f64,
            ),
        ] {
            if !(0.0..=most).contains(&default) {
                return Err(error(
                    &format!("limits.{key}"),
                    &format!("must be between 0 and its most, {most}"),
                ));
            }
        }
        Ok(())
    }

    fn switches(&self) -> Judge0Switches {
        Judge0Switches {
            enable_submission_delete: self.enable_submission_delete,
            enable_callbacks: self.enable_callbacks,
            callbacks_max_tries: self.callbacks_max_tries,
            callbacks_timeout: self.callbacks_timeout,
        }
    }
}

/// What the routes need: the runner, the store, the gate, the callbacks' client.
#[derive(Debug)]
pub struct Judge0 {
    runner: ProgramRunner,
    limits: Judge0Limits,
    switches: Judge0Switches,
    kept: usize,
    gate: Gate,
    auth_header: String,
    authz_keys: Vec<String>,
    authz_header: String,
    toolchains: Toolchains,
    store: Arc<Store>,
    /// Submissions accepted and not finished (`max_queue_size` bounds it).
    pending: AtomicUsize,
    /// One permit per run slot of the judge: a submission holding one is Processing, the
    /// others are In Queue.
    running: tokio::sync::Semaphore,
    callbacks: Arc<verdict_fetch::Fetcher>,
    host: Option<String>,
}

impl Judge0 {
    /// The routes' state over `judge` and the server's submission `store`, or `None` when
    /// they are off.
    pub fn new(
        server: &crate::config::ServerConfig,
        judge: &verdict_scheduler::Judge,
        store: &Arc<Store>,
    ) -> Option<Arc<Self>> {
        let config = &server.judge0;
        config.enabled.then(|| {
            Arc::new(Judge0 {
                runner: ProgramRunner::new(
                    judge.clone(),
                    config.builds,
                    Duration::from_millis(config.max_wait_ms),
                ),
                limits: config.limits.clone(),
                switches: config.switches(),
                kept: config.kept,
                gate: Gate::new(&config.keys, &config.networks, &config.network_category),
                auth_header: config.auth_header.clone(),
                authz_keys: config.authz_keys.clone(),
                authz_header: config.authz_header.clone(),
                toolchains: Toolchains::default(),
                store: store.clone(),
                pending: AtomicUsize::new(0),
                running: tokio::sync::Semaphore::new(judge.config().parallelism.max(1)),
                callbacks: Arc::new(verdict_fetch::Fetcher::new(verdict_fetch::Policy {
                    allow_hosts: config.callback_allow_hosts.clone(),
                    allow_networks: config.callback_allow_networks.clone(),
                    timeout: Duration::from_secs_f64(config.callbacks_timeout.clamp(0.1, 600.0)),
                    ..verdict_fetch::Policy::default()
                })),
                host: std::fs::read_to_string("/proc/sys/kernel/hostname")
                    .ok()
                    .map(|h| h.trim().to_string())
                    .filter(|h| !h.is_empty()),
            })
        })
    }

    /// The Judge0 languages installed here.
    async fn languages(&self) -> Vec<Judge0Language> {
        let installed = self.toolchains.get(self.runner.judge()).await;
        judge0::languages(&installed, self.runner.judge().profiles())
    }

    /// At start: probes the toolchains, and runs again, in the background, every submission
    /// kept as waiting or running (a previous run of the server stopped before finishing them).
    pub(crate) async fn recover(self: &Arc<Self>) {
        // The toolchains' versions (Judge0's language names) are probed now, in the
        // background, rather than by the first client, whose SDK gives up after 5 s.
        let this = self.clone();
        tokio::spawn(async move { this.languages().await });
        let rows = match self.store.pending_judge0().await {
            Ok(rows) => rows,
            Err(error) => {
                tracing::warn!(%error, "judge0: cannot read the waiting submissions");
                return;
            }
        };
        for row in rows {
            match serde_json::from_str::<Record>(&row.record) {
                Ok(mut record) => {
                    record.status_id = statuses::IN_QUEUE.id;
                    self.pending.fetch_add(1, Ordering::SeqCst);
                    let this = self.clone();
                    tokio::spawn(async move { this.process(record, row.category).await });
                }
                Err(error) => {
                    tracing::warn!(%error, token = row.token, "judge0: an unreadable submission");
                }
            }
        }
    }

    async fn save(&self, record: &Record, category: &str) -> Result<(), String> {
        let text = serde_json::to_string(record).map_err(|e| e.to_string())?;
        self.store
            .put_judge0(
                KeptJudge0 {
                    token: record.token.clone(),
                    category: category.to_string(),
                    pending: record.status().is_pending(),
                    record: text,
                },
                self.kept,
            )
            .await
            .map_err(|e| e.to_string())
    }

    /// Compiles and runs a submission `number_of_runs` times, keeps the result, calls its
    /// callback. Returns the finished record (`None` when the server stopped first: it stays
    /// pending and runs again at the next start).
    async fn process(self: Arc<Self>, mut record: Record, category: String) -> Option<Record> {
        let finished = self.run_all(&mut record, &category).await;
        self.pending.fetch_sub(1, Ordering::SeqCst);
        if !finished {
            return None;
        }
        if let Err(error) = self.save(&record, &category).await {
            tracing::warn!(%error, token = record.token, "judge0: cannot keep a result");
        }
        if let Some(url) = record.callback_url.clone() {
            let this = self.clone();
            let fields = parse_fields(None).unwrap_or_default();
            let body = render(&record, &fields, true, &[])
                .map(|v| v.to_string())
                .unwrap_or_default();
            tokio::spawn(async move { this.callback(url, body).await });
        }
        Some(record)
    }

    /// Fills `record` with its runs; whether it finished (not interrupted by a shutdown).
    async fn run_all(&self, record: &mut Record, category: &str) -> bool {
        let Ok(_turn) = self.running.acquire().await else {
            return false;
        };
        let now = now_ms();
        record.status_id = statuses::PROCESSING.id;
        record.started_at_ms = Some(now);
        record.updated_at_ms = now;
        record.execution_host = self.host.clone();
        if let Err(error) = self.save(record, category).await {
            tracing::warn!(%error, token = record.token, "judge0: cannot keep a status");
        }
        let languages = self.languages().await;
        let Some(language) = languages.iter().find(|l| l.id == record.language_id) else {
            finish_internal(
                record,
                format!("language with id {} is not installed", record.language_id),
            );
            return true;
        };
        let program = judge0::program_request(record, language, &self.limits, category);
        let (mut times, mut memories) = (Vec::new(), Vec::new());
        for _ in 0..record.number_of_runs.max(1) {
            let outcome = loop {
                match self.runner.run(program.clone()).await {
                    Err(CompatError::Busy(_)) => continue,
                    Err(CompatError::ShuttingDown) => return false,
                    other => break other,
                }
            };
            let summary = match outcome {
                Ok(outcome) => judge0::summarize(record, &outcome),
                Err(error) => {
                    finish_internal(record, error.to_string());
                    return true;
                }
            };
            let compiled = summary.status != statuses::COMPILATION_ERROR;
            record.status_id = summary.status.id;
            record.stdout = summary.stdout;
            record.stderr = summary.stderr;
            record.compile_output = summary.compile_output;
            record.message = summary.message;
            record.exit_code = summary.exit_code;
            record.exit_signal = summary.exit_signal;
            record.wall_time = summary.wall_time;
            record.time = summary.time;
            record.memory = summary.memory;
            if !compiled {
                break;
            }
            times.extend(summary.time);
            memories.extend(summary.memory);
            if summary.status != statuses::ACCEPTED {
                break;
            }
        }
        if !times.is_empty() {
            record.time = Some(times.iter().sum::<f64>() / times.len() as f64);
        }
        if !memories.is_empty() {
            record.memory = Some(memories.iter().sum::<u64>() / memories.len() as u64);
        }
        let now = now_ms();
        record.finished_at_ms = Some(now);
        record.updated_at_ms = now;
        true
    }

    /// Judge0's callback: a PUT of the submission (its default fields, base64), tried again
    /// only when it could not be delivered (any HTTP answer ends it, as in Judge0).
    async fn callback(&self, url: String, body: String) {
        for attempt in 0..self.switches.callbacks_max_tries.max(1) {
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(500 * u64::from(attempt))).await;
            }
            let fetcher = self.callbacks.clone();
            let (url2, body2) = (url.clone(), body.clone());
            let sent = tokio::task::spawn_blocking(move || {
                fetcher.put(
                    &url2,
                    &[("Content-Type".into(), "application/json".into())],
                    body2.as_bytes(),
                    64 * 1024,
                    None,
                )
            })
            .await;
            match sent {
                Ok(Ok(_)) => return,
                Ok(Err(error)) => {
                    tracing::warn!(%error, attempt, "judge0: a callback failed");
                    if matches!(
                        error.kind,
                        verdict_fetch::FetchErrorKind::Refused(_)
                            | verdict_fetch::FetchErrorKind::BadUrl(_)
                    ) {
                        return;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "judge0: a callback panicked");
                    return;
                }
            }
        }
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Judge0's Internal Error (13) with the judge's reason.
fn finish_internal(record: &mut Record, message: String) {
    let now = now_ms();
    record.status_id = statuses::INTERNAL_ERROR.id;
    record.message = Some(message);
    record.finished_at_ms = Some(now);
    record.updated_at_ms = now;
}

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
                .any(|k| crate::compat_gate::constant_time_eq(k.as_bytes(), sent.as_bytes()))
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
            return Err(Box::new(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the submission store is unavailable; retry later",
            )));
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
            Box::new(error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the submission store is unavailable; retry later",
            ))
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
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down",
        );
    }
    let wait = flag(&params, "wait");
    if let Err(response) = judge0.check_queue(1) {
        return *response;
    }
    let fields = match parse_fields(params.get("fields").map(String::as_str)) {
        Ok(fields) => fields,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
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
        _ => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server is shutting down",
            );
        }
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
    let fields = match parse_fields(params.get("fields").map(String::as_str)) {
        Ok(fields) => fields,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
    };
    let base64 = flag(&params, "base64_encoded");
    let record = match judge0.find_one(&token, &category).await {
        Ok(record) => record,
        Err(response) => return *response,
    };
    let languages = judge0.languages().await;
    match render(&record, &fields, base64, &languages) {
        Ok(value) => axum::Json(value).into_response(),
        Err(_) => error(StatusCode::BAD_REQUEST, NOT_UTF8_MESSAGE),
    }
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
    let fields = match parse_fields(params.get("fields").map(String::as_str)) {
        Ok(fields) => fields,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
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
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the submission store is unavailable; retry later",
        );
    }
    let languages = judge0.languages().await;
    match render(&record, &fields, true, &languages) {
        Ok(value) => axum::Json(value).into_response(),
        Err(_) => error(StatusCode::BAD_REQUEST, NOT_UTF8_MESSAGE),
    }
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
    let fields = match parse_fields(params.get("fields").map(String::as_str)) {
        Ok(fields) => fields,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
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
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down",
        );
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
    let most = judge0.limits.max_submission_batch_size;
    if items.len() > most {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("number of submissions in a batch should be less than or equal to {most}"),
        );
    }
    if items.is_empty() {
        return error(
            StatusCode::BAD_REQUEST,
            "there should be at least one submission in a batch",
        );
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
    let fields = match parse_fields(params.get("fields").map(String::as_str)) {
        Ok(fields) => fields,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
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
    let most = judge0.limits.max_submission_batch_size;
    if tokens.len() > most {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("number of submissions in a batch should be less than or equal to {most}"),
        );
    }
    if tokens.is_empty() {
        return error(
            StatusCode::BAD_REQUEST,
            "there should be at least one submission in a batch",
        );
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
    let mut list = judge0.languages().await;
    list.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
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
    let mut list = judge0.languages().await;
    list.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judge0_config_documented_in_docs_compat_md_is_read_and_checked() {
        let docs = include_str!("../../../docs/compat.md");
        let section = docs
            .split("## Judge0 CE's API")
            .nth(1)
            .expect("docs/compat.md has a Judge0 section");
        let block = section
            .split("```toml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .expect("a toml block");
        let config: crate::config::ServerConfig =
            toml::from_str(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
        assert!(config.judge0.enabled);
        assert_eq!(config.judge0.keys[0].category, "course");
        assert_eq!(config.judge0.limits, Judge0Limits::default());
        config.judge0.check().expect("valid");
    }

    #[test]
    fn a_judge0_limit_that_bounds_nothing_is_refused_naming_it() {
        let mut config = Judge0Config::default();
        config.limits.max_wall_time_limit = 0.0;
        let error = config.check().expect_err("refused").to_string();
        assert!(
            error.contains("judge0.limits.max_wall_time_limit"),
            "{error}"
        );
        let mut config = Judge0Config::default();
        config.limits.cpu_time_limit = 16.0;
        let error = config.check().expect_err("refused").to_string();
        assert!(error.contains("judge0.limits.cpu_time_limit"), "{error}");
    }
}
