//! Parses every committed fixture: real output of googletest, valgrind, cppcheck and
//! clang-tidy, made by `scripts/regen-report-fixtures.sh` in the box `/tmp/verdict-box`.
//! Snapshots (insta) hold the full reports; the asserts pin the numbers that matter.

mod gtest;
mod robustness;
mod static_analysis;
mod valgrind;

use std::path::{Path, PathBuf};

/// The box directory the fixtures were made in (see the regen script).
pub const BOX: &str = "/tmp/verdict-box";

/// The box as a path.
pub fn box_dir() -> &'static Path {
    Path::new(BOX)
}

/// The text of `tests/fixtures/<name>`.
pub fn fixture(name: &str) -> String {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "fixtures", name]
        .iter()
        .collect();
    match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => panic!("cannot read fixture {}: {e}", path.display()),
    }
}

/// Checks that `text` contains `part`.
pub fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} not in {text:?}");
}
