//! SandboxFusion's side of the server below its routes (`sandbox_fusion.rs`): the
//! `[sandbox_fusion]` section (its secret paths, networks and limits) and the service its routes
//! share.

use super::gate::{ClientAddr, Network, constant_time_eq, default_category, loopback};
use crate::error::ConfigError;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use verdict_compat::ProgramRunner;
use verdict_compat::sandbox_fusion::RunCodeLimits;
use verdict_datasets::DatasetBatchJudge;
use verdict_oracle::OracleOptions;
use verdict_scheduler::{BatchJudge, Judge};

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

impl Default for SandboxFusionConfig {
    fn default() -> Self {
        let limits = RunCodeLimits::default();
        SandboxFusionConfig {
            enabled: false,
            paths: Vec::new(),
            networks: loopback(),
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
    pub fn check(&self) -> Result<(), ConfigError> {
        super::gate::check("sandbox_fusion", &[], &self.networks)?;
        let error = |key: String, message: String| ConfigError::Value { key, message };
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

/// What the routes need: the runner, the limits and who is let in.
#[derive(Debug)]
pub struct SandboxFusion {
    /// Runs the programs.
    pub runner: ProgramRunner,
    /// The `[quotas]` of the categories that have one: runs of a category at once.
    pub quotas: HashMap<String, Arc<Semaphore>>,
    /// Judges `/submit`'s batches.
    pub datasets: DatasetBatchJudge,
    /// `/run_code`'s limits.
    pub limits: RunCodeLimits,
    networks: Vec<Network>,
    /// The section as configured.
    pub config: SandboxFusionConfig,
}

impl SandboxFusion {
    /// The routes' state over `judge`, or `None` when they are off.
    /// `quotas` are the server's `[quotas]`; `/submit`'s suites run with `oracle`.
    pub fn new(
        config: &SandboxFusionConfig,
        quotas: &BTreeMap<String, usize>,
        oracle: OracleOptions,
        judge: &Judge,
    ) -> Option<Self> {
        if !config.enabled {
            return None;
        }
        let quotas = quotas
            .iter()
            .map(|(category, n)| (category.clone(), Arc::new(Semaphore::new((*n).max(1)))))
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
                .filter_map(|n| n.parse::<Network>().ok())
                .collect(),
            config: config.clone(),
        })
    }

    /// The category of a secret path's token, compared in constant time.
    pub fn category_of_token(&self, token: &str) -> Option<&str> {
        self.config
            .paths
            .iter()
            .find(|p| constant_time_eq(p.token.as_bytes(), token.as_bytes()))
            .map(|p| p.category.as_str())
    }

    /// The category of a caller let in by its network.
    pub fn category_of_network(&self, client: Option<ClientAddr>) -> Option<&str> {
        let ClientAddr(ip) = client?;
        self.networks
            .iter()
            .any(|n| n.contains(ip))
            .then_some(self.config.network_category.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
