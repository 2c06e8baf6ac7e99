//! One accepted batch: its state, the results so far, the summary once finished, and a
//! counter that readers of its stream wait on.

use std::sync::Mutex;
use std::time::SystemTime;
use tokio::sync::watch;
use verdict_contracts::batch::{BatchEvent, BatchReport, BatchState, BatchStatus, CandidateResult};
use verdict_scheduler::BatchCancel;

/// An accepted batch and its progress.
#[derive(Debug)]
pub struct BatchEntry {
    /// The batch's id (the client's idempotency key, or one made for it).
    pub id: String,
    /// The category it is queued under.
    pub category: String,
    /// A hash of the request text: the same id with another request is a conflict.
    pub(crate) request_hash: String,
    /// Its cancel switch.
    pub(crate) cancel: BatchCancel,
    inner: Mutex<Progress>,
    changed: watch::Sender<u64>,
}

#[derive(Debug)]
struct Progress {
    state: BatchState,
    /// Results in the order they finished (the stream's order).
    streamed: Vec<CandidateResult>,
    /// The whole report once done (results in the request's order).
    report: Option<BatchReport>,
    /// When it ended.
    ended_at: Option<SystemTime>,
}

impl BatchEntry {
    /// A queued batch.
    pub(crate) fn new(id: String, category: String, request_hash: String) -> Self {
        BatchEntry {
            id,
            category,
            request_hash,
            cancel: BatchCancel::new(),
            inner: Mutex::new(Progress {
                state: BatchState::Queued,
                streamed: Vec::new(),
                report: None,
                ended_at: None,
            }),
            changed: watch::channel(0).0,
        }
    }

    fn update(&self, f: impl FnOnce(&mut Progress)) {
        f(&mut self.inner.lock().unwrap_or_else(|e| e.into_inner()));
        self.changed.send_modify(|n| *n += 1);
    }

    /// Marks it running.
    pub(crate) fn start(&self) {
        self.update(|p| p.state = BatchState::Running);
    }

    /// Records a candidate's result.
    pub(crate) fn push(&self, result: CandidateResult) {
        self.update(|p| p.streamed.push(result));
    }

    /// Records the end. Results the stream has not carried yet (a report read back from disk)
    /// are streamed in the report's order.
    pub(crate) fn finish(&self, report: BatchReport, state: BatchState, at: SystemTime) {
        self.update(|p| {
            p.state = state;
            p.ended_at = Some(at);
            for r in &report.results {
                if !p.streamed.iter().any(|s| s.id == r.id) {
                    p.streamed.push(r.clone());
                }
            }
            p.report = Some(report);
        });
    }

    /// Its state now.
    pub fn state(&self) -> BatchState {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).state
    }

    /// When it ended (finished or cancelled), if it did.
    pub(crate) fn ended_at(&self) -> Option<SystemTime> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .ended_at
    }

    /// Whether it is finished or cancelled.
    pub fn is_done(&self) -> bool {
        matches!(self.state(), BatchState::Finished | BatchState::Cancelled)
    }

    /// A snapshot: state, the results so far, the summary when done.
    pub fn status(&self) -> BatchStatus {
        let p = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (results, summary) = match &p.report {
            Some(report) => (report.results.clone(), Some(report.summary.clone())),
            None => (p.streamed.clone(), None),
        };
        BatchStatus {
            id: self.id.clone(),
            category: self.category.clone(),
            state: p.state,
            results,
            summary,
        }
    }

    /// The events after the first `seen` candidates (then the summary when done), and whether
    /// the stream is over.
    pub fn events_after(&self, seen: usize) -> (Vec<BatchEvent>, bool) {
        let p = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut events: Vec<BatchEvent> = p
            .streamed
            .iter()
            .skip(seen)
            .cloned()
            .map(BatchEvent::Candidate)
            .collect();
        let over = matches!(p.state, BatchState::Finished | BatchState::Cancelled);
        if over && let Some(report) = &p.report {
            events.push(BatchEvent::Summary(report.summary.clone()));
        }
        (events, over)
    }

    /// A receiver that changes whenever the entry does.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Waits until it is finished or cancelled.
    pub async fn wait(&self) {
        let mut rx = self.subscribe();
        while !self.is_done() {
            if rx.changed().await.is_err() {
                return;
            }
        }
    }
}
