//! verdict-judge-server: the judge, the Task Oracle and Agent Lab over HTTP (axum on tokio).
//!
//! - [`ServerConfig`]: the TOML config (`listen`, `[judge]`, queue, workers, limits, tokens, quotas).
//! - [`AppState`] and [`serve`]: the endpoints, each once in `src/routes.rs` with the roles
//!   that serve it; [`openapi_document`] (`GET /v1/openapi.json`) is built from that table.
//! - Submissions by `(category, sub_id)` (each token's category is a namespace), written to an
//!   SQLite file in `data_dir` before the 202 and judged again after a restart, are
//!   `verdict-submissions`' (`crates/submissions`); this crate puts HTTP in front of them.
//! - [`serve`]: serves until a shutdown token fires, then refuses new work and lets accepted
//!   submissions finish.
//! - [`Role`] (`role` in the config): `standalone` ([`serve`]), `worker` ([`serve_worker`]:
//!   judges from RabbitMQ) or `frontend` ([`serve_frontend`]: HTTP in front of RabbitMQ,
//!   judging nothing); one state type ([`AppState`]) and one router for the three.
//!
//! See `README.md` beside this crate and `docs/server.md`.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use verdict_judge_server::{AppState, ServerConfig, serve};
//! let config = ServerConfig::from_toml("listen = \"127.0.0.1:8080\"\nworkers = 2\n")?;
//! let listener = tokio::net::TcpListener::bind(config.listen).await?;
//! let shutdown = tokio_util::sync::CancellationToken::new();
//! serve(AppState::new(config)?, listener, shutdown).await
//! # }
//! ```

mod access;
mod auth;
mod batches;
mod config;
mod connections;
mod direct;
mod dispatch;
mod error;
mod extract;
mod frontend;
mod info;
mod jobe;
mod judge0;
mod lab_runs;
mod listing;
mod openapi;
mod page;
mod piston;
mod platforms;
mod publish;
mod relayed_suite;
mod role;
mod routes;
mod sandbox_fusion;
mod serve;
mod state;
mod streams;
mod submissions;
mod worker;

pub use config::{ServerConfig, TokenConfig};
pub use error::ConfigError;
pub use frontend::serve_frontend;
pub use platforms::gate::{ApiAccess, ApiKey};
pub use platforms::jobe::JobeConfig;
pub use platforms::judge0::Judge0Config;
pub use platforms::piston::PistonConfig;
pub use platforms::sandbox_fusion::{PathToken, SandboxFusionConfig};
pub use role::Role;
pub use routes::openapi_document;
pub use serve::serve;
pub use state::AppState;
pub use verdict_submissions::MAX_ID_BYTES;
pub use worker::serve_worker;
