//! The submissions store, keyed by `(category, sub_id)` ([`SubKey`]: each token's category is
//! a namespace). In memory: every unfinished submission's progress (per-task results as they
//! stream in, what the event streams read) and recently finished ones. On disk ([`Db`]): every
//! accepted submission from before its `202` until its retention ends, so a restart loses
//! nothing. Finished entries are kept for `retention_secs`, at most `max_retained` of them.
//!
//! The disk is touched only on blocking threads; the methods that do are `async`.

use crate::db::{Db, DbError, Finished, Phase, SubKey, Unfinished, now_ms};
use crate::entry::Entry;
use crate::error::SubmissionError;
use crate::metrics::Metrics;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use verdict_contracts::{JudgeReport, Submission, Valid, parse_submission};

/// How the store's disk answers now (`GET /v1/health`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiskWait {
    /// How long the oldest operation still running has waited, if one is (a frozen or
    /// stalled disk makes it grow).
    pub waiting: Option<Duration>,
    /// How long the last finished operation took, if one has finished.
    pub last: Option<Duration>,
}

/// The store's disk operations in flight (by start) and the last one's duration.
#[derive(Debug, Default)]
struct DiskClock {
    next: std::sync::atomic::AtomicU64,
    in_flight: Mutex<std::collections::BTreeMap<u64, Instant>>,
    last: Mutex<Option<Duration>>,
}

/// An operation of the store's disk, timed until it is dropped.
struct TimedOperation<'a> {
    clock: &'a DiskClock,
    id: u64,
    started: Instant,
}

impl DiskClock {
    fn start(&self) -> TimedOperation<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        if let Ok(mut in_flight) = self.in_flight.lock() {
            in_flight.insert(id, started);
        }
        TimedOperation {
            clock: self,
            id,
            started,
        }
    }

    fn wait(&self) -> DiskWait {
        let oldest = self
            .in_flight
            .lock()
            .ok()
            .and_then(|f| f.first_key_value().map(|(_, at)| *at));
        DiskWait {
            waiting: oldest.map(|at| at.elapsed()),
            last: self.last.lock().ok().and_then(|l| *l),
        }
    }
}

impl Drop for TimedOperation<'_> {
    fn drop(&mut self) {
        if let Ok(mut in_flight) = self.clock.in_flight.lock() {
            in_flight.remove(&self.id);
        }
        if let Ok(mut last) = self.clock.last.lock() {
            *last = Some(self.started.elapsed());
        }
    }
}

/// All submissions known to the server.
#[derive(Debug)]
pub struct Store {
    entries: Mutex<HashMap<SubKey, Arc<Entry>>>,
    db: Arc<Db>,
    clock: Arc<DiskClock>,
    retention: Duration,
    max_retained: usize,
    /// The most bytes of finished reports (as JSON) held in memory; older ones are read back
    /// from disk when asked for.
    finished_memory: usize,
}

