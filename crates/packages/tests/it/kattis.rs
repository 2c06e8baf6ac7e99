//! problemtools' example packages (fetched, `fetch.rs`): read, planned into Submissions,
//! graded.

use crate::fetch::problemtools_examples;
use verdict_contracts::{
    CompareProtocol, CompareScript, JudgeStatus, JudgeTaskResult, Language, RunScript,
    ValidatorScore,
};
use verdict_packages::grade::{self, Verdict};
use verdict_packages::{Expected, kattis, plan};

fn example(name: &str) -> verdict_packages::Problem {
    kattis::load(&problemtools_examples().join(name))
        .unwrap_or_else(|e| panic!("{name} reads: {e}"))
}

fn hello() -> verdict_packages::Problem {
    example("hello")
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
fn unsupported_versions_and_impossible_types_are_refused_naming_the_file_and_key() {
    let dir = tempfile::tempdir().expect("dir");
    let refused = |yaml: &str| {
        std::fs::write(dir.path().join("problem.yaml"), yaml).expect("write");
        kattis::load(dir.path()).expect_err("refused").to_string()
    };
    let err = refused("problem_format_version: 2030-01\n");
    assert!(
        err.contains("problem.yaml: problem_format_version: not supported"),
        "{err}"
    );
    // The format's table of types: submit-answer goes with neither.
    let err = refused("problem_format_version: 2025-09\ntype: submit-answer interactive\n");
    assert!(
        err.contains("problem.yaml: type:") && err.contains("submit-answer does not go with"),
        "{err}"
    );
}

/// An error and the causes it chains, as anyhow's `{:#}` prints them (what `judge` shows).
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// a package without its `data/` was reported as `.../data: No such file or
/// directory (os error 2): No such file or directory (os error 2)`. It names the part of the
/// format that is missing, once; so does a directory without `problem.yaml`.
#[test]
fn a_missing_part_of_a_package_is_named_once_as_the_formats_part() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("problem.yaml"), "name: Hello\n").expect("write");
    let err = chain(&kattis::load(dir.path()).expect_err("no data"));
    let data = dir.path().join("data");
    assert!(
        err.starts_with(&format!(
            "{}: missing: the test data directory",
            data.display()
        )),
        "{err}"
    );
    assert!(err.contains("data/sample/ and data/secret/"), "{err}");
    assert!(!err.contains("os error"), "{err}");

    std::fs::remove_file(dir.path().join("problem.yaml")).expect("rm");
    let err = chain(&verdict_packages::polygon::load_any(dir.path()).expect_err("empty"));
    assert!(
        err.contains("problem.yaml: missing: the problem's metadata"),
        "{err}"
    );
    let gone = dir.path().join("nowhere");
    let err = chain(&kattis::load(&gone).expect_err("no dir"));
    assert_eq!(
        err,
        format!("{}: missing: no such directory", gone.display())
    );

    // A file that cannot be read says its cause once too.
    std::fs::create_dir(dir.path().join("problem.yaml")).expect("mkdir");
    let err = chain(&kattis::load(dir.path()).expect_err("problem.yaml is a directory"));
    assert_eq!(err.matches("Is a directory").count(), 1, "{err}");
}

/// BAPCtools' `constants` links its validator's `validation.h` from outside the package (a
/// link to nothing once the package stands alone): the error said the validator's directory
/// three times before the cause. It names the link and where it points, the directory once.
#[test]
fn a_validators_link_to_a_file_outside_the_package_is_named_once() {
    let dir = tempfile::tempdir().expect("dir");
    crate::written::write(dir.path(), "problem.yaml", "name: Links\n");
    crate::written::write(dir.path(), "data/secret/1.in", "1\n");
    crate::written::write(dir.path(), "data/secret/1.ans", "1\n");
    crate::written::write(
        dir.path(),
        "output_validator/output_validator.cpp",
        "#include \"validation.h\"\nint main() { return 42; }\n",
    );
    std::os::unix::fs::symlink(
        "../../../resources/validation.h",
        dir.path().join("output_validator/validation.h"),
    )
    .expect("link");
    let err = chain(&kattis::load(dir.path()).expect_err("a link to nothing"));
    let validator = dir.path().join("output_validator");
    assert_eq!(
        err,
        format!(
            "{}: output_validator: validation.h is a symbolic link to ../../../resources/validation.h, which is not there (a file outside the package?)",
            validator.display()
        )
    );
}

