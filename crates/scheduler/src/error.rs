//! The crate's error type: the judge could not do its job (a verdict is never an error).

use std::path::PathBuf;

/// Why the judge could not judge.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The sandbox could not be set up or could not run a command.
    #[error(transparent)]
    Sandbox(#[from] verdict_sandbox::SandboxError),
    /// A script step failed.
    #[error(transparent)]
    Script(#[from] verdict_scripts::ScriptError),
    /// An asset could not be had.
    #[error(transparent)]
    Asset(#[from] crate::assets::AssetError),
    /// A file or directory of the judge's own.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file-system error that already names its path (e.g. from the cache).
    #[error(transparent)]
    Fs(#[from] std::io::Error),
    /// Anything else, with its reason.
    #[error("{0}")]
    Other(String),
}

impl JudgeError {
    /// An I/O error with the action and path involved.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        JudgeError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
