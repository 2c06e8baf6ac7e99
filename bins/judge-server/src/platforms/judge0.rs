//! Judge0's side of the server below its routes (`judge0.rs`): the `[judge0]` section and the
//! service its routes share: its submissions kept in the server's store by token, run through
//! the compat runner (again at start when a previous run stopped before finishing them), and
//! their callbacks.

use super::gate::{ApiAccess, Gate};
use crate::error::{ConfigError, keyed_values};
use serde::Deserialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use verdict_compat::judge0::{
    self, Judge0Language, Judge0Limits, Judge0Switches, Record, parse_fields, render, statuses,
};
use verdict_compat::toolchains::Toolchains;
use verdict_compat::{CompatError, ProgramRunner};
use verdict_scheduler::Judge;
use verdict_submissions::{KeptJudge0, Store};

/// `[judge0]`: who may call Judge0's routes, Judge0's settings and limits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Judge0Config {
    /// Who may call: keys sent in `auth_header` (Judge0's AUTHN tokens), or networks
    /// (loopback by default).
    #[serde(flatten)]
    pub access: ApiAccess,
    /// The header (or query parameter) a key comes in: Judge0's `AUTHN_HEADER`,
    /// `X-Auth-Token` by default (`X-RapidAPI-Key` for an app written for RapidAPI's Judge0).
    pub auth_header: String,
    /// Judge0's AUTHZ tokens, sent in `authz_header` besides a key: they may list
    /// submissions (`GET /submissions`) and delete them; none: those answer `403`, as on a
    /// Judge0 without an `AUTHZ_TOKEN`.
    pub authz_keys: Vec<String>,
    /// The header (or query parameter) an AUTHZ token comes in (Judge0's `AUTHZ_HEADER`).
    pub authz_header: String,
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
            access: ApiAccess::default(),
            auth_header: "X-Auth-Token".into(),
            authz_keys: Vec::new(),
            authz_header: "X-Auth-User".into(),
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
    pub fn check(&self) -> Result<(), ConfigError> {
        self.access.check("judge0")?;
        for (key, name) in [
            ("auth_header", &self.auth_header),
            ("authz_header", &self.authz_header),
        ] {
            if axum::http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(ConfigError::Value {
                    key: format!("judge0.{key}"),
                    message: format!("{name:?} is not a header name"),
                });
            }
        }
        for (i, key) in self.authz_keys.iter().enumerate() {
            if key.len() < 16 || key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(ConfigError::Value {
                    key: format!("judge0.authz_keys[{i}]"),
                    message: "at least 16 characters, no spaces".into(),
                });
            }
        }
        let error = |key: &str, message: &str| ConfigError::Value {
            key: format!("judge0.{key}"),
            message: message.into(),
        };
        let l = &self.limits;
        ConfigError::check_positive(
            "judge0.",
            &keyed_values!(
                self =>
                max_wait_ms, builds, kept, callbacks_max_tries, callbacks_timeout,
                limits.max_cpu_time_limit, limits.max_wall_time_limit, limits.max_memory_limit,
                limits.max_max_processes_and_or_threads, limits.max_max_file_size,
                limits.max_number_of_runs, limits.max_submission_batch_size, limits.max_queue_size
            ),
            "must be above 0 (every run is bounded)",
        )?;
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
    /// Runs the programs.
    pub(crate) runner: ProgramRunner,
    /// Judge0's defaults and most for each submission field.
    pub(crate) limits: Judge0Limits,
    /// Judge0's on/off settings.
    pub(crate) switches: Judge0Switches,
    /// Finished submissions kept.
    kept: usize,
    /// Who is let in, and under which category.
    pub(crate) gate: Gate,
    /// The header (or query parameter) a key comes in.
    pub(crate) auth_header: String,
    /// The AUTHZ tokens.
    pub(crate) authz_keys: Vec<String>,
    /// The header (or query parameter) an AUTHZ token comes in.
    pub(crate) authz_header: String,
    toolchains: Toolchains,
    /// The submissions, kept by token.
    pub(crate) store: Arc<Store>,
    /// Submissions accepted and not finished (`max_queue_size` bounds it).
    pub(crate) pending: AtomicUsize,
    /// One permit per run slot of the judge: a submission holding one is Processing, the
    /// others are In Queue.
    pub(crate) running: tokio::sync::Semaphore,
    callbacks: Arc<verdict_fetch::Fetcher>,
    /// This host's name (Judge0's `queue_host` and `execution_host`).
    pub(crate) host: Option<String>,
}

impl Judge0 {
    /// The routes' state over `judge` and the server's submission `store`, or `None` when
    /// they are off.
    pub fn new(config: &Judge0Config, judge: &Judge, store: &Arc<Store>) -> Option<Arc<Self>> {
        config.access.enabled.then(|| {
            Arc::new(Judge0 {
                runner: ProgramRunner::new(
                    judge.clone(),
                    config.builds,
                    Duration::from_millis(config.max_wait_ms),
                ),
                limits: config.limits.clone(),
                switches: config.switches(),
                kept: config.kept,
                gate: config.access.gate(),
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
    pub(crate) async fn languages(&self) -> Vec<Judge0Language> {
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

    pub(crate) async fn save(&self, record: &Record, category: &str) -> Result<(), String> {
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
    pub(crate) async fn process(
        self: Arc<Self>,
        mut record: Record,
        category: String,
    ) -> Option<Record> {
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
            if compiled {
                times.extend(summary.result.time);
                memories.extend(summary.result.memory);
            }
            record.result = summary.result;
            if !compiled || summary.status != statuses::ACCEPTED {
                break;
            }
        }
        if !times.is_empty() {
            record.result.time = Some(times.iter().sum::<f64>() / times.len() as f64);
        }
        if !memories.is_empty() {
            record.result.memory = Some(memories.iter().sum::<u64>() / memories.len() as u64);
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

/// Now, in ms since the epoch (Judge0's times).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Judge0's Internal Error (13) with the judge's reason.
fn finish_internal(record: &mut Record, message: String) {
    let now = now_ms();
    record.status_id = statuses::INTERNAL_ERROR.id;
    record.result.message = Some(message);
    record.finished_at_ms = Some(now);
    record.updated_at_ms = now;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judge0_config_documented_in_docs_compat_md_is_read_and_checked() {
        let docs = include_str!("../../../../docs/compat.md");
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
        assert!(config.judge0.access.enabled);
        assert_eq!(config.judge0.access.keys[0].category, "course");
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
