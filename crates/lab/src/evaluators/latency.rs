//! `latency`: the run's wall time, tokens and cost.

use crate::builder::score_record;
use crate::traits::{Evaluator, LabError};
use async_trait::async_trait;
use verdict_contracts::{AtomicTask, RunRecord, ScoreRecord, ScoreTarget};

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
