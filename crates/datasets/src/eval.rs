//! Judging a problem's samples in the sandbox: one batch per problem
//! (`verdict_scheduler::BatchJudge`, docs/batches.md), the problem's tests as the batch's suite
//! and each sample a candidate, judged in a box of its own; identical programs are judged once.
//!
//! - Assertion tests: a `script` suite of one case: `assertion_runner.py` loads the candidate,
//!   checks the return values of the functions the tests call, runs the tests, and writes a
//!   marker it read from stdin only once they all passed; stdout must be exactly that marker.
//! - Function tests: a `function` suite: the oracle's harness calls the function per case and
//!   compares the JSON return value with the expected one outside the box.
//! - Stdio tests: a `script` suite that checks only the exit code in the box; stdout is compared
//!   here, outside it ([`verdict_compare::tokens::outputs_match`]).

use crate::humaneval::is_identifier;
use crate::problem::{
    AssertionTests, CallStyle, Case, FunctionCase, FunctionTests, InvalidCase, Problem,
    ProgramKind, StdioTests, Tests,
};
use crate::result::{SampleResult, TestOutcome};
use crate::runs::{Batch, Judged, Ran, Run, in_order, marker};
use serde_json::{Value, json};
use verdict_compare::tokens::{first_difference, outputs_match};
use verdict_contracts::judge::{Asset, Language};
use verdict_contracts::oracle::{
    DeliverableType, OracleCaseResult, OracleCaseStatus, TestCase, TestSuite,
};
use verdict_oracle::{CancelToken, Executor, OracleError, OracleOptions, run_suite};
use verdict_scheduler::Judge;

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

/// Judges `programs` (samples' code, see [`crate::Sample::program`]) against `problem` with
/// `judge`'s sandbox and run permits, as batches; one result per program, in their order. A
/// failure of the judge itself is a result with `infra_error`, never an `Err`.
pub async fn evaluate(
    judge: &Judge,
    problem: &Problem,
    programs: &[String],
    options: &EvalOptions,
) -> Vec<SampleResult> {
    judge_programs(judge, problem, programs, options, &Run::default())
        .await
        .into_iter()
        .map(|judged| judged.sample)
        .collect()
}

/// [`evaluate`] with a batch's stopping rules, cancel switch and result stream.
pub(crate) async fn judge_programs(
    judge: &Judge,
    problem: &Problem,
    programs: &[String],
    options: &EvalOptions,
    run: &Run,
) -> Vec<Judged> {
    let mut oracle = options.oracle.clone();
    // A candidate that timed out runs no more tests: a loop costs one time limit, not one
    // per test (the tests left count as not passed).
    oracle.stop_after_timeout = true;
    if let Some(bytes) = problem.limits.memory_bytes {
        oracle.limits.memory_kb = Some(bytes.div_ceil(1024));
    }
    let timeout_ms = problem.limits.time_ms.unwrap_or(options.timeout_ms).max(1);
    let timeout_ms = run
        .options
        .test_timeout_ms
        .map_or(timeout_ms, |cap| timeout_ms.min(cap.max(1)));
    let batch = Batch {
        judge,
        oracle,
        timeout_ms,
        run,
    };
    match &problem.tests {
        Tests::Assertion(tests) => assertion(&batch, programs, tests).await,
        Tests::Function(tests) => function(&batch, problem, programs, tests).await,
        Tests::Stdio(tests) => stdio(batch, problem, programs, tests).await,
        Tests::Program(tests) => match python_assertions(&tests.kind, tests.language, programs) {
            Some((programs, tests)) => assertion(&batch, &programs, &tests).await,
            None => crate::program::judge(&batch, problem, programs, tests).await,
        },
        Tests::Unsupported(tests) => batch.all(
            programs.len(),
            &format!("record {}: {}", problem.task_id, tests.reason),
            false,
            tests.cases,
        ),
        Tests::Reference(_) => {
            let resolved = {
                let (judge, problem) = (judge.clone(), problem.clone());
                let options = options.clone();
                // The reference's runs stop when this evaluation is dropped.
                let cancel = CancelToken::new();
                let _stop_with_caller = cancel.cancel_on_drop();
                tokio::task::spawn_blocking(move || {
                    resolve_reference(judge.executor(), &cancel, &problem, &options)
                })
                .await
            };
            match resolved {
                Ok(Ok(resolved)) => {
                    return Box::pin(judge_programs(judge, &resolved, programs, options, run))
                        .await;
                }
                Ok(Err(e)) => {
                    let retryable = !matches!(e, OracleError::Suite { .. });
                    batch.all(
                        programs.len(),
                        &e.to_string(),
                        retryable,
                        problem.tests.len(),
                    )
                }
                Err(e) => batch.all(programs.len(), &e.to_string(), true, problem.tests.len()),
            }
        }
    }
}

