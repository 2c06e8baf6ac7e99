//! What every handler shares, whichever the role: the configuration, the tokens, the metrics,
//! and the parts the role has: the submissions (standalone, front end), the judge (standalone,
//! worker), the doors that judge directly (standalone) and the link to the broker (worker, front
//! end). One state type for the three roles, so every handler, and the [`Caller`](crate::auth::Caller)
//! extractor, is written once; a role lacks a part rather than having another type.

use crate::auth::Auth;
use crate::config::ServerConfig;
use crate::dispatch::Dispatch;
use crate::error::ApiError;
use crate::lab_runs::LabRuns;
use crate::platforms::jobe::Jobe;
use crate::platforms::judge0::Judge0;
use crate::platforms::piston::Piston;
use crate::platforms::sandbox_fusion::SandboxFusion;
use crate::role::Role;
use anyhow::Context;
use axum::extract::FromRef;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OnceCell, Semaphore};
use tokio_util::sync::CancellationToken;
use verdict_datasets::DatasetBatchJudge;
use verdict_lab::{JUDGED_TYPES, Lab, Registry};
use verdict_oracle::OracleOptions;
use verdict_queue::{Link, QueueMetrics};
use verdict_scheduler::{BatchJudge, CacheStats, Judge};
use verdict_scripts::{ToolchainStatus, probe_all};
use verdict_submissions::batches::Batches;
use verdict_submissions::{Jobs, Metrics, Phase, Store, Unfinished};

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
    /// The bearer tokens.
    pub auth: Auth,
    /// Counters and histograms.
    pub metrics: Arc<Metrics>,
    /// Cancelled when the server begins to shut down.
    pub stopping: CancellationToken,
    /// The judge (standalone, worker).
    pub judge: Option<Judge>,
    /// The submissions accepted here and where they go (standalone, front end).
    pub submissions: Option<Submissions>,
    /// The doors that judge directly: oracle suites, lab runs, languages (standalone).
    pub direct: Option<Direct>,
    /// The link to the broker (worker, front end).
    pub broker: Option<Broker>,
    /// The event streams open now, counted against their caps.
    pub streams: Arc<crate::streams::Streams>,
    /// SandboxFusion's routes, where they are on (standalone).
    pub sandbox_fusion: Option<SandboxFusion>,
    /// Piston's routes, where they are on (standalone, worker).
    pub piston: Option<Piston>,
    /// Jobe's routes, where they are on (standalone, worker).
    pub jobe: Option<Jobe>,
    /// Judge0's routes, where they are on (standalone: its submissions are kept in the store).
    pub judge0: Option<Arc<Judge0>>,
}

/// The work a server accepts: submissions kept in a store, and where they, batches and oracle
/// suites are judged (here, or relayed to the workers), decided once at start-up.
#[derive(Debug)]
pub struct Submissions {
    /// Submissions and their progress, kept on disk.
    pub store: Arc<Store>,
    /// Where accepted work is judged.
    pub dispatch: Dispatch,
}

/// What the doors that judge directly need (standalone).
#[derive(Debug)]
pub struct Direct {
    /// Slots for lab runs.
    pub slots: Arc<Semaphore>,
    /// Languages, probed once.
    pub languages: Languages,
    /// The Agent Lab engine.
    pub lab: Lab,
    /// The lab task types whose runners run the submitted code in the sandbox (the built-in
    /// judged ones the config did not replace): what a category token may run by default.
    pub sandboxed_lab_types: Vec<&'static str>,
    /// The lab runs made here (the newest 500, kept in the submissions' store), for the page.
    pub lab_runs: LabRuns,
}

/// The link to the broker (worker, front end).
#[derive(Debug, Default)]
pub struct Broker {
    /// Connected or not, and why.
    pub link: Arc<Link>,
    /// The broker traffic's counters.
    pub queue: Arc<QueueMetrics>,
}

