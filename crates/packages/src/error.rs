//! Why a package cannot be read: every error names the file and, where there is one, the key.

use std::path::PathBuf;

/// A package that cannot be read, or asks for what verdict does not support.
///
/// Each message holds its cause, said once: the I/O and YAML errors are part of the message,
/// not also its `source()` (a chain printed as `{:#}` said `No such file or directory (os
/// error 2)` twice).
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A part the package's format requires is not there (`problem.yaml`, `data/`).
    #[error("{}: missing: {part}", path.display())]
    Missing {
        /// Where the format wants it.
        path: PathBuf,
        /// Which part of the format it is, and what it holds.
        part: String,
    },
    /// A file or directory could not be read.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        cause: std::io::Error,
    },
    /// A YAML file is not valid YAML.
    #[error("{}: {cause}", path.display())]
    Yaml {
        /// The file.
        path: PathBuf,
        /// The cause.
        cause: yaml_serde::Error,
    },
    /// A key has a value verdict cannot read.
    #[error("{}: {key}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key (dotted).
        key: String,
        /// Why.
        reason: String,
    },
    /// The package asks for something verdict does not support: refused, never judged wrongly.
    #[error("{}: {key}: not supported: {reason}", path.display())]
    Unsupported {
        /// The file (or directory).
        path: PathBuf,
        /// The key, or the directory's role.
        key: String,
        /// What is not supported.
        reason: String,
    },
}

impl PackageError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> PackageError {
        PackageError::Io {
            path: path.into(),
            cause,
        }
    }

    /// `part` of the format, missing at `path`.
    pub fn missing(path: impl Into<PathBuf>, part: impl Into<String>) -> PackageError {
        PackageError::Missing {
            path: path.into(),
            part: part.into(),
        }
    }

    /// An invalid value of `key` in `path`.
    pub fn invalid(path: impl Into<PathBuf>, key: &str, reason: impl Into<String>) -> PackageError {
        PackageError::Invalid {
            path: path.into(),
            key: key.to_owned(),
            reason: reason.into(),
        }
    }

    /// An unsupported `key` in `path`.
    pub fn unsupported(
        path: impl Into<PathBuf>,
        key: &str,
        reason: impl Into<String>,
    ) -> PackageError {
        PackageError::Unsupported {
            path: path.into(),
            key: key.to_owned(),
            reason: reason.into(),
        }
    }
}
