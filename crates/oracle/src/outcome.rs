//! What a run's outcome means for a case, before anything is compared.

use verdict_contracts::oracle::OracleCaseStatus;
use verdict_scripts::{ExitKind, LimitHit, RunOutcome};

/// `Some((timeout | error, message))` when the run hit a limit or was killed by a signal;
/// `None` when it exited by itself and its results can be judged.
pub(crate) fn abnormal(outcome: &RunOutcome) -> Option<(OracleCaseStatus, String)> {
    if let Some(hit) = outcome.limit_hit {
        return Some(match hit {
            LimitHit::WallTime | LimitHit::CpuTime => (
                OracleCaseStatus::Timeout,
                format!(
                    "ran out of time (stopped after {} ms wall, {} ms cpu)",
                    outcome.wall_time_ms, outcome.cpu_time_ms
                ),
            ),
            LimitHit::Memory => (
                OracleCaseStatus::Error,
                format!(
                    "memory limit exceeded (peak {} KiB)",
                    outcome.peak_memory_kb
                ),
            ),
            LimitHit::Output => (OracleCaseStatus::Error, "output limit exceeded".into()),
            LimitHit::Processes => (OracleCaseStatus::Error, "process limit exceeded".into()),
        });
    }
    match outcome.exit {
        ExitKind::Signaled(signal) => Some((
            OracleCaseStatus::Error,
            format!("killed by signal {}", signal_name(signal)),
        )),
        ExitKind::Exited(_) => None,
    }
}

/// `SIGSEGV` and friends by name, else the number.
pub(crate) fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => return format!("{signal}"),
    };
    name.to_owned()
}
