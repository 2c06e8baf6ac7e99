//! `judge schema --out DIR`: writes one JSON Schema per top-level wire type,
//! `<Name>.schema.json` (pretty, final newline). Prints nothing on stdout.

use anyhow::Context as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `judge schema`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory to write into (created if missing).
    #[arg(long, value_name = "DIR", default_value = "schemas")]
    pub out: PathBuf,
}

/// Runs `judge schema`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    for (name, text) in verdict_contracts::schema_files() {
        let path = args.out.join(&name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        tracing::info!(path = %path.display(), "wrote schema");
    }
    Ok(ExitCode::SUCCESS)
}
