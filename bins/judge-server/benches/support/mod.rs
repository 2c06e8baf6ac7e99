//! What the benches that start a real `judge-server` process share.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;
use verdict_testkit::process::spawn_until_address;

/// Whether this run is `cargo bench` (a `--bench` argument); under `cargo test` it only says how
/// to run the `what` benchmark, the bench target `bench`.
pub fn benching(what: &str, bench: &str) -> bool {
    let benching = std::env::args().any(|a| a == "--bench");
    if !benching {
        println!(
            "{what} benchmark: run it with `cargo bench -p verdict-judge-server --bench {bench}`"
        );
    }
    benching
}

/// `name`'s value from the environment, or `default`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A blocking HTTP client that treats every status as a response.
pub fn agent() -> ureq::Agent {
    verdict_testkit::http::agent(Duration::from_secs(60))
}

/// The value of the unlabelled counter `name` in `base`'s `/metrics` (0 when it cannot be read).
#[allow(dead_code)] // not every bench reads the server's counters
pub fn counter<T: std::str::FromStr + Default>(base: &str, name: &str) -> T {
    let text = agent()
        .get(format!("{base}/metrics"))
        .call()
        .ok()
        .and_then(|mut r| r.body_mut().read_to_string().ok())
        .unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or_default()
}

/// Starts the `judge-server` binary (`JUDGE_SERVER_BIN`, else this package's) with `config` and
/// waits for the address it logs.
pub fn start(config: &Path) -> (Child, String) {
    let binary = std::env::var_os("JUDGE_SERVER_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_judge-server").into());
    let started = spawn_until_address(
        Command::new(binary).arg("--config").arg(config),
        Duration::from_secs(60),
    );
    (started.child, format!("http://{}", started.address))
}
