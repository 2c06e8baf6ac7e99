//! Why a package cannot be read: every error names the file and, where there is one, the key.

use std::path::PathBuf;

/// A package that cannot be read, or asks for what verdict does not support.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A YAML file is not valid YAML.
    #[error("{}: {source}", path.display())]
    Yaml {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: yaml_serde::Error,
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
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> PackageError {
        PackageError::Io {
            path: path.into(),
            source,
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
