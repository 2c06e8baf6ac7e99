//! Google Test tasks (design #8, docs/special-tests.md): the submission's sources (the
//! student's files beside the teacher's test file) compiled together and linked with gtest,
//! once per submission; each task runs that binary with `--gtest_output=xml:...` and its
//! `run_args`, and scores `passed/total` from the XML, or from the console when the binary
//! died before writing it.
//!
//! The helpers at the end are shared with the memory and static tests.

use super::compile::BuildResult;
use super::data::{TestFiles, datum_files};
use super::standard::task_limits;
use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use verdict_contracts::{
    Asset, JudgeStatus, JudgeTaskResult, Language, Score, SourceCode, TaskReport,
};
use verdict_reports::{GoogleTestReport, GtestSource, gtest_report_from_run, gtest_score};
use verdict_sandbox::{ExitKind, IsolationLevel, SandboxOutcome};
use verdict_scripts::{
    BoxFile, CompileOutcome, LanguageProfile, RunRequest, classify_run, log_text, read_capped,
    run_program, signal_name,
};

/// The XML report's name in the box.
const GTEST_XML: &str = "gtest.xml";
/// The test binary's name in the box.
const TEST_BINARY: &str = "test";
/// The largest XML report read.
const XML_MAX: u64 = 32 * 1024 * 1024;
/// KB added to the task's output limit for gtest's own XML report (it is written into the box).
const XML_ALLOWANCE_KB: u64 = 16 * 1024;
/// The most of the test binary's stdout read (the console fallback).
const STDOUT_MAX: u64 = 8 * 1024 * 1024;
/// Where Debian's libgtest-dev puts the headers (checked before building).
const GTEST_HEADERS: [&str; 2] = [
    "/usr/include/gtest/gtest.h",
    "/usr/local/include/gtest/gtest.h",
];

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

/// The submission linked with Google Test, compiled on first use and shared by its gtest tasks.
pub(crate) fn gtest_build(run: &SubmissionRun) -> &BuildResult {
    run.gtest_build.get_or_init(|| {
        if !GTEST_HEADERS.iter().any(|h| Path::new(h).is_file()) {
            return BuildResult::Broken(
                "Google Test is not installed: install the Debian packages googletest and libgtest-dev"
                    .to_owned(),
            );
        }
        let dir = run.work_dir().join("gtest-build");
        let source = run.submission.submission.source();
        let units: Vec<String> = source
            .source_files
            .iter()
            .map(|a| a.name.clone())
            .filter(|n| is_unit(n))
            .collect();
        let profile = gtest_profile(source.language, &units);
        special_build(run, "gtest", profile, true, &dir)
    })
}

