use crate::{assert_contains, box_dir, fixture};
use verdict_reports::{
    GoogleTestReport, GtestSource, gtest_report_from_run, gtest_score, parse_gtest_stdout,
    parse_gtest_xml, parse_gtest_xml_in_box,
};

fn counts(r: &GoogleTestReport) -> (u32, u32, u32, u32) {
    (r.total_cases, r.pass_cases, r.error_cases, r.disabled_cases)
}

fn names(r: &GoogleTestReport) -> Vec<(String, String, Option<String>)> {
    r.report
        .iter()
        .map(|c| (c.suite.clone(), c.case.clone(), c.param.clone()))
        .collect()
}

fn owned(v: &[(&str, &str, Option<&str>)]) -> Vec<(String, String, Option<String>)> {
    v.iter()
        .map(|(s, c, p)| ((*s).to_owned(), (*c).to_owned(), p.map(str::to_owned)))
        .collect()
}

/// The message of the suites' failing `EXPECT_EQ(adder(1, 2), 3)` at `line`.
fn adder_1_2_is_not_3(line: &str) -> String {
    format!("{line}\nExpected equality of these values:\n  adder(1, 2)\n    Which is: 2\n  3")
}

#[test]
fn all_passing_suite() {
    let r = parse_gtest_xml(&fixture("gtest/pass.xml")).unwrap();
    assert_eq!(counts(&r), (3, 3, 0, 0));
    assert!(r.report.is_empty());
    assert_eq!(gtest_score(&r).to_string(), "3/3");
}

#[test]
fn partial_suite_counts_disabled_and_skipped_tests() {
    let r = parse_gtest_xml(&fixture("gtest/partial.xml")).unwrap();
    // 16 <testcase>: 8 passed, 5 failed, 2 DISABLED_ (a test and a whole suite) + 1 GTEST_SKIP.
    assert_eq!(counts(&r), (16, 8, 5, 3));
    assert_eq!(gtest_score(&r).to_string(), "8/16");
    assert_eq!(
        names(&r),
        owned(&[
            ("AdderTest", "addTest", None),
            ("AdderTest", "twoFailures", None),
            ("AdderFixture", "throws", None),
            ("AdderTestWithParam/AdderTest", "addOne/0", Some("0")),
            ("Words/NamedParam", "nonEmpty/empty", Some("\"\"")),
        ])
    );
    assert_eq!(
        r.report[0].message,
        adder_1_2_is_not_3("gtest_partial.cpp:8")
    );
    assert_eq!(
        r.report[3].message,
        "gtest_partial.cpp:32\nExpected equality of these values:\n  adder(param, 1)\n    Which is: 0\n  param + 1\n    Which is: 1"
    );
    // Two failed assertions in one test: both messages, escapes undone.
    assert_contains(&r.report[1].message, "first\n\ngtest_partial.cpp:14\n");
    assert!(r.report[1].message.ends_with("second <&> \"quoted\""));
    insta::assert_json_snapshot!("gtest_partial", r);
}

#[test]
fn disabled_tests_run_on_request_count_as_run() {
    let r = parse_gtest_xml(&fixture("gtest/partial_all.xml")).unwrap();
    // --gtest_also_run_disabled_tests: both DISABLED_ tests ran and failed; only the skip is left.
    assert_eq!(counts(&r), (16, 8, 7, 1));
    let cases: Vec<&str> = r.report.iter().map(|c| c.case.as_str()).collect();
    assert!(
        cases.contains(&"DISABLED_notYet") && cases.contains(&"never"),
        "{cases:?}"
    );
}

#[test]
fn box_prefix_is_harmless_when_paths_are_already_relative() {
    let xml = fixture("gtest/partial.xml");
    assert_eq!(
        parse_gtest_xml_in_box(&xml, box_dir()).unwrap(),
        parse_gtest_xml(&xml).unwrap()
    );
}

#[test]
fn crashed_binary_leaves_no_xml_and_the_console_gives_a_partial_report() {
    assert_eq!(fixture("gtest/crash.exit").trim(), "139", "SIGSEGV");
    let xml = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "gtest",
        "crash.xml",
    ]
    .iter()
    .collect::<std::path::PathBuf>();
    assert!(
        !xml.exists(),
        "gtest writes its XML only at the end of a run"
    );
    let r = parse_gtest_stdout(&fixture("gtest/crash.stdout"));
    // first passed, second failed, segfault crashed, neverReached never started.
    assert_eq!(counts(&r), (4, 1, 3, 0));
    assert_eq!(gtest_score(&r).to_string(), "1/4");
    assert_eq!(
        names(&r),
        owned(&[
            ("CrashTest", "second", None),
            ("CrashTest", "segfault", None)
        ])
    );
    assert_eq!(r.report[0].message, adder_1_2_is_not_3("gtest_crash.cpp:9"));
    assert_eq!(
        r.report[1].message,
        "the test binary died during this test; 1 test(s) after it did not run"
    );
}

#[test]
fn console_of_a_complete_run_agrees_with_its_xml() {
    for name in ["pass", "partial", "partial_all"] {
        let from_xml = parse_gtest_xml(&fixture(&format!("gtest/{name}.xml"))).unwrap();
        let from_stdout = parse_gtest_stdout(&fixture(&format!("gtest/{name}.stdout")));
        assert_eq!(counts(&from_stdout), counts(&from_xml), "{name}");
        assert_eq!(names(&from_stdout), names(&from_xml), "{name}");
    }
}

#[test]
fn truncated_fixture_is_an_error() {
    let xml = fixture("gtest/partial.xml");
    for cut in [xml.len() / 3, xml.len() / 2, xml.len() - 20] {
        let cut = (0..=cut)
            .rev()
            .find(|&i| xml.is_char_boundary(i))
            .unwrap_or(0);
        assert!(parse_gtest_xml(&xml[..cut]).is_err(), "cut at {cut}");
    }
}

#[test]
fn a_run_uses_the_xml_when_there_is_one_and_the_console_otherwise() {
    let (r, source) = gtest_report_from_run(
        Some(&fixture("gtest/partial.xml")),
        &fixture("gtest/partial.stdout"),
        box_dir(),
    );
    assert!(matches!(source, GtestSource::Xml));
    assert_eq!(counts(&r), (16, 8, 5, 3));
    let (r, source) = gtest_report_from_run(None, &fixture("gtest/crash.stdout"), box_dir());
    assert!(matches!(source, GtestSource::Console { error: None }));
    assert_eq!(counts(&r), (4, 1, 3, 0));
}
