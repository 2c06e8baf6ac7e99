//! One-shot `judge sandbox` (the whole process, exec to exit) vs a bare fork+exec+wait of the
//! same static A+B, in the same run; isolate's `--cg --run` with the same limits when `isolate`
//! is on `PATH`; and the per-phase breakdown of a one-shot run (`judge sandbox --timings`).
//!
//! `cargo bench -p verdict-judge --bench oneshot` (needs root, namespaces and cgroups; prints
//! `skipped: ...` otherwise). `VERDICT_BENCH_RUNS` sets the runs of each kind (default 200);
//! `VERDICT_BENCH_COMPARE=<judge binary>` also times another build of `judge` (an older commit,
//! say) in the same alternating loop, and `VERDICT_BENCH_JUDGE=<judge binary>` replaces the
//! one built here (a copy beside the compared one: the same binary measured from `target/` and
//! from a copy in `/tmp` differed by ~6 %, so compare copies in one place). Builds that leave
//! different things in the state dir or the cgroup tree (a one-shot instance's registry files
//! or kept counters, say) make each other pay in the alternating loop: compare them in blocks
//! (`VERDICT_BENCH_JUDGE` alone, in turn). CI compiles it (`cargo bench --no-run`); it does
//! not time it.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use verdict_sandbox::bench::{APLUSB_C, compile_static_c, runs_wanted};
use verdict_sandbox::timings::monotonic_ns;

#[path = "common/isolate.rs"]
mod isolate;
use isolate::IsolateBox;

/// the figures measured before (quiet machine): isolate 1.10 `--cg --run`, verdict before this bench.
const ISOLATE_REFERENCE_MS: f64 = 3.1;

/// The limits of every sandboxed run (the same for isolate).
const TIME_MS: u64 = 1000;
const WALL_MS: u64 = 3000;
const MEMORY_KB: u64 = 262_144;
const PROCS: u32 = 8;

/// The A+B compiled statically in `dir`.
fn compile(dir: &Path) -> PathBuf {
    compile_static_c(dir, "aplusb", APLUSB_C).expect("gcc aplusb")
}

