//! The judge pipeline: one `Judge` per process, one `SubmissionRun` per submission.
//!
//! Tasks form a forest through `depends_on` (always an earlier task). Every task waits for its
//! parent's result, checks its `depends_cond`, then takes a run permit (the bounded pool) and
//! runs on a blocking thread. Independent tasks therefore run in parallel; the report is
//! complete and in task order.

use crate::assets::AssetFetcher;
use crate::cache::ProblemCache;
use crate::conditions::dependency_holds;
use crate::config::JudgeConfig;
use crate::error::JudgeError;
use crate::plan::{Dependency, JudgePlan, PlannedTask};
use crate::slots::{SlotStats, Slots};
use crate::submission::{JudgeShared, SubmissionRun};
use crate::tasks;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{mpsc, watch};
use verdict_contracts::{DependsCond, IntoValid, JudgeReport, JudgeStatus, JudgeTaskResult};
use verdict_scripts::{CancelToken, Executor, LanguageProfiles, timing};

/// A finished task, sent as soon as it is known (for streaming front ends).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpdate {
    /// The task's index in `judge_tasks`.
    pub index: usize,
    /// Its result.
    pub result: JudgeTaskResult,
}

/// A submission's cancel switch (`DELETE /v1/submissions/{sub_id}`): after [`cancel`](Self::cancel)
/// no task of it starts (those waiting for their parent or a run permit end as System Error
/// with [`CANCELLED`]), and the boxes of the tasks running are killed at once (those tasks end
/// as System Error with [`CANCELLED_RUNNING`]), so their run permits come back then.
#[derive(Debug, Clone)]
pub struct SubmissionCancel(Arc<watch::Sender<bool>>, CancelToken);

impl Default for SubmissionCancel {
    fn default() -> Self {
        SubmissionCancel(Arc::new(watch::channel(false).0), CancelToken::new())
    }
}

impl SubmissionCancel {
    /// Cancels: no task starts after this, and the boxes running are killed.
    pub fn cancel(&self) {
        self.0.send_replace(true);
        self.1.cancel();
    }

    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        *self.0.borrow()
    }

    /// The token of the submission's runs.
    fn runs(&self) -> &CancelToken {
        &self.1
    }

    /// Waits until it is cancelled.
    pub async fn cancelled(&self) {
        let mut rx = self.0.subscribe();
        // The sender lives in `self`: `wait_for` ends only when cancelled.
        let _ = rx.wait_for(|cancelled| *cancelled).await;
    }
}

/// The `error_log` of a task that did not run because its submission was cancelled.
pub const CANCELLED: &str = "cancelled: the submission was cancelled before this task ran";

/// The `error_log` of a task whose runs were stopped because its submission was cancelled.
pub const CANCELLED_RUNNING: &str =
    "cancelled: the submission was cancelled while this task ran; its runs were stopped";

/// The host's faults a judge met and worked around (design #27), for a health check to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostFaults {
    /// How many times the judge's own work dir was found removed and made again.
    pub work_dir_recreated: u64,
}

/// The judge: configuration, executor, language profiles, cache and run pool, shared by all submissions.
#[derive(Debug, Clone)]
pub struct Judge {
    pub(crate) inner: Arc<JudgeShared>,
    /// Whether the sandbox's slots were warmed (on the first submission).
    warmed: Arc<AtomicBool>,
}

