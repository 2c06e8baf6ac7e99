//! The server's configuration: one typed struct read from TOML, unknown keys rejected.

use crate::error::{ConfigError, keyed_values};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use verdict_lab::LabConfig;
use verdict_queue::AmqpConfig;
use verdict_scheduler::JudgeConfig;

/// Everything `judge-server` reads from `--config server.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// `standalone` (the default), `worker` or `frontend`.
    pub role: crate::role::Role,
    /// The broker, for the `worker` and `frontend` roles.
    pub amqp: AmqpConfig,
    /// The address to listen on.
    pub listen: SocketAddr,
    /// The judge itself (the same table `judge --config` reads).
    pub judge: JudgeConfig,
    /// Where accepted submissions and finished reports are kept (an SQLite file), relative to
    /// the config file's directory; one server per directory.
    pub data_dir: PathBuf,
    /// Submissions accepted but not started yet; beyond it a submission gets 429.
    pub queue_capacity: usize,
    /// The most request bytes waiting in the queue at once, in MiB (the sum of the queued
    /// submissions' bodies; a queued submission holds about 1.2 times its body in memory):
    /// one that would pass it gets 429 naming it, as a full queue does. One body is at most
    /// `max_body_kb`.
    pub queue_budget_mb: u64,
    /// Submissions judged at once (each runs its tasks on the judge's `parallelism` pool).
    pub workers: usize,
    /// Largest request body in KB (413 beyond it).
    pub max_body_kb: u64,
    /// Time limit of a request in ms (504 beyond it); event streams are exempt.
    pub request_timeout_ms: u64,
    /// How long an accept waits for the submission store's disk to commit, in ms (at most the
    /// request's own time): beyond it the request is refused with 503 and `Retry-After`, and
    /// nothing is accepted (a frozen or stalled data disk).
    pub store_timeout_ms: u64,
    /// How long a shutdown waits for queued and running work in ms.
    pub shutdown_grace_ms: u64,
    /// How long a finished submission stays readable in seconds.
    pub retention_secs: u64,
    /// At most this many finished submissions are kept (oldest evicted first).
    pub max_retained: usize,
    /// How long a Task Oracle suite (`POST /v1/oracle`) may be expected to wait for a place
    /// in ms: one expected to wait longer (or past `request_timeout_ms`) is refused at once
    /// with 429 and `Retry-After`, instead of holding its connection until a client's read
    /// timeout.
    pub max_queue_wait_ms: u64,
    /// Task Oracle suites and Agent Lab runs at once (429 beyond it).
    pub direct_concurrency: usize,
    /// Per-case time limit in ms of oracle suites that give no `timeout_ms`.
    pub oracle_default_timeout_ms: u64,
    /// Bearer tokens; none configured means no authentication.
    pub tokens: Vec<TokenConfig>,
    /// Submissions of a category judged at once, by category (others share `workers`).
    pub quotas: BTreeMap<String, usize>,
    /// The most a request may ask for (time, memory, output, processes, tasks, test data, a
    /// suite's `timeout_ms`): beyond a cap it is refused with 422 naming the field and the cap.
    pub caps: verdict_contracts::Caps,
    /// Connections served at once (clamped below the process's open-file limit); the next
    /// waits in the listen backlog.
    pub max_connections: usize,
    /// Connections served at once from one client address (an IPv6 client's /64): the next
    /// is answered 429 and closed at once. Behind a reverse proxy every connection comes from
    /// its address: raise it to `max_connections` there and cap per client in the proxy.
    /// 1024 by default: a co-located RL trainer (verl's `max_concurrent = 256`, a connection
    /// per call, the closing ones still counted) stays under it (docs/compat.md).
    pub max_connections_per_address: usize,
    /// Event streams open at once on one submission or batch (429 beyond it).
    pub max_streams_per_submission: usize,
    /// Event streams open at once by one token (all callers together when authentication is
    /// off; 429 beyond it).
    pub max_streams_per_token: usize,
    /// Time a connection has to send a complete request head, from its start or from the
    /// previous response (so it also closes idle keep-alive connections), in ms.
    pub header_timeout_ms: u64,
    /// SandboxFusion's routes (`/run_code`, `/v1/ping`): off by default (docs/compat.md).
    pub sandbox_fusion: crate::platforms::sandbox_fusion::SandboxFusionConfig,
    /// Piston's API v2 (`/api/v2/runtimes`, `/api/v2/execute`): off by default (docs/compat.md).
    pub piston: crate::platforms::piston::PistonConfig,
    /// Jobe's REST API (`/jobe/index.php/restapi/...`, Moodle CodeRunner's): off by default
    /// (docs/compat.md).
    pub jobe: crate::platforms::jobe::JobeConfig,
    /// Judge0 CE's API (`/submissions`, `/languages`, `/statuses`, ...): off by default
    /// (docs/compat.md).
    pub judge0: crate::platforms::judge0::Judge0Config,
    /// Agent Lab runners and evaluators (the table `judge lab --lab-config` reads); the
    /// `function`, `script`, `cli` and `programming` runners are always there.
    pub lab: LabConfig,
    /// The directory relative paths of `[lab]` are resolved against (the config file's).
    #[serde(skip)]
    pub base_dir: PathBuf,
}

