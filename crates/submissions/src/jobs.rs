//! The bounded job queue and its workers.
//!
//! A submission is accepted only while fewer than `queue_capacity` wait (else 429). Each accepted
//! submission becomes a tracked task that waits first for its category's quota, then for one of
//! the `workers` slots (both FIFO semaphores), then judges. Waiting for the quota before taking
//! a worker slot means a category at its quota never holds up the others (no head-of-line
//! blocking, which one shared channel read by N workers would have). Shutdown closes the
//! tracker and waits for every accepted submission.

use crate::claim::AcceptClaim;
use crate::db::{SubKey, Unfinished};
use crate::entry::Entry;
use crate::error::SubmissionError;
use crate::metrics::{Metrics, Reject};
use crate::store::Store;
use futures::FutureExt;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::task::TaskTracker;
use verdict_contracts::{JudgeReport, JudgeStatus, JudgeTaskResult, Submission, Valid};
use verdict_scheduler::{Judge, SubmissionCancel, TaskUpdate};
use verdict_scripts::timing;

/// The queue, the worker slots and the per-category quotas.
#[derive(Debug)]
pub struct Jobs {
    judge: Judge,
    metrics: Arc<Metrics>,
    store: Arc<Store>,
    capacity: usize,
    queued: Arc<AtomicUsize>,
    /// The most request bytes waiting at once ([`Jobs::with_byte_budget`]).
    byte_budget: usize,
    /// The request bytes of the submissions accepted and not started.
    queued_bytes: Arc<AtomicUsize>,
    workers: Arc<Semaphore>,
    worker_count: usize,
    judging_time: Arc<JudgingTime>,
    quotas: HashMap<String, Arc<Semaphore>>,
    tracker: TaskTracker,
    accepting: AtomicBool,
    /// The cancel switches of the submissions queued or running.
    cancels: Arc<Mutex<HashMap<SubKey, SubmissionCancel>>>,
}

