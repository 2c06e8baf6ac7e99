//! Piston's side of the server below its routes (`piston.rs`): the `[piston]` section and the
//! service its routes share (the runner, the limits, the gate, the probed toolchains).

use super::gate::{ApiKey, Gate, default_category, loopback};
use crate::error::{ConfigError, keyed_values};
use serde::Deserialize;
use std::time::Duration;
use verdict_compat::ProgramRunner;
use verdict_compat::piston::PistonLimits;
use verdict_compat::toolchains::Toolchains;
use verdict_scheduler::Judge;

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
    pub fn check(&self) -> Result<(), ConfigError> {
        super::gate::check("piston", &self.keys, &self.networks)?;
        ConfigError::check_positive(
            "piston.",
            &keyed_values!(
                self =>
                max_wait_ms, builds, run_timeout, compile_timeout, run_cpu_time, compile_cpu_time,
                unlimited_memory_mb, output_max_size, max_process_count
            ),
            "must be at least 1 (every run is bounded)",
        )
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
    /// Runs the programs.
    pub runner: ProgramRunner,
    /// Piston's configured limits.
    pub limits: PistonLimits,
    /// Who is let in, and under which category.
    pub gate: Gate,
    /// The installed languages, probed once.
    pub toolchains: Toolchains,
}

impl Piston {
    /// The routes' state over `judge`, or `None` when they are off.
    pub fn new(config: &PistonConfig, judge: &Judge) -> Option<Self> {
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
