//! `judge schema` (being built).

use std::process::ExitCode;

/// Arguments of `judge schema`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `judge schema`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("judge schema is not built yet")
}
