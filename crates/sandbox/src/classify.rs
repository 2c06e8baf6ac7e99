//! Turns what the supervisor saw into a [`SandboxOutcome`]: exit, costs, the limit hit and its
//! evidence. Pure, so every rule is unit-tested.

use crate::cgroup::Readings;
use crate::{ExitKind, IsolationLevel, LimitHit, SandboxOutcome};

/// Everything known about a finished run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// Wait status of the main program (None: it never reported, e.g. killed with the box).
    pub status: Option<i32>,
    /// The supervisor killed the box for this limit.
    pub killed_for: Option<LimitHit>,
    pub wall_ms: u64,
    /// user+sys of everything the box's zygote or init reaped (wait4).
    pub rusage_cpu_ms: u64,
    /// ru_maxrss in KiB.
    pub rusage_maxrss_kb: u64,
    pub readings: Option<Readings>,
    pub output_bytes: u64,
    pub output_cap: u64,
    /// A file of the box (relative path, size) that grew past the output cap during the run.
    pub capped_file: Option<(std::path::PathBuf, u64)>,
    pub cpu_limit_ms: Option<u64>,
    pub wall_limit_ms: u64,
    pub memory_limit_kb: Option<u64>,
    /// What the cgroup allowed beyond the memory limit for file pages (tmpfs box dirs).
    pub memory_headroom_kb: u64,
    pub isolation: Option<IsolationLevel>,
    /// When the program ended (see [`SandboxOutcome::ended`]).
    pub ended: Option<std::time::Instant>,
    /// At a wall-clock kill, how long its threads had waited for a CPU, in ns.
    pub cpu_wait_ns: Option<u64>,
}

fn exit_of(status: Option<i32>) -> ExitKind {
    match status {
        Some(s) if libc::WIFEXITED(s) => ExitKind::Exited(libc::WEXITSTATUS(s)),
        Some(s) if libc::WIFSIGNALED(s) => ExitKind::Signaled(libc::WTERMSIG(s)),
        _ => ExitKind::Signaled(libc::SIGKILL),
    }
}

/// The program's own peak memory in KiB (design #24): the cgroup's peak, less the file pages
/// (page cache of what it wrote, tmpfs files) still charged at the end, but never less than
/// the largest process's peak RSS (which holds no page cache of written files). Without a
/// cgroup, that RSS.
fn own_memory_kb(f: &Facts) -> u64 {
    match f.readings {
        Some(r) if r.peak_bytes > 0 => {
            let peak = r.peak_bytes / 1024;
            if peak <= f.rusage_maxrss_kb {
                peak
            } else {
                f.rusage_maxrss_kb
                    .max(r.peak_bytes.saturating_sub(r.file_bytes) / 1024)
            }
        }
        _ => f.rusage_maxrss_kb,
    }
}

