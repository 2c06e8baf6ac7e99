//! What every handler shares: the configuration, the judge, the tokens, the store, the queue,
//! the metrics, the direct slots, the language probe and the Agent Lab engine.

use crate::auth::Auth;
use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::host::Host;
use crate::lab_runs::LabRuns;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OnceCell, Semaphore};
use verdict_contracts::Submission;
use verdict_lab::{JUDGED_TYPES, Lab, Registry};
use verdict_scheduler::Judge;
use verdict_scripts::{OracleOptions, ToolchainStatus, probe_all};
use verdict_submissions::{Entry, Jobs, Metrics, Store, Unfinished};

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
    /// Submissions and their progress, kept on disk.
    pub store: Arc<Store>,
    /// The queue and its workers.
    pub jobs: Arc<Jobs>,
    /// Counters and histograms.
    pub metrics: Arc<Metrics>,
    /// Slots for oracle suites and lab runs.
    pub direct: Arc<Semaphore>,
    /// Languages, probed once.
    pub languages: Languages,
    /// The Agent Lab engine.
    pub lab: Lab,
    /// The lab task types whose runners run the submitted code in the sandbox (the built-in
    /// judged ones the config did not replace): what a category token may run by default.
    pub sandboxed_lab_types: Vec<&'static str>,
    /// The newest lab runs, for the page.
    pub lab_runs: LabRuns,
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
        let (store, unfinished) = open_store(&config)?;
        let store = Arc::new(store);
        let jobs = Arc::new(Jobs::new(
            judge.clone(),
            metrics.clone(),
            store.clone(),
            config.queue_capacity,
            config.workers,
            &config.quotas,
        ));
        let auth = Auth::new(config.tokens.clone());
        if !auth.enabled() {
            tracing::warn!("no [[tokens]] configured: authentication is off");
        }
        jobs.recover(unfinished);
        let sandboxed_lab_types = JUDGED_TYPES
            .into_iter()
            .filter(|t| !config.lab.runners.contains_key(*t))
            .collect();
        Ok(AppState {
            inner: Arc::new(Shared {
                sandboxed_lab_types,
                store,
                direct: Arc::new(Semaphore::new(config.direct_concurrency)),
                languages: Languages::default(),
                config,
                judge,
                auth,
                jobs,
                metrics,
                lab,
                lab_runs: LabRuns::default(),
            }),
        })
    }

    /// How the oracle (and the lab's oracle runners) run here.
    pub fn oracle_options(&self) -> OracleOptions {
        oracle_options(&self.config, &self.judge)
    }
}

impl Host for AppState {
    fn config(&self) -> &ServerConfig {
        &self.config
    }

    fn auth(&self) -> &Auth {
        &self.auth
    }

    fn store(&self) -> &Store {
        &self.store
    }

    fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    fn local_roots(&self) -> Vec<PathBuf> {
        self.judge.config().local_roots.clone()
    }

    /// Judged here: see [`Jobs::accept`].
    async fn accept(
        &self,
        submission: Submission,
        request: String,
    ) -> Result<Arc<Entry>, ApiError> {
        Ok(self.jobs.accept(submission, request).await?)
    }
}

/// Opens the submission store of `config` (its `data_dir`, retention and `max_retained`); also
/// returns the submissions accepted and not finished before.
pub(crate) fn open_store(config: &ServerConfig) -> anyhow::Result<(Store, Vec<Unfinished>)> {
    let data_dir = config.data_dir();
    Store::open(
        &data_dir,
        Duration::from_secs(config.retention_secs),
        config.max_retained,
    )
    .with_context(|| format!("cannot open the submission store in {}", data_dir.display()))
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
