//! Unit tests of the parent module.
use super::*;
use crate::judge::{DependsCond, JudgeTask, SourceCode, TestDatum};

fn task(check: CheckScript, run: Option<RunScript>, compare: Option<CompareScript>) -> JudgeTask {
    JudgeTask {
        check_script: check,
        run_script: run,
        compare_script: compare,
        is_random: false,
        testcase_id: None,
        depends_on: -1,
        depends_cond: None,
        memory_limit: None,
        time_limit: 1000,
        file_limit: None,
        proc_limit: None,
        run_args: None,
        validator_flags: None,
        passes: None,
        answer_file: None,
    }
}

fn program(language: Language, files: &[&str]) -> Program {
    Program::SourceCode(SourceCode {
        language,
        entry_point: None,
        source_files: files.iter().map(|n| Asset::text(*n, "")).collect(),
        assist_files: Vec::new(),
        compile_command: None,
    })
}

fn datum() -> TestDatum {
    TestDatum {
        inputs: vec![Asset::text("testdata.in", "1 2\n")],
        outputs: vec![Asset::text("testdata.out", "3\n")],
        name: None,
    }
}

/// A valid request: compile, then a standard test on datum 0 that depends on it.
fn valid() -> Submission {
    let mut test = task(
        CheckScript::Standard,
        Some(RunScript::Standard),
        Some(CompareScript::DiffAll),
    );
    test.testcase_id = Some(0);
    test.depends_on = 0;
    test.depends_cond = Some(DependsCond::Accepted);
    Submission {
        sub_type: SubType::Programming,
        category: "oj".into(),
        prob_id: "p".into(),
        sub_id: "s".into(),
        updated_at: 1,
        judge_tasks: vec![task(CheckScript::Compile, None, None), test],
        test_data: vec![datum(), datum(), datum()],
        submission: program(Language::C, &["main.c"]),
        standard: None,
        random: None,
        compare: None,
        compare_protocol: None,
    }
}

/// The request's only problem message.
fn problem(submission: &Submission) -> String {
    let problems = submission.problems();
    assert_eq!(problems.len(), 1, "expected one problem, got {problems:?}");
    problems[0].to_string()
}

/// The one problem of the valid request after `change`.
fn problem_of(change: impl FnOnce(&mut Submission)) -> String {
    let mut s = valid();
    change(&mut s);
    problem(&s)
}

#[test]
fn the_base_request_is_valid() {
    assert_eq!(valid().problems(), []);
    assert!(valid().validate().is_ok());
}

#[test]
fn sub_type_other_than_programming_is_unsupported() {
    assert_eq!(
        problem_of(|s| s.sub_type = SubType::Choice),
        r#"sub_type: "choice" is not supported (this judge implements "programming" and, with answer tests, "output")"#
    );
}

#[test]
fn sub_type_output_is_a_submission_of_answer_tests_only() {
    let mut s = valid();
    s.sub_type = SubType::Output;
    assert_eq!(
        problem(&s),
        r#"sub_type: "output" (a program-output question) needs every task to be an answer test (check_script "standard", run_script "answer")"#
    );
    s.judge_tasks.remove(0);
    s.judge_tasks[0].run_script = Some(RunScript::Answer);
    s.judge_tasks[0].depends_on = -1;
    s.judge_tasks[0].answer_file = Some("1.out".into());
    assert_eq!(s.problems(), []);
}

#[test]
fn judge_tasks_must_not_be_empty() {
    let mut s = valid();
    s.judge_tasks.clear();
    assert_eq!(problem(&s), "judge_tasks: must hold at least one task");
}

#[test]
fn testcase_id_out_of_range() {
    let mut s = valid();
    s.judge_tasks.push(s.judge_tasks[1].clone());
    s.judge_tasks[2].testcase_id = Some(7);
    assert_eq!(
        problem(&s),
        "judge_tasks[2].testcase_id: 7 is out of range (3 test data)"
    );
    s.test_data.truncate(1);
    assert_eq!(
        problem(&s),
        "judge_tasks[2].testcase_id: 7 is out of range (1 test datum)"
    );
}

#[test]
fn testcase_id_below_minus_one() {
    let mut s = valid();
    s.judge_tasks[1].testcase_id = Some(-2);
    let problems: Vec<String> = s.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "judge_tasks[1].testcase_id: -2 is invalid (use -1 or null for no test datum)",
            "judge_tasks[1].testcase_id: a standard test needs a test datum (or is_random: true)",
        ]
    );
}

#[test]
fn standard_test_needs_a_datum_or_randomness() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].testcase_id = Some(-1)),
        "judge_tasks[1].testcase_id: a standard test needs a test datum (or is_random: true)"
    );
}

