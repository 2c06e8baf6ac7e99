//! One candidate of a programming problem: the Submission it becomes, its tasks run in order
//! on one blocking thread (a batch's parallelism is across candidates), stopping where the
//! batch's options say. Statuses, limits and logs are the single-Submission pipeline's own:
//! the same plan, the same `tasks::execute`, the same dependency rule.

use super::control::Control;
use super::infra::infra_of_results;
use crate::conditions::dependency_holds;
use crate::pipeline::{cond_text, hide_host_paths};
use crate::plan::JudgePlan;
use crate::submission::{JudgeShared, SubmissionRun};
use crate::tasks;
use std::sync::Arc;
use verdict_contracts::batch::{CandidateResult, CandidateStatus, InfraError, ProgrammingProblem};
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Submission};

/// Judges `submission` (a candidate of `problem`) task by task; blocking.
pub(crate) fn judge_program(
    shared: &Arc<JudgeShared>,
    problem: &ProgrammingProblem,
    submission: Submission,
    control: &Control,
) -> CandidateResult {
    let id = submission.sub_id.clone();
    let plan = JudgePlan::new(&submission, &shared.config);
    let run = match SubmissionRun::new(shared.clone(), submission, control.cancel.runs().clone()) {
        Ok(run) => run,
        Err(err) => {
            tracing::error!(sub_id = %id, "cannot start judging: {err}");
            // As for a Submission: `<work>` and `<cache>`, not the host's directories.
            let mut log = err.to_string();
            hide_host_paths(&mut log, &shared.config, &id);
            let infra = InfraError {
                message: format!("cannot start judging: {log}"),
                retryable: true,
            };
            return super::infra_result(id, problem.test_count(), true, infra);
        }
    };
    let count = plan.tasks.len();
    let mut results: Vec<JudgeTaskResult> = Vec::with_capacity(count);
    let mut stopped = None;
    for task in &plan.tasks {
        if let Some(why) = control.halt() {
            stopped = Some(why);
            break;
        }
        let result = match task.parent {
            Some(dep) if !dependency_holds(Some(dep.cond), &results[dep.task]) => {
                JudgeTaskResult::with_status(
                    JudgeStatus::DependencyNotSatisfied,
                    format!(
                        "task {} ended {}; this task needs {}",
                        dep.task,
                        results[dep.task].status,
                        cond_text(dep.cond)
                    ),
                )
            }
            _ => {
                let mut result = tasks::execute(&run, task);
                if control.cancel.is_cancelled() {
                    // Its box was killed by the cancel: what it says is not the candidate's.
                    stopped = Some(super::control::Halt::Cancelled);
                    break;
                }
                if result.status == JudgeStatus::SystemError {
                    hide_host_paths(&mut result.error_log, &shared.config, &id);
                }
                result
            }
        };
        let failed = result.status != JudgeStatus::Accepted;
        results.push(result);
        if failed && control.stop_at_first_failure && results.len() < count {
            stopped = Some(super::control::Halt::Failure);
            break;
        }
    }
    drop(run);
    let tests_total = problem.test_count();
    let tests_passed = results
        .iter()
        .enumerate()
        .filter(|(i, r)| problem.is_test(*i) && r.status == JudgeStatus::Accepted)
        .count();
    let first_failure = results
        .iter()
        .map(|r| r.status)
        .find(|s| *s != JudgeStatus::Accepted);
    let status = match (first_failure, stopped) {
        (Some(s), _) => s,
        (None, Some(super::control::Halt::Budget)) => JudgeStatus::TimeLimitExceeded,
        (None, Some(super::control::Halt::Cancelled)) => JudgeStatus::SystemError,
        (None, _) => JudgeStatus::Accepted,
    };
    let infra_error = infra_of_results(&results).or_else(|| control.cancelled_error(stopped));
    let passed = status == JudgeStatus::Accepted && stopped.is_none() && infra_error.is_none();
    CandidateResult {
        stopped_early: stopped.is_some(),
        results: Some(results),
        message: stopped.map(|h| h.message().to_owned()),
        infra_error,
        time_ms: control.elapsed_ms(),
        ..CandidateResult::new(
            id,
            CandidateStatus::Judge(status),
            passed,
            tests_passed,
            tests_total,
        )
    }
}
