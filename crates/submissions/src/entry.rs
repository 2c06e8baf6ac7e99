//! One submission's progress ([`Entry`]): per-task results as they stream in (from the judge,
//! or from a front end's reports), read by the event streams through cursors ([`EventCursor`]),
//! the final report.

use crate::db::{Phase, SubKey};
use crate::metrics::Metrics;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use verdict_contracts::{CheckScript, JudgeReport, JudgeStatus, JudgeTaskResult, Submission};

/// What an event stream receives.
#[derive(Debug, Clone)]
pub enum StreamEvent {
    /// A task finished.
    Task {
        /// Its index in `judge_tasks`.
        index: usize,
        /// Its result (boxed: a result is large beside the report's `Arc`).
        result: Box<JudgeTaskResult>,
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
    /// Finished (boxed: a result is large beside the other states).
    Done(Box<JudgeTaskResult>),
}

#[derive(Debug)]
struct Progress {
    header: JudgeReport,
    compiles: Vec<bool>,
    parents: Vec<Option<usize>>,
    tasks: Vec<TaskState>,
    finish_order: Vec<usize>,
    started: bool,
    /// Whether `compiles` and `parents` come from the Submission (not from a report).
    planned: bool,
    report: Option<Arc<JudgeReport>>,
    finished_at: Option<Instant>,
    /// The final report's size as JSON (what the store's memory budget counts), once known.
    report_bytes: usize,
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
    /// Bumped after each event (a task finished, the final report): what readers wait on.
    changed: watch::Sender<u64>,
}

impl Entry {
    /// A pending entry for `submission`.
    pub fn new(submission: &Submission) -> Self {
        let header = JudgeReport::echoing(submission, Vec::new());
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
                planned: true,
                report: None,
                finished_at: None,
                report_bytes: 0,
            }),
            done: watch::channel(None).0,
            changed: watch::channel(0).0,
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
                    .map(|r| TaskState::Done(Box::new(r)))
                    .collect(),
                finish_order: (0..count).collect(),
                started: true,
                planned: false,
                report: Some(report.clone()),
                finished_at: Some(now.checked_sub(age).unwrap_or(now)),
                report_bytes: 0,
            }),
            done: watch::channel(Some(report)).0,
            changed: watch::channel(0).0,
        }
    }

    /// An entry for a submission first seen in a report so far from the broker (a front end's,
    /// for a submission another front end accepted): its finished tasks done, the others as
    /// the report says.
    pub fn from_report(report: &JudgeReport, metrics: &Metrics) -> Self {
        let count = report.results.len();
        let entry = Entry {
            key: SubKey::new(&report.category, &report.sub_id),
            accepted_at: Instant::now(),
            progress: Mutex::new(Progress {
                header: JudgeReport {
                    results: Vec::new(),
                    ..report.clone()
                },
                compiles: report
                    .results
                    .iter()
                    .map(|r| r.status == JudgeStatus::Compiling)
                    .collect(),
                parents: vec![None; count],
                tasks: vec![TaskState::Pending; count],
                finish_order: Vec::with_capacity(count),
                started: false,
                planned: false,
                report: None,
                finished_at: None,
                report_bytes: 0,
            }),
            done: watch::channel(None).0,
            changed: watch::channel(0).0,
        };
        entry.apply(report, metrics);
        entry
    }

    /// A report so far from the broker: the submission is running, its finished tasks are done
    /// (a task done stays done: a redelivered submission's reports start over at `Pending`).
    pub fn apply(&self, report: &JudgeReport, metrics: &Metrics) {
        let mut progress = self.lock();
        if progress.report.is_some() {
            return;
        }
        if !progress.started && progress.planned {
            drop(progress);
            self.start(metrics);
            progress = self.lock();
        }
        progress.started = true;
        let mut done = Vec::new();
        for (index, result) in report.results.iter().enumerate() {
            match (progress.tasks.get(index), result.status) {
                (None | Some(TaskState::Done(_)), _) => {}
                (_, status) if !status.is_in_progress() => done.push((index, result.clone())),
                (Some(TaskState::Pending), JudgeStatus::Running | JudgeStatus::Compiling) => {
                    progress.tasks[index] = TaskState::Started;
                    metrics.running_tasks.fetch_add(1, Ordering::Relaxed);
                }
                _ => {}
            }
        }
        drop(progress);
        for (index, result) in done {
            self.task_done(index, result, metrics);
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
                TaskState::Done(result) => (**result).clone(),
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

    /// When the final report came in.
    pub(crate) fn finished_at(&self) -> Option<Instant> {
        self.lock().finished_at
    }

    /// Records the final report's size as JSON, for the store's memory budget.
    pub(crate) fn set_report_bytes(&self, bytes: usize) {
        self.lock().report_bytes = bytes;
    }

    /// When the final report came in and its size as JSON (0 if not recorded).
    pub(crate) fn finished_size(&self) -> Option<(Instant, usize)> {
        let progress = self.lock();
        progress.finished_at.map(|at| (at, progress.report_bytes))
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

    /// A task finished: record it, wake the readers, start its children.
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
        progress.tasks[index] = TaskState::Done(Box::new(result.clone()));
        progress.finish_order.push(index);
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
        drop(progress);
        self.changed.send_modify(|n| *n += 1);
    }

    /// The final report: fill in tasks never streamed, wake the readers and the waiters.
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
        }
        self.changed.send_modify(|n| *n += 1);
        self.done.send_replace(Some(report));
    }

    /// A reader of this submission's events: the tasks already finished (in the order they
    /// finished), then each task as it finishes, then the final report; it ends after the
    /// report. It reads them from this entry by index when asked ([`EventCursor::next`]), so a
    /// reader holds no copy of the stream: one that does not read costs its cursor only.
    pub fn events(self: &Arc<Self>) -> EventCursor {
        EventCursor {
            entry: self.clone(),
            next: 0,
            changed: self.changed.subscribe(),
            ended: false,
        }
    }

    /// The event at `index` of the stream (the `index`-th task to finish, then the report),
    /// `None` when it has not happened yet.
    fn event_at(&self, index: usize) -> Option<StreamEvent> {
        let progress = self.lock();
        match progress.finish_order.get(index) {
            Some(&task) => match &progress.tasks[task] {
                TaskState::Done(result) => Some(StreamEvent::Task {
                    index: task,
                    result: result.clone(),
                }),
                _ => None,
            },
            None if index == progress.finish_order.len() => {
                progress.report.clone().map(StreamEvent::Report)
            }
            None => None,
        }
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

/// One reader's place in a submission's event stream ([`Entry::events`]): the entry, the index
/// of its next event and a way to wait for new ones; nothing is queued for it.
#[derive(Debug)]
pub struct EventCursor {
    entry: Arc<Entry>,
    next: usize,
    changed: watch::Receiver<u64>,
    ended: bool,
}

impl EventCursor {
    /// The next event, waiting for it if it has not happened yet; `None` after the report.
    pub async fn next(&mut self) -> Option<StreamEvent> {
        if self.ended {
            return None;
        }
        loop {
            // Marked seen before reading, so an event after this read wakes the wait below.
            self.changed.mark_unchanged();
            if let Some(event) = self.entry.event_at(self.next) {
                self.next += 1;
                self.ended = matches!(event, StreamEvent::Report(_));
                return Some(event);
            }
            if self.changed.changed().await.is_err() {
                // The sender lives as long as the entry, which this cursor holds.
                return None;
            }
        }
    }

    /// The next event if it has happened, without waiting.
    pub fn try_next(&mut self) -> Option<StreamEvent> {
        if self.ended {
            return None;
        }
        let event = self.entry.event_at(self.next)?;
        self.next += 1;
        self.ended = matches!(event, StreamEvent::Report(_));
        Some(event)
    }

    /// The submission it reads.
    pub fn entry(&self) -> &Arc<Entry> {
        &self.entry
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A submission of a compile task and one test, in category `oj`.
    pub(crate) fn submission(sub_id: &str) -> Submission {
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
        .into_inner()
    }

    /// The statuses of an entry's report so far.
    pub(crate) fn statuses(entry: &Entry) -> Vec<JudgeStatus> {
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
        let entry = Arc::new(Entry::new(&submission("s1")));
        assert_eq!(
            statuses(&entry),
            [JudgeStatus::Pending, JudgeStatus::Pending]
        );
        entry.start(&metrics);
        assert_eq!(
            statuses(&entry),
            [JudgeStatus::Compiling, JudgeStatus::Pending]
        );
        let mut events = entry.events();
        assert!(events.try_next().is_none(), "nothing happened yet");
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
        let kinds: Vec<String> = std::iter::from_fn(|| events.try_next())
            .map(|e| match e {
                StreamEvent::Task { index, .. } => format!("task {index}"),
                StreamEvent::Report(_) => "report".into(),
            })
            .collect();
        assert_eq!(kinds, ["task 0", "task 1", "report"]);
        // A late reader gets the same sequence.
        let mut late = entry.events();
        assert_eq!(std::iter::from_fn(|| late.try_next()).count(), 3);
    }

    #[test]
    fn reports_from_the_broker_move_an_entry_forward_and_never_back() {
        let metrics = Metrics::default();
        let entry = Entry::new(&submission("s1"));
        let mut report = entry.snapshot().0;
        report.results[0].status = JudgeStatus::Accepted;
        entry.apply(&report, &metrics);
        assert_eq!(entry.phase(), Phase::Running);
        assert_eq!(
            statuses(&entry),
            [JudgeStatus::Accepted, JudgeStatus::Running]
        );
        // A redelivered submission's first report starts over at Pending: nothing goes back.
        report.results[0].status = JudgeStatus::Pending;
        entry.apply(&report, &metrics);
        assert_eq!(statuses(&entry)[0], JudgeStatus::Accepted);
        // Seen first in a report (another front end accepted it).
        let mut theirs = report.clone();
        theirs.sub_id = "theirs".into();
        theirs.results[1].status = JudgeStatus::WrongAnswer;
        let born = Entry::from_report(&theirs, &metrics);
        assert_eq!(born.key, SubKey::new("oj", "theirs"));
        assert_eq!(born.phase(), Phase::Running);
        assert_eq!(
            statuses(&born),
            [JudgeStatus::Pending, JudgeStatus::WrongAnswer]
        );
        assert!(!born.snapshot().1);
    }
}
