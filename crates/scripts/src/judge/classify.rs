//! From a sandbox outcome to a judge status, in one documented precedence:
//! Time Limit Exceeded > Memory Limit Exceeded > Output Limit Exceeded >
//! Segmentation Fault / Floating Point Error / Runtime Error > (the comparison decides).
//! System Error is not decided here: it is the judge failing, an `Err` elsewhere.

use super::run::RunLimits;
use crate::exec::{ExitKind, IsolationLevel, LimitHit, RunOutcome};
use verdict_contracts::JudgeStatus;

const SIGSEGV: i32 = 11;
const SIGBUS: i32 = 7;
const SIGFPE: i32 = 8;
const SIGXCPU: i32 = 24;
const SIGXFSZ: i32 = 25;

/// A run that did not end well: its status and a short reason for `error_log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    /// The status.
    pub status: JudgeStatus,
    /// Why, in a few words.
    pub reason: String,
}

/// The status of a finished run, or `None` when it exited 0 within its limits.
///
/// `memory_error_patterns` are texts that, found in stderr, mean a managed runtime ran out
/// of its heap (a Java `OutOfMemoryError` is Memory Limit Exceeded, not Runtime Error).
pub fn classify_run(
    outcome: &RunOutcome,
    limits: &RunLimits,
    stderr_tail: &str,
    memory_error_patterns: &[String],
) -> Option<RunFailure> {
    let fail = |status, reason: String| Some(RunFailure { status, reason });
    let signal = match outcome.exit {
        ExitKind::Signaled(s) => Some(s),
        ExitKind::Exited(_) => None,
    };
    let over_time = outcome.cpu_time_ms > limits.time_ms;
    match outcome.limit_hit {
        Some(LimitHit::CpuTime) => {
            return fail(
                JudgeStatus::TimeLimitExceeded,
                format!("CPU time over {} ms", limits.time_ms),
            );
        }
        Some(LimitHit::WallTime) => {
            return fail(
                JudgeStatus::TimeLimitExceeded,
                format!(
                    "wall time over {} ms (the program was waiting, not computing)",
                    limits.wall_ms
                ),
            );
        }
        _ if over_time || signal == Some(SIGXCPU) => {
            return fail(
                JudgeStatus::TimeLimitExceeded,
                format!(
                    "CPU time {} ms over {} ms",
                    outcome.cpu_time_ms, limits.time_ms
                ),
            );
        }
        _ => {}
    }
    let over_memory = limits.memory_kb.is_some_and(|m| outcome.peak_memory_kb > m);
    let runtime_oom = !matches!(outcome.exit, ExitKind::Exited(0))
        && memory_error_patterns
            .iter()
            .any(|p| !p.is_empty() && stderr_tail.contains(p.as_str()));
    if outcome.limit_hit == Some(LimitHit::Memory) || over_memory || runtime_oom {
        let reason = match limits.memory_kb {
            Some(m) => format!("memory over {m} KB{}", measured_memory(outcome)),
            None => "the runtime ran out of memory".to_owned(),
        };
        return fail(JudgeStatus::MemoryLimitExceeded, reason);
    }
    if outcome.limit_hit == Some(LimitHit::Output) || signal == Some(SIGXFSZ) {
        let reason = match limits.output_kb {
            Some(kb) => format!("output over {kb} KB"),
            None => "output over the judge's global cap".to_owned(),
        };
        return fail(JudgeStatus::OutputLimitExceeded, reason);
    }
    match outcome.exit {
        ExitKind::Signaled(SIGSEGV | SIGBUS) => fail(
            JudgeStatus::SegmentationFault,
            format!("killed by signal {}", signal_name(signal)),
        ),
        ExitKind::Signaled(SIGFPE) => fail(
            JudgeStatus::FloatingPointError,
            "killed by signal SIGFPE".to_owned(),
        ),
        ExitKind::Signaled(_) => fail(
            JudgeStatus::RuntimeError,
            format!("killed by signal {}", signal_name(signal)),
        ),
        ExitKind::Exited(0) => None,
        ExitKind::Exited(code) => {
            let mut reason = format!("exited with code {code}");
            if outcome.limit_hit == Some(LimitHit::Processes) {
                reason.push_str(" (the process limit refused a new process or thread)");
            }
            fail(JudgeStatus::RuntimeError, reason)
        }
    }
}

/// Whether a run stopped by its wall clock was kept off the CPUs by the host's other work rather
/// than waiting on its own: its CPU time stayed under its limit and its threads waited for a
/// CPU (runnable, not running) at least a quarter of its wall time. Such a Time Limit Exceeded
/// says nothing of the program (docs/sandbox.md, Wall time).
pub fn starved_by_host(outcome: &RunOutcome, limits: &RunLimits) -> bool {
    outcome.limit_hit == Some(LimitHit::WallTime)
        && outcome.cpu_time_ms < limits.time_ms
        && outcome
            .cpu_wait_ms
            .is_some_and(|wait| wait.saturating_mul(4) >= outcome.wall_time_ms)
}

/// A signal's name for logs (`SIGSEGV`), or its number.
pub fn signal_name(signal: Option<i32>) -> String {
    let name = match signal {
        Some(1) => "SIGHUP",
        Some(2) => "SIGINT",
        Some(3) => "SIGQUIT",
        Some(4) => "SIGILL",
        Some(5) => "SIGTRAP",
        Some(6) => "SIGABRT",
        Some(SIGBUS) => "SIGBUS",
        Some(SIGFPE) => "SIGFPE",
        Some(9) => "SIGKILL",
        Some(SIGSEGV) => "SIGSEGV",
        Some(13) => "SIGPIPE",
        Some(14) => "SIGALRM",
        Some(15) => "SIGTERM",
        Some(SIGXCPU) => "SIGXCPU",
        Some(SIGXFSZ) => "SIGXFSZ",
        Some(31) => "SIGSYS",
        Some(other) => return other.to_string(),
        None => return "none".to_owned(),
    };
    name.to_owned()
}

