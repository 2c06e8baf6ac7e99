//! The bare-vs-sandbox benchmark, shared by `benches/` and `judge sandbox --bench` (the `bench`
//! feature: not part of the library's API).

use crate::{Sandbox, SandboxError, SandboxSpec, StdioSpec};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs this benchmark again, in its place, without the `LD_LIBRARY_PATH` that `cargo bench`
/// gives it; returns only when there is none.
///
/// Cargo puts its build dirs there (eight here), and every dynamically linked program the
/// benchmark starts would search them, and their `glibc-hwcaps` subdirectories, for each of its
/// libraries before the system's: the bare runs, bare `gcc` and its `cc1`/`as`/`ld`, isolate,
/// `python3`, `judge`. That made the floor rows slower than a user's own runs (a bare dynamic
/// A+B 1.1 ms of a core instead of 0.65-0.73), and every ratio against them look better than it
/// is. Sandboxed programs never saw it: a box starts with a cleared environment.
#[allow(clippy::print_stderr)] // a benchmark's own terminal is where this belongs
pub fn rerun_without_cargo_library_path() {
    if std::env::var_os("LD_LIBRARY_PATH").is_none() {
        return;
    }
    let rerun = std::env::current_exe().and_then(|exe| {
        Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env_remove("LD_LIBRARY_PATH")
            .status()
    });
    match rerun {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(err) => eprintln!(
            "bench: running again without LD_LIBRARY_PATH failed ({err}); the floor rows include its library search"
        ),
    }
}

/// How many runs of each kind `VERDICT_BENCH_RUNS` asks for, else `default`.
pub fn runs_wanted(default: usize) -> usize {
    std::env::var("VERDICT_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The C source of the benchmarks' A+B: two numbers on stdin, their sum on stdout.
pub const APLUSB_C: &str = "#include <stdio.h>\nint main(void){long long a,b;if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a+b);return 0;}\n";

/// Compiles the C `source` as `dir/name.c` with `gcc -O2 -static` into `dir/name`, returned.
pub fn compile_static_c(dir: &Path, name: &str, source: &str) -> std::io::Result<PathBuf> {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source)?;
    let out = dir.join(name);
    let status = Command::new("gcc")
        .args(["-O2", "-static", "-o"])
        .arg(&out)
        .arg(&c)
        .status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!("gcc {name}: {status}")));
    }
    Ok(out)
}

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
        StdioSpec::Pipe(end) => end
            .take()
            .map(Stdio::from)
            .ok_or_else(|| std::io::Error::other("the pipe end was taken already")),
    }
}

/// The program of `spec` as the host sees it (a relative path with a directory is in the box).
fn host_program(spec: &SandboxSpec) -> PathBuf {
    if spec.program.is_relative() && spec.program.components().count() > 1 {
        spec.box_dir.join(&spec.program)
    } else {
        spec.program.clone()
    }
}

/// One plain fork+exec+wait of `spec` on the host (same files, same argv, no isolation).
fn bare_run(spec: &SandboxSpec, program: &Path) -> Result<(), SandboxError> {
    let io = |e: std::io::Error| SandboxError::Io {
        op: "bare run",
        path: program.to_owned(),
        source: e,
    };
    Command::new(program)
        .args(&spec.args)
        .current_dir(&spec.box_dir)
        .env_clear()
        .env("PATH", crate::BOX_ENV_PATH)
        .stdin(host_stdio(spec, &spec.stdin, false).map_err(io)?)
        .stdout(host_stdio(spec, &spec.stdout, true).map_err(io)?)
        .stderr(host_stdio(spec, &spec.stderr, true).map_err(io)?)
        .status()
        .map_err(io)?;
    Ok(())
}

