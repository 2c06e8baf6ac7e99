//! The built-in evaluators: `exact`, `subset`, `judge` and `latency`.
//!
//! | id | metrics | target | what |
//! |---|---|---|---|
//! | `exact` | `exact_match` (bool) | `final` | the output equals `expected` (numbers by value) |
//! | `subset` | `subset_match` (bool), `field_accuracy` (0..1) | `final` | every field of `expected` is in the output and equal; numbers by a [`NumberRule`] |
//! | `judge` | `judge_score` (0..1), `judge_passed` (bool) | `final` | the score of a JudgeReport (sum of `n/d`) or of an oracle report (passed / total) |
//! | `latency` | `latency` (ms), `tokens`, `cost` when reported | `global` | the run's metrics |
//!
//! A task without `expected` gets no `exact` or `subset` score. A failed run scores `false`/0
//! with the run's error as the explanation.
//!
//! Adding one: its file here (its type implementing [`Evaluator`] with its `ID`), a `mod` line
//! and a line of [`BUILT_IN`].

mod exact;
mod judge;
mod latency;
mod subset;

pub use exact::ExactEvaluator;
pub use judge::JudgeEvaluator;
pub use latency::LatencyEvaluator;
pub use subset::{NumberRule, SubsetConfig, SubsetEvaluator};

use crate::traits::Evaluator;
use serde_json::Value;
use std::sync::Arc;
use verdict_contracts::RunRecord;

/// The built-in evaluators, as [`Registry::new`](crate::Registry::new) registers them (each
/// under its own [`Evaluator::id`]): adding one is its type and a line here.
pub const BUILT_IN: &[fn() -> Arc<dyn Evaluator>] = &[
    || Arc::new(ExactEvaluator),
    || Arc::new(SubsetEvaluator::new(SubsetConfig::default())),
    || Arc::new(JudgeEvaluator),
    || Arc::new(LatencyEvaluator),
];

/// The evaluators of a task of a judged type (`JUDGED_TYPES`) that names none.
pub const JUDGED_DEFAULT: [&str; 2] = [JudgeEvaluator::ID, LatencyEvaluator::ID];

/// The evaluators of any other task that names none.
pub const OTHER_DEFAULT: [&str; 2] = [SubsetEvaluator::ID, LatencyEvaluator::ID];

pub(super) fn failed_explanation(run: &RunRecord) -> String {
    match &run.error {
        Some(e) => match &e.step {
            Some(step) => format!("the run failed at step {step}: {}", e.message),
            None => format!("the run failed: {}", e.message),
        },
        None => "the run produced no output".into(),
    }
}

