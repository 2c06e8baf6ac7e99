//! Script and cli deliverables: each case runs the entry file in a fresh box, with its input
//! files written in and its stdin fed from a file; stdout, stderr, the exit code and the files
//! the case names are read back and compared (no pipes, so nothing can deadlock).

use super::options::{NOT_RUN, OracleOptions};
use super::outcome::abnormal;
use super::workdir::{WorkDir, list_files, read_capped, text_of, write_box_file, write_sources};
use super::{OracleError, SuiteRun, case_result};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use verdict_compare::expect::{Captured, judge_captured};
use verdict_contracts::oracle::{
    DeliverableType, OracleCaseResult, OracleCaseStatus, ScriptExpectation, TestCase, TestSuite,
    cli_input, script_expectation, script_input,
};
use verdict_scripts::{ExitKind, ProcessSpec, Stream, read_box_file};

/// A validated script or cli case: what to feed and what to expect.
struct Prepared {
    argv: Vec<String>,
    stdin: String,
    files: BTreeMap<String, String>,
    expected: ScriptExpectation,
}

/// Validates one case of a script or cli suite, with the contract's messages.
fn prepare(suite: &TestSuite, case: &TestCase) -> Result<Prepared, String> {
    let (argv, stdin, files) = match suite.deliverable_type {
        DeliverableType::Cli => {
            let input = cli_input(&case.input)?;
            (input.argv, input.stdin, input.files)
        }
        _ => {
            let input = script_input(&case.input)?;
            (Vec::new(), input.stdin, input.files)
        }
    };
    if let Some(name) = files
        .keys()
        .find(|n| suite.source_files.iter().any(|a| &a.name == *n))
    {
        return Err(format!(
            "invalid_test_format: input file {name:?} would replace a source file"
        ));
    }
    let expected = script_expectation(&case.expected)?;
    Ok(Prepared {
        argv,
        stdin: stdin.unwrap_or_default(),
        files,
        expected,
    })
}

