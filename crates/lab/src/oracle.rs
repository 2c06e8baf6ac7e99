//! The `function`, `script` and `cli` runners: the task is one Task Oracle test case.
//!
//! - `input`: the case's `input` (function: the args list; script: `{stdin?, files?}`; cli:
//!   `{argv, stdin?, files?}`), `expected`: the case's `expected`.
//! - `extensions.deliverable`: the deliverable, as a suite spells it (design #17):
//!   `{language, entry_point, source_files, timeout_ms?, float_tolerance?, deliverable_type?}`
//!   (`deliverable_type`, when given, must be the task's `type`).
//! - `metadata.timeout` (ms), when given, is the case's time limit (else `timeout_ms`).
//!
//! The output is the oracle's report for the one case (`{results: [...], summary}`), whatever
//! the case's status; the `judge` evaluator scores it. A case that cannot be run at all (a
//! malformed deliverable, an `invalid_test_format` case) fails the run, naming the field.

use crate::VERDICT_VERSION;
use crate::builder::RunBuilder;
use crate::command::merge_config;
use crate::traits::{LabError, Runner};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use verdict_contracts::oracle::{DeliverableType, OracleCaseStatus, suite_from_value};
use verdict_contracts::{AtomicTask, Provenance, RunError, RunRecord, TraceLevel};
use verdict_oracle::{OracleOptions, run_suite};
use verdict_scheduler::Judge;
use verdict_scripts::CancelToken;

/// The extension key holding the deliverable.
pub const DELIVERABLE_KEY: &str = "deliverable";

/// Runs a task as one Task Oracle case through the judge's executor (ids `function`, `script`, `cli`).
#[derive(Debug, Clone)]
pub struct OracleRunner {
    kind: DeliverableType,
    judge: Judge,
    options: OracleOptions,
}

impl OracleRunner {
    /// A runner for `kind` deliverables, run through `judge`'s executor.
    pub fn new(kind: DeliverableType, judge: Judge, options: OracleOptions) -> Self {
        OracleRunner {
            kind,
            judge,
            options,
        }
    }

    /// The one-case suite of `task`, or the field at fault.
    fn suite(&self, task: &AtomicTask) -> Result<verdict_contracts::TestSuite, String> {
        let deliverable = task
            .extensions
            .as_ref()
            .and_then(|e| e.get(DELIVERABLE_KEY))
            .ok_or_else(|| {
                format!(
                    "extensions.{DELIVERABLE_KEY}: missing (a {} task needs {{language, entry_point, source_files}})",
                    self.kind.as_str()
                )
            })?;
        let Value::Object(mut suite) = deliverable.clone() else {
            return Err(format!(
                "extensions.{DELIVERABLE_KEY}: must be a JSON object"
            ));
        };
        match suite.get("deliverable_type") {
            None => {
                suite.insert("deliverable_type".into(), json!(self.kind.as_str()));
            }
            Some(Value::String(s)) if s == self.kind.as_str() => {}
            Some(other) => {
                return Err(format!(
                    "extensions.{DELIVERABLE_KEY}.deliverable_type: {other} does not match the task's type {:?}",
                    self.kind.as_str()
                ));
            }
        }
        if suite.contains_key("test_cases") {
            return Err(format!(
                "extensions.{DELIVERABLE_KEY}.test_cases: not allowed; the case is the task's input and expected"
            ));
        }
        if let Some(ms) = task.timeout_ms() {
            suite.insert("timeout_ms".into(), json!(ms));
        }
        suite.insert(
            "test_cases".into(),
            json!([{
                "name": task.id,
                "input": task.input,
                "expected": task.expected.clone().unwrap_or(Value::Null),
            }]),
        );
        suite_from_value(Value::Object(suite)).map_err(|e| {
            match e.field.strip_prefix("test_cases[0].") {
                Some(field) => format!("{field}: {}", e.message),
                None => format!("extensions.{DELIVERABLE_KEY}.{}: {}", e.field, e.message),
            }
        })
    }
}

#[async_trait]
impl Runner for OracleRunner {
    fn id(&self) -> &str {
        self.kind.as_str()
    }
    fn task_type(&self) -> &str {
        self.kind.as_str()
    }
    fn version(&self) -> &str {
        VERDICT_VERSION
    }

    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        let mut run = RunBuilder::start(task);
        let suite = match self.suite(task) {
            Ok(suite) => suite,
            Err(message) => {
                let provenance = Provenance::new(self.id(), self.version(), Map::new());
                return Ok(run.fail(
                    RunError::new(message).at_step("build_case"),
                    None,
                    provenance,
                ));
            }
        };
        let mut map = Map::new();
        map.insert("language".into(), json!(suite.language));
        map.insert("entryPoint".into(), json!(suite.entry_point));
        map.insert(
            "timeoutMs".into(),
            json!(suite.timeout_ms.unwrap_or(self.options.default_timeout_ms)),
        );
        merge_config(&mut map, config);
        let provenance = Provenance::new(self.id(), self.version(), map);
        run.event(
            TraceLevel::Debug,
            "oracle_started",
            Some(json!({"language": suite.language, "entry_point": suite.entry_point})),
        );
        let judge = self.judge.clone();
        let options = self.options.clone();
        // Dropped before the end (the caller gone): the case's boxes are killed at once.
        let cancel = CancelToken::new();
        let _stop_with_caller = cancel.cancel_on_drop();
        let report = tokio::task::spawn_blocking(move || {
            run_suite(judge.executor(), &cancel, &suite, &options)
        })
        .await
        .map_err(|e| LabError::Failed(format!("oracle thread failed: {e}")))?;
        let report = match report {
            Ok(report) => report,
            Err(e) => {
                let error = RunError::new(e.to_string()).at_step("run_oracle");
                return Ok(run.fail(error, None, provenance));
            }
        };
        let Some(case) = report.results.first() else {
            return Err(LabError::Failed("the oracle returned no result".into()));
        };
        let level = match case.status {
            OracleCaseStatus::Passed => TraceLevel::Info,
            _ => TraceLevel::Warn,
        };
        run.event(
            level,
            "oracle_case",
            Some(json!({"status": case.status, "time_ms": case.time_ms, "message": case.message})),
        );
        if case.status == OracleCaseStatus::InvalidTestFormat {
            let message = case
                .message
                .clone()
                .unwrap_or_else(|| "invalid_test_format".into());
            return Ok(run.fail(
                RunError::new(message).at_step("build_case"),
                None,
                provenance,
            ));
        }
        let output = serde_json::to_value(&report)
            .map_err(|e| LabError::Failed(format!("cannot serialise the oracle report: {e}")))?;
        Ok(run.complete(output, provenance))
    }
}
