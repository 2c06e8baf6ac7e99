//! What every handler shares: the configuration, the judge, the tokens, the store, the queue,
//! the metrics, the direct slots, the language probe and the Agent Lab engine.

use crate::auth::Auth;
use crate::config::ServerConfig;
use crate::db::{Phase, Unfinished};
use crate::error::ApiError;
use crate::host::Host;
use crate::jobs::Jobs;
use crate::lab_runs::LabRuns;
use crate::metrics::Metrics;
use crate::store::{Entry, Store};
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OnceCell, Semaphore};
use verdict_contracts::{Submission, parse_submission};
use verdict_lab::{JUDGED_TYPES, Lab, Registry};
use verdict_scheduler::Judge;
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
    /// Submissions and their progress, kept on disk.
    pub store: Arc<Store>,
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
        let (store, unfinished) = Store::open_for(&config)?;
        let store = Arc::new(store);
        let jobs = Jobs::new(
            judge.clone(),
            metrics.clone(),
            store.clone(),
            config.queue_capacity,
            config.workers,
            &config.quotas,
        );
        let auth = Auth::new(config.tokens.clone());
        if !auth.enabled() {
            tracing::warn!("no [[tokens]] configured: authentication is off");
        }
        recover(&store, &jobs, unfinished);
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

    /// An entry in the store (409 for a key in flight, whatever the load), a place in the queue
    /// (429 / 503), the request on disk, a worker task.
    async fn accept(
        &self,
        submission: Submission,
        request: String,
    ) -> Result<Arc<Entry>, ApiError> {
        // On its own task: a request dropped meanwhile (timeout, client gone) must not leave
        // the submission half-accepted (on disk, in no queue); it ends queued, or not accepted.
        let state = self.clone();
        tokio::spawn(async move {
            let (entry, previous) = state
                .store
                .insert(&submission)
                .inspect_err(|_| state.metrics.rejected(crate::metrics::Reject::Conflict))?;
            let reservation = match state.jobs.reserve() {
                Ok(reservation) => reservation,
                Err(err) => {
                    state.store.undo_insert(&entry, previous);
                    return Err(err);
                }
            };
            // Durable before the client hears anything (design #22).
            if let Err(err) = state.store.persist(&entry, request).await {
                state.store.undo_insert(&entry, previous);
                return Err(err);
            }
            state.jobs.spawn(reservation, entry.clone(), submission);
            Ok(entry)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("accepting: {e}")))?
    }
}

/// Judges again, in the order they were accepted, the submissions a previous run accepted and
/// did not finish. The work dirs of those it had started went with its sandbox instance's work
/// root, which the judge removed at start (design #23: the dead instance's lock is free).
fn recover(store: &Store, jobs: &Jobs, unfinished: Vec<Unfinished>) {
    if unfinished.is_empty() {
        return;
    }
    let interrupted = unfinished
        .iter()
        .filter(|u| u.phase == Phase::Running)
        .count();
    tracing::info!(
        total = unfinished.len(),
        interrupted,
        "judging again the submissions accepted before the restart"
    );
    for Unfinished { key, request, .. } in unfinished {
        match parse_submission(&request) {
            Ok(submission) if submission.category == key.category => {
                let entry = store.recover(&submission);
                jobs.recover(entry, submission);
            }
            // Accepted, so valid when it came; a store written by another version may read
            // differently: say so in its report rather than drop it.
            other => {
                let message = match other {
                    Ok(_) => "the stored request's category does not match its key".to_owned(),
                    Err(err) => format!("the stored request no longer reads: {err}"),
                };
                tracing::error!(sub_id = %key.sub_id, category = %key.category, "{message}");
                store.fail_unreadable(&key, message);
            }
        }
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
