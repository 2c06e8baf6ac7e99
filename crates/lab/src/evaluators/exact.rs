//! `exact`: the output deep-equals `expected` (numbers by value).

use super::{failed_explanation, show};
use crate::builder::score_record;
use crate::traits::{Evaluator, LabError};
use async_trait::async_trait;
use verdict_compare::values::first_difference;
use verdict_contracts::oracle::FloatTolerance;
use verdict_contracts::{AtomicTask, Evidence, RunRecord, RunStatus, ScoreRecord, ScoreTarget};

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
