//! A server process the tests and benches start from a built binary: ready once it logs the
//! address it listens on (the JSON log field `fields.address` on stderr).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::Duration;

/// A process started by [`spawn_until_address`], listening.
pub struct LoggingProcess {
    /// The process.
    pub child: Child,
    /// The address it logged (`host:port`).
    pub address: String,
    /// Its stderr lines, collected until the process ends.
    pub log: JoinHandle<Vec<String>>,
}

/// Spawns `command` with `RUST_LOG=info`, stdout discarded and stderr read line by line, and
/// waits at most `limit` for it to log its address; panics (showing the log) when it does not.
pub fn spawn_until_address(command: &mut Command, limit: Duration) -> LoggingProcess {
    let mut child = command
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the server starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let log = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
            if let Some(address) = value["fields"]["address"].as_str() {
                let _ = tx.send(address.to_owned());
            }
            lines.push(line);
        }
        lines
    });
    let Ok(address) = rx.recv_timeout(limit) else {
        let _ = child.kill();
        let lines = log.join().unwrap_or_default();
        panic!("no address logged: {lines:#?}");
    };
    LoggingProcess {
        child,
        address,
        log,
    }
}
