//! What the benches that start a real `judge-server` process share.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// `name`'s value from the environment, or `default`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A blocking HTTP client that treats every status as a response.
pub fn agent() -> ureq::Agent {
    ureq::Agent::new_with_config(
        ureq::config::Config::builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(60)))
            .build(),
    )
}

/// Starts the `judge-server` binary (`JUDGE_SERVER_BIN`, else this package's) with `config` and
/// waits for the address it logs.
pub fn start(config: &Path) -> (Child, String) {
    let binary = std::env::var_os("JUDGE_SERVER_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_judge-server").into());
    let mut child = Command::new(binary)
        .arg("--config")
        .arg(config)
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("judge-server starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let value: Value = serde_json::from_str(&line).unwrap_or_default();
            if let Some(address) = value["fields"]["address"].as_str() {
                let _ = tx.send(address.to_owned());
            }
        }
    });
    let address = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the server logs its address");
    (child, format!("http://{address}"))
}
