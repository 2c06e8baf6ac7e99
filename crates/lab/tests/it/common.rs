//! What the lab tests share: one judge per test binary, and the sandbox probe.

use std::path::PathBuf;
use std::sync::OnceLock;
use verdict_scheduler::{Judge, JudgeConfig};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A judge with its own work and cache dirs, or `None` (with `skipped:` printed) when this host
/// cannot sandbox; under `VERDICT_REQUIRE_SANDBOX=1` that is a failure instead.
pub fn judge() -> Option<&'static Judge> {
    static JUDGE: OnceLock<Option<(Judge, tempfile::TempDir)>> = OnceLock::new();
    JUDGE
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("temp dir");
            let config = JudgeConfig {
                work_dir: dir.path().join("work"),
                cache_dir: dir.path().join("cache"),
                require_isolation: std::env::var("VERDICT_REQUIRE_SANDBOX").is_ok_and(|v| v == "1"),
                ..JudgeConfig::default()
            };
            match Judge::new(config) {
                Ok(judge) => Some((judge, dir)),
                Err(err) if std::env::var("VERDICT_REQUIRE_SANDBOX").is_ok_and(|v| v == "1") => {
                    panic!("VERDICT_REQUIRE_SANDBOX=1 but the judge cannot be set up: {err}")
                }
                Err(err) => {
                    println!("skipped: the judge cannot be set up here: {err}");
                    None
                }
            }
        })
        .as_ref()
        .map(|(judge, _)| judge)
}

/// A multi-threaded runtime for one test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}
