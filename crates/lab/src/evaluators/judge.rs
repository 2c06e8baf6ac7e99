//! `judge`: the score of a JudgeReport or of an oracle report.

use super::failed_explanation;
use crate::builder::score_record;
use crate::traits::{Evaluator, LabError};
use async_trait::async_trait;
use serde_json::Value;
use verdict_contracts::{AtomicTask, Evidence, RunRecord, RunStatus, ScoreRecord, ScoreTarget};

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
