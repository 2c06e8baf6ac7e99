//! Batches a server has accepted (design #26): durable like submissions (on disk before the
//! client hears `202`, judged again after a restart, idempotent under a client-chosen id),
//! queued with fair sharing between categories (the next batch to start is taken from the
//! categories in turn), judged by a [`BatchJudge`], each candidate's result streamed as it
//! finishes, cancellable.

mod disk;
mod entry;

pub use entry::BatchEntry;

use disk::{Ended, Saved};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, Semaphore};
use verdict_contracts::FieldError;
use verdict_contracts::batch::{BatchReport, BatchRequest, BatchState, BatchSummary, parse_batch};
use verdict_scheduler::BatchJudge;

/// Why a batch was refused.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The batch is invalid; every problem names its field.
    #[error("{}", join(.0))]
    Invalid(Vec<FieldError>),
    /// The id is taken by another request.
    #[error("batch {0:?} exists with another request")]
    Conflict(String),
    /// Too many batches wait.
    #[error("the batch queue is full ({capacity} batches)")]
    QueueFull {
        /// The queue's capacity.
        capacity: usize,
    },
    /// The batch could not be kept on disk.
    #[error("cannot keep the batch in {path}: {source}")]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

fn join(errors: &[FieldError]) -> String {
    let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
    list.join("; ")
}

/// The queue waiting for a worker, by category.
#[derive(Debug, Default)]
struct Queues {
    waiting: BTreeMap<String, VecDeque<(Arc<BatchEntry>, BatchRequest)>>,
    /// The category a batch last started from.
    last: Option<String>,
    count: usize,
}

impl Queues {
    /// The next batch: from the first category after the last one served that has one.
    fn pop(&mut self) -> Option<(Arc<BatchEntry>, BatchRequest)> {
        let after = self.last.clone().unwrap_or_default();
        let category = self
            .waiting
            .range::<String, _>((
                std::ops::Bound::Excluded(&after),
                std::ops::Bound::Unbounded,
            ))
            .chain(self.waiting.range::<String, _>(..=&after))
            .find(|(_, q)| !q.is_empty())
            .map(|(c, _)| c.clone())?;
        let next = self.waiting.get_mut(&category)?.pop_front()?;
        self.count -= 1;
        self.last = Some(category);
        Some(next)
    }
}

/// The accepted batches, their queue and their workers.
#[derive(Debug)]
pub struct Batches {
    judge: BatchJudge,
    dir: PathBuf,
    capacity: usize,
    workers: Arc<Semaphore>,
    entries: Mutex<HashMap<String, Arc<BatchEntry>>>,
    queues: Mutex<Queues>,
    wake: Notify,
}

impl Batches {
    /// Opens the batches kept in `dir` (made if missing): ended ones are served from disk,
    /// the others queued again; starts the dispatcher (`workers` batches at once, at most
    /// `capacity` waiting).
    pub fn open(
        judge: BatchJudge,
        dir: PathBuf,
        capacity: usize,
        workers: usize,
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
            capacity,
            workers: Arc::new(Semaphore::new(workers.max(1))),
            entries: Mutex::default(),
            queues: Mutex::default(),
            wake: Notify::new(),
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
            match (ended, parse_batch(&saved.request)) {
                (Some(ended), _) => entry.finish(ended.report, ended.state),
                (None, Ok(request)) => batches.enqueue(entry, request, true),
                (None, Err(errors)) => {
                    tracing::warn!(id = %saved.id, "a kept batch no longer parses: {}", join(&errors));
                }
            }
        }
        tokio::spawn(batches.clone().dispatch());
        Ok(batches)
    }

    fn lock_entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<BatchEntry>>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_queues(&self) -> std::sync::MutexGuard<'_, Queues> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Accepts a batch under `id` (a new id when `None`) and `category`: checked whole, kept
    /// on disk, queued. The same id with the same request returns the entry already there
    /// (`false`: not new); with another request, a conflict.
    pub async fn accept(
        &self,
        id: Option<String>,
        category: String,
        text: String,
    ) -> Result<(Arc<BatchEntry>, bool), BatchError> {
        let request = parse_batch(&text).map_err(BatchError::Invalid)?;
        self.judge.check(&request).map_err(BatchError::Invalid)?;
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
            if self.lock_queues().count >= self.capacity {
                return Err(BatchError::QueueFull {
                    capacity: self.capacity,
                });
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
        let dir = self.dir.clone();
        let written = tokio::task::spawn_blocking(move || disk::save_request(&dir, &saved))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Err(source) = written {
            self.lock_entries().remove(&id);
            return Err(BatchError::Io {
                path: self.dir.clone(),
                source,
            });
        }
        self.enqueue(entry.clone(), request, false);
        Ok((entry, true))
    }

    fn enqueue(&self, entry: Arc<BatchEntry>, request: BatchRequest, _recovered: bool) {
        let mut queues = self.lock_queues();
        queues
            .waiting
            .entry(entry.category.clone())
            .or_default()
            .push_back((entry, request));
        queues.count += 1;
        drop(queues);
        self.wake.notify_one();
    }

    /// The batch under `id`, if accepted.
    pub fn get(&self, id: &str) -> Option<Arc<BatchEntry>> {
        self.lock_entries().get(id).cloned()
    }

    /// Cancels the batch under `id`: a queued one ends at once with no results, a running one
    /// starts no more candidates and stops those running before their next test.
    pub fn cancel(&self, id: &str) -> Option<Arc<BatchEntry>> {
        let entry = self.get(id)?;
        entry.cancel.cancel();
        let was_queued = {
            let mut queues = self.lock_queues();
            let queue = queues.waiting.get_mut(&entry.category);
            let before = queue.as_ref().map_or(0, |q| q.len());
            if let Some(q) = queue {
                q.retain(|(e, _)| e.id != entry.id);
            }
            let after = queues.waiting.get(&entry.category).map_or(0, VecDeque::len);
            queues.count -= before - after;
            before != after
        };
        if was_queued {
            let report = BatchReport {
                results: Vec::new(),
                summary: BatchSummary::of(&[], 0, &[], 0),
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
        entry.finish(report, state);
    }

    /// Starts queued batches as workers free up, taking categories in turn.
    async fn dispatch(self: Arc<Self>) {
        loop {
            let Ok(permit) = self.workers.clone().acquire_owned().await else {
                return;
            };
            let next = loop {
                let wake = self.wake.notified();
                if let Some(next) = self.lock_queues().pop() {
                    break next;
                }
                wake.await;
            };
            let this = self.clone();
            tokio::spawn(async move {
                this.run(next.0, next.1).await;
                drop(permit);
            });
        }
    }

    async fn run(&self, entry: Arc<BatchEntry>, request: BatchRequest) {
        entry.start();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let judging = self.judge.run(request, Some(tx), entry.cancel.clone());
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
        match report {
            Ok(report) => self.end(&entry, report, state),
            Err(errors) => {
                // Checked when accepted: only a judge reconfigured across a restart gets here.
                tracing::error!(id = %entry.id, "a kept batch is no longer valid: {}", join(&errors));
                let report = BatchReport {
                    results: Vec::new(),
                    summary: BatchSummary::of(&[], 0, &[], 0),
                };
                self.end(&entry, report, BatchState::Cancelled);
            }
        }
    }
}

fn hash(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}