#[test]
fn depends_on_itself() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].depends_on = 1),
        "judge_tasks[1].depends_on: a task cannot depend on itself"
    );
}

#[test]
fn depends_on_a_later_task() {
    assert_eq!(
        problem_of(|s| {
            s.judge_tasks.push(s.judge_tasks[1].clone());
            s.judge_tasks[1].depends_on = 2;
        }),
        "judge_tasks[1].depends_on: 2 is a later task; a task may depend only on an earlier one"
    );
}

#[test]
fn depends_on_out_of_range() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].depends_on = 9),
        "judge_tasks[1].depends_on: 9 is out of range (2 tasks)"
    );
}

#[test]
fn depends_on_below_minus_one() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[0].depends_on = -3),
        "judge_tasks[0].depends_on: -3 is invalid (use -1 for no dependency)"
    );
}

#[test]
fn depends_cond_is_required_with_depends_on() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].depends_cond = None),
        r#"judge_tasks[1].depends_cond: required when depends_on is set (one of "ACCEPTED", "NOT_TIME_LIMIT", "PARTIAL_CORRECT")"#
    );
}

#[test]
fn depends_cond_without_depends_on_is_ignored() {
    let mut s = valid();
    s.judge_tasks[0].depends_cond = Some(DependsCond::NotTimeLimit);
    assert_eq!(s.problems(), []);
}

#[test]
fn compile_task_has_no_run_script() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[0].run_script = Some(RunScript::Standard)),
        r#"judge_tasks[0].run_script: must be null for a compile task (got "standard")"#
    );
}

#[test]
fn static_task_has_no_compare_script() {
    assert_eq!(
        problem_of(|s| {
            s.judge_tasks.push(task(
                CheckScript::Static,
                None,
                Some(CompareScript::DiffAll),
            ));
        }),
        r#"judge_tasks[2].compare_script: must be null for a static task (got "diff-all")"#
    );
}

#[test]
fn standard_task_needs_a_run_script() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].run_script = None),
        r#"judge_tasks[1].run_script: required for a standard task (one of "standard", "gtest", "valgrind", "interactive", "answer")"#
    );
}

#[test]
fn standard_run_needs_a_compare_script() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].compare_script = None),
        r#"judge_tasks[1].compare_script: required with run_script "standard" (one of "diff-ign-space", "diff-all", "icpc-default", "")"#
    );
}

#[test]
fn standard_run_cannot_compare_with_gtest() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].compare_script = Some(CompareScript::Gtest)),
        r#"judge_tasks[1].compare_script: "gtest" does not go with run_script "standard" (use "diff-ign-space", "diff-all", "icpc-default" or "")"#
    );
}

#[test]
fn gtest_run_compares_with_gtest_or_null() {
    let mut s = valid();
    s.judge_tasks
        .push(task(CheckScript::Standard, Some(RunScript::Gtest), None));
    assert_eq!(s.problems(), []);
    s.judge_tasks[2].compare_script = Some(CompareScript::DiffAll);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[2].compare_script: "diff-all" does not go with run_script "gtest" (use "gtest")"#
    );
}

#[test]
fn valgrind_run_compares_with_valgrind_or_null() {
    let mut s = valid();
    s.judge_tasks.push(task(
        CheckScript::Standard,
        Some(RunScript::Valgrind),
        Some(CompareScript::Valgrind),
    ));
    assert_eq!(s.problems(), []);
    s.judge_tasks[2].compare_script = Some(CompareScript::Gtest);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[2].compare_script: "gtest" does not go with run_script "valgrind" (use "valgrind")"#
    );
}

#[test]
fn custom_comparator_needs_submission_compare() {
    let mut s = valid();
    s.judge_tasks[1].compare_script = Some(CompareScript::Custom);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].compare_script: "" (the custom comparator) needs Submission.compare, which is missing"#
    );
    s.compare = Some(program(Language::Cpp, &["compare.cpp"]));
    assert_eq!(s.problems(), []);
}

#[test]
fn random_test_needs_standard_and_random_programs() {
    let mut s = valid();
    s.judge_tasks[1].is_random = true;
    s.judge_tasks[1].testcase_id = Some(-1);
    s.standard = Some(program(Language::Cpp, &["std.cpp"]));
    assert_eq!(
        problem(&s),
        "judge_tasks[1].is_random: a random test needs Submission.standard and Submission.random (missing: random)"
    );
    s.random = Some(program(Language::Python3, &["gen.py"]));
    assert_eq!(s.problems(), []);
}

