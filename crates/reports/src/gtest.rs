//! Google Test results: the XML report (`--gtest_output=xml:FILE`) and, when the test
//! binary died before writing it, the console output.
//!
//! # Counting
//!
//! * `total_cases` is every `<testcase>` in the XML, disabled ones included (the
//!   contract's example: 20 = 1 passed + 18 failed + 1 disabled), so
//!   `total_cases == pass_cases + error_cases + disabled_cases` always holds.
//! * A case is **failed** when it has a `<failure>` (or `<error>`) child. Its message is
//!   the failure's `message` attribute (`"file.cpp:LINE\n<gtest's explanation>"`); when
//!   a case failed several assertions the messages are joined by a blank line.
//! * Otherwise a case is **disabled** when gtest did not run it: `status="notrun"` /
//!   `result="suppressed"` (a `DISABLED_` test; googletest 1.12 writes both), or it
//!   called `GTEST_SKIP()` (`result="skipped"`). Run with
//!   `--gtest_also_run_disabled_tests`, `DISABLED_` tests have `status="run"` and count
//!   as passed or failed like any other.
//! * Otherwise it **passed**.
//!
//! # Names
//!
//! `suite` is gtest's `classname` and `case` its `name`, so a `TEST_P` case reads
//! suite `"AdderTestWithParam/AdderTest"` (instance name / fixture), case `"addOne/0"`
//! and `param` is the `value_param` attribute (`"0"`, or `"\"alpha\""` for strings).
//! Typed tests read suite `"TypedAdder/0"` and carry no `param`.
//!
//! # Crashes
//!
//! googletest writes the XML only when the whole run ends. A binary that crashes
//! (SIGSEGV, abort, uncaught exception outside a test body, `exit()` in a test) or is
//! killed at a limit leaves **no XML file at all**. Then [`parse_gtest_stdout`] builds a
//! partial report from the console lines (`[ RUN      ]`, `[       OK ]`,
//! `[  FAILED  ]`, ...): the test that was running counts as failed, and the tests
//! announced by `[==========] Running N tests` that never started count as failed too
//! (they cannot be named from the console, so `report` lists only the ones seen).

use crate::ReportError;
use crate::paths::strip_box_prefix;
use crate::xml::{Element, Stream};
use std::path::Path;
use verdict_contracts::{GoogleTestFailureCase, GoogleTestReport};

const TOOL: &str = "gtest";

/// Parses a Google Test XML report into the contract's [`GoogleTestReport`].
///
/// Paths in failure messages are left as gtest wrote them; see
/// [`parse_gtest_xml_in_box`] to make them relative to the box.
pub fn parse_gtest_xml(xml: &str) -> Result<GoogleTestReport, ReportError> {
    let mut stream = Stream::new(xml, TOOL);
    stream.expect_root("testsuites")?;
    let mut report = GoogleTestReport::default();
    stream.each_subtree("testcase", |case| count_case(&case, &mut report))?;
    Ok(report)
}

/// [`parse_gtest_xml`], with `box_dir/` removed from failure messages, so a test
/// compiled as `/box/test.cpp` reports `"test.cpp:11\n..."`.
pub fn parse_gtest_xml_in_box(xml: &str, box_dir: &Path) -> Result<GoogleTestReport, ReportError> {
    let mut report = parse_gtest_xml(xml)?;
    for case in &mut report.report {
        case.message = strip_box_prefix(&case.message, box_dir);
    }
    Ok(report)
}

/// Where the report of [`gtest_report_from_run`] came from.
#[derive(Debug)]
pub enum GtestSource {
    /// The XML report: the run completed.
    Xml,
    /// The console output, because the XML was missing (the binary died before the end
    /// of the run) or unusable (`error`); the report may be partial.
    Console {
        /// Why the XML was not used; `None` when there was no XML file.
        error: Option<ReportError>,
    },
}

