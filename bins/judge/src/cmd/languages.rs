//! `judge languages`: which languages work on this host, with versions, and why the others do not.

use super::config::{ConfigArgs, print_json};
use std::process::ExitCode;
use std::time::Duration;
use verdict_scripts::{LanguageProfiles, probe_all};

/// Arguments of `judge languages`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Probes every language of the contract.
#[allow(clippy::print_stdout)]
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = args.config.load()?;
    let profiles = LanguageProfiles::from_toml(
        verdict_scripts::language::BUILTIN_PROFILES,
        config.languages.as_ref(),
    )?;
    let statuses = probe_all(&profiles, Duration::from_secs(20));
    if args.json {
        print_json(&statuses, true)?;
    } else {
        for status in &statuses {
            let mut detail = if status.ready {
                status.version.clone().unwrap_or_default()
            } else {
                status.missing.clone().unwrap_or_default()
            };
            if !status.libraries.is_empty() {
                detail = format!("{detail} (libraries: {})", status.libraries.join(", "));
            }
            println!(
                "{:<10} {:<8} {}",
                status.language,
                if status.ready { "ready" } else { "missing" },
                detail
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
