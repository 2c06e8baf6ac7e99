//! Real public problem packages, fetched by the tests from a package registry (never
//! committed: their licences are their authors'), cached under cargo's target directory.
//!
//! problemtools' source distribution on PyPI carries its `examples/` (Kattis' own reference
//! packages: `hello`, `different`, `guess` (interactive), `oddecho` (scoring)); BAPCtools'
//! sdist carries its `test/problems/` (`multipass`, `interactivemultipass`). The versions are
//! pinned so the packages' claims do not move under the tests.
//! Also used by bins/judge's tests (`#[path]`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The problemtools release whose examples the tests verify.
pub const PROBLEMTOOLS: &str = "1.20260907";

/// The cache: `<target>/tmp/packages`.
fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("packages")
}

/// problemtools' `examples/` directory, fetched (`pip download` of the sdist) and unpacked on
/// first use. Panics with the command's output when the registry cannot be reached.
pub fn problemtools_examples() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| sdist_dir("problemtools", PROBLEMTOOLS, "examples", "README.md"))
        .clone()
}

/// The BAPCtools release whose test problems the tests verify.
pub const BAPCTOOLS: &str = "2026.10.0";

/// BAPCtools' `test/problems/` directory (its own test packages, 2025-09 format: `multipass`,
/// `interactivemultipass`, ...), fetched and unpacked on first use as
/// [`problemtools_examples`] is.
pub fn bapctools_problems() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        sdist_dir(
            "bapctools",
            BAPCTOOLS,
            "test/problems",
            "multipass/problem.yaml",
        )
    })
    .clone()
}

/// `dir` of PyPI's sdist of `name==version`, unpacked under the cache once (`marker`, a file
/// under `dir`, says it is there). Panics with the command's output when the registry cannot
/// be reached.
fn sdist_dir(name: &str, version: &str, dir: &str, marker: &str) -> PathBuf {
    let root = cache();
    let unpacked = root.join(format!("{name}-{version}"));
    let wanted = unpacked.join(dir);
    if wanted.join(marker).is_file() {
        return wanted;
    }
    std::fs::create_dir_all(&root).expect("create the package cache");
    // Into a directory of this process's own, renamed into place: two test binaries may
    // fetch at once.
    let scratch = tempfile::tempdir_in(&root).expect("scratch dir");
    let out = Command::new("python3")
        .args(["-m", "pip", "download", "--quiet", "--no-deps"])
        .args(["--no-binary", ":all:"])
        .arg(format!("{name}=={version}"))
        .arg("-d")
        .arg(scratch.path())
        .output()
        .expect("python3 -m pip runs");
    assert!(
        out.status.success(),
        "pip download {name}=={version} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let sdist = scratch.path().join(format!("{name}-{version}.tar.gz"));
    let out = Command::new("tar")
        .arg("xzf")
        .arg(&sdist)
        .arg("-C")
        .arg(scratch.path())
        .arg(format!("{name}-{version}/{dir}"))
        .output()
        .expect("tar runs");
    assert!(
        out.status.success(),
        "tar xzf {}: {}",
        sdist.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let fetched = scratch.path().join(format!("{name}-{version}"));
    if std::fs::rename(&fetched, &unpacked).is_err() {
        // Another process put it there first.
        assert!(wanted.join(marker).is_file(), "{}", unpacked.display());
    }
    wanted
}

/// A copy of an example package in a fresh directory (to change it), named as the original.
pub fn copy_of(example: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let to = dir.path().join(example);
    copy_dir(&problemtools_examples().join(example), &to);
    (dir, to)
}

/// A copy of one of BAPCtools' test problems in a fresh directory, named as the original.
pub fn bapctools_copy_of(problem: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let to = dir.path().join(problem);
    copy_dir(&bapctools_problems().join(problem), &to);
    (dir, to)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