/// The gtest report of one run of a test binary: from its XML (`xml`, the content of the
/// `--gtest_output` file if it exists) when that parses, else from its stdout. Paths
/// inside `box_dir` are made relative in both cases.
pub fn gtest_report_from_run(
    xml: Option<&str>,
    stdout: &str,
    box_dir: &Path,
) -> (GoogleTestReport, GtestSource) {
    let error = match xml.map(|xml| parse_gtest_xml_in_box(xml, box_dir)) {
        Some(Ok(report)) => return (report, GtestSource::Xml),
        Some(Err(e)) => Some(e),
        None => None,
    };
    let mut report = parse_gtest_stdout(stdout);
    for case in &mut report.report {
        case.message = strip_box_prefix(&case.message, box_dir);
    }
    (report, GtestSource::Console { error })
}

fn bump(counter: &mut u32) -> Result<(), ReportError> {
    *counter = counter.checked_add(1).ok_or(ReportError::BadValue {
        tool: TOOL,
        what: "number of test cases",
        value: "more than u32::MAX".into(),
    })?;
    Ok(())
}

fn count_case(case: &Element, report: &mut GoogleTestReport) -> Result<(), ReportError> {
    bump(&mut report.total_cases)?;
    let failures: Vec<String> = case
        .children
        .iter()
        .filter(|c| c.name == "failure" || c.name == "error")
        .map(|f| {
            f.attr("message")
                .map_or_else(|| f.text.clone(), str::to_owned)
        })
        .collect();
    if !failures.is_empty() {
        bump(&mut report.error_cases)?;
        report.report.push(GoogleTestFailureCase {
            suite: case.attr("classname").unwrap_or_default().to_owned(),
            case: case.attr("name").unwrap_or_default().to_owned(),
            message: failures.join("\n\n"),
            param: case.attr("value_param").map(str::to_owned),
        });
    } else if case.attr("status") == Some("notrun")
        || matches!(case.attr("result"), Some("suppressed" | "skipped"))
        || case.child("skipped").is_some()
    {
        bump(&mut report.disabled_cases)?;
    } else {
        bump(&mut report.pass_cases)?;
    }
    Ok(())
}

const RUN: &str = "[ RUN      ] ";
const OK: &str = "[       OK ] ";
const FAILED: &str = "[  FAILED  ] ";
const SKIPPED: &str = "[  SKIPPED ] ";
const RESULT_MARKERS: [&str; 4] = [RUN, OK, FAILED, SKIPPED];

/// Builds a (possibly partial) report from gtest's console output, for a run that left
/// no XML (see the module docs). Never fails: it reports what the lines show.
pub fn parse_gtest_stdout(stdout: &str) -> GoogleTestReport {
    let mut report = GoogleTestReport::default();
    let mut announced: Option<u32> = None;
    let mut started: u32 = 0;
    let mut current: Option<(String, Vec<&str>)> = None;
    // gtest prints "[ DISABLED ] name" only for disabled tests of suites that run, and
    // "YOU HAVE N DISABLED TESTS" (all of them) at the end of a complete run.
    let (mut disabled_seen, mut disabled_announced) = (0u32, 0u32);
    for raw in stdout.lines() {
        let mut line = raw.trim_end_matches('\r');
        // A program that prints without a final newline glues its output to gtest's
        // next marker: split the line at the marker.
        if let Some(at) = RESULT_MARKERS.iter().filter_map(|m| line.find(m)).min()
            && at > 0
        {
            if let Some((_, output)) = current.as_mut() {
                output.push(&line[..at]);
            }
            line = &line[at..];
        }
        if let Some(rest) = line.strip_prefix("[==========] Running ") {
            announced = rest.split_whitespace().next().and_then(|n| n.parse().ok());
        } else if let Some(name) = line.strip_prefix(RUN) {
            if let Some((name, output)) = current.take() {
                // A test that started but never finished, yet the run went on: count it failed.
                push_failure(&mut report, &name, None, &output, "the test did not finish");
            }
            started = started.saturating_add(1);
            current = Some((name.trim().to_owned(), Vec::new()));
        } else if let Some(rest) = line.strip_prefix(OK) {
            if finishes(&current, rest) {
                current = None;
                report.pass_cases = report.pass_cases.saturating_add(1);
            }
        } else if let Some(rest) = line.strip_prefix(FAILED) {
            if finishes(&current, rest)
                && let Some((name, output)) = current.take()
            {
                push_failure(&mut report, &name, param_of(rest), &output, "");
            }
        } else if let Some(rest) = line.strip_prefix(SKIPPED) {
            if finishes(&current, rest) {
                current = None;
                report.disabled_cases = report.disabled_cases.saturating_add(1);
            }
        } else if line.starts_with("[ DISABLED ] ") {
            disabled_seen = disabled_seen.saturating_add(1);
        } else if let Some(n) = disabled_total(line) {
            disabled_announced = n;
        } else if let Some((_, output)) = current.as_mut() {
            output.push(line);
        }
    }
    let unstarted = announced.map_or(0, |n| n.saturating_sub(started));
    if let Some((name, output)) = current.take() {
        let note = match unstarted {
            0 => "the test binary died during this test".to_owned(),
            n => format!("the test binary died during this test; {n} test(s) after it did not run"),
        };
        push_failure(&mut report, &name, None, &output, &note);
    }
    report.error_cases = report.error_cases.saturating_add(unstarted);
    report.disabled_cases = report
        .disabled_cases
        .saturating_add(disabled_seen.max(disabled_announced));
    report.total_cases = report
        .pass_cases
        .saturating_add(report.error_cases)
        .saturating_add(report.disabled_cases);
    report
}

