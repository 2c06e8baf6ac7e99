//! `judge sandbox`: runs one command in the sandbox, prints what it wrote on its standard output
//! (as `isolate --run` does) and then its outcome as JSON, or benchmarks it bare vs sandboxed
//! with `--bench N`.

use anyhow::Context;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use verdict_sandbox::{Sandbox, SandboxConfig, SandboxLimits, SandboxSpec, StdioSpec};

/// Arguments of `judge sandbox`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CPU time limit in ms (user+sys of every process).
    #[arg(long, value_name = "MS")]
    time: Option<u64>,
    /// Wall-clock limit in ms (default: 2 x time + 1000, or the sandbox's default).
    #[arg(long, value_name = "MS")]
    wall: Option<u64>,
    /// Memory limit in KiB (resident, by cgroup; never an address-space limit).
    #[arg(long, value_name = "KB")]
    memory: Option<u64>,
    /// Processes and threads limit.
    #[arg(long, value_name = "N")]
    procs: Option<u32>,
    /// Output limit in KiB (every file the program writes, stdout and stderr included).
    #[arg(long, value_name = "KB")]
    output: Option<u64>,
    /// Open files limit.
    #[arg(long, value_name = "N")]
    files: Option<u32>,
    /// Stack limit in KiB (default unlimited).
    #[arg(long, value_name = "KB")]
    stack: Option<u64>,
    /// File to read standard input from (default /dev/null).
    #[arg(long, value_name = "F")]
    stdin: Option<PathBuf>,
    /// File to write standard output to (default: printed on this command's standard output,
    /// before the outcome; `-`, `/dev/stdout` and `/dev/stderr` print it too).
    #[arg(long, value_name = "F")]
    stdout: Option<PathBuf>,
    /// File to write standard error to (default /dev/null; `-`, `/dev/stderr` and `/dev/stdout`
    /// print it on this command's).
    #[arg(long, value_name = "F")]
    stderr: Option<PathBuf>,
    /// Box directory (the program's working directory, /box inside); default a fresh temporary one.
    #[arg(long, value_name = "D")]
    dir: Option<PathBuf>,
    /// Extra host directory visible read-only at the same path (repeatable).
    #[arg(long = "ro", value_name = "DIR")]
    read_only: Vec<PathBuf>,
    /// Extra host directory visible writable at the same path (repeatable).
    #[arg(long = "rw", value_name = "DIR")]
    writable: Vec<PathBuf>,
    /// Environment variable added to the cleared environment (repeatable).
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// Fail instead of falling back to rlimits when namespaces or cgroups are unavailable.
    #[arg(long)]
    require_isolation: bool,
    /// Benchmark: run the command N times bare and N times sandboxed; print percentiles.
    #[arg(long, value_name = "N")]
    bench: Option<usize>,
    /// Print where this process's time went, phase by phase, as JSON on stderr.
    #[arg(long)]
    timings: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM ARGS")]
    command: Vec<OsString>,
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    if p.is_absolute() {
        return Ok(p.to_owned());
    }
    Ok(std::env::current_dir()
        .context("current directory")?
        .join(p))
}

