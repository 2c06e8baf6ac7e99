//! Bare vs sandboxed run of a static A+B (median, p95, ratio) and time-limit overshoot.
//!
//! `cargo bench -p verdict-sandbox --features bench` (needs root, namespaces and cgroups; prints `skipped: ...`
//! otherwise). `VERDICT_BENCH_RUNS` sets the number of runs (default 1000).
#![allow(clippy::print_stdout)]

use std::path::Path;
use verdict_sandbox::bench::{
    APLUSB_C, benchmark, compile_static_c, limit_overshoot, machine_cpu_per_run, runs_wanted,
    side_by_side, tree_cpu_per_run,
};
use verdict_sandbox::{Sandbox, SandboxConfig, SandboxSpec, StdioSpec};

/// `source` compiled statically as `dir/name`.
fn compile(dir: &Path, name: &str, source: &str) -> std::path::PathBuf {
    compile_static_c(dir, name, source).expect("gcc")
}

fn main() {
    verdict_sandbox::bench::rerun_without_cargo_library_path();
    let runs = runs_wanted(1000);
    let config = SandboxConfig {
        require_isolation: true,
        ..SandboxConfig::default()
    };
    let sandbox = match Sandbox::new(config.clone()) {
        Ok(s) => s,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let tools = tempfile::tempdir().expect("tempdir");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tools.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let aplusb = compile(tools.path(), "aplusb", APLUSB_C);
    let busy = compile(
        tools.path(),
        "busy",
        "int main(void){volatile unsigned long x=0;for(;;)x++;}\n",
    );
    let sleeper = compile(
        tools.path(),
        "sleeper",
        "#include <unistd.h>\nint main(void){for(;;)pause();}\n",
    );
    let boxdir = tempfile::tempdir().expect("tempdir");
    std::fs::write(boxdir.path().join("in.txt"), "1 2\n").expect("write");
    let spec = SandboxSpec {
        program: aplusb.clone(),
        box_dir: boxdir.path().to_owned(),
        stdin: StdioSpec::File("in.txt".into()),
        stdout: StdioSpec::File("out.txt".into()),
        read_only_mounts: vec![tools.path().to_owned()],
        ..SandboxSpec::default()
    };
    let r = benchmark(&sandbox, &spec, runs).expect("benchmark");
    println!("static A+B, {} runs, isolation {:?}", r.runs, r.isolation);
    println!(
        "  bare     median {:>6} us  p95 {:>6} us",
        r.bare.median_us, r.bare.p95_us
    );
    println!(
        "  sandbox  median {:>6} us  p95 {:>6} us",
        r.sandbox.median_us, r.sandbox.p95_us
    );
    println!(
        "  ratio    median {:>6.2}     p95 {:>6.2}",
        r.ratio_median, r.ratio_p95
    );
    let half = runs.div_ceil(2);
    if let Some((bare, boxed)) = machine_cpu_per_run(&sandbox, &spec, half).expect("cpu") {
        println!(
            "machine CPU per run ({half} runs each, all processes): bare {bare} us, sandbox {boxed} us"
        );
    }
    let (bare, boxed) = tree_cpu_per_run(&config, &spec, half).expect("cpu");
    println!(
        "CPU per run of this process tree and kernel threads ({half} runs each, other processes left out): bare {bare} us, sandbox {boxed} us"
    );
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let dirs: Vec<_> = (0..cores)
        .map(|_| {
            let dir = tempfile::tempdir().expect("tempdir");
            std::fs::write(dir.path().join("in.txt"), "1 2\n").expect("write");
            dir
        })
        .collect();
    let specs: Vec<_> = dirs
        .iter()
        .map(|dir| SandboxSpec {
            box_dir: dir.path().to_owned(),
            ..spec.clone()
        })
        .collect();
    let (bare, boxed) = side_by_side(&sandbox, &specs, half).expect("side by side");
    println!(
        "{cores} at once ({half} runs each): bare {bare} us, sandbox {boxed} us of wall per run, ratio {:.2}",
        boxed as f64 / bare.max(1) as f64
    );
    let (cpu, wall) =
        limit_overshoot(&sandbox, boxdir.path(), &busy, &sleeper, 200, 10).expect("overshoot");
    println!("time-limit overshoot at 200 ms (10 runs): cpu {cpu:?} ms, wall {wall:?} ms");
    println!(
        "  worst: cpu +{} ms, wall +{} ms",
        cpu.iter().max().copied().unwrap_or(0),
        wall.iter().max().copied().unwrap_or(0)
    );
}
