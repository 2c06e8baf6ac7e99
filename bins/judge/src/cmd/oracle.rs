//! `judge oracle SUITE.json`: judge a deliverable against a Task Oracle suite and print the report.

use super::config::{print_json, read_input};
use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;
use verdict_contracts::oracle::{DeliverableType, parse_suite};
use verdict_sandbox::{Sandbox, SandboxConfig};
use verdict_scripts::oracle::{OracleOptions, run_suite};

/// Arguments of `judge oracle`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The suite: a JSON file, or `-` for standard input.
    pub suite: String,
    /// Pretty-print the report.
    #[arg(long)]
    pub pretty: bool,
    /// Per-case time limit in ms for suites that give no `timeout_ms`.
    #[arg(long)]
    pub default_timeout_ms: Option<u64>,
    /// Where temporary boxes are made (default: the system's temp dir).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
}

/// Runs `judge oracle`: exit 0 when every case passed, 1 when some did not, 2 on bad input.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.suite)?;
    let suite = parse_suite(&text).with_context(|| format!("invalid suite {}", args.suite))?;
    // A function suite runs in one interpreter (more only when one dies mid-suite): a one-shot
    // sandbox pays for no pool or thread it would not reuse (issue 16). Script and cli suites
    // run a process per case and keep the zygotes.
    let config = SandboxConfig {
        require_isolation: std::env::var_os("VERDICT_REQUIRE_SANDBOX").is_some_and(|v| v == "1"),
        one_shot: suite.deliverable_type == DeliverableType::Function,
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).context("cannot set up the sandbox")?;
    let mut options = OracleOptions {
        work_dir: args.work_dir,
        ..OracleOptions::default()
    };
    if let Some(ms) = args.default_timeout_ms {
        options.default_timeout_ms = ms.max(1);
    }
    let report = run_suite(&sandbox, &suite, &options)
        .with_context(|| format!("cannot run suite {}", args.suite))?;
    print_json(&report, args.pretty)?;
    Ok(if report.summary.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
