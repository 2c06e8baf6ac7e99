//! Piston's API v2 (docs/compat.md): `GET /api/v2/runtimes` and `POST /api/v2/execute` as
//! engineer-man/Piston serves them (also under `/api/v2/piston/`, the public instance's
//! prefix, and with a trailing slash, which some clients send), so a Discord bot, a web IDE
//! or an eval script changes its base URL and runs on verdict's sandbox. Off by default; a
//! caller is let in by a key in `Authorization` (as the public instance takes keys) or by its
//! network. Errors are Piston's `{"message": ...}`.

use crate::compat_gate::{ApiKey, Denied, Gate, default_category, loopback};
use crate::sandbox_fusion::ClientAddr;
use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;
use verdict_compat::piston::{ExecuteResponse, PistonLimits, parse_execute, runtimes};
use verdict_compat::toolchains::Toolchains;
use verdict_compat::{CompatError, ProgramRunner};

/// `[piston]`: who may call Piston's routes, and Piston's configured limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PistonConfig {
    /// Serve the routes at all (off by default).
    pub enabled: bool,
    /// Keys sent as `Authorization: <key>`, each with its category.
    pub keys: Vec<ApiKey>,
    /// Networks (`addr/prefix`) whose clients may call without a key; loopback by default.
    pub networks: Vec<String>,
    /// The category of calls let in by their network.
    pub network_category: String,
    /// How long a call waits for a run slot before `429` with `Retry-After`, in ms.
    pub max_wait_ms: u64,
    /// Builds kept for identical sources.
    pub builds: usize,
    /// `run_timeout`'s default and most (wall), in ms (Piston: 3000).
    pub run_timeout: i64,
    /// `compile_timeout`'s default and most (wall), in ms (Piston: 10000).
    pub compile_timeout: i64,
    /// `run_cpu_time`'s default and most, in ms (Piston: 3000).
    pub run_cpu_time: i64,
    /// `compile_cpu_time`'s default and most, in ms (Piston: 10000).
    pub compile_cpu_time: i64,
    /// `run_memory_limit`'s default and most, in bytes (-1: none of Piston's own).
    pub run_memory_limit: i64,
    /// `compile_memory_limit`'s default and most, in bytes (-1: none of Piston's own).
    pub compile_memory_limit: i64,
    /// The memory a run gets when its limit is -1, in MB: every run is bounded here.
    pub unlimited_memory_mb: u64,
    /// Bytes each of stdout and stderr may reach (Piston: 1024); beyond it the run is killed.
    pub output_max_size: u64,
    /// Processes and threads of a run (Piston: 64).
    pub max_process_count: u64,
}

impl Default for PistonConfig {
    fn default() -> Self {
        let limits = PistonLimits::default();
        PistonConfig {
            enabled: false,
            keys: Vec::new(),
            networks: loopback(),
            network_category: default_category(),
            max_wait_ms: 30_000,
            builds: verdict_compat::program::DEFAULT_BUILDS_KEPT,
            run_timeout: limits.run_timeout,
            compile_timeout: limits.compile_timeout,
            run_cpu_time: limits.run_cpu_time,
            compile_cpu_time: limits.compile_cpu_time,
            run_memory_limit: limits.run_memory_limit,
            compile_memory_limit: limits.compile_memory_limit,
            unlimited_memory_mb: limits.unlimited_memory_mb,
            output_max_size: limits.output_max_size,
            max_process_count: limits.max_process_count,
        }
    }
}

impl PistonConfig {
    /// Checks what serde cannot: keys, networks, limits that bound every run.
    pub fn check(&self) -> Result<(), crate::config::ConfigError> {
        crate::compat_gate::check("piston", &self.keys, &self.networks)?;
        let positive = [
            ("max_wait_ms", self.max_wait_ms as i64),
            ("builds", self.builds as i64),
            ("run_timeout", self.run_timeout),
            ("compile_timeout", self.compile_timeout),
            ("run_cpu_time", self.run_cpu_time),
            ("compile_cpu_time", self.compile_cpu_time),
            ("unlimited_memory_mb", self.unlimited_memory_mb as i64),
            ("output_max_size", self.output_max_size as i64),
            ("max_process_count", self.max_process_count as i64),
        ];
        for (key, value) in positive {
            if value <= 0 {
                return Err(crate::config::ConfigError::Value {
                    key: format!("piston.{key}"),
                    message: "must be at least 1 (every run is bounded)".into(),
                });
            }
        }
        Ok(())
    }

