//! Judging one sample against its problem in the sandbox, through the Task Oracle's runners.
//!
//! - Assertion tests: a `script` suite of one case: `assertion_runner.py` loads the candidate,
//!   checks the return values of the functions the tests call, runs the tests, and writes a
//!   marker it read from stdin only once they all passed; stdout must be exactly that marker.
//! - Function tests: a `function` suite: the oracle's harness calls the function per case and
//!   compares the JSON return value with the expected one outside the box.
//! - Stdio tests: a `script` suite that checks only the exit code in the box; stdout is compared
//!   here, outside it ([`crate::compare::outputs_match`]).

use crate::compare::{first_difference, outputs_match};
use crate::humaneval::is_identifier;
use crate::problem::{
    AssertionTests, CallStyle, Case, FunctionCase, FunctionTests, InvalidCase, Problem, StdioTests,
    Tests,
};
use crate::result::{SampleResult, TestOutcome};
use crate::samples::Sample;
use serde_json::{Value, json};
use verdict_contracts::judge::{Asset, Language};
use verdict_contracts::oracle::{
    DeliverableType, OracleCaseResult, OracleCaseStatus, TestCase, TestSuite,
};
use verdict_sandbox::Sandbox;
use verdict_scripts::oracle::{OracleError, OracleOptions, run_suite};

const RUNNER: &str = include_str!("assertion_runner.py");
const ENTRY_SHIM: &str = "__verdict_entry__";

/// How samples are judged.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// The oracle's options (limits, interpreters, work directory).
    pub oracle: OracleOptions,
    /// Time limit of one test (one whole assertion script) in ms when the dataset gives none.
    pub timeout_ms: u64,
}

impl Default for EvalOptions {
    fn default() -> Self {
        let oracle = OracleOptions {
            parallelism: 1,
            ..OracleOptions::default()
        };
        EvalOptions {
            oracle,
            timeout_ms: 6_000,
        }
    }
}

/// Judges `sample` against `problem` in `sandbox` (blocking). A failure of the judge itself is
/// a result with `infra_error`, never an `Err`.
pub fn evaluate(
    sandbox: &Sandbox,
    problem: &Problem,
    sample: &Sample,
    options: &EvalOptions,
) -> SampleResult {
    let program = sample.program(problem);
    let mut oracle = options.oracle.clone();
    if let Some(bytes) = problem.limits.memory_bytes {
        oracle.limits.memory_kb = Some(bytes.div_ceil(1024));
    }
    let timeout_ms = problem.limits.time_ms.unwrap_or(options.timeout_ms).max(1);
    let outcome = match &problem.tests {
        Tests::Assertion(tests) => assertion(sandbox, &program, tests, timeout_ms, &oracle),
        Tests::Function(tests) => function(sandbox, problem, &program, tests, timeout_ms, &oracle),
        Tests::Stdio(tests) => stdio(sandbox, problem, &program, tests, timeout_ms, &mut oracle),
        Tests::Reference(_) => match resolve_reference(sandbox, problem, options) {
            Ok(resolved) => return evaluate(sandbox, &resolved, sample, options),
            Err(e) => Err(e),
        },
    };
    outcome.unwrap_or_else(|e| {
        let retryable = !matches!(e, OracleError::Suite { .. });
        SampleResult::infra(e.to_string(), retryable, problem.tests.len())
    })
}

fn text(name: &str, content: String) -> Asset {
    Asset::text(name, content)
}

fn assertion(
    sandbox: &Sandbox,
    program: &str,
    tests: &AssertionTests,
    timeout_ms: u64,
    oracle: &OracleOptions,
) -> Result<SampleResult, OracleError> {
    let mut test_code = format!("{}\n{}\n", tests.setup, tests.test);
    if let Some(entry) = &tests.check_entry_point {
        test_code.push_str(&format!("check({entry})\n"));
    }
    let marker = marker();
    let suite = TestSuite {
        deliverable_type: DeliverableType::Script,
        language: Language::Python3,
        entry_point: "main.py".into(),
        source_files: vec![
            text("main.py", RUNNER.to_string()),
            text("candidate.py", program.to_string()),
            text("tests.py", test_code),
            text("guarded.txt", tests.guarded.join("\n")),
        ],
        timeout_ms: Some(timeout_ms),
        float_tolerance: None,
        test_cases: vec![TestCase {
            name: "check".into(),
            input: json!({"stdin": format!("{marker}\n")}),
            expected: json!({}),
        }],
    };
    let report = run_suite(sandbox, &suite, oracle)?;
    let Some(case) = report.results.into_iter().next() else {
        return Ok(SampleResult::infra(
            "the oracle returned no result".into(),
            true,
            1,
        ));
    };
    let (stdout, stderr, exit_code) = captured(&case);
    let failed_line = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("verdict-eval-failed\t"))
        .map(|l| {
            let (kind, message) = l.split_once('\t').unwrap_or((l, ""));
            (kind.to_string(), message.replace("\\n", "\n"))
        });
    let (status, message, result) = match case.status {
        OracleCaseStatus::Timeout => (OracleCaseStatus::Timeout, case.message, "timed out".into()),
        _ if stdout == format!("{marker}\n") && exit_code == Some(0) => {
            (OracleCaseStatus::Passed, None, "passed".to_string())
        }
        _ => match failed_line {
            Some((kind, message)) => {
                let status = if kind == "AssertionError" {
                    OracleCaseStatus::Failed
                } else {
                    OracleCaseStatus::Error
                };
                let detail = if message.is_empty() {
                    kind.clone()
                } else {
                    format!("{kind}: {message}")
                };
                (status, Some(detail), format!("failed: {message}"))
            }
            None => {
                let why = match (exit_code, stdout.is_empty()) {
                    (Some(0), true) => "exited with code 0 before the tests finished".to_string(),
                    (Some(0), false) => "wrote to the runner's output".to_string(),
                    (Some(code), _) => format!("exited with code {code} before the tests finished"),
                    (None, _) => case.message.unwrap_or_else(|| "killed".into()),
                };
                (
                    OracleCaseStatus::Error,
                    Some(why.clone()),
                    format!("failed: {why}"),
                )
            }
        },
    };
    let mut sample = SampleResult::of_tests(vec![TestOutcome {
        name: "check".into(),
        status,
        message,
        time_ms: case.time_ms,
    }]);
    sample.result = result;
    Ok(sample)
}