/// Classifies a finished run.
pub(crate) fn classify(f: &Facts) -> SandboxOutcome {
    let exit = exit_of(f.status);
    let cpu_time_ms = f.readings.map_or(f.rusage_cpu_ms, |r| r.cpu_ns / 1_000_000);
    let peak_memory_kb = own_memory_kb(f);
    // With headroom, an OOM kill whose own memory stayed under the limit was the files it
    // wrote filling the headroom: output, not memory. The files must have taken at least half
    // the headroom and 1 MiB: with a headroom of a few pages, a program stopped at its own
    // limit shows an own memory a few pages under it (its binary's page cache is file pages).
    let file_kb = f.readings.map_or(0, |r| r.file_bytes / 1024);
    let files_filled_memory = f.memory_headroom_kb > 0
        && file_kb >= (f.memory_headroom_kb / 2).max(1024)
        && f.memory_limit_kb.is_some_and(|l| peak_memory_kb <= l);
    let oom = f.readings.map_or(0, |r| r.oom_kills);
    let pids = f.readings.map_or(0, |r| r.pids_max_events);
    let (limit_hit, evidence) = if let Some(hit) = f.killed_for {
        let ev = match hit {
            LimitHit::Memory => format!(
                "own memory (cgroup usage less file pages) passed the limit of {} KiB; killed",
                f.memory_limit_kb.unwrap_or(0)
            ),
            LimitHit::CpuTime => format!(
                "cpu time {cpu_time_ms} ms reached the limit of {} ms; killed",
                f.cpu_limit_ms.unwrap_or(0)
            ),
            _ => format!(
                "wall clock {} ms reached the limit of {} ms; killed",
                f.wall_ms, f.wall_limit_ms
            ),
        };
        (Some(hit), Some(ev))
    } else if oom > 0 && files_filled_memory {
        (
            Some(LimitHit::Output),
            Some(format!(
                "cgroup oom_kill counter is {oom} with the program's own memory at \
                 {peak_memory_kb} KiB: files it wrote filled the {} KiB allowed for them",
                f.memory_headroom_kb
            )),
        )
    } else if oom > 0 {
        (
            Some(LimitHit::Memory),
            Some(format!("cgroup oom_kill counter is {oom}")),
        )
    } else if exit == ExitKind::Signaled(libc::SIGXFSZ) {
        (
            Some(LimitHit::Output),
            Some(format!(
                "SIGXFSZ at the output limit of {} bytes",
                f.output_cap
            )),
        )
    } else if f.output_bytes > f.output_cap {
        (
            Some(LimitHit::Output),
            Some(format!(
                "{} bytes written, over the output limit of {} bytes",
                f.output_bytes, f.output_cap
            )),
        )
    } else if let Some((file, len)) = &f.capped_file {
        (
            Some(LimitHit::Output),
            Some(format!(
                "{} reached {len} bytes, over the output limit of {} bytes (its write failed)",
                file.display(),
                f.output_cap
            )),
        )
    } else if exit == ExitKind::Signaled(libc::SIGXCPU) {
        (
            Some(LimitHit::CpuTime),
            Some("SIGXCPU from RLIMIT_CPU".to_string()),
        )
    } else if f.cpu_limit_ms.is_some_and(|l| cpu_time_ms > l) {
        (
            Some(LimitHit::CpuTime),
            Some(format!(
                "cpu time {cpu_time_ms} ms over the limit of {} ms",
                f.cpu_limit_ms.unwrap_or(0)
            )),
        )
    } else if f.memory_limit_kb.is_some_and(|l| peak_memory_kb > l) {
        (
            Some(LimitHit::Memory),
            Some(format!(
                "own peak memory {peak_memory_kb} KiB over the limit of {} KiB",
                f.memory_limit_kb.unwrap_or(0)
            )),
        )
    } else if pids > 0 {
        (
            Some(LimitHit::Processes),
            Some(format!(
                "pids.events max is {pids}: a fork or clone was refused"
            )),
        )
    } else {
        (None, None)
    };
    SandboxOutcome {
        exit,
        cpu_time_ms,
        wall_time_ms: f.wall_ms,
        peak_memory_kb,
        output_bytes: f.output_bytes,
        limit_hit,
        evidence,
        isolation: f.isolation.unwrap_or(IsolationLevel::RlimitOnly),
        cpu_wait_ms: match f.killed_for {
            Some(LimitHit::WallTime) => f.cpu_wait_ns.map(|ns| ns / 1_000_000),
            _ => None,
        },
        rlimits_clamped: Vec::new(),
        ended: f.ended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(code: i32) -> Option<i32> {
        Some(code << 8)
    }

    fn base() -> Facts {
        Facts {
            status: exited(0),
            output_cap: 1000,
            wall_limit_ms: 3000,
            readings: Some(Readings::default()),
            ..Facts::default()
        }
    }

    #[test]
    fn clean_exit_has_no_limit() {
        let o = classify(&base());
        assert_eq!(o.exit, ExitKind::Exited(0));
        assert_eq!(o.limit_hit, None);
        assert_eq!(o.evidence, None);
    }

    #[test]
    fn oom_counter_is_memory_even_though_the_signal_is_sigkill() {
        let mut f = base();
        f.status = Some(libc::SIGKILL);
        f.readings = Some(Readings {
            oom_kills: 1,
            peak_bytes: 64 << 20,
            ..Readings::default()
        });
        let o = classify(&f);
        assert_eq!(o.exit, ExitKind::Signaled(libc::SIGKILL));
        assert_eq!(o.limit_hit, Some(LimitHit::Memory));
        assert_eq!(o.peak_memory_kb, 65536);
    }

    #[test]
    fn a_sigkill_without_oom_evidence_is_not_memory() {
        let mut f = base();
        f.status = Some(libc::SIGKILL);
        assert_eq!(classify(&f).limit_hit, None);
    }

    #[test]
    fn output_by_sigxfsz_or_by_size() {
        let mut f = base();
        f.status = Some(libc::SIGXFSZ);
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::Output));
        let mut f = base();
        f.status = exited(1);
        f.output_bytes = 1001;
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::Output));
        f.output_bytes = 1000;
        assert_eq!(classify(&f).limit_hit, None);
    }

    #[test]
    fn a_file_that_reached_the_cap_is_output_whatever_the_exit() {
        let mut f = base();
        f.status = exited(0);
        f.capped_file = Some(("big.bin".into(), 1001));
        let o = classify(&f);
        assert_eq!(o.limit_hit, Some(LimitHit::Output));
        assert!(o.evidence.is_some_and(|e| e.contains("big.bin")));
    }

    #[test]
    fn supervisor_kills_come_first() {
        let mut f = base();
        f.status = None;
        f.killed_for = Some(LimitHit::WallTime);
        let o = classify(&f);
        assert_eq!(o.limit_hit, Some(LimitHit::WallTime));
        assert_eq!(o.exit, ExitKind::Signaled(libc::SIGKILL));
    }

    #[test]
    fn cpu_over_limit_after_exit_counts() {
        let mut f = base();
        f.cpu_limit_ms = Some(100);
        f.readings = Some(Readings {
            cpu_ns: 150_000_000,
            ..Readings::default()
        });
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::CpuTime));
        assert_eq!(classify(&f).cpu_time_ms, 150);
    }

    #[test]
    fn rlimit_only_uses_rusage() {
        let mut f = base();
        f.readings = None;
        f.rusage_cpu_ms = 42;
        f.rusage_maxrss_kb = 2048;
        f.memory_limit_kb = Some(1024);
        let o = classify(&f);
        assert_eq!(o.cpu_time_ms, 42);
        assert_eq!(o.peak_memory_kb, 2048);
        assert_eq!(o.limit_hit, Some(LimitHit::Memory));
        assert_eq!(o.isolation, IsolationLevel::RlimitOnly);
    }

    #[test]
    fn file_pages_still_charged_are_not_own_memory() {
        let mut f = base();
        f.rusage_maxrss_kb = 1200;
        f.memory_limit_kb = Some(65536);
        f.readings = Some(Readings {
            peak_bytes: 64 << 20,
            file_bytes: 63 << 20,
            ..Readings::default()
        });
        let o = classify(&f);
        assert_eq!(o.peak_memory_kb, 1200);
        assert_eq!(o.limit_hit, None);
        // A peak under the largest RSS is taken as it is.
        f.rusage_maxrss_kb = 70_000;
        assert_eq!(classify(&f).peak_memory_kb, 65536);
    }

    #[test]
    fn an_oom_with_own_memory_under_the_limit_is_output_only_with_headroom() {
        let mut f = base();
        f.status = Some(libc::SIGKILL);
        f.rusage_maxrss_kb = 1200;
        f.memory_limit_kb = Some(65536);
        f.readings = Some(Readings {
            oom_kills: 1,
            peak_bytes: 320 << 20,
            file_bytes: 318 << 20,
            ..Readings::default()
        });
        f.memory_headroom_kb = 256 << 10;
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::Output));
        // Without headroom an OOM kill is the memory limit, as the cgroup says.
        f.memory_headroom_kb = 0;
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::Memory));
    }

    #[test]
    fn an_oom_just_under_the_limit_with_nothing_written_is_memory_not_output() {
        // A 4 KiB headroom, nothing written: the kernel stopped the program a page under its
        // own limit (seen in the cgroup-v2 guest).
        let mut f = base();
        f.status = Some(libc::SIGKILL);
        f.rusage_maxrss_kb = 0;
        f.memory_limit_kb = Some(65536);
        f.memory_headroom_kb = 4;
        f.readings = Some(Readings {
            oom_kills: 1,
            peak_bytes: 65540 << 10,
            file_bytes: 8 << 10,
            ..Readings::default()
        });
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::Memory));
    }

    #[test]
    fn refused_forks_are_a_process_limit() {
        let mut f = base();
        f.status = exited(1);
        f.readings = Some(Readings {
            pids_max_events: 3,
            ..Readings::default()
        });
        assert_eq!(classify(&f).limit_hit, Some(LimitHit::Processes));
    }
}
