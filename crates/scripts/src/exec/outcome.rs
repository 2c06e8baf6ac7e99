//! What a run on the seam gave, in verdict's words: how it ended, what it used, which limit
//! ended it and the evidence, and the seam's own error (docs/architecture.md, "The execution
//! seam"). Plain data: statuses are decided by `judge::classify`.

use serde::Serialize;

/// How a run ended and what it used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// Exit code or terminating signal of the main process.
    pub exit: ExitKind,
    /// CPU time (user+sys of all processes) in milliseconds.
    pub cpu_time_ms: u64,
    /// Wall-clock time in milliseconds.
    pub wall_time_ms: u64,
    /// Peak resident memory in KiB.
    pub peak_memory_kb: u64,
    /// Bytes the program wrote to its stdout and stderr files.
    pub output_bytes: u64,
    /// The limit that ended or spoiled the run, if any.
    pub limit_hit: Option<LimitHit>,
    /// What shows the limit was hit (e.g. `memory.oom_control oom_kill 1`), when one was.
    pub evidence: Option<String>,
    /// The isolation that was actually in force.
    pub isolation: IsolationLevel,
    /// At a wall-clock kill, how long the program's threads waited for a CPU, in ms (a program
    /// kept off the CPUs by the host's other work); absent otherwise or where unreadable.
    pub cpu_wait_ms: Option<u64>,
    /// The limits the box got lower than asked, and why (without root, clamped to the judge's
    /// own hard limits).
    pub rlimits_clamped: Vec<String>,
    /// When the program ended: orders the ends of runs that ran side by side.
    pub ended: Option<std::time::Instant>,
}

/// Exit of the main process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// Exited normally with this code.
    Exited(i32),
    /// Killed by this signal number.
    Signaled(i32),
}

/// A limit that was hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// CPU time over the limit.
    CpuTime,
    /// Wall clock over the limit.
    WallTime,
    /// Memory: an out-of-memory kill, or a peak over the limit.
    Memory,
    /// Output over the limit.
    Output,
    /// The process/thread limit refused a fork or clone.
    Processes,
}

/// The isolation in force for a run (its wire names are those of `GET /v1/health`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IsolationLevel {
    /// Namespaces, a private root and a cgroup v1 hierarchy.
    FullCgroupV1,
    /// Namespaces, a private root and a cgroup v2 hierarchy.
    FullCgroupV2,
    /// Without root: namespaces in the judge's user namespace, a delegated cgroup-v2 subtree,
    /// each box a subordinate uid of its own.
    RootlessCgroupV2,
    /// As `RootlessCgroupV2`, but every box runs as the one uid mapped.
    RootlessCgroupV2OneUid,
    /// Without root and without a delegated cgroup: namespaces, a private root and seccomp,
    /// with rlimits' accounting.
    RootlessNamespaces,
    /// rlimits and wait4 rusage only: no namespaces or cgroups were usable.
    RlimitOnly,
}

/// Why the environment could not run a command (never a verdict: a program that hit a limit
/// is an `Ok` outcome). The message is the environment's own, naming the path or stage.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// The environment failed to set up, start or watch the run.
    #[error(transparent)]
    Environment(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// This executor cannot do what was asked (a fake, or a host without the feature).
    #[error("this executor cannot {0}")]
    Unsupported(&'static str),
}
