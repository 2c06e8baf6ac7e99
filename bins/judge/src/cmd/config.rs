//! The flags every judging command shares, and how they become a `JudgeConfig`.

use anyhow::Context;
use std::path::{Path, PathBuf};
use verdict_scheduler::JudgeConfig;

/// Configuration: a TOML file, then flags on top.
#[derive(Debug, Clone, clap::Args)]
pub struct ConfigArgs {
    /// A TOML config file (see README: work_dir, cache_dir, parallelism, limits, local_roots, remote, languages).
    #[arg(long, env = "VERDICT_CONFIG")]
    pub config: Option<PathBuf>,
    /// Where submissions are judged.
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Where the per-problem cache lives.
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// How many sandboxed runs at once (default: the number of cores).
    #[arg(long)]
    pub parallelism: Option<usize>,
    /// A directory `local` assets may be read from (repeatable).
    #[arg(long = "local-root")]
    pub local_roots: Vec<PathBuf>,
    /// A host `remote` assets may be fetched from at any address (repeatable; none given: any
    /// host whose addresses are all globally routable).
    #[arg(long = "allow-host")]
    pub allow_hosts: Vec<String>,
    /// A network (CIDR) `remote` assets may reach although it is not globally routable
    /// (repeatable), e.g. `10.1.2.0/24`.
    #[arg(long = "allow-network")]
    pub allow_networks: Vec<verdict_fetch::Network>,
}

impl ConfigArgs {
    /// The config file's settings with the flags applied.
    pub fn load(&self) -> anyhow::Result<JudgeConfig> {
        let mut config = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read config {}", path.display()))?;
                JudgeConfig::from_toml(&text)
                    .with_context(|| format!("invalid config {}", path.display()))?
            }
            None => JudgeConfig::default(),
        };
        if let Some(dir) = &self.work_dir {
            config.work_dir = dir.clone();
        }
        if let Some(dir) = &self.cache_dir {
            config.cache_dir = dir.clone();
        }
        if let Some(n) = self.parallelism {
            config.parallelism = n.max(1);
        }
        config.local_roots.extend(self.local_roots.iter().cloned());
        config
            .remote
            .allow_hosts
            .extend(self.allow_hosts.iter().cloned());
        config
            .remote
            .allow_networks
            .extend(self.allow_networks.iter().copied());
        if std::env::var_os("VERDICT_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
            config.require_isolation = true;
        }
        Ok(config)
    }

    /// [`ConfigArgs::load`] for a command that judges: its work and cache directories must be
    /// usable (made and writable), else an error naming the directory and its flag.
    pub fn load_for_judging(&self) -> anyhow::Result<JudgeConfig> {
        let config = self.load()?;
        usable_dir(&config.work_dir, "work", "--work-dir", "work_dir")?;
        usable_dir(&config.cache_dir, "cache", "--cache-dir", "cache_dir")?;
        Ok(config)
    }
}

/// Checks at start that the judge can make and write `dir` (another user's `/tmp/verdict`, a
/// read-only disk), so that it fails once, naming the directory and how to give another,
/// instead of judging every task into a System Error.
pub(crate) fn usable_dir(dir: &Path, what: &str, flag: &str, key: &str) -> anyhow::Result<()> {
    let attempt = std::fs::create_dir_all(dir).and_then(|()| {
        tempfile::Builder::new()
            .prefix(".probe-")
            .tempfile_in(dir)
            .map(drop)
    });
    attempt.with_context(|| {
        format!(
            "cannot use the {what} directory {}: give another with {flag} DIR (or {key} in --config)",
            dir.display()
        )
    })
}

/// Reads a file, or standard input for `-`.
pub fn read_input(path: &str) -> anyhow::Result<String> {
    if path == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .context("cannot read standard input")?;
        Ok(text)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))
    }
}

/// Prints a JSON value on stdout, compact or pretty.
#[allow(clippy::print_stdout)]
pub fn print_json<T: serde::Serialize>(value: &T, pretty: bool) -> anyhow::Result<()> {
    let text = if pretty {
        serde_json::to_string_pretty(value)?
    } else {
        serde_json::to_string(value)?
    };
    println!("{text}");
    Ok(())
}