/// DOMjudge's `boolfind` has `submissions/mixed-verdicts/`, whose files say what
/// they should get with `@EXPECTED_RESULTS@:`, and the whole package was refused (`unknown
/// verdict directory "mixed-verdicts"`). The annotations are read (replacing a directory's
/// claim, as DOMjudge does); a reference no rule and no annotation speaks for is skipped
/// saying so, and so is one naming a result DOMjudge does not have.
#[test]
fn input_format_validators_the_older_directory_name_are_read_as_input_validators() {
    let dir = tempfile::tempdir().expect("dir");
    let w = |name: &str, text: &str| crate::written::write(dir.path(), name, text);
    w(
        "problem.yaml",
        "name: Echo
",
    );
    w("data/secret/1.in", "1\n");
    w("data/secret/1.ans", "1\n");
    w("submissions/accepted/echo.py", "print(input())\n");
    w(
        "input_format_validators/validate.py",
        "import sys\nint(sys.stdin.readline())\nsys.exit(42)\n",
    );
    let p = kattis::load(dir.path()).expect("the package reads");
    let names: Vec<&str> = p.input_validators.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["input_format_validators/validate.py"]);
    assert!(p.input_validators[0].1.is_ok());
}

#[test]
fn domjudge_expected_results_are_read_and_an_unknown_directory_is_skipped_not_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let w = |name: &str, text: &str| crate::written::write(dir.path(), name, text);
    w("problem.yaml", "name: Echo\n");
    w("data/secret/1.in", "1\n");
    w("data/secret/1.ans", "1\n");
    w("data/secret/2.in", "2\n");
    w("data/secret/2.ans", "2\n");
    w("submissions/accepted/echo.py", "print(input())\n");
    w(
        "submissions/accepted/slow.py",
        "# @EXPECTED_RESULTS@: CORRECT, TIMELIMIT\nprint(input())\n",
    );
    w(
        "submissions/mixed-verdicts/wa_or_rte.c",
        "/*\n * @EXPECTED_RESULTS@: WRONG-ANSWER,run-error */\nint main(void) { return 1; }\n",
    );
    w("submissions/mixed-verdicts/unsaid.py", "print(2)\n");
    // How to read a program is no rule of what it should get.
    w(
        "submissions/submissions.yaml",
        "mixed-verdicts/unsaid.py:\n  language: python3\n",
    );
    w(
        "submissions/mixed-verdicts/unknown.py",
        "# @EXPECTED_RESULTS@: CORRECT, SLOW\nprint(2)\n",
    );
    let p = kattis::load(dir.path()).expect("the package reads");
    let of = |name: &str| {
        p.submissions
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("{name} is a reference"))
    };
    assert_eq!(of("accepted/echo.py").expected, Expected::Accepted);
    let slow = of("accepted/slow.py");
    assert_eq!(
        slow.expected,
        Expected::Custom,
        "the annotation replaces accepted/"
    );
    assert_eq!(
        slow.requirements[0].permitted.as_deref(),
        Some(&["AC".to_owned(), "TLE".to_owned()][..])
    );
    let mixed = of("mixed-verdicts/wa_or_rte.c");
    assert!(mixed.program.is_ok(), "{:?}", mixed.program);
    assert_eq!(
        mixed.requirements[0].required.as_deref(),
        Some(&["WA".to_owned(), "RTE".to_owned()][..])
    );
    let unsaid = of("mixed-verdicts/unsaid.py")
        .program
        .as_ref()
        .expect_err("skipped");
    assert!(
        unsaid.contains("submissions/mixed-verdicts is no verdict directory")
            && unsaid.contains("@EXPECTED_RESULTS@"),
        "{unsaid}"
    );
    let unknown = of("mixed-verdicts/unknown.py")
        .program
        .as_ref()
        .expect_err("skipped");
    assert!(
        unknown.contains("\"SLOW\" is not one of DOMjudge's results"),
        "{unknown}"
    );

    // Graded as DOMjudge and BAPCtools read the annotation: WA then RTE agrees, all accepted
    // does not (CORRECT is not among its results), TLE anywhere does not.
    let graded = |statuses: &[JudgeStatus]| {
        let results = results(statuses);
        let g = grade::grade(&p, &results);
        let agrees = grade::agrees(mixed.expected, &g, false, 1.0);
        (agrees, grade::unmet_requirements(&p, mixed, &g, &results))
    };
    let (agrees, unmet) = graded(&[JudgeStatus::WrongAnswer, JudgeStatus::RuntimeError]);
    assert!(agrees && unmet.is_empty(), "{unmet:?}");
    let (_, unmet) = graded(&[JudgeStatus::Accepted, JudgeStatus::Accepted]);
    assert_eq!(unmet.len(), 1, "{unmet:?}");
    assert!(
        unmet[0].starts_with(
            "mixed-verdicts/wa_or_rte.c: @EXPECTED_RESULTS@: WRONG-ANSWER,run-error: required"
        ),
        "{unmet:?}"
    );
    let (_, unmet) = graded(&[JudgeStatus::WrongAnswer, JudgeStatus::TimeLimitExceeded]);
    assert!(
        unmet[0].contains("permitted [AC, WA, RTE], secret/2 got TLE"),
        "{unmet:?}"
    );
}

