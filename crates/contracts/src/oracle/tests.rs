//! Unit tests of the parent module.
use super::*;
use serde_json::json;

#[test]
fn function_input_must_be_an_args_list() {
    assert_eq!(function_args(&json!([[1, 2], 10])).unwrap().len(), 2);
    assert_eq!(function_args(&json!([])).unwrap().len(), 0);
    for bad in [json!(5), json!({"a": 1}), json!("x"), Value::Null] {
        assert_eq!(function_args(&bad).unwrap_err(), FUNCTION_INPUT_NOT_ARGS);
    }
}

#[test]
fn arity_message_gives_both_numbers() {
    let exact = FunctionSignature {
        required: 2,
        max: Some(2),
    };
    assert_eq!(
        check_arity("summarize_logs", 3, exact).unwrap_err(),
        "invalid_test_format: function summarize_logs takes 2 positional args, input has 3"
    );
    // (required, max): a count it takes, and one it refuses with a message containing this.
    let cases = [
        ((2, Some(2)), 2, 3, "takes 2 positional args, input has 3"),
        (
            (1, Some(3)),
            3,
            0,
            "takes 1 to 3 positional args, input has 0",
        ),
        ((1, None), 99, 0, "at least 1"),
        ((1, Some(1)), 1, 2, "takes 1 positional arg, input has 2"),
    ];
    for ((required, max), taken, refused, message) in cases {
        let signature = FunctionSignature { required, max };
        assert!(check_arity("f", taken, signature).is_ok(), "{signature:?}");
        let err = check_arity("f", refused, signature).unwrap_err();
        assert!(err.contains(message), "{signature:?}: {err}");
    }
}

#[test]
fn cli_input_must_include_argv() {
    for bad in [
        json!([]),
        json!({}),
        json!({"argv": "x"}),
        json!({"stdin": ""}),
        json!(1),
    ] {
        assert_eq!(cli_input(&bad).unwrap_err(), CLI_INPUT_WITHOUT_ARGV);
    }
    let ok = cli_input(&json!({"argv": ["--in", "a"], "files": {"a": "1"}})).unwrap();
    assert_eq!(ok.argv, ["--in", "a"]);
    assert!(
        cli_input(&json!({"argv": [1]}))
            .unwrap_err()
            .contains("argv[0] is a number")
    );
}

#[test]
fn script_input_is_an_object_with_optional_parts() {
    assert_eq!(script_input(&json!({})).unwrap(), ScriptInput::default());
    let s = script_input(&json!({"stdin": "x", "files": {"d/r.txt": "é"}})).unwrap();
    assert_eq!(s.stdin.as_deref(), Some("x"));
    assert_eq!(s.files["d/r.txt"], "é");
    assert!(script_input(&json!([1])).is_err());
    assert!(
        script_input(&json!({"stdin": 1}))
            .unwrap_err()
            .contains("stdin must be a string")
    );
    assert!(
        script_input(&json!({"files": {"a": 1}}))
            .unwrap_err()
            .contains("\"a\" is a number")
    );
    assert!(
        script_input(&json!({"argv": []}))
            .unwrap_err()
            .contains("unknown field")
    );
}

#[test]
fn file_names_are_relative_without_dot_dot() {
    for bad in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "a/", "a\\b"] {
        assert!(check_file_name(bad).is_err(), "{bad}");
    }
    for ok in ["a.txt", "dir/b.csv", "..hidden", "数据.txt"] {
        assert!(check_file_name(ok).is_ok(), "{ok}");
    }
    assert!(
        script_input(&json!({"files": {"../x": ""}}))
            .unwrap_err()
            .contains("relative")
    );
}

#[test]
fn expectation_names_only_known_parts() {
    let e = script_expectation(&json!({"stdout": "a\n", "exit_code": 3})).unwrap();
    assert_eq!(e.stdout.as_deref(), Some("a\n"));
    assert_eq!(e.expected_exit_code(), 3);
    assert_eq!(
        script_expectation(&json!({})).unwrap().expected_exit_code(),
        0
    );
    assert!(
        script_expectation(&json!({"stdout_contains": "a"}))
            .unwrap_err()
            .contains("unknown field")
    );
    assert!(script_expectation(&json!("a")).is_err());
    assert!(script_expectation(&json!({"exit_code": 1.5})).is_err());
}

#[test]
fn suite_shape_errors_name_the_field() {
    let err = parse_suite(r#"{"deliverable_type": "function"}"#).unwrap_err();
    assert_eq!(err.field, "language");
    let err = parse_suite(
        r#"{"deliverable_type": "function", "language": "python3", "entry_point": "f",
            "source_files": [{"type": "text", "name": "f.py", "text": ""}],
            "test_cases": [{"name": 5}]}"#,
    )
    .unwrap_err();
    assert_eq!(err.field, "test_cases[0].name");
    let err = parse_suite(
        r#"{"deliverable_type": "cli", "language": "python3", "entry_point": "tool.py",
            "source_files": [{"type": "text", "name": "other.py", "text": ""}], "test_cases": []}"#,
    )
    .unwrap_err();
    assert_eq!(err.field, "entry_point");
    assert!(parse_suite("[]").is_err());
}

#[test]
fn malformed_cases_still_parse_as_a_suite() {
    let suite = parse_suite(
        r#"{"deliverable_type": "function", "language": "python3", "entry_point": "f",
            "source_files": [{"type": "text", "name": "f.py", "text": ""}],
            "test_cases": [{"name": "no input"}, {"name": "ok", "input": [1], "expected": 1}]}"#,
    )
    .unwrap();
    assert_eq!(suite.test_cases.len(), 2);
    assert_eq!(suite.test_cases[0].input, Value::Null);
}

#[test]
fn summary_counts_statuses() {
    let r = |status| OracleCaseResult {
        name: String::new(),
        status,
        got: None,
        expected: None,
        message: None,
        time_ms: 0,
    };
    let report = OracleReport::new(vec![
        r(OracleCaseStatus::Passed),
        r(OracleCaseStatus::Timeout),
        r(OracleCaseStatus::InvalidTestFormat),
    ]);
    assert_eq!(report.summary.total, 3);
    assert_eq!(report.summary.timeout, 1);
    assert!(!report.summary.all_passed());
    let text = serde_json::to_value(&report).unwrap();
    assert_eq!(text["results"][2]["status"], "invalid_test_format");
}
