//! Memory tests (design #9, docs/special-tests.md): a debug build of the submission runs
//! under valgrind memcheck on the data of the task it depends on (or on random data), with
//! the time limit scaled and the memory limit raised for valgrind; each error costs 10%.

use super::compile::BuildResult;
use super::data::{TestFiles, datum_files};
use super::gtest::{
    c_or_cpp_only, deduction_status, path_in_reports, read_box_text, special_build,
};
use super::random::{Generated, generate};
use super::standard::task_limits;
use crate::config::SpecialConfig;
use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use std::collections::BTreeMap;
use verdict_contracts::{
    CheckScript, JudgeStatus, JudgeTask, JudgeTaskResult, MemoryReport, RunScript, Score,
    TaskReport,
};
use verdict_reports::{memory_score, parse_valgrind_xml};
use verdict_scripts::{
    Build, RunLimits, RunRequest, classify_run, log_text, read_capped, run_program,
};

/// valgrind's XML report in the box.
const VALGRIND_XML: &str = "valgrind.xml";
/// The largest XML report read (memcheck stops listing after 1,000 distinct errors).
const XML_MAX: u64 = 32 * 1024 * 1024;

/// memcheck's command line; the program's own run command follows it.
fn valgrind_argv() -> Vec<String> {
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

/// The submission compiled for valgrind (its profile plus `-g -O0`, so that stacks have
/// lines and the optimiser removes no allocation), run as `valgrind ... ./main`.
fn valgrind_build(run: &SubmissionRun) -> &BuildResult {
    run.valgrind_build.get_or_init(|| {
        let language = run.submission.submission.source().language;
        let Some(base) = run.shared.profiles.get(language) else {
            return BuildResult::Broken(format!(
                "language {language} has no profile on this judge"
            ));
        };
        let mut profile = base.clone();
        if let Some(compile) = &mut profile.compile {
            compile.extend(["-g".to_owned(), "-O0".to_owned()]);
        }
        profile.run = valgrind_argv()
            .into_iter()
            .chain(base.run.clone())
            .collect();
        profile.package = format!("{} valgrind", base.package);
        let dir = run.work_dir().join("valgrind-build");
        special_build(run, "valgrind", profile, false, &dir)
    })
}

/// Where a memory test's data come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DataSource {
    /// Standard test datum `n`.
    Datum(usize),
    /// The random data of task `n` (generated with that task's seed, so the same data).
    Random(usize),
    /// No data: empty standard input.
    Nothing,
}

/// The task's own `testcase_id`, else its own random data (`is_random`), else the data of the
/// standard (or memory) test it depends on, else nothing.
fn data_source(tasks: &[JudgeTask], index: usize) -> DataSource {
    let task = &tasks[index];
    if let Some(datum) = task.testcase() {
        return DataSource::Datum(datum);
    }
    if task.is_random {
        return DataSource::Random(index);
    }
    let Some(parent) = task.parent().filter(|&p| p < index) else {
        return DataSource::Nothing;
    };
    let up = &tasks[parent];
    match (up.check_script, up.run_script) {
        (CheckScript::Standard, Some(RunScript::Standard) | None) => match up.testcase() {
            Some(datum) => DataSource::Datum(datum),
            None if up.is_random => DataSource::Random(parent),
            None => DataSource::Nothing,
        },
        (CheckScript::Standard, Some(RunScript::Valgrind)) => data_source(tasks, parent),
        _ => DataSource::Nothing,
    }
}

/// The limits under valgrind: CPU time x factor, memory + valgrind's share, a few more
/// processes, room for the XML report in the output limit.
fn valgrind_limits(
    task: &JudgeTask,
    global_output_cap_kb: u64,
    config: &SpecialConfig,
) -> RunLimits {
    let base = task_limits(task, global_output_cap_kb);
    RunLimits {
        time_ms: base
            .time_ms
            .saturating_mul(config.valgrind_time_factor.max(1)),
        wall_ms: None,
        memory_kb: base
            .memory_kb
            .map(|m| m.saturating_add(config.valgrind_memory_kb)),
        output_kb: base
            .output_kb
            .map(|o| o.saturating_add(config.valgrind_output_kb)),
        processes: base
            .processes
            .map(|p| p.saturating_add(config.valgrind_extra_processes)),
    }
}

