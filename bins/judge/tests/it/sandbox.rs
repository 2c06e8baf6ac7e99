//! `judge sandbox`, the one-shot path: what a killed one is left with is cleaned by the next.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const STATE: &str = "/run/verdict";

/// The killed judge's program, as its `/proc/<pid>/cmdline`.
const SLEEPER: &[u8] = b"/bin/sleep\x0030\x00";

/// The instance lock files in the registry now.
fn locks() -> Vec<PathBuf> {
    std::fs::read_dir(Path::new(STATE).join("instances"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "lock"))
                .collect()
        })
        .unwrap_or_default()
}

/// The run cgroups of instance `name` (the judge's default cgroup name, every hierarchy).
fn run_cgroups(name: &str) -> Vec<PathBuf> {
    let prefix = format!("{name}-");
    [
        "memory/verdict",
        "pids/verdict",
        "cpuacct/verdict",
        "verdict",
    ]
    .iter()
    .filter_map(|p| std::fs::read_dir(Path::new("/sys/fs/cgroup").join(p)).ok())
    .flat_map(|rd| rd.flatten())
    .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
    .map(|e| e.path())
    .collect()
}

fn judge_sandbox(dir: &Path, program: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_judge"));
    c.args(["sandbox", "--require-isolation", "--wall", "60000", "--dir"])
        .arg(dir)
        .arg("--")
        .args(program)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

#[test]
fn a_killed_one_shot_judges_cgroups_and_registry_files_are_removed_by_the_next() {
    let dir = tempfile::tempdir().expect("box dir");
    let probe = judge_sandbox(dir.path(), &["/bin/true"])
        .output()
        .expect("judge sandbox");
    if !probe.status.success() {
        let why = String::from_utf8_lossy(&probe.stderr);
        assert!(
            !verdict_testkit::required(),
            "VERDICT_REQUIRE_SANDBOX=1 but judge sandbox failed: {why}"
        );
        use std::io::Write;
        let _ = writeln!(
            std::io::stdout(),
            "skipped: judge sandbox --require-isolation failed here: {why}"
        );
        return;
    }
    let mut killed = judge_sandbox(dir.path(), &["/bin/sleep", "30"])
        .spawn()
        .expect("spawn judge sandbox");
    // Its instance: the lock file whose run cgroup holds the sleeping program (a new one, or
    // the one the probe run left: a one-shot instance takes over a clean one's).
    let t = Instant::now();
    let (lock, cgroups) = loop {
        let found = locks().into_iter().find_map(|l| {
            let name = l.file_stem()?.to_string_lossy().into_owned();
            let cgs = run_cgroups(&name);
            let busy = cgs.iter().any(|c| {
                std::fs::read_to_string(c.join("cgroup.procs"))
                    .unwrap_or_default()
                    .split_whitespace()
                    .any(|pid| {
                        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == SLEEPER)
                    })
            });
            busy.then_some((l, cgs))
        });
        if let Some(f) = found {
            break f;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the run never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    killed.kill().expect("SIGKILL judge");
    killed.wait().expect("wait");
    assert!(lock.exists(), "a killed judge cannot remove its lock file");

    let next = judge_sandbox(dir.path(), &["/bin/true"])
        .output()
        .expect("judge sandbox");
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(!lock.exists(), "{} left", lock.display());
    assert!(!lock.with_extension("owned").exists(), "its .owned left");
    for cg in &cgroups {
        assert!(!cg.exists(), "{} left", cg.display());
    }
}

/// `judge sandbox` as a person calls it, `extra` flags before `--`.
fn judge_sandbox_output(extra: &[&str], program: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("sandbox")
        .args(extra)
        .arg("--")
        .args(program)
        .stdin(Stdio::null())
        .output()
        .expect("judge sandbox")
}

#[test]
fn the_programs_output_is_printed_before_the_outcome() {
    for extra in [&[][..], &["--stdout", "/dev/stdout"], &["--stdout", "-"]] {
        let output = judge_sandbox_output(extra, &["/bin/echo", "hi"]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{extra:?}: {stderr}");
        let (printed, outcome) = stdout.split_once('\n').expect("two parts");
        assert_eq!(printed, "hi", "{extra:?}: {stdout}");
        let outcome: serde_json::Value =
            serde_json::from_str(outcome).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        assert!(outcome.get("exit").is_some(), "{outcome}");
    }
    // --stderr /dev/stderr: the program's errors on ours.
    let output = judge_sandbox_output(
        &["--stderr", "/dev/stderr", "--stdout", "/dev/null"],
        &["/bin/sh", "-c", "echo oops >&2"],
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("oops"));
}

/// Whether this process is root (needed to become an ordinary user with `setpriv`).
fn root_with_setpriv() -> bool {
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    });
    root && Command::new("setpriv").arg("--version").output().is_ok()
        && Command::new("prlimit").arg("--version").output().is_ok()
}

#[test]
fn without_root_a_limit_above_the_hard_limit_is_clamped_and_said() {
    if !root_with_setpriv() {
        use std::io::Write;
        let _ = writeln!(
            std::io::stdout(),
            "skipped: needs root, setpriv and prlimit to run judge sandbox as an ordinary user"
        );
        return;
    }
    let dir = tempfile::tempdir().expect("box dir");
    std::os::unix::fs::chown(dir.path(), Some(65534), Some(65534)).expect("chown the box dir");
    // An ordinary user whose hard limit of open files is 256 asks for 4096: the box starts
    // with 256, and the outcome says so (without clamping, the box's setrlimit fails).
    let out = Command::new("prlimit")
        .args(["--nofile=256:256", "--"])
        .args([
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ])
        .arg(env!("CARGO_BIN_EXE_judge"))
        .args(["sandbox", "--files", "4096", "--wall", "60000", "--dir"])
        .arg(dir.path())
        .args(["--", "/bin/sh", "-c", "test \"$(ulimit -n)\" = 256"])
        .env("HOME", dir.path())
        .env("TMPDIR", dir.path())
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("judge sandbox as nobody");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "judge sandbox failed: {stderr}");
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("outcome JSON ({e}): {stderr}"));
    assert_eq!(
        outcome["exit"],
        serde_json::json!({"exited": 0}),
        "{outcome:#}"
    );
    assert_eq!(
        outcome["rlimits_clamped"],
        serde_json::json!(["RLIMIT_NOFILE 4096 clamped to the judge's hard limit 256"]),
        "{outcome:#}"
    );
}