/// N from the closing line `  YOU HAVE N DISABLED TESTS` (or `TEST`).
fn disabled_total(line: &str) -> Option<u32> {
    let rest = line.trim().strip_prefix("YOU HAVE ")?;
    let (n, tail) = rest.split_once(' ')?;
    tail.starts_with("DISABLED TEST")
        .then(|| n.parse().ok())
        .flatten()
}

/// Whether a result line (`Suite.case, where ... (N ms)`) closes the running test.
fn finishes(current: &Option<(String, Vec<&str>)>, rest: &str) -> bool {
    current.as_ref().is_some_and(|(name, _)| {
        rest.strip_prefix(name.as_str())
            .is_some_and(|tail| tail.is_empty() || tail.starts_with(' ') || tail.starts_with(','))
    })
}

/// The `GetParam()` value of a `[  FAILED  ] Suite.case, where GetParam() = X (N ms)` line.
fn param_of(rest: &str) -> Option<String> {
    let (_, param) = rest.split_once(", where GetParam() = ")?;
    let param = match param.rfind(" (") {
        Some(at) if param.ends_with(" ms)") => &param[..at],
        _ => param,
    };
    Some(param.to_owned())
}

fn push_failure(
    report: &mut GoogleTestReport,
    full: &str,
    param: Option<String>,
    output: &[&str],
    note: &str,
) {
    let (suite, case) = full.split_once('.').unwrap_or((full, ""));
    let mut lines: Vec<String> = output
        .iter()
        .map(|l| l.strip_suffix(": Failure").unwrap_or(l).to_owned())
        .collect();
    if !note.is_empty() {
        lines.push(note.to_owned());
    }
    report.error_cases = report.error_cases.saturating_add(1);
    report.report.push(GoogleTestFailureCase {
        suite: suite.to_owned(),
        case: case.to_owned(),
        message: lines.join("\n"),
        param,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1">
  <testsuite name="S" tests="1">
    <testcase name="c" status="run" result="completed" classname="S">
      <failure message="t.cpp:3&#x0A;boom" type=""><![CDATA[t.cpp:3
boom]]></failure>
    </testcase>
  </testsuite>
</testsuites>
"#;

    #[test]
    fn failure_message_comes_from_the_attribute() {
        let r = parse_gtest_xml(ONE).unwrap();
        assert_eq!(
            (r.total_cases, r.pass_cases, r.error_cases, r.disabled_cases),
            (1, 0, 1, 0)
        );
        assert_eq!(r.report[0].message, "t.cpp:3\nboom");
        assert_eq!(r.report[0].param, None);
    }

    #[test]
    fn truncated_report_is_an_error() {
        for cut in [20, 60, 120, 200, ONE.len() - 14] {
            let err = parse_gtest_xml(&ONE[..cut]).unwrap_err();
            assert!(
                matches!(err, ReportError::Truncated { .. } | ReportError::Xml { .. }),
                "{cut}: {err}"
            );
        }
    }

    #[test]
    fn every_prefix_is_handled_without_panic() {
        for cut in 0..ONE.len() {
            if ONE.is_char_boundary(cut) {
                let _ = parse_gtest_xml(&ONE[..cut]);
            }
        }
    }

    #[test]
    fn not_gtest_xml_is_rejected() {
        for not_gtest in ["", "<valgrindoutput/>", "not xml at all"] {
            assert!(
                matches!(
                    parse_gtest_xml(not_gtest),
                    Err(ReportError::WrongRoot { .. })
                ),
                "{not_gtest:?}"
            );
        }
        assert!(matches!(
            parse_gtest_xml("<testsuites><a></b></testsuites>"),
            Err(ReportError::Xml { .. })
        ));
    }

    #[test]
    fn empty_run_has_no_cases() {
        let r = parse_gtest_xml("<testsuites tests=\"0\"/>").unwrap();
        assert_eq!(r, GoogleTestReport::default());
    }

    #[test]
    fn box_prefix_is_removed_from_messages() {
        let xml = ONE.replace("t.cpp:3", "/box/t.cpp:3");
        let r = parse_gtest_xml_in_box(&xml, Path::new("/box")).unwrap();
        assert_eq!(r.report[0].message, "t.cpp:3\nboom");
    }

    #[test]
    fn stdout_of_a_clean_run_counts_like_the_xml() {
        let out = "[==========] Running 2 tests from 1 test suite.\n\
                   [ RUN      ] A.b\n[       OK ] A.b (0 ms)\n\
                   [ RUN      ] P/A.c/1\nx.cpp:4: Failure\nbad\n\
                   [  FAILED  ] P/A.c/1, where GetParam() = 1 (0 ms)\n\
                   [ DISABLED ] A.DISABLED_d\n\
                   [  FAILED  ] P/A.c/1, where GetParam() = 1\n\n  YOU HAVE 1 DISABLED TEST\n";
        let r = parse_gtest_stdout(out);
        assert_eq!(
            (r.total_cases, r.pass_cases, r.error_cases, r.disabled_cases),
            (3, 1, 1, 1)
        );
        assert_eq!(r.report[0].suite, "P/A");
        assert_eq!(r.report[0].case, "c/1");
        assert_eq!(r.report[0].param.as_deref(), Some("1"));
        assert_eq!(r.report[0].message, "x.cpp:4\nbad");
    }

    #[test]
    fn output_without_a_final_newline_does_not_hide_the_result() {
        let out = "[ RUN      ] A.b\nhello[       OK ] A.b (0 ms)\n[ RUN      ] A.c\nx.cpp:1: Failure\nbye[  FAILED  ] A.c (0 ms)\n";
        let r = parse_gtest_stdout(out);
        assert_eq!((r.total_cases, r.pass_cases, r.error_cases), (2, 1, 1));
        assert_eq!(r.report[0].message, "x.cpp:1\nbye");
    }

    #[test]
    fn a_run_falls_back_to_the_console_without_usable_xml() {
        let out = "[==========] Running 1 test from 1 test suite.\n[ RUN      ] S.c\n/box/t.cpp:3: Failure\nboom\n";
        let (r, source) = gtest_report_from_run(None, out, Path::new("/box"));
        assert!(matches!(source, GtestSource::Console { error: None }));
        assert_eq!(
            r.report[0].message,
            "t.cpp:3\nboom\nthe test binary died during this test"
        );
        let (_, source) = gtest_report_from_run(Some(&ONE[..50]), out, Path::new("/box"));
        assert!(matches!(source, GtestSource::Console { error: Some(_) }));
        let (r, source) = gtest_report_from_run(Some(ONE), out, Path::new("/box"));
        assert!(matches!(source, GtestSource::Xml));
        assert_eq!(r.total_cases, 1);
    }

    #[test]
    fn stdout_of_nothing_is_an_empty_report() {
        assert_eq!(parse_gtest_stdout(""), GoogleTestReport::default());
    }
}
