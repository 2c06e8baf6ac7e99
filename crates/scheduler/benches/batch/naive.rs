//! The naive harnesses trainers write, unsandboxed, and a small thread pool to run them.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A job of the pool: `true` when it judged its candidate right.
pub type Job<'a> = Box<dyn FnOnce() -> bool + Send + 'a>;

/// Runs `jobs` on `workers` threads; returns how many returned `true`.
pub fn pool(workers: usize, jobs: Vec<Job<'_>>) -> usize {
    let jobs = Mutex::new(jobs);
    let right = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let job = jobs.lock().unwrap_or_else(|e| e.into_inner()).pop();
                    let Some(job) = job else { break };
                    if job() {
                        right.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    right.into_inner()
}

/// The candidate with its tests appended as asserts (`assert f(x) == y`).
pub fn with_asserts(code: &str, tests: &[(i64, i64)]) -> String {
    let mut program = code.to_owned();
    for (x, y) in tests {
        program.push_str(&format!("assert f({x}) == {y}\n"));
    }
    program
}

/// The naive harness: `program` in one unsandboxed `python3` process, passed when it exits 0
/// within `timeout`.
pub fn python(program: &str, timeout: Duration) -> bool {
    let Ok(mut child) = Command::new("/usr/bin/python3")
        .args(["-c", program])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    wait_within(&mut child, timeout).is_some_and(|ok| ok)
}

/// Runs python `file` on `stdin`, unsandboxed: its stdout.
pub fn python_stdin(file: &Path, stdin: &str) -> String {
    run_with_input(Command::new("/usr/bin/python3").arg(file), stdin)
}

/// Waits for `child` at most `timeout` (killing it then): `Some(exited 0)`, `None` when killed.
fn wait_within(child: &mut std::process::Child, timeout: Duration) -> Option<bool> {
    let until = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.success()),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// The per-test recompiling caller: for each test, compile the source, then run it on the
/// test's input and compare its output (trimmed); passed when every test matched.
pub fn cpp_per_test(code: &str, data: &[(String, String)]) -> bool {
    let Ok(dir) = tempfile::tempdir() else {
        return false;
    };
    let source = dir.path().join("main.cpp");
    if std::fs::write(&source, code).is_err() {
        return false;
    }
    for (input, output) in data {
        let binary = dir.path().join("main");
        let compiled = Command::new("g++")
            .args(["-O2", "-o"])
            .arg(&binary)
            .arg(&source)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !compiled || run_with_input(&mut Command::new(&binary), input).trim() != output.trim() {
            return false;
        }
    }
    true
}

fn run_with_input(command: &mut Command, input: &str) -> String {
    let Ok(mut child) = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return String::new();
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input.as_bytes());
    }
    child
        .wait_with_output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}