impl Shared {
    /// The parts every role has (`config`, its tokens, `metrics`, `stopping`, the streams),
    /// without the parts a role may lack.
    pub(crate) fn new(
        config: ServerConfig,
        metrics: Arc<Metrics>,
        stopping: CancellationToken,
    ) -> Shared {
        Shared {
            auth: Auth::new(config.tokens.clone()),
            config,
            metrics,
            stopping,
            judge: None,
            submissions: None,
            direct: None,
            broker: None,
            streams: Default::default(),
            sandbox_fusion: None,
            piston: None,
            jobe: None,
            judge0: None,
        }
    }

    /// With `judge` (standalone, worker) and the platform doors that run programs on it
    /// (SandboxFusion's, Piston's and Jobe's, where the config turns them on).
    pub(crate) fn judging(self, judge: Judge) -> anyhow::Result<Shared> {
        let config = &self.config;
        Ok(Shared {
            sandbox_fusion: SandboxFusion::new(
                &config.sandbox_fusion,
                &config.quotas,
                oracle_options(config, &judge),
                &judge,
            ),
            piston: Piston::new(&config.piston, &judge),
            jobe: Jobe::new(&config.jobe, &config.data_dir(), &judge)
                .context("cannot open Jobe's file cache")?,
            judge: Some(judge),
            ..self
        })
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.inner
    }
}

impl FromRef<AppState> for Auth {
    fn from_ref(state: &AppState) -> Auth {
        state.auth.clone()
    }
}

impl FromRef<AppState> for Arc<Metrics> {
    fn from_ref(state: &AppState) -> Arc<Metrics> {
        state.metrics.clone()
    }
}

/// The largest request body, in bytes (the `Text` extractor's limit).
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit(pub usize);

impl FromRef<AppState> for BodyLimit {
    fn from_ref(state: &AppState) -> BodyLimit {
        BodyLimit(state.config.max_body_bytes())
    }
}

impl AppState {
    /// A standalone server: sets up the judge (sandbox, cache, language profiles) and the
    /// server around it.
    pub fn new(config: ServerConfig) -> anyhow::Result<AppState> {
        config.check()?;
        let judge = Judge::new(config.judge.clone()).context("cannot set up the judge")?;
        AppState::with_judge(config, judge)
    }

    /// A standalone server around an existing judge.
    pub fn with_judge(config: ServerConfig, judge: Judge) -> anyhow::Result<AppState> {
        config.check()?;
        let mut registry = Registry::new().with_judge(&judge, oracle_options(&config, &judge));
        config
            .lab
            .apply(&mut registry, &config.base_dir)
            .context("invalid [lab] config")?;
        let metrics = Arc::new(Metrics::default());
        let (store, unfinished) = open_store(&config)?;
        let store = Arc::new(store);
        let jobs = Arc::new(
            Jobs::new(
                judge.clone(),
                metrics.clone(),
                store.clone(),
                config.queue_capacity,
                config.workers,
                &config.quotas,
            )
            .with_byte_budget(config.queue_budget_bytes()),
        );
        jobs.recover(unfinished);
        let (batches_dir, limits) = config.batches();
        let batches = Batches::open(
            DatasetBatchJudge::new(BatchJudge::new(
                judge.clone(),
                oracle_options(&config, &judge),
            )),
            batches_dir,
            limits,
        )
        .context("cannot open the batches")?;
        let direct = Direct {
            slots: Arc::new(Semaphore::new(config.direct_concurrency)),
            languages: Languages::default(),
            lab: Lab::new(registry),
            sandboxed_lab_types: JUDGED_TYPES
                .into_iter()
                .filter(|t| !config.lab.runners.contains_key(*t))
                .collect(),
            lab_runs: LabRuns::new(store.clone()),
        };
        let judge0 = Judge0::new(&config.judge0, &judge, &store);
        let shared = Shared::new(config, metrics, CancellationToken::new()).judging(judge)?;
        Ok(AppState::assemble(Shared {
            judge0,
            submissions: Some(Submissions {
                store,
                dispatch: Dispatch::Local { jobs, batches },
            }),
            direct: Some(direct),
            ..shared
        }))
    }

    /// Wraps the parts; warns when authentication is off.
    pub(crate) fn assemble(shared: Shared) -> AppState {
        if !shared.auth.enabled() {
            tracing::warn!("no [[tokens]] configured: authentication is off");
        }
        AppState {
            inner: Arc::new(shared),
        }
    }

