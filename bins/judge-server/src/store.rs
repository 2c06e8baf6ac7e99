//! The submissions store, keyed by `(category, sub_id)` ([`SubKey`]: each token's category is
//! a namespace). In memory: every unfinished submission's progress (per-task results as they
//! stream in, the event-stream subscribers) and recently finished ones. On disk ([`Db`]): every
//! accepted submission from before its `202` until its retention ends, so a restart loses
//! nothing. Finished entries are kept for `retention_secs`, at most `max_retained` of them.
//!
//! The disk is touched only on blocking threads; the methods that do are `async`.

use crate::db::{Db, DbError, Finished, Phase, SubKey, Unfinished, now_ms};
use crate::error::ApiError;
use crate::metrics::Metrics;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use verdict_contracts::{CheckScript, JudgeReport, JudgeStatus, JudgeTaskResult, Submission};

/// What an event stream receives.
#[derive(Debug, Clone)]
pub enum StreamEvent {
    /// A task finished.
    Task {
        /// Its index in `judge_tasks`.
        index: usize,
        /// Its result.
        result: JudgeTaskResult,
    },
    /// The final report (the last event).
    Report(Arc<JudgeReport>),
}

#[derive(Debug, Clone)]
enum TaskState {
    /// Waiting in the queue or for its parent.
    Pending,
    /// Its parent finished (or it has none) and its submission is being judged.
    Started,
    /// Finished.
    Done(JudgeTaskResult),
}

#[derive(Debug)]
struct Progress {
    header: JudgeReport,
    compiles: Vec<bool>,
    parents: Vec<Option<usize>>,
    tasks: Vec<TaskState>,
    finish_order: Vec<usize>,
    started: bool,
    report: Option<Arc<JudgeReport>>,
    finished_at: Option<Instant>,
    subscribers: Vec<mpsc::UnboundedSender<StreamEvent>>,
}

/// One submission's progress.
#[derive(Debug)]
pub struct Entry {
    /// Its key: category and `sub_id`.
    pub key: SubKey,
    /// When it was accepted.
    pub accepted_at: Instant,
    progress: Mutex<Progress>,
    done: watch::Sender<Option<Arc<JudgeReport>>>,
}

impl Entry {
    /// A pending entry for `submission`.
    pub fn new(submission: &Submission) -> Self {
        let header = JudgeReport {
            sub_type: submission.sub_type.as_str().to_owned(),
            category: submission.category.clone(),
            prob_id: submission.prob_id.clone(),
            sub_id: submission.sub_id.clone(),
            results: Vec::new(),
            message: None,
        };
        let count = submission.judge_tasks.len();
        Entry {
            key: SubKey::new(&submission.category, &submission.sub_id),
            accepted_at: Instant::now(),
            progress: Mutex::new(Progress {
                header,
                compiles: submission
                    .judge_tasks
                    .iter()
                    .map(|t| t.check_script == CheckScript::Compile)
                    .collect(),
                parents: submission.judge_tasks.iter().map(|t| t.parent()).collect(),
                tasks: vec![TaskState::Pending; count],
                finish_order: Vec::with_capacity(count),
                started: false,
                report: None,
                finished_at: None,
                subscribers: Vec::new(),
            }),
            done: watch::channel(None).0,
        }
    }

