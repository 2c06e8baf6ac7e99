//! The server's Agent Lab runs: `POST /v1/lab/runs` keeps each one in the submissions' database
//! (`verdict_submissions::KeptLabRun`, the newest 500) and `GET /v1/lab/runs` (in `direct.rs`)
//! reads them for the page, which shows them with the same viewer as `judge view`. They survive
//! a restart. A category token sees only the runs made with a token of its
//! category.

use crate::auth::Caller;
use crate::error::ApiError;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use verdict_contracts::{RunRecord, ScoreRecord};
use verdict_submissions::{KeptLabRun, Store, SubmissionError};

/// The lab runs, kept in the server's store.
#[derive(Debug)]
pub struct LabRuns {
    store: Arc<Store>,
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
    /// The lab runs kept in `store`.
    pub fn new(store: Arc<Store>) -> Self {
        LabRuns { store }
    }

    /// Keeps a run made by `caller`, on disk when this returns (the oldest beyond 500 go).
    pub async fn record(
        &self,
        caller: &Caller,
        run: &RunRecord,
        scores: &[ScoreRecord],
    ) -> Result<(), SubmissionError> {
        let encode = |e: serde_json::Error| SubmissionError::Internal(format!("lab run: {e}"));
        let kept = KeptLabRun {
            category: caller.category.clone(),
            run: serde_json::to_string(run).map_err(encode)?,
            scores: serde_json::to_string(scores).map_err(encode)?,
        };
        self.store.record_lab_run(kept).await
    }

    /// The runs `caller` may see, oldest first.
    pub async fn visible(&self, caller: &Caller) -> Result<LabRunList, ApiError> {
        let kept = self.store.lab_runs(caller.category.clone()).await?;
        Ok(list(&kept))
    }
}

/// The runs and their scores flattened into one list; a row that no longer reads as JSON is
/// left out (and logged) rather than failing the whole list.
fn list(kept: &[KeptLabRun]) -> LabRunList {
    let mut runs = Vec::with_capacity(kept.len());
    let mut scores = Vec::new();
    for row in kept {
        match (
            serde_json::from_str::<Value>(&row.run),
            serde_json::from_str::<Vec<Value>>(&row.scores),
        ) {
            (Ok(run), Ok(run_scores)) => {
                runs.push(run);
                scores.extend(run_scores);
            }
            (Err(e), _) | (_, Err(e)) => tracing::error!("a kept lab run does not read: {e}"),
        }
    }
    LabRunList { runs, scores }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runs_and_their_scores_are_listed_in_order_and_unreadable_rows_left_out() {
        let row = |run: &str, scores: &str| KeptLabRun {
            category: None,
            run: run.into(),
            scores: scores.into(),
        };
        let listed = list(&[
            row(r#"{"id": "a"}"#, r#"[{"runId": "a"}]"#),
            row("not json", "[]"),
            row(r#"{"id": "b"}"#, "[]"),
        ]);
        assert_eq!(
            serde_json::to_value(listed).unwrap(),
            json!({"runs": [{"id": "a"}, {"id": "b"}], "scores": [{"runId": "a"}]})
        );
    }
}
