//! The Task Oracle (design #17): judges a deliverable (a function, a script or a cli tool in
//! python3, js or bash) against a suite of test cases and reports one result per case.
//!
//! Every case is validated first, with the contract's exact messages
//! (`verdict_contracts::oracle`); a malformed case is reported as `invalid_test_format` and
//! never stops the others. Everything runs in the sandbox: a function suite in one interpreter
//! (a harness calls `fn(*input)` per case with a per-case timeout, restarting after a crash), a
//! script or cli suite in one fresh box per case. The suite format, the comparison rules and
//! the harness protocol are described in `examples/oracle/README.md`.
//!
//! The oracle runs through the judge's execution seam, [`verdict_scripts::Executor`]
//! (`run_spec`, `run_warm_python`, `state_dir`), as the judge's own steps do: callers hand it
//! `Judge::executor()` and never reach for the sandbox under the judge.

mod bytecode;
mod error;
mod function;
mod options;
mod outcome;
mod process;
mod records;
mod workdir;

pub use error::OracleError;
pub use options::{Interpreters, NOT_RUN, OracleOptions};
/// The execution seam the oracle runs through (re-exported: callers need no other crate).
pub use verdict_scripts::{CancelToken, Executor};

use serde_json::Value;
use verdict_contracts::oracle::{
    DeliverableType, OracleCaseResult, OracleCaseStatus, OracleReport, TestCase, TestSuite,
    check_suite,
};

/// Judges `suite` through `executor` (blocking) and returns one result per case, in order. The
/// executor is the judge's (`verdict_scheduler::Judge::executor`) or, embedded alone, a
/// `verdict_sandbox::Sandbox`; cancelling `cancel` kills the suite's runs at once.
///
/// ```no_run
/// use verdict_sandbox::{Sandbox, SandboxConfig};
/// use verdict_oracle::{CancelToken, OracleOptions, run_suite};
///
/// let suite = verdict_contracts::oracle::parse_suite(r#"{
///     "deliverable_type": "function", "language": "python3", "entry_point": "add",
///     "source_files": [{"type": "text", "name": "add.py", "text": "def add(a, b):\n    return a + b\n"}],
///     "test_cases": [{"name": "small", "input": [1, 2], "expected": 3}]
/// }"#)?;
/// let sandbox = Sandbox::new(SandboxConfig::default())?;
/// let report = run_suite(&sandbox, &CancelToken::new(), &suite, &OracleOptions::default())?;
/// assert!(report.summary.all_passed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// `Err` only when the suite cannot run at all: its shape is wrong (the error names the field),
/// its language has no runner here, or the executor failed. Failing, raising or timing-out cases
/// are results, not errors.
pub fn run_suite(
    executor: &dyn Executor,
    cancel: &CancelToken,
    suite: &TestSuite,
    options: &OracleOptions,
) -> Result<OracleReport, OracleError> {
    let command = check_runnable(suite, options)?;
    let timeout_ms = suite
        .timeout_ms
        .unwrap_or(options.default_timeout_ms)
        .max(1);
    let suite_run = SuiteRun {
        executor,
        cancel,
        suite,
        command,
        timeout_ms,
        options,
    };
    let results = match suite.deliverable_type {
        DeliverableType::Function => function::run_function_suite(&suite_run)?,
        DeliverableType::Script | DeliverableType::Cli => process::run_process_suite(&suite_run)?,
    };
    Ok(OracleReport::new(results))
}

/// What every case of a suite runs with.
#[derive(Clone, Copy)]
pub(crate) struct SuiteRun<'a> {
    executor: &'a dyn Executor,
    /// Stops the suite's runs from outside.
    cancel: &'a CancelToken,
    suite: &'a TestSuite,
    /// The interpreter's command line.
    command: &'a [String],
    /// The time limit of one case, in ms.
    timeout_ms: u64,
    options: &'a OracleOptions,
}

/// What [`run_suite`] checks before it runs anything, without a sandbox (a front end checks a
/// suite so before relaying it): its shape, a language the oracle runs its deliverable kind
/// in, and a function's module named as a file of that language. The error names the field;
/// `Ok` is the interpreter's command.
pub fn check_runnable<'a>(
    suite: &TestSuite,
    options: &'a OracleOptions,
) -> Result<&'a [String], OracleError> {
    check_suite(suite)?;
    let Some(command) = options.interpreters.command(suite.language) else {
        return Err(OracleError::suite(
            "language",
            format!(
                "{} is not supported by the oracle (python3, js, bash)",
                suite.language
            ),
        ));
    };
    if suite.deliverable_type == DeliverableType::Function {
        if !function::supports(suite.language) {
            return Err(OracleError::suite(
                "language",
                format!(
                    "function deliverables run in python3 or js, not {}",
                    suite.language
                ),
            ));
        }
        function::check_module(suite)?;
    }
    Ok(command)
}

