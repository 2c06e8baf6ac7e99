//! Memory tests (design #9): the submission's debug build under valgrind memcheck; the XML
//! report decides, each counted error costs 10%.

use super::{deduction_status, path_in_reports, read_box_text};
use crate::language::LanguageProfile;
use crate::{RunLimits, RunOutput, ScriptError, classify_run, log_text, read_capture};
use std::collections::BTreeMap;
use verdict_contracts::{JudgeStatus, JudgeTaskResult, MemoryReport, Score, TaskReport};
use verdict_reports::{memory_score, parse_valgrind_xml};

/// valgrind's XML report in the box.
const VALGRIND_XML: &str = "valgrind.xml";
/// The largest XML report read (memcheck stops listing after 1,000 distinct errors).
const XML_MAX: u64 = 32 * 1024 * 1024;

/// memcheck's command line; the program's own run command follows it.
pub fn valgrind_argv() -> Vec<String> {
    [
        "valgrind",
        "--tool=memcheck",
        "--leak-check=full",
        "--track-origins=yes",
        "--child-silent-after-fork=yes",
        "--vgdb=no",
        "--xml=yes",
    ]
    .iter()
    .map(|a| (*a).to_owned())
    .chain([format!("--xml-file={VALGRIND_XML}")])
    .collect()
}

/// The language profile of the debug build: `-g -O0` appended to the compile command (stacks
/// with lines; the optimiser removes no allocation), run as `valgrind ... <run command>`.
pub fn valgrind_profile(base: &LanguageProfile) -> LanguageProfile {
    let mut profile = base.clone();
    if let Some(compile) = &mut profile.compile {
        compile.extend(["-g".to_owned(), "-O0".to_owned()]);
    }
    profile.run = valgrind_argv()
        .into_iter()
        .chain(base.run.clone())
        .collect();
    profile.package = format!("{} valgrind", base.package);
    profile
}

/// The result of a memory test's run under `limits`; `input_note` says which data it ran on.
pub fn memory_result(
    output: &RunOutput,
    limits: &RunLimits,
    input_note: &str,
) -> Result<JudgeTaskResult, ScriptError> {
    let outcome = &output.outcome;
    let stderr = read_capture(&output.stderr, 64 * 1024)?;
    let parsed = match read_box_text(&output.box_dir, VALGRIND_XML, XML_MAX) {
        Ok(Some(text)) => parse_valgrind_xml(&text, &path_in_reports(outcome, &output.box_dir))
            .map_err(|e| e.to_string()),
        Ok(None) => Err("valgrind wrote no report".to_owned()),
        Err(reason) => Err(reason),
    };
    let failure = classify_run(outcome, limits, &String::from_utf8_lossy(&stderr), &[]);
    let mut result = match (failure, parsed) {
        // The program ended normally: the report decides.
        (None, Ok(report)) => {
            let score = memory_score(report.error_count);
            let log = format!("{} (input: {input_note})", summary(&report));
            let mut result = JudgeTaskResult::with_status(deduction_status(score), log);
            result.score = score;
            result.report = Some(TaskReport::Memory(report));
            result
        }
        // It ended normally but valgrind left no usable report: the judge failed.
        (None, Err(reason)) => {
            let mut log = format!("valgrind gave no usable report: {reason}");
            if !stderr.is_empty() {
                log.push_str("\nstderr:\n");
                log.push_str(&stderr.excerpt(2048));
            }
            JudgeTaskResult::with_status(JudgeStatus::SystemError, log)
        }
        // A limit, a crash or a non-zero exit is the status (score 0/1); the report is kept
        // when valgrind finished writing it (it does after a crash, not when killed at a limit).
        (Some(failure), parsed) => {
            let mut log = vec![format!("under valgrind: {}", failure.reason)];
            if matches!(
                failure.status,
                JudgeStatus::TimeLimitExceeded | JudgeStatus::MemoryLimitExceeded
            ) {
                log.push(format!(
                    "limits under valgrind: {} ms CPU{}",
                    limits.time_ms,
                    limits
                        .memory_kb
                        .map_or_else(String::new, |m| format!(", {m} KB"))
                ));
            }
            let report = parsed.ok();
            if let Some(report) = &report {
                log.push(summary(report));
            }
            log.push(format!("input: {input_note}"));
            let own = program_stderr(&stderr);
            if !own.trim().is_empty() && failure.status != JudgeStatus::OutputLimitExceeded {
                log.push(format!("stderr:\n{}", log_text(own.as_bytes(), 2048)));
            }
            let mut result = JudgeTaskResult::with_status(failure.status, log.join("\n"));
            result.score = Score::ZERO;
            result.report = report.map(TaskReport::Memory);
            result
        }
    };
    result.run_time = outcome.cpu_time_ms;
    result.memory_used = outcome.peak_memory_kb;
    Ok(result)
}

