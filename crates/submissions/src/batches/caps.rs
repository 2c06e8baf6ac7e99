//! The operator's caps (design #28) on a batch: its candidates, and its problem as the
//! Submission or suite every candidate becomes (each problem named under `problem.`).

use verdict_contracts::batch::{BatchProblem, BatchRequest, Candidate};
use verdict_contracts::{Caps, FieldError, Language};

/// Every problem of `request` with `caps` (empty: within them).
pub(crate) fn check(caps: &Caps, request: &BatchRequest) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = caps
        .check_candidates(request.candidates.len())
        .into_iter()
        .collect();
    // The limits are the problem's: any candidate shows them (a stand-in when there is none).
    let stand_in = Candidate {
        id: "-".into(),
        language: Some(Language::C),
        code: Some(String::new()),
        source_files: Vec::new(),
        assist_files: Vec::new(),
        entry_point: None,
        compile_command: None,
    };
    let candidate = request.candidates.first().unwrap_or(&stand_in);
    let problem = match &request.problem {
        BatchProblem::Suite(p) => p
            .suite_for(0, candidate)
            .or_else(|_| p.suite_for(0, &stand_in))
            .map(|suite| caps.check_suite(&suite)),
        BatchProblem::Programming(p) => p
            .submission_for(0, candidate)
            .or_else(|_| p.submission_for(0, &stand_in))
            .map(|submission| caps.check_submission(&submission)),
        // Its tests are the record's; the request's size cap bounds it.
        BatchProblem::Dataset(_) => Ok(Vec::new()),
    };
    // A candidate that makes no Submission or suite is refused by the batch's own check.
    errors.extend(
        problem
            .unwrap_or_default()
            .into_iter()
            .map(|e| FieldError::new(format!("problem.{}", e.field), e.message)),
    );
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_contracts::batch::parse_batch;

    #[test]
    fn a_batch_over_a_cap_names_the_problems_field_and_the_cap() {
        let batch = parse_batch(
            &serde_json::json!({
                "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                            "entry_point": "f", "timeout_ms": 999_999,
                            "test_cases": [{"name": "a", "input": [], "expected": 1}]},
                "candidates": [{"id": "a", "code": "x"}, {"id": "b", "code": "y"}]})
            .to_string(),
        )
        .unwrap();
        let caps = Caps {
            batch_candidates: 1,
            ..Caps::default()
        };
        let text: Vec<String> = check(&caps, &batch)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            text,
            [
                "candidates: 2 candidates is over the operator's cap of 1 candidates \
                 (caps.batch_candidates)",
                "problem.timeout_ms: 999999 ms is over the operator's cap of 60000 ms \
                 (caps.suite_timeout_ms)",
            ]
        );
        assert!(
            check(&Caps::default(), &{
                let mut b = batch.clone();
                if let BatchProblem::Suite(s) = &mut b.problem {
                    s.timeout_ms = Some(1000);
                }
                b
            })
            .is_empty()
        );
    }
}
