//! `judge oracle SUITE.json`: judge a deliverable against a Task Oracle suite and print the report.

use super::config::{print_json, read_input};
use anyhow::Context;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use verdict_contracts::oracle::{DeliverableType, OracleCaseStatus, OracleReport, parse_suite};
use verdict_oracle::{CancelToken, OracleOptions, run_suite};
use verdict_sandbox::{Sandbox, SandboxConfig};

/// Arguments of `judge oracle`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The suite: a JSON file, or `-` for standard input.
    pub suite: String,
    /// Pretty-print the report.
    #[arg(long)]
    pub pretty: bool,
    /// `json` (the report) or `table` (one line per case, for people).
    #[arg(long, value_enum, default_value_t = super::run::Format::Json)]
    pub format: super::run::Format,
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
    // sandbox pays for no pool or thread it would not reuse. Script and cli suites
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
    let report = run_suite(&sandbox, &CancelToken::new(), &suite, &options)
        .with_context(|| format!("cannot run suite {}", args.suite))?;
    match args.format {
        super::run::Format::Json => {
            print_json(&report, args.pretty)?;
            if std::io::stderr().is_terminal() {
                let _ = writeln!(std::io::stderr().lock(), "{}", headline(&report));
            }
        }
        super::run::Format::Table => std::io::stdout()
            .lock()
            .write_all(table(&report).as_bytes())
            .context("cannot write to stdout")?,
    }
    Ok(super::judged_exit(report.summary.all_passed()))
}

/// The outcome on one line: "3 of 4 cases passed · 1 failed".
fn headline(report: &OracleReport) -> String {
    let s = &report.summary;
    let mut line = format!("{} of {} cases passed", s.passed, s.total);
    for (n, what) in [
        (s.failed, "failed"),
        (s.error, "error"),
        (s.timeout, "timeout"),
        (s.invalid_test_format, "invalid test format"),
    ] {
        if n > 0 {
            let _ = write!(line, " · {n} {what}");
        }
    }
    line
}

/// The report as a table: the outcome, one row per case, and why each failed case failed.
fn table(report: &OracleReport) -> String {
    let name_w = report
        .results
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut out = format!("{}\n", headline(report));
    let _ = writeln!(out, "{:<name_w$}  {:<19}  {:>8}", "case", "status", "time");
    for r in &report.results {
        let _ = writeln!(
            out,
            "{:<name_w$}  {:<19}  {:>8}",
            r.name,
            r.status.as_str(),
            format!("{} ms", r.time_ms)
        );
        if r.status == OracleCaseStatus::Passed {
            continue;
        }
        let mut why = r.message.clone().unwrap_or_default();
        if let (Some(expected), Some(got)) = (&r.expected, &r.got) {
            if !why.is_empty() {
                why.push_str("; ");
            }
            let _ = write!(why, "expected {expected}, got {got}");
        }
        for line in why.lines().filter(|l| !l.trim().is_empty()).take(3) {
            let line: String = line.chars().take(160).collect();
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}