fn text(name: &str, content: String) -> Asset {
    Asset::text(name, content)
}

/// Python programs of the program kinds that run as assertion scripts, hooks and all: each
/// candidate's whole program and the tests, or `None` for the other kinds and languages.
fn python_assertions(
    kind: &ProgramKind,
    language: Language,
    programs: &[String],
) -> Option<(Vec<String>, AssertionTests)> {
    if language != Language::Python3 {
        return None;
    }
    let whole = |program: &dyn Fn(&str) -> String| -> Vec<String> {
        programs.iter().map(|p| program(p)).collect()
    };
    let (programs, test, check_entry_point) = match kind {
        ProgramKind::HumanEvalX(t) => (
            whole(&|p| crate::program::humaneval_x_python(t, p)),
            &t.test,
            None,
        ),
        ProgramKind::MultiPle(t) => (
            whole(&|p| {
                let cut = crate::program::cut_at_stop_tokens(p, &t.stop_tokens);
                format!("{}{cut}\n", t.prompt)
            }),
            &t.tests,
            None,
        ),
        // mxeval: prompt + completion + test + "\ncheck(entry_point)".
        ProgramKind::Mbxp(t) => (
            whole(&|p| format!("{}{p}", t.prompt)),
            &t.test,
            Some(t.entry_point.clone()),
        ),
        _ => return None,
    };
    let tests = AssertionTests {
        setup: String::new(),
        test: test.clone(),
        guarded: check_entry_point.iter().cloned().collect(),
        check_entry_point,
    };
    Some((programs, tests))
}

/// A `script` suite of `test_cases` running each candidate's `main.py` in Python, with the
/// batch's time limit.
fn python_script_suite(batch: &Batch<'_>, test_cases: Vec<TestCase>) -> TestSuite {
    TestSuite {
        deliverable_type: DeliverableType::Script,
        language: Language::Python3,
        entry_point: "main.py".into(),
        source_files: Vec::new(),
        timeout_ms: Some(batch.timeout_ms),
        float_tolerance: None,
        test_cases,
    }
}

async fn assertion(batch: &Batch<'_>, programs: &[String], tests: &AssertionTests) -> Vec<Judged> {
    let mut test_code = format!("{}\n{}\n", tests.setup, tests.test);
    if let Some(entry) = &tests.check_entry_point {
        test_code.push_str(&format!("check({entry})\n"));
    }
    // One marker per batch: each candidate reads it in a box of its own.
    let marker = marker();
    let suite = python_script_suite(
        batch,
        vec![TestCase {
            name: "check".into(),
            input: json!({"stdin": format!("{marker}\n")}),
            expected: json!({}),
        }],
    );
    let guarded = tests.guarded.join("\n");
    let files = programs
        .iter()
        .enumerate()
        .map(|(i, program)| {
            let files = vec![
                text("main.py", RUNNER.to_string()),
                text("candidate.py", program.clone()),
                text("tests.py", test_code.clone()),
                text("guarded.txt", guarded.clone()),
            ];
            (i, files)
        })
        .collect();
    let finish =
        |_: usize, ran: Ran| ran.map_or_else(|s| s, |cases| assertion_result(cases, &marker));
    let judged = batch.run(&suite, files, &finish).await;
    in_order(programs.len(), judged, 1)
}

