//! Bare vs sandboxed run of a static A+B (median, p95, ratio) and time-limit overshoot.
//!
//! `cargo bench -p verdict-sandbox` (needs root, namespaces and cgroups; prints `skipped: ...`
//! otherwise). `VERDICT_BENCH_RUNS` sets the number of runs (default 1000).
#![allow(clippy::print_stdout)]

use std::path::Path;
use std::process::Command;
use verdict_sandbox::bench::{benchmark, limit_overshoot};
use verdict_sandbox::{Sandbox, SandboxConfig, SandboxSpec, StdioSpec};

fn compile(dir: &Path, name: &str, src: &str) -> std::path::PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).expect("write source");
    let out = dir.join(name);
    let ok = Command::new("gcc")
        .args(["-O2", "-static", "-o"])
        .arg(&out)
        .arg(&c)
        .status()
        .expect("gcc");
    assert!(ok.success(), "gcc {name}");
    out
}

fn main() {
    let runs: usize = std::env::var("VERDICT_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let sandbox = match Sandbox::new(SandboxConfig {
        require_isolation: true,
        ..SandboxConfig::default()
    }) {
        Ok(s) => s,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let tools = tempfile::tempdir().expect("tempdir");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tools.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let aplusb = compile(
        tools.path(),
        "aplusb",
        "#include <stdio.h>\nint main(void){long long a,b;if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a+b);return 0;}\n",
    );
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
    machine_cpu_per_run(&sandbox, &spec, runs.div_ceil(2));
    let (cpu, wall) =
        limit_overshoot(&sandbox, boxdir.path(), &busy, &sleeper, 200, 10).expect("overshoot");
    println!("time-limit overshoot at 200 ms (10 runs): cpu {cpu:?} ms, wall {wall:?} ms");
    println!(
        "  worst: cpu +{} ms, wall +{} ms",
        cpu.iter().max().copied().unwrap_or(0),
        wall.iter().max().copied().unwrap_or(0)
    );
}

/// Busy time of the whole machine (every process and kernel thread), in jiffies.
fn machine_busy_jiffies() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let v: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    let idle = v.get(3)? + v.get(4)?;
    Some(v.iter().take(8).sum::<u64>() - idle)
}

/// CPU the machine spends per run, bare and sandboxed (background threads and kernel workers
/// included, which wall time hides on an idle multi-core machine). Includes any other load.
fn machine_cpu_per_run(sandbox: &Sandbox, spec: &SandboxSpec, runs: usize) {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let host = |p: &str| spec.box_dir.join(p);
    let mut per_run = Vec::new();
    for bare in [true, false] {
        let Some(before) = machine_busy_jiffies() else {
            return;
        };
        for _ in 0..runs {
            if bare {
                let _ = Command::new(&spec.program)
                    .current_dir(&spec.box_dir)
                    .stdin(std::fs::File::open(host("in.txt")).expect("stdin"))
                    .stdout(std::fs::File::create(host("out.txt")).expect("stdout"))
                    .status()
                    .expect("bare run");
            } else {
                sandbox.run(spec).expect("sandbox run");
            }
        }
        // Let background work (cgroup removal, namespace teardown) finish inside the window.
        std::thread::sleep(std::time::Duration::from_millis(300));
        let Some(after) = machine_busy_jiffies() else {
            return;
        };
        per_run.push((after - before) * 1_000_000 / hz / runs as u64);
    }
    println!(
        "machine CPU per run ({runs} runs each, all processes): bare {} us, sandbox {} us",
        per_run[0], per_run[1]
    );
}
