//! What the lab tests share: the test kit's judge (one per test binary), the example agent
//! and a lab around it, task builders and score and trace readers.

use serde_json::{Value, json};
use std::sync::Arc;
use verdict_contracts::{RunRecord, RunStatus, ScoreRecord};
use verdict_lab::{CommandRunner, Lab, LabOutcome, LabTask, Registry, parse_tasks};

pub use verdict_testkit::{judge, repo_root, runtime};

pub fn agent() -> CommandRunner {
    let script = repo_root().join("examples/lab/agent/agent.py");
    CommandRunner::new("*", vec!["python3".into(), script.display().to_string()])
        .unwrap()
        .default_timeout_ms(20_000)
}

/// A lab whose every type runs the example agent.
pub fn lab() -> Lab {
    let mut registry = Registry::new();
    registry.set_fallback(Arc::new(agent()), Value::Null);
    Lab::new(registry)
}

pub fn seed_tasks() -> Vec<LabTask> {
    let text = std::fs::read_to_string(repo_root().join("examples/lab/tasks.json")).unwrap();
    parse_tasks(&text)
        .unwrap()
        .into_iter()
        .map(|e| e.task)
        .collect()
}

/// Runs seed task `index` on [`lab`] and checks that the run completed; the task and outcome.
pub fn completed_seed_run(index: usize) -> (LabTask, LabOutcome) {
    let task = seed_tasks().swap_remove(index);
    let out = run(&lab(), &task);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    (task, out)
}

pub fn task(value: Value) -> LabTask {
    LabTask::from_value(value).unwrap()
}

pub fn run(lab: &Lab, task: &LabTask) -> LabOutcome {
    runtime().block_on(lab.run(task))
}

pub fn score<'a>(scores: &'a [ScoreRecord], metric: &str, target: &str) -> &'a ScoreRecord {
    scores
        .iter()
        .find(|s| s.metric == metric && s.target.to_string() == target)
        .unwrap_or_else(|| panic!("no {metric} score for {target}: {scores:#?}"))
}

/// The engine's own events of a scenario run, as `event@step`.
pub fn engine_events(run: &RunRecord) -> Vec<String> {
    const ENGINE: [&str; 8] = [
        "started",
        "step_started",
        "input_mapped",
        "step_completed",
        "step_failed",
        "step_skipped",
        "completed",
        "failed",
    ];
    run.trace
        .iter()
        .filter(|e| ENGINE.contains(&e.event.as_str()))
        // A step runner's own started/completed carry the step too; keep the scenario's.
        .filter(|e| {
            e.step.is_none() || !matches!(e.event.as_str(), "started" | "completed" | "failed")
        })
        .map(|e| match &e.step {
            Some(step) => format!("{}@{step}", e.event),
            None => e.event.clone(),
        })
        .collect()
}

/// An atomic task of `kind`, with `metadata.timeout` when given.
pub fn atomic(id: &str, kind: &str, input: Value, timeout: Option<u64>) -> LabTask {
    let mut metadata = json!({});
    if let Some(ms) = timeout {
        metadata["timeout"] = json!(ms);
    }
    task(json!({"id": id, "name": id, "type": kind, "input": input, "metadata": metadata}))
}

/// The message of the run's error; empty when it has none.
pub fn error_message(out: &LabOutcome) -> &str {
    out.run.error.as_ref().map_or("", |e| e.message.as_str())
}