/// From 2023-07 on, a scoring problem's output validator may score each accepted test
/// (`score.txt`: the score; `score_multiplier.txt`: a fraction of `accept_score`): oddecho
/// with a validator loads, and a test's `validator_score` replaces its `accept_score` in the
/// grade (problemtools' rules); a score on a pass-fail problem, or none on a legacy
/// `validation: custom score` one, is a judge error.
#[test]
fn a_scoring_problems_validator_scores_are_graded_in_place_of_accept_score() {
    let (_keep, dir) = crate::fetch::copy_of("oddecho");
    let validator = dir.join("output_validator");
    std::fs::create_dir_all(&validator).expect("mkdir");
    std::fs::write(
        validator.join("validate.py"),
        "import sys\nopen(sys.argv[3] + '/score.txt', 'w').write('7')\nsys.exit(42)\n",
    )
    .expect("write");
    let p = kattis::load(&dir).expect("a scoring problem with a validator reads");
    assert!(p.kind.scoring && !p.kind.custom_score);
    let names: Vec<String> = p.data.cases().iter().map(|(c, _)| c.name.clone()).collect();
    let results = |score: &dyn Fn(&str) -> Option<ValidatorScore>| {
        let mut all = vec![JudgeTaskResult::with_status(JudgeStatus::Accepted, "")];
        for name in &names {
            let mut r = JudgeTaskResult::with_status(JudgeStatus::Accepted, "");
            r.validator_score = score(name);
            all.push(r);
        }
        all
    };
    let none = grade::grade(&p, &results(&|_| None));
    assert_eq!((none.verdict, none.score), (Verdict::Accepted, 100.0));
    // subtask1 (min of its tests' scores, at most 50): 30; subtask2 (accept_score 50): 50.
    let thirty = grade::grade(
        &p,
        &results(&|n| {
            n.contains("subtask1")
                .then_some(ValidatorScore::Score(30.0))
        }),
    );
    assert_eq!((thirty.verdict, thirty.score), (Verdict::Accepted, 80.0));
    let half = grade::grade(
        &p,
        &results(&|n| (n == "secret/subtask2/01").then_some(ValidatorScore::Multiplier(0.5))),
    );
    assert_eq!(half.score, 75.0, "50 + 0.5 x 50");
    // The same scores on a pass-fail problem are a judge error.
    let mut pass_fail = p.clone();
    pass_fail.kind.scoring = false;
    let je = grade::grade(&pass_fail, &results(&|_| Some(ValidatorScore::Score(1.0))));
    assert_eq!(je.verdict, Verdict::JudgeError);
    // Legacy `validation: custom score`: an acceptance without score.txt is a judge error.
    std::fs::write(
        dir.join("problem.yaml"),
        "type: scoring\nvalidation: custom score\nname: Odd Echo\n",
    )
    .expect("write");
    let legacy = kattis::load(&dir).expect("custom score reads");
    assert!(legacy.kind.custom_score);
    let missing = grade::grade(&legacy, &results(&|_| None));
    assert_eq!(missing.verdict, Verdict::JudgeError);
    let scored = grade::grade(&legacy, &results(&|_| Some(ValidatorScore::Score(20.0))));
    assert_eq!((scored.verdict, scored.score), (Verdict::Accepted, 40.0));
}

/// BAPCtools' `multipass` (fetched): a 2025-09 multi-pass problem whose tests run at most
/// `limits.validation_passes` (default 2) passes; `.gitkeep` files are no references.
#[test]
fn bapctools_multipass_reads_as_a_multi_pass_problem_of_two_passes() {
    let p = kattis::load(&crate::fetch::bapctools_problems().join("multipass")).expect("reads");
    assert!(p.kind.multi_pass && !p.kind.interactive);
    assert_eq!(p.validation_passes, 2);
    let names: Vec<_> = p.submissions.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"accepted/absolute.py"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains(".gitkeep")), "{names:?}");
    let r = &p.submissions[0];
    let s =
        plan::submission(&p, r.program.as_ref().expect("program"), &r.name, 1000).expect("planned");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    assert_eq!(s.judge_tasks[1].passes, Some(2));
    assert_eq!(s.judge_tasks[1].run_script, Some(RunScript::Standard));
    assert_eq!(s.judge_tasks[1].compare_script, Some(CompareScript::Custom));
    let p = kattis::load(&crate::fetch::bapctools_problems().join("interactivemultipass"))
        .expect("reads");
    assert!(p.kind.multi_pass && p.kind.interactive);
    let r = &p.submissions[0];
    let s =
        plan::submission(&p, r.program.as_ref().expect("program"), &r.name, 1000).expect("planned");
    assert_eq!(s.judge_tasks[1].run_script, Some(RunScript::Interactive));
    assert_eq!(s.judge_tasks[1].passes, Some(2));
}

