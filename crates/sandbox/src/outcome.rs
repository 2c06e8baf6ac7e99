//! What happened and what it cost: plain data; judge statuses are decided elsewhere.

use serde::Serialize;

/// How a run ended and what it used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SandboxOutcome {
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
    /// The limit that ended or spoiled the run, if any, with its evidence.
    pub limit_hit: Option<LimitHit>,
    /// What shows the limit was hit (e.g. `memory.oom_control oom_kill 1`), when one was.
    pub evidence: Option<String>,
    /// The isolation that was actually in force.
    pub isolation: IsolationLevel,
    /// At a wall-clock kill, how long the program's threads had waited for a CPU (runnable,
    /// not running), in ms: a program kept off the CPUs by the host's other work, not one
    /// that slept or blocked. Absent otherwise, or where it cannot be read (no cgroup).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_wait_ms: Option<u64>,
    /// The limits the box got lower than asked, and why: without root a limit above the
    /// judge's own hard limit is clamped to it (e.g. `RLIMIT_NOFILE 4096 clamped to the
    /// judge's hard limit 1024`). Absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rlimits_clamped: Vec<String>,
    /// When the program ended (its exit as its zygote saw it, or when it was killed): orders
    /// the ends of runs that ran side by side (a program and its interactor). Not serialised.
    #[serde(skip)]
    pub ended: Option<std::time::Instant>,
}

/// Exit of the main process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitKind {
    /// Exited normally with this code.
    Exited(i32),
    /// Killed by this signal number.
    Signaled(i32),
}

/// A limit that was hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitHit {
    /// CPU time over the limit (cgroup/rusage reading or SIGXCPU).
    CpuTime,
    /// Wall clock over the limit.
    WallTime,
    /// Memory: an OOM kill counted by the cgroup, or a peak over the limit.
    Memory,
    /// Output: SIGXFSZ / EFBIG or the sandbox's own output cap.
    Output,
    /// The process/thread limit refused a fork or clone.
    Processes,
}

/// The isolation that was in force for a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IsolationLevel {
    /// Namespaces, a private root and a cgroup v1 hierarchy.
    FullCgroupV1,
    /// Namespaces, a private root and a cgroup v2 hierarchy.
    FullCgroupV2,
    /// Without root: the namespaces inside a user namespace of the judge's own, a private
    /// root and a delegated cgroup-v2 subtree; each box a subordinate uid of its own.
    RootlessCgroupV2,
    /// As [`IsolationLevel::RootlessCgroupV2`], but every box runs as the one uid mapped (the
    /// judge's own: no `newuidmap` or `/etc/subuid` range), apart only by namespaces.
    RootlessCgroupV2OneUid,
    /// Without root and without a delegated cgroup (or on a cgroup-v1 host): the namespaces
    /// inside the judge's user namespace, a private read-only root and seccomp, as
    /// [`IsolationLevel::RootlessCgroupV2`] has, with the accounting and limits of
    /// [`IsolationLevel::RlimitOnly`] (rlimits and the box's `wait4` rusage).
    RootlessNamespaces,
    /// rlimits and wait4 rusage only: no namespaces or cgroups were usable.
    RlimitOnly,
}
