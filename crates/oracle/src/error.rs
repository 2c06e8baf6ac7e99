//! The oracle's error: the judge could not do its job (a failing case is never an error).

use std::path::PathBuf;

/// Why a suite could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The suite's shape is wrong; the message names the field.
    #[error(transparent)]
    Suite(#[from] verdict_contracts::oracle::SuiteError),
    /// The executor could not run a command.
    #[error(transparent)]
    Sandbox(#[from] verdict_scripts::ExecError),
    /// A file of the oracle's own could not be written or read.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl OracleError {
    /// An I/O error with the action and path involved.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        OracleError::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// A suite-level error naming `field`.
    pub(crate) fn suite(field: &str, message: impl Into<String>) -> Self {
        OracleError::Suite(verdict_contracts::oracle::SuiteError {
            field: field.to_owned(),
            message: message.into(),
        })
    }
}
