//! The seed's `Runner` (section 4) and `Evaluator` (section 5) interfaces as async traits, and
//! [`LabError`], why one of them could not do its job.

use async_trait::async_trait;
use serde_json::Value;
use verdict_contracts::{AtomicTask, RunRecord, ScoreRecord};

/// Why a runner or an evaluator could not do its job.
///
/// A task that ran and failed is not an error: it is `Ok(RunRecord)` with status `failed`.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// The task does not suit this runner or evaluator (wrong type, malformed input).
    #[error("invalid task {task_id:?}: {message}")]
    InvalidTask {
        /// The task's id.
        task_id: String,
        /// What is wrong.
        message: String,
    },
    /// The runner's configuration is unusable.
    #[error("invalid config: {0}")]
    InvalidConfig(String),
    /// The runner or evaluator itself failed (could not start the agent, lost its sandbox).
    #[error("{0}")]
    Failed(String),
    /// A lower layer failed.
    #[error(transparent)]
    Other(#[from] Box<dyn std::error::Error + Send + Sync>),
}

/// Executes atomic tasks of one type (seed section 4).
#[async_trait]
pub trait Runner: Send + Sync {
    /// The runner's unique id (recorded as `provenance.runnerId`).
    fn id(&self) -> &str;
    /// The task type it runs (an AtomicTask's `type`).
    fn task_type(&self) -> &str;
    /// The runner's version (recorded as `provenance.runnerVersion`).
    fn version(&self) -> &str;
    /// Runs `task` with `config`; a failed task is `Ok` with status `failed`.
    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError>;
}

/// Scores runs (seed section 5).
///
/// ```
/// use async_trait::async_trait;
/// use verdict_contracts::{AtomicTask, RunRecord, ScoreRecord, ScoreTarget, ScoreValue, Timestamp};
/// use verdict_lab::{Evaluator, LabError};
///
/// /// `exact`: 1 when the output equals `expected`, else 0.
/// struct Exact;
///
/// #[async_trait]
/// impl Evaluator for Exact {
///     fn id(&self) -> &str {
///         "exact"
///     }
///     fn metrics(&self) -> Vec<String> {
///         vec!["exact_match".into()]
///     }
///     async fn evaluate(&self, run: &RunRecord, task: &AtomicTask) -> Result<Vec<ScoreRecord>, LabError> {
///         let hit = run.output.is_some() && run.output == task.expected;
///         Ok(vec![ScoreRecord {
///             id: format!("{}-exact", run.id),
///             run_id: run.id.clone(),
///             metric: "exact_match".into(),
///             value: ScoreValue::Number(if hit { 1.0 } else { 0.0 }),
///             target: ScoreTarget::Final,
///             evidence: None,
///             evaluator_id: self.id().into(),
///             created_at: Timestamp::now(),
///         }])
///     }
/// }
///
/// // Object-safe: the lab engine keeps evaluators as trait objects.
/// let evaluators: Vec<Box<dyn Evaluator>> = vec![Box::new(Exact)];
/// assert_eq!(evaluators[0].metrics(), ["exact_match"]);
/// ```
#[async_trait]
pub trait Evaluator: Send + Sync {
    /// The evaluator's unique id (recorded as `evaluatorId`).
    fn id(&self) -> &str;
    /// The metrics it produces.
    fn metrics(&self) -> Vec<String>;
    /// Scores `run` of `task`.
    async fn evaluate(
        &self,
        run: &RunRecord,
        task: &AtomicTask,
    ) -> Result<Vec<ScoreRecord>, LabError>;
}