    /// What this server does.
    pub fn role(&self) -> Role {
        self.config.role
    }

    /// Counts an event stream of `subject` opened by `caller` against the configured caps, or
    /// refuses it (429 naming the cap).
    pub(crate) fn open_stream(
        &self,
        subject: String,
        caller: &crate::auth::Caller,
    ) -> Result<crate::streams::StreamSlot, ApiError> {
        self.streams.open(
            subject,
            caller,
            self.config.max_streams_per_submission,
            self.config.max_streams_per_token,
        )
    }

    /// The submissions, on a server that accepts them.
    pub fn submissions(&self) -> Result<&Submissions, ApiError> {
        self.submissions.as_ref().ok_or_else(|| self.not_served())
    }

    /// The doors that judge directly, on a server that has them.
    pub fn direct(&self) -> Result<&Direct, ApiError> {
        self.direct.as_ref().ok_or_else(|| self.not_served())
    }

    /// Where accepted work is judged, on a server that accepts work (judged here, or relayed
    /// to the workers): the one place a handler learns which.
    pub fn dispatch(&self) -> Result<&Dispatch, ApiError> {
        Ok(&self.submissions()?.dispatch)
    }

    /// The judge, on a server that judges.
    pub fn judge(&self) -> Result<&Judge, ApiError> {
        self.judge.as_ref().ok_or_else(|| self.not_served())
    }

    /// The 404 of a door this role does not serve (the router does not route it either).
    fn not_served(&self) -> ApiError {
        ApiError::NotFound(format!(
            "path: not served by a {} (role = {:?})",
            self.role().describe(),
            self.role().as_str()
        ))
    }

    /// The roots `local` assets are read from (checked for category tokens).
    pub fn local_roots(&self) -> Vec<PathBuf> {
        match &self.judge {
            Some(judge) => judge.config().local_roots.clone(),
            None => self.config.judge.local_roots.clone(),
        }
    }

    /// How the oracle (and the lab's oracle runners) run here.
    pub fn oracle_options(&self) -> Result<OracleOptions, ApiError> {
        Ok(oracle_options(&self.config, self.judge()?))
    }

    /// Whether new work is accepted: not shutting down and, with a broker, connected to it.
    pub fn accepting(&self) -> bool {
        if let Some(accepting) = self
            .submissions
            .as_ref()
            .and_then(|s| s.dispatch.accepting())
        {
            return accepting;
        }
        !self.stopping.is_cancelled() && self.broker.as_ref().is_none_or(|b| b.link.is_up())
    }

    /// Jobs accepted and not started (submissions, and batches and oracle suites waiting in
    /// their queue), and submissions being judged.
    pub fn load(&self) -> (usize, usize) {
        let running = |metrics: &Metrics| {
            let n = metrics
                .running_submissions
                .load(std::sync::atomic::Ordering::Relaxed);
            usize::try_from(n.max(0)).unwrap_or(0)
        };
        match &self.submissions {
            Some(Submissions {
                dispatch: Dispatch::Local { jobs, batches },
                ..
            }) => (jobs.queued() + batches.queued(), running(&self.metrics)),
            // A front end knows its submissions by the reports from the broker.
            Some(Submissions { store, .. }) => {
                let (mut queued, mut judged) = (0, 0);
                for entry in store.list() {
                    match entry.phase() {
                        Phase::Queued => queued += 1,
                        Phase::Running => judged += 1,
                        Phase::Finished => {}
                    }
                }
                (queued, judged)
            }
            // A worker takes from the broker only what it judges at once (prefetch = workers):
            // nothing waits here.
            None => (0, running(&self.metrics)),
        }
    }

    /// The judge's cache counters (zero where nothing is judged).
    pub fn cache_stats(&self) -> CacheStats {
        self.judge
            .as_ref()
            .map_or_else(CacheStats::default, Judge::cache_stats)
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

pub(crate) fn oracle_options(config: &ServerConfig, judge: &Judge) -> OracleOptions {
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
