//! The crate's error type: the judge could not do its job (a verdict is never an error).

use std::path::PathBuf;
use verdict_contracts::Language;

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
    /// The per-problem cache failed (its errors name the path involved).
    #[error(transparent)]
    Cache(std::io::Error),
    /// A program's language has no profile on this judge.
    #[error("{program}: language {language} has no profile on this judge")]
    NoProfile {
        /// `submission`, `standard`, `random` or `compare`.
        program: String,
        /// The language.
        language: Language,
    },
    /// A language's toolchain is not installed (the message names the package).
    #[error("{0}")]
    ToolchainMissing(String),
    /// A tool a special test needs is not installed.
    #[error("{programs} not found: install the Debian packages {packages}")]
    ToolMissing {
        /// The programs not found.
        programs: String,
        /// The packages that provide them.
        packages: String,
    },
    /// A task names a test datum the request does not have.
    #[error("test datum {0} does not exist")]
    NoDatum(usize),
    /// A problem program could not be built by the judge (not a compile error).
    #[error("{0}")]
    Unbuildable(String),
    /// A test's run was kept off the CPUs by the host's other work until its wall clock ran
    /// out, twice: the host's failure, not the program's Time Limit Exceeded.
    #[error("{0}")]
    HostBusy(String),
    /// The compile was stopped by a cancel: its outcome says nothing and is not cached.
    #[error("{role}: the compile was stopped by a cancel")]
    Cancelled {
        /// The program whose compile was stopped.
        role: String,
    },
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