/// A gtest task.
pub fn gtest_task(run: &SubmissionRun, index: usize) -> Result<JudgeTaskResult, JudgeError> {
    let task = &run.submission.judge_tasks[index];
    if let Some(refused) = c_or_cpp_only(run, "Google Test tasks") {
        return Ok(refused);
    }
    let build = match gtest_build(run).built(
        JudgeStatus::CompilationError,
        Some("the sources with Google Test"),
    ) {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let run_dir = run.fresh_dir(&format!("task{index}-gtest"))?;
    let test = match task.testcase() {
        Some(datum) => datum_files(run, datum)?,
        None => TestFiles::default(),
    };
    let mut limits = task_limits(task, run.shared.config.global_output_cap_kb);
    limits.output_kb = limits
        .output_kb
        .map(|kb| kb.saturating_add(XML_ALLOWANCE_KB));
    let request = RunRequest {
        build,
        args: task.run_args(),
        stdin: test.stdin.as_deref(),
        files: &test.inputs,
        empty_dirs: &[],
        limits,
    };
    let output = run_program(&run.shared.sandbox, &request, &run_dir)?;
    let outcome = &output.outcome;
    let stdout = read_capped(&output.stdout, STDOUT_MAX)?;
    let stderr = read_capped(&output.stderr, 64 * 1024)?;
    let (xml, xml_problem) = match read_box_text(&output.box_dir, GTEST_XML, XML_MAX) {
        Ok(xml) => (xml, None),
        Err(reason) => (None, Some(reason)),
    };
    let (report, source) = gtest_report_from_run(
        xml.as_deref(),
        &String::from_utf8_lossy(&stdout),
        &path_in_reports(outcome, &output.box_dir),
    );
    let failure = classify_run(outcome, &limits, &String::from_utf8_lossy(&stderr), &[]);
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
        log.push(format!("stderr:\n{}", log_text(&stderr, 2048)));
    }
    let mut result = JudgeTaskResult::with_status(status, log.join("\n"));
    result.score = score;
    result.run_time = outcome.cpu_time_ms;
    result.memory_used = outcome.peak_memory_kb;
    result.report = Some(TaskReport::GoogleTest(report));
    let _ = verdict_sandbox::remove_box_dir(&output.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
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

// ---- shared with the memory and static tests ----

/// Source names a C or C++ compiler takes as translation units.
const UNIT_SUFFIXES: [&str; 6] = [".c", ".cc", ".cpp", ".cxx", ".c++", ".C"];

/// Whether a file name is a C or C++ translation unit (not a header).
pub(super) fn is_unit(name: &str) -> bool {
    UNIT_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Whether a file name is C or C++ source or header.
pub(super) fn is_c_family(name: &str) -> bool {
    is_unit(name)
        || [
            ".h", ".hh", ".hpp", ".hxx", ".h++", ".H", ".inl", ".ipp", ".tpp",
        ]
        .iter()
        .any(|s| name.ends_with(s))
}

/// `Some(System Error)` when the submission is neither C nor C++.
pub(super) fn c_or_cpp_only(run: &SubmissionRun, what: &str) -> Option<JudgeTaskResult> {
    let language = run.submission.submission.source().language;
    (!matches!(language, Language::C | Language::Cpp)).then(|| {
        JudgeTaskResult::with_status(
            JudgeStatus::SystemError,
            format!("{what} support c and cpp (the submission is {language})"),
        )
    })
}

/// The submission's source and assist files, materialised into a fresh directory.
pub(super) fn submission_files(
    run: &SubmissionRun,
    label: &str,
) -> Result<(PathBuf, Vec<BoxFile>), JudgeError> {
    let source = run.submission.submission.source();
    let dir = run.fresh_dir(label)?;
    let mut files = Vec::new();
    let groups = [
        ("source_files", &source.source_files),
        ("assist_files", &source.assist_files),
    ];
    for (field, assets) in groups {
        for (i, asset) in assets.iter().enumerate() {
            let path =
                run.shared
                    .assets
                    .materialize(asset, &dir, &format!("submission.{field}[{i}]"))?;
            files.push(BoxFile {
                name: asset.name.clone(),
                source: path,
            });
        }
    }
    Ok((dir, files))
}

/// Compiles the submission's files with `profile` into `dir`; with `units_only`, only C/C++
/// translation units are passed to the compiler (headers stay beside them).
pub(super) fn special_build(
    run: &SubmissionRun,
    label: &str,
    profile: LanguageProfile,
    units_only: bool,
    dir: &Path,
) -> BuildResult {
    let attempt = || -> Result<CompileOutcome, JudgeError> {
        let missing = verdict_scripts::missing_programs(&profile);
        if !missing.is_empty() {
            return Err(JudgeError::Other(format!(
                "{} not found: install the Debian packages {}",
                missing.join(", "),
                profile.package
            )));
        }
        let original = run.submission.submission.source();
        let source = if units_only {
            let (units, rest): (Vec<Asset>, Vec<Asset>) = original
                .source_files
                .iter()
                .cloned()
                .partition(|a| is_unit(&a.name));
            SourceCode {
                source_files: units,
                assist_files: rest
                    .into_iter()
                    .chain(original.assist_files.clone())
                    .collect(),
                ..original.clone()
            }
        } else {
            original.clone()
        };
        let (sources, files) = submission_files(run, &format!("{label}-src"))?;
        let outcome = verdict_scripts::compile(
            &run.shared.sandbox,
            source.language,
            Arc::new(profile),
            &source,
            &files,
            dir,
            &run.shared.config.compile.limits(),
        );
        let _ = std::fs::remove_dir_all(&sources);
        Ok(outcome?)
    };
    match attempt() {
        Ok(CompileOutcome::Built { build, .. }) => BuildResult::Built(build),
        Ok(CompileOutcome::Failed { log }) => BuildResult::Failed(log),
        Err(err) => BuildResult::Broken(err.to_string()),
    }
}

/// The directory tools saw as the box: `/box` under full isolation, else the host directory.
pub(super) fn path_in_reports(outcome: &SandboxOutcome, box_dir: &Path) -> PathBuf {
    match outcome.isolation {
        IsolationLevel::RlimitOnly => box_dir.to_owned(),
        _ => PathBuf::from(verdict_sandbox::BOX_PATH),
    }
}

/// A tool's report file in the box, as text: `Ok(None)` when it does not exist, `Err` with
/// the reason when it is not a readable regular file (a planted symlink) or too large.
pub(super) fn read_box_text(
    box_dir: &Path,
    name: &str,
    max: u64,
) -> Result<Option<String>, String> {
    match verdict_sandbox::read_box_file(box_dir, Path::new(name), max) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(verdict_sandbox::SandboxError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(err) => Err(err.to_string()),
    }
}

/// Status for a deduction score (design #13): full Accepted, above zero Partial Correct, zero Wrong Answer.
pub(super) fn deduction_status(score: Score) -> JudgeStatus {
    if score.numerator == 0 {
        JudgeStatus::WrongAnswer
    } else if score.numerator >= score.denominator {
        JudgeStatus::Accepted
    } else {
        JudgeStatus::PartialCorrect
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(total: u32, pass: u32, failed: u32, disabled: u32) -> GoogleTestReport {
        GoogleTestReport {
            total_cases: total,
            pass_cases: pass,
            error_cases: failed,
            disabled_cases: disabled,
            report: Vec::new(),
        }
    }

    #[test]
    fn gtest_status_follows_passed_over_total() {
        let (status, score) = gtest_status(&report(4, 4, 0, 0));
        assert_eq!(
            (status, score.to_string()),
            (JudgeStatus::Accepted, "4/4".into())
        );
        let (status, score) = gtest_status(&report(5, 3, 1, 1));
        assert_eq!(
            (status, score.to_string()),
            (JudgeStatus::PartialCorrect, "3/5".into())
        );
        let (status, score) = gtest_status(&report(2, 0, 2, 0));
        assert_eq!(
            (status, score.to_string()),
            (JudgeStatus::WrongAnswer, "0/2".into())
        );
    }

    #[test]
    fn a_run_without_test_cases_is_wrong_answer_zero_over_one() {
        let (status, score) = gtest_status(&report(0, 0, 0, 0));
        assert_eq!(
            (status, score.to_string()),
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
    fn deduction_scores_map_to_statuses() {
        assert_eq!(deduction_status(Score::FULL), JudgeStatus::Accepted);
        assert_eq!(deduction_status(Score::ZERO), JudgeStatus::WrongAnswer);
        let eight = Score::new(8, 10).expect("score");
        assert_eq!(deduction_status(eight), JudgeStatus::PartialCorrect);
    }

    #[test]
    fn units_and_headers_are_told_apart() {
        assert!(is_unit("employee.cpp") && is_unit("main.c") && is_unit("x.cc"));
        assert!(!is_unit("employee.hpp") && !is_unit("x.h") && !is_unit("notes.txt"));
        assert!(is_c_family("employee.hpp") && !is_c_family("notes.txt"));
    }
}
