//! verdict-contracts: every wire type of verdict, its validation, and its JSON Schema.
//!
//! - The programming judge ([`judge`], [`score`], [`reports`]): a [`Submission`] in, a
//!   [`JudgeReport`] out, exactly as the judge request format spells them (restated in
//!   `docs/contracts.md` and `docs/judge.md`; `docs/decisions.md` lists the three contracts).
//!   [`parse_submission`] reads and checks a request ([`Submission::validate`], design #12,
//!   #15, #16); an invalid one becomes a report with `results: []` and a message naming the field.
//! - The Task Oracle ([`oracle`]): a [`TestSuite`] in, an [`OracleReport`] out (design #17).
//! - Agent Lab ([`lab`], [`scenario`]): [`AtomicTask`], [`ScenarioTask`] and its `input_map`
//!   ([`DataPath`]), [`RunRecord`], [`ScoreRecord`] (the engine, with its `Runner` and `Evaluator`
//!   traits, is `verdict-lab`).
//! - Batches ([`batch`], [`pass_at_k`]): one problem, many candidates, a result per candidate
//!   and pass@k (design #26, #27).
//! - [`schemas`]: one JSON Schema (draft 2020-12) per top-level type, for `judge schema`.
//!
//! This crate does no process, file or network I/O.
//!
//! # Quick start
//!
//! ```
//! use verdict_contracts::{CheckScript, JudgeStatus, JudgeTaskResult, parse_submission};
//!
//! let submission = parse_submission(r##"{
//!     "sub_type": "programming", "category": "oj", "prob_id": "a-plus-b", "sub_id": "1",
//!     "updated_at": 1700000000,
//!     "judge_tasks": [
//!         {"check_script": "compile", "run_script": null, "compare_script": null,
//!          "depends_on": -1, "time_limit": 10000},
//!         {"check_script": "standard", "run_script": "standard", "compare_script": "diff-ign-space",
//!          "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED",
//!          "time_limit": 1000, "memory_limit": 65536, "proc_limit": 4}
//!     ],
//!     "test_data": [{
//!         "inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
//!         "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"}]
//!     }],
//!     "submission": {"type": "source_code", "language": "c", "source_files": [
//!         {"type": "text", "name": "main.c",
//!          "text": "#include <stdio.h>\nint main(){int a,b;scanf(\"%d%d\",&a,&b);printf(\"%d\\n\",a+b);}"}
//!     ]}
//! }"##).expect("a valid request");
//! assert_eq!(submission.judge_tasks[1].check_script, CheckScript::Standard);
//! assert_eq!(submission.judge_tasks[1].parent(), Some(0));
//! assert!(submission.validate().is_ok());
//!
//! let result = JudgeTaskResult::with_status(JudgeStatus::Accepted, "");
//! let json = serde_json::to_value(&result).unwrap();
//! assert_eq!(json["status"], "Accepted");
//! assert_eq!(json["score"], "1/1");
//! ```

#[macro_use]
mod wire;

pub mod batch;
pub mod caps;
pub mod data_path;
pub mod judge;
pub mod lab;
pub mod oracle;
pub mod parse;
pub mod pass_at_k;
pub mod reports;
pub mod scenario;
pub mod schema;
pub mod score;
pub mod timestamp;
pub mod validate;

pub use caps::Caps;
pub use data_path::{DataPath, DataPathError, MAX_WRITE_INDEX, PathSegment};
pub use judge::*;
pub use lab::{
    AtomicTask, Evidence, InputMapping, Provenance, RunError, RunMetrics, RunRecord, RunStatus,
    ScenarioTask, ScoreRecord, ScoreTarget, ScoreTargetParseError, ScoreValue, StepStatus,
    StepSummary, TaskMetadata, TaskType, TraceEvent, TraceLevel,
};
pub use oracle::*;
pub use parse::{RequestError, parse_submission, submission_from_value};
pub use reports::*;
pub use scenario::{
    LabValidationError, MapSource, ResolvedMapping, ResolvedSource, ScenarioPlan, parse_target,
};
pub use schema::{schema_files, schemas};
pub use score::{Score, ScoreParseError};
pub use timestamp::{Timestamp, TimestampParseError};
pub use validate::{FieldError, IntoValid, InvalidRequest, Valid, asset_name_problem};
