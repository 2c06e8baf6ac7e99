//! A user-defined Runner and Evaluator plugged into the Agent Lab engine.
//!
//! `cargo run -p verdict-lab --example custom_evaluator` runs the seed's intent task with
//! an in-process runner (`keyword-agent`, a stand-in for a model call) and scores it with a
//! custom evaluator (`label_f1`) next to the built-in `subset` and `latency`.
//! See `examples/lab/custom-evaluator/README.md`.

#![allow(clippy::print_stdout)]

use async_trait::async_trait;
use serde_json::{Value, json};
use std::sync::Arc;
use verdict_contracts::{
    AtomicTask, Evidence, Provenance, RunRecord, RunStatus, ScoreRecord, ScoreTarget, TraceLevel,
};
use verdict_lab::{Evaluator, Lab, LabError, LabTask, Registry, RunBuilder, Runner, score_record};

/// A runner of one's own: classifies the input sentence by keywords.
struct KeywordAgent;

#[async_trait]
impl Runner for KeywordAgent {
    fn id(&self) -> &str {
        "keyword-agent"
    }
    fn task_type(&self) -> &str {
        "intent"
    }
    fn version(&self) -> &str {
        "1.0.0"
    }
    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        // RunBuilder records `started` now and `completed`/`failed` at the end (rule 2).
        let mut run = RunBuilder::start(task);
        let provenance = Provenance::new(
            self.id(),
            self.version(),
            config.as_object().cloned().unwrap_or_default(),
        );
        let Some(text) = task.input.as_str() else {
            // A task this runner cannot take is an error of the task (rule 3: name the field).
            return Err(LabError::InvalidTask {
                task_id: task.id.clone(),
                message: "input: must be a sentence".into(),
            });
        };
        run.event(TraceLevel::Debug, "classify", Some(json!({"text": text})));
        run.add_usage(Some(text.chars().count() as u64), Some(0.0));
        let output = if text.contains("机票") {
            json!({"intent": "book_flight", "confidence": 0.92, "labels": ["booking", "flight"]})
        } else {
            json!({"intent": "unknown", "confidence": 0.1, "labels": []})
        };
        Ok(run.complete(output, provenance))
    }
}

/// An evaluator of one's own: F1 of `output.labels` against `extensions.labels`.
struct LabelF1;

#[async_trait]
impl Evaluator for LabelF1 {
    fn id(&self) -> &str {
        "label_f1"
    }
    fn metrics(&self) -> Vec<String> {
        vec!["label_f1".into()]
    }
    async fn evaluate(
        &self,
        run: &RunRecord,
        task: &AtomicTask,
    ) -> Result<Vec<ScoreRecord>, LabError> {
        // Module fields live in `extensions` (rule 1).
        let wanted: Vec<String> = match task.extensions.as_ref().and_then(|e| e.get("labels")) {
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| LabError::InvalidTask {
                task_id: task.id.clone(),
                message: "extensions.labels: must be an array of strings".into(),
            })?,
            None => return Ok(Vec::new()),
        };
        let got: Vec<String> = match (&run.output, run.status) {
            (Some(out), RunStatus::Completed) => out
                .get("labels")
                .and_then(|l| serde_json::from_value(l.clone()).ok())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let hits = got.iter().filter(|l| wanted.contains(l)).count() as f64;
        let f1 = if got.is_empty() || wanted.is_empty() {
            0.0
        } else {
            let (p, r) = (hits / got.len() as f64, hits / wanted.len() as f64);
            if p + r == 0.0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            }
        };
        let evidence = Evidence {
            explanation: Some(format!("{hits} of {} labels found", wanted.len())),
            snippets: Some(vec![
                format!("expected: {wanted:?}"),
                format!("actual: {got:?}"),
            ]),
            alignment: None,
        };
        Ok(vec![score_record(
            &run.id,
            self.id(),
            "label_f1",
            f1,
            ScoreTarget::Final,
            Some(evidence),
        )])
    }
}

/// Runs the seed's intent task with both, checks the scores, and returns the outcome.
async fn demo() -> Result<verdict_lab::LabOutcome, Box<dyn std::error::Error>> {
    let mut registry = Registry::new();
    registry.register_runner_for("intent", Arc::new(KeywordAgent), json!({"threshold": 0.5}));
    registry.register_evaluator(Arc::new(LabelF1));
    let lab = Lab::new(registry);

    let task = LabTask::from_value(json!({
        "id": "task-001",
        "name": "识别订票意图",
        "type": "intent",
        "input": "我想订一张明天去北京的机票",
        "expected": {"intent": "book_flight", "confidence": 0.9},
        "metadata": {"tags": ["intent", "booking"], "priority": 1, "timeout": 5000},
        "extensions": {
            "labels": ["booking", "flight", "beijing"],
            "evaluators": ["subset", "label_f1", "latency"],
            "subset": {"numbers": {"confidence": "min"}}
        }
    }))?;
    if let Err(problems) = lab.check(&task) {
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        return Err(problems.join("\n").into());
    }
    let outcome = lab.run(&task).await;
    assert_eq!(outcome.run.status, RunStatus::Completed);
    assert_eq!(outcome.run.provenance.runner_id, "keyword-agent");
    let f1 = outcome
        .scores
        .iter()
        .find(|s| s.metric == "label_f1")
        .expect("label_f1 score");
    assert_eq!(f1.value, verdict_contracts::ScoreValue::Number(0.8));
    Ok(outcome)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let outcome = demo().await?;
    println!("{}", serde_json::to_string(&outcome.run)?);
    for score in &outcome.scores {
        println!("{}", serde_json::to_string(score)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// `cargo test` runs the example (`test = true` in Cargo.toml).
    #[tokio::test]
    async fn custom_runner_and_evaluator_score_the_seed_task() {
        let outcome = super::demo().await.unwrap();
        assert_eq!(outcome.scores.len(), 6);
        assert!(outcome.evaluator_failures.is_empty());
    }
}
