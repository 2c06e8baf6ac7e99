//! Google Test tasks (design #8): the submission's sources (the student's files beside the
//! teacher's test file) compiled together and linked with gtest; each task runs that binary
//! with `--gtest_output=xml:...` and its `run_args`, and scores `passed/total` from the XML,
//! or from the console when the binary died before writing it.

use super::{path_in_reports, read_box_text, translation_units};
use crate::exec::ExitKind;
use crate::language::LanguageProfile;
use crate::{
    RunLimits, RunOutput, ScriptError, classify_run, read_capped, read_capture, signal_name,
};
use std::path::Path;
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Language, Score, SourceCode, TaskReport};
use verdict_reports::{GoogleTestReport, GtestSource, gtest_report_from_run, gtest_score};

/// The XML report's name in the box.
const GTEST_XML: &str = "gtest.xml";
/// The test binary's name in the box.
const TEST_BINARY: &str = "test";
/// The largest XML report read.
const XML_MAX: u64 = 32 * 1024 * 1024;
/// The most of the test binary's stdout read (the console fallback).
const STDOUT_MAX: u64 = 8 * 1024 * 1024;
/// Where Debian's libgtest-dev puts the headers (checked before building).
const GTEST_HEADERS: [&str; 2] = [
    "/usr/include/gtest/gtest.h",
    "/usr/local/include/gtest/gtest.h",
];

/// `Err` with what to install when Google Test's headers are not on this host.
pub fn gtest_installed() -> Result<(), String> {
    if GTEST_HEADERS.iter().any(|h| Path::new(h).is_file()) {
        Ok(())
    } else {
        Err(
            "Google Test is not installed: install the Debian packages googletest and libgtest-dev"
                .to_owned(),
        )
    }
}

/// The profile that builds and runs the submission's gtest binary (its translation units).
pub fn gtest_build_profile(source: &SourceCode) -> LanguageProfile {
    gtest_profile(source.language, &translation_units(source))
}

/// The profile that builds and runs a gtest binary: `g++ ... -lgtest_main -lgtest -pthread`.
/// The static `gtest_main` is only linked in when no source defines `main`. In a C
/// submission the `.c` files are compiled as C (`-x c ... -x none`), so the teacher's C++
/// test reaches them through `extern "C"` declarations, as with any C library.
fn gtest_profile(language: Language, units: &[String]) -> LanguageProfile {
    let argv = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    let mut compile = argv(&[
        "g++",
        "-std=gnu++17",
        "-O0",
        "-g",
        "-w",
        "-fdiagnostics-color=never",
        "-fmax-errors=50",
        "-o",
        TEST_BINARY,
        "{sources}",
        "{extra}",
        "-lgtest_main",
        "-lgtest",
        "-pthread",
    ]);
    let (c_units, others): (Vec<&String>, Vec<&String>) =
        units.iter().partition(|u| u.ends_with(".c"));
    if language == Language::C && !c_units.is_empty() {
        let mut files = vec!["-x".to_owned(), "c".to_owned()];
        files.extend(c_units.into_iter().cloned());
        files.extend(["-x".to_owned(), "none".to_owned()]);
        files.extend(others.into_iter().cloned());
        let at = compile
            .iter()
            .position(|a| a == "{sources}")
            .unwrap_or(compile.len());
        compile.splice(at..=at.min(compile.len() - 1), files);
    }
    LanguageProfile {
        compile: Some(compile),
        run: vec![
            format!("./{TEST_BINARY}"),
            format!("--gtest_output=xml:{GTEST_XML}"),
        ],
        version: argv(&["g++", "-dumpfullversion"]),
        package: "g++ googletest libgtest-dev".to_owned(),
        required_output: Some(TEST_BINARY.to_owned()),
        ..LanguageProfile::default()
    }
}

/// The result of a gtest binary's run under `limits`.
pub fn gtest_result(
    output: &RunOutput,
    limits: &RunLimits,
) -> Result<JudgeTaskResult, ScriptError> {
    let outcome = &output.outcome;
    let stdout = read_capped(&output.stdout, STDOUT_MAX)?;
    let stderr = read_capture(&output.stderr, 64 * 1024)?;
    let (xml, xml_problem) = match read_box_text(&output.box_dir, GTEST_XML, XML_MAX) {
        Ok(xml) => (xml, None),
        Err(reason) => (None, Some(reason)),
    };
    let (report, source) = gtest_report_from_run(
        xml.as_deref(),
        &String::from_utf8_lossy(&stdout),
        &path_in_reports(outcome, &output.box_dir),
    );
    let failure = classify_run(outcome, limits, &String::from_utf8_lossy(&stderr), &[]);
    let mut notes = Vec::new();
    // A limit hit is the task's status; any other way the binary ended is only noted, and
    // the score decides (exit status 1 just means a test failed).
    let limit_status = failure.as_ref().filter(|f| {
        matches!(
            f.status,
            JudgeStatus::TimeLimitExceeded
                | JudgeStatus::MemoryLimitExceeded
                | JudgeStatus::OutputLimitExceeded
        )
    });
    if let Some(limit) = limit_status {
        notes.push(format!("the test binary stopped: {}", limit.reason));
    } else {
        match outcome.exit {
            ExitKind::Signaled(sig) => notes.push(format!(
                "the test binary crashed (killed by signal {})",
                signal_name(Some(sig))
            )),
            ExitKind::Exited(0 | 1) => {}
            ExitKind::Exited(code) => {
                notes.push(format!("the test binary exited with code {code}"))
            }
        }
    }
    if let GtestSource::Console { error } = &source {
        let why = match (error, &xml_problem) {
            (Some(err), _) => format!("its XML report was unusable ({err})"),
            (None, Some(problem)) => format!("its XML report was unusable ({problem})"),
            (None, None) => "it wrote no XML report".to_owned(),
        };
        notes.push(format!(
            "{why}; the report comes from the console output and covers the tests that finished"
        ));
    }
    let (status, score) = match limit_status {
        Some(limit) => (limit.status, Score::ZERO),
        None => gtest_status(&report),
    };
    let mut log = vec![summary(&report)];
    log.extend(notes);
    if status != JudgeStatus::Accepted && !stderr.is_empty() {
        log.push(format!("stderr:\n{}", stderr.excerpt(2048)));
    }
    let mut result = JudgeTaskResult::with_status(status, log.join("\n"));
    result.score = score;
    result.run_time = outcome.cpu_time_ms;
    result.memory_used = outcome.peak_memory_kb;
    result.report = Some(TaskReport::GoogleTest(report));
    Ok(result)
}

