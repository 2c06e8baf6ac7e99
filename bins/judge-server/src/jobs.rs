//! The bounded job queue and its workers.
//!
//! A submission is accepted only while fewer than `queue_capacity` wait (else 429). Each accepted
//! submission becomes a tracked task that waits first for its category's quota, then for one of
//! the `workers` slots (both FIFO semaphores), then judges. Waiting for the quota before taking
//! a worker slot means a category at its quota never holds up the others (no head-of-line
//! blocking, which one shared channel read by N workers would have). Shutdown closes the
//! tracker and waits for every accepted submission.

use crate::error::ApiError;
use crate::metrics::{Metrics, Reject};
use crate::store::{Entry, Store};
use futures::FutureExt;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::task::TaskTracker;
use verdict_contracts::{JudgeReport, JudgeStatus, JudgeTaskResult, Submission};
use verdict_scheduler::{Judge, TaskUpdate};

/// The queue, the worker slots and the per-category quotas.
#[derive(Debug)]
pub struct Jobs {
    judge: Judge,
    metrics: Arc<Metrics>,
    store: Arc<Store>,
    capacity: usize,
    queued: Arc<AtomicUsize>,
    workers: Arc<Semaphore>,
    worker_count: usize,
    quotas: HashMap<String, Arc<Semaphore>>,
    tracker: TaskTracker,
    accepting: AtomicBool,
}

/// A place in the queue, given back on drop unless the job was spawned.
#[derive(Debug)]
pub struct Reservation<'a> {
    jobs: &'a Jobs,
    spent: bool,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.spent {
            self.jobs.queued.fetch_sub(1, Ordering::AcqRel);
            self.jobs
                .metrics
                .queue_length
                .fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Jobs {
    /// The queue for `judge`.
    pub fn new(
        judge: Judge,
        metrics: Arc<Metrics>,
        store: Arc<Store>,
        capacity: usize,
        workers: usize,
        quotas: &BTreeMap<String, usize>,
    ) -> Self {
        Jobs {
            judge,
            metrics,
            store,
            capacity,
            queued: Arc::new(AtomicUsize::new(0)),
            workers: Arc::new(Semaphore::new(workers)),
            worker_count: workers,
            quotas: quotas
                .iter()
                .map(|(category, n)| (category.clone(), Arc::new(Semaphore::new(*n))))
                .collect(),
            tracker: TaskTracker::new(),
            accepting: AtomicBool::new(true),
        }
    }

    /// A place in the queue, or 429 (full) / 503 (shutting down).
    pub fn reserve(&self) -> Result<Reservation<'_>, ApiError> {
        if !self.accepting.load(Ordering::Acquire) {
            self.metrics.rejected(Reject::ShuttingDown);
            return Err(ApiError::ShuttingDown);
        }
        let taken = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.capacity).then_some(n + 1)
            });
        match taken {
            Ok(_) => {
                self.metrics.queue_length.fetch_add(1, Ordering::Relaxed);
                Ok(Reservation {
                    jobs: self,
                    spent: false,
                })
            }
            Err(_) => {
                self.metrics.rejected(Reject::QueueFull);
                Err(ApiError::Busy {
                    message: format!(
                        "the queue is full ({} submissions waiting); retry later",
                        self.capacity
                    ),
                    retry_after_secs: self.retry_after_secs(),
                })
            }
        }
    }

    /// A guess at when a place frees up: the queue's length times the mean judging time,
    /// divided among the workers (1 to 60 s).
    fn retry_after_secs(&self) -> u64 {
        let mean = self.metrics.submission_duration.mean().unwrap_or(1.0);
        let waiting = self.queued.load(Ordering::Acquire) as f64;
        let secs = (waiting * mean / self.worker_count.max(1) as f64).ceil();
        (secs as u64).clamp(1, 60)
    }

    /// Judges `submission` in the background, reporting into `entry`.
    pub fn spawn(
        &self,
        mut reservation: Reservation<'_>,
        entry: Arc<Entry>,
        submission: Submission,
    ) {
        reservation.spent = true;
        self.run(entry, submission);
    }

    /// Judges again a submission accepted before a restart (it takes a queue place even when
    /// the queue is full: it was accepted when there was room).
    pub fn recover(&self, entry: Arc<Entry>, submission: Submission) {
        self.queued.fetch_add(1, Ordering::AcqRel);
        self.metrics.queue_length.fetch_add(1, Ordering::Relaxed);
        self.run(entry, submission);
    }

    fn run(&self, entry: Arc<Entry>, submission: Submission) {
        let store = self.store.clone();
        let judge = self.judge.clone();
        let metrics = self.metrics.clone();
        let workers = self.workers.clone();
        let queued = self.queued.clone();
        let quota = self.quotas.get(&submission.category).cloned();
        self.tracker.spawn(async move {
            let _quota = match quota {
                Some(q) => q.acquire_owned().await.ok(),
                None => None,
            };
            let _worker = workers.acquire_owned().await.ok();
            queued.fetch_sub(1, Ordering::AcqRel);
            metrics.queue_length.fetch_sub(1, Ordering::Relaxed);
            metrics.running_submissions.fetch_add(1, Ordering::Relaxed);
            store.start(&entry, &metrics).await;
            let (tx, mut rx) = mpsc::unbounded_channel::<TaskUpdate>();
            let header = (
                submission.sub_type.as_str().to_owned(),
                submission.category.clone(),
                submission.prob_id.clone(),
                submission.sub_id.clone(),
                submission.judge_tasks.len(),
            );
            // A panic in the judge must still end the submission (else it would stay "in
            // flight" for ever): every task becomes System Error.
            let judging =
                AssertUnwindSafe(judge.judge_with_updates(submission, Some(tx))).catch_unwind();
            let forwarding = async {
                while let Some(update) = rx.recv().await {
                    entry.task_done(update.index, update.result, &metrics);
                }
            };
            let (judged, ()) = tokio::join!(judging, forwarding);
            let (sub_type, category, prob_id, sub_id, count) = header;
            let report = judged.unwrap_or_else(|_| {
                tracing::error!(%sub_id, "the judge panicked");
                JudgeReport {
                    sub_type,
                    category: category.clone(),
                    prob_id: prob_id.clone(),
                    sub_id: sub_id.clone(),
                    results: vec![
                        JudgeTaskResult::with_status(
                            JudgeStatus::SystemError,
                            "the judge failed; the server's log has the details",
                        );
                        count
                    ],
                    message: None,
                }
            });
            let statuses: Vec<&str> = report.results.iter().map(|r| r.status.as_str()).collect();
            let statuses = statuses.join(", ");
            store.finish(&entry, report, &metrics).await;
            let elapsed = entry.accepted_at.elapsed();
            tracing::info!(
                %sub_id,
                %category,
                %prob_id,
                ms = elapsed.as_millis() as u64,
                %statuses,
                "judged"
            );
            metrics.submission_duration.observe(elapsed.as_secs_f64());
            metrics.submissions_finished.fetch_add(1, Ordering::Relaxed);
            metrics.running_submissions.fetch_sub(1, Ordering::Relaxed);
        });
        self.metrics
            .submissions_accepted
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Refuses new submissions from now on (503).
    pub fn stop_accepting(&self) {
        self.accepting.store(false, Ordering::Release);
        self.tracker.close();
    }

    /// Whether new submissions are accepted.
    pub fn accepting(&self) -> bool {
        self.accepting.load(Ordering::Acquire)
    }

    /// Waits until every accepted submission is judged (after [`Jobs::stop_accepting`]).
    pub async fn drained(&self) {
        self.tracker.wait().await;
    }

    /// Submissions accepted and not started.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }
}
