//! A batch request read and checked once, where it comes in: its shape, the operator's caps and
//! what the judges can run. [`Batches::accept`](super::Batches::accept) and
//! [`Relay::accept`](super::Relay::accept) take only a [`CheckedBatch`], and the judge takes
//! the [`JudgeableBatch`] inside it, so nothing on the way parses or checks it again. A single Task Oracle suite (`POST /v1/oracle`) is read and checked
//! here too, against the same caps.

use super::{BatchError, caps};
use verdict_contracts::batch::{BatchProblem, BatchRequest, parse_batch};
use verdict_contracts::oracle::{TestSuite, suite_from_value};
use verdict_contracts::{Caps, FieldError};
use verdict_datasets::JudgeableBatch;
use verdict_oracle::OracleError;

/// A batch that passed its checks, with the text it was read from (kept on disk and announced
/// as it is). Made only by [`Batches::check`](super::Batches::check) and
/// [`Relay::check`](super::Relay::check).
#[derive(Debug, Clone)]
pub struct CheckedBatch {
    batch: JudgeableBatch,
    text: String,
}

impl CheckedBatch {
    /// The category a programming problem names (the default category of its batch).
    pub fn category(&self) -> Option<&str> {
        match &self.batch.request().problem {
            BatchProblem::Programming(problem) => Some(&problem.category),
            BatchProblem::Suite(_) | BatchProblem::Dataset(_) => None,
        }
    }

    /// The checked batch and its text.
    pub(crate) fn into_parts(self) -> (JudgeableBatch, String) {
        (self.batch, self.text)
    }
}

/// Reads `text` as a batch and checks it whole: its shape, then `caps`, then `judges` (what
/// the judges that take it can run); every problem of the first step that finds any, each
/// naming its field.
pub(crate) fn check(
    text: String,
    caps: &Caps,
    judges: impl FnOnce(BatchRequest) -> Result<JudgeableBatch, Vec<FieldError>>,
) -> Result<CheckedBatch, BatchError> {
    let request = parse_batch(&text).map_err(BatchError::Invalid)?;
    let over = caps::check(caps, &request);
    if !over.is_empty() {
        return Err(BatchError::Invalid(over));
    }
    let batch = judges(request).map_err(BatchError::Invalid)?;
    Ok(CheckedBatch { batch, text })
}

/// Reads `text` as one Task Oracle suite and checks its shape, then `caps` (the first cap it
/// is over).
pub(crate) fn check_suite(text: &str, caps: &Caps) -> Result<TestSuite, BatchError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| BatchError::NotJson(e.to_string()))?;
    let suite = suite_from_value(value).map_err(|e| BatchError::Oracle(OracleError::Suite(e)))?;
    if let Some(over) = caps.check_suite(&suite).into_iter().next() {
        return Err(BatchError::Invalid(vec![over]));
    }
    Ok(suite)
}
