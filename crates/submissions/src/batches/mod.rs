//! Batches a server has accepted (design #26), and the queue they share with single Task
//! Oracle suites (`POST /v1/oracle`): durable like submissions (on disk before the client hears
//! `202`, judged again after a restart, idempotent under a client-chosen id, refused with the
//! operator's caps, swept after their retention), queued with fair sharing between categories
//! (the next job to start is taken from the categories in turn), judged by a [`DatasetBatchJudge`],
//! each candidate's result streamed as it finishes, cancellable. A suite waits in the same
//! queue for a place and its caller gets its report; a full queue is refused at once (`429`),
//! never a stalled caller.

mod caps;
mod checked;
mod disk;
mod entry;
mod queue;
mod relay;

pub use checked::CheckedBatch;
pub use entry::BatchEntry;
pub use relay::{BatchPublisher, Relay};

use crate::jobs::{JudgingTime, retry_after_secs};
use disk::{Ended, Saved};
use queue::{Job, Queues};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::{Notify, Semaphore, oneshot};
use verdict_contracts::batch::{BatchReport, BatchState, BatchSummary, parse_batch};
use verdict_contracts::oracle::{OracleReport, TestSuite};
use verdict_contracts::{Caps, FieldError};
use verdict_datasets::{DatasetBatchJudge, JudgeableBatch};
use verdict_oracle::OracleError;
use verdict_scheduler::BatchCancel;

/// Batches judged at once (each keeps as many candidates in flight as the judge has permits).
pub const BATCH_WORKERS: usize = 2;

/// Why a batch or a suite was refused.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The request is not JSON (it has no field to name).
    #[error("body: not JSON: {0}")]
    NotJson(String),
    /// The batch is invalid or over the operator's caps; every problem names its field.
    #[error("{}", join(.0))]
    Invalid(Vec<FieldError>),
    /// The id is taken by another request.
    #[error("batch {0:?} exists with another request")]
    Conflict(String),
    /// Too many jobs wait.
    #[error("the batch queue is full ({capacity} batches and suites waiting)")]
    QueueFull {
        /// The queue's capacity.
        capacity: usize,
        /// When a place is expected to free, in whole seconds.
        retry_after_secs: u64,
    },
    /// A suite would wait longer for a place than the server lets a request wait (its
    /// `max_queue_wait`, or what is left of the request's time): refused at once, so a
    /// client backs off instead of holding a socket until its read timeout.
    #[error(
        "a place for this suite is expected in {expected_secs:.1} s, longer than a suite may wait ({max_secs:.1} s: max_queue_wait_ms or the request's time)"
    )]
    WaitTooLong {
        /// The expected wait, in seconds.
        expected_secs: f64,
        /// The longest wait allowed, in seconds.
        max_secs: f64,
        /// When to come back, in whole seconds.
        retry_after_secs: u64,
    },
    /// The server is shutting down: nothing new is queued.
    #[error("the batch queue accepts nothing new (shutting down)")]
    ShuttingDown,
    /// The broker did not take the batch (or its cancel): nothing was accepted (front ends).
    #[error("the broker did not take it: {0}")]
    Unavailable(String),
    /// The batch could not be kept on disk.
    #[error("cannot keep the batch in {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The oracle could not run a suite (its shape, the sandbox, its files).
    #[error(transparent)]
    Oracle(OracleError),
}

impl BatchError {
    /// Whether the host, not the request, is at fault in a way that may pass (a full,
    /// read-only or removed data disk, an I/O error): a client should retry later.
    pub fn is_unavailable(&self) -> bool {
        use std::io::ErrorKind::{NotFound, QuotaExceeded, ReadOnlyFilesystem, StorageFull};
        match self {
            BatchError::Io { source, .. } => {
                matches!(
                    source.kind(),
                    StorageFull | ReadOnlyFilesystem | QuotaExceeded | NotFound
                ) || source.raw_os_error() == Some(5) // EIO
            }
            _ => false,
        }
    }
}

pub(crate) fn join(errors: &[FieldError]) -> String {
    let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
    list.join("; ")
}

/// How the queue is bounded and how long ended batches are kept.
#[derive(Debug, Clone)]
pub struct BatchLimits {
    /// At most this many batches and suites wait (`429` beyond).
    pub capacity: usize,
    /// Jobs (batches and suites) started at once; at most [`BATCH_WORKERS`] of them batches.
    pub slots: usize,
    /// The operator's caps, applied to a batch's problem.
    pub caps: Caps,
    /// How long a suite may be expected to wait for a place (`429` beyond, at once).
    pub max_wait: Duration,
    /// How long an ended batch is kept (in memory and on disk).
    pub retention: Duration,
    /// The most ended batches kept; the oldest go first.
    pub max_retained: usize,
}

