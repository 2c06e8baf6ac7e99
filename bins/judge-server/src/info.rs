//! `GET /v1/health`, `GET /v1/languages`, `GET /metrics` and `GET /v1/openapi.json`: one
//! handler each for every role.

use crate::auth::Caller;
use crate::error::ApiError;
use crate::role::Role;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// `GET /v1/health`'s answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Health {
    /// `ok`; `degraded` while a front end or worker is not connected to its broker or the data
    /// dir is gone;
    /// `shutting_down` once a shutdown began.
    pub status: HealthStatus,
    /// The server's role; absent on a standalone server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The server's version.
    pub version: String,
    /// A front end's or worker's link to the broker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub broker: Option<BrokerStatus>,
    /// Submissions accepted here and not started (a worker takes from the broker only what it
    /// judges at once: 0).
    pub queue_length: usize,
    /// Submissions being judged.
    pub running_submissions: usize,
    /// Whether a submission sent now would be accepted.
    pub accepting: bool,
    /// What is wrong with the host, when something is: the data dir removed or replaced (no
    /// submission can be stored: `status` is `degraded`), the judge's work dir made again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_faults: Vec<String>,
    /// The submission store's disk: how it answers and how much room it has; absent where
    /// nothing is stored (a worker).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreHealth>,
    /// Free bytes on the judge's work disk; absent where nothing is judged (a front end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_free_bytes: Option<u64>,
    /// The sandbox's isolation level, as every run's outcome names it (`full-cgroup-v2`,
    /// `rootless-namespaces`, `rlimit-only`, ...: docs/sandbox.md); absent where nothing is
    /// judged (a front end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    /// What this host lacks for full isolation, and how to get it (`judge doctor` says more).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub isolation_lacks: Vec<String>,
}

/// Whether the server is up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    /// Up.
    Ok,
    /// Up, but not connected to its broker, or its data dir is gone (see `host_faults`).
    Degraded,
    /// Finishing accepted work, accepting none.
    ShuttingDown,
}

/// The submission store's disk, as `GET /v1/health` reports it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StoreHealth {
    /// How long the oldest write or read of the store still running has waited, in ms (a
    /// frozen or stalled data disk makes it grow; past `store_timeout_ms` nothing is accepted
    /// and `host_faults` says so); absent when none runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_ms: Option<u64>,
    /// How long the store's last finished operation took, in ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ms: Option<u64>,
    /// Free bytes on the data dir's file system.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
}

/// The link to the broker.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BrokerStatus {
    /// Connected, with the exchanges and queues declared.
    pub connected: bool,
    /// Why the last connection attempt failed or the connection was lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// One language, as `GET /v1/languages` lists it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LanguageStatus {
    /// The language.
    pub language: String,
    /// Whether every program its profile needs was found.
    pub ready: bool,
    /// The version it reports, when ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What is missing and how to install it, when not ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

/// `GET /v1/health`: up, and how loaded (no token needed).
pub async fn health(State(state): State<AppState>) -> Json<Health> {
    let broker = state.broker.as_ref().map(|b| {
        let link = b.link.status();
        BrokerStatus {
            connected: link.connected,
            last_error: link.last_error,
        }
    });
    let mut host_faults = Vec::new();
    let mut store_gone = false;
    if let Some(submissions) = &state.submissions
        && let Err(err) = submissions.store.check_in_place()
    {
        tracing::error!("health: {err}");
        store_gone = true;
        host_faults.push("the data dir was removed or replaced: nothing can be accepted".into());
    }
    let mut store = None;
    let mut store_stalled = false;
    if let Some(submissions) = &state.submissions {
        let wait = submissions.store.disk_wait();
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        if let Some(waiting) = wait.waiting.filter(|w| *w > state.config.store_timeout()) {
            store_stalled = true;
            host_faults.push(format!(
                "the data disk has not finished an operation of the submission store for {} ms \
                 (store_timeout_ms {}): nothing can be accepted",
                ms(waiting),
                state.config.store_timeout_ms
            ));
        }
        store = Some(StoreHealth {
            waiting_ms: wait.waiting.map(ms),
            last_ms: wait.last.map(ms),
            free_bytes: verdict_scripts::DiskRoom::of(&state.config.data_dir())
                .ok()
                .map(|room| room.bytes),
        });
    }
    let mut work_free_bytes = None;
    let (mut isolation, mut isolation_lacks) = (None, Vec::new());
    if let Ok(judge) = state.judge() {
        if let Some((level, lacks)) = judge.executor().isolation() {
            isolation = serde_json::to_value(level)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned));
            isolation_lacks = lacks.to_vec();
        }
        work_free_bytes = verdict_scripts::DiskRoom::of(&judge.config().work_dir)
            .ok()
            .map(|room| room.bytes);
        let recreated = judge.host_faults().work_dir_recreated;
        if recreated > 0 {
            host_faults.push(format!(
                "the judge's work dir was removed and made again {recreated} time(s)"
            ));
        }
    }
    let status = if state.stopping.is_cancelled() {
        HealthStatus::ShuttingDown
    } else if store_gone || store_stalled || broker.as_ref().is_some_and(|b| !b.connected) {
        HealthStatus::Degraded
    } else {
        HealthStatus::Ok
    };
    let (queue_length, running_submissions) = state.load();
    Json(Health {
        status,
        role: Some(state.role()).filter(|r| *r != Role::Standalone),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        broker,
        queue_length,
        running_submissions,
        accepting: state.accepting() && !store_gone && !store_stalled,
        host_faults,
        store,
        work_free_bytes,
        isolation,
        isolation_lacks,
    })
}

