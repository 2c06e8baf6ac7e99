//! The submissions store: `sub_id` -> progress (per-task results as they stream in, the final
//! report, the event-stream subscribers). Finished entries are kept for `retention_secs`, at
//! most `max_retained` of them.

use crate::error::ApiError;
use crate::metrics::Metrics;
use std::collections::HashMap;
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
    report: Option<Arc<JudgeReport>>,
    finished_at: Option<Instant>,
    subscribers: Vec<mpsc::UnboundedSender<StreamEvent>>,
}

/// One submission's progress.
#[derive(Debug)]
pub struct Entry {
    /// The submission's category (a category token sees only its own).
    pub category: String,
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
            category: submission.category.clone(),
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
                report: None,
                finished_at: None,
                subscribers: Vec::new(),
            }),
            done: watch::channel(None).0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
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
    entries: Mutex<HashMap<String, Arc<Entry>>>,
    retention: Duration,
    max_retained: usize,
}

impl Store {
    /// An empty store.
    pub fn new(retention: Duration, max_retained: usize) -> Self {
        Store {
            entries: Mutex::new(HashMap::new()),
            retention,
            max_retained,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Entry>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a submission; a finished one with the same `sub_id` is replaced (a rejudge) and
    /// returned, an unfinished one is a conflict.
    pub fn insert(
        &self,
        submission: &Submission,
    ) -> Result<(Arc<Entry>, Option<Arc<Entry>>), ApiError> {
        let mut entries = self.lock();
        if let Some(existing) = entries.get(&submission.sub_id)
            && !existing.is_finished()
        {
            return Err(ApiError::Conflict(format!(
                "sub_id: submission {:?} is still queued or running",
                submission.sub_id
            )));
        }
        let entry = Arc::new(Entry::new(submission));
        let previous = entries.insert(submission.sub_id.clone(), entry.clone());
        Ok((entry, previous))
    }

    /// Undoes an [`Store::insert`] of `entry` (the submission could not be queued): the
    /// previous entry, if any, comes back.
    pub fn undo_insert(&self, sub_id: &str, entry: &Arc<Entry>, previous: Option<Arc<Entry>>) {
        let mut entries = self.lock();
        if entries.get(sub_id).is_some_and(|e| Arc::ptr_eq(e, entry)) {
            match previous {
                Some(previous) => entries.insert(sub_id.to_owned(), previous),
                None => entries.remove(sub_id),
            };
        }
    }

    /// The submission `sub_id`, if known.
    pub fn get(&self, sub_id: &str) -> Option<Arc<Entry>> {
        self.lock().get(sub_id).cloned()
    }

    /// How many entries are held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops finished entries older than the retention, then the oldest finished ones beyond
    /// `max_retained`.
    pub fn sweep(&self) {
        let now = Instant::now();
        let mut entries = self.lock();
        entries.retain(|_, e| {
            e.finished_at()
                .is_none_or(|at| now.duration_since(at) < self.retention)
        });
        let mut finished: Vec<(Instant, String)> = entries
            .iter()
            .filter_map(|(id, e)| e.finished_at().map(|at| (at, id.clone())))
            .collect();
        if finished.len() > self.max_retained {
            finished.sort();
            let excess = finished.len() - self.max_retained;
            for (_, id) in finished.into_iter().take(excess) {
                entries.remove(&id);
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

    #[test]
    fn duplicate_sub_ids_conflict_only_while_unfinished() {
        let metrics = Metrics::default();
        let store = Store::new(Duration::from_secs(60), 10);
        let (first, _) = store.insert(&submission("dup")).unwrap();
        assert!(matches!(
            store.insert(&submission("dup")),
            Err(ApiError::Conflict(_))
        ));
        let report = first.snapshot().0;
        first.finish(report, &metrics);
        let (second, previous) = store.insert(&submission("dup")).unwrap();
        assert!(previous.is_some_and(|p| Arc::ptr_eq(&p, &first)));
        store.undo_insert("dup", &second, Some(first.clone()));
        assert!(store.get("dup").is_some_and(|e| Arc::ptr_eq(&e, &first)));
    }

    #[test]
    fn sweep_keeps_at_most_max_retained() {
        let metrics = Metrics::default();
        let store = Store::new(Duration::from_secs(60), 2);
        for i in 0..4 {
            let (entry, _) = store.insert(&submission(&format!("s{i}"))).unwrap();
            entry.finish(entry.snapshot().0, &metrics);
        }
        let (running, _) = store.insert(&submission("running")).unwrap();
        store.sweep();
        assert_eq!(store.len(), 3);
        assert!(store.get("s0").is_none());
        assert!(store.get("s3").is_some());
        assert!(
            store
                .get("running")
                .is_some_and(|e| Arc::ptr_eq(&e, &running))
        );
    }
}