/// The default of [`Store`]'s byte budget for finished reports in memory: finished reports
/// live on disk; memory keeps the most recent (the page's list, quick `GET`s) within it.
const FINISHED_MEMORY_BYTES: usize = 64 << 20;

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
            clock: Arc::default(),
            retention,
            max_retained,
            finished_memory: FINISHED_MEMORY_BYTES,
        };
        Ok((store, unfinished))
    }

    /// Whether the data dir is still the one opened (its database and lock files); cheap (two
    /// `stat`s), for health.
    pub fn check_in_place(&self) -> Result<(), DbError> {
        self.db.check_in_place()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<SubKey, Arc<Entry>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on the database on a blocking thread.
    pub(crate) async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, DbError> + Send + 'static,
    ) -> Result<T, SubmissionError> {
        let (db, clock) = (self.db.clone(), self.clock.clone());
        Ok(tokio::task::spawn_blocking(move || {
            let _timed = clock.start();
            f(&db)
        })
        .await
        .map_err(|e| SubmissionError::Internal(e.to_string()))??)
    }

    /// How the store's disk answers: the oldest operation still waiting and the last one done.
    pub fn disk_wait(&self) -> DiskWait {
        self.clock.wait()
    }

    /// Adds a submission in memory; a finished one with the same key is replaced (a rejudge)
    /// and returned, an unfinished one is a conflict. Not durable until [`Store::persist`].
    pub fn insert(
        &self,
        submission: &Submission,
    ) -> Result<(Arc<Entry>, Option<Arc<Entry>>), SubmissionError> {
        let entry = Arc::new(Entry::new(submission));
        let mut entries = self.lock();
        if let Some(existing) = entries.get(&entry.key)
            && !existing.is_finished()
        {
            return Err(SubmissionError::Conflict {
                sub_id: submission.sub_id.clone(),
            });
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
    pub async fn persist(&self, entry: &Entry, request: String) -> Result<(), SubmissionError> {
        let key = entry.key.clone();
        self.db(move |db| db.accept(&key, &request)).await
    }

    /// Takes back an accepted submission that could not be handed on (a front end's broker
    /// failed): forgotten in memory and on disk; a previous finished one with its key comes
    /// back in both.
    pub async fn withdraw(&self, entry: &Arc<Entry>, previous: Option<Arc<Entry>>) {
        let restore = previous.as_ref().and_then(|p| {
            let at = p.finished_at()?;
            let json = serde_json::to_string(&p.snapshot().0).ok()?;
            let age = i64::try_from(at.elapsed().as_millis()).unwrap_or(0);
            Some((json, now_ms() - age))
        });
        self.undo_insert(entry, previous);
        let key = entry.key.clone();
        let undone = self
            .db(move |db| {
                db.withdraw(&key)?;
                match restore {
                    Some((json, at)) => db.record_report(&key, &json, Some(at)).map(drop),
                    None => Ok(()),
                }
            })
            .await;
        if let Err(err) = undone {
            tracing::error!(sub_id = %entry.key.sub_id, "cannot withdraw the submission: {err:?}");
        }
    }

    /// A front end's copy of a Submission published to the broker: added as queued (on disk,
    /// then in memory) unless a submission with its key is in flight here already; a finished
    /// one is replaced (the submission was sent again to be judged again).
    pub async fn note_published(&self, submission: &Submission, request: String) {
        let key = SubKey::new(&submission.category, &submission.sub_id);
        if self.lock().get(&key).is_some_and(|e| !e.is_finished()) {
            return;
        }
        let lookup = key.clone();
        if let Err(err) = self.db(move |db| db.accept(&lookup, &request)).await {
            tracing::error!(sub_id = %key.sub_id, "cannot store the submission: {err:?}");
        }
        let entry = Arc::new(Entry::new(submission));
        let mut entries = self.lock();
        if entries.get(&key).is_none_or(|e| e.is_finished()) {
            entries.insert(key, entry);
        }
    }

    /// A front end's report from the broker, of a submission accepted here or by another front
    /// end: recorded on disk (an upsert that never touches a finished row), then shown to `GET`,
    /// streams and waiters. A submission not seen before is added; one finished here stays as
    /// it is.
    pub async fn ingest(&self, report: JudgeReport, metrics: &Metrics) {
        let key = SubKey::new(&report.category, &report.sub_id);
        let last = report.results.iter().all(|r| !r.status.is_in_progress());
        let json = match serde_json::to_string(&report) {
            Ok(json) => json,
            Err(err) => {
                tracing::error!(sub_id = %key.sub_id, "cannot encode the report: {err}");
                return;
            }
        };
        let at = last.then(now_ms);
        let bytes = json.len();
        let lookup = key.clone();
        let recorded = self
            .db(move |db| db.record_report(&lookup, &json, at))
            .await;
        let changed = match recorded {
            Ok(changed) => changed,
            Err(err) => {
                tracing::error!(sub_id = %key.sub_id, "cannot store the report: {err:?}");
                true
            }
        };
        let entry = self.lock().get(&key).cloned();
        match entry {
            Some(entry) if last => {
                if !entry.is_finished() {
                    metrics.submissions_finished.fetch_add(1, Ordering::Relaxed);
                    metrics
                        .submission_duration
                        .observe(entry.accepted_at.elapsed().as_secs_f64());
                }
                entry.set_report_bytes(bytes);
                entry.finish(report, metrics);
                self.trim_finished();
            }
            Some(entry) => entry.apply(&report, metrics),
            // A final report is read from disk when asked for; a report so far of a submission
            // finished and no longer in memory changed nothing.
            None if last || !changed => {}
            None => {
                let entry = Arc::new(Entry::from_report(&report, metrics));
                self.lock().entry(key).or_insert(entry);
            }
        }
    }

    /// At start, the submissions a previous run accepted and did not finish (from
    /// [`Store::open`]) go back into memory, in the order they were accepted: one with a report
    /// so far from the broker (a front end's) as that report says; the others as queued,
    /// returned with their Submission (and its request's size) for the caller to judge again
    /// (a standalone server) or to
    /// wait for the broker's reports (a front end). A stored request that no longer reads is
    /// finished with a report saying why (`results: []`, `message`), as an invalid request is,
    /// rather than dropped.
    pub fn recover(
        &self,
        unfinished: Vec<Unfinished>,
        metrics: &Metrics,
    ) -> Vec<(Arc<Entry>, Valid<Submission>, usize)> {
        if unfinished.is_empty() {
            return Vec::new();
        }
        let interrupted = unfinished
            .iter()
            .filter(|u| u.phase == Phase::Running)
            .count();
        tracing::info!(
            total = unfinished.len(),
            interrupted,
            "taking back the submissions accepted before the restart"
        );
        let mut resumed = Vec::new();
        for Unfinished {
            key,
            request,
            report,
            ..
        } in unfinished
        {
            if let Some(report) = report.and_then(|r| serde_json::from_str::<JudgeReport>(&r).ok())
            {
                let entry = Arc::new(Entry::from_report(&report, metrics));
                self.lock().insert(entry.key.clone(), entry);
                continue;
            }
            match parse_submission(&request) {
                Ok(submission) if submission.category == key.category => {
                    let entry = Arc::new(Entry::new(&submission));
                    self.lock().insert(entry.key.clone(), entry.clone());
                    resumed.push((entry, submission, request.len()));
                }
                // Accepted, so valid when it came; a store written by another version may read
                // differently: say so in its report rather than drop it.
                other => {
                    let message = match other {
                        Ok(_) => "the stored request's category does not match its key".to_owned(),
                        Err(err) => format!("the stored request no longer reads: {err}"),
                    };
                    tracing::error!(sub_id = %key.sub_id, category = %key.category, "{message}");
                    self.fail_unreadable(&key, message);
                }
            }
        }
        resumed
    }

    fn fail_unreadable(&self, key: &SubKey, message: String) {
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
                entry.set_report_bytes(json.len());
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
        self.trim_finished();
    }

    /// The plan of the submission `key` (its tasks and inline inputs, as JSON), if kept.
    pub async fn plan(&self, key: &SubKey) -> Result<Option<String>, SubmissionError> {
        let lookup = key.clone();
        self.db(move |db| db.plan(&lookup)).await
    }

    /// The submission `key`, if known: in memory, or finished and still kept on disk.
    pub async fn get(&self, key: &SubKey) -> Result<Option<Arc<Entry>>, SubmissionError> {
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
        let bytes = report.len();
        let report: JudgeReport = serde_json::from_str(&report).map_err(|e| {
            SubmissionError::Internal(format!("stored report of {:?}: {e}", key.sub_id))
        })?;
        let age = Duration::from_millis(u64::try_from(now_ms() - finished_at_ms).unwrap_or(0));
        if age >= self.retention {
            // Past its retention: gone, even before the next sweep removes the row.
            return Ok(None);
        }
        let entry = Arc::new(Entry::finished(report, age));
        entry.set_report_bytes(bytes);
        // Another request may have put it (or a rejudge) in meanwhile: keep that one.
        let entry = self.lock().entry(key.clone()).or_insert(entry).clone();
        self.trim_finished();
        Ok(Some(entry))
    }

    /// The categories that hold a submission `sub_id` (for a token bound to none).
    pub async fn categories_of(&self, sub_id: &str) -> Result<Vec<String>, SubmissionError> {
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
        self.lock().retain(|_, e| {
            e.finished_at()
                .is_none_or(|at| now.duration_since(at) < self.retention)
        });
        self.trim_finished();
    }

    /// Drops the oldest finished entries from memory (not from disk) beyond `max_retained` of
    /// them or beyond `finished_memory` bytes of their reports. Streams and requests that hold
    /// one keep it; a later `GET` reads it back from disk.
    fn trim_finished(&self) {
        let mut entries = self.lock();
        let mut finished: Vec<(Instant, usize, SubKey)> = entries
            .iter()
            .filter_map(|(key, e)| e.finished_size().map(|(at, n)| (at, n, key.clone())))
            .collect();
        let mut bytes: usize = finished.iter().map(|(_, n, _)| n).sum();
        if finished.len() <= self.max_retained && bytes <= self.finished_memory {
            return;
        }
        // Down to nine tenths of each bound, so that a store at its bound does not sort its
        // finished entries again at every finish.
        let most = self.max_retained - self.max_retained / 10;
        let budget = self.finished_memory - self.finished_memory / 10;
        finished.sort();
        let mut kept = finished.len();
        for (_, n, key) in finished {
            if kept <= most && bytes <= budget {
                break;
            }
            entries.remove(&key);
            kept -= 1;
            bytes -= n;
        }
    }
}

/// Sweeps `store` (see [`Store::sweep`]) every `retention_secs` (1 to 60 s) until `shutdown`.
pub fn spawn_sweeper(
    store: Arc<Store>,
    retention_secs: u64,
    shutdown: tokio_util::sync::CancellationToken,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let period = Duration::from_secs(retention_secs.clamp(1, 60));
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = tokio::time::sleep(period) => store.sweep().await,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::tests::{statuses, submission};
    use verdict_contracts::JudgeStatus;

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
            Err(SubmissionError::Conflict { .. })
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
        assert!(entry.events().try_next().is_some());
        assert!(
            store
                .get(&SubKey::new("other", "kept"))
                .await
                .unwrap()
                .is_none()
        );
    }

    /// Finished reports live on disk: memory holds the most recent within a byte
    /// budget, so a server's memory does not grow with the finished reports it keeps; an
    /// older one is read back when asked for. Before, every finished report stayed in memory
    /// for `retention_secs`, up to `max_retained` of them, whatever their size.
    #[tokio::test]
    async fn finished_reports_beyond_the_memory_budget_are_read_back_from_disk() {
        let metrics = Metrics::default();
        let (mut store, _dir) = store(100);
        store.finished_memory = 1;
        for i in 0..5 {
            let sub_id = format!("f{i}");
            let (entry, _) = store.insert(&submission(&sub_id)).unwrap();
            store.persist(&entry, "{}".into()).await.unwrap();
            let mut report = entry.snapshot().0;
            report.results[1].status = JudgeStatus::WrongAnswer;
            store.finish(&entry, report, &metrics).await;
        }
        let (running, _) = store.insert(&submission("running")).unwrap();
        assert_eq!(store.len(), 1, "only the unfinished one stays in memory");
        assert!(!running.is_finished());
        for i in 0..5 {
            let entry = store
                .get(&SubKey::new("oj", format!("f{i}")))
                .await
                .unwrap()
                .expect("read back from disk");
            assert_eq!(statuses(&entry)[1], JudgeStatus::WrongAnswer);
        }
        store.finished_memory = usize::MAX;
        store.get(&SubKey::new("oj", "f0")).await.unwrap();
        assert_eq!(store.len(), 2, "within the budget a read-back one is kept");
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
