//! The datasets crate's one error type.

use std::path::PathBuf;

/// Why a dataset or a samples file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A line is not JSON.
    #[error("{path}:{line}: not a JSON object: {message}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A record lacks a field every record of its format has, or the field has the wrong type.
    #[error("{path}:{line}: record {record}: field {field}: {message}")]
    Record {
        /// The file.
        path: PathBuf,
        /// The 1-based line number (the element's index + 1 in a JSON array).
        line: usize,
        /// The record's id when it has one, else `#<line>`.
        record: String,
        /// The field at fault.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The format could not be told from the first record, or does not exist.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}