    /// A finished entry for a report read back from the store, `age` after it finished.
    pub fn finished(report: JudgeReport, age: Duration) -> Self {
        let count = report.results.len();
        let now = Instant::now();
        let report = Arc::new(report);
        Entry {
            key: SubKey::new(&report.category, &report.sub_id),
            accepted_at: now,
            progress: Mutex::new(Progress {
                header: JudgeReport {
                    results: Vec::new(),
                    ..report.as_ref().clone()
                },
                compiles: vec![false; count],
                parents: vec![None; count],
                tasks: report
                    .results
                    .iter()
                    .cloned()
                    .map(TaskState::Done)
                    .collect(),
                finish_order: (0..count).collect(),
                started: true,
                report: Some(report.clone()),
                finished_at: Some(now.checked_sub(age).unwrap_or(now)),
                subscribers: Vec::new(),
            }),
            done: watch::channel(Some(report)).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queued, running or finished.
    pub fn phase(&self) -> Phase {
        let progress = self.lock();
        if progress.report.is_some() {
            Phase::Finished
        } else if progress.started {
            Phase::Running
        } else {
            Phase::Queued
        }
    }

    /// The report so far (unfinished tasks as Pending, Compiling or Running) and whether it is
    /// final (every task finished).
    pub fn snapshot(&self) -> (JudgeReport, bool) {
        let progress = self.lock();
        if let Some(report) = &progress.report {
            return (report.as_ref().clone(), true);
        }
        let results = progress
            .tasks
            .iter()
            .enumerate()
            .map(|(i, state)| match state {
                TaskState::Done(result) => result.clone(),
                TaskState::Pending => JudgeTaskResult::with_status(JudgeStatus::Pending, ""),
                TaskState::Started if progress.compiles[i] => {
                    JudgeTaskResult::with_status(JudgeStatus::Compiling, "")
                }
                TaskState::Started => JudgeTaskResult::with_status(JudgeStatus::Running, ""),
            })
            .collect();
        // Every task finished: the report is final even before the worker publishes it.
        let complete = progress
            .tasks
            .iter()
            .all(|t| matches!(t, TaskState::Done(_)));
        (
            JudgeReport {
                results,
                ..progress.header.clone()
            },
            complete,
        )
    }

    /// Whether the final report is in.
    pub fn is_finished(&self) -> bool {
        self.lock().report.is_some()
    }

    fn finished_at(&self) -> Option<Instant> {
        self.lock().finished_at
    }

    /// A worker took the submission: tasks without a parent start.
    pub fn start(&self, metrics: &Metrics) {
        let mut progress = self.lock();
        progress.started = true;
        let mut started = 0;
        for i in 0..progress.tasks.len() {
            if progress.parents[i].is_none() && matches!(progress.tasks[i], TaskState::Pending) {
                progress.tasks[i] = TaskState::Started;
                started += 1;
            }
        }
        metrics.running_tasks.fetch_add(started, Ordering::Relaxed);
    }

    /// A task finished: record it, tell the subscribers, start its children.
    pub fn task_done(&self, index: usize, result: JudgeTaskResult, metrics: &Metrics) {
        let mut progress = self.lock();
        let Some(state) = progress.tasks.get(index) else {
            return;
        };
        match state {
            TaskState::Done(_) => return,
            TaskState::Started => {
                metrics.running_tasks.fetch_sub(1, Ordering::Relaxed);
            }
            TaskState::Pending => {}
        }
        metrics.task_finished(&result);
        progress.tasks[index] = TaskState::Done(result.clone());
        progress.finish_order.push(index);
        let event = StreamEvent::Task { index, result };
        progress
            .subscribers
            .retain(|tx| tx.send(event.clone()).is_ok());
        let mut started = 0;
        for child in 0..progress.tasks.len() {
            if progress.parents[child] == Some(index)
                && matches!(progress.tasks[child], TaskState::Pending)
            {
                progress.tasks[child] = TaskState::Started;
                started += 1;
            }
        }
        metrics.running_tasks.fetch_add(started, Ordering::Relaxed);
    }

    /// The final report: fill in tasks never streamed, tell the subscribers, wake the waiters.
    pub fn finish(&self, report: JudgeReport, metrics: &Metrics) {
        let report = Arc::new(report);
        {
            let mut progress = self.lock();
            if progress.report.is_some() {
                return;
            }
            for (index, result) in report.results.iter().enumerate() {
                if !matches!(progress.tasks.get(index), Some(TaskState::Done(_))) {
                    drop(progress);
                    self.task_done(index, result.clone(), metrics);
                    progress = self.lock();
                }
            }
            let still_started = progress
                .tasks
                .iter()
                .filter(|s| matches!(s, TaskState::Started))
                .count() as i64;
            metrics
                .running_tasks
                .fetch_sub(still_started, Ordering::Relaxed);
            progress.report = Some(report.clone());
            progress.finished_at = Some(Instant::now());
            for tx in progress.subscribers.drain(..) {
                let _ = tx.send(StreamEvent::Report(report.clone()));
            }
        }
        self.done.send_replace(Some(report));
    }

    /// A stream of this submission's events: the tasks already finished (in the order they
    /// finished), then each task as it finishes, then the final report; it ends after the report.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<StreamEvent> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut progress = self.lock();
        for &index in &progress.finish_order {
            if let TaskState::Done(result) = &progress.tasks[index] {
                let _ = tx.send(StreamEvent::Task {
                    index,
                    result: result.clone(),
                });
            }
        }
        match &progress.report {
            Some(report) => {
                let _ = tx.send(StreamEvent::Report(report.clone()));
            }
            None => progress.subscribers.push(tx),
        }
        rx
    }

    /// Waits for the final report.
    pub async fn wait(&self) -> Arc<JudgeReport> {
        let mut rx = self.done.subscribe();
        loop {
            if let Some(report) = rx.borrow_and_update().clone() {
                return report;
            }
            if rx.changed().await.is_err() {
                // The sender lives as long as the entry, so this does not happen; wait forever
                // rather than invent a report.
                std::future::pending::<()>().await;
            }
        }
    }
}

/// All submissions known to the server.
#[derive(Debug)]
pub struct Store {
    entries: Mutex<HashMap<SubKey, Arc<Entry>>>,
    db: Arc<Db>,
    retention: Duration,
    max_retained: usize,
}

impl Store {
    /// Opens the store in `data_dir`; also returns the submissions accepted and not finished
    /// before (the caller judges them again, in that order, through [`Store::recover`]).
    pub fn open(
        data_dir: &Path,
        retention: Duration,
        max_retained: usize,
    ) -> Result<(Store, Vec<Unfinished>), DbError> {
        let db = Db::open(data_dir)?;
        let unfinished = db.unfinished()?;
        let store = Store {
            entries: Mutex::new(HashMap::new()),
            db: Arc::new(db),
            retention,
            max_retained,
        };
        Ok((store, unfinished))
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SubKey, Arc<Entry>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the database on a blocking thread.
    async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let db = self.db.clone();
        tokio::task::spawn_blocking(move || f(&db))
            .await
            .map_err(|e| ApiError::Internal(format!("submission store: {e}")))?
            .map_err(|e| ApiError::Internal(e.to_string()))
    }