#[test]
fn only_standard_and_memory_tests_are_random() {
    assert_eq!(
        problem_of(|s| {
            s.standard = Some(program(Language::Cpp, &["std.cpp"]));
            s.random = Some(program(Language::Python3, &["gen.py"]));
            s.judge_tasks[0].is_random = true;
        }),
        r#"judge_tasks[0].is_random: only standard and memory tests (run_script "standard" or "valgrind") can be random"#
    );
}

#[test]
fn random_test_has_no_testcase() {
    assert_eq!(
        problem_of(|s| {
            s.standard = Some(program(Language::Cpp, &["std.cpp"]));
            s.random = Some(program(Language::Python3, &["gen.py"]));
            s.judge_tasks[1].is_random = true;
        }),
        "judge_tasks[1].testcase_id: must be -1 or null for a random test (got 0)"
    );
}

#[test]
fn time_limit_must_be_positive() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].time_limit = 0),
        "judge_tasks[1].time_limit: must be a positive number of milliseconds (got 0)"
    );
}

#[test]
fn memory_limit_minus_one_or_positive() {
    let mut s = valid();
    s.judge_tasks[1].memory_limit = Some(-1);
    assert_eq!(s.problems(), []);
    for bad in [0, -2] {
        s.judge_tasks[1].memory_limit = Some(bad);
        assert_eq!(
            problem(&s),
            format!(
                "judge_tasks[1].memory_limit: must be a positive number of KB, or -1 or null for no limit (got {bad})"
            )
        );
    }
}

#[test]
fn file_limit_minus_one_or_not_negative() {
    let mut s = valid();
    for ok in [-1, 0, 1024] {
        s.judge_tasks[1].file_limit = Some(ok);
        assert_eq!(s.problems(), []);
    }
    s.judge_tasks[1].file_limit = Some(-5);
    assert_eq!(
        problem(&s),
        "judge_tasks[1].file_limit: must be a number of KB, or -1 or null for no limit (got -5)"
    );
}

#[test]
fn proc_limit_one_makes_judging_fail() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].proc_limit = Some(1)),
        "judge_tasks[1].proc_limit: 1 makes judging fail; use at least 2 (3 to 10 is suggested), or -1 or null for no limit"
    );
}

#[test]
fn proc_limit_zero_or_below_minus_one() {
    let mut s = valid();
    for ok in [-1, 2, 10] {
        s.judge_tasks[1].proc_limit = Some(ok);
        assert_eq!(s.problems(), []);
    }
    for bad in [0, -4] {
        s.judge_tasks[1].proc_limit = Some(bad);
        assert_eq!(
            problem(&s),
            format!(
                "judge_tasks[1].proc_limit: must be at least 2, or -1 or null for no limit (got {bad})"
            )
        );
    }
}

#[test]
fn source_files_must_not_be_empty() {
    assert_eq!(
        problem_of(|s| s.submission = program(Language::C, &[])),
        "submission.source_files: must hold at least one file"
    );
}

#[test]
fn make_program_starts_with_makefile() {
    let mut s = valid();
    s.submission = program(Language::Make, &["main.c", "Makefile"]);
    assert_eq!(
        problem(&s),
        r#"submission.source_files[0].name: the first source file of a make program must be "Makefile" (got "main.c")"#
    );
    s.submission = program(Language::Make, &["Makefile", "main.c"]);
    assert_eq!(s.problems(), []);
}

#[test]
fn asset_name_must_not_be_empty() {
    assert_eq!(
        problem_of(|s| s.test_data[1].inputs[0].name = String::new()),
        "test_data[1].inputs[0].name: must not be empty"
    );
}

#[test]
fn asset_name_must_be_relative() {
    assert_eq!(
        problem_of(|s| s.submission = program(Language::C, &["/etc/passwd"])),
        r#"submission.source_files[0].name: "/etc/passwd" must be a relative path"#
    );
}

#[test]
fn asset_name_must_not_climb_out() {
    let mut s = valid();
    s.test_data[0].outputs[0].name = "out/../../x".into();
    assert_eq!(
        problem(&s),
        r#"test_data[0].outputs[0].name: "out/../../x" must not contain a ".." component"#
    );
    s.test_data[0].outputs[0].name = "..hidden/x..y".into();
    assert_eq!(s.problems(), []);
}

#[test]
fn asset_name_must_not_hold_nul() {
    assert_eq!(
        problem_of(|s| s.test_data[0].inputs[0].name = "a\0b".into()),
        "test_data[0].inputs[0].name: must not contain a NUL byte"
    );
}

