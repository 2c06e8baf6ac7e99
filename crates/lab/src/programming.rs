//! The `programming` runner: the task's `input` is a judge Submission (the judge request
//! format); the output is its JudgeReport. An invalid request fails the run with the report's
//! message (which names the field); a judged submission completes, whatever its verdicts.

use crate::VERDICT_VERSION;
use crate::builder::RunBuilder;
use crate::command::merge_config;
use crate::traits::{LabError, Runner};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use verdict_contracts::{
    AtomicTask, Provenance, RunError, RunRecord, TraceLevel, submission_from_value,
};
use verdict_scheduler::{Judge, SubmissionCancel};

/// Judges a task's Submission with the judge pipeline (id `programming`).
#[derive(Debug, Clone)]
pub struct ProgrammingRunner {
    judge: Judge,
}

impl ProgrammingRunner {
    /// A runner judging with `judge`.
    pub fn new(judge: Judge) -> Self {
        ProgrammingRunner { judge }
    }
}

#[async_trait]
impl Runner for ProgrammingRunner {
    fn id(&self) -> &str {
        "programming"
    }
    fn task_type(&self) -> &str {
        "programming"
    }
    fn version(&self) -> &str {
        VERDICT_VERSION
    }

    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        let mut map = Map::new();
        merge_config(&mut map, config);
        let provenance = Provenance::new(self.id(), self.version(), map);
        let mut run = RunBuilder::start(task);
        let submission = match submission_from_value(&task.input) {
            Ok(s) => s,
            Err(e) => {
                return Ok(run.fail(
                    RunError::new(format!("input: {e}")).at_step("validate_submission"),
                    None,
                    provenance,
                ));
            }
        };
        run.event(
            TraceLevel::Debug,
            "judge_started",
            Some(
                json!({"prob_id": submission.prob_id, "sub_id": submission.sub_id,
                        "tasks": submission.judge_tasks.len()}),
            ),
        );
        // Dropped before the end (the caller gone): the tasks left do not start and the boxes
        // running are killed, so the judge's run permits come back at once.
        let cancel = SubmissionCancel::default();
        let _stop_with_caller = CancelOnDrop(cancel.clone());
        let report = self.judge.judge_cancellable(submission, None, cancel).await;
        for (index, result) in report.results.iter().enumerate() {
            run.event(
                TraceLevel::Debug,
                "judge_task",
                Some(json!({"index": index, "status": result.status, "score": result.score})),
            );
        }
        let output = serde_json::to_value(&report)
            .map_err(|e| LabError::Failed(format!("cannot serialise the report: {e}")))?;
        match &report.message {
            Some(message) => Ok(run.fail(
                RunError::new(format!("input: {message}")).at_step("validate_submission"),
                Some(output),
                provenance,
            )),
            None => Ok(run.complete(output, provenance)),
        }
    }
}

/// Cancels a submission's judging when dropped (a no-op once it finished).
struct CancelOnDrop(SubmissionCancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
