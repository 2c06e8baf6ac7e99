//! The server's recent Agent Lab runs: `POST /v1/lab/runs` keeps each one here and
//! `GET /v1/lab/runs` (in `direct.rs`) reads them for the page, which shows them with the same
//! viewer as `judge view`. In memory, the newest `KEPT` runs; a category token sees only the runs
//! made with a token of its category.

use crate::auth::Caller;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::Mutex;

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

impl LabRuns {
    /// Keeps a run made by `caller` (the oldest goes beyond `KEPT`).
    pub fn record(&self, caller: &Caller, run: Value, scores: Vec<Value>) {
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

    /// `{runs, scores}` that `caller` may see, oldest first.
    pub fn visible(&self, caller: &Caller) -> Value {
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let seen: Vec<&Kept> = runs
            .iter()
            .filter(|kept| caller.category.is_none() || kept.category == caller.category)
            .collect();
        json!({
            "runs": seen.iter().map(|k| &k.run).collect::<Vec<_>>(),
            "scores": seen.iter().flat_map(|k| &k.scores).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(category: Option<&str>) -> Caller {
        Caller {
            category: category.map(str::to_owned),
            ..Caller::default()
        }
    }

    #[test]
    fn a_category_token_sees_only_its_own_runs() {
        let runs = LabRuns::default();
        runs.record(
            &caller(Some("oj")),
            json!({"id": "a"}),
            vec![json!({"runId": "a"})],
        );
        runs.record(&caller(Some("lab")), json!({"id": "b"}), vec![]);
        runs.record(&caller(None), json!({"id": "c"}), vec![]);
        assert_eq!(
            runs.visible(&caller(Some("oj"))),
            json!({"runs": [{"id": "a"}], "scores": [{"runId": "a"}]})
        );
        assert_eq!(
            runs.visible(&caller(None))["runs"].as_array().map(Vec::len),
            Some(3)
        );
    }

    #[test]
    fn only_the_newest_runs_are_kept() {
        let runs = LabRuns::default();
        for i in 0..KEPT + 3 {
            runs.record(&caller(None), json!({"id": i}), vec![]);
        }
        let seen = runs.visible(&caller(None));
        assert_eq!(seen["runs"].as_array().map(Vec::len), Some(KEPT));
        assert_eq!(seen["runs"][0]["id"], 3);
    }
}
