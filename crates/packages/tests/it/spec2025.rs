//! 2025-09 scoring ("Result aggregation": `max_score`, `score_aggregation`, `require_pass`) on
//! a package written as the specification lays it out (`written::scoring_2025`): read with
//! its defaults, graded, and its misuses refused naming the file and key.

use crate::written::{scoring_2025, write};
use verdict_contracts::{JudgeStatus, JudgeTaskResult, ValidatorScore};
use verdict_packages::grade::{self, Verdict};
use verdict_packages::{Expected, GroupScoring, ScoreAggregation, kattis, plan};

fn package() -> (tempfile::TempDir, std::path::PathBuf) {
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = scratch.path().join("echo");
    scoring_2025(&dir);
    (scratch, dir)
}

/// The compile task, then each case's status and validator score from `case(name)`.
fn results(
    p: &verdict_packages::Problem,
    case: &dyn Fn(&str) -> (JudgeStatus, Option<ValidatorScore>),
) -> Vec<JudgeTaskResult> {
    let mut all = vec![JudgeTaskResult::with_status(JudgeStatus::Accepted, "")];
    for (c, _) in p.data.cases() {
        let (status, score) = case(&c.name);
        let mut r = JudgeTaskResult::with_status(status, "");
        r.validator_score = score;
        all.push(r);
    }
    all
}

/// What the echo references output on each case: accepted when `f(x) == x`.
fn echoing(p: &verdict_packages::Problem, f: &dyn Fn(i64) -> i64) -> Vec<JudgeTaskResult> {
    let inputs: Vec<(String, i64)> = p
        .data
        .cases()
        .iter()
        .map(|(c, _)| {
            let text = std::fs::read_to_string(&c.input).expect("input");
            (c.name.clone(), text.trim().parse().expect("an integer"))
        })
        .collect();
    results(p, &|name| {
        let x = inputs.iter().find(|(n, _)| n == name).expect("case").1;
        let status = if f(x) == x {
            JudgeStatus::Accepted
        } else {
            JudgeStatus::WrongAnswer
        };
        (status, None)
    })
}

#[test]
fn a_2025_09_scoring_package_reads_max_score_aggregation_and_require_pass_with_their_defaults() {
    let (_keep, dir) = package();
    let p = kattis::load(&dir).expect("reads");
    let spec = p.spec_scoring.as_ref().expect("graded by 2025-09's rules");
    let g = |name: &str, max: Option<f64>, aggregation| GroupScoring {
        name: name.into(),
        max_score: max,
        aggregation,
    };
    assert_eq!(spec.secret, g("secret", Some(100.0), ScoreAggregation::Sum));
    assert_eq!(
        spec.groups,
        [
            g("secret/1_small", Some(30.0), ScoreAggregation::PassFail),
            g("secret/2_negative", Some(30.0), ScoreAggregation::Min),
            g("secret/3_large", Some(40.0), ScoreAggregation::Sum),
        ]
    );
    assert_eq!(
        p.requires,
        [
            ("secret/1_small".to_owned(), vec!["sample".to_owned()]),
            (
                "secret/3_large".to_owned(),
                vec!["secret/1_small".to_owned()]
            ),
        ]
    );
    assert_eq!(grade::max_score(&p), 100.0);
    // Every group is judged: a rejection does not end the run.
    assert!(!plan::first_rejection_decides(&p));
}

