//! What every handler shares: the configuration, the judge, the tokens, the store, the queue,
//! the metrics, the direct slots, the language probe and the Agent Lab engine.

use crate::auth::Auth;
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::jobs::Jobs;
use crate::metrics::Metrics;
use crate::store::Store;
use anyhow::Context;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OnceCell, Semaphore};
use verdict_scheduler::Judge;
use verdict_scheduler::lab::{Lab, Registry};
use verdict_scripts::{OracleOptions, ToolchainStatus, probe_all};

/// What every handler shares; cheap to clone.
#[derive(Debug, Clone)]
pub struct AppState {
    inner: Arc<Shared>,
}

/// The shared parts.
#[derive(Debug)]
pub struct Shared {
    /// The configuration in force.
    pub config: ServerConfig,
    /// The judge.
    pub judge: Judge,
    /// The bearer tokens.
    pub auth: Auth,
    /// Submissions and their progress.
    pub store: Store,
    /// The queue and its workers.
    pub jobs: Jobs,
    /// Counters and histograms.
    pub metrics: Arc<Metrics>,
    /// Slots for oracle suites and lab runs.
    pub direct: Arc<Semaphore>,
    /// Languages, probed once.
    pub languages: Languages,
    /// The Agent Lab engine.
    pub lab: Lab,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.inner
    }
}

impl AppState {
    /// Sets up the judge (sandbox, cache, language profiles) and the server around it.
    pub fn new(config: ServerConfig) -> anyhow::Result<AppState> {
        config.check()?;
        let judge = Judge::new(config.judge.clone()).context("cannot set up the judge")?;
        AppState::with_judge(config, judge)
    }

    /// The server around an existing judge.
    pub fn with_judge(config: ServerConfig, judge: Judge) -> anyhow::Result<AppState> {
        config.check()?;
        let mut registry = Registry::new().with_judge(&judge, oracle_options(&config, &judge));
        config
            .lab
            .apply(&mut registry, &config.base_dir)
            .context("invalid [lab] config")?;
        let lab = Lab::new(registry);
        let metrics = Arc::new(Metrics::default());
        let jobs = Jobs::new(
            judge.clone(),
            metrics.clone(),
            config.queue_capacity,
            config.workers,
            &config.quotas,
        );
        let auth = Auth::new(config.tokens.clone());
        if !auth.enabled() {
            tracing::warn!("no [[tokens]] configured: authentication is off");
        }
        Ok(AppState {
            inner: Arc::new(Shared {
                store: Store::new(
                    Duration::from_secs(config.retention_secs),
                    config.max_retained,
                ),
                direct: Arc::new(Semaphore::new(config.direct_concurrency)),
                languages: Languages::default(),
                config,
                judge,
                auth,
                jobs,
                metrics,
                lab,
            }),
        })
    }

    /// How the oracle (and the lab's oracle runners) run here.
    pub fn oracle_options(&self) -> OracleOptions {
        oracle_options(&self.config, &self.judge)
    }
}

fn oracle_options(config: &ServerConfig, judge: &Judge) -> OracleOptions {
    OracleOptions {
        default_timeout_ms: config.oracle_default_timeout_ms,
        work_dir: Some(judge.config().work_dir.clone()),
        ..OracleOptions::default()
    }
}

/// The languages, probed on first use and kept (toolchains do not change under a running server).
#[derive(Debug, Default)]
pub struct Languages {
    statuses: OnceCell<Arc<Vec<ToolchainStatus>>>,
}

impl Languages {
    /// Every language's status, probing them (on a blocking thread) the first time.
    pub async fn get(&self, judge: &Judge) -> Result<Arc<Vec<ToolchainStatus>>, ApiError> {
        let judge = judge.clone();
        self.statuses
            .get_or_try_init(|| async move {
                tokio::task::spawn_blocking(move || {
                    Arc::new(probe_all(judge.profiles(), Duration::from_secs(20)))
                })
                .await
                .map_err(|e| ApiError::Internal(format!("language probe panicked: {e}")))
            })
            .await
            .cloned()
    }
}
