use super::*;
use serde_json::json;

fn suite_batch(candidates: serde_json::Value) -> Result<BatchRequest, Vec<FieldError>> {
    parse_batch(
        &json!({
            "problem": {"kind": "suite", "deliverable_type": "script", "language": "python3",
                        "entry_point": "main.py",
                        "test_cases": [{"name": "t", "input": {"stdin": "1"},
                                        "expected": {"stdout": "1\n"}}]},
            "candidates": candidates
        })
        .to_string(),
    )
}

fn programming_batch() -> BatchRequest {
    parse_batch(
        &json!({
            "problem": {"kind": "programming", "category": "oj", "prob_id": "a+b",
                        "updated_at": 1,
                        "judge_tasks": [
                            {"check_script": "compile", "depends_on": -1, "time_limit": 10000},
                            {"check_script": "standard", "run_script": "standard",
                             "compare_script": "diff-ign-space", "testcase_id": 0,
                             "depends_on": 0, "depends_cond": "ACCEPTED", "time_limit": 1000}],
                        "test_data": [{
                            "inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
                            "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"}]}]},
            "candidates": [{"id": "c1", "language": "cpp", "code": "int main(){}"}]
        })
        .to_string(),
    )
    .expect("a valid batch")
}

#[test]
fn a_script_candidates_code_is_written_to_the_entry_point() {
    let batch = suite_batch(json!([{"id": "a", "code": "print(1)"}])).unwrap();
    let BatchProblem::Suite(problem) = &batch.problem else {
        panic!("a suite")
    };
    let suite = problem.suite_for(0, &batch.candidates[0]).unwrap();
    assert_eq!(suite.source_files[0].name, "main.py");
    assert_eq!(suite.language, Language::Python3);
    assert!(crate::oracle::check_suite(&suite).is_ok());
}

#[test]
fn code_and_source_files_together_are_refused_naming_the_candidate() {
    let batch = suite_batch(json!([{"id": "a", "code": "x",
        "source_files": [{"type": "text", "name": "main.py", "text": "x"}]}]))
    .unwrap();
    let BatchProblem::Suite(problem) = &batch.problem else {
        panic!("a suite")
    };
    let err = problem.suite_for(0, &batch.candidates[0]).unwrap_err();
    assert_eq!(err.field, "candidates[0].code");
}

/// Why a batch of an empty function suite with `candidates` and `options` is refused.
fn empty_suite_refusals(
    candidates: serde_json::Value,
    options: serde_json::Value,
) -> Vec<FieldError> {
    parse_batch(
        &json!({
            "problem": {"kind": "suite", "deliverable_type": "function", "entry_point": "f",
                        "test_cases": []},
            "candidates": candidates,
            "options": options
        })
        .to_string(),
    )
    .unwrap_err()
}

#[test]
fn ids_must_be_unique_and_k_positive() {
    let errors = empty_suite_refusals(
        json!([{"id": "a", "code": "x"}, {"id": "a", "code": "y"}, {"id": "", "code": "z"}]),
        json!({"pass_at_k": [1, 0]}),
    );
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "candidates[1].id",
            "candidates[2].id",
            "options.pass_at_k[1]"
        ]
    );
}

#[test]
fn unknown_option_fields_are_refused() {
    let errors = empty_suite_refusals(json!([]), json!({"stop_on_failure": true}));
    assert!(errors[0].message.contains("stop_on_failure"), "{errors:?}");
}

#[test]
fn a_programming_candidate_becomes_a_valid_submission() {
    let batch = programming_batch();
    let BatchProblem::Programming(problem) = &batch.problem else {
        panic!("programming")
    };
    let submission = problem.submission_for(0, &batch.candidates[0]).unwrap();
    assert_eq!(submission.sub_id, "c1");
    assert_eq!(
        submission.submission.source().source_files[0].name,
        "solution.cpp"
    );
    assert!(submission.validate().is_ok());
    assert_eq!(problem.test_count(), 1);
    assert!(!problem.is_test(0) && problem.is_test(1));
}

#[test]
fn statuses_are_the_contract_strings_of_either_kind() {
    let judge = CandidateStatus::Judge(JudgeStatus::WrongAnswer);
    let case = CandidateStatus::Case(OracleCaseStatus::Timeout);
    assert_eq!(serde_json::to_value(judge).unwrap(), "Wrong Answer");
    assert_eq!(serde_json::to_value(case).unwrap(), "timeout");
    assert_eq!(
        serde_json::from_value::<CandidateStatus>(json!("passed")).unwrap(),
        CandidateStatus::Case(OracleCaseStatus::Passed)
    );
    assert_eq!(
        serde_json::from_value::<CandidateStatus>(json!("Accepted")).unwrap(),
        CandidateStatus::Judge(JudgeStatus::Accepted)
    );
}

