//! The crate's error type: the judge itself could not do its job (never a verdict).

use std::path::PathBuf;

/// Why a script step could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The sandbox could not run a command.
    #[error(transparent)]
    Sandbox(#[from] verdict_sandbox::SandboxError),
    /// The executor could not run a command.
    #[error(transparent)]
    Exec(#[from] crate::exec::outcome::ExecError),
    /// A file of the judge's own could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Comparing an output with its expected answer failed (not a verdict).
    #[error("comparing {output}: {source}")]
    Compare {
        /// The output's name (`testdata.out` or a file the program wrote).
        output: String,
        /// The cause.
        source: verdict_compare::CompareError,
    },
    /// A file name would leave the box.
    #[error("file name {0:?} must be a relative path without '..'")]
    BadName(String),
    /// The language profiles are invalid.
    #[error("language profiles: {0}")]
    Profiles(String),
    /// The language has no profile or its toolchain is missing.
    #[error("{0}")]
    Toolchain(String),
    /// The work disk was short of room (design #27): the host's failure, never the program's.
    #[error(
        "the work disk is full {when} ({free_kb} KiB and {free_inodes} inodes free): \
         the judge's failure, not the program's; retry later"
    )]
    DiskFull {
        /// When it was found ("before the compile", "after the run", ...).
        when: &'static str,
        /// Free space in KiB.
        free_kb: u64,
        /// Free inodes.
        free_inodes: u64,
    },
}

impl ScriptError {
    /// An I/O error with the action and path involved.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        ScriptError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
