//! SandboxFusion's routes (docs/compat.md): `POST /run_code`, `GET /v1/ping` and `POST /submit`
//! (its `provided_data` form) as bytedance/SandboxFusion serves them, so that verl (`reward_model.sandbox_fusion.url`),
//! its tool and the `sandbox-fusion` package switch by changing one URL. Off by default. Those
//! clients send no `Authorization` header: a caller is let in by a secret path prefix
//! (`/sf/<token>/run_code`, whose token names a category) or by its network (the routes at the
//! root, loopback by default). Errors are FastAPI's (`{"detail": ...}`), never verdict's shape.

use crate::state::AppState;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use std::net::IpAddr;
use std::time::Duration;
use verdict_compat::sandbox_fusion::submit::{eval_result, parse_submit};
use verdict_compat::sandbox_fusion::{
    RunCodeLimits, RunCodeResponse, parse_run_code, program_request,
};
use verdict_compat::{CompatError, ProgramRunner, fastapi};
use verdict_contracts::FieldError;
use verdict_contracts::batch::{BatchOptions, BatchProblem, BatchRequest, Candidate};
use verdict_datasets::DatasetBatchJudge;
use verdict_scheduler::{BatchCancel, BatchJudge};

/// `[sandbox_fusion]`: who may call SandboxFusion's routes, and their limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SandboxFusionConfig {
    /// Serve the routes at all (off by default).
    pub enabled: bool,
    /// Secret path prefixes: `/sf/<token>/run_code` is served as `category`'s.
    pub paths: Vec<PathToken>,
    /// Networks (`addr/prefix`) whose clients may call the routes at the root (`/run_code`),
    /// as `network_category`; loopback by default. Empty: only the secret paths.
    pub networks: Vec<String>,
    /// The category of calls let in by their network.
    pub network_category: String,
    /// How long a call waits for a run slot before `504` with `Retry-After`, in ms.
    pub max_wait_ms: u64,
    /// Builds kept for identical sources (content-addressed, least recently used evicted).
    pub builds: usize,
    /// Programs running at once (not compiling: a compile holds one of the judge's slots).
    /// 0: four per judge slot, at most 32. Runs are timed by the wall clock, as SandboxFusion
    /// times them, so a looping program costs its timeout, not a core's place in line.
    pub parallel_runs: usize,
    /// Memory when a request says `memory_limit_MB: -1`, in MB.
    pub default_memory_mb: u64,
    /// The most memory a request may ask for, in MB.
    pub max_memory_mb: u64,
    /// The longest `compile_timeout` or `run_timeout` a request may ask for, in seconds.
    pub max_timeout_secs: f64,
}

/// One secret path prefix.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathToken {
    /// The secret in the path (at least 16 characters).
    pub token: String,
    /// The category its calls count under.
    #[serde(default = "default_category")]
    pub category: String,
}

fn default_category() -> String {
    "default".into()
}

impl Default for SandboxFusionConfig {
    fn default() -> Self {
        let limits = RunCodeLimits::default();
        SandboxFusionConfig {
            enabled: false,
            paths: Vec::new(),
            networks: vec!["127.0.0.0/8".into(), "::1/128".into()],
            network_category: default_category(),
            // verl reads for compile_timeout + run_timeout + 10 s: a call that waits less than
            // the 10 s is answered (504, retried) before its read timeout (docs/compat.md).
            max_wait_ms: 9_000,
            builds: verdict_compat::program::DEFAULT_BUILDS_KEPT,
            parallel_runs: 0,
            default_memory_mb: limits.default_memory_mb,
            max_memory_mb: limits.max_memory_mb,
            max_timeout_secs: limits.max_timeout_secs,
        }
    }
}