#[test]
fn guess_reads_as_an_interactive_problem_whose_validator_is_the_interactor() {
    let p = example("guess");
    assert!(p.kind.interactive && !p.kind.scoring);
    assert_eq!(p.time_limit_to_tle, 4.0, "limits.time_multipliers");
    // data/sample holds `.interaction` files only: no test cases there.
    let cases: Vec<_> = p.data.cases().iter().map(|(c, _)| c.name.clone()).collect();
    assert_eq!(cases.len(), 10);
    assert!(cases.iter().all(|c| c.starts_with("secret/")), "{cases:?}");
    let validator = p.output_validator.as_ref().expect("output_validator/");
    assert_eq!(validator.source().language, Language::Cpp);
    assert!(
        validator
            .source()
            .assist_files
            .iter()
            .any(|a| a.name == "validate.h")
    );
    let r = &p.submissions[0];
    let s =
        plan::submission(&p, r.program.as_ref().expect("program"), &r.name, 1000).expect("planned");
    assert!(s.problems().is_empty(), "{:?}", s.problems());
    assert_eq!(s.judge_tasks[1].run_script, Some(RunScript::Interactive));
    assert_eq!(s.compare_protocol, Some(CompareProtocol::Kattis));
}

#[test]
fn different_keeps_its_checktestdata_validator_as_skipped_and_its_python_one() {
    let p = example("different");
    let names: Vec<_> = p
        .input_validators
        .iter()
        .map(|(n, v)| (n.clone(), v.is_ok()))
        .collect();
    assert_eq!(
        names,
        [
            ("input_validators/different.ctd".to_owned(), false),
            ("input_validators/validate.py".to_owned(), true)
        ]
    );
    assert_eq!(p.time_limit_to_tle, 4.0, "legacy limits.time_safety_margin");
    // Languages verdict does not judge are kept with the reason, not dropped.
    let lisp = p
        .submissions
        .iter()
        .find(|r| r.name == "accepted/different.lisp")
        .expect("different.lisp");
    assert!(lisp.program.is_err());
}

/// Results of a judged oddecho submission: the compile task, then `statuses` in case order.
fn results(statuses: &[JudgeStatus]) -> Vec<JudgeTaskResult> {
    std::iter::once(JudgeStatus::Accepted)
        .chain(statuses.iter().copied())
        .map(|s| JudgeTaskResult::with_status(s, ""))
        .collect()
}

#[test]
fn oddecho_grades_by_its_groups_and_ignores_its_samples() {
    let p = example("oddecho");
    assert!(p.kind.scoring);
    assert_eq!(
        grade::max_score(&p),
        100.0,
        "data/testdata.yaml range 0 100"
    );
    let names: Vec<_> = p.data.cases().iter().map(|(c, _)| c.name.clone()).collect();
    let n = names.len();
    let sub1 = names
        .iter()
        .filter(|c| c.starts_with("secret/subtask1/"))
        .count();
    assert_eq!(sub1, 3);
    let first_sub2 = names
        .iter()
        .position(|c| c.starts_with("secret/subtask2/"))
        .expect("subtask2");
    let all = |s| vec![s; n];
    let full = grade::grade(&p, &results(&all(JudgeStatus::Accepted)));
    assert_eq!((full.verdict, full.score), (Verdict::Accepted, 100.0));
    // Wrong on the samples only: ignore_sample.
    let mut st = all(JudgeStatus::Accepted);
    st[0] = JudgeStatus::WrongAnswer;
    let g = grade::grade(&p, &results(&st));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 100.0));
    // Wrong in subtask 2: subtask 1's 50 points, and secret accepts if any group does.
    let mut st = all(JudgeStatus::Accepted);
    st[first_sub2 + 1] = JudgeStatus::WrongAnswer;
    let g = grade::grade(&p, &results(&st));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 50.0));
    assert!(grade::agrees(Expected::PartiallyAccepted, &g, true, 100.0));
    assert!(!grade::agrees(Expected::Accepted, &g, true, 100.0));
    // Wrong everywhere in secret: rejected with nothing.
    let mut st = all(JudgeStatus::WrongAnswer);
    st[0] = JudgeStatus::Accepted;
    let g = grade::grade(&p, &results(&st));
    assert_eq!((g.verdict, g.score), (Verdict::WrongAnswer, 0.0));
    // Groups that go on after a rejection are never judged lazily.
    assert!(!plan::first_rejection_decides(&p));
    assert!(plan::first_rejection_decides(&hello()));
}
