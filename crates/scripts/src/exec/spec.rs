//! One command as a caller arranges it itself (the Task Oracle's cases): program, arguments,
//! environment, box, standard streams, limits and mounts, in verdict's words
//! (docs/architecture.md, "The execution seam").

use std::ffi::OsString;
use std::path::PathBuf;

/// One command to run in its box exactly as described.
#[derive(Debug, Clone, Default)]
pub struct ProcessSpec {
    /// The program: an absolute path, or a name looked up in the box's `PATH`.
    pub program: PathBuf,
    /// Arguments after `argv[0]`.
    pub args: Vec<OsString>,
    /// Variables added to the cleared environment.
    pub env: Vec<(String, String)>,
    /// The writable box directory on the host; the program's working directory.
    pub box_dir: PathBuf,
    /// Where the program's standard input comes from.
    pub stdin: Stream,
    /// Where the program's standard output goes.
    pub stdout: Stream,
    /// Where the program's standard error goes.
    pub stderr: Stream,
    /// The limits of this run.
    pub limits: Limits,
    /// Extra host directories visible read-only (at the same path).
    pub read_only_mounts: Vec<PathBuf>,
    /// Extra host directories visible writable (at the same path).
    pub writable_mounts: Vec<PathBuf>,
}

/// A standard stream of the boxed program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Stream {
    /// Nothing (`/dev/null`).
    #[default]
    Null,
    /// A host file: read for stdin; created or truncated for stdout and stderr (bounded by
    /// the output limit).
    File(PathBuf),
}

/// The limits of one run; `None` leaves a field to the environment's own caps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// CPU time (every process together) in milliseconds.
    pub cpu_time_ms: Option<u64>,
    /// Wall-clock time in milliseconds.
    pub wall_time_ms: Option<u64>,
    /// Resident memory in KiB.
    pub memory_kb: Option<u64>,
    /// Bytes written to files, stdout and stderr included.
    pub output_bytes: Option<u64>,
    /// Processes and threads together.
    pub processes: Option<u32>,
    /// Open file descriptors.
    pub open_files: Option<u32>,
    /// Stack size in KiB (`None`: unlimited).
    pub stack_kb: Option<u64>,
}

/// A python script an executor may serve from a warm interpreter (one that loaded the
/// interpreter and `preload` once) rather than a cold start; the run's outcome is the same.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarmScript {
    /// The interpreter's options before the script (`-s`, `-B`, ...).
    pub flags: Vec<OsString>,
    /// The script's path in the box, relative to it.
    pub script_path: String,
    /// The script's source.
    pub script: String,
    /// Modules the warm interpreter imports once.
    pub preload: Vec<String>,
}