impl Judge {
    /// A judge from its configuration: sets up the executor (the sandbox), the cache and the
    /// language profiles.
    pub fn new(mut config: JudgeConfig) -> Result<Judge, JudgeError> {
        let _starting = timing::phase("judge.new");
        // Relative dirs (`--work-dir work`) are the current directory's: box paths, links into
        // the cache and the names a box sees are all made from them, so they are made absolute
        // once, here.
        for dir in [&mut config.work_dir, &mut config.cache_dir] {
            *dir = std::path::absolute(&*dir)
                .map_err(|e| JudgeError::io("resolve", dir.clone(), e))?;
        }
        let profiles = LanguageProfiles::from_toml(
            verdict_scripts::language::BUILTIN_PROFILES,
            config.languages.as_ref(),
        )?;
        let (executor, work_root) = crate::executor::open(&config)?;
        let cache = ProblemCache::open(
            &config.cache_dir,
            config.cache_max_mb.saturating_mul(1024 * 1024),
        )
        .map_err(|e| JudgeError::io("open cache", &config.cache_dir, e))?;
        let assets = AssetFetcher::new(&config.local_roots, config.remote.clone())?;
        let permits = Slots::new(config.parallelism);
        let inner = JudgeShared {
            config,
            executor,
            profiles,
            cache,
            assets,
            permits,
            work_root,
            work_root_recreated: Default::default(),
        };
        Ok(Judge {
            inner: Arc::new(inner),
            warmed: Arc::default(),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &JudgeConfig {
        &self.inner.config
    }

    /// The language profiles in force.
    pub fn profiles(&self) -> &LanguageProfiles {
        &self.inner.profiles
    }

    /// How the per-problem cache has served since start-up.
    pub fn cache_stats(&self) -> crate::cache::CacheStats {
        self.inner.cache.stats()
    }

    /// How the run slots are used now: tasks holding a slot, tasks ready and waiting for one.
    pub fn slot_stats(&self) -> SlotStats {
        self.inner.permits.stats()
    }

    /// The host's faults the judge met and worked around since start-up (for health).
    pub fn host_faults(&self) -> HostFaults {
        HostFaults {
            work_dir_recreated: self.inner.work_root_recreated.load(Ordering::Relaxed),
        }
    }

    /// Waits for one of the judge's run slots (shared with submissions and batches) and holds
    /// it until the permit is dropped: a caller that runs in the sandbox itself (another
    /// tool's wire protocol, `verdict-compat`) takes its turn with everything else. `None`
    /// when the judge is shutting down.
    pub async fn run_slot(&self) -> Option<crate::SlotPermit<'_>> {
        self.inner.permits.acquire().await.ok()
    }

    /// The executor every run goes through (the sandbox): front ends run other things through
    /// it (the Task Oracle: `verdict_oracle::run_suite(judge.executor(), ..)`), never the
    /// sandbox itself.
    pub fn executor(&self) -> &dyn Executor {
        &*self.inner.executor
    }

    /// This judge's own dir under `work_dir`, where submissions' work dirs go (its sandbox
    /// instance's: removed by the next judge to start if this one dies).
    pub fn work_root(&self) -> &std::path::Path {
        &self.inner.work_root
    }

    /// On the first submission, starts the zygotes of the slots its runs will take, off its
    /// path: the runs after the compile then find their boxes made (a cold `judge run` no
    /// longer makes one on a test's path). Runs make any zygote still missing themselves.
    pub(crate) fn warm_once(&self) {
        if self.warmed.swap(true, Ordering::Relaxed) {
            return;
        }
        let (shared, slots) = (self.inner.clone(), self.inner.config.parallelism.max(1));
        tokio::task::spawn_blocking(move || {
            let _warming = timing::phase("sandbox.warm");
            if let Err(err) = shared.executor.warm(slots) {
                tracing::debug!("cannot warm the sandbox's slots (runs will): {err}");
            }
        });
    }

    /// Judges a submission: validates it, runs every task, and returns the complete report.
    /// A [`Valid`](verdict_contracts::Valid) submission (from `parse_submission`) is not validated again.
    pub async fn judge(&self, submission: impl IntoValid) -> JudgeReport {
        self.judge_with_updates(submission, None).await
    }

    /// Like [`Judge::judge`], also sending each task's result on `updates` as soon as it is known.
    pub async fn judge_with_updates(
        &self,
        submission: impl IntoValid,
        updates: Option<mpsc::UnboundedSender<TaskUpdate>>,
    ) -> JudgeReport {
        self.judge_cancellable(submission, updates, SubmissionCancel::default())
            .await
    }

    /// Like [`Judge::judge_with_updates`], with a switch that stops it: after
    /// `cancel.cancel()` no task starts and the boxes running are killed (see
    /// [`SubmissionCancel`]): the report comes at once.
    pub async fn judge_cancellable(
        &self,
        submission: impl IntoValid,
        updates: Option<mpsc::UnboundedSender<TaskUpdate>>,
        cancel: SubmissionCancel,
    ) -> JudgeReport {
        let _judging = timing::phase("judge");
        let validating = timing::phase("validate");
        let submission = match submission.into_valid() {
            Ok(valid) => valid.into_inner(),
            Err(invalid) => return invalid.into_report(),
        };
        validating.end();
        self.warm_once();
        let header = |results| JudgeReport::echoing(&submission, results);
        let count = submission.judge_tasks.len();
        let planning = timing::phase("plan");
        let plan = JudgePlan::new(&submission, &self.inner.config);
        planning.end();
        let opening = timing::phase("open");
        // Creating the work dir and opening the cache entry (which may remove old versions)
        // is blocking file work: off the async threads.
        let opened = {
            let (shared, submission) = (self.inner.clone(), submission.clone());
            let runs = cancel.runs().clone();
            tokio::task::spawn_blocking(move || SubmissionRun::new(shared, submission, runs))
                .await
                .unwrap_or_else(|e| {
                    let work_dir = &self.inner.config.work_dir;
                    Err(JudgeError::io(
                        "open a run in",
                        work_dir,
                        std::io::Error::other(e),
                    ))
                })
        };
        opening.end();
        let run = match opened {
            Ok(run) => Arc::new(run),
            Err(err) => {
                tracing::error!(sub_id = %submission.sub_id, "cannot start judging: {err}");
                let mut log = err.to_string();
                hide_host_paths(&mut log, &self.inner.config, &submission.sub_id);
                let failed = JudgeTaskResult::with_status(JudgeStatus::SystemError, log);
                let results = vec![failed; count];
                if let Some(tx) = &updates {
                    for (index, result) in results.iter().enumerate() {
                        let _ = tx.send(TaskUpdate {
                            index,
                            result: result.clone(),
                        });
                    }
                }
                return header(results);
            }
        };
        // A cold cache's test data is written beside the first tasks (the compile), not on
        // each test's path; a warm one is only looked up once per datum.
        let datums: Vec<usize> = plan.tasks.iter().filter_map(PlannedTask::datum).collect();
        if !datums.is_empty() {
            let run = run.clone();
            tokio::task::spawn_blocking(move || run.prefill_data(&datums));
        }
        let channels: Vec<_> = (0..count)
            .map(|_| watch::channel(None::<JudgeTaskResult>))
            .collect();
        let receivers: Vec<_> = channels.iter().map(|(_, rx)| rx.clone()).collect();
        let mut handles = Vec::with_capacity(count);
        for (task, (tx, _)) in plan.tasks.into_iter().zip(channels) {
            let parent = task
                .parent
                .map(|dependency| (dependency, receivers[dependency.task].clone()));
            let run = run.clone();
            let updates = updates.clone();
            let index = task.index;
            let cancel = cancel.clone();
            handles.push(tokio::spawn(async move {
                let result = run_one(run, task, parent, cancel).await;
                if let Some(updates) = &updates {
                    let _ = updates.send(TaskUpdate {
                        index,
                        result: result.clone(),
                    });
                }
                let _ = tx.send(Some(result.clone()));
                result
            }));
        }
        let mut results = Vec::with_capacity(count);
        for handle in handles {
            results.push(handle.await.unwrap_or_else(|err| {
                JudgeTaskResult::with_status(
                    JudgeStatus::SystemError,
                    format!("judge task panicked: {err}"),
                )
            }));
        }
        let _reporting = timing::phase("report");
        // The work directory goes with the last holder of the run: remove it off this thread.
        tokio::task::spawn_blocking(move || drop(run));
        header(results)
    }
}

/// Waits for the parent, checks the condition, then runs the task on the pool.
async fn run_one(
    run: Arc<SubmissionRun>,
    task: PlannedTask,
    parent: Option<(Dependency, watch::Receiver<Option<JudgeTaskResult>>)>,
    cancel: SubmissionCancel,
) -> JudgeTaskResult {
    let cancelled = || JudgeTaskResult::with_status(JudgeStatus::SystemError, CANCELLED);
    if let Some((dependency, mut parent)) = parent {
        let parent_result = match parent.wait_for(Option::is_some).await {
            Ok(value) => value.clone(),
            Err(_) => None,
        };
        if cancel.is_cancelled() {
            return cancelled();
        }
        let cond = dependency.cond;
        let holds = parent_result
            .as_ref()
            .is_some_and(|r| dependency_holds(Some(cond), r));
        if !holds {
            let depends_on = dependency.task;
            let why = match parent_result {
                Some(r) => format!(
                    "task {depends_on} ended {}; this task needs {}",
                    r.status,
                    cond_text(cond)
                ),
                None => format!("task {depends_on} did not finish"),
            };
            return JudgeTaskResult::with_status(JudgeStatus::DependencyNotSatisfied, why);
        }
    }
    if cancel.is_cancelled() {
        return cancelled();
    }
    let acquired = tokio::select! {
        biased;
        () = cancel.cancelled() => return cancelled(),
        acquired = run.permits().acquire() => acquired,
    };
    let Ok(_permit) = acquired else {
        return JudgeTaskResult::with_status(
            JudgeStatus::SystemError,
            "the judge is shutting down",
        );
    };
    let worker = run.clone();
    let handoff = timing::phase("task.handoff");
    // Every box the task starts is killed at once by a cancel: the run holds the token
    // (`SubmissionRun::cancel`) and gives it to each of its runs.
    let execute = move || {
        let _task = timing::task_scope(task.index);
        handoff.end();
        tasks::execute(&worker, &task)
    };
    let mut result = match tokio::task::spawn_blocking(execute).await {
        Ok(result) => result,
        Err(err) => JudgeTaskResult::with_status(
            JudgeStatus::SystemError,
            format!("judge task panicked: {err}"),
        ),
    };
    // Cancelled while it ran: its boxes were killed, so what it judged says nothing of the
    // program (one that ended just before the cancel is reported cancelled too).
    if cancel.is_cancelled() {
        return JudgeTaskResult::with_status(JudgeStatus::SystemError, CANCELLED_RUNNING);
    }
    if result.status == JudgeStatus::SystemError {
        hide_host_paths(&mut result.error_log, run.config(), run.sub_id());
    }
    result
}

/// The judge's own directories are the operator's business: a System Error's log names them
/// in the server's log, and the client reads `<work>` and `<cache>` instead.
pub(crate) fn hide_host_paths(log: &mut String, config: &JudgeConfig, sub_id: &str) {
    let mut places: Vec<(String, &str)> = Vec::new();
    for (dir, label) in [
        (config.work_dir.as_path(), "<work>"),
        (config.cache_dir.as_path(), "<cache>"),
    ] {
        places.push((dir.display().to_string(), label));
        if let Ok(real) = std::fs::canonicalize(dir) {
            places.push((real.display().to_string(), label));
        }
    }
    // The longest first, so a work root inside the work dir is replaced whole.
    places.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    if !places.iter().any(|(path, _)| log.contains(path.as_str())) {
        return;
    }
    tracing::error!(sub_id, "system error: {log}");
    for (path, label) in places.into_iter().filter(|(p, _)| p.len() > 1) {
        *log = log.replace(&path, label);
    }
}

/// The condition in a `Dependency Not Satisfied` log.
/// The name is the contract's, as serde spells it (never a second spelling here).
pub(crate) fn cond_text(cond: DependsCond) -> String {
    let name = serde_json::to_value(cond)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{cond:?}"));
    match cond {
        DependsCond::PartialCorrect => format!("{name} (a score above zero)"),
        DependsCond::NotTimeLimit | DependsCond::Accepted => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_are_named_as_the_contract_spells_them() {
        assert_eq!(cond_text(DependsCond::Accepted), "ACCEPTED");
        assert_eq!(cond_text(DependsCond::NotTimeLimit), "NOT_TIME_LIMIT");
        assert_eq!(
            cond_text(DependsCond::PartialCorrect),
            "PARTIAL_CORRECT (a score above zero)"
        );
    }
}
