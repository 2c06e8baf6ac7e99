//! verdict-scheduler: the programming judge's pipeline and the per-problem cache (the Agent
//! Lab is `verdict-lab`, above it). It decides *when* things run; `verdict-scripts` decides *what* runs and what its
//! outcome means, and `verdict-sandbox` runs it.
//!
//! A batch (one problem, many candidates: [`BatchJudge`]) judges each candidate with the same
//! plan and tasks, one candidate per run permit.
//!
//! A submission goes down one way: `pipeline` (validate, plan, dependency forest) -> `plan`
//! (typed tasks, limits) -> `tasks` (glue per kind) -> `submission` (builds, data, executor)
//! -> `verdict_scripts` -> `verdict_sandbox`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use verdict_scheduler::{Judge, JudgeConfig};
//! let judge = Judge::new(JudgeConfig::default())?;
//! let submission = verdict_contracts::parse_submission(&std::fs::read_to_string("submission.json")?)?;
//! let report = judge.judge(submission).await;
//! println!("{}", serde_json::to_string(&report)?);
//! # Ok(()) }
//! ```

mod assets;
mod batch;
mod cache;
mod conditions;
mod config;
mod error;
mod executor;
mod pipeline;
mod plan;
mod slots;
mod submission;
mod tasks;
mod test_dirs;

pub use assets::{AssetError, AssetFetcher, check_local_roots};
pub use batch::{
    BatchCancel, BatchJudge, DEFAULT_RESULT_CACHE, ValidBatch, check_batch, identical_groups,
};
pub use cache::{CacheStats, ProblemCache, ProblemHandle};
pub use conditions::dependency_holds;
pub use config::{
    CompileConfig, GeneratorConfig, JudgeConfig, RemoteConfig, SpecialConfig, StaticAnalyser,
};
pub use error::JudgeError;
pub use pipeline::{CANCELLED, CANCELLED_RUNNING, HostFaults, Judge, SubmissionCancel, TaskUpdate};
pub use plan::{own_limits, random_seed};
pub use slots::{SlotPermit, SlotStats, Slots};
