//! When a dependent task may run (design #12).

use verdict_contracts::{DependsCond, JudgeStatus, JudgeTaskResult};

/// Whether a task whose parent ended with `parent` may run under `cond`.
///
/// A missing condition on a task that has a parent is read as `ACCEPTED`, the strictest.
pub fn dependency_holds(cond: Option<DependsCond>, parent: &JudgeTaskResult) -> bool {
    match cond.unwrap_or(DependsCond::Accepted) {
        DependsCond::Accepted => parent.status == JudgeStatus::Accepted,
        DependsCond::PartialCorrect => !parent.score.is_zero() && scored(parent.status),
        DependsCond::NotTimeLimit => !matches!(
            parent.status,
            JudgeStatus::TimeLimitExceeded
                | JudgeStatus::CompilationError
                | JudgeStatus::ExecutableCompilationError
                | JudgeStatus::CompareError
                | JudgeStatus::RandomGenError
                | JudgeStatus::SystemError
                | JudgeStatus::DependencyNotSatisfied
        ),
    }
}

/// Statuses that carry a score of their own.
fn scored(status: JudgeStatus) -> bool {
    matches!(status, JudgeStatus::Accepted | JudgeStatus::PartialCorrect)
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_contracts::Score;

    fn result(status: JudgeStatus, score: Score) -> JudgeTaskResult {
        JudgeTaskResult {
            score,
            ..JudgeTaskResult::with_status(status, "")
        }
    }

    #[test]
    fn accepted_needs_an_accepted_parent() {
        assert!(dependency_holds(
            Some(DependsCond::Accepted),
            &result(JudgeStatus::Accepted, Score::FULL)
        ));
        let partial = result(JudgeStatus::PartialCorrect, Score::new(1, 2).unwrap());
        assert!(!dependency_holds(Some(DependsCond::Accepted), &partial));
        assert!(!dependency_holds(None, &partial));
    }

    #[test]
    fn partial_correct_needs_a_score_above_zero() {
        let partial = result(JudgeStatus::PartialCorrect, Score::new(1, 2).unwrap());
        assert!(dependency_holds(
            Some(DependsCond::PartialCorrect),
            &partial
        ));
        assert!(!dependency_holds(
            Some(DependsCond::PartialCorrect),
            &result(JudgeStatus::WrongAnswer, Score::ZERO)
        ));
    }

    #[test]
    fn not_time_limit_refuses_time_and_judge_failures_only() {
        let cond = Some(DependsCond::NotTimeLimit);
        assert!(dependency_holds(
            cond,
            &result(JudgeStatus::WrongAnswer, Score::ZERO)
        ));
        assert!(dependency_holds(
            cond,
            &result(JudgeStatus::RuntimeError, Score::ZERO)
        ));
        for status in [
            JudgeStatus::TimeLimitExceeded,
            JudgeStatus::CompilationError,
            JudgeStatus::CompareError,
            JudgeStatus::RandomGenError,
            JudgeStatus::SystemError,
            JudgeStatus::DependencyNotSatisfied,
        ] {
            assert!(
                !dependency_holds(cond, &result(status, Score::ZERO)),
                "{status}"
            );
        }
    }
}