/// `GET /v1/languages`: which languages work here, with versions, and why the others do not.
pub async fn languages(
    State(state): State<AppState>,
    _caller: Caller,
) -> Result<Json<Vec<LanguageStatus>>, ApiError> {
    let statuses = state.direct()?.languages.get(state.judge()?).await?;
    Ok(Json(
        statuses
            .iter()
            .map(|s| LanguageStatus {
                language: s.language.clone(),
                ready: s.ready,
                version: s.version.clone(),
                missing: s.missing.clone(),
            })
            .collect(),
    ))
}

/// `GET /metrics`: Prometheus text. An operator's token (no category) reads the server's
/// counters, the judge's cache and, with a broker, its traffic, then the per-category series;
/// a category token reads only its own category's series (the others' load is not its
/// business).
pub async fn metrics(State(state): State<AppState>, caller: Caller) -> Response {
    let mut text = match caller.category {
        Some(_) => String::new(),
        None => {
            let mut text = state.metrics.render(
                state.cache_stats(),
                state
                    .judge
                    .as_ref()
                    .map(verdict_scheduler::Judge::slot_stats),
            );
            if let Some(broker) = &state.broker {
                broker.queue.render(broker.link.is_up(), &mut text);
            }
            text
        }
    };
    if let Some(submissions) = &state.submissions {
        render_categories(&submissions.store, caller.category.as_deref(), &mut text);
    }
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// The submissions this server holds by category and phase (queued, running, finished and
/// kept), every category's or only `only`'s.
fn render_categories(store: &verdict_submissions::Store, only: Option<&str>, out: &mut String) {
    use std::fmt::Write;
    use verdict_submissions::Phase;
    let mut counts: std::collections::BTreeMap<String, [u64; 3]> = Default::default();
    if let Some(category) = only {
        counts.insert(category.to_owned(), [0; 3]);
    }
    for entry in store.list() {
        if only.is_some_and(|c| c != entry.key.category) {
            continue;
        }
        let phase = match entry.phase() {
            Phase::Queued => 0,
            Phase::Running => 1,
            Phase::Finished => 2,
        };
        counts.entry(entry.key.category.clone()).or_default()[phase] += 1;
    }
    let name = "verdict_category_submissions";
    let _ = writeln!(
        out,
        "# HELP {name} Submissions of a category held by this server, by phase (finished: the most recent, held in memory within max_retained and a 64 MiB budget of reports; older ones are on disk).\n# TYPE {name} gauge"
    );
    for (category, n) in &counts {
        let label = category
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n");
        for (phase, count) in ["queued", "running", "finished"].iter().zip(n) {
            let _ = writeln!(
                out,
                "{name}{{category=\"{label}\",phase=\"{phase}\"}} {count}"
            );
        }
    }
}

/// The OpenAPI document, built once by the router from its route table and handed to the
/// handler as an extension (so that handlers never import `routes.rs`).
#[derive(Debug, Clone)]
pub struct OpenApiDocument(pub std::sync::Arc<Value>);

/// `GET /v1/openapi.json`: the OpenAPI 3.1 document (no token needed).
pub async fn openapi(
    axum::Extension(OpenApiDocument(document)): axum::Extension<OpenApiDocument>,
) -> Json<Value> {
    Json(Value::clone(&document))
}