/// A case's result, echoing its name and `expected`.
pub(crate) fn case_result(
    case: &TestCase,
    status: OracleCaseStatus,
    got: Option<Value>,
    message: Option<String>,
    time_ms: u64,
) -> OracleCaseResult {
    OracleCaseResult {
        name: case.name.clone(),
        status,
        got,
        expected: Some(case.expected.clone()),
        message,
        time_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;
    use std::sync::Mutex;
    use verdict_contracts::oracle::suite_from_value;
    use verdict_scripts::{
        CompileOutcome, CompileRequest, ExecError, ExitKind, IsolationLevel, ProcessSpec,
        RunOutcome, RunOutput, RunRequest, ScriptError, Stream,
    };

    /// An executor that is no sandbox: each spec it runs copies its stdin file to its stdout
    /// file (a `cat`), and it records the command lines it was given.
    #[derive(Debug, Default)]
    struct Cat {
        commands: Mutex<Vec<Vec<String>>>,
    }

    /// The methods of an executor the oracle never calls (it runs specs only), refusing.
    macro_rules! no_program_runs {
        () => {
            fn run(
                &self,
                _: &CancelToken,
                _: &RunRequest<'_>,
                _: &Path,
            ) -> Result<RunOutput, ScriptError> {
                Err(ScriptError::Toolchain("not for the oracle".into()))
            }

            fn compile(
                &self,
                _: &CancelToken,
                _: &CompileRequest<'_>,
            ) -> Result<CompileOutcome, ScriptError> {
                Err(ScriptError::Toolchain("not for the oracle".into()))
            }
        };
    }

    impl Executor for Cat {
        no_program_runs!();

        fn run_spec(&self, _: &CancelToken, spec: ProcessSpec) -> Result<RunOutcome, ExecError> {
            let mut line = vec![spec.program.display().to_string()];
            line.extend(spec.args.iter().map(|a| a.to_string_lossy().into_owned()));
            self.commands.lock().unwrap().push(line);
            if let (Stream::File(stdin), Stream::File(stdout)) = (&spec.stdin, &spec.stdout) {
                std::fs::copy(stdin, stdout).unwrap();
            }
            Ok(RunOutcome {
                exit: ExitKind::Exited(0),
                cpu_time_ms: 1,
                wall_time_ms: 1,
                peak_memory_kb: 1024,
                output_bytes: 0,
                limit_hit: None,
                isolation: IsolationLevel::RlimitOnly,
                cpu_wait_ms: None,
                rlimits_clamped: Vec::new(),
                ended: None,
                evidence: None,
            })
        }
    }

    #[test]
    fn a_suite_runs_through_the_executor_it_is_given() {
        let suite = suite_from_value(json!({
            "deliverable_type": "script", "language": "bash", "entry_point": "cat.sh",
            "source_files": [{"type": "text", "name": "cat.sh", "text": "cat\n"}],
            "test_cases": [
                {"name": "same", "input": {"stdin": "a\n"}, "expected": {"stdout": "a\n"}},
                {"name": "other", "input": {"stdin": "a\n"}, "expected": {"stdout": "b\n"}}
            ]
        }))
        .unwrap();
        let options = OracleOptions {
            parallelism: 1,
            ..OracleOptions::default()
        };
        let cat = Cat::default();
        let report = run_suite(&cat, &CancelToken::new(), &suite, &options).unwrap();
        let statuses: Vec<_> = report.results.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [OracleCaseStatus::Passed, OracleCaseStatus::Failed]
        );
        let commands = cat.commands.lock().unwrap();
        assert_eq!(
            *commands,
            vec![vec!["bash".to_owned(), "cat.sh".to_owned()]; 2]
        );
    }

    #[test]
    fn an_executor_that_runs_no_specs_is_the_judges_error_not_a_verdict() {
        #[derive(Debug)]
        struct Nothing;
        impl Executor for Nothing {
            no_program_runs!();
        }
        let suite = suite_from_value(json!({
            "deliverable_type": "script", "language": "bash", "entry_point": "cat.sh",
            "source_files": [{"type": "text", "name": "cat.sh", "text": "cat\n"}],
            "test_cases": [{"name": "same", "input": {"stdin": "a\n"}, "expected": {"stdout": "a\n"}}]
        }))
        .unwrap();
        let err = run_suite(
            &Nothing,
            &CancelToken::new(),
            &suite,
            &OracleOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(err, OracleError::Sandbox(_)), "{err}");
    }
}
