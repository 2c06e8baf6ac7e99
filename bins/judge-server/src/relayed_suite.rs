//! `POST /v1/oracle` on a front end: nothing is judged there, so the suite goes to the workers
//! as a batch of one candidate (its `source_files`) through the broker, durable and fair like
//! any batch, and its report is rebuilt from the candidate's cases. The batch is kept as any
//! other (`oracle-<uuid>`, readable at `/v1/batches/{id}` until swept). docs/server.md
//! ("Scale-out").

use crate::error::ApiError;
use crate::state::AppState;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use verdict_contracts::batch::{BatchState, CandidateResult};
use verdict_contracts::oracle::{OracleReport, TestSuite};
use verdict_submissions::batches::{BatchError, Relay};

/// The id of the one candidate.
const CANDIDATE: &str = "suite";

/// How long before the request's own timeout (its 504) the wait ends, so that the batch is
/// cancelled here rather than left to run for nobody.
const MARGIN: Duration = Duration::from_millis(250);

/// Judges `suite` (checked by [`Relay::check_suite`]) on the workers through `relay`; its
/// report, as a standalone server gives it.
pub async fn judge(
    state: &AppState,
    relay: &Arc<Relay>,
    category: &str,
    suite: TestSuite,
    deadline: Instant,
) -> Result<OracleReport, ApiError> {
    let cases = suite.test_cases.len();
    let batch = relay
        .check(batch_of(&suite).to_string())
        .map_err(suite_error)?;
    let (entry, _) = relay
        .accept(None, category.to_owned(), batch)
        .await
        .map_err(suite_error)?;
    let id = entry.id.clone();
    // A client that goes away (its connection closed drops this future) cancels its suite:
    // the workers kill its runs and free their places.
    let mut gone = CancelWhenGone {
        relay: Some(relay.clone()),
        id: id.clone(),
    };
    let until = deadline.checked_sub(MARGIN).unwrap_or(deadline);
    let waited = tokio::time::timeout_at(until.into(), entry.wait()).await;
    gone.relay = None;
    let status = entry.status();
    if waited.is_err() || status.state != BatchState::Finished {
        if let Err(err) = relay.cancel(&id).await {
            tracing::warn!(%id, "cannot cancel a suite whose request ended: {err}");
        }
        return Err(ApiError::Timeout(format!(
            "the suite did not finish within request_timeout_ms ({} ms); it was cancelled",
            state.config.request_timeout_ms
        )));
    }
    let result = status.results.into_iter().find(|r| r.id == CANDIDATE);
    report_of(result, cases)
}

/// Cancels the relayed suite `id` when dropped with `relay` set: its request's future was
/// dropped before the suite ended.
struct CancelWhenGone {
    relay: Option<Arc<Relay>>,
    id: String,
}

impl Drop for CancelWhenGone {
    fn drop(&mut self) {
        let (Some(relay), Ok(runtime)) = (self.relay.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        runtime.spawn(async move {
            if let Err(err) = relay.cancel(&id).await {
                tracing::warn!(%id, "cannot cancel a suite whose client went away: {err}");
            }
        });
    }
}

/// The suite as a batch: its problem (the suite without `source_files`) and one candidate
/// bringing them; every case runs (the report has them all).
fn batch_of(suite: &TestSuite) -> Value {
    let mut problem = serde_json::to_value(suite).unwrap_or(Value::Null);
    if let Some(fields) = problem.as_object_mut() {
        fields.remove("source_files");
        fields.insert("kind".into(), json!("suite"));
    }
    json!({
        "problem": problem,
        "candidates": [{"id": CANDIDATE, "source_files": suite.source_files}],
        "options": {"stop_at_first_failure": false},
    })
}

/// A refused batch as the suite's refusal: its fields named as in the suite.
fn suite_error(err: BatchError) -> ApiError {
    match err {
        BatchError::Invalid(errors) => {
            let field = |f: &str| {
                let f = f.strip_prefix("problem.").unwrap_or(f);
                f.strip_prefix("candidates[0].").unwrap_or(f).to_owned()
            };
            let field_name = errors
                .first()
                .map_or_else(|| "suite".into(), |e| field(&e.field));
            let list: Vec<String> = errors
                .iter()
                .map(|e| format!("{}: {}", field(&e.field), e.message))
                .collect();
            ApiError::invalid(field_name, list.join("; "))
        }
        other => crate::batches::api_error(other),
    }
}

/// The candidate's result as an oracle report: its cases, all of them; a judge's failure is
/// the server's (503 when it may pass), the candidate's own files at fault a 422.
fn report_of(result: Option<CandidateResult>, cases: usize) -> Result<OracleReport, ApiError> {
    let Some(result) = result else {
        return Err(ApiError::Internal(
            "the workers gave no result for the suite".into(),
        ));
    };
    if let Some(infra) = result.infra_error {
        return Err(match infra.retryable {
            true => ApiError::Unavailable {
                message: format!("the workers could not judge the suite: {}", infra.message),
                retry_after_secs: 2,
            },
            false => ApiError::Internal(infra.message),
        });
    }
    match result.cases {
        Some(list) if list.len() == cases => Ok(OracleReport::new(list)),
        _ => Err(ApiError::invalid(
            "source_files",
            result
                .message
                .unwrap_or_else(|| "the suite could not be run".into()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_becomes_a_batch_of_one_candidate_bringing_its_files() {
        let suite = verdict_contracts::oracle::suite_from_value(json!({
            "deliverable_type": "function", "language": "python3", "entry_point": "f",
            "timeout_ms": 700,
            "source_files": [{"type": "text", "name": "f.py", "text": "def f(): return 1"}],
            "test_cases": [{"name": "a", "input": [], "expected": 1}]}))
        .expect("a suite");
        let batch = batch_of(&suite);
        let parsed =
            verdict_contracts::batch::parse_batch(&batch.to_string()).expect("a valid batch");
        assert_eq!(parsed.candidates.len(), 1);
        assert_eq!(parsed.candidates[0].source_files, suite.source_files);
        assert!(!parsed.options.stop_at_first_failure);
        let verdict_contracts::batch::BatchProblem::Suite(problem) = &parsed.problem else {
            panic!("a suite problem: {batch}");
        };
        let rebuilt = problem
            .suite_for(0, &parsed.candidates[0])
            .expect("the candidate's suite");
        assert_eq!(rebuilt, suite, "the workers judge the very suite sent");
    }
}
