//! Why the judge could not compare: the `Err` side, never a verdict about the program.

use std::path::PathBuf;

/// Why the judge could not compare (never a verdict about the program).
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A reader given to [`crate::builtin::BuiltinComparator::compare_readers`] failed.
    #[error("cannot read the {side}: {source}")]
    Read {
        /// `"program output"` or `"expected answer"`.
        side: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}
