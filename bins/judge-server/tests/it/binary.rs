//! The `judge-server` binary itself: config file, JSON logs, SIGTERM.

use crate::common::*;
use std::process::Command;
use std::time::Duration;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_judge-server"))
}

/// `judge-server --config <config> --check-config` of the TOML `config`.
fn check_config(config: &str) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("server.toml");
    std::fs::write(&path, config).unwrap();
    check_config_file(&path)
}

/// `judge-server --config <path> --check-config`.
fn check_config_file(path: &std::path::Path) -> std::process::Output {
    bin()
        .arg("--config")
        .arg(path)
        .arg("--check-config")
        .output()
        .expect("judge-server runs")
}

/// [`check_config`], which must refuse `config` with exit 2: its stderr.
fn config_refused(config: &str) -> String {
    let out = check_config(config);
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_bad_config_is_refused_naming_the_key() {
    let stderr = config_refused("listen = \"127.0.0.1:0\"\nqueue_capacityy = 3\n");
    assert!(stderr.contains("queue_capacityy"), "{stderr}");

    let out = check_config("listen = \"127.0.0.1:0\"\n[quotas]\noj = 2\n");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_local_root_that_does_not_exist_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-testdata");
    let stderr = config_refused(&format!(
        "listen = \"127.0.0.1:0\"\n[judge]\nlocal_roots = [{missing:?}]\n"
    ));
    assert!(
        stderr.contains("judge.local_roots[0]") && stderr.contains(&*missing.to_string_lossy()),
        "{stderr}"
    );
}

#[test]
fn the_binary_serves_and_stops_on_sigterm() {
    if judge().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("server.toml");
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 1\n[judge]\nwork_dir = {:?}\ncache_dir = {:?}\n[[tokens]]\ntoken = \"t0k\"\n",
            dir.path().join("work"),
            dir.path().join("cache")
        ),
    )
    .unwrap();
    let mut server = ServerProcess::start(&path);
    assert_eq!(get(&server.url("/v1/health"), None).status, 200);
    assert_eq!(get(&server.url("/metrics"), None).status, 401);
    let body = a_plus_b("bin-1", "oj", A_PLUS_B).to_string();
    let reply = post(&server.url("/v1/judge"), Some("t0k"), &body);
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(
        statuses(&reply.json()),
        ["Accepted", "Accepted", "Accepted"]
    );

    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(server.child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    let status = poll_until(Duration::from_secs(20), Duration::from_millis(20), || {
        let exited = server.child.try_wait().expect("the server's status");
        exited.ok_or_else(|| "exits after SIGTERM".to_owned())
    });
    assert!(status.success(), "{status:?}");
    let lines = server.kill9();
    assert!(
        lines.iter().any(|l| l.contains("SIGTERM received")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().all(|l| l.starts_with('{')),
        "JSON logs: {lines:#?}"
    );
}

#[test]
fn the_readmes_server_line_names_a_config_that_exists_and_loads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let line = readme
        .lines()
        .find(|l| l.contains("judge-server --config "))
        .expect("a judge-server --config line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let config = words
        .iter()
        .position(|w| *w == "--config")
        .map(|i| root.join(words[i + 1]))
        .expect("the line names its config");
    assert!(config.is_file(), "{line}: {} is missing", config.display());
    let out = check_config_file(&config);
    assert!(
        out.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
