//! What to run and under which limits: plain data, built by the caller.

use std::ffi::OsString;
use std::path::PathBuf;

/// One command to run in the sandbox.
#[derive(Debug, Clone, Default)]
pub struct SandboxSpec {
    /// The program: an absolute path, or a name looked up in the sandbox's `PATH`.
    pub program: PathBuf,
    /// Arguments after `argv[0]`.
    pub args: Vec<OsString>,
    /// Variables added to the cleared environment (PATH, HOME, LANG, ONLINE_JUDGE=1 are set by the sandbox).
    pub env: Vec<(String, String)>,
    /// The writable box directory on the host; the program's working directory.
    pub box_dir: PathBuf,
    /// Where the program's standard input comes from.
    pub stdin: StdioSpec,
    /// Where the program's standard output goes.
    pub stdout: StdioSpec,
    /// Where the program's standard error goes.
    pub stderr: StdioSpec,
    /// The limits of this run.
    pub limits: SandboxLimits,
    /// Extra host directories made visible read-only (at the same path) besides the toolchain dirs.
    pub read_only_mounts: Vec<PathBuf>,
    /// Extra host directories made visible writable (at the same path); use sparingly (e.g. a compiler cache).
    pub writable_mounts: Vec<PathBuf>,
    /// A pipe's read end the caller keeps the write end of: when it becomes readable or every
    /// write end is closed, the box is killed at once (an interactive test's program after its
    /// interactor rejected it), as on a limit but with no limit named. Not taken by the run.
    pub stop: Option<crate::PipeEnd>,
    /// The switch that kills the box at once when cancelled (its submission was cancelled,
    /// its caller went away), as on a limit but with no limit named; `None`: only its limits
    /// and `stop` end it.
    pub cancel: Option<crate::Cancel>,
}

/// A standard stream of the sandboxed program.
#[derive(Debug, Clone, Default)]
pub enum StdioSpec {
    /// `/dev/null`.
    #[default]
    Null,
    /// A host file: read for stdin; created/truncated for stdout and stderr (bounded by the output limit).
    File(PathBuf),
    /// One end of a pipe, taken by the run (see [`crate::PipeEnd`]): what the program writes
    /// there is not counted against its output limit (the reader bounds it).
    Pipe(crate::PipeEnd),
}

/// Limits of one run; `None` means not limited by this field (the sandbox's global caps still apply).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxLimits {
    /// CPU time (user+sys of every process) in milliseconds.
    pub cpu_time_ms: Option<u64>,
    /// Wall-clock time in milliseconds.
    pub wall_time_ms: Option<u64>,
    /// Resident memory in KiB (cgroup limit; never an address-space limit).
    pub memory_kb: Option<u64>,
    /// Bytes written to files, stdout and stderr included.
    pub output_bytes: Option<u64>,
    /// Processes and threads together.
    pub processes: Option<u32>,
    /// Open file descriptors.
    pub open_files: Option<u32>,
    /// Stack size in KiB (`None`: unlimited stack, as judges usually give).
    pub stack_kb: Option<u64>,
}