impl SandboxFusionConfig {
    /// Checks what serde cannot: networks that parse, secrets long enough.
    pub fn check(&self) -> Result<(), crate::config::ConfigError> {
        let error =
            |key: String, message: String| crate::config::ConfigError::Value { key, message };
        for (i, network) in self.networks.iter().enumerate() {
            Network::parse(network)
                .map_err(|m| error(format!("sandbox_fusion.networks[{i}]"), m))?;
        }
        for (i, path) in self.paths.iter().enumerate() {
            if path.token.len() < 16
                || !path
                    .token
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return Err(error(
                    format!("sandbox_fusion.paths[{i}].token"),
                    "at least 16 characters of [A-Za-z0-9_-]".into(),
                ));
            }
        }
        if self.max_wait_ms == 0 || self.builds == 0 {
            return Err(error(
                "sandbox_fusion".into(),
                "max_wait_ms and builds must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// An address range: an address and a prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Network {
    addr: IpAddr,
    prefix: u8,
}

impl Network {
    /// `addr/prefix` (or a bare address: that one host).
    pub fn parse(text: &str) -> Result<Network, String> {
        let (addr, prefix) = match text.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (text, None),
        };
        let addr: IpAddr = addr
            .trim()
            .parse()
            .map_err(|e| format!("{text:?} is not an address/prefix: {e}"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("{text:?}: the prefix must be 0..={max}"))?,
        };
        Ok(Network { addr, prefix })
    }

    /// Whether `ip` is in this range (an IPv4-mapped IPv6 address as its IPv4 one).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// The client's address, set on each request by the connection that carried it.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

/// What the routes need: the runner, the limits and who is let in.
#[derive(Debug)]
pub struct SandboxFusion {
    runner: ProgramRunner,
    /// The `[quotas]` of the categories that have one: runs of a category at once.
    quotas: std::collections::HashMap<String, std::sync::Arc<tokio::sync::Semaphore>>,
    datasets: DatasetBatchJudge,
    limits: RunCodeLimits,
    networks: Vec<Network>,
    config: SandboxFusionConfig,
}

impl SandboxFusion {
    /// The routes' state over `judge`, or `None` when they are off.
    pub fn new(
        server: &crate::config::ServerConfig,
        judge: &verdict_scheduler::Judge,
    ) -> Option<Self> {
        let config = &server.sandbox_fusion;
        if !config.enabled {
            return None;
        }
        let oracle = crate::state::oracle_options(server, judge);
        let quotas = server
            .quotas
            .iter()
            .map(|(category, n)| {
                let slots = std::sync::Arc::new(tokio::sync::Semaphore::new((*n).max(1)));
                (category.clone(), slots)
            })
            .collect();
        Some(SandboxFusion {
            quotas,
            datasets: DatasetBatchJudge::new(BatchJudge::new(judge.clone(), oracle)),
            runner: {
                let runner = ProgramRunner::new(
                    judge.clone(),
                    config.builds,
                    Duration::from_millis(config.max_wait_ms),
                );
                match config.parallel_runs {
                    0 => runner,
                    runs => runner.with_parallel_runs(runs),
                }
            },
            limits: RunCodeLimits {
                default_memory_mb: config.default_memory_mb,
                max_memory_mb: config.max_memory_mb,
                max_timeout_secs: config.max_timeout_secs,
                ..RunCodeLimits::default()
            },
            networks: config
                .networks
                .iter()
                .filter_map(|n| Network::parse(n).ok())
                .collect(),
            config: config.clone(),
        })
    }

    /// The category of a secret path's token, compared in constant time.
    fn category_of_token(&self, token: &str) -> Option<&str> {
        self.config
            .paths
            .iter()
            .find(|p| constant_time_eq(p.token.as_bytes(), token.as_bytes()))
            .map(|p| p.category.as_str())
    }

    /// The category of a caller let in by its network.
    fn category_of_network(&self, client: Option<ClientAddr>) -> Option<&str> {
        let ClientAddr(ip) = client?;
        self.networks
            .iter()
            .any(|n| n.contains(ip))
            .then_some(self.config.network_category.as_str())
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The routes, at the root (by network) and under `/sf/{token}` (by secret path).
pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/run_code", post(run_code_by_network))
        .route("/v1/ping", get(ping_by_network))
        .route("/submit", post(submit_by_network))
        .route("/sf/{token}/run_code", post(run_code_by_path))
        .route("/sf/{token}/submit", post(submit_by_path))
        .route("/sf/{token}/v1/ping", get(ping_by_path))
}

/// FastAPI's 404.
fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({"detail": "Not Found"})),
    )
        .into_response()
}

fn caller_by_path<'a>(state: &'a AppState, token: &str) -> Option<(&'a SandboxFusion, String)> {
    let sf = state.sandbox_fusion.as_ref()?;
    let category = sf.category_of_token(token)?.to_string();
    Some((sf, category))
}

fn caller_by_network(
    state: &AppState,
    client: Option<ClientAddr>,
) -> Option<(&SandboxFusion, String)> {
    let sf = state.sandbox_fusion.as_ref()?;
    let category = sf.category_of_network(client)?.to_string();
    Some((sf, category))
}

async fn ping_by_network(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
) -> Response {
    match caller_by_network(&state, client.map(|c| c.0)) {
        Some(_) => axum::Json(Value::String("pong".into())).into_response(),
        None => not_found(),
    }
}

async fn ping_by_path(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    match caller_by_path(&state, &token) {
        Some(_) => axum::Json(Value::String("pong".into())).into_response(),
        None => not_found(),
    }
}

