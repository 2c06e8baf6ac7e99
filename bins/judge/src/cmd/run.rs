//! `judge run FILE|-`: judge one Submission and print its JudgeReport.

use super::config::{ConfigArgs, print_json, read_input};
use anyhow::Context;
use std::process::ExitCode;
use verdict_contracts::{RequestError, parse_submission};
use verdict_scheduler::Judge;

/// Arguments of `judge run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Submission JSON file, or `-` for standard input.
    pub file: String,
    /// Pretty-print the report.
    #[arg(long)]
    pub pretty: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Judges the submission; an invalid request is a report with a message (exit 0), unreadable input exit 2.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.file)?;
    let submission = match parse_submission(&text) {
        Ok(submission) => submission,
        Err(RequestError::Invalid(invalid)) => {
            print_json(&invalid.into_report(), args.pretty)?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(err) => {
            return Err(
                anyhow::Error::new(err).context(format!("{} is not a Submission", args.file))
            );
        }
    };
    let config = args.config.load()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    let report = runtime.block_on(judge.judge(submission));
    print_json(&report, args.pretty)?;
    let exiting = verdict_scripts::timing::phase("judge.drop");
    drop(judge);
    exiting.end();
    let exiting = verdict_scripts::timing::phase("runtime.drop");
    drop(runtime);
    exiting.end();
    Ok(ExitCode::SUCCESS)
}
