//! Jobe's side of the server below its routes (`jobe.rs`): the `[jobe]` section and the
//! service its routes share (the runner, the file cache, the gate, the probed toolchains).

use super::gate::{ApiAccess, Gate};
use crate::error::{ConfigError, keyed_values};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;
use verdict_compat::ProgramRunner;
use verdict_compat::jobe::JobeLimits;
use verdict_compat::jobe::cache::FileCache;
use verdict_compat::toolchains::Toolchains;
use verdict_scheduler::Judge;

/// `[jobe]`: who may call Jobe's routes, and Jobe's server settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JobeConfig {
    /// Who may call: keys sent as `X-API-KEY` (Jobe's `api_keys`), or networks (loopback by
    /// default: Jobe is meant to sit behind a firewall that lets only the Moodle server in).
    #[serde(flatten)]
    pub access: ApiAccess,
    /// How long a run waits for a run slot before Jobe's overload outcome (21), in ms
    /// (Jobe: `jobe_wait_timeout`, 10 s).
    pub max_wait_ms: u64,
    /// Builds kept for identical sources.
    pub builds: usize,
    /// The largest `cputime` a run may ask for, in seconds (Jobe: `cputime_upper_limit_secs`).
    pub max_cputime_secs: u64,
    /// The most memory a run gets, in MB (a larger `memorylimit`, or 0, gets this).
    pub max_memory_mb: u64,
    /// The file cache's size, in MB (the least recently used files go beyond it).
    pub file_cache_mb: u64,
}

impl Default for JobeConfig {
    fn default() -> Self {
        let limits = JobeLimits::default();
        JobeConfig {
            access: ApiAccess::default(),
            max_wait_ms: 10_000,
            builds: verdict_compat::program::DEFAULT_BUILDS_KEPT,
            max_cputime_secs: limits.max_cputime_secs,
            max_memory_mb: limits.max_memory_mb,
            file_cache_mb: 1024,
        }
    }
}

impl JobeConfig {
    /// Checks what serde cannot: keys, networks, bounds.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.access.check("jobe")?;
        ConfigError::check_positive(
            "jobe.",
            &keyed_values!(
                self =>
                max_wait_ms, builds, max_cputime_secs, max_memory_mb, file_cache_mb
            ),
            "must be at least 1",
        )
    }
}

/// What the routes need: the runner, the file cache, the gate and the probed toolchains.
#[derive(Debug)]
pub struct Jobe {
    /// Runs the programs.
    pub runner: ProgramRunner,
    /// The files CodeRunner puts, by category.
    pub files: FileCache,
    /// Jobe's server limits.
    pub limits: JobeLimits,
    /// Who is let in, and under which category.
    pub gate: Gate,
    /// The installed languages, probed once.
    pub toolchains: Toolchains,
}

impl Jobe {
    /// The routes' state over `judge` (its file cache in `data_dir/jobe-files`), or `None`
    /// when they are off.
    pub fn new(
        config: &JobeConfig,
        data_dir: &Path,
        judge: &Judge,
    ) -> anyhow::Result<Option<Self>> {
        if !config.access.enabled {
            return Ok(None);
        }
        let files = FileCache::open(
            &data_dir.join("jobe-files"),
            config.file_cache_mb.saturating_mul(1 << 20),
        )?;
        Ok(Some(Jobe {
            // Jobe's limit is CPU time with a wall clock of twice it: one run per judge slot,
            // so a run never waits for a core long enough to pass its wall clock.
            runner: ProgramRunner::new(
                judge.clone(),
                config.builds,
                Duration::from_millis(config.max_wait_ms),
            )
            .with_parallel_runs(judge.config().parallelism),
            files,
            limits: JobeLimits {
                max_cputime_secs: config.max_cputime_secs,
                max_memory_mb: config.max_memory_mb,
            },
            gate: config.access.gate(),
            toolchains: Toolchains::default(),
        }))
    }
}