/// A memory test.
pub fn valgrind_task(run: &SubmissionRun, index: usize) -> Result<JudgeTaskResult, JudgeError> {
    let sub = &run.submission;
    let task = &sub.judge_tasks[index];
    if let Some(refused) = c_or_cpp_only(run, "memory tests") {
        return Ok(refused);
    }
    let build: &Build = match valgrind_build(run).built(
        JudgeStatus::CompilationError,
        Some("the program (debug build for valgrind)"),
    ) {
        Ok(build) => build,
        Err(result) => return Ok(*result),
    };
    let run_dir = run.fresh_dir(&format!("task{index}-valgrind"))?;
    let source = data_source(&sub.judge_tasks, index);
    let (test, input_note) = match source {
        DataSource::Datum(datum) => (datum_files(run, datum)?, format!("test datum {datum}")),
        DataSource::Random(of) => match generate(run, of, &run_dir)? {
            Generated::Test(test, origin) => {
                (test, format!("the random data of task {of}, {origin}"))
            }
            Generated::Failed(result) => return Ok(result),
        },
        DataSource::Nothing => (TestFiles::default(), "no input".to_owned()),
    };
    let config = &run.shared.config.special;
    let limits = valgrind_limits(task, run.shared.config.global_output_cap_kb, config);
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
    let stderr = read_capped(&output.stderr, 64 * 1024)?;
    let xml = read_box_text(&output.box_dir, VALGRIND_XML, XML_MAX);
    let parsed = match &xml {
        Ok(Some(text)) => parse_valgrind_xml(text, &path_in_reports(outcome, &output.box_dir))
            .map_err(|e| e.to_string()),
        Ok(None) => Err("valgrind wrote no report".to_owned()),
        Err(reason) => Err(reason.clone()),
    };
    let failure = classify_run(outcome, &limits, &String::from_utf8_lossy(&stderr), &[]);
    let under = format!(
        "limits under valgrind: {} ms CPU{}",
        limits.time_ms,
        limits
            .memory_kb
            .map_or_else(String::new, |m| format!(", {m} KB"))
    );
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
                log.push_str(&log_text(&stderr, 2048));
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
                log.push(under);
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
    let _ = verdict_sandbox::remove_box_dir(&output.box_dir);
    let _ = std::fs::remove_dir_all(&run_dir);
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
    use verdict_contracts::{CompareScript, DependsCond, MemoryError};

    fn task(
        check: CheckScript,
        run: Option<RunScript>,
        testcase: i64,
        depends_on: i64,
        random: bool,
    ) -> JudgeTask {
        JudgeTask {
            check_script: check,
            run_script: run,
            compare_script: match run {
                Some(RunScript::Valgrind) => Some(CompareScript::Valgrind),
                Some(RunScript::Standard) => Some(CompareScript::DiffAll),
                _ => None,
            },
            is_random: random,
            testcase_id: Some(testcase),
            depends_on,
            depends_cond: Some(DependsCond::Accepted),
            memory_limit: Some(65536),
            time_limit: 1000,
            file_limit: Some(1024),
            proc_limit: Some(5),
            run_args: None,
        }
    }

    fn compile() -> JudgeTask {
        task(CheckScript::Compile, None, -1, -1, false)
    }
    fn standard(testcase: i64, random: bool) -> JudgeTask {
        task(
            CheckScript::Standard,
            Some(RunScript::Standard),
            testcase,
            0,
            random,
        )
    }
    fn memory(testcase: i64, depends_on: i64, random: bool) -> JudgeTask {
        task(
            CheckScript::Standard,
            Some(RunScript::Valgrind),
            testcase,
            depends_on,
            random,
        )
    }

    #[test]
    fn a_memory_test_uses_its_parent_standard_tests_datum() {
        let tasks = [compile(), standard(2, false), memory(-1, 1, false)];
        assert_eq!(data_source(&tasks, 2), DataSource::Datum(2));
    }

    #[test]
    fn a_memory_test_under_a_random_test_regenerates_the_parents_data() {
        let tasks = [compile(), standard(-1, true), memory(-1, 1, false)];
        assert_eq!(data_source(&tasks, 2), DataSource::Random(1));
    }

    #[test]
    fn a_random_memory_test_under_compile_generates_its_own_data() {
        let tasks = [compile(), memory(-1, 0, true)];
        assert_eq!(data_source(&tasks, 1), DataSource::Random(1));
        let tasks = [compile(), memory(-1, 0, false)];
        assert_eq!(data_source(&tasks, 1), DataSource::Nothing);
    }

    #[test]
    fn an_own_testcase_id_wins() {
        let tasks = [compile(), standard(2, false), memory(0, 1, false)];
        assert_eq!(data_source(&tasks, 2), DataSource::Datum(0));
    }

    #[test]
    fn limits_are_scaled_for_valgrind() {
        let t = memory(-1, 0, false);
        let limits = valgrind_limits(&t, 1024, &SpecialConfig::default());
        assert_eq!(limits.time_ms, 10_000);
        assert_eq!(limits.wall_ms(), 21_000);
        assert_eq!(limits.memory_kb, Some(65536 + 256 * 1024));
        assert_eq!(limits.processes, Some(9));
        assert_eq!(limits.output_kb, Some(1024 + 16 * 1024));
        let mut unlimited = t.clone();
        unlimited.memory_limit = Some(-1);
        let limits = valgrind_limits(&unlimited, 1024, &SpecialConfig::default());
        assert_eq!(limits.memory_kb, None);
    }

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
}
