//! The Task Oracle's wire format (the Task Oracle input contract, restated in
//! `docs/oracle.md`; design #17): a test
//! suite in, a report with one result per case out, and the pure validation of each case's
//! `input` and `expected` with the contract's exact `invalid_test_format: ...` messages.
//!
//! ```
//! use verdict_contracts::oracle::{function_args, parse_suite};
//! let suite = parse_suite(r#"{
//!     "deliverable_type": "function", "language": "python3", "entry_point": "add",
//!     "source_files": [{"type": "text", "name": "add.py", "text": "def add(a, b): return a + b"}],
//!     "test_cases": [{"name": "one", "input": [1, 2], "expected": 3},
//!                    {"name": "bad", "input": 1, "expected": 1}]
//! }"#).unwrap();
//! assert_eq!(function_args(&suite.test_cases[0].input).unwrap().len(), 2);
//! assert_eq!(
//!     function_args(&suite.test_cases[1].input).unwrap_err(),
//!     "invalid_test_format: function input must be args list"
//! );
//! ```

use crate::judge::{Asset, Language};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The seed's message for a function case whose `input` is not an args list.
pub const FUNCTION_INPUT_NOT_ARGS: &str = "invalid_test_format: function input must be args list";
/// The seed's message for a cli case whose `input` has no `argv` list.
pub const CLI_INPUT_WITHOUT_ARGV: &str = "invalid_test_format: cli input must include argv";

/// What kind of deliverable a suite judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliverableType {
    /// A function called as `fn(*input)` for each case.
    Function,
    /// A script run with `stdin` and `files` for each case.
    Script,
    /// A command-line tool run with `argv` (and optional `stdin`, `files`) for each case.
    Cli,
}

impl DeliverableType {
    /// The contract's string for this kind.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliverableType::Function => "function",
            DeliverableType::Script => "script",
            DeliverableType::Cli => "cli",
        }
    }
}

/// A Task Oracle test suite: a deliverable and the cases it is judged against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestSuite {
    /// `function`, `script` or `cli`.
    pub deliverable_type: DeliverableType,
    /// The deliverable's language (the judge contract's names: `python3`, `js`, `bash`, ...).
    pub language: Language,
    /// The function's name (function) or the file to run (script, cli).
    pub entry_point: String,
    /// The deliverable's files; for a function the first one is the module that defines it.
    pub source_files: Vec<Asset>,
    /// Time limit of one case in milliseconds (the runner's default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// How close two floats must be to count as equal (function deliverables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub float_tolerance: Option<FloatTolerance>,
    /// The test cases, in order.
    pub test_cases: Vec<TestCase>,
}

/// Floats `a`, `b` are equal when `|a - b| <= max(abs, rel * max(|a|, |b|))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FloatTolerance {
    /// Relative tolerance (default `1e-9`).
    #[serde(default = "default_tolerance")]
    pub rel: f64,
    /// Absolute tolerance (default `1e-9`).
    #[serde(default = "default_tolerance")]
    pub abs: f64,
}

fn default_tolerance() -> f64 {
    1e-9
}

impl Default for FloatTolerance {
    fn default() -> Self {
        FloatTolerance {
            rel: default_tolerance(),
            abs: default_tolerance(),
        }
    }
}

/// One test case. `input` and `expected` stay raw JSON so that a malformed case is reported as
/// `invalid_test_format` instead of failing the whole suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestCase {
    /// The case's name, echoed in its result.
    #[serde(default)]
    pub name: String,
    /// Function: the positional args list. Script: `{stdin?, files?}`. Cli: `{argv, stdin?, files?}`.
    #[serde(default)]
    pub input: Value,
    /// Function: the return value. Script and cli: a [`ScriptExpectation`] object.
    #[serde(default)]
    pub expected: Value,
}

/// A validated script case input: `{stdin?, files?}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ScriptInput {
    /// Fed as standard input (empty when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Files written into the box before the run: relative name to content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