async fn run_code_by_network(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    body: Bytes,
) -> Response {
    match caller_by_network(&state, client.map(|c| c.0)) {
        Some((sf, category)) => run_code(&state, sf, &category, &body).await,
        None => not_found(),
    }
}

async fn run_code_by_path(
    State(state): State<AppState>,
    Path(token): Path<String>,
    body: Bytes,
) -> Response {
    match caller_by_path(&state, &token) {
        Some((sf, category)) => run_code(&state, sf, &category, &body).await,
        None => not_found(),
    }
}

/// `POST /run_code`: SandboxFusion's answer, `422` as FastAPI's, `504` with `Retry-After`
/// when every run slot stayed busy for `max_wait_ms` (the one status verl retries).
async fn run_code(state: &AppState, sf: &SandboxFusion, category: &str, body: &[u8]) -> Response {
    let unprocessable = |details: Vec<fastapi::Detail>| {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            axum::Json(fastapi::body(&details)),
        )
            .into_response()
    };
    let request = match parse_run_code(body) {
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
        Err(CompatError::Busy(waited)) => busy(
            Duration::from_secs(1).max(waited / 10),
            &CompatError::Busy(waited).to_string(),
        ),
        Err(CompatError::ShuttingDown) => {
            busy(Duration::from_secs(5), "the judge is shutting down")
        }
        Err(error) => {
            tracing::warn!(%error, category, "run_code: the judge failed");
            axum::Json(RunCodeResponse::sandbox_error(&error)).into_response()
        }
    }
}

async fn submit_by_network(
    State(state): State<AppState>,
    client: Option<axum::Extension<ClientAddr>>,
    body: Bytes,
) -> Response {
    match caller_by_network(&state, client.map(|c| c.0)) {
        Some((sf, _)) => submit(sf, &body).await,
        None => not_found(),
    }
}

async fn submit_by_path(
    State(state): State<AppState>,
    Path(token): Path<String>,
    body: Bytes,
) -> Response {
    match caller_by_path(&state, &token) {
        Some((sf, _)) => submit(sf, &body).await,
        None => not_found(),
    }
}

/// `POST /submit` with `config.provided_data`: the record judged as a dataset batch of one
/// candidate, answered as SandboxFusion's `EvalResult`.
async fn submit(sf: &SandboxFusion, body: &[u8]) -> Response {
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
    let request = match parse_submit(body, &formats) {
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
    if let Err(errors) = sf.datasets.check(&batch) {
        return unprocessable(errors.iter().map(submit_detail).collect());
    }
    let program = match verdict_datasets::batch::read_problem(&request.problem) {
        Ok(problem) => verdict_datasets::batch::program_of(&request.completion, &problem),
        Err(error) => return unprocessable(vec![submit_detail(&error)]),
    };
    match sf.datasets.run(batch, None, BatchCancel::new()).await {
        Ok(report) => match report.results.first() {
            Some(result) => axum::Json(eval_result(&request, &program, result)).into_response(),
            None => busy(Duration::from_secs(1), "the submission was not judged"),
        },
        Err(errors) => unprocessable(errors.iter().map(submit_detail).collect()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_hold_their_addresses_and_nothing_else() {
        let loopback = Network::parse("127.0.0.0/8").expect("parsed");
        assert!(loopback.contains("127.1.2.3".parse().expect("ip")));
        assert!(loopback.contains("::ffff:127.0.0.1".parse().expect("ip")));
        assert!(!loopback.contains("10.0.0.1".parse().expect("ip")));
        let v6 = Network::parse("::1/128").expect("parsed");
        assert!(v6.contains("::1".parse().expect("ip")));
        assert!(!v6.contains("::2".parse().expect("ip")));
        let any = Network::parse("0.0.0.0/0").expect("parsed");
        assert!(any.contains("8.8.8.8".parse().expect("ip")));
        assert!(Network::parse("10.0.0.0/33").is_err());
        assert!(Network::parse("nope").is_err());
    }

    #[test]
    fn short_secrets_and_bad_networks_are_refused_naming_the_key() {
        let config = SandboxFusionConfig {
            paths: vec![PathToken {
                token: "short".into(),
                category: "rl".into(),
            }],
            ..SandboxFusionConfig::default()
        };
        let err = config.check().expect_err("refused").to_string();
        assert!(err.contains("sandbox_fusion.paths[0].token"), "{err}");
        let config = SandboxFusionConfig {
            networks: vec!["10.0.0.0/99".into()],
            ..SandboxFusionConfig::default()
        };
        let err = config.check().expect_err("refused").to_string();
        assert!(err.contains("sandbox_fusion.networks[0]"), "{err}");
    }
}
