//! The cost of an interactive test: round trips per second between a program and
//! its interactor, all on one core, next to a bare pipe ping-pong of the same two programs
//! (two host processes, two direct pipes, no sandbox and no relay) in the same run.
//!
//! `cargo bench -p verdict-scripts --bench interactive` (plain main). `VERDICT_BENCH_TRIPS`
//! round trips per run (default 20000), `VERDICT_BENCH_ROUNDS` alternating rounds (default 5);
//! prints each round and the medians. Needs root (skipped otherwise) and `gcc`.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use verdict_contracts::Language;
use verdict_sandbox::{Sandbox, SandboxConfig};
use verdict_scripts::interactive::{InteractiveRequest, run_interactive};
use verdict_scripts::{Build, LanguageProfile, RunLimits, RunRequest, TemplateVars, tool_build};

/// Echoes every line until end of file.
const ECHO: &str = r#"
#include <stdio.h>
int main(void) {
    char line[64];
    while (fgets(line, sizeof line, stdin)) { fputs(line, stdout); fflush(stdout); }
    return 0;
}
"#;

/// Sends `argv[1]` lines (its first argument read from the file named by the Kattis argv, or
/// given bare), waiting for each echo; exits 42.
const PINGER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = 0;
    FILE *in = fopen(argv[1], "r");
    if (in) { if (fscanf(in, "%ld", &n) != 1) return 1; } else n = atol(argv[1]);
    char line[64];
    for (long i = 0; i < n; i++) {
        printf("%ld\n", i);
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin) || atol(line) != i) return 43;
    }
    return 42;
}
"#;

fn compile(dir: &Path, name: &str, text: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, text).expect("write source");
    let build = dir.join(name);
    std::fs::create_dir_all(&build).expect("build dir");
    let status = Command::new("gcc")
        .args(["-O2", "-static", "-o"])
        .arg(build.join("main"))
        .arg(&src)
        .status()
        .expect("gcc");
    assert!(status.success(), "gcc failed for {name}");
    build
}

/// Pins this thread (and what it starts) to CPU 0.
fn pin_to_one_core() {
    let mut set = nix::sched::CpuSet::new();
    set.set(0).expect("cpu 0");
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).expect("affinity");
}

/// Two host processes on direct pipes: seconds for `trips` round trips (starts included).
fn bare(echo: &Path, pinger: &Path, trips: u64) -> f64 {
    let (to_echo_r, to_echo_w) = std::io::pipe().expect("pipe");
    let (from_echo_r, from_echo_w) = std::io::pipe().expect("pipe");
    let start = Instant::now();
    let mut e = Command::new(echo.join("main"))
        .stdin(Stdio::from(to_echo_r))
        .stdout(Stdio::from(from_echo_w))
        .spawn()
        .expect("echo");
    let mut p = Command::new(pinger.join("main"))
        .arg(trips.to_string())
        .stdin(Stdio::from(from_echo_r))
        .stdout(Stdio::from(to_echo_w))
        .spawn()
        .expect("pinger");
    let code = p.wait().expect("pinger").code();
    e.wait().expect("echo");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(code, Some(42), "the bare ping-pong failed");
    secs
}

/// The C program compiled to `main` in `dir`, as a build.
fn build(dir: &Path) -> Build {
    let main = LanguageProfile {
        run: vec!["./main".into()],
        ..LanguageProfile::default()
    };
    tool_build(dir, Language::C, main, TemplateVars::default())
}

/// One interactive test through the sandbox and the relay: seconds for `trips` round trips.
fn interactive(sandbox: &Sandbox, echo: &Build, pinger: &Build, trips: u64, work: &Path) -> f64 {
    let run_dir = work.join(format!("run-{}", rand_suffix()));
    std::fs::create_dir_all(&run_dir).expect("run dir");
    let limits = RunLimits::new(60_000, Some(256 * 1024), Some(1 << 20), Some(16));
    let args = [trips.to_string()];
    let request = InteractiveRequest {
        program: RunRequest::new(echo, limits),
        interactor: RunRequest {
            args: &args,
            ..RunRequest::new(pinger, limits)
        },
        rejecting_exits: &[],
    };
    let start = Instant::now();
    let out = run_interactive(
        sandbox,
        &verdict_scripts::CancelToken::new(),
        &request,
        &run_dir,
    )
    .expect("interactive run");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(
        out.interactor.outcome.exit,
        verdict_scripts::ExitKind::Exited(42),
        "{:?}",
        out.interactor.outcome
    );
    assert_eq!(
        out.relay.transcript.messages,
        2 * trips,
        "one message per line"
    );
    let _ = verdict_sandbox::remove_box_dir(&out.program.box_dir);
    let _ = verdict_sandbox::remove_box_dir(&out.interactor.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
    secs
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn count(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    pin_to_one_core();
    let sandbox = match Sandbox::new(SandboxConfig::default()) {
        Ok(sb) => sb,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let work = tempfile::tempdir().expect("work dir");
    let echo_dir = compile(work.path(), "echo", ECHO);
    let pinger_dir = compile(work.path(), "pinger", PINGER);
    let (echo, pinger) = (build(&echo_dir), build(&pinger_dir));
    let trips = count("VERDICT_BENCH_TRIPS", 20_000);
    let rounds = count("VERDICT_BENCH_ROUNDS", 5);
    println!(
        "isolation: {:?}; {trips} round trips per run, all on CPU 0",
        sandbox.isolation()
    );
    let (mut bare_rates, mut boxed_rates, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let b = trips as f64 / bare(&echo_dir, &pinger_dir, trips);
        let s = trips as f64 / interactive(&sandbox, &echo, &pinger, trips, work.path());
        println!(
            "round {round}: bare pipes {b:.0} round trips/s, interactive test {s:.0} round trips/s, ratio {:.2}",
            b / s
        );
        bare_rates.push(b);
        boxed_rates.push(s);
        ratios.push(b / s);
    }
    println!(
        "median: bare pipes {:.0} round trips/s, interactive test {:.0} round trips/s, bare/interactive {:.2}",
        median(bare_rates),
        median(boxed_rates),
        median(ratios)
    );
}