/// Runs `spec` `runs` times bare (fork+exec+wait on the host, same files, same argv) and
/// `runs` times through the sandbox, alternating, and reports wall-time percentiles.
pub fn benchmark(
    sandbox: &Sandbox,
    spec: &SandboxSpec,
    runs: usize,
) -> Result<BenchReport, SandboxError> {
    let program = host_program(spec);
    let mut bare = Vec::with_capacity(runs);
    let mut boxed = Vec::with_capacity(runs);
    // Warm up both paths once.
    sandbox.run(spec)?;
    for _ in 0..runs {
        let t = Instant::now();
        bare_run(spec, &program)?;
        bare.push(t.elapsed());
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

/// Busy time of the whole machine (every process and kernel thread), in jiffies.
fn machine_busy_jiffies() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let v: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let idle = v.get(3)? + v.get(4)?;
    Some(v.iter().take(8).sum::<u64>() - idle)
}

/// CPU the whole machine spends per run, in microseconds, bare and then sandboxed (`runs`
/// each): background threads and kernel workers included, which wall time hides on an idle
/// multi-core machine. Any other load on the machine is counted too. `None` without
/// `/proc/stat`.
pub fn machine_cpu_per_run(
    sandbox: &Sandbox,
    spec: &SandboxSpec,
    runs: usize,
) -> Result<Option<(u64, u64)>, SandboxError> {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let program = host_program(spec);
    let runs = runs.max(1);
    let mut per_run = [0; 2];
    for (i, bare) in [true, false].into_iter().enumerate() {
        let Some(before) = machine_busy_jiffies() else {
            return Ok(None);
        };
        for _ in 0..runs {
            if bare {
                bare_run(spec, &program)?;
            } else {
                sandbox.run(spec)?;
            }
        }
        // Let background work (cgroup removal, namespace teardown) finish inside the window.
        std::thread::sleep(Duration::from_millis(300));
        let Some(after) = machine_busy_jiffies() else {
            return Ok(None);
        };
        per_run[i] = after.saturating_sub(before) * 1_000_000 / hz / runs as u64;
    }
    Ok(Some((per_run[0], per_run[1])))
}

/// CPU time of this process (every thread) and of its reaped children, in nanoseconds.
fn own_tree_ns() -> u64 {
    let mut total = 0;
    for who in [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN] {
        // SAFETY: rusage is plain old data; getrusage writes it.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid out-pointer.
        unsafe { libc::getrusage(who, &mut ru) };
        let ns = |t: libc::timeval| {
            t.tv_sec.max(0) as u64 * 1_000_000_000 + t.tv_usec.max(0) as u64 * 1000
        };
        total += ns(ru.ru_utime) + ns(ru.ru_stime);
    }
    total
}

/// CPU time of every kernel thread (children of `kthreadd`), in nanoseconds, from each one's
/// `schedstat` (exact, unlike the clock ticks of `stat`).
fn kernel_threads_ns() -> u64 {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut total = 0;
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let ppid = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if pid != 2 && ppid != Some(2) {
            continue;
        }
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/schedstat")) {
            total += s
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    total
}

/// CPU per run in microseconds, bare and then sandboxed (`runs` each), of this process (every
/// thread), its children and the kernel's threads: what [`machine_cpu_per_run`] counts, less
/// the other processes of the machine, so that it can be compared on a shared, busy machine.
/// The sandboxed runs go through a sandbox of their own made with `config` and dropped before
/// the reading (its zygote's CPU, and that of every program it reaped, is counted when it is
/// reaped); what such a sandbox costs with no runs (its zygote's start, its drop: the pools'
/// leftovers, the network namespaces it made) is measured the same way and taken away.
/// Kernel threads' work for other processes (their writeback) is still counted.
pub fn tree_cpu_per_run(
    config: &crate::SandboxConfig,
    spec: &SandboxSpec,
    runs: usize,
) -> Result<(u64, u64), SandboxError> {
    let program = host_program(spec);
    let runs = runs.max(1);
    // Scanning `/proc` costs this process milliseconds: the first reading scans before it
    // reads its own CPU, the last one after, so that neither scan falls inside the window.
    let start = || {
        let k = kernel_threads_ns();
        k + own_tree_ns()
    };
    let end = || {
        let own = own_tree_ns();
        own + kernel_threads_ns()
    };
    let settle = || std::thread::sleep(Duration::from_millis(300));
    let before = start();
    for _ in 0..runs {
        bare_run(spec, &program)?;
    }
    settle();
    let bare = end().saturating_sub(before);
    let sandboxed = |n: usize| -> Result<u64, SandboxError> {
        let before = start();
        let sandbox = Sandbox::new(config.clone())?;
        sandbox.warm(1)?;
        for _ in 0..n {
            sandbox.run(spec)?;
        }
        drop(sandbox);
        settle();
        Ok(end().saturating_sub(before))
    };
    let fixed = sandboxed(0)?;
    let boxed = sandboxed(runs)?.saturating_sub(fixed);
    let per_run = |ns: u64| ns / runs as u64 / 1000;
    Ok((per_run(bare), per_run(boxed)))
}

/// Wall time per run (µs) when `specs.len()` threads each run their spec `runs` times at once,
/// bare and then through the sandbox: `(bare, sandboxed)`. Each spec needs its own box dir.
/// Beside [`benchmark`]'s one-at-a-time figure it shows what a judge running tests on every core
/// pays, where the machine's CPU per run (see [`machine_cpu_per_run`]) is the limit.
pub fn side_by_side(
    sandbox: &Sandbox,
    specs: &[SandboxSpec],
    runs: usize,
) -> Result<(u64, u64), SandboxError> {
    let total = (runs.max(1) * specs.len().max(1)) as u64;
    let mut per_run = [0; 2];
    for (i, bare) in [true, false].into_iter().enumerate() {
        let started = Instant::now();
        std::thread::scope(|scope| {
            let threads: Vec<_> = specs
                .iter()
                .map(|spec| {
                    scope.spawn(move || -> Result<(), SandboxError> {
                        let program = host_program(spec);
                        for _ in 0..runs {
                            if bare {
                                bare_run(spec, &program)?;
                            } else {
                                sandbox.run(spec)?;
                            }
                        }
                        Ok(())
                    })
                })
                .collect();
            threads.into_iter().try_for_each(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        })?;
        per_run[i] = started.elapsed().as_micros() as u64 / total;
    }
    Ok((per_run[0], per_run[1]))
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
