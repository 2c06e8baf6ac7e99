//! What a worker remembers of cancels: the batches ([`Cancels`]) and the submissions
//! ([`SubmissionCancels`]) it saw cancelled, and the cancel switches of those it is judging;
//! and which acceptance of a submission a message belongs to ([`ACCEPTED_AT_HEADER`],
//! [`key_of`]). The consumers that fill them (`units`, `cancels`), the worker and the front end
//! that read them all depend on this module, which depends on none of them.

use lapin::message::Delivery;
use lapin::types::AMQPValue;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// The header of a published submission that says when it was accepted (ms since the epoch,
/// the front end's clock): a cancel applies to the submissions of its `sub_id` accepted before
/// it was published, so one sent again after its cancel (a rejudge) is judged.
pub const ACCEPTED_AT_HEADER: &str = "x-verdict-accepted-at-ms";

/// When a delivered submission was accepted ([`ACCEPTED_AT_HEADER`]); `i64::MIN` without the
/// header (published by a platform or an older front end: every cancel of its `sub_id` applies).
pub(crate) fn accepted_at(delivery: &Delivery) -> i64 {
    delivery
        .properties
        .headers()
        .as_ref()
        .and_then(|h| h.inner().get(ACCEPTED_AT_HEADER))
        .and_then(|v| match v {
            AMQPValue::LongLongInt(ms) => Some(*ms),
            _ => None,
        })
        .unwrap_or(i64::MIN)
}

/// The key a worker keeps a submission's cancel under.
pub(crate) fn key_of(category: &str, sub_id: &str) -> String {
    format!("{category}\u{0}{sub_id}")
}

/// How many cancelled ids (of batches, or of submissions) a worker remembers (the oldest
/// forgotten first).
const REMEMBERED_CANCELS: usize = 10_000;

/// The batches (or submissions, keyed by category and `sub_id`) a worker saw cancelled, and the
/// cancel tokens of those it is judging.
#[derive(Debug, Default)]
pub(crate) struct Cancels {
    inner: Mutex<CancelsInner>,
}

#[derive(Debug, Default)]
struct CancelsInner {
    /// Batches being judged: their token and how many of their units are in hand.
    running: HashMap<String, (CancellationToken, usize)>,
    cancelled: HashSet<String>,
    order: VecDeque<String>,
}

impl Cancels {
    fn lock(&self) -> std::sync::MutexGuard<'_, CancelsInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `batch` was cancelled: its running units stop, its later units are skipped.
    pub(crate) fn cancel(&self, batch: &str) {
        let mut inner = self.lock();
        if let Some((token, _)) = inner.running.get(batch) {
            token.cancel();
        }
        if inner.cancelled.insert(batch.to_owned()) {
            inner.order.push_back(batch.to_owned());
            if inner.order.len() > REMEMBERED_CANCELS
                && let Some(old) = inner.order.pop_front()
            {
                inner.cancelled.remove(&old);
            }
        }
    }

    /// Whether `batch` was cancelled.
    pub(crate) fn is_cancelled(&self, batch: &str) -> bool {
        self.lock().cancelled.contains(batch)
    }

    /// A unit of `batch` starts: its batch's token, or `None` when the batch was cancelled.
    pub(crate) fn enter(&self, batch: &str) -> Option<CancellationToken> {
        let mut inner = self.lock();
        if inner.cancelled.contains(batch) {
            return None;
        }
        let (token, count) = inner
            .running
            .entry(batch.to_owned())
            .or_insert_with(|| (CancellationToken::new(), 0));
        *count += 1;
        Some(token.clone())
    }

    /// A unit of `batch` ended.
    pub(crate) fn leave(&self, batch: &str) {
        let mut inner = self.lock();
        if let Some((_, count)) = inner.running.get_mut(batch) {
            *count -= 1;
            if *count == 0 {
                inner.running.remove(batch);
            }
        }
    }
}

/// The submissions a worker saw cancelled (by category and `sub_id`, each with the latest time
/// it was cancelled; the newest [`REMEMBERED`] kept) and the cancel switches of those it is
/// judging, with when each was accepted.
#[derive(Debug, Default)]
pub(crate) struct SubmissionCancels {
    inner: Mutex<SubmissionCancelsInner>,
}

#[derive(Debug, Default)]
struct SubmissionCancelsInner {
    cancelled: HashMap<String, i64>,
    order: VecDeque<String>,
    running: HashMap<String, (CancellationToken, i64)>,
}

/// How many cancelled submissions a worker remembers (the oldest forgotten first).
const REMEMBERED: usize = 10_000;

impl SubmissionCancels {
    fn lock(&self) -> std::sync::MutexGuard<'_, SubmissionCancelsInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `key` was cancelled at `at`: the one being judged stops if it was accepted by then, and
    /// those taken later are skipped if they were.
    pub(crate) fn cancel(&self, key: &str, at: i64) {
        let mut inner = self.lock();
        if let Some((token, accepted)) = inner.running.get(key)
            && *accepted <= at
        {
            token.cancel();
        }
        match inner.cancelled.get_mut(key) {
            Some(latest) => *latest = (*latest).max(at),
            None => {
                inner.cancelled.insert(key.to_owned(), at);
                inner.order.push_back(key.to_owned());
                if inner.order.len() > REMEMBERED
                    && let Some(old) = inner.order.pop_front()
                {
                    inner.cancelled.remove(&old);
                }
            }
        }
    }

    /// The submission `key` accepted at `accepted` starts: its cancel switch, or `None` when a
    /// cancel from after its accept was seen.
    pub(crate) fn enter(&self, key: &str, accepted: i64) -> Option<CancellationToken> {
        let mut inner = self.lock();
        if inner.cancelled.get(key).is_some_and(|&at| accepted <= at) {
            return None;
        }
        let token = CancellationToken::new();
        inner
            .running
            .insert(key.to_owned(), (token.clone(), accepted));
        Some(token)
    }

    /// The submission `key` ended.
    pub(crate) fn leave(&self, key: &str) {
        self.lock().running.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_batch_stops_its_running_units_and_skips_the_rest() {
        let cancels = Cancels::default();
        let running = cancels.enter("b").unwrap();
        let other = cancels.enter("c").unwrap();
        cancels.cancel("b");
        assert!(running.is_cancelled());
        assert!(!other.is_cancelled());
        assert!(cancels.enter("b").is_none());
        cancels.leave("b");
        cancels.leave("c");
        assert!(cancels.lock().running.is_empty());
    }

    #[test]
    fn a_cancel_reaches_the_submissions_accepted_before_it_and_not_a_rejudge_after() {
        let cancels = SubmissionCancels::default();
        let running = cancels.enter("k", 100).expect("not cancelled");
        cancels.cancel("k", 150);
        assert!(
            running.is_cancelled(),
            "accepted before the cancel: stopped"
        );
        cancels.leave("k");
        assert!(
            cancels.enter("k", 120).is_none(),
            "accepted before: skipped"
        );
        assert!(
            cancels.enter("k", i64::MIN).is_none(),
            "no accept time: skipped"
        );
        let rejudge = cancels
            .enter("k", 200)
            .expect("accepted after the cancel: judged");
        cancels.cancel("k", 150);
        assert!(
            !rejudge.is_cancelled(),
            "an older cancel read again leaves it running"
        );
    }
}