#[test]
fn a_2025_09_scoring_package_grades_each_reference_by_its_groups() {
    let (_keep, dir) = package();
    let p = kattis::load(&dir).expect("reads");
    type Output<'a> = &'a dyn Fn(i64) -> i64;
    let cases: [(&str, Output, Verdict, f64); 5] = [
        ("echo", &|x| x, Verdict::Accepted, 100.0),
        ("abs", &|x: i64| x.abs(), Verdict::WrongAnswer, 60.0),
        (
            "small_only",
            &|x: i64| if x.abs() < 10 { x } else { 0 },
            Verdict::WrongAnswer,
            70.0,
        ),
        // 3_large all right, withheld by its require_pass of 1_small: 30, not 70.
        (
            "needs_small",
            &|x| if (1..=3).contains(&x) { 0 } else { x },
            Verdict::WrongAnswer,
            30.0,
        ),
        ("constant", &|_| 42, Verdict::WrongAnswer, 0.0),
    ];
    for (name, f, verdict, score) in cases {
        let g = grade::grade(&p, &echoing(&p, f));
        assert_eq!((g.verdict, g.score), (verdict, score), "{name}");
    }
    let partial = grade::grade(&p, &echoing(&p, &|x: i64| x.abs()));
    assert!(grade::agrees_for(&p, Expected::PartiallyAccepted, &partial));
    assert!(!grade::agrees_for(&p, Expected::Accepted, &partial));
    assert!(grade::agrees_for(&p, Expected::WrongAnswer, &partial));
    let full = grade::grade(&p, &echoing(&p, &|x| x));
    assert!(grade::agrees_for(&p, Expected::Accepted, &full));
    assert!(!grade::agrees_for(&p, Expected::PartiallyAccepted, &full));
    // A failed sample withholds 1_small (require_pass: sample), and with it 3_large.
    let g = grade::grade(
        &p,
        &results(&p, &|n| {
            let status = if n.starts_with("sample/") {
                JudgeStatus::WrongAnswer
            } else {
                JudgeStatus::Accepted
            };
            (status, None)
        }),
    );
    assert_eq!((g.verdict, g.score), (Verdict::WrongAnswer, 30.0));
}

/// A validator's `score.txt` / `score_multiplier.txt` against each case's maximum (a `sum`
/// group's `max_score / N`, a `min` group's `max_score`) and the judge errors the
/// specification lists.
#[test]
fn a_2025_09_validator_score_counts_against_its_cases_maximum_and_misuses_are_judge_errors() {
    let (_keep, dir) = package();
    let p = kattis::load(&dir).expect("reads");
    let scored = |group: &'static str, s: ValidatorScore| {
        grade::grade(
            &p,
            &results(&p, &move |n| {
                (JudgeStatus::Accepted, n.starts_with(group).then_some(s))
            }),
        )
    };
    // 3_large: 4 cases of at most 10; half of each.
    let g = scored("secret/3_large/", ValidatorScore::Multiplier(0.5));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 80.0));
    let g = scored("secret/3_large/", ValidatorScore::Score(2.5));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 70.0));
    // 2_negative (min, at most 30 per case): the smallest.
    let g = scored("secret/2_negative/", ValidatorScore::Score(12.0));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 82.0));
    // Over the case's maximum (10), or any score in a pass-fail group: JE.
    let g = scored("secret/3_large/", ValidatorScore::Score(11.0));
    assert_eq!(g.verdict, Verdict::JudgeError);
    let g = scored("secret/1_small/", ValidatorScore::Score(1.0));
    assert_eq!(g.verdict, Verdict::JudgeError);
    // A sample's score is ignored.
    let g = scored("sample/", ValidatorScore::Score(1.0));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 100.0));
}

/// `secret` unbounded: its groups may be too, and their accepted cases then need a
/// `score.txt` (a multiplier or none is a judge error).
#[test]
fn an_unbounded_2025_09_group_scores_by_score_txt_only() {
    let (_keep, dir) = package();
    write(
        &dir,
        "data/secret/test_group.yaml",
        "max_score: unbounded\n",
    );
    write(
        &dir,
        "data/secret/3_large/test_group.yaml",
        "max_score: unbounded\nscore_aggregation: sum\n",
    );
    let p = kattis::load(&dir).expect("reads");
    assert_eq!(grade::max_score(&p), f64::INFINITY);
    let large = |s: Option<ValidatorScore>| {
        grade::grade(
            &p,
            &results(&p, &move |n| {
                (
                    JudgeStatus::Accepted,
                    if n.starts_with("secret/3_large/") {
                        s
                    } else {
                        None
                    },
                )
            }),
        )
    };
    let g = large(Some(ValidatorScore::Score(1000.0)));
    assert_eq!((g.verdict, g.score), (Verdict::Accepted, 4060.0));
    assert_eq!(large(None).verdict, Verdict::JudgeError);
    assert_eq!(
        large(Some(ValidatorScore::Multiplier(1.0))).verdict,
        Verdict::JudgeError
    );
}