/// One bearer token.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// The secret a client sends as `Authorization: Bearer <token>`.
    pub token: String,
    /// When set, the token may submit only with this `category`, and sees only its submissions.
    #[serde(default)]
    pub category: Option<String>,
    /// The Agent Lab task types this token may run on `/v1/lab/runs` (`["*"]`: all). Unset: all
    /// for a token without a category; the built-in judged types (`function`, `script`, `cli`,
    /// `programming`) for one with a category.
    #[serde(default)]
    pub lab_runners: Option<Vec<String>>,
    /// Whether this category token's Submissions may read `local` assets anywhere under the
    /// judge's `local_roots` (default: only under `<root>/<category>/`).
    #[serde(default)]
    pub shared_local_roots: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        ServerConfig {
            role: crate::role::Role::default(),
            amqp: AmqpConfig::default(),
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            judge: JudgeConfig::default(),
            data_dir: PathBuf::from("verdict-data"),
            queue_capacity: 256,
            queue_budget_mb: 1024,
            workers: cores,
            max_body_kb: 16 * 1024,
            request_timeout_ms: 300_000,
            store_timeout_ms: 10_000,
            max_queue_wait_ms: 30_000,
            shutdown_grace_ms: 60_000,
            retention_secs: 3600,
            max_retained: 10_000,
            direct_concurrency: cores,
            oracle_default_timeout_ms: 5_000,
            tokens: Vec::new(),
            quotas: BTreeMap::new(),
            caps: verdict_contracts::Caps::default(),
            max_connections: 4096,
            max_connections_per_address: 1024,
            max_streams_per_submission: 64,
            max_streams_per_token: 256,
            header_timeout_ms: 15_000,
            sandbox_fusion: Default::default(),
            piston: Default::default(),
            jobe: Default::default(),
            judge0: Default::default(),
            lab: LabConfig::default(),
            base_dir: PathBuf::from("."),
        }
    }
}

impl ServerConfig {
    /// A config from TOML text: unknown keys and out-of-range values are errors naming the key.
    pub fn from_toml(text: &str) -> Result<ServerConfig, ConfigError> {
        let config: ServerConfig = toml::from_str(text)?;
        config.check()?;
        Ok(config)
    }

    /// Checks the values serde cannot.
    pub fn check(&self) -> Result<(), ConfigError> {
        let positive = keyed_values!(
            self =>
            queue_capacity, workers, queue_budget_mb, max_body_kb, request_timeout_ms,
            store_timeout_ms, max_queue_wait_ms, direct_concurrency, oracle_default_timeout_ms,
            max_connections, max_connections_per_address, max_streams_per_submission,
            max_streams_per_token, header_timeout_ms
        );
        self.sandbox_fusion.check()?;
        self.piston.check()?;
        self.jobe.check()?;
        self.judge0.check()?;
        ConfigError::check_positive("", &positive, "must be at least 1")?;
        verdict_scheduler::check_local_roots(&self.judge.local_roots).map_err(|e| {
            ConfigError::Value {
                key: format!("judge.{}", e.field),
                message: e.reason,
            }
        })?;
        if self.role != crate::role::Role::Standalone {
            self.amqp.check().map_err(|err| match err {
                verdict_queue::Error::Config { key, message } => {
                    ConfigError::Value { key, message }
                }
                other => ConfigError::Value {
                    key: "amqp".into(),
                    message: other.to_string(),
                },
            })?;
        }
        for (i, token) in self.tokens.iter().enumerate() {
            if token.token.trim().is_empty() {
                return Err(ConfigError::Value {
                    key: format!("tokens[{i}].token"),
                    message: "must not be empty".into(),
                });
            }
            if self.tokens[..i].iter().any(|t| t.token == token.token) {
                return Err(ConfigError::Value {
                    key: format!("tokens[{i}].token"),
                    message: "is given twice".into(),
                });
            }
        }
        for (category, quota) in &self.quotas {
            if *quota == 0 {
                return Err(ConfigError::Value {
                    key: format!("quotas.{category}"),
                    message: "must be at least 1".into(),
                });
            }
        }
        Ok(())
    }

