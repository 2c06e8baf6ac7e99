//! Content addresses of candidates, and the results judged under them (design #26): two
//! candidates with the same problem, language, files and options are judged once. The address
//! covers everything judging reads (the whole problem, not only its id and version), and never
//! the candidate's id; a result the judge failed on (`infra_error`) is never kept.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use verdict_contracts::batch::{BatchOptions, BatchProblem, Candidate, CandidateResult};

/// A candidate's content address (blake3, hex).
pub(crate) type Key = String;

/// What every candidate of one batch shares in its address: the problem and the options.
pub(crate) fn problem_hasher(problem: &BatchProblem, options: &BatchOptions) -> blake3::Hasher {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"verdict-batch-v1\0");
    let judged = (
        options.stop_at_first_failure,
        options.test_timeout_ms,
        options.candidate_timeout_ms,
    );
    hasher.update(
        serde_json::to_string(&judged)
            .unwrap_or_default()
            .as_bytes(),
    );
    hasher.update(b"\0");
    hasher.update(
        serde_json::to_string(problem)
            .unwrap_or_default()
            .as_bytes(),
    );
    hasher.update(b"\0");
    hasher
}

/// A candidate's address under its batch's `base` ([`problem_hasher`]).
pub(crate) fn candidate_key(base: &blake3::Hasher, candidate: &Candidate) -> Key {
    let mut hasher = base.clone();
    let anonymous = Candidate {
        id: String::new(),
        ..candidate.clone()
    };
    hasher.update(
        serde_json::to_string(&anonymous)
            .unwrap_or_default()
            .as_bytes(),
    );
    hasher.finalize().to_hex().to_string()
}

/// Results by address, the oldest dropped first beyond a capacity (kept in memory: a restart
/// judges again).
#[derive(Debug)]
pub(crate) struct ResultCache {
    capacity: usize,
    inner: Mutex<(HashMap<Key, CandidateResult>, VecDeque<Key>)>,
}

impl ResultCache {
    /// An empty cache holding at most `capacity` results (0: none).
    pub fn new(capacity: usize) -> Self {
        ResultCache {
            capacity,
            inner: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    /// The result judged under `key`, if kept.
    pub fn get(&self, key: &Key) -> Option<CandidateResult> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.0.get(key).cloned()
    }

    /// Keeps `result` under `key` unless the judge failed on it.
    pub fn put(&self, key: Key, result: &CandidateResult) {
        if self.capacity == 0 || result.infra_error.is_some() {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (map, order) = &mut *inner;
        if map.insert(key.clone(), result.clone()).is_none() {
            order.push_back(key);
        }
        while map.len() > self.capacity {
            match order.pop_front() {
                Some(old) => {
                    map.remove(&old);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_contracts::batch::parse_batch;

    fn batch(candidates: &str) -> verdict_contracts::batch::BatchRequest {
        parse_batch(&format!(
            r#"{{"problem": {{"kind": "suite", "deliverable_type": "function",
                "language": "python3", "entry_point": "f", "test_cases": []}},
                "candidates": {candidates}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn the_id_is_not_part_of_the_address_but_the_code_is() {
        let b = batch(
            r#"[{"id": "a", "code": "x"}, {"id": "b", "code": "x"}, {"id": "c", "code": "y"}]"#,
        );
        let base = problem_hasher(&b.problem, &b.options);
        let keys: Vec<Key> = b
            .candidates
            .iter()
            .map(|c| candidate_key(&base, c))
            .collect();
        assert_eq!(keys[0], keys[1]);
        assert_ne!(keys[0], keys[2]);
    }

    #[test]
    fn options_are_part_of_the_address() {
        let b = batch(r#"[{"id": "a", "code": "x"}]"#);
        let mut stopping = b.options.clone();
        stopping.stop_at_first_failure = true;
        let one = candidate_key(&problem_hasher(&b.problem, &b.options), &b.candidates[0]);
        let two = candidate_key(&problem_hasher(&b.problem, &stopping), &b.candidates[0]);
        assert_ne!(one, two);
    }
}