/// Median of `samples` in ms.
fn median_ms(samples: &mut [Duration]) -> f64 {
    samples.sort_unstable();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

fn p95_ms(samples: &mut [Duration]) -> f64 {
    samples.sort_unstable();
    samples[(samples.len() - 1) * 95 / 100].as_secs_f64() * 1000.0
}

/// Times one whole process (spawn to wait) and returns its time and output.
fn time(cmd: &mut Command) -> (Duration, std::process::Output) {
    let t = Instant::now();
    let out = cmd.output().expect("spawn");
    (t.elapsed(), out)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

struct Setup {
    judge: PathBuf,
    /// Another `judge` build to compare with (`VERDICT_BENCH_COMPARE`).
    compare: Option<PathBuf>,
    program: PathBuf,
    box_dir: PathBuf,
}

impl Setup {
    fn bare(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.current_dir(&self.box_dir)
            .stdin(std::fs::File::open(self.box_dir.join("in.txt")).expect("in.txt"))
            .stdout(std::fs::File::create(self.box_dir.join("out.txt")).expect("out.txt"))
            .stderr(Stdio::null());
        c
    }

    fn judge(&self, extra: &[&str]) -> Command {
        self.judge_of(&self.judge, extra)
    }

    fn judge_of(&self, judge: &Path, extra: &[&str]) -> Command {
        let mut c = Command::new(judge);
        c.arg("sandbox")
            .args(extra)
            .args(["--time", &TIME_MS.to_string()])
            .args(["--wall", &WALL_MS.to_string()])
            .args(["--memory", &MEMORY_KB.to_string()])
            .args(["--procs", &PROCS.to_string()])
            .arg("--require-isolation")
            .arg("--dir")
            .arg(&self.box_dir)
            .arg("--stdin")
            .arg(self.box_dir.join("in.txt"))
            .arg("--stdout")
            .arg(self.box_dir.join("out.txt"))
            .arg("--")
            .arg(&self.program)
            .stdin(Stdio::null());
        c
    }
}

/// isolate's flags for the limits every sandboxed run gets.
fn isolate_limits() -> Vec<String> {
    vec![
        format!("--time={}", TIME_MS as f64 / 1000.0),
        format!("--wall-time={}", WALL_MS as f64 / 1000.0),
        format!("--cg-mem={MEMORY_KB}"),
        format!("--processes={PROCS}"),
    ]
}

/// The phases of one `judge sandbox --timings` run, process start and exit included, in us.
fn breakdown(setup: &Setup) -> Vec<(String, u64)> {
    let mut c = setup.judge(&["--timings"]);
    let spawned = monotonic_ns();
    let out = c.output().expect("spawn judge");
    let exited = monotonic_ns();
    assert!(out.status.success(), "judge sandbox --timings failed");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("{\"timings\""))
        .expect("timings on stderr");
    let v: serde_json::Value = serde_json::from_str(line).expect("timings json");
    let t = &v["timings"];
    let start = t["start_ns"].as_u64().expect("start_ns");
    let mut phases = vec![("process start".to_string(), (start - spawned) / 1000)];
    let mut last = start;
    for p in t["phases"].as_array().expect("phases") {
        phases.push((
            p["phase"].as_str().expect("phase").to_string(),
            p["us"].as_u64().expect("us"),
        ));
        last = p["end_ns"].as_u64().expect("end_ns");
    }
    phases.push(("process exit".to_string(), (exited - last) / 1000));
    phases
}

fn main() {
    verdict_sandbox::bench::rerun_without_cargo_library_path();
    let runs = runs_wanted(200).max(1);
    let tools = tempfile::tempdir().expect("tempdir");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tools.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let program = compile(tools.path());
    let box_dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(box_dir.path().join("in.txt"), "1 2\n").expect("write");
    let setup = Setup {
        judge: std::env::var_os("VERDICT_BENCH_JUDGE")
            .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_judge")), PathBuf::from),
        compare: std::env::var_os("VERDICT_BENCH_COMPARE").map(PathBuf::from),
        program,
        box_dir: box_dir.path().to_owned(),
    };
    let (_, first) = time(&mut setup.judge(&[]));
    if !first.status.success() {
        println!(
            "skipped: judge sandbox --require-isolation failed here: {}",
            String::from_utf8_lossy(&first.stderr).trim()
        );
        return;
    }
    let out = std::fs::read_to_string(box_dir.path().join("out.txt")).unwrap_or_default();
    assert_eq!(out, "3\n", "the sandboxed A+B's output");

    let isolate = IsolateBox::init(97, &setup.program, &setup.box_dir.join("in.txt"));
    let limits = isolate_limits();
    let load_before = load();
    let (mut bare, mut oneshot, mut iso, mut other) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    // The kinds take turns in an order rotated every round: the run right after the bare one
    // was measured ~5 % slower than the others (the same binary in two slots differed so),
    // which would favour whichever kind came later.
    for round in 0..runs {
        for k in 0..4 {
            match (round + k) % 4 {
                0 => bare.push(time(&mut setup.bare()).0),
                1 => {
                    let (t, o) = time(&mut setup.judge(&[]));
                    assert!(o.status.success(), "judge sandbox failed");
                    oneshot.push(t);
                }
                2 => {
                    if let Some(i) = &isolate {
                        iso.push(time(&mut i.run(&limits)).0);
                    }
                }
                _ => {
                    if let Some(j) = &setup.compare {
                        let (t, o) = time(&mut setup.judge_of(j, &[]));
                        assert!(o.status.success(), "{} sandbox failed", j.display());
                        other.push(t);
                    }
                }
            }
        }
    }
    let bare_ms = median_ms(&mut bare);
    let oneshot_ms = median_ms(&mut oneshot);
    println!(
        "one-shot static A+B, {runs} runs each, alternating (order rotated); load {load_before} -> {}",
        load()
    );
    println!(
        "  bare fork+exec+wait       median {bare_ms:>6.2} ms  p95 {:>6.2} ms",
        p95_ms(&mut bare)
    );
    println!(
        "  judge sandbox (process)   median {oneshot_ms:>6.2} ms  p95 {:>6.2} ms  ratio {:.2}",
        p95_ms(&mut oneshot),
        oneshot_ms / bare_ms
    );
    if let Some(j) = &setup.compare {
        let other_ms = median_ms(&mut other);
        println!(
            "  compared: {}  median {other_ms:>6.2} ms  p95 {:>6.2} ms  ratio {:.2}",
            j.display(),
            p95_ms(&mut other),
            other_ms / bare_ms
        );
    }
    if iso.is_empty() {
        println!(
            "  isolate --cg --run        absent (quiet machine: {ISOLATE_REFERENCE_MS} ms, bare 0.71 ms, ratio {:.2})",
            ISOLATE_REFERENCE_MS / 0.71
        );
    } else {
        let iso_ms = median_ms(&mut iso);
        println!(
            "  isolate --cg --run        median {iso_ms:>6.2} ms  p95 {:>6.2} ms  ratio {:.2}",
            p95_ms(&mut iso),
            iso_ms / bare_ms
        );
    }

    // The breakdown: each phase's median over a few runs.
    let samples: Vec<_> = (0..runs.clamp(1, 41)).map(|_| breakdown(&setup)).collect();
    println!(
        "  where a one-shot run's time goes (median of {} runs, us):",
        samples.len()
    );
    let mut total = 0;
    for (i, (name, _)) in samples[0].iter().enumerate() {
        let mut v: Vec<u64> = samples
            .iter()
            .filter_map(|s| s.get(i).filter(|p| &p.0 == name).map(|p| p.1))
            .collect();
        v.sort_unstable();
        let m = v.get(v.len() / 2).copied().unwrap_or(0);
        total += m;
        println!("    {name:<22} {m:>6}");
    }
    println!("    {:<22} {total:>6}", "sum of medians");
}
