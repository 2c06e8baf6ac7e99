//! `subset`: every field of `expected` is in the output and equal, numbers by a [`NumberRule`];
//! its configuration ([`SubsetConfig`]).

use super::{failed_explanation, show};
use crate::builder::score_record;
use crate::traits::{Evaluator, LabError};
use async_trait::async_trait;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value, json};
use std::collections::BTreeMap;
use verdict_compare::values::{first_difference, numbers_equal};
use verdict_contracts::oracle::FloatTolerance;
use verdict_contracts::{AtomicTask, Evidence, RunRecord, RunStatus, ScoreRecord, ScoreTarget};

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

impl SubsetEvaluator {
    /// The run's two scores: whether every expected field matched, and the share that did.
    fn scores(
        &self,
        run: &RunRecord,
        matched: bool,
        accuracy: f64,
        evidence: Evidence,
    ) -> Vec<ScoreRecord> {
        vec![
            score_record(
                &run.id,
                self.id(),
                "subset_match",
                matched,
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
        ]
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
                return Ok(self.scores(run, false, 0.0, evidence));
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
        Ok(self.scores(run, all, accuracy, evidence))
    }
}
