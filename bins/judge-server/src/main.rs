//! `judge-server`: the judge, the Task Oracle and Agent Lab over HTTP.
//!
//! `judge-server --config server.toml` serves until SIGTERM or SIGINT, then refuses new work,
//! lets queued and running submissions finish (at most `shutdown_grace_ms`) and exits.
//! Logs are JSON lines on stderr (`RUST_LOG` filters them; default `info`).

use anyhow::Context;
use clap::Parser;
use std::net::SocketAddr;
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;
use verdict_judge_server::{AppState, Role, ServerConfig, serve, serve_frontend, serve_worker};

/// The verdict judge over HTTP.
#[derive(Debug, Parser)]
#[command(name = "judge-server", version)]
struct Args {
    /// The TOML config file (see README: listen, `[judge]`, queue_capacity, workers, tokens, quotas).
    #[arg(long, env = "VERDICT_SERVER_CONFIG")]
    config: Option<PathBuf>,
    /// Listen here instead of the config's `listen`.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// Check the config and exit.
    #[arg(long)]
    check_config: bool,
}

fn main() -> std::process::ExitCode {
    // An ordinary user's server enters a user namespace of its own before any thread starts,
    // where the sandbox can isolate boxes as root does (docs/sandbox.md, "Without root").
    let entered = verdict_sandbox::rootless::enter_user_namespace();
    // Large bodies, Submissions and reports are unmapped when freed, so the memory of judged
    // submissions goes back to the kernel (docs/server.md, "Availability").
    verdict_sandbox::heap::return_large_blocks();
    tracing_subscriber::fmt()
        .json()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();
    if let verdict_sandbox::rootless::Entered::Refused(why) = &entered {
        tracing::info!(%why, "no user namespace");
    }
    let args = Args::parse();
    match run(args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!("{err:#}");
            #[allow(clippy::print_stderr)]
            {
                eprintln!("judge-server: {err:#}");
            }
            std::process::ExitCode::from(2)
        }
    }
}

fn load(args: &Args) -> anyhow::Result<ServerConfig> {
    let mut config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read config {}", path.display()))?;
            let mut config = ServerConfig::from_toml(&text)
                .with_context(|| format!("invalid config {}", path.display()))?;
            config.base_dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), PathBuf::from);
            config
        }
        None => ServerConfig::default(),
    };
    if let Some(listen) = args.listen {
        config.listen = listen;
    }
    if std::env::var_os("VERDICT_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
        config.judge.require_isolation = true;
    }
    Ok(config)
}

fn run(args: Args) -> anyhow::Result<()> {
    let config = load(&args)?;
    if args.check_config {
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the tokio runtime")?;
    runtime.block_on(async move {
        let listen = config.listen;
        let role = config.role;
        let state = match role {
            Role::Standalone => Some(AppState::new(config.clone())?),
            Role::Worker | Role::Frontend => None,
        };
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .with_context(|| format!("cannot listen on {listen}"))?;
        let address = listener.local_addr()?;
        // The page's address, for a person to open (the `address` field, for programs).
        tracing::info!(%address, ?role, "listening on http://{address}");
        let shutdown = CancellationToken::new();
        tokio::spawn(on_signal(shutdown.clone()));
        match (state, role) {
            (Some(state), _) => serve(state, listener, shutdown).await,
            (None, Role::Frontend) => serve_frontend(config, listener, shutdown).await,
            (None, _) => serve_worker(config, listener, shutdown).await,
        }
    })
}

/// Cancels `shutdown` on SIGTERM or SIGINT.
async fn on_signal(shutdown: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::error!("cannot install signal handlers; stop the server with SIGKILL");
        return;
    };
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM received"),
        _ = int.recv() => tracing::info!("SIGINT received"),
    }
    shutdown.cancel();
}