/// A place in the queue and its bytes in the budget, given back on drop unless the job was
/// spawned.
#[derive(Debug)]
struct Reservation<'a> {
    jobs: &'a Jobs,
    bytes: usize,
    spent: bool,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.spent {
            self.jobs.queued.fetch_sub(1, Ordering::AcqRel);
            self.jobs
                .queued_bytes
                .fetch_sub(self.bytes, Ordering::AcqRel);
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
            byte_budget: usize::MAX,
            queued_bytes: Arc::new(AtomicUsize::new(0)),
            workers: Arc::new(Semaphore::new(workers)),
            worker_count: workers,
            judging_time: Arc::new(JudgingTime::default()),
            quotas: quotas
                .iter()
                .map(|(category, n)| (category.clone(), Arc::new(Semaphore::new(*n))))
                .collect(),
            tracker: TaskTracker::new(),
            accepting: AtomicBool::new(true),
            cancels: Arc::default(),
        }
    }

    /// At most `bytes` of request text wait at once (the sum of the queued submissions' request
    /// sizes; unbounded until set): one that would pass it is refused like a full queue, so
    /// the memory a queue holds is bounded by bytes, not only by `queue_capacity`.
    #[must_use]
    pub fn with_byte_budget(mut self, bytes: usize) -> Self {
        self.byte_budget = bytes;
        self
    }

    /// Accepts `submission` (`request` is its text) to be judged here: an entry in the store (a
    /// conflict for a key in flight, whatever the load), a place in the queue (full, or shutting
    /// down), the request on disk, a worker task. When this returns `Ok` the submission is
    /// durable and on its way to being judged, and the entry follows its progress. Past
    /// `deadline` with the commit not done (a stalled or frozen disk) it is
    /// [`SubmissionError::Stalled`] and nothing is accepted: a commit that ends later is taken
    /// back (a finished submission it replaced comes back).
    pub async fn accept(
        self: &Arc<Self>,
        submission: Valid<Submission>,
        request: String,
        deadline: Option<std::time::Instant>,
    ) -> Result<Arc<Entry>, SubmissionError> {
        // On its own task: a request dropped meanwhile (timeout, client gone) must not leave
        // the submission half-accepted (on disk, in no queue); it ends queued, or not accepted.
        let jobs = self.clone();
        let claim = Arc::new(AcceptClaim::default());
        let mut accepting = tokio::spawn({
            let claim = claim.clone();
            async move {
                let (entry, previous) = jobs
                    .store
                    .insert(&submission)
                    .inspect_err(|_| jobs.metrics.rejected(Reject::Conflict))?;
                let reservation = match jobs.reserve(request.len()) {
                    Ok(reservation) => reservation,
                    Err(err) => {
                        jobs.store.undo_insert(&entry, previous);
                        return Err(err);
                    }
                };
                // Durable before the client hears anything (design #22).
                if let Err(err) = jobs.store.persist(&entry, request).await {
                    jobs.store.undo_insert(&entry, previous);
                    return Err(err);
                }
                // Unless the caller gave up on a stalled disk and answered that nothing was
                // accepted: then it is not (the late commit is taken back).
                claim.stand(&jobs.store, &entry, previous).await?;
                jobs.spawn(reservation, entry.clone(), submission);
                Ok(entry)
            }
        });
        let joined = match claim.wait(deadline.map(Into::into), &mut accepting).await? {
            Some(joined) => joined,
            // Committed just now: the task only hands the job on.
            None => (&mut accepting).await,
        };
        joined.map_err(|e| SubmissionError::Internal(format!("accepting: {e}")))?
    }

    /// At start: puts back the submissions a previous run accepted and did not finish (from
    /// [`Store::open`]) and judges them again, in the order they were accepted. The work dirs of
    /// those it had started went with its sandbox instance's work root, which the judge removed
    /// at start (design #23: the dead instance's lock is free).
    pub fn recover(&self, unfinished: Vec<Unfinished>) {
        for (entry, submission, bytes) in self.store.recover(unfinished, &self.metrics) {
            self.resume(entry, submission, bytes);
        }
    }

    /// A place in the queue for a request of `bytes`, or why not (full by count or by bytes,
    /// shutting down).
    fn reserve(&self, bytes: usize) -> Result<Reservation<'_>, SubmissionError> {
        if !self.accepting.load(Ordering::Acquire) {
            self.metrics.rejected(Reject::ShuttingDown);
            return Err(SubmissionError::ShuttingDown);
        }
        let taken = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.capacity).then_some(n + 1)
            });
        match taken {
            Ok(_) => {
                self.metrics.queue_length.fetch_add(1, Ordering::Relaxed);
                let mut reservation = Reservation {
                    jobs: self,
                    bytes: 0,
                    spent: false,
                };
                let budget = self.byte_budget;
                let taken =
                    self.queued_bytes
                        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |b| {
                            b.checked_add(bytes).filter(|sum| *sum <= budget)
                        });
                match taken {
                    Ok(_) => {
                        reservation.bytes = bytes;
                        Ok(reservation)
                    }
                    Err(waiting) => {
                        self.metrics.rejected(Reject::QueueFull);
                        Err(SubmissionError::QueueBytesFull {
                            bytes,
                            waiting,
                            budget,
                            retry_after_secs: self.retry_after_secs(),
                        })
                    }
                }
            }
            Err(_) => {
                self.metrics.rejected(Reject::QueueFull);
                Err(SubmissionError::QueueFull {
                    capacity: self.capacity,
                    retry_after_secs: self.retry_after_secs(),
                })
            }
        }
    }

    /// When to retry after a 429: the expected time until one queue place frees.
    fn retry_after_secs(&self) -> u64 {
        retry_after_secs(self.judging_time.mean(), self.worker_count)
    }

    /// Judges `submission` in the background, reporting into `entry`.
    fn spawn(
        &self,
        mut reservation: Reservation<'_>,
        entry: Arc<Entry>,
        submission: Valid<Submission>,
    ) {
        reservation.spent = true;
        self.run(entry, submission, reservation.bytes);
    }

    /// Judges again a submission accepted before a restart (it takes a queue place even when
    /// the queue is full: it was accepted when there was room).
    fn resume(&self, entry: Arc<Entry>, submission: Valid<Submission>, bytes: usize) {
        self.queued.fetch_add(1, Ordering::AcqRel);
        self.queued_bytes.fetch_add(bytes, Ordering::AcqRel);
        self.metrics.queue_length.fetch_add(1, Ordering::Relaxed);
        self.run(entry, submission, bytes);
    }

    fn run(&self, entry: Arc<Entry>, submission: Valid<Submission>, bytes: usize) {
        let store = self.store.clone();
        let judging_time = self.judging_time.clone();
        let judge = self.judge.clone();
        let metrics = self.metrics.clone();
        let workers = self.workers.clone();
        let queued = self.queued.clone();
        let queued_bytes = self.queued_bytes.clone();
        let quota = self.quotas.get(&submission.category).cloned();
        let cancel = SubmissionCancel::default();
        self.lock_cancels()
            .insert(entry.key.clone(), cancel.clone());
        let cancels = self.cancels.clone();
        self.tracker.spawn(async move {
            let places = async {
                let quota = match quota {
                    Some(q) => q.acquire_owned().await.ok(),
                    None => None,
                };
                (quota, workers.acquire_owned().await.ok())
            };
            // Cancelled while queued: it takes no place, and every task ends cancelled at once.
            let (_quota, _worker) = tokio::select! {
                biased;
                () = cancel.cancelled() => (None, None),
                places = places => places,
            };
            queued.fetch_sub(1, Ordering::AcqRel);
            queued_bytes.fetch_sub(bytes, Ordering::AcqRel);
            metrics.queue_length.fetch_sub(1, Ordering::Relaxed);
            metrics.running_submissions.fetch_add(1, Ordering::Relaxed);
            let started = std::time::Instant::now();
            // The start goes to disk while the judge works (it is no one's prerequisite: an
            // interrupted submission is judged again whether or not it was marked running),
            // but its in-memory part comes first: the first poll runs it before any task ends.
            let starting = async {
                let _writing = timing::phase("server.start");
                store.start(&entry, &metrics).await;
            };
            // (MaybeDone: the write may already be done at that first poll.)
            let mut starting = std::pin::pin!(futures::future::maybe_done(starting));
            let _ = futures::poll!(starting.as_mut());
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
                AssertUnwindSafe(judge.judge_cancellable(submission, Some(tx), cancel.clone()))
                    .catch_unwind();
            let forwarding = async {
                while let Some(update) = rx.recv().await {
                    entry.task_done(update.index, update.result, &metrics);
                }
            };
            let (judged, (), ()) = tokio::join!(judging, forwarding, starting.as_mut());
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
            // (Out before the end, so a submission of the same key accepted after it keeps its
            // own switch.)
            cancels
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&entry.key);
            let finishing = timing::phase("server.finish");
            // A cancelled one ends here too, durably: a restart does not judge it again.
            store.finish(&entry, report, &metrics).await;
            finishing.end();
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
            judging_time.observe(started.elapsed().as_secs_f64());
            metrics.submissions_finished.fetch_add(1, Ordering::Relaxed);
            metrics.running_submissions.fetch_sub(1, Ordering::Relaxed);
        });
        self.metrics
            .submissions_accepted
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Cancels the submission `key` if it is queued or running here: no task of it starts from
    /// now on, its worker place is given back as soon as the tasks running end (each within
    /// its own limits), and its report (the tasks not run as System Error, `error_log`
    /// [`CANCELLED`](verdict_scheduler::CANCELLED)) is kept as final, so a restart does not
    /// judge it again. Whether it was queued or running.
    pub fn cancel(&self, key: &SubKey) -> bool {
        match self.lock_cancels().get(key) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    fn lock_cancels(&self) -> std::sync::MutexGuard<'_, HashMap<SubKey, SubmissionCancel>> {
        self.cancels.lock().unwrap_or_else(|e| e.into_inner())
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

    /// The request bytes of the submissions accepted and not started.
    pub fn queued_bytes(&self) -> usize {
        self.queued_bytes.load(Ordering::Acquire)
    }
}

