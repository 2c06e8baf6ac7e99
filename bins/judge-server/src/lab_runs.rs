//! The server's recent Agent Lab runs: `POST /v1/lab/runs` keeps each one here and
//! `GET /v1/lab/runs` (in `direct.rs`) reads them for the page, which shows them with the same
//! viewer as `judge view`. In memory, the newest `KEPT` runs; a category token sees only the runs
//! made with a token of its category.

use crate::auth::Caller;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Mutex;
use verdict_contracts::{RunRecord, ScoreRecord};

/// How many runs are kept.
pub const KEPT: usize = 500;

#[derive(Debug)]
struct Kept {
    category: Option<String>,
    run: Value,
    scores: Vec<Value>,
}

/// The newest lab runs and their scores.
#[derive(Debug, Default)]
pub struct LabRuns {
    runs: Mutex<VecDeque<Kept>>,
}

/// `GET /v1/lab/runs`' answer: the runs a caller may see, oldest first, and their scores.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LabRunList {
    /// The runs.
    #[schemars(with = "Vec<RunRecord>")]
    pub runs: Vec<Value>,
    /// Their scores.
    #[schemars(with = "Vec<ScoreRecord>")]
    pub scores: Vec<Value>,
}

impl LabRuns {
    /// Keeps a run made by `caller` (the oldest goes beyond `KEPT`).
    pub fn record(&self, caller: &Caller, run: &RunRecord, scores: &[ScoreRecord]) {
        let run = serde_json::to_value(run).unwrap_or_default();
        let scores = scores
            .iter()
            .filter_map(|score| serde_json::to_value(score).ok())
            .collect();
        self.keep(caller, run, scores);
    }

    fn keep(&self, caller: &Caller, run: Value, scores: Vec<Value>) {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        if runs.len() == KEPT {
            runs.pop_front();
        }
        runs.push_back(Kept {
            category: caller.category.clone(),
            run,
            scores,
        });
    }

    /// The runs `caller` may see, oldest first.
    pub fn visible(&self, caller: &Caller) -> LabRunList {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let seen: Vec<&Kept> = runs
            .iter()
            .filter(|kept| caller.category.is_none() || kept.category == caller.category)
            .collect();
        LabRunList {
            runs: seen.iter().map(|k| k.run.clone()).collect(),
            scores: seen.iter().flat_map(|k| k.scores.iter().cloned()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn caller(category: Option<&str>) -> Caller {
        Caller {
            category: category.map(str::to_owned),
            ..Caller::default()
        }
    }

    #[test]
    fn a_category_token_sees_only_its_own_runs() {
        let runs = LabRuns::default();
        runs.keep(
            &caller(Some("oj")),
            json!({"id": "a"}),
            vec![json!({"runId": "a"})],
        );
        runs.keep(&caller(Some("lab")), json!({"id": "b"}), vec![]);
        runs.keep(&caller(None), json!({"id": "c"}), vec![]);
        assert_eq!(
            serde_json::to_value(runs.visible(&caller(Some("oj")))).unwrap(),
            json!({"runs": [{"id": "a"}], "scores": [{"runId": "a"}]})
        );
        assert_eq!(runs.visible(&caller(None)).runs.len(), 3);
    }

    #[test]
    fn only_the_newest_runs_are_kept() {
        let runs = LabRuns::default();
        for i in 0..KEPT + 3 {
            runs.keep(&caller(None), json!({"id": i}), vec![]);
        }
        let seen = runs.visible(&caller(None));
        assert_eq!(seen.runs.len(), KEPT);
        assert_eq!(seen.runs[0]["id"], 3);
    }
}