/// A fresh marker per run: 32 hex digits nobody outside this process has seen.
fn marker() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = blake3::Hasher::new();
    let mut seed = [0u8; 32];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = std::io::Read::read_exact(&mut f, &mut seed);
    }
    hasher.update(&seed);
    hasher.update(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.update(&now.to_le_bytes());
    hasher.update(&std::process::id().to_le_bytes());
    format!("verdict-passed-{}", &hasher.finalize().to_hex()[..32])
}

fn captured(case: &OracleCaseResult) -> (String, String, Option<i64>) {
    let got = case.got.as_ref();
    let field = |k: &str| {
        got.and_then(|g| g.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let exit = got.and_then(|g| g.get("exit_code")).and_then(Value::as_i64);
    (field("stdout"), field("stderr"), exit)
}

/// A test that was not run because its record is malformed.
fn invalid(name: &str, report: String) -> TestOutcome {
    TestOutcome {
        name: name.to_string(),
        status: OracleCaseStatus::InvalidTestFormat,
        message: Some(report),
        time_ms: 0,
    }
}

fn function(
    sandbox: &Sandbox,
    problem: &Problem,
    program: &str,
    tests: &FunctionTests,
    timeout_ms: u64,
    oracle: &OracleOptions,
) -> Result<SampleResult, OracleError> {
    let mut outcomes: Vec<Option<TestOutcome>> = vec![None; tests.cases.len()];
    let mut cases = Vec::new();
    let mut index = Vec::new();
    for (i, case) in tests.cases.iter().enumerate() {
        match &case.body {
            Err(bad) => outcomes[i] = Some(invalid(&case.name, bad.report(&problem.task_id))),
            Ok(_) if !is_identifier(&tests.fn_name) => {
                outcomes[i] = Some(invalid(
                    &case.name,
                    format!(
                        "invalid_test_format: record {} field fn_name: {:?} is not a Python name",
                        problem.task_id, tests.fn_name
                    ),
                ))
            }
            Ok(call) => {
                index.push(i);
                cases.push(TestCase {
                    name: case.name.clone(),
                    input: Value::Array(call.args.clone()),
                    expected: call.expected.clone(),
                });
            }
        }
    }
    if !cases.is_empty() {
        let method =
            tests.call == CallStyle::SolutionOrModule && program.contains("class Solution");
        let (source, entry) = if method {
            (
                format!(
                    "{program}\n\n\ndef {ENTRY_SHIM}(*args):\n    return Solution().{}(*args)\n",
                    tests.fn_name
                ),
                ENTRY_SHIM.to_string(),
            )
        } else {
            (program.to_string(), tests.fn_name.clone())
        };
        let suite = TestSuite {
            deliverable_type: DeliverableType::Function,
            language: Language::Python3,
            entry_point: entry,
            source_files: vec![text("solution.py", source)],
            timeout_ms: Some(timeout_ms),
            float_tolerance: tests.tolerance,
            test_cases: cases,
        };
        let report = run_suite(sandbox, &suite, oracle)?;
        for (k, result) in report.results.into_iter().enumerate() {
            if let Some(&i) = index.get(k) {
                outcomes[i] = Some(TestOutcome {
                    name: result.name,
                    status: result.status,
                    message: result.message,
                    time_ms: result.time_ms,
                });
            }
        }
    }
    Ok(SampleResult::of_tests(
        outcomes.into_iter().flatten().collect(),
    ))
}

/// Runs the reference solution of [`Tests::Reference`] in the box and returns the problem with
/// function tests whose expected values are what it returned; a case where the reference
/// raised, timed out or returned no JSON value is `invalid_test_format` naming it. Other
/// problems come back unchanged. `Err` when the judge could not run the reference at all.
pub fn resolve_reference(
    sandbox: &Sandbox,
    problem: &Problem,
    options: &EvalOptions,
) -> Result<Problem, OracleError> {
    let Tests::Reference(tests) = &problem.tests else {
        return Ok(problem.clone());
    };
    let mut cases: Vec<Option<Case<FunctionCase>>> = vec![None; tests.cases.len()];
    let mut suite_cases = Vec::new();
    let mut index = Vec::new();
    for (i, case) in tests.cases.iter().enumerate() {
        match &case.body {
            Err(bad) => {
                cases[i] = Some(Case {
                    name: case.name.clone(),
                    body: Err(bad.clone()),
                })
            }
            Ok(args) => {
                index.push(i);
                suite_cases.push(TestCase {
                    name: case.name.clone(),
                    input: Value::Array(args.clone()),
                    expected: Value::Null,
                });
            }
        }
    }
    if !suite_cases.is_empty() {
        let suite = TestSuite {
            deliverable_type: DeliverableType::Function,
            language: Language::Python3,
            entry_point: tests.fn_name.clone(),
            source_files: vec![text("reference.py", tests.reference.clone())],
            timeout_ms: Some(problem.limits.time_ms.unwrap_or(options.timeout_ms).max(1)),
            float_tolerance: None,
            test_cases: suite_cases,
        };
        let report = run_suite(sandbox, &suite, &options.oracle)?;
        for (k, result) in report.results.into_iter().enumerate() {
            let Some(&i) = index.get(k) else { continue };
            let args = match &tests.cases[i].body {
                Ok(args) => args.clone(),
                Err(_) => continue,
            };
            let returned = matches!(
                result.status,
                OracleCaseStatus::Passed | OracleCaseStatus::Failed
            );
            let body = match result.got {
                Some(expected) if returned => Ok(FunctionCase { args, expected }),
                _ => Err(InvalidCase::new(
                    result.name.clone(),
                    format!(
                        "the reference solution gave no value ({}: {})",
                        result.status.as_str(),
                        result.message.unwrap_or_default()
                    ),
                )),
            };
            cases[i] = Some(Case {
                name: result.name,
                body,
            });
        }
    }
    Ok(Problem {
        tests: Tests::Function(FunctionTests {
            fn_name: tests.fn_name.clone(),
            call: CallStyle::Module,
            tolerance: Some(tests.tolerance),
            cases: cases.into_iter().flatten().collect(),
        }),
        ..problem.clone()
    })
}

fn stdio(
    sandbox: &Sandbox,
    problem: &Problem,
    program: &str,
    tests: &StdioTests,
    timeout_ms: u64,
    oracle: &mut OracleOptions,
) -> Result<SampleResult, OracleError> {
    let mut outcomes: Vec<Option<TestOutcome>> = vec![None; tests.cases.len()];
    let mut cases = Vec::new();
    let mut index = Vec::new();
    let mut longest = 0;
    for (i, case) in tests.cases.iter().enumerate() {
        match &case.body {
            Err(bad) => outcomes[i] = Some(invalid(&case.name, bad.report(&problem.task_id))),
            Ok(io) => {
                longest = longest.max(io.stdout.len() as u64);
                index.push(i);
                cases.push(TestCase {
                    name: case.name.clone(),
                    input: json!({"stdin": io.stdin}),
                    expected: json!({}),
                });
            }
        }
    }
    // Enough of stdout to see a difference past the expected text's end.
    oracle.max_capture_bytes = oracle.max_capture_bytes.max(longest * 2 + 4096);
    if !cases.is_empty() {
        let suite = TestSuite {
            deliverable_type: DeliverableType::Script,
            language: Language::Python3,
            entry_point: "main.py".into(),
            source_files: vec![text("main.py", program.to_string())],
            timeout_ms: Some(timeout_ms),
            float_tolerance: None,
            test_cases: cases,
        };
        let report = run_suite(sandbox, &suite, oracle)?;
        for (k, result) in report.results.into_iter().enumerate() {
            let Some(&i) = index.get(k) else { continue };
            let expected = match &tests.cases[i].body {
                Ok(io) => io.stdout.as_str(),
                Err(_) => continue,
            };
            let (stdout, stderr, exit_code) = captured(&result);
            let (status, message) = match result.status {
                OracleCaseStatus::Passed if outputs_match(&stdout, expected) => {
                    (OracleCaseStatus::Passed, None)
                }
                OracleCaseStatus::Passed => (
                    OracleCaseStatus::Failed,
                    Some(format!(
                        "wrong answer: {}",
                        first_difference(&stdout, expected)
                    )),
                ),
                OracleCaseStatus::Failed => {
                    let last = stderr
                        .lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("");
                    let code = exit_code.map_or("a signal".to_string(), |c| format!("code {c}"));
                    (
                        OracleCaseStatus::Error,
                        Some(format!("exited with {code}: {last}")),
                    )
                }
                other => (other, result.message),
            };
            outcomes[i] = Some(TestOutcome {
                name: result.name,
                status,
                message,
                time_ms: result.time_ms,
            });
        }
    }
    Ok(SampleResult::of_tests(
        outcomes.into_iter().flatten().collect(),
    ))
}