    /// Adds a submission in memory; a finished one with the same key is replaced (a rejudge)
    /// and returned, an unfinished one is a conflict. Not durable until [`Store::persist`].
    pub fn insert(
        &self,
        submission: &Submission,
    ) -> Result<(Arc<Entry>, Option<Arc<Entry>>), ApiError> {
        let entry = Arc::new(Entry::new(submission));
        let mut entries = self.lock();
        if let Some(existing) = entries.get(&entry.key)
            && !existing.is_finished()
        {
            return Err(ApiError::Conflict(format!(
                "sub_id: submission {:?} is still queued or running",
                submission.sub_id
            )));
        }
        let previous = entries.insert(entry.key.clone(), entry.clone());
        Ok((entry, previous))
    }

    /// Undoes an [`Store::insert`] of `entry` (the submission could not be queued): the
    /// previous entry, if any, comes back.
    pub fn undo_insert(&self, entry: &Arc<Entry>, previous: Option<Arc<Entry>>) {
        let mut entries = self.lock();
        if entries
            .get(&entry.key)
            .is_some_and(|e| Arc::ptr_eq(e, entry))
        {
            match previous {
                Some(previous) => entries.insert(entry.key.clone(), previous),
                None => entries.remove(&entry.key),
            };
        }
    }

    /// Writes the accepted submission (its request text) to disk; on disk when this returns.
    pub async fn persist(&self, entry: &Entry, request: String) -> Result<(), ApiError> {
        let key = entry.key.clone();
        self.db(move |db| db.accept(&key, &request)).await
    }