/// A moving average of how long one submission takes to judge, from a worker taking it to its
/// final report (not from its acceptance: the time spent queued says nothing about how fast
/// places free up).
#[derive(Debug, Default)]
pub(crate) struct JudgingTime {
    /// The average's `f64` bits; 0 until the first submission finished.
    bits: AtomicU64,
}

impl JudgingTime {
    /// Weight of the newest observation.
    const ALPHA: f64 = 0.2;

    pub(crate) fn observe(&self, secs: f64) {
        let _ = self
            .bits
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                let next = if old == 0 {
                    secs
                } else {
                    let mean = f64::from_bits(old);
                    mean + Self::ALPHA * (secs - mean)
                };
                Some(next.max(f64::MIN_POSITIVE).to_bits())
            });
    }

    pub(crate) fn mean(&self) -> Option<f64> {
        let mean = f64::from_bits(self.bits.load(Ordering::Acquire));
        (mean > 0.0).then_some(mean)
    }
}

/// The `Retry-After` of a 429, in whole seconds (1 to 60): the expected time until one queue
/// place frees. With `workers` judging at once, each for `judging` seconds on average, one of
/// them finishes (and a queued submission takes its place) every `judging / workers` seconds.
/// The queue's length does not enter: a client needs one place, not the whole queue drained.
pub(crate) fn retry_after_secs(judging: Option<f64>, workers: usize) -> u64 {
    let secs = judging.unwrap_or(1.0) / workers.max(1) as f64;
    (secs.ceil() as u64).clamp(1, 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_the_time_until_one_place_frees() {
        // 2 workers, 0.6 s each: a place every 0.3 s, whatever the queue's length.
        assert_eq!(retry_after_secs(Some(0.6), 2), 1);
        assert_eq!(retry_after_secs(Some(9.0), 2), 5);
        assert_eq!(retry_after_secs(Some(9.0), 3), 3);
        assert_eq!(retry_after_secs(None, 2), 1);
        assert_eq!(retry_after_secs(Some(1000.0), 1), 60);
    }

    #[test]
    fn judging_time_follows_recent_submissions() {
        let time = JudgingTime::default();
        assert_eq!(time.mean(), None);
        time.observe(2.0);
        assert_eq!(time.mean(), Some(2.0));
        for _ in 0..50 {
            time.observe(0.5);
        }
        assert!((time.mean().unwrap() - 0.5).abs() < 0.01);
    }
}
