//! Running a ScenarioTask: its steps in order, each step's `input_map` applied just before it.
//!
//! The whole `input_map` is checked before any step runs ([`ScenarioTask::plan`]): an invalid
//! map fails the run with every problem named and every step skipped. A step fails the run when
//! a mapped value is missing (no value at that path of the source) or cannot be written, or when
//! its runner fails; `error.step` is then the step's id, and the later steps are skipped.
//!
//! Trace: `started`, then per step `step_started`, one `input_mapped` per mapping, the runner's
//! own events (attributed to the step), `step_completed` or `step_failed` (`step_skipped` for
//! the skipped ones), and finally `completed` or `failed`.

use crate::VERDICT_VERSION;
use crate::builder::RunBuilder;
use crate::engine::{Lab, StepRun};
use serde_json::{Map, Value, json};
use verdict_contracts::{
    DataPath, PathSegment, Provenance, ResolvedMapping, ResolvedSource, RunError, RunRecord,
    RunStatus, ScenarioTask, StepStatus, StepSummary, TaskType, TraceLevel,
};

/// How a resolved `from` is shown in the trace (with the step's id).
fn show_from(task: &ScenarioTask, source: &ResolvedSource) -> String {
    match source {
        ResolvedSource::Input { path } => format!("input:{path}"),
        ResolvedSource::Step { index, path } => {
            format!("step:{}.output{}", task.steps[*index].id, suffix(path))
        }
    }
}

/// How a resolved `to` is shown in the trace.
fn show_to(path: &DataPath) -> String {
    format!("input{}", suffix(path))
}

fn suffix(path: &DataPath) -> String {
    match path.segments().first() {
        None => String::new(),
        Some(PathSegment::Index(_)) => path.to_string(),
        Some(PathSegment::Key(_)) => format!(".{path}"),
    }
}