    fn limits(&self) -> PistonLimits {
        PistonLimits {
            run_timeout: self.run_timeout,
            compile_timeout: self.compile_timeout,
            run_cpu_time: self.run_cpu_time,
            compile_cpu_time: self.compile_cpu_time,
            run_memory_limit: self.run_memory_limit,
            compile_memory_limit: self.compile_memory_limit,
            unlimited_memory_mb: self.unlimited_memory_mb,
            output_max_size: self.output_max_size,
            max_process_count: self.max_process_count,
        }
    }
}

/// What the routes need: the runner, the limits, the gate and the probed toolchains.
#[derive(Debug)]
pub struct Piston {
    runner: ProgramRunner,
    limits: PistonLimits,
    gate: Gate,
    toolchains: Toolchains,
}

impl Piston {
    /// The routes' state over `judge`, or `None` when they are off.
    pub fn new(
        server: &crate::config::ServerConfig,
        judge: &verdict_scheduler::Judge,
    ) -> Option<Self> {
        let config = &server.piston;
        config.enabled.then(|| Piston {
            runner: ProgramRunner::new(
                judge.clone(),
                config.builds,
                Duration::from_millis(config.max_wait_ms),
            ),
            limits: config.limits(),
            gate: Gate::new(&config.keys, &config.networks, &config.network_category),
            toolchains: Toolchains::default(),
        })
    }
}

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

/// The state and category of a caller, or the answer that refuses it.
fn caller<'a>(
    state: &'a AppState,
    client: Option<axum::Extension<ClientAddr>>,
    headers: &HeaderMap,
) -> Result<(&'a Piston, String), Box<Response>> {
    let Some(piston) = state.piston.as_ref() else {
        return Err(Box::new(message(StatusCode::NOT_FOUND, "Not Found")));
    };
    match piston.gate.category(client.map(|c| c.0), key(headers)) {
        Ok(category) => Ok((piston, category)),
        Err(Denied::UnknownKey) => Err(Box::new(message(
            StatusCode::UNAUTHORIZED,
            "invalid authorization key",
        ))),
        Err(Denied::NoKey) => Err(Box::new(message(
            StatusCode::UNAUTHORIZED,
            "an authorization key is required from this address",
        ))),
    }
}

/// `GET /api/v2/runtimes`: the installed languages under Piston's names.
async fn list_runtimes(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
) -> Response {
    let piston = match caller(&state, client, &headers) {
        Ok((piston, _)) => piston,
        Err(response) => return *response,
    };
    let installed = piston.toolchains.get(piston.runner.judge()).await;
    axum::Json(runtimes(&installed)).into_response()
}

/// `POST /api/v2/execute`: Piston's answer, `400 {"message"}` for what Piston refuses, `429`
/// with `Retry-After` when every run slot stayed busy for `max_wait_ms`.
async fn execute(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (piston, category) = match caller(&state, client, &headers) {
        Ok(found) => found,
        Err(response) => return *response,
    };
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json {
        return message(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "requests must be of type application/json",
        );
    }
    let installed = piston.toolchains.get(piston.runner.judge()).await;
    let execute = match parse_execute(&body, &runtimes(&installed), &piston.limits, &category) {
        Ok(execute) => execute,
        Err(error) => {
            let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::BAD_REQUEST);
            return (status, axum::Json(error.body())).into_response();
        }
    };
    if state.stopping.is_cancelled() {
        return busy(Duration::from_secs(5), "the server is shutting down");
    }
    state.metrics.compat_call(&category);
    match piston.runner.run(execute.program.clone()).await {
        Ok(outcome) => axum::Json(ExecuteResponse::of(&execute, &outcome)).into_response(),
        Err(CompatError::Busy(waited)) => busy(
            Duration::from_secs(1).max(waited / 10),
            &CompatError::Busy(waited).to_string(),
        ),
        Err(CompatError::ShuttingDown) => {
            busy(Duration::from_secs(5), "the judge is shutting down")
        }
        Err(error) => {
            tracing::warn!(%error, category, "piston execute: the judge failed");
            message(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string())
        }
    }
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
