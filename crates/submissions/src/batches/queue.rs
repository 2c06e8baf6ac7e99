//! The queue of jobs waiting for a worker, by category: batches, and single Task Oracle suites
//! (`POST /v1/oracle`), taken from the categories in turn (round robin). At most a few batches
//! run at once; a suite may start while batches wait for one of theirs.

use super::entry::BatchEntry;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use tokio::sync::oneshot;
use verdict_contracts::oracle::{OracleReport, TestSuite};
use verdict_datasets::JudgeableBatch;
use verdict_oracle::OracleError;

/// One job: a batch, or one suite whose caller waits for its report.
#[derive(Debug)]
pub(crate) enum Job {
    /// An accepted batch.
    Batch(Arc<BatchEntry>, Box<JudgeableBatch>),
    /// A suite, the instant its request ends (no case starts after it) and where its report
    /// goes (closed when its caller went away).
    Suite(
        Box<TestSuite>,
        Option<std::time::Instant>,
        oneshot::Sender<Result<OracleReport, OracleError>>,
    ),
}

impl Job {
    fn is_batch(&self) -> bool {
        matches!(self, Job::Batch(..))
    }
}

/// The waiting jobs by category, and how many batches run.
#[derive(Debug, Default)]
pub(crate) struct Queues {
    waiting: BTreeMap<String, VecDeque<Job>>,
    /// The category a job last started from.
    last: Option<String>,
    /// Jobs waiting.
    pub count: usize,
    /// Batches running.
    pub running_batches: usize,
}

impl Queues {
    /// Adds a job at the end of its category's queue.
    pub fn push(&mut self, category: &str, job: Job) {
        self.waiting
            .entry(category.to_owned())
            .or_default()
            .push_back(job);
        self.count += 1;
    }

    /// The next job: the first one that may start (a batch only while fewer than
    /// `max_batches` run) from the first category after the last one served that has one.
    pub fn pop(&mut self, max_batches: usize) -> Option<Job> {
        let batch_ok = self.running_batches < max_batches;
        let eligible = |q: &VecDeque<Job>| q.iter().position(|j| batch_ok || !j.is_batch());
        let after = self.last.clone().unwrap_or_default();
        let (category, at) = self
            .waiting
            .range::<String, _>((
                std::ops::Bound::Excluded(&after),
                std::ops::Bound::Unbounded,
            ))
            .chain(self.waiting.range::<String, _>(..=&after))
            .find_map(|(c, q)| eligible(q).map(|at| (c.clone(), at)))?;
        let job = self.waiting.get_mut(&category)?.remove(at)?;
        self.count -= 1;
        if job.is_batch() {
            self.running_batches += 1;
        }
        self.last = Some(category);
        Some(job)
    }

    /// How many suites would start before one more of `category` under round robin: from each
    /// category, its waiting suites up to one more than `category` has (batches are left out:
    /// they start only on the few batch places).
    pub fn suites_ahead(&self, category: &str) -> usize {
        let suites = |q: &VecDeque<Job>| q.iter().filter(|j| !j.is_batch()).count();
        let own = self.waiting.get(category).map_or(0, suites);
        self.waiting.values().map(|q| suites(q).min(own + 1)).sum()
    }

    /// Takes the batch `id` of `category` out of the queue: its request, if it was there.
    pub fn remove_batch(&mut self, category: &str, id: &str) -> Option<Box<JudgeableBatch>> {
        let queue = self.waiting.get_mut(category)?;
        let at = queue
            .iter()
            .position(|j| matches!(j, Job::Batch(e, _) if e.id == id))?;
        self.count -= 1;
        match queue.remove(at)? {
            Job::Batch(_, request) => Some(request),
            Job::Suite(..) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> Job {
        let suite = verdict_contracts::oracle::suite_from_value(serde_json::json!({
            "deliverable_type": "function", "language": "python3", "entry_point": "f",
            "source_files": [{"type": "text", "name": "f.py", "text": "def f(): return 1"}],
            "test_cases": [{"name": "a", "input": [], "expected": 1}]}))
        .unwrap();
        Job::Suite(Box::new(suite), None, oneshot::channel().0)
    }

    fn batch(id: &str) -> Job {
        let request = verdict_contracts::batch::parse_batch(
            &serde_json::json!({"problem": {"kind": "suite", "deliverable_type": "function",
                "language": "python3", "entry_point": "f", "test_cases": []},
                "candidates": []})
            .to_string(),
        )
        .unwrap();
        let batch = JudgeableBatch::check(request, &Default::default()).unwrap();
        let entry = BatchEntry::new(id.into(), "c".into(), String::new());
        Job::Batch(Arc::new(entry), Box::new(batch))
    }

    #[test]
    fn suites_ahead_count_what_round_robin_serves_first() {
        let mut q = Queues::default();
        assert_eq!(q.suites_ahead("a"), 0);
        for _ in 0..5 {
            q.push("busy", suite());
        }
        q.push("busy", batch("b1"));
        // A quiet category waits for one suite of each other category, not the whole queue.
        assert_eq!(q.suites_ahead("quiet"), 1);
        // The busy one waits for its own five (the batch is not counted).
        assert_eq!(q.suites_ahead("busy"), 5);
        q.push("quiet", suite());
        assert_eq!(q.suites_ahead("quiet"), 3);
    }

    #[test]
    fn categories_take_turns_and_suites_pass_batches_that_must_wait() {
        let mut q = Queues::default();
        q.push("a", batch("a1"));
        q.push("a", suite());
        q.push("b", suite());
        assert!(q.pop(1).is_some_and(|j| j.is_batch()), "a's batch first");
        // One batch runs: b's suite, then a's suite behind nothing that may start.
        assert!(q.pop(1).is_some_and(|j| !j.is_batch()));
        assert!(q.pop(1).is_some_and(|j| !j.is_batch()));
        q.push("a", batch("a2"));
        assert!(q.pop(1).is_none(), "a second batch waits for the first");
        q.running_batches = 0;
        assert!(q.pop(1).is_some_and(|j| j.is_batch()));
        assert_eq!(q.count, 0);
    }

    #[test]
    fn a_removed_batch_frees_its_place() {
        let mut q = Queues::default();
        q.push("c", batch("x"));
        q.push("c", batch("y"));
        assert!(q.remove_batch("c", "x").is_some());
        assert!(q.remove_batch("c", "x").is_none());
        assert_eq!(q.count, 1);
    }
}