/// Runs every case of a script or cli suite (validated first), `options.parallelism` at a
/// time; results come back in the suite's order.
pub(crate) fn run_process_suite(
    suite_run: &SuiteRun<'_>,
) -> Result<Vec<OracleCaseResult>, OracleError> {
    let SuiteRun { suite, options, .. } = *suite_run;
    let prepared: Vec<Result<Prepared, String>> = suite
        .test_cases
        .iter()
        .map(|case| prepare(suite, case))
        .collect();
    let one = |i: usize| -> Result<OracleCaseResult, OracleError> {
        let case = &suite.test_cases[i];
        match &prepared[i] {
            Err(message) => Ok(case_result(
                case,
                OracleCaseStatus::InvalidTestFormat,
                None,
                Some(message.clone()),
                0,
            )),
            Ok(p) => run_case(suite_run, case, p),
        }
    };
    let n = suite.test_cases.len();
    if options.stop_at_first_failure || options.stop_after_timeout || options.deadline.is_some() {
        return one_at_a_time(suite, options, one);
    }
    let workers = options.parallelism.clamp(1, n.max(1));
    if workers == 1 {
        return (0..n).map(one).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<OracleCaseResult, OracleError>>>> =
        (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let result = one(i);
                    let failed = result.is_err();
                    *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                    if failed {
                        // The judge itself failed: stop handing out cases.
                        next.store(n, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let mut results = Vec::with_capacity(n);
    for slot in slots {
        match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(result) => results.push(result?),
            None => continue,
        }
    }
    Ok(results)
}

/// Runs the cases in order, one at a time, and stops at the first that does not pass (with
/// `stop_at_first_failure`) or at the deadline; the cases left are [`NOT_RUN`] errors.
fn one_at_a_time(
    suite: &TestSuite,
    options: &OracleOptions,
    one: impl Fn(usize) -> Result<OracleCaseResult, OracleError>,
) -> Result<Vec<OracleCaseResult>, OracleError> {
    let mut results = Vec::with_capacity(suite.test_cases.len());
    let mut stopped = false;
    for (i, case) in suite.test_cases.iter().enumerate() {
        stopped = stopped || options.deadline.is_some_and(|d| Instant::now() >= d);
        if stopped {
            results.push(case_result(
                case,
                OracleCaseStatus::Error,
                None,
                Some(NOT_RUN.to_owned()),
                0,
            ));
            continue;
        }
        let result = one(i)?;
        stopped = (options.stop_at_first_failure && result.status != OracleCaseStatus::Passed)
            || (options.stop_after_timeout && result.status == OracleCaseStatus::Timeout);
        results.push(result);
    }
    Ok(results)
}

fn run_case(
    suite_run: &SuiteRun<'_>,
    case: &TestCase,
    prepared: &Prepared,
) -> Result<OracleCaseResult, OracleError> {
    let SuiteRun { suite, options, .. } = *suite_run;
    let work = WorkDir::new(options.work_dir.as_deref())?;
    let box_dir = work.box_dir();
    write_sources(&box_dir, &suite.source_files)?;
    for (name, content) in &prepared.files {
        write_box_file(&box_dir, name, content.as_bytes())?;
    }
    let (stdin, stdout, stderr) = (work.io("stdin"), work.io("stdout"), work.io("stderr"));
    std::fs::write(&stdin, prepared.stdin.as_bytes())
        .map_err(|e| OracleError::io("write", &stdin, e))?;

    let mut args: Vec<String> = suite_run.command[1..].to_vec();
    args.push(suite.entry_point.clone());
    args.extend(prepared.argv.iter().cloned());
    let mut limits = options.limits.clone();
    limits.wall_time_ms = Some(suite_run.timeout_ms);
    limits.cpu_time_ms = Some(suite_run.timeout_ms);
    let spec = ProcessSpec {
        program: PathBuf::from(&suite_run.command[0]),
        args: args.into_iter().map(Into::into).collect(),
        env: vec![
            ("PYTHONIOENCODING".into(), "utf-8".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ],
        box_dir: box_dir.clone(),
        stdin: Stream::File(stdin),
        stdout: Stream::File(stdout.clone()),
        stderr: Stream::File(stderr.clone()),
        limits,
        read_only_mounts: Vec::new(),
        writable_mounts: Vec::new(),
    };
    let outcome = suite_run.executor.run_spec(suite_run.cancel, spec)?;
    let cap = options.max_capture_bytes;
    let stdout = text_of(read_capped(&stdout, cap)?);
    let stderr = text_of(read_capped(&stderr, cap)?);
    let exit_code = match outcome.exit {
        ExitKind::Exited(code) => Some(code),
        ExitKind::Signaled(_) => None,
    };

    // The files the case names, then whatever else the run produced (never the inputs or sources).
    let mut named = BTreeMap::new();
    for name in prepared.expected.files.iter().flat_map(|f| f.keys()) {
        let content = read_box_file(&box_dir, std::path::Path::new(name), cap)
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        named.insert(name.clone(), content);
    }
    let is_input = |n: &str| {
        named.contains_key(n)
            || prepared.files.contains_key(n)
            || suite.source_files.iter().any(|a| a.name == n)
    };
    let mut files = Map::new();
    for (name, content) in &named {
        files.insert(
            name.clone(),
            content.clone().map_or(Value::Null, Value::String),
        );
    }
    for name in list_files(&box_dir, &is_input, options.max_produced_files) {
        if let Ok(bytes) = read_box_file(&box_dir, std::path::Path::new(&name), cap) {
            files.insert(
                name,
                Value::String(String::from_utf8_lossy(&bytes).into_owned()),
            );
        }
    }
    let got = json!({"stdout": stdout, "stderr": stderr, "exit_code": exit_code, "files": files});

    let (status, message) = match (abnormal(&outcome), exit_code) {
        (Some((status, message)), _) => (status, Some(message)),
        (None, Some(exit_code)) => {
            let captured = Captured {
                stdout,
                stderr,
                exit_code,
                files: named,
            };
            judge_captured(&prepared.expected, &captured)
        }
        (None, None) => (
            OracleCaseStatus::Error,
            Some("did not exit normally".into()),
        ),
    };
    Ok(case_result(
        case,
        status,
        Some(got),
        message,
        outcome.wall_time_ms,
    ))
}