#[test]
fn asset_name_must_name_a_file() {
    assert_eq!(
        problem_of(|s| s.test_data[0].inputs[0].name = "dir/".into()),
        r#"test_data[0].inputs[0].name: "dir/" must name a file"#
    );
}

#[test]
fn asset_names_longer_than_the_host_allows_are_refused_naming_the_field() {
    let mut s = valid();
    s.test_data[0].inputs[0].name = format!("{}.in", "a".repeat(300));
    let message = problem(&s);
    assert!(
        message.starts_with("test_data[0].inputs[0].name: has a component of 303 bytes"),
        "{message}"
    );
    assert!(message.contains("NAME_MAX"), "{message}");
    s.test_data[0].inputs[0].name = vec!["d"; 600].join("/");
    let message = problem(&s);
    assert_eq!(
        message,
        "test_data[0].inputs[0].name: is 1199 bytes long, over the 1024 a name may have"
    );
    s.test_data[0].inputs[0].name = format!("{}/x", "a".repeat(255));
    assert!(s.problems().is_empty(), "255 bytes is NAME_MAX itself");
}

#[test]
fn asset_names_are_unique_within_a_program() {
    let mut s = valid();
    let Program::SourceCode(source) = &mut s.submission;
    source.assist_files.push(Asset::text("main.c", ""));
    assert_eq!(
        problem(&s),
        r#"submission.assist_files[0].name: "main.c" is already the name of submission.source_files[0]"#
    );
}

#[test]
fn asset_needs_its_content() {
    let mut s = valid();
    s.test_data[2].inputs[0].kind = AssetKind::Remote;
    assert_eq!(
        problem(&s),
        r#"test_data[2].inputs[0].url: required for a "remote" asset"#
    );
    s.test_data[2].inputs[0].kind = AssetKind::Local;
    assert_eq!(
        problem(&s),
        r#"test_data[2].inputs[0].path: required for a "local" asset"#
    );
    s.test_data[2].inputs[0].kind = AssetKind::Text;
    s.test_data[2].inputs[0].text = None;
    assert_eq!(
        problem(&s),
        r#"test_data[2].inputs[0].text: required for a "text" asset"#
    );
}

#[test]
fn remote_asset_url_is_http() {
    let mut s = valid();
    let asset = &mut s.test_data[0].inputs[0];
    asset.kind = AssetKind::Remote;
    asset.url = Some("file:///etc/shadow".into());
    assert_eq!(
        problem(&s),
        r#"test_data[0].inputs[0].url: "file:///etc/shadow" must be an http:// or https:// URL"#
    );
    s.test_data[0].inputs[0].url = Some("HTTPS://oj.example.invalid/1.in".into());
    assert_eq!(s.problems(), []);
}

#[test]
fn local_asset_path_is_not_empty() {
    let mut s = valid();
    let asset = &mut s.test_data[0].inputs[0];
    asset.kind = AssetKind::Local;
    asset.path = Some(String::new());
    assert_eq!(
        problem(&s),
        "test_data[0].inputs[0].path: must be a non-empty path without NUL bytes"
    );
}

#[test]
fn every_problem_is_reported_in_one_message() {
    let mut s = valid();
    s.judge_tasks[1].time_limit = -1;
    s.judge_tasks[1].testcase_id = Some(3);
    let invalid = s.validate().unwrap_err();
    assert_eq!(invalid.sub_id, "s");
    assert_eq!(
        invalid.message(),
        "judge_tasks[1].testcase_id: 3 is out of range (3 test data); \
         judge_tasks[1].time_limit: must be a positive number of milliseconds (got -1)"
    );
    let report = invalid.into_report();
    assert!(report.results.is_empty());
    assert_eq!(report.sub_type, "programming");
}

#[test]
fn an_interactive_task_takes_the_custom_compare_script_and_the_interactor() {
    let mut s = valid();
    s.judge_tasks[1].run_script = Some(RunScript::Interactive);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].compare_script: must be "" with run_script "interactive" (Submission.compare is the interactor; got "diff-all")"#
    );
    s.judge_tasks[1].compare_script = Some(CompareScript::Custom);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].compare_script: "" (the custom comparator) needs Submission.compare, which is missing"#
    );
    s.compare = Some(program(Language::Cpp, &["interactor.cpp"]));
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s.judge_tasks[1].testcase_id = None;
    assert_eq!(
        problem(&s),
        "judge_tasks[1].testcase_id: a standard test needs a test datum (or is_random: true)"
    );
}