/// A validated cli case input: `{argv, stdin?, files?}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct CliInput {
    /// Arguments after the entry file (`python3 tool.py ARGV...`).
    pub argv: Vec<String>,
    /// Fed as standard input (empty when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// Files written into the box before the run: relative name to content.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

/// What a script or cli case expects; only the named parts are checked.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScriptExpectation {
    /// Standard output, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// Standard error, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// A substring standard error must contain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_contains: Option<String>,
    /// The exit code (0 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Files the run must leave in its directory: relative name to exact content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<BTreeMap<String, String>>,
}

impl ScriptExpectation {
    /// The exit code the case expects (0 unless named).
    pub fn expected_exit_code(&self) -> i32 {
        self.exit_code.unwrap_or(0)
    }
}

/// The status of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OracleCaseStatus {
    /// It ran and matched `expected`.
    Passed,
    /// It ran and differed from `expected`.
    Failed,
    /// The code raised, crashed, or could not be loaded.
    Error,
    /// The case ran out of time.
    Timeout,
    /// The case itself is malformed; nothing was run for it.
    InvalidTestFormat,
}

impl OracleCaseStatus {
    /// The wire string of this status.
    pub fn as_str(self) -> &'static str {
        match self {
            OracleCaseStatus::Passed => "passed",
            OracleCaseStatus::Failed => "failed",
            OracleCaseStatus::Error => "error",
            OracleCaseStatus::Timeout => "timeout",
            OracleCaseStatus::InvalidTestFormat => "invalid_test_format",
        }
    }
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OracleCaseResult {
    /// The case's name.
    pub name: String,
    /// What happened.
    pub status: OracleCaseStatus,
    /// What the deliverable produced (return value, or `{stdout, stderr, exit_code, files}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub got: Option<Value>,
    /// The case's `expected`, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// Why the case did not pass (an exception, a difference, a validation message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Time the case took in milliseconds (the call for a function, the run for a script or cli).
    pub time_ms: u64,
}

/// How many cases ended in each status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct OracleSummary {
    /// Number of cases.
    pub total: usize,
    /// Cases that passed.
    pub passed: usize,
    /// Cases that ran and differed.
    pub failed: usize,
    /// Cases whose code raised or crashed.
    pub error: usize,
    /// Cases that ran out of time.
    pub timeout: usize,
    /// Malformed cases.
    pub invalid_test_format: usize,
}

impl OracleSummary {
    /// Counts the statuses of `results`.
    pub fn of(results: &[OracleCaseResult]) -> Self {
        let mut s = OracleSummary {
            total: results.len(),
            ..OracleSummary::default()
        };
        for r in results {
            match r.status {
                OracleCaseStatus::Passed => s.passed += 1,
                OracleCaseStatus::Failed => s.failed += 1,
                OracleCaseStatus::Error => s.error += 1,
                OracleCaseStatus::Timeout => s.timeout += 1,
                OracleCaseStatus::InvalidTestFormat => s.invalid_test_format += 1,
            }
        }
        s
    }

    /// Whether every case passed.
    pub fn all_passed(&self) -> bool {
        self.passed == self.total
    }
}

/// The Task Oracle's report: one result per case, in the suite's order, and a summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OracleReport {
    /// One result per test case.
    pub results: Vec<OracleCaseResult>,
    /// Counts per status.
    pub summary: OracleSummary,
}

impl OracleReport {
    /// A report over `results` with its summary.
    pub fn new(results: Vec<OracleCaseResult>) -> Self {
        let summary = OracleSummary::of(&results);
        OracleReport { results, summary }
    }
}