impl Lab {
    pub(crate) async fn execute_scenario(
        &self,
        task: &ScenarioTask,
        input: &Value,
    ) -> (RunRecord, Vec<StepRun>) {
        let mut run = RunBuilder::start_as(&task.id, TaskType::Scenario);
        run.event(
            TraceLevel::Info,
            "started",
            Some(json!({"taskId": task.id, "steps": task.steps.len()})),
        );
        let mut step_provenance = Vec::new();
        let mut summaries = Vec::new();
        let mut step_runs = Vec::new();
        let skipped = |step: &verdict_contracts::AtomicTask| StepSummary {
            step_id: step.id.clone(),
            step_name: step.name.clone(),
            status: StepStatus::Skipped,
            latency: 0.0,
            output: None,
            error: None,
        };

        let plan = match task.plan() {
            Ok(plan) => plan,
            Err(errors) => {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                let mut record = run.fail(
                    RunError::new(format!("invalid scenario: {}", all.join("; "))),
                    None,
                    scenario_provenance(step_provenance),
                );
                record.steps = Some(task.steps.iter().map(skipped).collect());
                return (record, step_runs);
            }
        };

        let mut outputs: Vec<Option<Value>> = vec![None; task.steps.len()];
        let mut failure: Option<RunError> = None;
        for (i, step) in task.steps.iter().enumerate() {
            if failure.is_some() {
                run.event(TraceLevel::Info, "step_skipped", None);
                attribute_last(&mut run, &step.id);
                summaries.push(skipped(step));
                continue;
            }
            run.event(
                TraceLevel::Info,
                "step_started",
                Some(json!({"stepName": step.name, "type": step.kind})),
            );
            attribute_last(&mut run, &step.id);
            let clock = std::time::Instant::now();
            let mut step_task = step.clone();
            if let Err(message) = self.inject(
                task,
                &plan.inputs[i],
                input,
                &outputs,
                &mut step_task,
                &mut run,
            ) {
                run.event(
                    TraceLevel::Error,
                    "step_failed",
                    Some(json!({"error": message})),
                );
                attribute_last(&mut run, &step.id);
                summaries.push(StepSummary {
                    step_id: step.id.clone(),
                    step_name: step.name.clone(),
                    status: StepStatus::Failed,
                    latency: crate::builder::elapsed_ms(clock),
                    output: None,
                    error: Some(message.clone()),
                });
                failure = Some(RunError::new(message).at_step(&step.id));
                continue;
            }

            let record = self.execute_atomic(&step_task).await;
            for mut event in record.trace.iter().cloned() {
                event.step = Some(step.id.clone());
                run.push(event);
            }
            run.add_usage(record.metrics.tokens, record.metrics.cost);
            step_provenance.push(json!({
                "stepId": step.id,
                "runnerId": record.provenance.runner_id,
                "runnerVersion": record.provenance.runner_version,
                "config": record.provenance.config,
            }));
            let ok = record.status == RunStatus::Completed;
            summaries.push(StepSummary {
                step_id: step.id.clone(),
                step_name: step.name.clone(),
                status: if ok {
                    StepStatus::Completed
                } else {
                    StepStatus::Failed
                },
                latency: record.metrics.latency,
                output: record.output.clone(),
                error: record.error.as_ref().map(|e| e.message.clone()),
            });
            if ok {
                outputs[i] = Some(record.output.clone().unwrap_or(Value::Null));
                run.event(
                    TraceLevel::Info,
                    "step_completed",
                    Some(json!({"latency": record.metrics.latency})),
                );
            } else {
                let error = record
                    .error
                    .clone()
                    .unwrap_or_else(|| RunError::new("the step failed"));
                run.event(
                    TraceLevel::Error,
                    "step_failed",
                    Some(json!({"error": error.message})),
                );
                failure = Some(RunError {
                    message: error.message,
                    step: Some(step.id.clone()),
                    stack: error.stack,
                });
            }
            attribute_last(&mut run, &step.id);
            step_runs.push(StepRun {
                task: step_task,
                run: record,
            });
        }

        let provenance = scenario_provenance(step_provenance);
        let mut record = match failure {
            Some(error) => run.fail(error, None, provenance),
            None => {
                let output = outputs.last().cloned().flatten().unwrap_or(Value::Null);
                run.complete(output, provenance)
            }
        };
        record.steps = Some(summaries);
        (record, step_runs)
    }

    /// Applies the mappings into one step's input, recording `input_mapped` for each.
    fn inject(
        &self,
        task: &ScenarioTask,
        mappings: &[ResolvedMapping],
        input: &Value,
        outputs: &[Option<Value>],
        step_task: &mut verdict_contracts::AtomicTask,
        run: &mut RunBuilder,
    ) -> Result<(), String> {
        for mapping in mappings {
            let from = show_from(task, &mapping.source);
            let to = show_to(&mapping.to);
            let value = match &mapping.source {
                ResolvedSource::Input { path } => path.get(input),
                ResolvedSource::Step { index, path } => {
                    outputs[*index].as_ref().and_then(|o| path.get(o))
                }
            };
            let Some(value) = value else {
                let whose = match &mapping.source {
                    ResolvedSource::Input { .. } => {
                        "the scenario's input (metadata.input)".to_owned()
                    }
                    ResolvedSource::Step { index, .. } => {
                        format!("the output of step {:?}", task.steps[*index].id)
                    }
                };
                return Err(format!("input_map: {from} -> {to}: no value in {whose}"));
            };
            mapping
                .to
                .set(&mut step_task.input, value.clone())
                .map_err(|e| format!("input_map: {from} -> {to}: {e}"))?;
            run.event(
                TraceLevel::Info,
                "input_mapped",
                Some(json!({"from": from, "to": to, "value": value})),
            );
            attribute_last(run, &step_task.id);
        }
        Ok(())
    }
}

fn attribute_last(run: &mut RunBuilder, step: &str) {
    run.attribute_last(step);
}

fn scenario_provenance(steps: Vec<Value>) -> Provenance {
    let mut config = Map::new();
    config.insert("steps".into(), Value::Array(steps));
    Provenance::new("scenario", VERDICT_VERSION, config)
}