#[test]
fn an_interactive_task_cannot_be_random() {
    assert_eq!(
        problem_of(|s| {
            s.judge_tasks[1].run_script = Some(RunScript::Interactive);
            s.judge_tasks[1].compare_script = Some(CompareScript::Custom);
            s.compare = Some(program(Language::Cpp, &["interactor.cpp"]));
            s.standard = Some(program(Language::C, &["std.c"]));
            s.random = Some(program(Language::C, &["gen.c"]));
            s.judge_tasks[1].is_random = true;
            s.judge_tasks[1].testcase_id = Some(-1);
        }),
        r#"judge_tasks[1].is_random: only standard and memory tests (run_script "standard" or "valgrind") can be random"#
    );
}

#[test]
fn icpc_default_goes_with_standard_and_answer_runs_only() {
    let mut s = valid();
    s.judge_tasks[1].compare_script = Some(CompareScript::IcpcDefault);
    s.judge_tasks[1].validator_flags = Some(vec!["float_tolerance".into(), "1e-6".into()]);
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s.judge_tasks[1].run_script = Some(RunScript::Valgrind);
    assert!(
        s.problems().iter().any(|p| p
            .to_string()
            .contains("\"icpc-default\" goes with run_script \"standard\" or \"answer\" only")),
        "{:?}",
        s.problems()
    );
}

#[test]
fn the_extensions_are_absent_from_a_request_that_does_not_use_them() {
    let text = serde_json::to_value(valid()).expect("json");
    assert!(text.get("compare_protocol").is_none());
    assert!(text["judge_tasks"][1].get("validator_flags").is_none());
    let mut s = valid();
    s.compare_protocol = Some(crate::judge::CompareProtocol::Kattis);
    let text = serde_json::to_value(&s).expect("json");
    assert_eq!(text["compare_protocol"], "kattis");
}

#[test]
fn a_multi_pass_task_needs_a_custom_kattis_validator_and_a_bounded_count() {
    let mut s = valid();
    s.judge_tasks[1].passes = Some(2);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].passes: a multi-pass test needs run_script "standard" or "interactive" with compare_script "" (the validator writes the next pass's input)"#
    );
    s.judge_tasks[1].compare_script = Some(CompareScript::Custom);
    s.compare = Some(program(Language::Python3, &["validator.py"]));
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s.judge_tasks[1].run_script = Some(RunScript::Interactive);
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s.judge_tasks[1].passes = Some(0);
    assert_eq!(
        problem(&s),
        "judge_tasks[1].passes: 0 is out of range (1 to 100)"
    );
    s.judge_tasks[1].passes = Some(3);
    s.compare_protocol = Some(CompareProtocol::Testlib);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].passes: a multi-pass test needs a kattis validator (compare_protocol is "testlib")"#
    );
    s.compare_protocol = Some(CompareProtocol::Kattis);
    let text = serde_json::to_value(&s).expect("json");
    assert_eq!(text["judge_tasks"][1]["passes"], 3);
    assert!(text["judge_tasks"][0].get("passes").is_none());
}

#[test]
fn an_answer_task_names_a_safe_answer_file_and_compares_its_output() {
    let mut s = valid();
    s.judge_tasks[1].run_script = Some(RunScript::Answer);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].answer_file: required with run_script "answer" (the submission's file compared as the output)"#
    );
    s.judge_tasks[1].answer_file = Some("../secret/1.ans".into());
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].answer_file: "../secret/1.ans" must not contain a ".." component"#
    );
    s.judge_tasks[1].answer_file = Some("secret/1.out".into());
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s.judge_tasks[1].compare_script = Some(CompareScript::IcpcDefault);
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    s.judge_tasks[1].compare_script = Some(CompareScript::Valgrind);
    assert_eq!(
        problem(&s),
        r#"judge_tasks[1].compare_script: "valgrind" does not go with run_script "answer" (use "diff-ign-space", "diff-all", "icpc-default" or "")"#
    );
    s.judge_tasks[1].compare_script = Some(CompareScript::DiffAll);
    s.judge_tasks[1].testcase_id = None;
    assert_eq!(
        problem(&s),
        "judge_tasks[1].testcase_id: a standard test needs a test datum (or is_random: true)"
    );
    s.judge_tasks[1].testcase_id = Some(0);
    s.judge_tasks[1].passes = Some(2);
    assert!(problem(&s).starts_with("judge_tasks[1].passes: a multi-pass test needs"));
}

#[test]
fn an_answer_file_goes_with_run_script_answer_only() {
    assert_eq!(
        problem_of(|s| s.judge_tasks[1].answer_file = Some("1.out".into())),
        r#"judge_tasks[1].answer_file: goes with run_script "answer" only"#
    );
}
