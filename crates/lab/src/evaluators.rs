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

use crate::builder::score_record;
use crate::traits::{Evaluator, LabError};
use async_trait::async_trait;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use verdict_contracts::oracle::FloatTolerance;
use verdict_contracts::{AtomicTask, Evidence, RunRecord, RunStatus, ScoreRecord, ScoreTarget};
use verdict_oracle::{first_difference, numbers_equal};

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

/// How a number of `expected` is compared with the output's (subset evaluator).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum NumberRule {
    /// Equal by value (`1` equals `1.0`; floats within 1e-9).
    #[default]
    Exact,
    /// `expected` is a minimum: the output's number must be `>=` it (e.g. a confidence).
    Min,
    /// `expected` is a maximum: the output's number must be `<=` it.
    Max,
    /// Within this absolute distance of `expected`.
    Tolerance(f64),
}

impl NumberRule {
    fn holds(self, expected: &Number, got: &Number) -> bool {
        let (Some(e), Some(g)) = (expected.as_f64(), got.as_f64()) else {
            return false;
        };
        match self {
            NumberRule::Exact => numbers_equal(got, expected, FloatTolerance::default()),
            NumberRule::Min => g >= e,
            NumberRule::Max => g <= e,
            NumberRule::Tolerance(t) => (g - e).abs() <= t,
        }
    }

    fn describe(self, expected: &Number) -> String {
        match self {
            NumberRule::Exact => format!("{expected}"),
            NumberRule::Min => format!(">= {expected}"),
            NumberRule::Max => format!("<= {expected}"),
            NumberRule::Tolerance(t) => format!("{expected} ± {t}"),
        }
    }
}

impl<'de> Deserialize<'de> for NumberRule {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Tol {
            tolerance: f64,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Word(String),
            Tol(Tol),
        }
        let bad = || {
            serde::de::Error::custom(
                "a number rule is \"exact\", \"min\", \"max\" or {\"tolerance\": <number>}",
            )
        };
        match Raw::deserialize(deserializer).map_err(|_| bad())? {
            Raw::Word(w) => match w.as_str() {
                "exact" => Ok(NumberRule::Exact),
                "min" => Ok(NumberRule::Min),
                "max" => Ok(NumberRule::Max),
                _ => Err(bad()),
            },
            Raw::Tol(t) if t.tolerance.is_finite() && t.tolerance >= 0.0 => {
                Ok(NumberRule::Tolerance(t.tolerance))
            }
            Raw::Tol(_) => Err(bad()),
        }
    }
}

/// The subset evaluator's number rules: by field path (`slots.date`, `items[0].price`) or by
/// the field's own key (`confidence`), else `default`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SubsetConfig {
    /// Rules by path or key.
    pub numbers: BTreeMap<String, NumberRule>,
    /// The rule of every other number.
    pub default: NumberRule,
}

impl SubsetConfig {
    /// This config with a task's `extensions.subset` (same shape) on top.
    pub fn with_task(&self, task: &AtomicTask) -> Result<SubsetConfig, LabError> {
        let Some(raw) = task
            .extensions
            .as_ref()
            .and_then(|e| e.get(SubsetEvaluator::ID))
        else {
            return Ok(self.clone());
        };
        let over: SubsetConfig =
            serde_json::from_value(raw.clone()).map_err(|e| LabError::InvalidTask {
                task_id: task.id.clone(),
                message: format!("extensions.subset: {e}"),
            })?;
        let mut merged = self.clone();
        merged.numbers.extend(over.numbers);
        if raw.get("default").is_some() {
            merged.default = over.default;
        }
        Ok(merged)
    }

    fn rule(&self, path: &str, key: Option<&str>) -> NumberRule {
        self.numbers
            .get(path)
            .or_else(|| key.and_then(|k| self.numbers.get(k)))
            .copied()
            .unwrap_or(self.default)
    }
}