/// How many positional arguments a function accepts, as read from its signature by a harness.
///
/// Python: `required` counts the positional parameters without a default; `max` counts every
/// positional parameter and is `None` (unbounded) with `*args`; keyword-only parameters are never
/// filled from `input`. JavaScript: `required` is `fn.length` (the parameters before the first
/// default or rest parameter); `max` is the number of declared parameters, `None` with a rest
/// parameter or when the parameter list cannot be read (native and bound functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FunctionSignature {
    /// Positional parameters that must be given.
    pub required: usize,
    /// Positional parameters that may be given; `None` for no upper bound.
    pub max: Option<usize>,
}

/// A suite-level shape error: the whole suite cannot run; the message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SuiteError {
    /// The field at fault, e.g. `test_cases[2].name` or `entry_point`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl SuiteError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        SuiteError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Parses a suite from JSON text, naming the field at fault when its shape is wrong.
///
/// Only the suite's shape is checked here; each case's `input` and `expected` are validated per
/// case (see [`function_args`], [`script_input`], [`cli_input`], [`script_expectation`]).
pub fn parse_suite(text: &str) -> Result<TestSuite, SuiteError> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| SuiteError::new("suite", format!("not JSON: {e}")))?;
    suite_from_value(value)
}

/// Builds a suite from a JSON value, naming the field at fault when its shape is wrong.
pub fn suite_from_value(value: Value) -> Result<TestSuite, SuiteError> {
    let Value::Object(mut top) = value else {
        return Err(SuiteError::new("suite", "must be a JSON object"));
    };
    let deliverable_type = field(&mut top, "deliverable_type", "")?;
    let language = field(&mut top, "language", "")?;
    let entry_point: String = field(&mut top, "entry_point", "")?;
    let source_files: Vec<Asset> = field(&mut top, "source_files", "")?;
    let timeout_ms = optional_field(&mut top, "timeout_ms", "")?;
    let float_tolerance = optional_field(&mut top, "float_tolerance", "")?;
    let Some(cases) = top.remove("test_cases") else {
        return Err(SuiteError::new("test_cases", "missing"));
    };
    let Value::Array(cases) = cases else {
        return Err(SuiteError::new("test_cases", "must be an array of cases"));
    };
    let mut test_cases = Vec::with_capacity(cases.len());
    for (i, case) in cases.into_iter().enumerate() {
        let at = format!("test_cases[{i}]");
        let Value::Object(mut case) = case else {
            return Err(SuiteError::new(
                at,
                "must be an object {name, input, expected}",
            ));
        };
        let name = optional_field(&mut case, "name", &format!("{at}."))?.unwrap_or_default();
        let input = case.remove("input").unwrap_or(Value::Null);
        let expected = case.remove("expected").unwrap_or(Value::Null);
        test_cases.push(TestCase {
            name,
            input,
            expected,
        });
    }
    let suite = TestSuite {
        deliverable_type,
        language,
        entry_point,
        source_files,
        timeout_ms,
        float_tolerance,
        test_cases,
    };
    check_suite(&suite)?;
    Ok(suite)
}

fn field<T: serde::de::DeserializeOwned>(
    obj: &mut Map<String, Value>,
    name: &str,
    prefix: &str,
) -> Result<T, SuiteError> {
    match optional_field(obj, name, prefix)? {
        Some(v) => Ok(v),
        None => Err(SuiteError::new(format!("{prefix}{name}"), "missing")),
    }
}

fn optional_field<T: serde::de::DeserializeOwned>(
    obj: &mut Map<String, Value>,
    name: &str,
    prefix: &str,
) -> Result<Option<T>, SuiteError> {
    match obj.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v)
            .map(Some)
            .map_err(|e| SuiteError::new(format!("{prefix}{name}"), e.to_string())),
    }
}