/// Status and score of a gtest report: all passed Accepted, none Wrong Answer, some Partial
/// Correct; a run without a single test case is Wrong Answer `"0/1"`.
fn gtest_status(report: &GoogleTestReport) -> (JudgeStatus, Score) {
    let score = gtest_score(report);
    let status = if report.total_cases == 0 || report.pass_cases == 0 {
        JudgeStatus::WrongAnswer
    } else if report.pass_cases == report.total_cases {
        JudgeStatus::Accepted
    } else {
        JudgeStatus::PartialCorrect
    };
    (status, score)
}

/// `"3 of 5 test cases passed (1 failed, 1 disabled)"`.
fn summary(report: &GoogleTestReport) -> String {
    if report.total_cases == 0 {
        return "the test binary ran no test case".to_owned();
    }
    format!(
        "{} of {} test cases passed ({} failed, {} disabled)",
        report.pass_cases, report.total_cases, report.error_cases, report.disabled_cases
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fake::{FakeExecutor, FakeRun};
    use crate::{Build, Executor, RunRequest, TemplateVars};
    use std::sync::Arc;

    fn report(total: u32, pass: u32, failed: u32, disabled: u32) -> GoogleTestReport {
        GoogleTestReport {
            total_cases: total,
            pass_cases: pass,
            error_cases: failed,
            disabled_cases: disabled,
            report: Vec::new(),
        }
    }

    /// The status and score (as text) of `report`.
    fn status_of(report: &GoogleTestReport) -> (JudgeStatus, String) {
        let (status, score) = gtest_status(report);
        (status, score.to_string())
    }

    #[test]
    fn gtest_status_follows_passed_over_total() {
        for (counts, status, score) in [
            ((4, 4, 0, 0), JudgeStatus::Accepted, "4/4"),
            ((5, 3, 1, 1), JudgeStatus::PartialCorrect, "3/5"),
            ((2, 0, 2, 0), JudgeStatus::WrongAnswer, "0/2"),
        ] {
            let (total, pass, failed, disabled) = counts;
            let got = status_of(&report(total, pass, failed, disabled));
            assert_eq!(got, (status, score.to_owned()), "{counts:?}");
        }
    }

    #[test]
    fn a_run_without_test_cases_is_wrong_answer_zero_over_one() {
        assert_eq!(
            status_of(&report(0, 0, 0, 0)),
            (JudgeStatus::WrongAnswer, "0/1".into())
        );
        assert_eq!(
            summary(&report(0, 0, 0, 0)),
            "the test binary ran no test case"
        );
    }

    #[test]
    fn c_units_are_compiled_as_c_beside_the_cpp_test() {
        let units = ["adder.c".to_owned(), "test.cpp".to_owned()];
        let compile = gtest_profile(Language::C, &units).compile.expect("compile");
        let at = compile.iter().position(|a| a == "-x").expect("-x");
        assert_eq!(
            compile[at..at + 6],
            ["-x", "c", "adder.c", "-x", "none", "test.cpp"]
        );
        assert!(!compile.contains(&"{sources}".to_owned()));
        let compile = gtest_profile(Language::Cpp, &units)
            .compile
            .expect("compile");
        assert!(compile.contains(&"{sources}".to_owned()) && !compile.contains(&"-x".to_owned()));
    }

    #[test]
    fn a_crash_before_the_xml_is_scored_from_the_console() {
        let dir = tempfile::tempdir().expect("dir");
        let console = "[==========] Running 2 tests from 1 test suite.\n[ RUN      ] Add.One\n[       OK ] Add.One (0 ms)\n[ RUN      ] Add.Two\n";
        let mut crash = FakeRun::exited(0, console);
        crash.outcome.exit = ExitKind::Signaled(11);
        let fake = FakeExecutor::new(vec![crash]);
        let build = Build {
            dir: dir.path().to_owned(),
            language: Language::Cpp,
            profile: Arc::new(gtest_profile(Language::Cpp, &["t.cpp".to_owned()])),
            vars: TemplateVars::default(),
        };
        let limits = RunLimits::new(1000, None, Some(1024), None);
        let args = ["--gtest_filter=Add.*".to_owned()];
        let request = RunRequest {
            args: &args,
            ..RunRequest::new(&build, limits)
        };
        let output = fake
            .run(&crate::CancelToken::new(), &request, dir.path())
            .expect("run");
        let result = gtest_result(&output, &limits).expect("result");
        assert_eq!(result.status, JudgeStatus::PartialCorrect);
        assert_eq!(result.score.to_string(), "1/2");
        assert!(
            result
                .error_log
                .contains("the test binary crashed (killed by signal SIGSEGV)"),
            "{}",
            result.error_log
        );
        let command = fake.commands.lock().expect("commands")[0].clone();
        assert_eq!(
            command,
            [
                "./test",
                "--gtest_output=xml:gtest.xml",
                "--gtest_filter=Add.*"
            ]
        );
    }
}
