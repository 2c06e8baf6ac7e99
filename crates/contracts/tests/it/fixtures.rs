//! Reading the files under `tests/fixtures/`.

use serde_json::Value;
use std::path::PathBuf;

/// `tests/fixtures/<name>`.
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The text of `tests/fixtures/<name>`.
pub fn text(name: &str) -> String {
    let path = path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The JSON of `tests/fixtures/<name>`.
pub fn json(name: &str) -> Value {
    serde_json::from_str(&text(name)).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}
