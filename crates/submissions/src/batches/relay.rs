//! A front end's batches (`role = "frontend"`, docs/batches.md "Over RabbitMQ"): nothing is
//! judged here. An accepted batch is kept on disk, then announced (`batch.accepted`) and cut
//! into units, one per distinct candidate (`batch.unit`), all confirmed by the broker before the
//! client hears `202`. The results the workers publish (`batch.result`) reach every front end;
//! each keeps them on disk as they come (before they are acked) and serves the batch's
//! snapshot and stream from them, for batches any front end accepted. A cancel
//! (`batch.cancel`) ends the batch at every front end and reaches every worker.

use super::disk::{self, Ended, Saved};
use super::{BatchEntry, BatchError, BatchLimits, CheckedBatch, checked, hash, join, sweep_every};
use futures::future::BoxFuture;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};
use verdict_contracts::batch::{
    BatchReport, BatchRequest, BatchState, BatchSummary, CandidateResult, parse_batch,
};
use verdict_contracts::oracle::TestSuite;
use verdict_datasets::JudgeableBatch;
use verdict_oracle::OracleOptions;
use verdict_queue::FrontEnd;
use verdict_queue::batch::{
    ACCEPTED_KEY, AcceptedMessage, BatchMessage, CANCEL_KEY, CancelMessage, ResultMessage,
    UnitMessage,
};
use verdict_scheduler::identical_groups;

/// Where a relay's messages go: the broker, confirms awaited.
pub trait BatchPublisher: Send + Sync {
    /// Publishes `(routing key, body)` messages; `Err` says why the broker did not take them.
    fn publish<'a>(
        &'a self,
        messages: &'a [(String, Vec<u8>)],
    ) -> BoxFuture<'a, Result<(), String>>;

    /// The routing key of a unit of `category` (its lane's).
    fn unit_key(&self, category: &str) -> String;
}

impl BatchPublisher for FrontEnd {
    fn publish<'a>(
        &'a self,
        messages: &'a [(String, Vec<u8>)],
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.publish_batch(messages)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn unit_key(&self, category: &str) -> String {
        FrontEnd::unit_key(self, category)
    }
}

/// One batch a front end follows.
#[derive(Debug)]
struct Relayed {
    entry: Arc<BatchEntry>,
    /// The request's text as the client sent it (announced as it is: its hash is the key's).
    text: String,
    request: BatchRequest,
    /// Identical candidates by index; a unit is each group's first.
    groups: Vec<Vec<usize>>,
    /// A unit's candidate index to its group.
    unit_group: HashMap<usize, usize>,
    started: Instant,
    slots: Mutex<Vec<Option<CandidateResult>>>,
}

impl Relayed {
    fn new(entry: Arc<BatchEntry>, text: String, request: BatchRequest) -> Relayed {
        let groups = identical_groups(&request);
        let unit_group = groups.iter().enumerate().map(|(g, m)| (m[0], g)).collect();
        let slots = Mutex::new(vec![None; request.candidates.len()]);
        Relayed {
            entry,
            text,
            request,
            groups,
            unit_group,
            started: Instant::now(),
            slots,
        }
    }

    /// Fills the unit's group with its result (the others `same_as` the first); `false` when
    /// it is not a unit of this batch or was filled before (a redelivered unit's second result).
    fn fill(&self, index: usize, result: &CandidateResult) -> bool {
        let Some(&g) = self.unit_group.get(&index) else {
            return false;
        };
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if slots.get(index).is_none_or(Option::is_some) {
            return false;
        }
        if self.entry.state() == BatchState::Queued {
            self.entry.start();
        }
        for (n, &i) in self.groups[g].iter().enumerate() {
            let mut shared = result.clone();
            shared.id.clone_from(&self.request.candidates[i].id);
            if n > 0 {
                shared.same_as = Some(self.request.candidates[index].id.clone());
                shared.time_ms = 0;
            }
            self.entry.push(shared.clone());
            slots[i] = Some(shared);
        }
        true
    }

    fn complete(&self) -> bool {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.iter().all(Option::is_some)
    }

    /// The report of the results so far, in the request's order.
    fn report(&self) -> BatchReport {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let results: Vec<CandidateResult> = slots.iter().flatten().cloned().collect();
        let time_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let summary = BatchSummary::of(
            &results,
            self.request.candidates.len(),
            &self.request.options.pass_at_k,
            time_ms,
        );
        BatchReport { results, summary }
    }
}

