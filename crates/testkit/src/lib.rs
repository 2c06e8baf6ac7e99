//! What verdict's integration tests share (a dev-dependency only).
//!
//! Tests that need root, namespaces, cgroups or a service print `skipped: <reason>` and pass
//! where the host lacks them, unless `VERDICT_REQUIRE_SANDBOX=1` (which CI sets) makes that a
//! failure: [`required`] reads it, [`skip_or_fail`] applies it, and [`judge`] / [`judge_with`]
//! are the judges the test binaries share or make, set up under that rule. One definition of
//! each, instead of a copy per test binary. [`submission::SubmissionJson`] builds the judge
//! requests the tests and benches send; [`server::InProcessServer`] starts the judge-server
//! they talk to; [`loopback::LoopbackServer`] stands for a remote service; [`programs`] holds the
//! interactive tests' guessing game; [`process::spawn_until_address`] starts a built server and
//! [`http::agent`] is the client that talks to it.

#![allow(clippy::print_stdout)]

pub mod http;
pub mod loopback;
pub mod process;
pub mod programs;
pub mod server;
pub mod submission;

use std::fmt::Display;
use std::path::PathBuf;
use std::sync::OnceLock;
use verdict_contracts::{JudgeReport, JudgeStatus, parse_submission};
use verdict_scheduler::{Judge, JudgeConfig};

/// Whether this run requires the sandbox (and the services the tests start):
/// `VERDICT_REQUIRE_SANDBOX=1`.
pub fn required() -> bool {
    std::env::var_os("VERDICT_REQUIRE_SANDBOX").is_some_and(|v| v == "1")
}

/// A test's set-up that failed for `reason`: a panic when [`required`], else `None` after
/// printing `skipped: <what>: <reason>`.
pub fn skip_or_fail<T>(what: &str, reason: impl Display) -> Option<T> {
    if required() {
        panic!("VERDICT_REQUIRE_SANDBOX=1 but {what}: {reason}");
    }
    println!("skipped: {what}: {reason}");
    None
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The judge this test binary shares (its own work and cache dirs, isolation required when
/// [`required`]), or `None` as [`skip_or_fail`] says.
pub fn judge() -> Option<&'static Judge> {
    static JUDGE: OnceLock<Option<(Judge, tempfile::TempDir)>> = OnceLock::new();
    JUDGE
        .get_or_init(|| judge_with(|config| config))
        .as_ref()
        .map(|(judge, _)| judge)
}

/// A judge of its own, made from `config` applied to fresh work and cache dirs (kept alive by
/// the returned directory), or `None` as [`skip_or_fail`] says.
pub fn judge_with(
    config: impl FnOnce(JudgeConfig) -> JudgeConfig,
) -> Option<(Judge, tempfile::TempDir)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config(JudgeConfig {
        work_dir: dir.path().join("work"),
        cache_dir: dir.path().join("cache"),
        require_isolation: required(),
        ..JudgeConfig::default()
    });
    match Judge::new(config) {
        Ok(judge) => Some((judge, dir)),
        Err(err) => skip_or_fail("the judge cannot be set up here", err),
    }
}

/// A multi-threaded runtime for one test.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// Judges `request`, a judge request as JSON that must be valid, on `judge` (in a runtime of
/// its own).
pub fn judge_request(judge: &Judge, request: &serde_json::Value) -> JudgeReport {
    let submission = parse_submission(&request.to_string()).expect("a valid submission");
    runtime().block_on(judge.judge(submission))
}

/// Each task's status, in task order.
pub fn statuses(report: &JudgeReport) -> Vec<JudgeStatus> {
    report.results.iter().map(|r| r.status).collect()
}
