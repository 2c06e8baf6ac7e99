//! [`Registry`]: which runner runs a task's `type`, and which evaluators score it.

use crate::evaluators::{BUILT_IN, JUDGED_DEFAULT, OTHER_DEFAULT};
use crate::oracle::OracleRunner;
use crate::programming::ProgrammingRunner;
use crate::traits::{Evaluator, LabError, Runner};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use verdict_contracts::oracle::DeliverableType;
use verdict_contracts::{AtomicTask, LabValidationError};
use verdict_oracle::OracleOptions;
use verdict_scheduler::Judge;

/// The task types whose runners produce a report for the `judge` evaluator.
pub const JUDGED_TYPES: [&str; 4] = ["function", "script", "cli", "programming"];

/// The extension key where a task names its evaluators (an array of evaluator ids).
pub const EVALUATORS_KEY: &str = "evaluators";

/// A runner and the configuration passed to its `execute`.
#[derive(Clone)]
pub(crate) struct RunnerEntry {
    pub runner: Arc<dyn Runner>,
    pub config: Value,
}

/// Runners by task type, a fallback runner, and evaluators by id.
///
/// [`Registry::new`] holds the four built-in evaluators and no runner;
/// [`Registry::with_judge`] adds the `function`, `script`, `cli` and `programming` runners.
#[derive(Clone)]
pub struct Registry {
    runners: HashMap<String, RunnerEntry>,
    fallback: Option<RunnerEntry>,
    evaluators: BTreeMap<String, Arc<dyn Evaluator>>,
    evaluators_by_type: HashMap<String, Vec<String>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut runners: Vec<_> = self
            .runners
            .iter()
            .map(|(t, e)| format!("{t}={}", e.runner.id()))
            .collect();
        runners.sort();
        f.debug_struct("Registry")
            .field("runners", &runners)
            .field(
                "fallback",
                &self.fallback.as_ref().map(|e| e.runner.id().to_owned()),
            )
            .field("evaluators", &self.evaluators.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl Registry {
    /// The built-in evaluators (`exact`, `subset`, `judge`, `latency`) and no runner.
    pub fn new() -> Self {
        let mut registry = Registry {
            runners: HashMap::new(),
            fallback: None,
            evaluators: BTreeMap::new(),
            evaluators_by_type: HashMap::new(),
        };
        for make in BUILT_IN {
            registry.register_evaluator(make());
        }
        registry
    }

    /// Adds the `function`, `script` and `cli` runners (the Task Oracle in `judge`'s sandbox)
    /// and the `programming` runner (`judge`'s pipeline).
    pub fn with_judge(mut self, judge: &Judge, options: OracleOptions) -> Self {
        for kind in [
            DeliverableType::Function,
            DeliverableType::Script,
            DeliverableType::Cli,
        ] {
            self.register_runner(Arc::new(OracleRunner::new(
                kind,
                judge.clone(),
                options.clone(),
            )));
        }
        self.register_runner(Arc::new(ProgrammingRunner::new(judge.clone())));
        self
    }

    /// Registers `runner` for its own [`Runner::task_type`] (replacing any other).
    pub fn register_runner(&mut self, runner: Arc<dyn Runner>) -> &mut Self {
        let task_type = runner.task_type().to_owned();
        self.register_runner_for(task_type, runner, Value::Null)
    }

    /// Registers `runner` for tasks of `task_type`, passing `config` to each `execute`.
    pub fn register_runner_for(
        &mut self,
        task_type: impl Into<String>,
        runner: Arc<dyn Runner>,
        config: Value,
    ) -> &mut Self {
        self.runners
            .insert(task_type.into(), RunnerEntry { runner, config });
        self
    }

    /// Runs every type that no registered runner takes with `runner`.
    pub fn set_fallback(&mut self, runner: Arc<dyn Runner>, config: Value) -> &mut Self {
        self.fallback = Some(RunnerEntry { runner, config });
        self
    }

    /// Registers `evaluator` under its [`Evaluator::id`] (replacing a built-in of that id).
    pub fn register_evaluator(&mut self, evaluator: Arc<dyn Evaluator>) -> &mut Self {
        self.evaluators.insert(evaluator.id().to_owned(), evaluator);
        self
    }

    /// The evaluators of tasks of `task_type` (`"*"`: every type without a list of its own)
    /// when the task names none.
    pub fn set_evaluators_for(
        &mut self,
        task_type: impl Into<String>,
        ids: Vec<String>,
    ) -> &mut Self {
        self.evaluators_by_type.insert(task_type.into(), ids);
        self
    }

    /// The runner of `task_type`: its own, else the fallback.
    pub fn runner(&self, task_type: &str) -> Option<&Arc<dyn Runner>> {
        self.entry(task_type).map(|e| &e.runner)
    }

    pub(crate) fn entry(&self, task_type: &str) -> Option<&RunnerEntry> {
        self.runners.get(task_type).or(self.fallback.as_ref())
    }

    /// The evaluator with this id.
    pub fn evaluator(&self, id: &str) -> Option<&Arc<dyn Evaluator>> {
        self.evaluators.get(id)
    }

    /// The ids of the registered evaluators.
    pub fn evaluator_ids(&self) -> Vec<&str> {
        self.evaluators.keys().map(String::as_str).collect()
    }

    /// The evaluator ids that score `task`: its `extensions.evaluators`, else the list set for
    /// its type (or `"*"`), else `judge` + `latency` for the judged types and `subset` +
    /// `latency` for the others. An unknown id or a malformed list is an error naming the task.
    pub fn evaluators_for(&self, task: &AtomicTask) -> Result<Vec<String>, LabError> {
        self.checked_evaluators(task)
            .map_err(|e| LabError::InvalidTask {
                task_id: task.id.clone(),
                message: e.to_string(),
            })
    }

    /// [`Registry::evaluators_for`], its error naming the field
    /// (`extensions.evaluators`) apart from the message.
    pub fn checked_evaluators(&self, task: &AtomicTask) -> Result<Vec<String>, LabValidationError> {
        let field = format!("extensions.{EVALUATORS_KEY}");
        let invalid = |message: String| LabValidationError {
            field: field.clone(),
            message,
        };
        let ids: Vec<String> = match task.extensions.as_ref().and_then(|e| e.get(EVALUATORS_KEY)) {
            Some(list) => serde_json::from_value(list.clone())
                .map_err(|_| invalid(format!("must be an array of evaluator ids, got {list}")))?,
            None => match self
                .evaluators_by_type
                .get(&task.kind)
                .or_else(|| self.evaluators_by_type.get("*"))
            {
                Some(ids) => ids.clone(),
                None if JUDGED_TYPES.contains(&task.kind.as_str()) => {
                    JUDGED_DEFAULT.map(str::to_owned).to_vec()
                }
                None => OTHER_DEFAULT.map(str::to_owned).to_vec(),
            },
        };
        for id in &ids {
            if !self.evaluators.contains_key(id) {
                return Err(invalid(format!(
                    "no evaluator {id:?} (known: {})",
                    self.evaluator_ids().join(", ")
                )));
            }
        }
        Ok(ids)
    }
}
