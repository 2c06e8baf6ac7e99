//! Runners of one's own plugged into the registry: one that panics, one that never ends, one
//! built with `RunBuilder`.

use crate::common::{atomic, error_message, run, score, task};
use serde_json::{Value, json};
use std::sync::Arc;
use verdict_contracts::{AtomicTask, RunRecord, RunStatus, ScoreValue};
use verdict_lab::{Lab, LabError, Registry, RunBuilder, Runner};

/// A runner of one's own that never gives a run back.
enum Misbehaving {
    /// `panicky`, of type `boom`: panics.
    Panics,
    /// `hangs`, of type `hang`: never ends.
    Hangs,
}

#[async_trait::async_trait]
impl Runner for Misbehaving {
    fn id(&self) -> &str {
        match self {
            Misbehaving::Panics => "panicky",
            Misbehaving::Hangs => "hangs",
        }
    }
    fn task_type(&self) -> &str {
        match self {
            Misbehaving::Panics => "boom",
            Misbehaving::Hangs => "hang",
        }
    }
    fn version(&self) -> &str {
        "1"
    }
    async fn execute(&self, _task: &AtomicTask, _config: &Value) -> Result<RunRecord, LabError> {
        match self {
            Misbehaving::Panics => panic!("boom"),
            Misbehaving::Hangs => std::future::pending().await,
        }
    }
}

/// A runner of one's own built with RunBuilder.
struct Upper;

#[async_trait::async_trait]
impl Runner for Upper {
    fn id(&self) -> &str {
        "upper"
    }
    fn task_type(&self) -> &str {
        "upper"
    }
    fn version(&self) -> &str {
        "2.0.0"
    }
    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        let mut run = RunBuilder::start(task);
        let text = task.input.as_str().ok_or_else(|| LabError::InvalidTask {
            task_id: task.id.clone(),
            message: "input: must be a string".into(),
        })?;
        run.event(verdict_contracts::TraceLevel::Debug, "uppercased", None);
        let provenance = verdict_contracts::Provenance::new(
            self.id(),
            self.version(),
            config.as_object().cloned().unwrap_or_default(),
        );
        Ok(run.complete(json!(text.to_uppercase()), provenance))
    }
}

#[test]
fn custom_runners_plug_in_and_a_panic_fails_only_its_run() {
    let mut registry = Registry::new();
    registry.register_runner(Arc::new(Misbehaving::Panics));
    registry.register_runner_for("upper", Arc::new(Upper), json!({"mode": "ascii"}));
    let lab = Lab::new(registry);
    let out = run(&lab, &atomic("p", "boom", json!(1), None));
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(error_message(&out), "runner \"panicky\" panicked");
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("execute")
    );
    let t = task(
        json!({"id": "u", "name": "u", "type": "upper", "input": "abc", "expected": "ABC",
        "metadata": {}, "extensions": {"evaluators": ["exact"]}}),
    );
    let out = run(&lab, &t);
    assert_eq!(out.run.output, Some(json!("ABC")));
    assert_eq!(out.run.provenance.runner_version, "2.0.0");
    assert_eq!(out.run.provenance.config["mode"], "ascii");
    assert!(out.run.provenance.task_hash().is_some());
    assert_eq!(out.scores.len(), 1);
    assert_eq!(
        score(&out.scores, "exact_match", "final").value,
        ScoreValue::Bool(true)
    );
    let out = run(&lab, &atomic("u2", "upper", json!(5), None));
    assert_eq!(
        error_message(&out),
        "invalid task \"u2\": input: must be a string"
    );

    let mut registry = Registry::new();
    registry.register_runner(Arc::new(Misbehaving::Hangs));
    let lab = Lab::new(registry).with_timeout_grace(std::time::Duration::from_millis(100));
    let out = run(&lab, &atomic("h", "hang", json!(1), Some(100)));
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        error_message(&out),
        "runner \"hangs\" did not finish within 200 ms (metadata.timeout 100 ms and a grace period)"
    );
}
