//! The one error type: the sandbox could not do its job (a limit hit is not an error).

use std::path::PathBuf;

/// Why the sandbox could not be set up or could not run a command.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// Full isolation was required but is unavailable here.
    #[error("full isolation required but unavailable: {0}")]
    IsolationUnavailable(String),
    /// The program does not exist (host path, box path or `PATH` lookup).
    #[error("program not found: {}", .0.display())]
    ProgramNotFound(PathBuf),
    /// The program exists but could not be executed (errno from execve).
    #[error("cannot execute {}: {source}", program.display())]
    Exec {
        /// The program as given.
        program: PathBuf,
        /// The execve error.
        source: std::io::Error,
    },
    /// A path is unusable (not absolute, contains NUL, escapes the box, not a directory...).
    #[error("bad path {}: {reason}", path.display())]
    BadPath {
        /// The offending path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument or environment entry contains a NUL byte.
    #[error("argument or environment entry contains a NUL byte: {0:?}")]
    Nul(String),
    /// A host file operation failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What was being done.
        op: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A cgroup file could not be created, written or removed.
    #[error("cgroup write failed at {}: {source}", path.display())]
    Cgroup {
        /// The cgroup file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The sandboxed process could not be created or set up (stage and errno from the child).
    #[error("sandbox setup failed at {stage}: {source}")]
    Setup {
        /// The step that failed (e.g. `mount /usr`, `clone3`).
        stage: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file read from the box is larger than the caller allowed.
    #[error("{} is larger than {limit} bytes", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// The allowed size.
        limit: u64,
    },
}

impl SandboxError {
    /// A host file operation `op` on `path` failed.
    pub(crate) fn io(op: &'static str, path: &std::path::Path, source: std::io::Error) -> Self {
        SandboxError::Io {
            op,
            path: path.to_owned(),
            source,
        }
    }
}

/// `bytes` as a C string; a NUL byte is a bad `what` path.
pub(crate) fn cstring(
    bytes: &[u8],
    what: &std::path::Path,
) -> Result<std::ffi::CString, SandboxError> {
    std::ffi::CString::new(bytes).map_err(|_| SandboxError::BadPath {
        path: what.to_owned(),
        reason: "contains a NUL byte".into(),
    })
}
