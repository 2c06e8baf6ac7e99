//! `judge sandbox` (being built).

use std::process::ExitCode;

/// Arguments of `judge sandbox`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `judge sandbox`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("judge sandbox is not built yet")
}