/// Checks the suite-level invariants every runner relies on: an entry point, well-named
/// source files, and for scripts and cli an entry point that is one of the source files.
pub fn check_suite(suite: &TestSuite) -> Result<(), SuiteError> {
    if suite.entry_point.is_empty() {
        return Err(SuiteError::new("entry_point", "must not be empty"));
    }
    if suite.source_files.is_empty() {
        return Err(SuiteError::new(
            "source_files",
            "must hold at least one file",
        ));
    }
    for (i, asset) in suite.source_files.iter().enumerate() {
        check_file_name(&asset.name)
            .map_err(|m| SuiteError::new(format!("source_files[{i}].name"), m))?;
    }
    match suite.deliverable_type {
        DeliverableType::Function => {
            if !is_identifier(&suite.entry_point) {
                return Err(SuiteError::new(
                    "entry_point",
                    format!("{:?} is not a function name", suite.entry_point),
                ));
            }
        }
        DeliverableType::Script | DeliverableType::Cli => {
            if !suite
                .source_files
                .iter()
                .any(|a| a.name == suite.entry_point)
            {
                return Err(SuiteError::new(
                    "entry_point",
                    format!("{:?} is not one of source_files", suite.entry_point),
                ));
            }
        }
    }
    let tolerance_ok =
        |t: FloatTolerance| t.rel >= 0.0 && t.abs >= 0.0 && t.rel.is_finite() && t.abs.is_finite();
    if suite.float_tolerance.is_some_and(|t| !tolerance_ok(t)) {
        return Err(SuiteError::new(
            "float_tolerance",
            "rel and abs must be finite and >= 0",
        ));
    }
    if suite.timeout_ms == Some(0) {
        return Err(SuiteError::new("timeout_ms", "must be above 0"));
    }
    Ok(())
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// Checks a file name written into or read from the box: relative, no `..`, no empty part.
pub fn check_file_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name.starts_with('/')
        || name.contains('\0')
        || name.contains('\\')
        || name.split('/').any(|part| part.is_empty() || part == "..");
    if bad {
        Err(format!(
            "invalid_test_format: file name {name:?} must be a relative path without .."
        ))
    } else {
        Ok(())
    }
}

/// A function case's positional arguments (`fn(*input)`): `input` must be a JSON array.
pub fn function_args(input: &Value) -> Result<&[Value], String> {
    match input {
        Value::Array(args) => Ok(args),
        _ => Err(FUNCTION_INPUT_NOT_ARGS.to_owned()),
    }
}

/// Checks the number of args against the function's signature; the message gives both numbers.
pub fn check_arity(
    function: &str,
    given: usize,
    signature: FunctionSignature,
) -> Result<(), String> {
    let FunctionSignature { required, max } = signature;
    let fits = given >= required && max.is_none_or(|m| given <= m);
    if fits {
        return Ok(());
    }
    let takes = match max {
        Some(m) if m == required => format!("{required}"),
        Some(m) => format!("{required} to {m}"),
        None => format!("at least {required}"),
    };
    let plural = if max == Some(1) && required == 1 {
        ""
    } else {
        "s"
    };
    Err(format!(
        "invalid_test_format: function {function} takes {takes} positional arg{plural}, input has {given}"
    ))
}

/// A script case's input: an object with optional `stdin` (string) and `files` (object of strings).
pub fn script_input(input: &Value) -> Result<ScriptInput, String> {
    let Value::Object(obj) = input else {
        return Err("invalid_test_format: script input must be an object {stdin?, files?}".into());
    };
    if let Some(key) = obj
        .keys()
        .find(|k| !matches!(k.as_str(), "stdin" | "files"))
    {
        return Err(format!(
            "invalid_test_format: script input has unknown field {key:?} (allowed: stdin, files)"
        ));
    }
    Ok(ScriptInput {
        stdin: stdin_of(obj, "script")?,
        files: files_of(obj, "script")?,
    })
}

