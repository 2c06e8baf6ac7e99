//! `judge doctor`: the isolation it names is the one a sandbox gets, and without root it says
//! what is missing and how to get it (never a level the host does not give).

use std::process::Command;

fn doctor_json(cmd: &mut Command) -> serde_json::Value {
    let out = cmd.output().expect("judge doctor");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("doctor JSON")
}

#[test]
fn doctor_names_the_isolation_judge_sandbox_gets() {
    let doctor = doctor_json(Command::new(env!("CARGO_BIN_EXE_judge")).args(["doctor", "--json"]));
    let dir = tempfile::tempdir().expect("box dir");
    let out = Command::new(env!("CARGO_BIN_EXE_judge"))
        .args(["sandbox", "--dir"])
        .arg(dir.path())
        .args(["--", "/bin/true"])
        .output()
        .expect("judge sandbox");
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).expect("outcome JSON");
    assert_eq!(doctor["isolation"], outcome["isolation"], "{doctor:#}");
    // Every check that fails says how to get it; full isolation lacks nothing.
    for c in doctor["checks"].as_array().expect("checks") {
        assert_eq!(c["ok"] == false, c.get("fix").is_some(), "{c}");
    }
    let full = ["full-cgroup-v1", "full-cgroup-v2", "rootless-cgroup-v2"];
    let lacks = doctor["lacks"].as_array().expect("lacks");
    assert_eq!(
        full.iter().any(|l| doctor["isolation"] == *l),
        lacks.is_empty(),
        "{doctor:#}"
    );
    // Root with full isolation: python function suites fork from warm interpreters.
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    if root && lacks.is_empty() {
        assert_eq!(doctor["warm_interpreters"], true, "{doctor:#}");
    }
}

#[test]
fn without_root_doctor_says_what_is_missing_and_how_to_get_it() {
    // Root is needed to become an ordinary user (setpriv).
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    });
    if !root || Command::new("setpriv").arg("--version").output().is_err() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stdout(),
            "skipped: needs root and setpriv to run judge doctor as an ordinary user"
        );
        return;
    }
    let doctor = doctor_json(
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_judge"))
            .args(["doctor", "--json"])
            .env("HOME", "/tmp")
            .env_remove("XDG_RUNTIME_DIR"),
    );
    let checks = doctor["checks"].as_array().expect("checks");
    let check = |name: &str| {
        checks
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no {name} check: {doctor:#}"))
    };
    // An ordinary user here never gets root's levels; a level short of full names its reasons.
    let level = doctor["isolation"].as_str().expect("isolation");
    assert!(!level.starts_with("full-"), "{doctor:#}");
    if level != "rootless-cgroup-v2" {
        assert!(
            !doctor["lacks"].as_array().expect("lacks").is_empty(),
            "{doctor:#}"
        );
    }
    // Nobody's cgroup (this process's, root's) is not writable by it: named, with the way out.
    let cgroup = check("cgroup");
    assert_eq!(cgroup["ok"], false, "{doctor:#}");
    assert!(
        cgroup["fix"]
            .as_str()
            .is_some_and(|f| f.contains("Delegate=yes")),
        "{doctor:#}"
    );
    // Where the kernel gives ordinary users a user namespace, the judge entered one.
    // ... and keeps its namespaces, with or without a cgroup: never the rlimits alone.
    let privilege = check("privilege");
    if privilege["ok"] == true {
        assert!(
            privilege["found"]
                .as_str()
                .is_some_and(|f| f.contains("user namespace")),
            "{doctor:#}"
        );
        assert!(level.starts_with("rootless-"), "{doctor:#}");
    }
}
