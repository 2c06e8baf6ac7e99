//! Piston's side of the server below its routes (`piston.rs`): the `[piston]` section and the
//! service its routes share (the runner, the limits, the gate, the probed toolchains).

use super::gate::{ApiAccess, Gate};
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
    /// Who may call: keys sent as `Authorization: <key>`, or networks (loopback by default).
    #[serde(flatten)]
    pub access: ApiAccess,
    /// How long a call waits for a run slot before `429` with `Retry-After`, in ms.
    pub max_wait_ms: u64,
    /// Builds kept for identical sources.
    pub builds: usize,
    /// Piston's settings, at the section's top level (`run_timeout`, `output_max_size`, ...):
    /// each is a request field's default and its most.
    #[serde(flatten)]
    pub limits: PistonLimits,
}

impl Default for PistonConfig {
    fn default() -> Self {
        PistonConfig {
            access: ApiAccess::default(),
            max_wait_ms: 30_000,
            builds: verdict_compat::program::DEFAULT_BUILDS_KEPT,
            limits: PistonLimits::default(),
        }
    }
}

impl PistonConfig {
    /// Checks what serde cannot: keys, networks, limits that bound every run.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.access.check("piston")?;
        let bounded = "must be at least 1 (every run is bounded)";
        ConfigError::check_positive(
            "piston.",
            &keyed_values!(self => max_wait_ms, builds),
            bounded,
        )?;
        // Piston's settings stand at the section's top level: their keys are `piston.<name>`.
        ConfigError::check_positive(
            "piston.",
            &keyed_values!(
                self.limits =>
                run_timeout, compile_timeout, run_cpu_time, compile_cpu_time, unlimited_memory_mb,
                output_max_size, max_process_count
            ),
            bounded,
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ServerConfig;

    #[test]
    fn pistons_settings_are_read_at_the_sections_top_level_and_unknown_keys_refused_by_name() {
        let config = ServerConfig::from_toml("[piston]\nrun_timeout = 5000\nmax_wait_ms = 7\n")
            .expect("read");
        assert_eq!(config.piston.limits.run_timeout, 5000);
        assert_eq!(config.piston.max_wait_ms, 7);
        let error = ServerConfig::from_toml("[piston]\nrun_timeot = 5000\n")
            .expect_err("refused")
            .to_string();
        assert!(error.contains("run_timeot"), "{error}");
        let error = ServerConfig::from_toml("[piston]\noutput_max_size = 0\n")
            .expect_err("refused")
            .to_string();
        assert!(error.contains("piston.output_max_size"), "{error}");
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
        config.access.enabled.then(|| Piston {
            runner: ProgramRunner::new(
                judge.clone(),
                config.builds,
                Duration::from_millis(config.max_wait_ms),
            ),
            limits: config.limits.clone(),
            gate: config.access.gate(),
            toolchains: Toolchains::default(),
        })
    }
}
