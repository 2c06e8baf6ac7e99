//! The compat crate's one error type: why the judge could not run a program (never what the
//! program did: that is an outcome).

use std::time::Duration;
use verdict_contracts::Language;

/// Why a program could not be run.
#[derive(Debug, thiserror::Error)]
pub enum CompatError {
    /// Every run slot stayed taken for the whole wait: the caller may retry.
    #[error("every run slot stayed busy for {} ms", .0.as_millis())]
    Busy(Duration),
    /// The judge is shutting down.
    #[error("the judge is shutting down")]
    ShuttingDown,
    /// The judge has no profile for the language.
    #[error("no profile for {0}")]
    Language(Language),
    /// The language's toolchain is not installed on this host.
    #[error("{0}")]
    Toolchain(String),
    /// The host failed (disk, sandbox set-up).
    #[error("{0}")]
    Host(String),
}

impl CompatError {
    /// Whether the same request may succeed later here.
    pub fn retryable(&self) -> bool {
        !matches!(self, CompatError::Language(_) | CompatError::Toolchain(_))
    }

    /// When a caller turned away by a busy or stopping judge should come back (`None`: the
    /// judge failed otherwise): a tenth of the wait, at least a second; 5 s while it stops.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            CompatError::Busy(waited) => Some(Duration::from_secs(1).max(*waited / 10)),
            CompatError::ShuttingDown => Some(Duration::from_secs(5)),
            CompatError::Language(_) | CompatError::Toolchain(_) | CompatError::Host(_) => None,
        }
    }
}