/// The accepted batches, the queue and its workers.
#[derive(Debug)]
pub struct Batches {
    judge: DatasetBatchJudge,
    dir: PathBuf,
    limits: BatchLimits,
    slots: Arc<Semaphore>,
    entries: Mutex<HashMap<String, Arc<BatchEntry>>>,
    queues: Mutex<Queues>,
    wake: Notify,
    accepting: AtomicBool,
    job_time: JudgingTime,
    /// How long one suite takes, for a suite's expected wait.
    suite_time: JudgingTime,
}

impl Batches {
    /// Opens the batches kept in `dir` (made if missing): ended ones are served from disk,
    /// the others queued again; starts the dispatcher and the sweeper of ended batches.
    pub fn open(
        judge: DatasetBatchJudge,
        dir: PathBuf,
        limits: BatchLimits,
    ) -> Result<Arc<Batches>, BatchError> {
        let io = |source| BatchError::Io {
            path: dir.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let kept = disk::load(&dir).map_err(io)?;
        let batches = Arc::new(Batches {
            judge,
            dir,
            slots: Arc::new(Semaphore::new(limits.slots.max(BATCH_WORKERS))),
            limits,
            entries: Mutex::default(),
            queues: Mutex::default(),
            wake: Notify::new(),
            accepting: AtomicBool::new(true),
            job_time: JudgingTime::default(),
            suite_time: JudgingTime::default(),
        });
        for (saved, ended) in kept {
            let entry = Arc::new(BatchEntry::new(
                saved.id.clone(),
                saved.category.clone(),
                hash(&saved.request),
            ));
            batches
                .lock_entries()
                .insert(saved.id.clone(), entry.clone());
            // Read from disk: checked again, as the judge it meets now judges it.
            let checked =
                || parse_batch(&saved.request).and_then(|request| batches.judge.validate(request));
            match ended {
                Some((ended, at)) => entry.finish(ended.report, ended.state, at),
                None => match checked() {
                    Ok(batch) => batches.enqueue(entry, batch),
                    Err(errors) => {
                        tracing::error!(id = %saved.id, "a kept batch is no longer valid: {}", join(&errors));
                        batches.end(&entry, empty_report(), BatchState::Cancelled);
                    }
                },
            }
        }
        tokio::spawn(batches.clone().dispatch());
        let retention = batches.limits.retention;
        tokio::spawn(sweep_every(
            Arc::downgrade(&batches),
            retention,
            Batches::sweep,
        ));
        Ok(batches)
    }

    fn lock_entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<BatchEntry>>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_queues(&self) -> std::sync::MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn queue_full(&self) -> BatchError {
        BatchError::QueueFull {
            capacity: self.limits.capacity,
            retry_after_secs: retry_after_secs(self.job_time.mean(), self.slots_count()),
        }
    }

    fn slots_count(&self) -> usize {
        self.limits.slots.max(BATCH_WORKERS)
    }

    /// Reads and checks a batch once, as this server judges it: its shape, the caps, then
    /// what the judge can run (every problem, each naming its field).
    pub fn check(&self, text: String) -> Result<CheckedBatch, BatchError> {
        checked::check(text, &self.limits.caps, |request| {
            self.judge.validate(request)
        })
    }

    /// Reads and checks one Task Oracle suite for [`Batches::suite`]: its shape and the caps
    /// (what it runs is checked when it runs).
    pub fn check_suite(&self, text: &str) -> Result<TestSuite, BatchError> {
        checked::check_suite(text, &self.limits.caps)
    }

    /// Accepts a checked batch under `id` (a new id when `None`) and `category`: kept on
    /// disk, queued. The same id with the same request returns the entry already there
    /// (`false`: not new); with another request, a conflict.
    pub async fn accept(
        &self,
        id: Option<String>,
        category: String,
        batch: CheckedBatch,
    ) -> Result<(Arc<BatchEntry>, bool), BatchError> {
        let (request, text) = batch.into_parts();
        let id = id.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        let request_hash = hash(&text);
        let entry = {
            let mut entries = self.lock_entries();
            if let Some(entry) = entries.get(&id) {
                return if entry.request_hash == request_hash {
                    Ok((entry.clone(), false))
                } else {
                    Err(BatchError::Conflict(id))
                };
            }
            if !self.accepting() {
                return Err(BatchError::ShuttingDown);
            }
            if self.lock_queues().count >= self.limits.capacity {
                return Err(self.queue_full());
            }
            let entry = Arc::new(BatchEntry::new(id.clone(), category.clone(), request_hash));
            entries.insert(id.clone(), entry.clone());
            entry
        };
        let saved = Saved {
            id: id.clone(),
            category,
            request: text,
        };
        if let Err(err) = disk::save_request_off_thread(&self.dir, saved).await {
            self.lock_entries().remove(&id);
            return Err(err);
        }
        self.enqueue(entry.clone(), request);
        Ok((entry, true))
    }

    fn enqueue(&self, entry: Arc<BatchEntry>, batch: JudgeableBatch) {
        let category = entry.category.clone();
        self.lock_queues()
            .push(&category, Job::Batch(entry, Box::new(batch)));
        self.wake.notify_one();
    }

    /// Judges one Task Oracle suite ([`Batches::check_suite`]) through the queue
    /// under `category`: it waits for a place like a batch and the answer is its report. Full,
    /// or a place expected later than `max_wait` or `deadline` (the suites the round robin
    /// starts first times how long a suite takes, over the places): refused at once. A caller that goes away while its suite waits takes it out of the
    /// queue (it is not run). No case starts after `deadline` (its request's end) and a
    /// function suite's interpreter is stopped there, so a suite whose request timed out
    /// gives its place back.
    pub async fn suite(
        &self,
        category: &str,
        suite: TestSuite,
        deadline: Option<Instant>,
    ) -> Result<OracleReport, BatchError> {
        let (tx, rx) = oneshot::channel();
        {
            if !self.accepting() {
                return Err(BatchError::ShuttingDown);
            }
            let mut queues = self.lock_queues();
            if queues.count >= self.limits.capacity {
                return Err(self.queue_full());
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            self.check_wait(queues.suites_ahead(category), left)?;
            queues.push(category, Job::Suite(Box::new(suite), deadline, tx));
        }
        self.wake.notify_one();
        match rx.await {
            Ok(result) => result.map_err(BatchError::Oracle),
            Err(_) => Err(BatchError::ShuttingDown),
        }
    }

    /// Refuses a suite with `ahead` suites to start before it when its expected wait is longer
    /// than `max_wait` or than `left` of its request's time. Until a suite has finished
    /// nothing is known of their time and every suite is let in (up to the capacity).
    fn check_wait(&self, ahead: usize, left: Option<Duration>) -> Result<(), BatchError> {
        let Some(each) = self.suite_time.mean() else {
            return Ok(());
        };
        let places = self.slots_count() as f64;
        let expected_secs = ahead as f64 * each / places;
        let max_secs = left.map_or(self.limits.max_wait, |l| l.min(self.limits.max_wait));
        let max_secs = max_secs.as_secs_f64();
        if expected_secs <= max_secs {
            return Ok(());
        }
        // By then the suites over the bound have started, or one place has freed.
        let over = (expected_secs - max_secs).max(each / places);
        Err(BatchError::WaitTooLong {
            expected_secs,
            max_secs,
            retry_after_secs: (over.ceil() as u64).clamp(1, 60),
        })
    }

    /// Batches and suites waiting for a place.
    pub fn queued(&self) -> usize {
        self.lock_queues().count
    }

    /// Refuses new batches and suites from now on (shutdown).
    pub fn stop_accepting(&self) {
        self.accepting.store(false, Ordering::Release);
    }

    /// Whether new batches and suites are taken.
    pub fn accepting(&self) -> bool {
        self.accepting.load(Ordering::Acquire)
    }

    /// The batch under `id`, if accepted (and not yet swept).
    pub fn get(&self, id: &str) -> Option<Arc<BatchEntry>> {
        self.lock_entries().get(id).cloned()
    }

    /// Cancels the batch under `id`: a queued one ends at once with no results, a running one
    /// starts no more candidates and stops those running before their next test.
    pub fn cancel(&self, id: &str) -> Option<Arc<BatchEntry>> {
        let entry = self.get(id)?;
        entry.cancel.cancel();
        let queued = self.lock_queues().remove_batch(&entry.category, &entry.id);
        if let Some(batch) = queued {
            let request = batch.request();
            // None of its candidates ran: all of them are counted as cancelled.
            let report = BatchReport {
                results: Vec::new(),
                summary: BatchSummary::of(
                    &[],
                    request.candidates.len(),
                    &request.options.pass_at_k,
                    0,
                ),
            };
            self.end(&entry, report, BatchState::Cancelled);
        }
        Some(entry)
    }

    /// Keeps a batch's end on disk and in its entry.
    fn end(&self, entry: &BatchEntry, report: BatchReport, state: BatchState) {
        let ended = Ended {
            state,
            report: report.clone(),
        };
        if let Err(err) = disk::save_report(&self.dir, &entry.id, &ended) {
            tracing::error!(id = %entry.id, "cannot keep the batch's report: {err}");
        }
        entry.finish(report, state, SystemTime::now());
    }

    /// Forgets the batches that ended more than the retention ago, and the oldest ended ones
    /// beyond `max_retained`: in memory and on disk.
    pub fn sweep(&self) {
        let now = SystemTime::now();
        let mut ended: Vec<(SystemTime, String)> = self
            .lock_entries()
            .values()
            .filter_map(|e| e.ended_at().map(|at| (at, e.id.clone())))
            .collect();
        ended.sort();
        let excess = ended.len().saturating_sub(self.limits.max_retained);
        let expired = ended.iter().enumerate().filter(|(i, (at, _))| {
            *i < excess
                || now
                    .duration_since(*at)
                    .is_ok_and(|age| age >= self.limits.retention)
        });
        for (_, (_, id)) in expired {
            match disk::remove(&self.dir, id) {
                Ok(()) => {
                    self.lock_entries().remove(id);
                }
                Err(err) => tracing::warn!(%id, "cannot sweep an ended batch: {err}"),
            }
        }
    }

    /// Starts queued jobs as slots free up, taking categories in turn.
    async fn dispatch(self: Arc<Self>) {
        loop {
            let Ok(permit) = self.slots.clone().acquire_owned().await else {
                return;
            };
            let job = loop {
                let wake = self.wake.notified();
                if let Some(job) = self.lock_queues().pop(BATCH_WORKERS) {
                    break job;
                }
                wake.await;
            };
            let this = self.clone();
            tokio::spawn(async move {
                let started = Instant::now();
                let was_batch = matches!(job, Job::Batch(..));
                match job {
                    Job::Batch(entry, request) => this.run(entry, *request).await,
                    // Its caller went away while it waited: nobody reads its report.
                    Job::Suite(_, _, reply) if reply.is_closed() => {}
                    Job::Suite(suite, deadline, mut reply) => {
                        // A caller that goes away (its connection closed) takes its suite's
                        // runs with it: they are killed, and the place comes back at once.
                        let cancel = BatchCancel::new();
                        let judging = this.judge.inner().suite(*suite, deadline, cancel.clone());
                        tokio::pin!(judging);
                        tokio::select! {
                            report = &mut judging => {
                                let _ = reply.send(report);
                                this.suite_time.observe(started.elapsed().as_secs_f64());
                            }
                            () = reply.closed() => {
                                cancel.cancel();
                                let _ = judging.await;
                            }
                        }
                    }
                }
                this.job_time.observe(started.elapsed().as_secs_f64());
                if was_batch {
                    this.lock_queues().running_batches -= 1;
                    // A batch that waited for one of the batch places may start.
                    this.wake.notify_one();
                }
                drop(permit);
            });
        }
    }

    async fn run(&self, entry: Arc<BatchEntry>, batch: JudgeableBatch) {
        entry.start();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let judging = self.judge.run_valid(batch, Some(tx), entry.cancel.clone());
        let streaming = async {
            while let Some(event) = rx.recv().await {
                if let verdict_contracts::batch::BatchEvent::Candidate(result) = event {
                    entry.push(result);
                }
            }
        };
        let (report, ()) = tokio::join!(judging, streaming);
        let state = if entry.cancel.is_cancelled() {
            BatchState::Cancelled
        } else {
            BatchState::Finished
        };
        self.end(&entry, report, state);
    }
}

/// What a batch that can no longer be judged ends with: no results.
fn empty_report() -> BatchReport {
    BatchReport {
        results: Vec::new(),
        summary: BatchSummary::of(&[], 0, &[], 0),
    }
}

/// Calls `sweep` on what `owner` points to every `retention` (clamped to 1 to 60 s), on a
/// blocking thread, while it exists: the sweeper of ended batches, standalone or relayed.
pub(crate) async fn sweep_every<T: Send + Sync + 'static>(
    owner: Weak<T>,
    retention: Duration,
    sweep: fn(&T),
) {
    let period = retention.clamp(Duration::from_secs(1), Duration::from_secs(60));
    loop {
        tokio::time::sleep(period).await;
        let Some(owner) = owner.upgrade() else {
            return;
        };
        let _ = tokio::task::spawn_blocking(move || sweep(&owner)).await;
    }
}

pub(crate) fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}