    /// Puts a submission read back at start into memory (it is already on disk).
    pub fn recover(&self, submission: &Submission) -> Arc<Entry> {
        let entry = Arc::new(Entry::new(submission));
        self.lock().insert(entry.key.clone(), entry.clone());
        entry
    }

    /// At start: a stored request that no longer reads is finished with a report saying why
    /// (`results: []`, `message`), as an invalid request is, rather than dropped.
    pub fn fail_unreadable(&self, key: &SubKey, message: String) {
        let report = JudgeReport {
            sub_type: "programming".into(),
            category: key.category.clone(),
            prob_id: String::new(),
            sub_id: key.sub_id.clone(),
            results: Vec::new(),
            message: Some(message),
        };
        let written = serde_json::to_string(&report)
            .map_err(|e| e.to_string())
            .and_then(|json| {
                self.db
                    .finish(key, &json, now_ms())
                    .map_err(|e| e.to_string())
            });
        if let Err(err) = written {
            tracing::error!(sub_id = %key.sub_id, "cannot store the report: {err}");
        }
    }

    /// A worker took `entry`: recorded on disk (a restart then knows it was interrupted).
    pub async fn start(&self, entry: &Entry, metrics: &Metrics) {
        entry.start(metrics);
        let key = entry.key.clone();
        if let Err(err) = self.db(move |db| db.start(&key)).await {
            tracing::error!(sub_id = %entry.key.sub_id, "cannot record the start: {err:?}");
        }
    }

    /// The final report: written to disk first, then published (waiters, streams, GET).
    pub async fn finish(&self, entry: &Entry, report: JudgeReport, metrics: &Metrics) {
        let key = entry.key.clone();
        match serde_json::to_string(&report) {
            Ok(json) => {
                let written = self.db(move |db| db.finish(&key, &json, now_ms())).await;
                if let Err(err) = written {
                    tracing::error!(sub_id = %entry.key.sub_id, "cannot store the report: {err:?}");
                }
            }
            Err(err) => {
                tracing::error!(sub_id = %entry.key.sub_id, "cannot encode the report: {err}")
            }
        }
        entry.finish(report, metrics);
    }

    /// The submission `key`, if known: in memory, or finished and still kept on disk.
    pub async fn get(&self, key: &SubKey) -> Result<Option<Arc<Entry>>, ApiError> {
        if let Some(entry) = self.lock().get(key).cloned() {
            return Ok(Some(entry));
        }
        let lookup = key.clone();
        let Some(Finished {
            report,
            finished_at_ms,
        }) = self.db(move |db| db.finished(&lookup)).await?
        else {
            return Ok(None);
        };
        let report: JudgeReport = serde_json::from_str(&report)
            .map_err(|e| ApiError::Internal(format!("stored report of {:?}: {e}", key.sub_id)))?;
        let age = Duration::from_millis(u64::try_from(now_ms() - finished_at_ms).unwrap_or(0));
        if age >= self.retention {
            // Past its retention: gone, even before the next sweep removes the row.
            return Ok(None);
        }
        let entry = Arc::new(Entry::finished(report, age));
        // Another request may have put it (or a rejudge) in meanwhile: keep that one.
        Ok(Some(
            self.lock().entry(key.clone()).or_insert(entry).clone(),
        ))
    }

    /// The categories that hold a submission `sub_id` (for a token bound to none).
    pub async fn categories_of(&self, sub_id: &str) -> Result<Vec<String>, ApiError> {
        let mut categories: Vec<String> = self
            .lock()
            .keys()
            .filter(|k| k.sub_id == sub_id)
            .map(|k| k.category.clone())
            .collect();
        let sub_id = sub_id.to_owned();
        categories.extend(self.db(move |db| db.categories_of(&sub_id)).await?);
        categories.sort();
        categories.dedup();
        Ok(categories)
    }

