//! [`Lab`]: runs a task with its runner and scores the run with its evaluators.

use crate::VERDICT_VERSION;
use crate::builder::RunBuilder;
use crate::registry::Registry;
use crate::tasks::{LabTask, TaskEntry, task_hash};
use crate::traits::Evaluator;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use verdict_contracts::{
    AtomicTask, LabValidationError, Provenance, RunError, RunRecord, ScoreRecord, ScoreTarget,
    TraceEvent, TraceLevel,
};

/// An evaluator that could not score a run (a malformed `extensions.subset`, an unknown
/// evaluator id, an output it cannot read). The run's other scores are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatorFailure {
    /// The task (or scenario step) being scored.
    pub task_id: String,
    /// The evaluator, when one was found.
    pub evaluator_id: Option<String>,
    /// What went wrong.
    pub message: String,
}

/// One finished task: its run record, its scores, and the evaluators that failed.
#[derive(Debug, Clone)]
pub struct LabOutcome {
    /// The run record (status `completed` or `failed`).
    pub run: RunRecord,
    /// Its scores.
    pub scores: Vec<ScoreRecord>,
    /// Evaluators that could not score it.
    pub evaluator_failures: Vec<EvaluatorFailure>,
}

/// The Agent Lab engine: a [`Registry`] of runners and evaluators.
#[derive(Debug, Clone)]
pub struct Lab {
    registry: Arc<Registry>,
    timeout_grace: std::time::Duration,
}

/// A scenario step that ran: its task (inputs injected) and its record.
pub(crate) struct StepRun {
    pub task: AtomicTask,
    pub run: RunRecord,
}

impl Lab {
    /// An engine over `registry`.
    pub fn new(registry: Registry) -> Self {
        Lab {
            registry: Arc::new(registry),
            timeout_grace: std::time::Duration::from_secs(15),
        }
    }

    /// How long after a task's `metadata.timeout` the engine stops waiting for a runner that
    /// does not honour it (default 15 s: the built-in runners stop themselves at the timeout;
    /// the oracle's interpreters get time to start on top).
    pub fn with_timeout_grace(mut self, grace: std::time::Duration) -> Self {
        self.timeout_grace = grace;
        self
    }

