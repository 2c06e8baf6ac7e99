//! The bare-vs-sandbox benchmark, shared by `benches/` and `judge sandbox --bench`.

use crate::{Sandbox, SandboxError, SandboxSpec, StdioSpec};
use serde::Serialize;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Median and 95th percentile of a series of wall times, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Percentiles {
    /// Median.
    pub median_us: u64,
    /// 95th percentile.
    pub p95_us: u64,
}

impl Percentiles {
    /// Computes the percentiles of `samples` (empty: zeros).
    pub fn of(samples: &mut [Duration]) -> Percentiles {
        if samples.is_empty() {
            return Percentiles {
                median_us: 0,
                p95_us: 0,
            };
        }
        samples.sort_unstable();
        let at = |q: f64| {
            let i = ((samples.len() - 1) as f64 * q).round() as usize;
            samples[i].as_micros() as u64
        };
        Percentiles {
            median_us: at(0.5),
            p95_us: at(0.95),
        }
    }
}

/// Result of [`benchmark`].
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Runs of each kind.
    pub runs: usize,
    /// Plain fork+exec+wait of the same command (no isolation).
    pub bare: Percentiles,
    /// The same command through [`Sandbox::run`].
    pub sandbox: Percentiles,
    /// sandbox median / bare median.
    pub ratio_median: f64,
    /// sandbox p95 / bare p95.
    pub ratio_p95: f64,
    /// The isolation the sandboxed runs had.
    pub isolation: crate::IsolationLevel,
}

fn host_stdio(spec: &SandboxSpec, s: &StdioSpec, write: bool) -> std::io::Result<Stdio> {
    match s {
        StdioSpec::Null => Ok(Stdio::null()),
        StdioSpec::File(p) => {
            let p = spec.box_dir.join(p);
            let f = if write {
                std::fs::File::create(p)?
            } else {
                std::fs::File::open(p)?
            };
            Ok(Stdio::from(f))
        }
    }
}

/// Runs `spec` `runs` times bare (fork+exec+wait on the host, same files, same argv) and
/// `runs` times through the sandbox, alternating, and reports wall-time percentiles.
pub fn benchmark(
    sandbox: &Sandbox,
    spec: &SandboxSpec,
    runs: usize,
) -> Result<BenchReport, SandboxError> {
    let program = if spec.program.is_relative() && spec.program.components().count() > 1 {
        spec.box_dir.join(&spec.program)
    } else {
        spec.program.clone()
    };
    let io = |e: std::io::Error| SandboxError::Io {
        op: "bare run",
        path: program.clone(),
        source: e,
    };
    let mut bare = Vec::with_capacity(runs);
    let mut boxed = Vec::with_capacity(runs);
    // Warm up both paths once.
    sandbox.run(spec)?;
    for _ in 0..runs {
        let t = Instant::now();
        let status = Command::new(&program)
            .args(&spec.args)
            .current_dir(&spec.box_dir)
            .env_clear()
            .env("PATH", crate::BOX_ENV_PATH)
            .stdin(host_stdio(spec, &spec.stdin, false).map_err(io)?)
            .stdout(host_stdio(spec, &spec.stdout, true).map_err(io)?)
            .stderr(host_stdio(spec, &spec.stderr, true).map_err(io)?)
            .status()
            .map_err(io)?;
        bare.push(t.elapsed());
        let _ = status;
        let t = Instant::now();
        sandbox.run(spec)?;
        boxed.push(t.elapsed());
    }
    let bare = Percentiles::of(&mut bare);
    let boxed = Percentiles::of(&mut boxed);
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    Ok(BenchReport {
        runs,
        ratio_median: ratio(boxed.median_us, bare.median_us),
        ratio_p95: ratio(boxed.p95_us, bare.p95_us),
        bare,
        sandbox: boxed,
        isolation: sandbox.isolation(),
    })
}

/// How far past a CPU limit (ms of CPU) and a wall limit (ms of wall) a busy program and a
/// sleeping one were stopped; `busy` spins forever, `sleeper` blocks forever.
pub fn limit_overshoot(
    sandbox: &Sandbox,
    box_dir: &Path,
    busy: &Path,
    sleeper: &Path,
    limit_ms: u64,
    runs: usize,
) -> Result<(Vec<i64>, Vec<i64>), SandboxError> {
    let mut cpu = Vec::new();
    let mut wall = Vec::new();
    for _ in 0..runs {
        let mut spec = SandboxSpec {
            program: busy.to_owned(),
            box_dir: box_dir.to_owned(),
            read_only_mounts: busy
                .parent()
                .map(|p| vec![p.to_owned()])
                .unwrap_or_default(),
            ..SandboxSpec::default()
        };
        spec.limits.cpu_time_ms = Some(limit_ms);
        let o = sandbox.run(&spec)?;
        cpu.push(o.cpu_time_ms as i64 - limit_ms as i64);
        spec.program = sleeper.to_owned();
        spec.limits.wall_time_ms = Some(limit_ms);
        let o = sandbox.run(&spec)?;
        wall.push(o.wall_time_ms as i64 - limit_ms as i64);
    }
    Ok((cpu, wall))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_the_median_and_p95() {
        let mut v: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        let p = Percentiles::of(&mut v);
        assert_eq!(p.median_us, 51);
        assert_eq!(p.p95_us, 95);
        assert_eq!(Percentiles::of(&mut []).median_us, 0);
    }
}