/// A front end's batches: accepted here or announced by another front end, their results
/// consumed from the broker.
pub struct Relay {
    dir: PathBuf,
    oracle: OracleOptions,
    /// The caps, the retention and `max_retained` (the queue's bounds do not apply here).
    limits: BatchLimits,
    publisher: OnceLock<Arc<dyn BatchPublisher>>,
    batches: Mutex<HashMap<String, Arc<Relayed>>>,
    /// Batches kept on disk whose messages may not all have reached the broker.
    unpublished: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Relay {
    /// Opens the batches kept in `dir` (made if missing): ended ones are served from disk,
    /// the others wait for their results from the broker, with those consumed before the
    /// restart; starts the sweeper of ended batches. `oracle` says which languages suites run
    /// in; of `limits`, the caps, the retention and `max_retained` apply.
    pub fn open(
        dir: PathBuf,
        oracle: OracleOptions,
        limits: BatchLimits,
    ) -> Result<Arc<Relay>, BatchError> {
        let io = |source| BatchError::Io {
            path: dir.clone(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        let kept = disk::load(&dir).map_err(io)?;
        let relay = Relay {
            dir,
            oracle,
            limits,
            publisher: OnceLock::new(),
            batches: Mutex::default(),
            unpublished: Mutex::default(),
        };
        for (saved, ended) in kept {
            let request = match parse_batch(&saved.request) {
                Ok(request) => request,
                Err(errors) => {
                    tracing::warn!(id = %saved.id, "a kept batch no longer parses: {}", join(&errors));
                    continue;
                }
            };
            let entry = Arc::new(BatchEntry::new(
                saved.id.clone(),
                saved.category.clone(),
                hash(&saved.request),
            ));
            let relayed = Arc::new(Relayed::new(entry.clone(), saved.request.clone(), request));
            relay.lock().insert(saved.id.clone(), relayed.clone());
            if let Some((ended, at)) = ended {
                entry.finish(ended.report, ended.state, at);
                continue;
            }
            for line in disk::load_results(&relay.dir, &saved.id) {
                // A line cut short by a crash is the last one, and its result comes again.
                if let Ok(message) = serde_json::from_slice::<ResultMessage>(&line) {
                    relayed.fill(message.index, &message.result);
                }
            }
            if !disk::is_published(&relay.dir, &saved.id) {
                relay.lock_unpublished().push(saved.id.clone());
            }
            if relayed.complete() {
                relay.end(&relayed, BatchState::Finished);
            }
        }
        let relay = Arc::new(relay);
        let retention = relay.limits.retention;
        tokio::spawn(sweep_every(Arc::downgrade(&relay), retention, Relay::sweep));
        Ok(relay)
    }

    /// Forgets the batches that ended more than the retention ago, and the oldest ended ones
    /// beyond `max_retained`: in memory and on disk (as a standalone server does).
    pub fn sweep(&self) {
        let now = SystemTime::now();
        let mut ended: Vec<(SystemTime, String)> = self
            .lock()
            .values()
            .filter_map(|r| r.entry.ended_at().map(|at| (at, r.entry.id.clone())))
            .collect();
        ended.sort();
        let excess = ended.len().saturating_sub(self.limits.max_retained);
        for (i, (at, id)) in ended.iter().enumerate() {
            let expired = now
                .duration_since(*at)
                .is_ok_and(|age| age >= self.limits.retention);
            if i >= excess && !expired {
                continue;
            }
            match disk::remove(&self.dir, id) {
                Ok(()) => {
                    self.lock().remove(id);
                }
                Err(err) => tracing::warn!(%id, "cannot sweep an ended batch: {err}"),
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Relayed>>> {
        self.batches.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn lock_unpublished(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.unpublished.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets where messages go, and publishes again (in the background, until the broker takes
    /// them) the batches a crash left on disk before all their messages were confirmed.
    pub fn connect(self: &Arc<Self>, publisher: Arc<dyn BatchPublisher>) {
        if self.publisher.set(publisher.clone()).is_err() {
            return;
        }
        let pending = std::mem::take(&mut *self.lock_unpublished());
        if pending.is_empty() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            for id in pending {
                let Some(relayed) = this.lock().get(&id).cloned() else {
                    continue;
                };
                let messages = this.messages(&relayed, publisher.as_ref());
                while let Err(err) = publisher.publish(&messages).await {
                    tracing::warn!(%id, error = %err, "publishing a kept batch again; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                if let Err(err) = disk::mark_published(&this.dir, &id) {
                    tracing::warn!(%id, "cannot note the batch published: {err}");
                }
            }
        });
    }

    /// Reads and checks a batch once, as the workers will judge it: its shape, the caps, then
    /// what they can run (every problem, each naming its field).
    pub fn check(&self, text: String) -> Result<CheckedBatch, BatchError> {
        checked::check(text, &self.limits.caps, |request| {
            JudgeableBatch::check(request, &self.oracle)
        })
    }

    /// Reads and checks one Task Oracle suite that goes to the workers as a batch of one: its
    /// shape, the caps and what the workers can run (refused here as a standalone server
    /// refuses it, naming the suite's field).
    pub fn check_suite(&self, text: &str) -> Result<TestSuite, BatchError> {
        let suite = checked::check_suite(text, &self.limits.caps)?;
        verdict_oracle::check_runnable(&suite, &self.oracle).map_err(BatchError::Oracle)?;
        Ok(suite)
    }

    /// Accepts a checked batch under `id` (a new id when `None`) and `category`: kept on disk,
    /// announced and cut into units, every message confirmed by the broker. The same id with
    /// the same request returns the entry already there (`false`: not new); with another
    /// request, a conflict. `Unavailable` when the broker did not take it (nothing is then
    /// accepted).
    pub async fn accept(
        self: &Arc<Self>,
        id: Option<String>,
        category: String,
        batch: CheckedBatch,
    ) -> Result<(Arc<BatchEntry>, bool), BatchError> {
        let (batch, text) = batch.into_parts();
        let request = batch.into_request();
        let publisher = self
            .publisher
            .get()
            .cloned()
            .ok_or_else(|| BatchError::Unavailable("not connected to the broker yet".into()))?;
        let id = id.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        let request_hash = hash(&text);
        let relayed = {
            let mut batches = self.lock();
            if let Some(relayed) = batches.get(&id) {
                return if relayed.entry.request_hash == request_hash {
                    Ok((relayed.entry.clone(), false))
                } else {
                    Err(BatchError::Conflict(id))
                };
            }
            let entry = Arc::new(BatchEntry::new(id.clone(), category.clone(), request_hash));
            let relayed = Arc::new(Relayed::new(entry, text.clone(), request));
            batches.insert(id.clone(), relayed.clone());
            relayed
        };
        // On its own task: a request dropped meanwhile (client gone) must not leave the batch
        // half-accepted; it ends published, or taken back.
        let this = self.clone();
        let handing = tokio::spawn(async move {
            this.hand_over(&relayed, category, text, publisher.as_ref())
                .await
                .map(|()| relayed.entry.clone())
        });
        let entry = handing
            .await
            .unwrap_or_else(|e| Err(BatchError::Unavailable(format!("publishing: {e}"))))?;
        Ok((entry, true))
    }

    /// Keeps an accepted batch on disk, then publishes it; takes it back when either fails.
    async fn hand_over(
        &self,
        relayed: &Relayed,
        category: String,
        text: String,
        publisher: &dyn BatchPublisher,
    ) -> Result<(), BatchError> {
        let id = relayed.entry.id.clone();
        let saved = Saved {
            id: id.clone(),
            category,
            request: text,
        };
        if let Err(err) = disk::save_request_off_thread(&self.dir, saved).await {
            self.lock().remove(&id);
            return Err(err);
        }
        let messages = self.messages(relayed, publisher);
        if let Err(err) = publisher.publish(&messages).await {
            tracing::warn!(%id, error = %err, "the broker did not take the batch");
            self.lock().remove(&id);
            if let Err(err) = disk::remove(&self.dir, &id) {
                tracing::warn!(%id, "cannot remove a batch not accepted: {err}");
            }
            return Err(BatchError::Unavailable(err));
        }
        let dir = self.dir.clone();
        let id_kept = id.clone();
        let marked = tokio::task::spawn_blocking(move || disk::mark_published(&dir, &id_kept))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Err(err) = marked {
            // Published again after a restart: its second results are ignored.
            tracing::warn!(%id, "cannot note the batch published: {err}");
        }
        Ok(())
    }

    /// The announcement and the units of a batch.
    fn messages(
        &self,
        relayed: &Relayed,
        publisher: &dyn BatchPublisher,
    ) -> Vec<(String, Vec<u8>)> {
        let (id, category) = (&relayed.entry.id, &relayed.entry.category);
        let request = relayed.text.clone();
        let unit_key = publisher.unit_key(category);
        let mut messages = vec![(
            ACCEPTED_KEY.to_owned(),
            serde_json::to_vec(&AcceptedMessage {
                batch: id.clone(),
                category: category.clone(),
                request,
            })
            .unwrap_or_default(),
        )];
        for group in &relayed.groups {
            let index = group[0];
            let unit = UnitMessage {
                batch: id.clone(),
                category: category.clone(),
                index,
                problem: relayed.request.problem.clone(),
                options: relayed.request.options.clone(),
                candidate: relayed.request.candidates[index].clone(),
            };
            messages.push((
                unit_key.clone(),
                serde_json::to_vec(&unit).unwrap_or_default(),
            ));
        }
        messages
    }

    /// The batch under `id`, if known here.
    pub fn get(&self, id: &str) -> Option<Arc<BatchEntry>> {
        self.lock().get(id).map(|r| r.entry.clone())
    }

    /// Cancels the batch under `id`: the cancel is published (every front end ends the batch
    /// with the results it has, every worker stops its units), then the batch ends here.
    pub async fn cancel(&self, id: &str) -> Result<Option<Arc<BatchEntry>>, BatchError> {
        let Some(relayed) = self.lock().get(id).cloned() else {
            return Ok(None);
        };
        if relayed.entry.is_done() {
            return Ok(Some(relayed.entry.clone()));
        }
        let publisher = self
            .publisher
            .get()
            .cloned()
            .ok_or_else(|| BatchError::Unavailable("not connected to the broker yet".into()))?;
        let body = serde_json::to_vec(&CancelMessage {
            batch: id.to_owned(),
        })
        .unwrap_or_default();
        publisher
            .publish(&[(CANCEL_KEY.to_owned(), body)])
            .await
            .map_err(BatchError::Unavailable)?;
        relayed.entry.cancel.cancel();
        self.end(&relayed, BatchState::Cancelled);
        Ok(Some(relayed.entry.clone()))
    }

    /// Takes a batch message consumed from the broker; it is acked when this returns, so what
    /// must survive a crash is on disk by then.
    pub async fn ingest(&self, message: BatchMessage) {
        match message {
            BatchMessage::Accepted(accepted) => self.announced(accepted).await,
            BatchMessage::Result(message) => self.result(*message).await,
            BatchMessage::Cancel(cancel) => {
                let relayed = self.lock().get(&cancel.batch).cloned();
                if let Some(relayed) = relayed.filter(|r| !r.entry.is_done()) {
                    relayed.entry.cancel.cancel();
                    self.end(&relayed, BatchState::Cancelled);
                }
            }
        }
    }

    /// A batch another front end (or this one) accepted: followed here from now on.
    async fn announced(&self, accepted: AcceptedMessage) {
        if self.lock().contains_key(&accepted.batch) {
            return;
        }
        let request = match parse_batch(&accepted.request) {
            Ok(request) => request,
            Err(errors) => {
                tracing::warn!(batch = %accepted.batch, "an announced batch does not parse: {}", join(&errors));
                return;
            }
        };
        let entry = Arc::new(BatchEntry::new(
            accepted.batch.clone(),
            accepted.category.clone(),
            hash(&accepted.request),
        ));
        let relayed = Arc::new(Relayed::new(entry, accepted.request.clone(), request));
        self.lock().insert(accepted.batch.clone(), relayed);
        let dir = self.dir.clone();
        let saved = Saved {
            id: accepted.batch,
            category: accepted.category,
            request: accepted.request,
        };
        let kept = tokio::task::spawn_blocking(move || {
            disk::save_request(&dir, &saved)?;
            disk::mark_published(&dir, &saved.id)
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Err(err) = kept {
            tracing::error!("cannot keep an announced batch: {err}");
        }
    }

    /// A unit's result: kept on disk, then streamed; the batch ends with its last unit.
    async fn result(&self, message: ResultMessage) {
        let Some(relayed) = self.lock().get(&message.batch).cloned() else {
            tracing::debug!(batch = %message.batch, "a result of a batch not followed here");
            return;
        };
        if relayed.entry.is_done() {
            return;
        }
        if !relayed.unit_group.contains_key(&message.index) {
            return;
        }
        let dir = self.dir.clone();
        let line = serde_json::to_vec(&message).unwrap_or_default();
        let id = message.batch.clone();
        let kept = tokio::task::spawn_blocking(move || disk::append_result(&dir, &id, &line))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        if let Err(err) = kept {
            tracing::error!(batch = %message.batch, "cannot keep a result: {err}");
        }
        if relayed.fill(message.index, &message.result) && relayed.complete() {
            self.end(&relayed, BatchState::Finished);
        }
    }

    /// Keeps a batch's end on disk and in its entry.
    fn end(&self, relayed: &Relayed, state: BatchState) {
        let report = relayed.report();
        let ended = Ended {
            state,
            report: report.clone(),
        };
        if let Err(err) = disk::save_report(&self.dir, &relayed.entry.id, &ended) {
            tracing::error!(id = %relayed.entry.id, "cannot keep the batch's report: {err}");
        }
        relayed.entry.finish(report, state, SystemTime::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_contracts::Caps;
    use verdict_contracts::batch::CandidateStatus;
    use verdict_contracts::oracle::OracleCaseStatus;

    const REQUEST: &str = r#"{"problem": {"kind": "suite", "deliverable_type": "function",
        "language": "python3", "entry_point": "f",
        "test_cases": [{"name": "a", "input": [], "expected": 1}]},
        "candidates": [{"id": "x", "code": "def f(): return 1"},
                       {"id": "y", "code": "def f(): return 2"},
                       {"id": "x2", "code": "def f(): return 1"}]}"#;

    fn limits(retention: Duration) -> BatchLimits {
        BatchLimits {
            max_wait: Duration::from_secs(30),
            capacity: 4,
            slots: 1,
            caps: Caps::default(),
            retention,
            max_retained: 100,
        }
    }

    fn result(id: &str, passed: bool) -> Box<ResultMessage> {
        let index = usize::from(id == "y");
        let status = CandidateStatus::Case(if passed {
            OracleCaseStatus::Passed
        } else {
            OracleCaseStatus::Failed
        });
        Box::new(ResultMessage {
            batch: "b".into(),
            index,
            result: CandidateResult {
                time_ms: 5,
                ..CandidateResult::new(id, status, passed, usize::from(passed), 1)
            },
        })
    }

    /// A relay kept in `path` that took batch `b` (`REQUEST`) from the broker.
    async fn accepted(path: &std::path::Path, retention: Duration) -> Arc<Relay> {
        let relay = Relay::open(path.into(), OracleOptions::default(), limits(retention)).unwrap();
        relay
            .ingest(BatchMessage::Accepted(AcceptedMessage {
                batch: "b".into(),
                category: "c".into(),
                request: REQUEST.into(),
            }))
            .await;
        relay
    }

    #[tokio::test]
    async fn results_kept_before_a_restart_count_and_a_second_result_of_a_unit_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("batches");
        let relay = accepted(&path, Duration::MAX).await;
        relay.ingest(BatchMessage::Result(result("x", true))).await;
        let entry = relay.get("b").unwrap();
        // x2 is x's copy: one unit, two results.
        assert_eq!(entry.status().results.len(), 2);
        assert!(!entry.is_done());
        drop(relay);

        // A restart: the result kept on disk counts, the same unit's second result does not.
        let relay = Relay::open(path, OracleOptions::default(), limits(Duration::MAX)).unwrap();
        let entry = relay.get("b").unwrap();
        assert_eq!(entry.status().results.len(), 2);
        relay.ingest(BatchMessage::Result(result("x", false))).await;
        relay.ingest(BatchMessage::Result(result("y", false))).await;
        assert!(entry.is_done());
        let status = entry.status();
        assert_eq!(status.state, BatchState::Finished);
        let ids: Vec<&str> = status.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["x", "y", "x2"]);
        assert!(status.results[0].passed);
        assert_eq!(status.results[2].same_as.as_deref(), Some("x"));
        assert_eq!(status.summary.unwrap().passed, 2);
    }

    #[tokio::test]
    async fn ended_batches_are_swept_from_memory_and_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("batches");
        let relay = accepted(&path, Duration::ZERO).await;
        relay.sweep();
        assert!(relay.get("b").is_some(), "a running batch is never swept");
        relay
            .ingest(BatchMessage::Cancel(CancelMessage { batch: "b".into() }))
            .await;
        assert_eq!(relay.get("b").unwrap().state(), BatchState::Cancelled);
        relay.sweep();
        assert!(relay.get("b").is_none());
        assert_eq!(std::fs::read_dir(&path).unwrap().count(), 0);
    }
}
