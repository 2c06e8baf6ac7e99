//! `verdict-fuzz`: fuzz every parser (or one) for longer than the tests do.

use anyhow::{Context, bail};
use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;
use verdict_fuzz::{Budget, TARGETS, TrackingAlloc, fuzz, quiet_panics, target};

#[global_allocator]
static ALLOC: TrackingAlloc = TrackingAlloc;

/// Fuzz verdict's parsers; exit 1 when something panicked or over-allocated.
#[derive(Debug, Parser)]
struct Args {
    /// Only this target (default: all); `--list` names them.
    #[arg(long)]
    target: Option<String>,
    /// Seconds per target.
    #[arg(long, default_value_t = 60)]
    secs: u64,
    /// At most this many inputs per target.
    #[arg(long, default_value_t = u64::MAX)]
    inputs: u64,
    /// The random seed (the same seed repeats a run).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where failing inputs are written.
    #[arg(long, default_value = "target/fuzz-findings")]
    findings: PathBuf,
    /// List the targets and exit.
    #[arg(long)]
    list: bool,
}

#[allow(clippy::print_stdout)]
fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut out = std::io::stdout().lock();
    if args.list {
        for t in TARGETS {
            writeln!(out, "{}", t.name)?;
        }
        return Ok(());
    }
    let chosen: Vec<_> = match &args.target {
        Some(name) => {
            vec![target(name).with_context(|| format!("--target: no target named {name}"))?]
        }
        None => TARGETS.iter().collect(),
    };
    quiet_panics();
    let budget = Budget {
        inputs: args.inputs,
        time: Duration::from_secs(args.secs),
    };
    let mut failures = 0;
    for t in chosen {
        let stats = fuzz(t, budget, args.seed);
        writeln!(
            out,
            "{:<20} inputs {:>9} (generated {:>8})  failures {:>4}  slowest {:>7.1} ms  largest allocation {:>3}% of bound",
            t.name,
            stats.inputs,
            stats.generated,
            stats.failures,
            stats.slowest.as_secs_f64() * 1e3,
            stats.worst_alloc_percent
        )?;
        for (i, finding) in stats.findings.iter().enumerate() {
            std::fs::create_dir_all(&args.findings)
                .with_context(|| format!("create {}", args.findings.display()))?;
            let path = args.findings.join(format!("{}-{i}", t.name));
            std::fs::write(&path, &finding.input)
                .with_context(|| format!("write {}", path.display()))?;
            writeln!(out, "  {}: {}", path.display(), finding.what)?;
        }
        failures += stats.failures;
    }
    if failures > 0 {
        bail!("{failures} failing inputs");
    }
    Ok(())
}