pub(super) fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::RunBuilder;
    use serde_json::Map;
    use serde_json::json;
    use verdict_contracts::{AtomicTask, Provenance, ScoreRecord, ScoreValue, TaskMetadata};

    #[test]
    fn the_built_in_table_is_every_evaluator_a_registry_starts_with() {
        let ids: Vec<String> = BUILT_IN.iter().map(|make| make().id().to_owned()).collect();
        let registry = crate::Registry::new();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "one id per built-in: {ids:?}");
        assert_eq!(registry.evaluator_ids(), sorted);
        for id in JUDGED_DEFAULT.iter().chain(&OTHER_DEFAULT) {
            assert!(ids.iter().any(|i| i == id), "default {id} is built in");
        }
    }

    fn task(expected: Value, extensions: Option<Value>) -> AtomicTask {
        AtomicTask {
            id: "task-001".into(),
            name: "n".into(),
            kind: "intent".into(),
            input: json!("x"),
            expected: Some(expected),
            context: None,
            metadata: TaskMetadata::default(),
            extensions: extensions.and_then(|e| e.as_object().cloned()),
        }
    }

    fn run_with(task: &AtomicTask, output: Value) -> RunRecord {
        RunBuilder::start(task).complete(output, Provenance::new("r", "1", Map::new()))
    }

    fn value(scores: &[ScoreRecord], metric: &str) -> ScoreValue {
        scores
            .iter()
            .find(|s| s.metric == metric)
            .unwrap()
            .value
            .clone()
    }

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn subset_treats_confidence_as_a_minimum_when_told() {
        let ext = json!({"subset": {"numbers": {"confidence": "min"}}});
        let t = task(
            json!({"intent": "book_flight", "confidence": 0.9}),
            Some(ext),
        );
        let run = run_with(
            &t,
            json!({"intent": "book_flight", "confidence": 0.95, "extra": 1}),
        );
        let scores = block(SubsetEvaluator::default().evaluate(&run, &t)).unwrap();
        assert_eq!(value(&scores, "subset_match"), ScoreValue::Bool(true));
        assert_eq!(value(&scores, "field_accuracy"), ScoreValue::Number(1.0));
        let low = run_with(&t, json!({"intent": "book_flight", "confidence": 0.5}));
        let scores = block(SubsetEvaluator::default().evaluate(&low, &t)).unwrap();
        assert_eq!(value(&scores, "subset_match"), ScoreValue::Bool(false));
        assert_eq!(value(&scores, "field_accuracy"), ScoreValue::Number(0.5));
        let why = scores[0]
            .evidence
            .as_ref()
            .unwrap()
            .explanation
            .clone()
            .unwrap();
        assert!(
            why.contains("confidence: expected >= 0.9, got 0.5"),
            "{why}"
        );
        // Without the rule, 0.95 is not 0.9.
        let plain = task(json!({"intent": "book_flight", "confidence": 0.9}), None);
        let scores = block(SubsetEvaluator::default().evaluate(&run, &plain)).unwrap();
        assert_eq!(value(&scores, "subset_match"), ScoreValue::Bool(false));
    }

    #[test]
    fn subset_walks_nested_objects_and_arrays() {
        let t = task(json!({"a": {"b": [1, {"c": "x"}]}, "n": 2}), None);
        let run = run_with(
            &t,
            json!({"a": {"b": [1.0, {"c": "x", "d": 0}]}, "n": 2, "z": 0}),
        );
        let scores = block(SubsetEvaluator::default().evaluate(&run, &t)).unwrap();
        assert_eq!(value(&scores, "subset_match"), ScoreValue::Bool(true));
        let alignment = scores[0]
            .evidence
            .as_ref()
            .unwrap()
            .alignment
            .as_ref()
            .unwrap();
        assert!(alignment.contains_key("a.b[1].c"), "{alignment:?}");
        let short = run_with(&t, json!({"a": {"b": [1]}, "n": 2}));
        let scores = block(SubsetEvaluator::default().evaluate(&short, &t)).unwrap();
        assert_eq!(value(&scores, "subset_match"), ScoreValue::Bool(false));
    }

    #[test]
    fn bad_number_rule_names_the_field() {
        let t = task(
            json!({"a": 1}),
            Some(json!({"subset": {"numbers": {"a": "atleast"}}})),
        );
        let run = run_with(&t, json!({"a": 1}));
        let err = block(SubsetEvaluator::default().evaluate(&run, &t)).unwrap_err();
        assert!(err.to_string().contains("extensions.subset"), "{err}");
        assert!(err.to_string().contains("task-001"), "{err}");
    }

    #[test]
    fn exact_compares_numbers_by_value() {
        let t = task(json!({"a": [1, 2]}), None);
        let scores =
            block(ExactEvaluator.evaluate(&run_with(&t, json!({"a": [1.0, 2]})), &t)).unwrap();
        assert_eq!(value(&scores, "exact_match"), ScoreValue::Bool(true));
        let scores =
            block(ExactEvaluator.evaluate(&run_with(&t, json!({"a": [1, 2], "b": 0})), &t))
                .unwrap();
        assert_eq!(value(&scores, "exact_match"), ScoreValue::Bool(false));
    }

    #[test]
    fn judge_reads_judge_and_oracle_reports() {
        let t = task(json!(null), None);
        let report = json!({"sub_type": "programming", "category": "oj", "prob_id": "p", "sub_id": "1",
            "results": [{"status": "Accepted", "score": "1/1", "run_time": 0, "memory_used": 0, "error_log": ""},
                        {"status": "Wrong Answer", "score": "0/1", "run_time": 0, "memory_used": 0, "error_log": ""}]});
        let scores = block(JudgeEvaluator.evaluate(&run_with(&t, report), &t)).unwrap();
        assert_eq!(value(&scores, "judge_score"), ScoreValue::Number(0.5));
        assert_eq!(value(&scores, "judge_passed"), ScoreValue::Bool(false));
        let oracle = json!({"results": [{"name": "c", "status": "passed", "time_ms": 1}],
            "summary": {"total": 1, "passed": 1, "failed": 0, "error": 0, "timeout": 0, "invalid_test_format": 0}});
        let scores = block(JudgeEvaluator.evaluate(&run_with(&t, oracle), &t)).unwrap();
        assert_eq!(value(&scores, "judge_score"), ScoreValue::Number(1.0));
        assert!(block(JudgeEvaluator.evaluate(&run_with(&t, json!({"intent": 1})), &t)).is_err());
    }
}