fn failed_explanation(run: &RunRecord) -> String {
    match &run.error {
        Some(e) => match &e.step {
            Some(step) => format!("the run failed at step {step}: {}", e.message),
            None => format!("the run failed: {}", e.message),
        },
        None => "the run produced no output".into(),
    }
}

fn show(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// `exact`: the output deep-equals `expected`.
#[derive(Debug, Clone, Default)]
pub struct ExactEvaluator;

impl ExactEvaluator {
    /// Its id.
    pub const ID: &str = "exact";
}

#[async_trait]
impl Evaluator for ExactEvaluator {
    fn id(&self) -> &str {
        ExactEvaluator::ID
    }
    fn metrics(&self) -> Vec<String> {
        vec!["exact_match".into()]
    }
    async fn evaluate(
        &self,
        run: &RunRecord,
        task: &AtomicTask,
    ) -> Result<Vec<ScoreRecord>, LabError> {
        let Some(expected) = &task.expected else {
            return Ok(Vec::new());
        };
        let (hit, evidence) = match (&run.output, run.status) {
            (Some(output), RunStatus::Completed) => {
                let diff = first_difference(output, expected, FloatTolerance::default());
                let explanation = match &diff {
                    None => "the output equals expected".to_owned(),
                    Some(d) => format!("the output differs from expected: {d}"),
                };
                (
                    diff.is_none(),
                    Evidence {
                        explanation: Some(explanation),
                        snippets: Some(vec![
                            format!("expected: {}", show(expected)),
                            format!("actual: {}", show(output)),
                        ]),
                        alignment: None,
                    },
                )
            }
            _ => (
                false,
                Evidence {
                    explanation: Some(failed_explanation(run)),
                    ..Evidence::default()
                },
            ),
        };
        Ok(vec![score_record(
            &run.id,
            self.id(),
            "exact_match",
            hit,
            ScoreTarget::Final,
            Some(evidence),
        )])
    }
}

/// `subset`: every field of `expected` is present in the output and equal (numbers by rule).
#[derive(Debug, Clone, Default)]
pub struct SubsetEvaluator {
    config: SubsetConfig,
}

impl SubsetEvaluator {
    /// Its id (and the extension key and `lab.toml` table of its rules).
    pub const ID: &str = "subset";

    /// A subset evaluator with these number rules (a task's `extensions.subset` adds to them).
    pub fn new(config: SubsetConfig) -> Self {
        SubsetEvaluator { config }
    }
}

/// One compared leaf of `expected`.
struct Check {
    path: String,
    ok: bool,
    expected: Value,
    got: Option<Value>,
    note: String,
}

fn join_key(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn subset_walk(
    expected: &Value,
    got: Option<&Value>,
    path: &str,
    key: Option<&str>,
    config: &SubsetConfig,
    out: &mut Vec<Check>,
) {
    match expected {
        Value::Object(fields) if !fields.is_empty() => {
            let obj = got.and_then(Value::as_object);
            for (k, e) in fields {
                subset_walk(
                    e,
                    obj.and_then(|o| o.get(k)),
                    &join_key(path, k),
                    Some(k),
                    config,
                    out,
                );
            }
        }
        Value::Array(items) if !items.is_empty() => match got.and_then(Value::as_array) {
            Some(got_items) if got_items.len() != items.len() => out.push(Check {
                path: path.to_owned(),
                ok: false,
                expected: expected.clone(),
                got: got.cloned(),
                note: format!("{} items expected, {} found", items.len(), got_items.len()),
            }),
            got_items => {
                for (i, e) in items.iter().enumerate() {
                    let g = got_items.and_then(|g| g.get(i));
                    subset_walk(e, g, &format!("{path}[{i}]"), None, config, out);
                }
            }
        },
        _ => {
            let shown = if path.is_empty() { "(output)" } else { path };
            let (ok, note) = match (expected, got) {
                (_, None) => (false, format!("{shown}: missing")),
                (Value::Number(e), Some(Value::Number(g))) => {
                    let rule = config.rule(path, key);
                    let ok = rule.holds(e, g);
                    (
                        ok,
                        format!("{shown}: expected {}, got {g}", rule.describe(e)),
                    )
                }
                (e, Some(g)) => (
                    first_difference(g, e, FloatTolerance::default()).is_none(),
                    format!("{shown}: expected {}, got {}", show(e), show(g)),
                ),
            };
            out.push(Check {
                path: path.to_owned(),
                ok,
                expected: expected.clone(),
                got: got.cloned(),
                note,
            });
        }
    }
}

#[async_trait]
impl Evaluator for SubsetEvaluator {
    fn id(&self) -> &str {
        SubsetEvaluator::ID
    }
    fn metrics(&self) -> Vec<String> {
        vec!["subset_match".into(), "field_accuracy".into()]
    }
    async fn evaluate(
        &self,
        run: &RunRecord,
        task: &AtomicTask,
    ) -> Result<Vec<ScoreRecord>, LabError> {
        let Some(expected) = &task.expected else {
            return Ok(Vec::new());
        };
        let config = self.config.with_task(task)?;
        let output = match (&run.output, run.status) {
            (Some(output), RunStatus::Completed) => output,
            _ => {
                let evidence = Evidence {
                    explanation: Some(failed_explanation(run)),
                    ..Evidence::default()
                };
                return Ok(vec![
                    score_record(
                        &run.id,
                        self.id(),
                        "subset_match",
                        false,
                        ScoreTarget::Final,
                        Some(evidence.clone()),
                    ),
                    score_record(
                        &run.id,
                        self.id(),
                        "field_accuracy",
                        0.0,
                        ScoreTarget::Final,
                        Some(evidence),
                    ),
                ]);
            }
        };
        let mut checks = Vec::new();
        subset_walk(expected, Some(output), "", None, &config, &mut checks);
        let total = checks.len();
        let passed = checks.iter().filter(|c| c.ok).count();
        let all = passed == total;
        let mut alignment = Map::new();
        for c in &checks {
            alignment.insert(
                if c.path.is_empty() {
                    "(output)".into()
                } else {
                    c.path.clone()
                },
                json!({"expected": c.expected, "actual": c.got, "match": c.ok}),
            );
        }
        let misses: Vec<String> = checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.note.clone())
            .collect();
        let explanation = if all {
            format!("all {total} expected fields match")
        } else {
            format!(
                "{} of {total} expected fields differ: {}",
                total - passed,
                misses.join("; ")
            )
        };
        let evidence = Evidence {
            explanation: Some(explanation),
            snippets: Some(checks.iter().map(|c| c.note.clone()).collect()),
            alignment: Some(alignment),
        };
        let accuracy = if total == 0 {
            1.0
        } else {
            passed as f64 / total as f64
        };
        Ok(vec![
            score_record(
                &run.id,
                self.id(),
                "subset_match",
                all,
                ScoreTarget::Final,
                Some(evidence.clone()),
            ),
            score_record(
                &run.id,
                self.id(),
                "field_accuracy",
                accuracy,
                ScoreTarget::Final,
                Some(evidence),
            ),
        ])
    }
}

/// `judge`: the score of a JudgeReport (`programming`) or of an oracle report (`function`,
/// `script`, `cli`).
#[derive(Debug, Clone, Default)]
pub struct JudgeEvaluator;

impl JudgeEvaluator {
    /// Its id.
    pub const ID: &str = "judge";
}

/// Points and explanation of a report-shaped output, or `None` when it is neither kind.
fn report_score(output: &Value) -> Option<(f64, f64, Vec<String>)> {
    if let Some(summary) = output.get("summary").filter(|s| s.get("total").is_some()) {
        let total = summary.get("total")?.as_f64()?;
        let passed = summary.get("passed")?.as_f64()?;
        let snippets = output
            .get("results")
            .and_then(Value::as_array)
            .map(|rs| {
                rs.iter()
                    .map(|r| {
                        let name = r.get("name").and_then(Value::as_str).unwrap_or("");
                        let status = r.get("status").and_then(Value::as_str).unwrap_or("");
                        match r.get("message").and_then(Value::as_str) {
                            Some(m) => format!("{name}: {status}: {m}"),
                            None => format!("{name}: {status}"),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        return Some((passed, total, snippets));
    }
    let results = output.get("results")?.as_array()?;
    output.get("prob_id")?;
    let mut num = 0.0;
    let mut den = 0.0;
    let mut snippets = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let score: verdict_contracts::Score =
            serde_json::from_value(r.get("score")?.clone()).ok()?;
        let text = score.to_string();
        let (n, d) = text.split_once('/')?;
        num += n.parse::<f64>().ok()?;
        den += d.parse::<f64>().ok()?;
        let status = r.get("status").and_then(Value::as_str).unwrap_or("");
        snippets.push(format!("task {i}: {status} {text}"));
    }
    Some((num, den, snippets))
}

#[async_trait]
impl Evaluator for JudgeEvaluator {
    fn id(&self) -> &str {
        JudgeEvaluator::ID
    }
    fn metrics(&self) -> Vec<String> {
        vec!["judge_score".into(), "judge_passed".into()]
    }
    async fn evaluate(
        &self,
        run: &RunRecord,
        task: &AtomicTask,
    ) -> Result<Vec<ScoreRecord>, LabError> {
        let scored = run.output.as_ref().and_then(report_score);
        let (value, evidence) = match scored {
            Some((num, den, snippets)) => {
                let value = if den > 0.0 { num / den } else { 0.0 };
                let explanation = match &run.error {
                    Some(e) => e.message.clone(),
                    None => format!("{num}/{den} points"),
                };
                (
                    value,
                    Evidence {
                        explanation: Some(explanation),
                        snippets: Some(snippets),
                        alignment: None,
                    },
                )
            }
            None if run.status == RunStatus::Failed => (
                0.0,
                Evidence {
                    explanation: Some(failed_explanation(run)),
                    ..Evidence::default()
                },
            ),
            None => {
                return Err(LabError::InvalidTask {
                    task_id: task.id.clone(),
                    message:
                        "judge evaluator: the output is neither a JudgeReport nor an oracle report"
                            .into(),
                });
            }
        };
        Ok(vec![
            score_record(
                &run.id,
                self.id(),
                "judge_score",
                value,
                ScoreTarget::Final,
                Some(evidence.clone()),
            ),
            score_record(
                &run.id,
                self.id(),
                "judge_passed",
                value >= 1.0,
                ScoreTarget::Final,
                Some(evidence),
            ),
        ])
    }
}

/// `latency`: the run's wall time, and its tokens and cost when the runner reported them.
#[derive(Debug, Clone, Default)]
pub struct LatencyEvaluator;

impl LatencyEvaluator {
    /// Its id.
    pub const ID: &str = "latency";
}

#[async_trait]
impl Evaluator for LatencyEvaluator {
    fn id(&self) -> &str {
        LatencyEvaluator::ID
    }
    fn metrics(&self) -> Vec<String> {
        vec!["latency".into(), "tokens".into(), "cost".into()]
    }
    async fn evaluate(
        &self,
        run: &RunRecord,
        _task: &AtomicTask,
    ) -> Result<Vec<ScoreRecord>, LabError> {
        let mut scores = vec![score_record(
            &run.id,
            self.id(),
            "latency",
            (run.metrics.latency * 1000.0).round() / 1000.0,
            ScoreTarget::Global,
            None,
        )];
        if let Some(tokens) = run.metrics.tokens {
            scores.push(score_record(
                &run.id,
                self.id(),
                "tokens",
                tokens as f64,
                ScoreTarget::Global,
                None,
            ));
        }
        if let Some(cost) = run.metrics.cost {
            scores.push(score_record(
                &run.id,
                self.id(),
                "cost",
                cost,
                ScoreTarget::Global,
                None,
            ));
        }
        Ok(scores)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::RunBuilder;
    use serde_json::json;
    use verdict_contracts::{Provenance, ScoreValue, TaskMetadata};

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