/// Each misuse the specification names, refused at load naming the file and key.
#[test]
fn misplaced_2025_09_scoring_keys_are_refused_naming_the_file_and_key() {
    let refused = |edit: &dyn Fn(&std::path::Path), file: &str, key: &str| {
        let (_keep, dir) = package();
        edit(&dir);
        let err = kattis::load(&dir).expect_err("refused").to_string();
        assert!(
            err.contains(&format!("{file}: {key}:")),
            "{file} {key}: {err}"
        );
    };
    // Not a 2025-09 package.
    refused(
        &|d| {
            write(
                d,
                "problem.yaml",
                "problem_format_version: 2023-07\ntype: scoring\n",
            )
        },
        "1_small/test_group.yaml",
        "max_score",
    );
    // A pass-fail problem.
    refused(
        &|d| {
            write(
                d,
                "problem.yaml",
                "problem_format_version: 2025-09\ntype: pass-fail\n",
            )
        },
        "1_small/test_group.yaml",
        "max_score",
    );
    refused(
        &|d| write(d, "data/sample/test_group.yaml", "max_score: 5\n"),
        "sample/test_group.yaml",
        "max_score",
    );
    // A group unbounded under a bounded secret; a pass-fail group unbounded.
    refused(
        &|d| {
            write(
                d,
                "data/secret/2_negative/test_group.yaml",
                "score_aggregation: min\n",
            )
        },
        "2_negative/test_group.yaml",
        "max_score",
    );
    // require_pass: a later group, a group that is not pass-fail, secret on a group.
    refused(
        &|d| {
            write(
                d,
                "data/secret/1_small/test_group.yaml",
                "max_score: 30\nrequire_pass: secret/3_large\n",
            )
        },
        "1_small/test_group.yaml",
        "require_pass",
    );
    refused(
        &|d| {
            write(
                d,
                "data/secret/3_large/test_group.yaml",
                "max_score: 40\nscore_aggregation: sum\nrequire_pass: secret/2_negative\n",
            )
        },
        "3_large/test_group.yaml",
        "require_pass",
    );
    refused(
        &|d| {
            write(
                d,
                "data/secret/test_group.yaml",
                "require_pass: secret/1_small\n",
            )
        },
        "secret/test_group.yaml",
        "require_pass",
    );
    refused(
        &|d| {
            write(
                d,
                "data/secret/test_group.yaml",
                "max_score: 100\nscore_aggregation: average\n",
            )
        },
        "secret/test_group.yaml",
        "score_aggregation",
    );
    // The default grader's keys beside them.
    refused(
        &|d| {
            write(
                d,
                "data/secret/2_negative/test_group.yaml",
                "max_score: 30\naccept_score: 3\n",
            )
        },
        "2_negative/test_group.yaml",
        "accept_score",
    );
    // Test cases beside test data groups in secret.
    refused(
        &|d| write(d, "data/secret/stray.in", "1\n"),
        "secret/stray.in",
        "data/secret",
    );
}

