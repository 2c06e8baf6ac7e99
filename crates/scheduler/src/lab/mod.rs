//! The Agent Lab engine (`seeds/agent-lab-contracts.md`, design #18): runs [`AtomicTask`]s and
//! [`ScenarioTask`]s with [`Runner`]s, scores them with [`Evaluator`]s, and produces the
//! contract's [`RunRecord`]s and [`ScoreRecord`]s.
//!
//! - [`Registry`] maps a task's `type` to a runner (with a fallback for every other type) and
//!   holds the evaluators by id. Built-in runners: [`CommandRunner`] (`command`: an external
//!   agent program), [`HttpRunner`] (`http`: POST to an agent endpoint), [`OracleRunner`]
//!   (`function`, `script`, `cli`: a Task Oracle case) and [`ProgrammingRunner`]
//!   (`programming`: a judge Submission). Built-in evaluators: [`ExactEvaluator`] (`exact`),
//!   [`SubsetEvaluator`] (`subset`), [`JudgeEvaluator`] (`judge`), [`LatencyEvaluator`]
//!   (`latency`).
//! - [`Lab`] runs one task ([`Lab::run`]): an atomic task through its runner, a scenario step by
//!   step with its `input_map` applied; then scores the run. A run that fails is a record with
//!   status `failed`, never an `Err`.
//! - [`RunBuilder`] helps a runner of one's own keep the trace and the timings.
//! - [`parse_tasks`] reads a JSON array, a single task or JSON Lines; [`task_hash`] is the
//!   content hash that `judge lab --resume` keys on.
//!
//! [`AtomicTask`]: verdict_contracts::AtomicTask
//! [`ScenarioTask`]: verdict_contracts::ScenarioTask
//! [`Runner`]: verdict_contracts::Runner
//! [`Evaluator`]: verdict_contracts::Evaluator
//! [`RunRecord`]: verdict_contracts::RunRecord
//! [`ScoreRecord`]: verdict_contracts::ScoreRecord

mod builder;
mod command;
mod config;
mod engine;
mod evaluators;
mod http;
mod oracle;
mod programming;
mod registry;
mod scenario;
mod tasks;

pub use builder::{RunBuilder, new_id, score_record};
pub use command::CommandRunner;
pub use config::{LabConfig, RunnerConfig};
pub use engine::{EvaluatorFailure, Lab, LabOutcome};
pub use evaluators::{
    ExactEvaluator, JudgeEvaluator, LatencyEvaluator, NumberRule, SubsetConfig, SubsetEvaluator,
};
pub use http::HttpRunner;
pub use oracle::{DELIVERABLE_KEY, OracleRunner};
pub use programming::ProgrammingRunner;
pub use registry::{EVALUATORS_KEY, JUDGED_TYPES, Registry};
pub use tasks::{LabTask, TaskEntry, parse_tasks, task_hash};

/// verdict's version, recorded in every run's `provenance.config.verdictVersion`.
pub const VERDICT_VERSION: &str = env!("CARGO_PKG_VERSION");