    /// The data dir, resolved against the config file's directory.
    pub fn data_dir(&self) -> PathBuf {
        self.base_dir.join(&self.data_dir)
    }

    /// Where batches are kept (`<data dir>/batches`), and the bounds of their queue: one
    /// reading of the config for the standalone queue and a front end's relay.
    pub(crate) fn batches(&self) -> (PathBuf, verdict_submissions::batches::BatchLimits) {
        let limits = verdict_submissions::batches::BatchLimits {
            capacity: self.queue_capacity,
            slots: self.workers,
            caps: self.caps.clone(),
            max_wait: Duration::from_millis(self.max_queue_wait_ms),
            retention: Duration::from_secs(self.retention_secs),
            max_retained: self.max_retained,
        };
        (self.data_dir().join("batches"), limits)
    }

    /// The request timeout.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    /// How long an accept waits for the store's commit: `store_timeout_ms`, within the
    /// request's own time.
    pub fn store_timeout(&self) -> Duration {
        Duration::from_millis(self.store_timeout_ms).min(self.request_timeout())
    }

    /// The queue's byte budget in bytes.
    pub fn queue_budget_bytes(&self) -> usize {
        usize::try_from(self.queue_budget_mb.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }

    /// The body limit in bytes.
    pub fn max_body_bytes(&self) -> usize {
        usize::try_from(self.max_body_kb.saturating_mul(1024)).unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_rejected_by_name() {
        let err = ServerConfig::from_toml("queue_capacityy = 3\n").unwrap_err();
        assert!(err.to_string().contains("queue_capacityy"), "{err}");
        let err = ServerConfig::from_toml("[judge]\nparalelism = 3\n").unwrap_err();
        assert!(err.to_string().contains("paralelism"), "{err}");
        let err =
            ServerConfig::from_toml("[[tokens]]\ntoken = \"a\"\ncategry = \"x\"\n").unwrap_err();
        assert!(err.to_string().contains("categry"), "{err}");
    }

    #[test]
    fn a_full_config_reads() {
        let config = ServerConfig::from_toml(
            r#"
listen = "0.0.0.0:9000"
queue_capacity = 10
workers = 3
max_body_kb = 64
request_timeout_ms = 1000
[judge]
parallelism = 2
[[tokens]]
token = "admin"
[[tokens]]
token = "oj-secret"
category = "oj"
[quotas]
oj = 2
[lab.runners.echo]
command = ["cat"]
"#,
        )
        .unwrap();
        assert_eq!(config.listen.port(), 9000);
        assert_eq!(config.judge.parallelism, 2);
        assert_eq!(config.tokens[1].category.as_deref(), Some("oj"));
        assert_eq!(config.quotas["oj"], 2);
        assert_eq!(config.max_body_bytes(), 64 * 1024);
        assert!(config.lab.runners.contains_key("echo"));
    }

    #[test]
    fn zero_values_are_rejected_by_name() {
        let err = ServerConfig::from_toml("workers = 0\n").unwrap_err();
        assert_eq!(err.to_string(), "workers: must be at least 1");
        let err = ServerConfig::from_toml("[quotas]\noj = 0\n").unwrap_err();
        assert_eq!(err.to_string(), "quotas.oj: must be at least 1");
        let err = ServerConfig::from_toml("[[tokens]]\ntoken = \"a\"\n[[tokens]]\ntoken = \"a\"\n")
            .unwrap_err();
        assert_eq!(err.to_string(), "tokens[1].token: is given twice");
    }
}