/// Runs `judge sandbox`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let start_ns = args.timings.then(verdict_sandbox::timings::enable);
    let config = SandboxConfig {
        require_isolation: args.require_isolation,
        // One run (but for --bench): nothing is made for reuse.
        one_shot: args.bench.is_none(),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).context("cannot set up the sandbox")?;
    let (program, rest) = args.command.split_first().context("no program given")?;
    let mut program = PathBuf::from(program);
    let mut read_only_mounts: Vec<PathBuf> = args
        .read_only
        .iter()
        .map(|p| absolute(p))
        .collect::<Result<_, _>>()?;
    if program.components().count() > 1 {
        // A path given from the caller's directory: run it from where it is, read-only.
        program = absolute(&program)?;
        let visible = sandbox
            .config()
            .toolchain_dirs
            .iter()
            .chain(read_only_mounts.iter())
            .any(|d| program.starts_with(d));
        if !visible
            && args.dir.as_ref().is_none_or(|d| !program.starts_with(d))
            && let Some(parent) = program.parent()
        {
            read_only_mounts.push(parent.to_owned());
        }
    }
    let made_dir = args.dir.is_none();
    let box_dir = match &args.dir {
        Some(d) => absolute(d)?,
        None => {
            let d = std::env::temp_dir().join(format!("verdict-sandbox-{}", std::process::id()));
            std::fs::create_dir_all(&d).with_context(|| format!("create {}", d.display()))?;
            d
        }
    };
    // Output printed on ours is written to a file outside the box first, then copied.
    let io_dir = std::env::temp_dir().join(format!("verdict-sandbox-io-{}", std::process::id()));
    let passing = args.bench.is_none();
    let out_stream = stream(args.stdout.as_deref(), Ours::Stdout, passing);
    let err_stream = stream(args.stderr.as_deref(), Ours::Stderr, false);
    if matches!(out_stream, Stream::Pass(_)) || matches!(err_stream, Stream::Pass(_)) {
        std::fs::create_dir_all(&io_dir).with_context(|| format!("create {}", io_dir.display()))?;
    }
    let sink = |stream: &Stream, name: &str| -> anyhow::Result<StdioSpec> {
        Ok(match stream {
            Stream::File(p) => StdioSpec::File(absolute(p)?),
            Stream::Pass(_) => StdioSpec::File(io_dir.join(name)),
            Stream::Null => StdioSpec::Null,
        })
    };
    let stdio = |p: &Option<PathBuf>| -> anyhow::Result<StdioSpec> {
        Ok(match p {
            Some(p) => StdioSpec::File(absolute(p)?),
            None => StdioSpec::Null,
        })
    };
    let mut env = Vec::new();
    for kv in &args.env {
        let (k, v) = kv
            .split_once('=')
            .with_context(|| format!("--env {kv}: expected K=V"))?;
        env.push((k.to_string(), v.to_string()));
    }
    let spec = SandboxSpec {
        program,
        args: rest.to_vec(),
        env,
        box_dir: box_dir.clone(),
        stdin: stdio(&args.stdin)?,
        stdout: sink(&out_stream, "stdout")?,
        stderr: sink(&err_stream, "stderr")?,
        limits: SandboxLimits {
            cpu_time_ms: args.time,
            wall_time_ms: args.wall,
            memory_kb: args.memory,
            output_bytes: args.output.map(|k| k.saturating_mul(1024)),
            processes: args.procs,
            open_files: args.files,
            stack_kb: args.stack,
        },
        read_only_mounts,
        writable_mounts: args
            .writable
            .iter()
            .map(|p| absolute(p))
            .collect::<Result<_, _>>()?,

        stop: None,
        // A command of its own: its limits end it, or the user's Ctrl-C.
        cancel: None,
    };
    let result = match args.bench {
        Some(n) => verdict_sandbox::bench::benchmark(&sandbox, &spec, n)
            .map(|r| serde_json::to_string_pretty(&r))
            .context("benchmark"),
        None => sandbox
            .run(&spec)
            .map(|o| serde_json::to_string_pretty(&o))
            .context("sandbox run"),
    };
    if made_dir {
        let _ = verdict_sandbox::remove_box_dir(&box_dir);
    }
    drop(sandbox);
    verdict_sandbox::timings::mark("teardown");
    let passed = pass_through(&io_dir, &out_stream, &err_stream);
    let _ = std::fs::remove_dir_all(&io_dir);
    let json = result??;
    passed?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}").context("write stdout")?;
    drop(out);
    if let Some(start_ns) = start_ns {
        verdict_sandbox::timings::mark("output");
        print_timings(start_ns)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One of this command's own output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ours {
    Stdout,
    Stderr,
}

/// Where the program's stdout or stderr goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stream {
    /// A file (inside the box when relative).
    File(PathBuf),
    /// Printed on one of ours after the run.
    Pass(Ours),
    /// Thrown away.
    Null,
}

/// The stream a `--stdout`/`--stderr` value names: `-` and the names of our own descriptors
/// (`/dev/stdout`, symlinks the sandbox would refuse to follow) are passed through.
fn stream(path: Option<&Path>, natural: Ours, pass_by_default: bool) -> Stream {
    let Some(path) = path else {
        return if pass_by_default {
            Stream::Pass(natural)
        } else {
            Stream::Null
        };
    };
    let name = path.to_string_lossy();
    match name.as_ref() {
        "-" => Stream::Pass(natural),
        "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Stream::Pass(Ours::Stdout),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Stream::Pass(Ours::Stderr),
        _ => Stream::File(path.to_owned()),
    }
}

/// Copies what the program wrote to the streams passed through onto ours.
fn pass_through(io_dir: &Path, out: &Stream, err: &Stream) -> anyhow::Result<()> {
    for (stream, name) in [(out, "stdout"), (err, "stderr")] {
        let Stream::Pass(ours) = stream else {
            continue;
        };
        let path = io_dir.join(name);
        let Ok(mut file) = std::fs::File::open(&path) else {
            continue; // the run did not start
        };
        let copied = match ours {
            Ours::Stdout => std::io::copy(&mut file, &mut std::io::stdout().lock()),
            Ours::Stderr => std::io::copy(&mut file, &mut std::io::stderr().lock()),
        };
        copied.with_context(|| format!("cannot copy the program's {name}"))?;
    }
    Ok(())
}

/// `--timings`: one JSON object on stderr, `start_ns` (when `judge sandbox` began, on
/// `CLOCK_MONOTONIC`) and each phase's duration and end.
fn print_timings(start_ns: u64) -> anyhow::Result<()> {
    let phases: Vec<_> = verdict_sandbox::timings::phases()
        .into_iter()
        .map(|p| serde_json::json!({"phase": p.name, "us": p.duration_ns / 1000, "end_ns": p.end_ns}))
        .collect();
    let json = serde_json::json!({"timings": {"start_ns": start_ns, "phases": phases}});
    writeln!(std::io::stderr().lock(), "{json}").context("write stderr")
}
