//! `judge` started by an ordinary user on a host that hands it no cgroup (this cgroup-v1 host):
//! level `rootless-namespaces` (docs/sandbox.md), and the examples judged as root judges them.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// The user the judge runs as (`nobody`).
const NOBODY: &str = "65534";

/// Examples whose verdicts depend on the sandbox: limits, hostile programs, two languages.
const EXAMPLES: &[&str] = &[
    "aplusb-cpp",
    "aplusb-python3",
    "wrong-answer",
    "runtime-error",
    "time-limit-busy",
    "time-limit-sleeping",
    "memory-limit",
    "output-limit",
    "fork-bomb",
    "hostile-files",
    "hostile-kill-all",
    "hostile-network",
];

/// Runs the copied `judge` in `dir` as `nobody` with `args`.
fn as_nobody(dir: &Path, args: &[&str]) -> Output {
    Command::new("setpriv")
        .args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
        ])
        .arg(dir.join("judge"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", dir)
        .current_dir(dir)
        .output()
        .expect("setpriv runs")
}

#[test]
fn an_ordinary_user_without_a_cgroup_judges_the_examples_right_at_rootless_namespaces() {
    if verdict_sandbox::rootless::privilege() != verdict_sandbox::rootless::Privilege::Root {
        use std::io::Write;
        let _ = writeln!(
            std::io::stdout(),
            "skipped: starting the judge as another user needs root"
        );
        return;
    }
    // A copy of the binary and the examples where `nobody` may read, run and write, whatever
    // the checkout's path allows.
    let dir = tempfile::Builder::new()
        .prefix("verdict-rootless-")
        .tempdir()
        .expect("tempdir");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/judge");
    std::fs::copy(env!("CARGO_BIN_EXE_judge"), dir.path().join("judge")).expect("copy judge");
    for name in EXAMPLES {
        for ext in ["json", "expected"] {
            let file = format!("{name}.{ext}");
            std::fs::copy(examples.join(&file), dir.path().join(&file)).expect("copy example");
        }
    }
    let status = Command::new("chown")
        .args([
            "-R",
            &format!("{NOBODY}:{NOBODY}"),
            &dir.path().to_string_lossy(),
        ])
        .status()
        .expect("chown");
    assert!(status.success());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let sandbox = as_nobody(dir.path(), &["sandbox", "--", "/bin/echo", "boxed"]);
    let out = String::from_utf8_lossy(&sandbox.stdout);
    let log = String::from_utf8_lossy(&sandbox.stderr);
    assert!(
        out.contains("\"isolation\": \"rootless-namespaces\""),
        "{out}\n{log}"
    );
    assert!(
        log.contains("isolates by namespaces without a cgroup"),
        "{log}"
    );
    // `nobody` has no subordinate ids: the warning and `judge doctor` ask for the same range.
    let advice = verdict_sandbox::rootless::box_ids_advice();
    assert!(
        log.contains("every box runs as the one uid mapped") && log.contains(&advice),
        "{log}"
    );
    let doctor = as_nobody(dir.path(), &["doctor"]);
    let said = String::from_utf8_lossy(&doctor.stdout);
    assert!(said.contains(&advice), "{said}");

    let mut wrong = Vec::new();
    for name in EXAMPLES {
        let run = as_nobody(
            dir.path(),
            &[
                "run",
                "--work-dir",
                "work",
                "--cache-dir",
                "cache",
                &format!("{name}.json"),
            ],
        );
        let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
            panic!(
                "{name}: not a report ({e}): {}",
                String::from_utf8_lossy(&run.stderr)
            )
        });
        if *name == "memory-limit" {
            // Without a cgroup the peak is read when the run ends: the log says so.
            let log = report["results"][1]["error_log"]
                .as_str()
                .unwrap_or_default();
            assert!(
                log.contains("its peak resident memory was") && log.contains("without a cgroup"),
                "{log}"
            );
        }
        let got: Vec<&str> = report["results"]
            .as_array()
            .map(|r| r.iter().filter_map(|t| t["status"].as_str()).collect())
            .unwrap_or_default();
        let want =
            std::fs::read_to_string(dir.path().join(format!("{name}.expected"))).expect("expected");
        let want: Vec<&str> = want.lines().collect();
        if got != want {
            wrong.push(format!("{name}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
