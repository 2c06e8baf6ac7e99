//! One candidate of a suite problem: the Task Oracle suite it becomes, judged by
//! `verdict_oracle::run_suite` through the judge's executor with the batch's stopping rules.
//! The oracle compares outside the box: expected values never enter it.

use super::control::{Control, Halt};
use super::infra::infra_of_oracle;
use verdict_contracts::batch::{CandidateResult, CandidateStatus};
use verdict_contracts::oracle::{OracleCaseStatus, TestSuite};
use verdict_oracle::{NOT_RUN, OracleOptions, run_suite};
use verdict_scripts::Executor;

/// Judges `suite` (a candidate's) through `executor`; blocking.
pub(crate) fn judge_suite(
    executor: &dyn Executor,
    id: String,
    suite: &TestSuite,
    options: &OracleOptions,
    control: &Control,
) -> CandidateResult {
    let tests_total = suite.test_cases.len();
    if let Some(halt) = control.halt() {
        return halted(id, tests_total, halt, control);
    }
    let options = OracleOptions {
        stop_at_first_failure: control.stop_at_first_failure,
        deadline: control.deadline,
        // A batch's parallelism is across candidates: one case at a time each.
        parallelism: 1,
        ..options.clone()
    };
    let report = match run_suite(executor, control.cancel.runs(), suite, &options) {
        Ok(report) => report,
        Err(err) => {
            if let Some(infra) = infra_of_oracle(&err) {
                return super::infra_result(id, tests_total, false, infra);
            }
            // The candidate's own files are at fault (e.g. its module's name): every test fails.
            return CandidateResult {
                message: Some(err.to_string()),
                cases: Some(Vec::new()),
                ..super::failed(
                    id,
                    CandidateStatus::Case(OracleCaseStatus::Error),
                    tests_total,
                )
            };
        }
    };
    let mut cases = report.results;
    // Cases the oracle did not run (stopped) are left out: the list holds those that ran.
    let ran = cases
        .iter()
        .rposition(|c| c.message.as_deref() != Some(NOT_RUN))
        .map_or(0, |i| i + 1);
    let stopped_early = ran < cases.len();
    cases.truncate(ran);
    let tests_passed = cases
        .iter()
        .filter(|c| c.status == OracleCaseStatus::Passed)
        .count();
    // Cancelled while a case ran: its box was killed, so the candidate's result is the
    // judge's doing (never a score), whatever the cases say.
    let halt = if control.cancel.is_cancelled() {
        Some(Halt::Cancelled)
    } else {
        stopped_early.then(|| control.halt().unwrap_or(Halt::Failure))
    };
    let status = match cases
        .iter()
        .map(|c| c.status)
        .find(|s| *s != OracleCaseStatus::Passed)
    {
        Some(s) => s,
        None if halt.is_some() => OracleCaseStatus::Timeout,
        None => OracleCaseStatus::Passed,
    };
    let infra_error = control.cancelled_error(halt);
    let passed = status == OracleCaseStatus::Passed && infra_error.is_none();
    CandidateResult {
        stopped_early,
        cases: Some(cases),
        message: halt.map(|h| h.message().to_owned()),
        infra_error,
        time_ms: control.elapsed_ms(),
        ..CandidateResult::new(
            id,
            CandidateStatus::Case(status),
            passed,
            tests_passed,
            tests_total,
        )
    }
}

/// A candidate stopped before its first case.
fn halted(id: String, tests_total: usize, halt: Halt, control: &Control) -> CandidateResult {
    let status = CandidateStatus::Case(OracleCaseStatus::Timeout);
    CandidateResult {
        message: Some(halt.message().to_owned()),
        infra_error: control.cancelled_error(Some(halt)),
        stopped_early: true,
        cases: Some(Vec::new()),
        ..super::failed(id, status, tests_total)
    }
}
