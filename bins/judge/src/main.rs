//! `judge`: the command-line front door of verdict. Thin: it parses arguments, reads files and
//! composes the library crates; every decision lives in a crate.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// verdict: a judge and evaluation engine.
#[derive(Debug, Parser)]
#[command(name = "judge", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Judge one Submission (file or `-`) and print its JudgeReport.
    Run(cmd::run::Args),
    /// List the languages of the contract: ready or missing here, with versions and install hints.
    Languages(cmd::languages::Args),
    /// Judge a deliverable against a Task Oracle suite and print the report.
    Oracle(cmd::oracle::Args),
    /// Write one JSON Schema per top-level wire type into a directory.
    Schema(cmd::schema::Args),
    /// Run one command in the sandbox and print its outcome as JSON.
    Sandbox(cmd::sandbox::Args),
    /// Run Agent Lab tasks (JSON or JSON Lines), append RunRecords and ScoreRecords, summarise.
    Lab(cmd::lab::Args),
    /// Write Agent Lab runs and scores as one self-contained HTML report (`-o report.html`).
    View(cmd::view::Args),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VERDICT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Languages(args) => cmd::languages::run(args),
        Command::Oracle(args) => cmd::oracle::run(args),
        Command::Schema(args) => cmd::schema::run(args),
        Command::Sandbox(args) => cmd::sandbox::run(args),
        Command::Lab(args) => cmd::lab::run(args),
        Command::View(args) => cmd::view::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            cmd::report_error(&err);
            ExitCode::from(2)
        }
    }
}