/// A cli case's input: an object whose `argv` is a list of strings, with optional `stdin` and `files`.
pub fn cli_input(input: &Value) -> Result<CliInput, String> {
    let Value::Object(obj) = input else {
        return Err(CLI_INPUT_WITHOUT_ARGV.into());
    };
    let Some(Value::Array(argv)) = obj.get("argv") else {
        return Err(CLI_INPUT_WITHOUT_ARGV.into());
    };
    if let Some(key) = obj
        .keys()
        .find(|k| !matches!(k.as_str(), "argv" | "stdin" | "files"))
    {
        return Err(format!(
            "invalid_test_format: cli input has unknown field {key:?} (allowed: argv, stdin, files)"
        ));
    }
    let argv = argv
        .iter()
        .enumerate()
        .map(|(i, a)| match a {
            Value::String(s) => Ok(s.clone()),
            other => Err(format!(
                "invalid_test_format: cli argv must be a list of strings (argv[{i}] is {})",
                kind(other)
            )),
        })
        .collect::<Result<_, _>>()?;
    Ok(CliInput {
        argv,
        stdin: stdin_of(obj, "cli")?,
        files: files_of(obj, "cli")?,
    })
}

fn stdin_of(obj: &Map<String, Value>, what: &str) -> Result<Option<String>, String> {
    match obj.get("stdin") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "invalid_test_format: {what} input stdin must be a string, not {}",
            kind(other)
        )),
    }
}

fn files_of(obj: &Map<String, Value>, what: &str) -> Result<BTreeMap<String, String>, String> {
    match obj.get("files") {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(files)) => string_map(files, &format!("{what} input files")),
        Some(other) => Err(format!(
            "invalid_test_format: {what} input files must be an object of strings, not {}",
            kind(other)
        )),
    }
}

fn string_map(files: &Map<String, Value>, what: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for (name, content) in files {
        check_file_name(name)?;
        let Value::String(content) = content else {
            return Err(format!(
                "invalid_test_format: {what} must be an object of strings ({name:?} is {})",
                kind(content)
            ));
        };
        out.insert(name.clone(), content.clone());
    }
    Ok(out)
}

/// A script or cli case's `expected`: an object `{stdout?, stderr?, stderr_contains?, exit_code?, files?}`.
pub fn script_expectation(expected: &Value) -> Result<ScriptExpectation, String> {
    let Value::Object(obj) = expected else {
        return Err(format!(
            "invalid_test_format: expected must be an object {{stdout?, stderr?, stderr_contains?, exit_code?, files?}}, not {}",
            kind(expected)
        ));
    };
    const ALLOWED: [&str; 5] = ["stdout", "stderr", "stderr_contains", "exit_code", "files"];
    if let Some(key) = obj.keys().find(|k| !ALLOWED.contains(&k.as_str())) {
        return Err(format!(
            "invalid_test_format: expected has unknown field {key:?} (allowed: {})",
            ALLOWED.join(", ")
        ));
    }
    let text = |key: &str| -> Result<Option<String>, String> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "invalid_test_format: expected {key} must be a string, not {}",
                kind(other)
            )),
        }
    };
    let exit_code = match obj.get("exit_code") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_i64().and_then(|n| i32::try_from(n).ok()) {
            Some(code) => Some(code),
            None => {
                return Err(format!(
                    "invalid_test_format: expected exit_code {n} is not an exit code"
                ));
            }
        },
        Some(other) => {
            return Err(format!(
                "invalid_test_format: expected exit_code must be an integer, not {}",
                kind(other)
            ));
        }
    };
    let files = match obj.get("files") {
        None | Some(Value::Null) => None,
        Some(Value::Object(files)) => Some(string_map(files, "expected files")?),
        Some(other) => {
            return Err(format!(
                "invalid_test_format: expected files must be an object of strings, not {}",
                kind(other)
            ));
        }
    };
    Ok(ScriptExpectation {
        stdout: text("stdout")?,
        stderr: text("stderr")?,
        stderr_contains: text("stderr_contains")?,
        exit_code,
        files,
    })
}

/// The JSON kind of a value, for messages (one spelling: `data_path::json_kind`).
use crate::data_path::json_kind as kind;

#[cfg(test)]
mod tests;