    /// The registry in use.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Checks, before anything runs, that every atomic task (and scenario step) has a runner
    /// and valid evaluators, and that a scenario's `input_map` is valid. Each problem names its
    /// field, from the task's top (`steps[1].type`, `metadata.evaluators`).
    pub fn check(&self, task: &LabTask) -> Result<(), Vec<LabValidationError>> {
        let mut errors = Vec::new();
        if let LabTask::Scenario(s) = task {
            if let Err(es) = s.validate() {
                errors.extend(es);
            }
            if let Err(e) = self
                .registry
                .checked_evaluators(&scenario_as_task(s, &Value::Null))
            {
                // A scenario keeps its evaluators in `metadata` (the step tasks' `extensions`).
                let field = e.field.replacen("extensions.", "metadata.", 1);
                errors.push(LabValidationError { field, ..e });
            }
        }
        let steps = task.atomic_tasks();
        let scenario = matches!(task, LabTask::Scenario(_));
        for (i, atomic) in steps.into_iter().enumerate() {
            let at = |field: &str| {
                if scenario {
                    format!("steps[{i}].{field}")
                } else {
                    field.to_owned()
                }
            };
            if self.registry.runner(&atomic.kind).is_none() {
                errors.push(LabValidationError {
                    field: at("type"),
                    message: format!(
                        "no runner for type {:?} (give the lab a runner for it, or a fallback agent)",
                        atomic.kind
                    ),
                });
            }
            if let Err(e) = self.registry.checked_evaluators(atomic) {
                errors.push(LabValidationError {
                    field: at(&e.field),
                    ..e
                });
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Runs a task read from a file (its hash and unknown fields known) and scores it.
    pub async fn run_entry(&self, entry: &TaskEntry) -> LabOutcome {
        let mut outcome = self.run_hashed(&entry.task, &entry.hash).await;
        if !entry.unknown_fields.is_empty() {
            let event = TraceEvent::new(outcome.run.started_at, TraceLevel::Warn, "unknown_fields")
                .with_data(json!({
                    "fields": entry.unknown_fields,
                    "note": "ignored: module fields belong in extensions",
                }));
            let at = 1.min(outcome.run.trace.len());
            outcome.run.trace.insert(at, event);
        }
        outcome
    }

    /// Runs `task` and scores the run. Never fails: a task that cannot run is a `failed` record.
    pub async fn run(&self, task: &LabTask) -> LabOutcome {
        self.run_hashed(task, &task_hash(task)).await
    }

    async fn run_hashed(&self, task: &LabTask, hash: &str) -> LabOutcome {
        match task {
            LabTask::Atomic(atomic) => {
                let mut run = self.execute_atomic(atomic).await;
                run.provenance = run.provenance.with_verdict(VERDICT_VERSION, hash);
                let (scores, evaluator_failures) = self.score(&run, atomic).await;
                LabOutcome {
                    run,
                    scores,
                    evaluator_failures,
                }
            }
            LabTask::Scenario(scenario) => {
                let input = scenario
                    .metadata
                    .get("input")
                    .cloned()
                    .unwrap_or(Value::Null);
                let (mut run, steps) = self.execute_scenario(scenario, &input).await;
                run.provenance = run.provenance.with_verdict(VERDICT_VERSION, hash);
                let (scores, evaluator_failures) =
                    self.score_scenario(&run, scenario, &input, &steps).await;
                LabOutcome {
                    run,
                    scores,
                    evaluator_failures,
                }
            }
        }
    }

    /// Runs an atomic task with the runner of its type (no scoring).
    pub async fn run_atomic(&self, task: &AtomicTask) -> RunRecord {
        let mut run = self.execute_atomic(task).await;
        let hash = task_hash(&LabTask::Atomic(task.clone()));
        run.provenance = run.provenance.with_verdict(VERDICT_VERSION, hash);
        run
    }

    /// Runs a scenario with `input` as its run input (no scoring); see `docs/agent-lab.md`.
    pub async fn run_scenario(
        &self,
        task: &verdict_contracts::ScenarioTask,
        input: &Value,
    ) -> RunRecord {
        let (mut run, _) = self.execute_scenario(task, input).await;
        let hash = task_hash(&LabTask::Scenario(task.clone()));
        run.provenance = run.provenance.with_verdict(VERDICT_VERSION, hash);
        run
    }

    pub(crate) async fn execute_atomic(&self, task: &AtomicTask) -> RunRecord {
        let Some(entry) = self.registry.entry(&task.kind) else {
            let run = RunBuilder::start(task);
            let error = RunError::new(format!(
                "no runner for type {:?} (task {:?})",
                task.kind, task.id
            ))
            .at_step("select_runner");
            return run.fail(error, None, Provenance::new("none", "", Map::new()));
        };
        let runner = entry.runner.clone();
        let config = entry.config.clone();
        let provenance = Provenance::new(runner.id(), runner.version(), config_map(&config));
        let owned = task.clone();
        // A runner of one's own may panic or hang: that fails this run, not the others.
        let mut handle = tokio::spawn(async move { runner.execute(&owned, &config).await });
        // A run whose caller is gone (its request timed out) stops with it: the runner's
        // future is dropped, and the built-in runners stop their boxes then.
        let _stop_with_caller = AbortOnDrop(handle.abort_handle());
        let joined = match task.timeout_ms() {
            None => (&mut handle).await,
            Some(ms) => {
                let limit = std::time::Duration::from_millis(ms) + self.timeout_grace;
                match tokio::time::timeout(limit, &mut handle).await {
                    Ok(joined) => joined,
                    Err(_) => {
                        handle.abort();
                        let message = format!(
                            "runner {:?} did not finish within {} ms (metadata.timeout {ms} ms and a grace period)",
                            provenance.runner_id,
                            limit.as_millis()
                        );
                        return RunBuilder::start(task).fail(
                            RunError::new(message).at_step("execute"),
                            None,
                            provenance,
                        );
                    }
                }
            }
        };
        let failure = match joined {
            Ok(Ok(run)) => return run,
            Ok(Err(e)) => e.to_string(),
            Err(e) if e.is_panic() => format!("runner {:?} panicked", provenance.runner_id),
            Err(e) => format!("runner {:?} was cancelled: {e}", provenance.runner_id),
        };
        RunBuilder::start(task).fail(RunError::new(failure).at_step("execute"), None, provenance)
    }

    /// Scores `run` of `task` with the task's evaluators.
    pub async fn score(
        &self,
        run: &RunRecord,
        task: &AtomicTask,
    ) -> (Vec<ScoreRecord>, Vec<EvaluatorFailure>) {
        let mut scores = Vec::new();
        let mut failures = Vec::new();
        let ids = match self.registry.evaluators_for(task) {
            Ok(ids) => ids,
            Err(e) => {
                failures.push(EvaluatorFailure {
                    task_id: task.id.clone(),
                    evaluator_id: None,
                    message: e.to_string(),
                });
                return (scores, failures);
            }
        };
        for id in ids {
            let Some(evaluator) = self.registry.evaluator(&id) else {
                continue;
            };
            match evaluate_guarded(evaluator.clone(), run, task).await {
                Ok(mut s) => {
                    for score in &mut s {
                        score.run_id = run.id.clone();
                    }
                    scores.extend(s);
                }
                Err(message) => failures.push(EvaluatorFailure {
                    task_id: task.id.clone(),
                    evaluator_id: Some(id),
                    message,
                }),
            }
        }
        (scores, failures)
    }

    async fn score_scenario(
        &self,
        run: &RunRecord,
        scenario: &verdict_contracts::ScenarioTask,
        input: &Value,
        steps: &[StepRun],
    ) -> (Vec<ScoreRecord>, Vec<EvaluatorFailure>) {
        let mut scores = Vec::new();
        let mut failures = Vec::new();
        for step in steps {
            let (mut s, f) = self.score(&step.run, &step.task).await;
            for score in &mut s {
                score.run_id = run.id.clone();
                score.target = ScoreTarget::Step(step.task.id.clone());
            }
            scores.extend(s);
            failures.extend(f);
        }
        // The scenario as a whole: its final output against `metadata.expected`, its latency.
        let whole = scenario_as_task(scenario, input);
        let (s, f) = self.score(run, &whole).await;
        scores.extend(s);
        failures.extend(f);
        let total = scenario.steps.len();
        let done = steps
            .iter()
            .filter(|s| s.run.status == verdict_contracts::RunStatus::Completed)
            .count();
        scores.push(crate::builder::score_record(
            &run.id,
            "scenario",
            "steps_completed",
            if total == 0 {
                0.0
            } else {
                done as f64 / total as f64
            },
            ScoreTarget::Global,
            Some(verdict_contracts::Evidence {
                explanation: Some(format!("{done} of {total} steps completed")),
                ..Default::default()
            }),
        ));
        (scores, failures)
    }
}

/// A scenario as the task its evaluators see: `metadata.input` as input, `metadata.expected`,
/// and `metadata.evaluators` / `metadata.subset` as extensions.
fn scenario_as_task(scenario: &verdict_contracts::ScenarioTask, input: &Value) -> AtomicTask {
    let mut extensions = Map::new();
    for key in [crate::EVALUATORS_KEY, crate::SubsetEvaluator::ID] {
        if let Some(v) = scenario.metadata.get(key) {
            extensions.insert(key.into(), v.clone());
        }
    }
    AtomicTask {
        id: scenario.id.clone(),
        name: scenario.name.clone(),
        kind: "scenario".into(),
        input: input.clone(),
        expected: scenario.metadata.get("expected").cloned(),
        context: None,
        metadata: Default::default(),
        extensions: (!extensions.is_empty()).then_some(extensions),
    }
}

async fn evaluate_guarded(
    evaluator: Arc<dyn Evaluator>,
    run: &RunRecord,
    task: &AtomicTask,
) -> Result<Vec<ScoreRecord>, String> {
    let run = run.clone();
    let task = task.clone();
    let id = evaluator.id().to_owned();
    match tokio::spawn(async move { evaluator.evaluate(&run, &task).await }).await {
        Ok(Ok(scores)) => Ok(scores),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("evaluator {id:?} panicked")),
    }
}

/// A runner's `config` as a provenance map.
fn config_map(config: &Value) -> Map<String, Value> {
    let mut map = Map::new();
    crate::command::merge_config(&mut map, config);
    map
}

/// Aborts a spawned task when dropped (a no-op once it finished).
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
