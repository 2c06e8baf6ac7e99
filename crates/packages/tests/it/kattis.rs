//! problemtools' `hello` package (tests/fixtures/hello): read, planned into Submissions.

use std::path::Path;
use verdict_contracts::{CompareScript, Language, RunScript};
use verdict_packages::{Expected, kattis, plan};

fn hello() -> verdict_packages::Problem {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hello");
    kattis::load(&dir).expect("hello reads")
}

#[test]
fn hello_reads_as_a_legacy_pass_fail_problem_with_its_references() {
    let p = hello();
    assert_eq!(p.format, "legacy");
    assert!(!p.kind.scoring && !p.kind.interactive);
    assert_eq!(p.memory_mib, 512, "limits.memory");
    assert_eq!(p.time_limit_ms, None, "legacy packages derive it");
    assert_eq!(p.ac_to_time_limit, 5.0);
    let cases: Vec<_> = p.data.cases().iter().map(|(c, _)| c.name.clone()).collect();
    assert_eq!(cases, ["secret/hello"]);
    assert!(p.output_validator.is_none());
    assert_eq!(p.input_validators.len(), 1);
    let by = |e: Expected| p.submissions.iter().filter(|r| r.expected == e).count();
    assert_eq!(by(Expected::Accepted), 6);
    assert_eq!(by(Expected::RunTimeError), 1);
    assert_eq!(by(Expected::WrongAnswer), 1);
    let cc = p
        .submissions
        .iter()
        .find(|r| r.name == "accepted/hello.cc")
        .expect("hello.cc");
    let program = cc.program.as_ref().expect("a C++ program");
    assert_eq!(program.source().language, Language::Cpp);
}

#[test]
fn a_reference_becomes_a_submission_with_the_default_validator() {
    let p = hello();
    let r = &p.submissions[0];
    let s =
        plan::submission(&p, r.program.as_ref().expect("program"), &r.name, 1000).expect("planned");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    assert_eq!(s.judge_tasks.len(), 2);
    assert_eq!(s.judge_tasks[1].run_script, Some(RunScript::Standard));
    assert_eq!(
        s.judge_tasks[1].compare_script,
        Some(CompareScript::IcpcDefault)
    );
    assert_eq!(s.judge_tasks[1].memory_limit, Some(512 * 1024));
    assert_eq!(
        s.test_data[0].outputs[0].text.as_deref(),
        Some("Hello World!\n")
    );
}

#[test]
fn unsupported_kinds_are_refused_naming_the_file_and_key() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("problem.yaml"),
        "problem_format_version: 2023-07-draft\ntype: multi-pass\n",
    )
    .expect("write");
    let err = kattis::load(dir.path()).expect_err("refused").to_string();
    assert!(err.contains("problem.yaml: type: not supported"), "{err}");
}
