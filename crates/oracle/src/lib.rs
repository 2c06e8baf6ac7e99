//! The Task Oracle (design #17): judges a deliverable (a function, a script or a cli tool in
//! python3, js or bash) against a suite of test cases and reports one result per case.
//!
//! Every case is validated first, with the contract's exact messages
//! (`verdict_contracts::oracle`); a malformed case is reported as `invalid_test_format` and
//! never stops the others. Everything runs in the sandbox: a function suite in one interpreter
//! (a harness calls `fn(*input)` per case with a per-case timeout, restarting after a crash), a
//! script or cli suite in one fresh box per case. The suite format, the comparison rules and
//! the harness protocol are described in `examples/oracle/README.md`.

mod bytecode;
mod error;
mod expect;
mod function;
mod options;
mod outcome;
mod process;
mod records;
mod values;
mod workdir;

pub use error::OracleError;
pub use options::{Interpreters, NOT_RUN, OracleOptions};
pub use values::{first_difference, floats_close, numbers_equal, values_equal};

use serde_json::Value;
use verdict_contracts::oracle::{
    DeliverableType, OracleCaseResult, OracleCaseStatus, OracleReport, TestCase, TestSuite,
    check_suite,
};
use verdict_sandbox::Sandbox;

/// Judges `suite` in `sandbox` (blocking) and returns one result per case, in order.
///
/// ```no_run
/// use verdict_sandbox::{Sandbox, SandboxConfig};
/// use verdict_oracle::{OracleOptions, run_suite};
///
/// let suite = verdict_contracts::oracle::parse_suite(r#"{
///     "deliverable_type": "function", "language": "python3", "entry_point": "add",
///     "source_files": [{"type": "text", "name": "add.py", "text": "def add(a, b):\n    return a + b\n"}],
///     "test_cases": [{"name": "small", "input": [1, 2], "expected": 3}]
/// }"#)?;
/// let sandbox = Sandbox::new(SandboxConfig::default())?;
/// let report = run_suite(&sandbox, &suite, &OracleOptions::default())?;
/// assert!(report.summary.all_passed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// `Err` only when the suite cannot run at all: its shape is wrong (the error names the field),
/// its language has no runner here, or the sandbox failed. Failing, raising or timing-out cases
/// are results, not errors.
pub fn run_suite(
    sandbox: &Sandbox,
    suite: &TestSuite,
    options: &OracleOptions,
) -> Result<OracleReport, OracleError> {
    let command = check_runnable(suite, options)?;
    let timeout_ms = suite
        .timeout_ms
        .unwrap_or(options.default_timeout_ms)
        .max(1);
    let results = match suite.deliverable_type {
        DeliverableType::Function => {
            function::run_function_suite(sandbox, suite, command, timeout_ms, options)?
        }
        DeliverableType::Script | DeliverableType::Cli => {
            process::run_process_suite(sandbox, suite, command, timeout_ms, options)?
        }
    };
    Ok(OracleReport::new(results))
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