    /// Every entry held in memory (the page's list of recent submissions).
    pub fn list(&self) -> Vec<Arc<Entry>> {
        self.lock().values().cloned().collect()
    }

    /// How many entries are held in memory.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no entry is held in memory.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops finished entries older than the retention, then the oldest finished ones beyond
    /// `max_retained`, in memory and on disk.
    pub async fn sweep(&self) {
        self.sweep_memory();
        let (retention, max) = (self.retention, self.max_retained);
        let before = now_ms() - i64::try_from(retention.as_millis()).unwrap_or(i64::MAX);
        if let Err(err) = self.db(move |db| db.sweep(before, max)).await {
            tracing::error!("cannot sweep the submission store: {err:?}");
        }
    }

    fn sweep_memory(&self) {
        let now = Instant::now();
        let mut entries = self.lock();
        entries.retain(|_, e| {
            e.finished_at()
                .is_none_or(|at| now.duration_since(at) < self.retention)
        });
        let mut finished: Vec<(Instant, SubKey)> = entries
            .iter()
            .filter_map(|(key, e)| e.finished_at().map(|at| (at, key.clone())))
            .collect();
        if finished.len() > self.max_retained {
            finished.sort();
            let excess = finished.len() - self.max_retained;
            for (_, key) in finished.into_iter().take(excess) {
                entries.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(sub_id: &str) -> Submission {
        verdict_contracts::parse_submission(&format!(
            r#"{{"sub_type": "programming", "category": "oj", "prob_id": "p", "sub_id": "{sub_id}",
            "updated_at": 1,
            "judge_tasks": [
              {{"check_script": "compile", "depends_on": -1, "time_limit": 1000}},
              {{"check_script": "standard", "run_script": "standard", "compare_script": "diff-all",
               "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED", "time_limit": 1000}}
            ],
            "test_data": [{{"inputs": [{{"type": "text", "name": "testdata.in", "text": "1 2\n"}}],
                            "outputs": [{{"type": "text", "name": "testdata.out", "text": "3\n"}}]}}],
            "submission": {{"type": "source_code", "language": "c",
              "source_files": [{{"type": "text", "name": "main.c", "text": "int main(){{}}"}}]}}}}"#
        ))
        .unwrap()
    }

    fn statuses(entry: &Entry) -> Vec<JudgeStatus> {
        entry
            .snapshot()
            .0
            .results
            .iter()
            .map(|r| r.status)
            .collect()
    }

    #[test]
    fn progress_moves_from_pending_to_done() {
        let metrics = Metrics::default();
        let entry = Entry::new(&submission("s1"));
        assert_eq!(
            statuses(&entry),
            [JudgeStatus::Pending, JudgeStatus::Pending]
        );
        entry.start(&metrics);
        assert_eq!(
            statuses(&entry),
            [JudgeStatus::Compiling, JudgeStatus::Pending]
        );
        let events = entry.subscribe();
        entry.task_done(
            0,
            JudgeTaskResult::with_status(JudgeStatus::Accepted, ""),
            &metrics,
        );
        assert_eq!(
            statuses(&entry),
            [JudgeStatus::Accepted, JudgeStatus::Running]
        );
        assert_eq!(metrics.running_tasks.load(Ordering::Relaxed), 1);
        let report = JudgeReport {
            results: vec![
                JudgeTaskResult::with_status(JudgeStatus::Accepted, ""),
                JudgeTaskResult::with_status(JudgeStatus::WrongAnswer, ""),
            ],
            ..entry.snapshot().0
        };
        entry.finish(report, &metrics);
        assert_eq!(metrics.running_tasks.load(Ordering::Relaxed), 0);
        assert!(entry.snapshot().1);
        let mut events = events;
        let kinds: Vec<String> = std::iter::from_fn(|| events.try_recv().ok())
            .map(|e| match e {
                StreamEvent::Task { index, .. } => format!("task {index}"),
                StreamEvent::Report(_) => "report".into(),
            })
            .collect();
        assert_eq!(kinds, ["task 0", "task 1", "report"]);
        // A late subscriber gets the same sequence.
        let mut late = entry.subscribe();
        assert_eq!(std::iter::from_fn(|| late.try_recv().ok()).count(), 3);
    }

    fn store(max_retained: usize) -> (Store, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let (store, unfinished) =
            Store::open(dir.path(), Duration::from_secs(60), max_retained).unwrap();
        assert!(unfinished.is_empty());
        (store, dir)
    }

    fn in_category(category: &str, sub_id: &str) -> Submission {
        Submission {
            category: category.into(),
            ..submission(sub_id)
        }
    }

    #[test]
    fn duplicate_sub_ids_conflict_only_while_unfinished() {
        let metrics = Metrics::default();
        let (store, _dir) = store(10);
        let (first, _) = store.insert(&submission("dup")).unwrap();
        assert!(matches!(
            store.insert(&submission("dup")),
            Err(ApiError::Conflict(_))
        ));
        let report = first.snapshot().0;
        first.finish(report, &metrics);
        let (second, previous) = store.insert(&submission("dup")).unwrap();
        assert!(previous.is_some_and(|p| Arc::ptr_eq(&p, &first)));
        store.undo_insert(&second, Some(first.clone()));
        let key = SubKey::new("oj", "dup");
        assert!(
            store
                .lock()
                .get(&key)
                .is_some_and(|e| Arc::ptr_eq(e, &first))
        );
    }

    #[test]
    fn the_same_sub_id_in_two_categories_is_two_submissions() {
        let (store, _dir) = store(10);
        let (alpha, _) = store.insert(&in_category("alpha", "same")).unwrap();
        let (beta, previous) = store.insert(&in_category("beta", "same")).unwrap();
        assert!(
            previous.is_none(),
            "beta's submission replaces nothing of alpha's"
        );
        assert!(!Arc::ptr_eq(&alpha, &beta));
        assert_eq!(store.len(), 2);
    }

    #[tokio::test]
    async fn a_finished_report_is_read_back_from_disk() {
        let metrics = Metrics::default();
        let dir = tempfile::tempdir().unwrap();
        let key = SubKey::new("oj", "kept");
        {
            let (store, _) = Store::open(dir.path(), Duration::from_secs(60), 10).unwrap();
            let (entry, _) = store.insert(&submission("kept")).unwrap();
            store.persist(&entry, "{}".into()).await.unwrap();
            store.start(&entry, &metrics).await;
            let mut report = entry.snapshot().0;
            report.results[1].status = JudgeStatus::WrongAnswer;
            store.finish(&entry, report, &metrics).await;
        }
        let (store, unfinished) = Store::open(dir.path(), Duration::from_secs(60), 10).unwrap();
        assert!(unfinished.is_empty());
        let entry = store.get(&key).await.unwrap().expect("kept on disk");
        assert_eq!(entry.phase(), Phase::Finished);
        assert_eq!(statuses(&entry)[1], JudgeStatus::WrongAnswer);
        assert_eq!(entry.subscribe().try_recv().map(|_| ()).ok(), Some(()));
        assert!(
            store
                .get(&SubKey::new("other", "kept"))
                .await
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn sweep_keeps_at_most_max_retained() {
        let metrics = Metrics::default();
        let (store, _dir) = store(2);
        for i in 0..4 {
            let (entry, _) = store.insert(&submission(&format!("s{i}"))).unwrap();
            entry.finish(entry.snapshot().0, &metrics);
        }
        let (running, _) = store.insert(&submission("running")).unwrap();
        store.sweep_memory();
        assert_eq!(store.len(), 3);
        let entries = store.lock();
        assert!(!entries.contains_key(&SubKey::new("oj", "s0")));
        assert!(entries.contains_key(&SubKey::new("oj", "s3")));
        assert!(
            entries
                .get(&SubKey::new("oj", "running"))
                .is_some_and(|e| Arc::ptr_eq(e, &running))
        );
    }
}