/// The sample result of an assertion script's one case.
fn assertion_result(cases: Vec<OracleCaseResult>, marker: &str) -> SampleResult {
    let Some(case) = cases.into_iter().next() else {
        return SampleResult::infra("the oracle returned no result".into(), true, 1);
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
    sample
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

/// A problem's cases as one suite runs them: the outcomes known before any run (of the invalid
/// cases), the runnable cases, and where each runnable one stands among all (`index`).
struct Planned {
    template: Vec<Option<TestOutcome>>,
    cases: Vec<TestCase>,
    index: Vec<usize>,
}

/// Plans `cases`: an invalid case, or one `runnable` refuses (with the report), is an outcome of
/// the template; `runnable` makes the others' test cases.
fn plan<T>(
    cases: &[Case<T>],
    problem: &Problem,
    mut runnable: impl FnMut(&str, &T) -> Result<TestCase, String>,
) -> Planned {
    let mut planned = Planned {
        template: vec![None; cases.len()],
        cases: Vec::new(),
        index: Vec::new(),
    };
    for (i, case) in cases.iter().enumerate() {
        let made = match &case.body {
            Err(bad) => Err(bad.report(&problem.task_id)),
            Ok(body) => runnable(&case.name, body),
        };
        match made {
            Ok(test_case) => {
                planned.index.push(i);
                planned.cases.push(test_case);
            }
            Err(report) => planned.template[i] = Some(invalid(&case.name, report)),
        }
    }
    planned
}

/// A sample's result from its tests' outcomes (each test's, or `None` where there is none).
fn of_outcomes(outcomes: Vec<Option<TestOutcome>>) -> SampleResult {
    SampleResult::of_tests(outcomes.into_iter().flatten().collect())
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

async fn function(
    batch: &Batch<'_>,
    problem: &Problem,
    programs: &[String],
    tests: &FunctionTests,
) -> Vec<Judged> {
    let Planned {
        template,
        cases,
        index,
    } = plan(&tests.cases, problem, |name, call| {
        if !is_identifier(&tests.fn_name) {
            return Err(format!(
                "invalid_test_format: record {} field fn_name: {:?} is not a Python name",
                problem.task_id, tests.fn_name
            ));
        }
        Ok(TestCase {
            name: name.to_owned(),
            input: Value::Array(call.args.clone()),
            expected: call.expected.clone(),
        })
    });
    if cases.is_empty() {
        return batch.fixed(programs.len(), || of_outcomes(template.clone()));
    }
    // A LeetCode-style class is called through a shim: its samples make a batch of their own
    // (the suite's entry point differs).
    let method = |program: &str| {
        tests.call == CallStyle::SolutionOrModule && program.contains("class Solution")
    };
    let finish = |_: usize, ran: Ran| match ran {
        Err(sample) => sample,
        Ok(ran) => {
            let mut outcomes = template.clone();
            for (k, result) in ran.into_iter().enumerate() {
                if let Some(&j) = index.get(k) {
                    outcomes[j] = Some(TestOutcome {
                        name: result.name,
                        status: result.status,
                        message: result.message,
                        time_ms: result.time_ms,
                    });
                }
            }
            not_run(&mut outcomes, &index, |j| tests.cases[j].name.clone());
            of_outcomes(outcomes)
        }
    };
    let mut judged = Vec::new();
    for style in [false, true] {
        let members: Vec<usize> = (0..programs.len())
            .filter(|&i| method(&programs[i]) == style)
            .collect();
        if members.is_empty() {
            continue;
        }
        let suite = TestSuite {
            deliverable_type: DeliverableType::Function,
            language: Language::Python3,
            entry_point: if style {
                ENTRY_SHIM.to_string()
            } else {
                tests.fn_name.clone()
            },
            source_files: Vec::new(),
            timeout_ms: Some(batch.timeout_ms),
            float_tolerance: tests.tolerance,
            test_cases: cases.clone(),
        };
        let files = members
            .iter()
            .map(|&i| {
                let program = &programs[i];
                let source = if style {
                    format!(
                        "{program}\n\n\ndef {ENTRY_SHIM}(*args):\n    return Solution().{}(*args)\n",
                        tests.fn_name
                    )
                } else {
                    program.clone()
                };
                (i, vec![text("solution.py", source)])
            })
            .collect();
        judged.extend(batch.run(&suite, files, &finish).await);
    }
    in_order(programs.len(), judged, problem.tests.len())
}

/// Runs the reference solution of [`Tests::Reference`] in the box and returns the problem with
/// function tests whose expected values are what it returned; a case where the reference
/// raised, timed out or returned no JSON value is `invalid_test_format` naming it. Other
/// problems come back unchanged. `Err` when the judge could not run the reference at all.
pub fn resolve_reference(
    executor: &dyn Executor,
    cancel: &CancelToken,
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
        let report = run_suite(executor, cancel, &suite, &options.oracle)?;
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

async fn stdio(
    mut batch: Batch<'_>,
    problem: &Problem,
    programs: &[String],
    tests: &StdioTests,
) -> Vec<Judged> {
    let mut longest = 0;
    let Planned {
        template,
        cases,
        index,
    } = plan(&tests.cases, problem, |name, io| {
        longest = longest.max(io.stdout.len() as u64);
        Ok(TestCase {
            name: name.to_owned(),
            input: json!({"stdin": io.stdin}),
            expected: json!({}),
        })
    });
    if cases.is_empty() {
        return batch.fixed(programs.len(), || of_outcomes(template.clone()));
    }
    // Enough of stdout to see a difference past the expected text's end.
    batch.oracle.max_capture_bytes = batch.oracle.max_capture_bytes.max(longest * 2 + 4096);
    let suite = python_script_suite(&batch, cases);
    let files = programs
        .iter()
        .enumerate()
        .map(|(i, program)| (i, vec![text("main.py", program.clone())]))
        .collect();
    let finish = |_: usize, ran: Ran| {
        let ran = match ran {
            Ok(ran) => ran,
            Err(sample) => return sample,
        };
        let mut outcomes = template.clone();
        for (k, result) in ran.into_iter().enumerate() {
            let Some(&i) = index.get(k) else { continue };
            let expected = match &tests.cases[i].body {
                Ok(io) => io.stdout.as_str(),
                Err(_) => continue,
            };
            outcomes[i] = Some(stdio_outcome(result, expected));
        }
        not_run(&mut outcomes, &index, |j| tests.cases[j].name.clone());
        of_outcomes(outcomes)
    };
    let judged = batch.run(&suite, files, &finish).await;
    in_order(programs.len(), judged, problem.tests.len())
}

/// The runnable tests (`index`) the candidate was stopped before: not passed, saying why.
fn not_run(outcomes: &mut [Option<TestOutcome>], index: &[usize], name: impl Fn(usize) -> String) {
    for &j in index {
        if let Some(slot @ None) = outcomes.get_mut(j) {
            *slot = Some(TestOutcome {
                name: name(j),
                status: OracleCaseStatus::Error,
                message: Some(verdict_oracle::NOT_RUN.to_string()),
                time_ms: 0,
            });
        }
    }
}

/// A stdio test's outcome: the exit code judged in the box, stdout here.
fn stdio_outcome(result: OracleCaseResult, expected: &str) -> TestOutcome {
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
    TestOutcome {
        name: result.name,
        status,
        message,
        time_ms: result.time_ms,
    }
}