/// `submissions/submissions.yaml`: its requirements reach the references its globs match;
/// keys verdict does not check are refused naming the file and key.
#[test]
fn submissions_yaml_requirements_reach_the_references_their_globs_match() {
    let (_keep, dir) = package();
    write(
        &dir,
        "submissions/submissions.yaml",
        "partially_accepted:\n  score: [1, 99]\n\"*/{abs,constant}.py\":\n  secret/1_small:\n    required: [AC]\n",
    );
    let p = kattis::load(&dir).expect("reads");
    let of = |name: &str| {
        let r = p
            .submissions
            .iter()
            .find(|r| r.name == name)
            .expect("reference");
        r.requirements
            .iter()
            .map(|q| {
                (
                    q.source.clone(),
                    q.cases.clone(),
                    q.score,
                    q.required.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of("partially_accepted/abs.py"),
        [
            (
                "partially_accepted".to_owned(),
                None,
                Some((1.0, 99.0)),
                None
            ),
            (
                "*/{abs,constant}.py: secret/1_small".to_owned(),
                Some("secret/1_small".to_owned()),
                None,
                Some(vec!["AC".to_owned()])
            ),
        ]
    );
    assert_eq!(of("wrong_answer/constant.py").len(), 1);
    assert!(of("accepted/echo.py").is_empty());
    // What a graded run does not meet, in words.
    let r = p
        .submissions
        .iter()
        .find(|r| r.name == "wrong_answer/constant.py")
        .expect("constant.py");
    let results = echoing(&p, &|_| 42);
    let g = grade::grade(&p, &results);
    assert_eq!(
        grade::unmet_requirements(&p, r, &g, &results),
        ["*/{abs,constant}.py: secret/1_small: required one of [AC] on 3 test cases, none got it"]
    );
    // A default directory's own rule replaces its claim (what it does not set, inherited).
    write(
        &dir,
        "submissions/submissions.yaml",
        "wrong_answer:\n  permitted: [AC, WA, RTE]\n",
    );
    let p = kattis::load(&dir).expect("reads");
    let r = p
        .submissions
        .iter()
        .find(|r| r.name == "wrong_answer/constant.py")
        .expect("constant.py");
    assert_eq!(r.expected, verdict_packages::Expected::Custom);
    let rule = &r.requirements[0];
    assert!(rule.replaces_directory);
    let words = |w: &[&str]| Some(w.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>());
    assert_eq!(
        (&rule.permitted, &rule.required),
        (&words(&["AC", "WA", "RTE"]), &words(&["WA"]))
    );
    for (yaml, key) in [
        (
            "accepted/echo.py:\n  use_for_time_limit: sometimes\n",
            "accepted/echo.py.use_for_time_limit",
        ),
        (
            "accepted/echo.py:\n  language: 3\n",
            "accepted/echo.py.language",
        ),
        ("accepted/*:\n  permitted: [OK]\n", "accepted/*.permitted"),
    ] {
        write(&dir, "submissions/submissions.yaml", yaml);
        let err = kattis::load(&dir).expect_err("refused").to_string();
        assert!(err.contains(&format!("submissions.yaml: {key}:")), "{err}");
    }
}

/// The specification's own `scoring` example: a 2025-09 package graded by the draft's
/// `scoring` keys (`score`, `aggregation` in `testdata.yaml`). Its `partially_accepted`
/// reference (right on the positive inputs only) gets a score strictly between 0 and the full
/// score with a wrong answer on the others: it agrees, as the 2025-09 directories say (the
/// legacy rule wanted the verdict AC, which the default grader never gives it).
#[test]
fn a_2025_09_package_on_the_drafts_scoring_keys_agrees_by_the_2025_09_directories() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = scratch.path().join("scoring");
    let w = |name: &str, text: &str| write(&dir, name, text);
    w(
        "problem.yaml",
        "problem_format_version: 2025-09\ntype: scoring\nname: Sample Scoring problem\n",
    );
    w("data/sample/1.in", "5\n");
    w("data/sample/1.ans", "5\n");
    w(
        "data/secret/testdata.yaml",
        "scoring:\n  aggregation: sum\n",
    );
    w(
        "data/secret/subtask1/testdata.yaml",
        "scoring:\n  score: 30\n  aggregation: min\n",
    );
    w("data/secret/subtask1/1.in", "3\n");
    w("data/secret/subtask1/1.ans", "3\n");
    w(
        "data/secret/subtask2/testdata.yaml",
        "scoring:\n  score: 70\n  aggregation: min\n",
    );
    w("data/secret/subtask2/1.in", "-42\n");
    w("data/secret/subtask2/1.ans", "-42\n");
    w("submissions/accepted/echo.py", "print(input())\n");
    let p = kattis::load(&dir).expect("reads");
    assert!(
        p.spec_scoring.is_none(),
        "the draft's keys keep their grader"
    );
    let partial = grade::grade(&p, &echoing(&p, &|x| x.abs()));
    assert!(
        partial.score > 0.0 && partial.score < grade::max_score(&p),
        "{partial:?}"
    );
    assert!(
        grade::agrees_for(&p, Expected::PartiallyAccepted, &partial),
        "{partial:?}"
    );
    let all = grade::grade(&p, &echoing(&p, &|x| x));
    assert!(grade::agrees_for(&p, Expected::Accepted, &all), "{all:?}");
    assert!(
        !grade::agrees_for(&p, Expected::PartiallyAccepted, &all),
        "{all:?}"
    );
    let none = grade::grade(&p, &echoing(&p, &|_| 0));
    assert!(
        !grade::agrees_for(&p, Expected::PartiallyAccepted, &none),
        "{none:?}"
    );
}