fn result(id: &str, passed: bool, infra: bool) -> CandidateResult {
    let status = CandidateStatus::Case(if passed {
        OracleCaseStatus::Passed
    } else {
        OracleCaseStatus::Failed
    });
    CandidateResult {
        cases: Some(Vec::new()),
        infra_error: infra.then(|| InfraError {
            message: "sandbox".into(),
            retryable: true,
        }),
        time_ms: 1,
        ..CandidateResult::new(id, status, passed, usize::from(passed) + 1, 2)
    }
}

#[test]
fn infra_errors_are_left_out_of_pass_at_k_and_statuses() {
    let results = [
        result("a", true, false),
        result("b", false, false),
        result("c", false, true),
    ];
    let summary = BatchSummary::of(&results, 4, &[1, 2, 3], 9);
    assert_eq!(summary.infra_errors, 1);
    assert_eq!(summary.cancelled, 1);
    assert_eq!(summary.passed, 1);
    assert_eq!(summary.statuses["passed"], 1);
    assert_eq!(summary.statuses["failed"], 1);
    assert_eq!(summary.pass_at_k["1"], Some(0.5));
    assert_eq!(summary.pass_at_k["2"], Some(1.0));
    assert_eq!(summary.pass_at_k["3"], None);
    assert!((summary.mean_fraction - 0.75).abs() < 1e-12);
}

#[test]
fn events_carry_their_kind_beside_the_fields() {
    let event = BatchEvent::Candidate(result("a", true, false));
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(value["event"], "candidate");
    assert_eq!(value["id"], "a");
    assert_eq!(value["status"], "passed");
    let back: BatchEvent = serde_json::from_value(value).unwrap();
    assert_eq!(back, event);
}

#[test]
fn a_value_of_the_wrong_type_is_named_by_its_path() {
    let field_of = |batch: serde_json::Value| {
        let errors = parse_batch(&batch.to_string()).expect_err("refused");
        assert_eq!(errors.len(), 1, "{errors:?}");
        errors[0].field.clone()
    };
    let suite = json!({"kind": "suite", "deliverable_type": "function", "language": "python3",
                       "entry_point": "f", "test_cases": [{"name": "t", "input": [1], "expected": 1}]});
    assert_eq!(
        field_of(json!({"problem": suite, "candidates": [
            {"id": "a", "code": "x"}, {"id": "b", "language": 3, "code": "x"}]})),
        "candidates[1].language"
    );
    assert_eq!(
        field_of(json!({"problem": suite, "candidates": [], "options": {"pass_at_k": ["1"]}})),
        "options.pass_at_k[0]"
    );
    // Inside the problem, tagged by its kind.
    let mut bad = suite.clone();
    bad["test_cases"][0]["name"] = json!(7);
    assert_eq!(
        field_of(json!({"problem": bad, "candidates": []})),
        "problem.test_cases[0].name"
    );
    let mut missing = suite.clone();
    if let Some(o) = missing.as_object_mut() {
        o.remove("entry_point");
    }
    assert_eq!(
        field_of(json!({"problem": missing, "candidates": []})),
        "problem.entry_point"
    );
    assert_eq!(
        field_of(
            json!({"problem": {"kind": "programming", "category": "oj", "prob_id": "p",
                                    "updated_at": "yesterday", "judge_tasks": []},
                        "candidates": []})
        ),
        "problem.updated_at"
    );
    assert_eq!(field_of(json!([1])), "batch");
    let not_json = parse_batch("{oops").expect_err("refused");
    assert_eq!(not_json[0].field, "batch (JSON)");
}

#[test]
fn a_results_fraction_is_tests_passed_over_tests_and_one_for_a_pass_with_no_tests() {
    let status = CandidateStatus::Case(OracleCaseStatus::Passed);
    let new = |passed, tests_passed, tests_total| {
        CandidateResult::new("c", status, passed, tests_passed, tests_total).fraction
    };
    assert_eq!(new(false, 1, 4), 0.25);
    assert_eq!(new(true, 4, 4), 1.0);
    assert_eq!(new(true, 0, 0), 1.0);
    assert_eq!(new(false, 0, 0), 0.0);
    let result = CandidateResult::new("c", status, true, 2, 2);
    assert_eq!(
        (
            result.results,
            result.cases,
            result.infra_error,
            result.time_ms
        ),
        (None, None, None, 0)
    );
}
