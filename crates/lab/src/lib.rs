//! verdict-lab: the Agent Lab (the Agent Lab contract, restated in `docs/agent-lab.md`; design #18). It runs
//! [`AtomicTask`]s and [`ScenarioTask`]s with [`Runner`]s, scores them with [`Evaluator`]s, and
//! produces the contract's [`RunRecord`]s and [`ScoreRecord`]s. `judge lab` and the server's
//! `POST /v1/lab/runs` both call it; it sits above `verdict-scheduler` (whose `Judge` runs the
//! `function`, `script`, `cli` and `programming` tasks).
//!
//! - [`Runner`] and [`Evaluator`] are the seed's interfaces (sections 4 and 5) as async traits;
//!   [`LabError`] is why one could not do its job.
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
//! - [`batch`]: many tasks at once ([`batch::run_batch`]), `--resume` ([`batch::done_hashes`]),
//!   records appended as JSON Lines as each task finishes ([`batch::RecordWriter`]) and the
//!   summary table ([`batch::Summary`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use verdict_lab::{CommandRunner, Lab, Registry, parse_tasks};
//!
//! let mut registry = Registry::new();
//! let agent = CommandRunner::new("*", vec!["python3".into(), "agent.py".into()])?;
//! registry.set_fallback(Arc::new(agent), serde_json::Value::Null);
//! let lab = Lab::new(registry);
//! for entry in parse_tasks(&std::fs::read_to_string("tasks.jsonl")?).map_err(|e| e.join("\n"))? {
//!     if let Err(problems) = lab.check(&entry.task) {
//!         return Err(format!("{problems:?}").into());
//!     }
//!     let outcome = lab.run_entry(&entry).await;
//!     println!("{}", serde_json::to_string(&outcome.run)?);
//! }
//! # Ok(()) }
//! ```
//!
//! [`AtomicTask`]: verdict_contracts::AtomicTask
//! [`ScenarioTask`]: verdict_contracts::ScenarioTask
//! [`RunRecord`]: verdict_contracts::RunRecord
//! [`ScoreRecord`]: verdict_contracts::ScoreRecord

pub mod batch;
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
mod traits;
mod tree;

pub use builder::{RunBuilder, new_id, score_record};
pub use command::{CommandRunner, StderrLine, Usage, stderr_event};
pub use config::{LabConfig, RunnerConfig};
pub use engine::{EvaluatorFailure, Lab, LabOutcome};
pub use evaluators::{
    BUILT_IN as BUILT_IN_EVALUATORS, ExactEvaluator, JudgeEvaluator, LatencyEvaluator, NumberRule,
    SubsetConfig, SubsetEvaluator,
};
pub use http::HttpRunner;
pub use oracle::{DELIVERABLE_KEY, OracleRunner};
pub use programming::ProgrammingRunner;
pub use registry::{EVALUATORS_KEY, JUDGED_TYPES, Registry};
pub use tasks::{LabTask, TaskEntry, parse_tasks, task_hash};
pub use traits::{Evaluator, LabError, Runner};
pub use tree::{AGENT_TAG_VAR, kill_all_agents};

/// verdict's version, recorded in every run's `provenance.config.verdictVersion`.
pub const VERDICT_VERSION: &str = env!("CARGO_PKG_VERSION");