/// The program's own stderr: valgrind's commentary (`==PID== ...` lines, e.g. its advice
/// after a SIGSEGV) left out.
fn program_stderr(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|line| {
            let Some(rest) = line.strip_prefix("==") else {
                return true;
            };
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            !(digits > 0 && rest[digits..].starts_with("=="))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `"2 memory errors: Leak_DefinitelyLost x2"`, or `"no memory errors"`.
fn summary(report: &MemoryReport) -> String {
    if report.error_count == 0 {
        return "no memory errors".to_owned();
    }
    // The kinds that count (verdict_reports::valgrind: still-reachable and indirect leaks do not).
    let mut kinds: BTreeMap<&str, u32> = BTreeMap::new();
    for error in &report.errors {
        if !matches!(
            error.kind.as_str(),
            "Leak_StillReachable" | "Leak_IndirectlyLost"
        ) {
            *kinds.entry(error.kind.as_str()).or_default() += 1;
        }
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} x{n}")).collect();
    let noun = if report.error_count == 1 {
        "error"
    } else {
        "errors"
    };
    format!("{} memory {noun}: {}", report.error_count, kinds.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fake::{FakeExecutor, FakeRun};
    use crate::{Executor, RunRequest, TemplateVars};
    use verdict_contracts::{Language, MemoryError};

    #[test]
    fn valgrind_commentary_is_left_out_of_stderr() {
        let stderr = b"==2== Process terminating with default action of signal 11\n==2==  Access not within mapped region\nmy own message\n== not valgrind\n";
        assert_eq!(program_stderr(stderr), "my own message\n== not valgrind");
    }

    #[test]
    fn the_summary_names_the_counted_kinds() {
        let error = |kind: &str| MemoryError {
            kind: kind.to_owned(),
            what: String::new(),
            bytes_leaked: None,
            blocks_leaked: None,
            stack: Vec::new(),
        };
        let report = MemoryReport {
            tool: "valgrind-3.19.0".into(),
            error_count: 3,
            errors: vec![
                error("Leak_DefinitelyLost"),
                error("InvalidRead"),
                error("Leak_StillReachable"),
                error("Leak_DefinitelyLost"),
            ],
        };
        assert_eq!(
            summary(&report),
            "3 memory errors: InvalidRead x1, Leak_DefinitelyLost x2"
        );
        assert_eq!(summary(&MemoryReport::default()), "no memory errors");
    }

    /// `run` as the fake's run of a C program under valgrind, judged with `input_note`; also
    /// the command line the fake was given.
    fn judge_under_valgrind(run: FakeRun, input_note: &str) -> (JudgeTaskResult, Vec<String>) {
        let dir = tempfile::tempdir().expect("dir");
        let base = LanguageProfile {
            compile: Some(vec!["gcc".into()]),
            run: vec!["./main".into()],
            package: "gcc".into(),
            ..LanguageProfile::default()
        };
        let profile = valgrind_profile(&base);
        let build = crate::tool_build(dir.path(), Language::C, profile, TemplateVars::default());
        let fake = FakeExecutor::new(vec![run]);
        let limits = RunLimits::new(1000, Some(65536), None, None);
        let request = RunRequest::new(&build, limits);
        let output = fake
            .run(&crate::CancelToken::new(), &request, dir.path())
            .expect("run");
        let result = memory_result(&output, &limits, input_note).expect("result");
        let command = fake.commands.lock().expect("commands")[0].clone();
        (result, command)
    }

    #[test]
    fn a_clean_exit_without_a_report_is_a_system_error_naming_why() {
        let (result, command) = judge_under_valgrind(FakeRun::exited(0, ""), "no input");
        assert_eq!(result.status, JudgeStatus::SystemError);
        assert_eq!(
            result.error_log,
            "valgrind gave no usable report: valgrind wrote no report"
        );
        assert_eq!(command[0], "valgrind");
        assert_eq!(command.last().map(String::as_str), Some("./main"));
        assert!(command.contains(&"--xml-file=valgrind.xml".to_owned()));
    }

    #[test]
    fn a_crash_keeps_its_status_and_leaves_valgrinds_commentary_out() {
        let mut crash = FakeRun::exited(0, "");
        crash.outcome.exit = crate::exec::ExitKind::Signaled(11);
        crash.stderr = b"==7== Invalid write of size 4\nboom\n".to_vec();
        let (result, _) = judge_under_valgrind(crash, "test datum 0");
        assert_eq!(result.status, JudgeStatus::SegmentationFault);
        assert_eq!(result.score, Score::ZERO);
        assert_eq!(
            result.error_log,
            "under valgrind: killed by signal SIGSEGV\ninput: test datum 0\nstderr:\nboom"
        );
    }
}