/// What the peak memory of a run is and how it was measured, for a Memory Limit Exceeded's log:
/// a cgroup counts and stops the box's memory as it runs; without one (a rootless host with no
/// delegated cgroup, or rlimits only) it is the largest resident size of its processes read when
/// they end, so a program may go past the limit before it is judged over it
/// (docs/sandbox.md, "Without root").
fn measured_memory(outcome: &RunOutcome) -> String {
    let peak = outcome.peak_memory_kb;
    if peak == 0 {
        return String::new();
    }
    match outcome.isolation {
        IsolationLevel::RootlessNamespaces | IsolationLevel::RlimitOnly => format!(
            ": its peak resident memory was {peak} KB (the largest ru_maxrss of its processes: \
             without a cgroup the limit is checked when the run ends, not enforced while it runs)"
        ),
        _ => format!(": its peak was {peak} KB (as its cgroup counted it)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(exit: ExitKind, limit_hit: Option<LimitHit>, cpu: u64, mem: u64) -> RunOutcome {
        RunOutcome {
            exit,
            cpu_time_ms: cpu,
            wall_time_ms: cpu,
            peak_memory_kb: mem,
            output_bytes: 0,
            limit_hit,
            isolation: IsolationLevel::RlimitOnly,
            cpu_wait_ms: None,
            rlimits_clamped: Vec::new(),
            ended: None,
            evidence: None,
        }
    }

    fn limits() -> RunLimits {
        RunLimits {
            time_ms: 1000,
            memory_kb: Some(65536),
            output_kb: Some(1024),
            ..RunLimits::default()
        }
    }

    #[test]
    fn a_memory_limit_says_what_was_measured_and_how() {
        let o = outcome(ExitKind::Exited(0), None, 10, 263_577);
        let reason = classify_run(&o, &limits(), "", &[])
            .expect("a failure")
            .reason;
        assert!(
            reason.starts_with("memory over 65536 KB: its peak resident memory was 263577 KB")
                && reason.contains("without a cgroup the limit is checked when the run ends"),
            "{reason}"
        );
        let mut o = outcome(ExitKind::Signaled(9), Some(LimitHit::Memory), 10, 65_600);
        o.isolation = IsolationLevel::FullCgroupV2;
        let reason = classify_run(&o, &limits(), "", &[])
            .expect("a failure")
            .reason;
        assert_eq!(
            reason,
            "memory over 65536 KB: its peak was 65600 KB (as its cgroup counted it)"
        );
    }

    fn status(o: &RunOutcome, stderr: &str) -> Option<JudgeStatus> {
        classify_run(
            o,
            &limits(),
            stderr,
            &["java.lang.OutOfMemoryError".to_owned()],
        )
        .map(|f| f.status)
    }

    #[test]
    fn a_clean_exit_is_left_to_the_comparison() {
        assert_eq!(
            status(&outcome(ExitKind::Exited(0), None, 10, 100), ""),
            None
        );
    }

    #[test]
    fn time_beats_memory_and_output() {
        let o = outcome(
            ExitKind::Signaled(9),
            Some(LimitHit::CpuTime),
            1010,
            1 << 20,
        );
        assert_eq!(status(&o, ""), Some(JudgeStatus::TimeLimitExceeded));
        let o = outcome(ExitKind::Exited(0), None, 1001, 10);
        assert_eq!(status(&o, ""), Some(JudgeStatus::TimeLimitExceeded));
    }

    #[test]
    fn memory_is_decided_by_evidence_not_by_sigkill() {
        let o = outcome(ExitKind::Signaled(9), Some(LimitHit::Memory), 10, 70000);
        assert_eq!(status(&o, ""), Some(JudgeStatus::MemoryLimitExceeded));
        let o = outcome(ExitKind::Signaled(9), None, 10, 1000);
        assert_eq!(status(&o, ""), Some(JudgeStatus::RuntimeError));
    }

    #[test]
    fn a_runtime_out_of_memory_error_is_memory_limit_exceeded() {
        let o = outcome(ExitKind::Exited(1), None, 10, 1000);
        assert_eq!(
            status(
                &o,
                "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space"
            ),
            Some(JudgeStatus::MemoryLimitExceeded)
        );
    }

    #[test]
    fn output_limit_is_not_a_runtime_error() {
        let o = outcome(ExitKind::Signaled(SIGXFSZ), None, 10, 1000);
        assert_eq!(status(&o, ""), Some(JudgeStatus::OutputLimitExceeded));
    }

    #[test]
    fn signals_map_to_their_statuses() {
        assert_eq!(
            status(&outcome(ExitKind::Signaled(SIGSEGV), None, 1, 1), ""),
            Some(JudgeStatus::SegmentationFault)
        );
        assert_eq!(
            status(&outcome(ExitKind::Signaled(SIGBUS), None, 1, 1), ""),
            Some(JudgeStatus::SegmentationFault)
        );
        assert_eq!(
            status(&outcome(ExitKind::Signaled(SIGFPE), None, 1, 1), ""),
            Some(JudgeStatus::FloatingPointError)
        );
        assert_eq!(
            status(&outcome(ExitKind::Signaled(6), None, 1, 1), ""),
            Some(JudgeStatus::RuntimeError)
        );
        assert_eq!(
            status(&outcome(ExitKind::Exited(3), None, 1, 1), ""),
            Some(JudgeStatus::RuntimeError)
        );
    }
}
