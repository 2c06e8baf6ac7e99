//! One dataset problem in verdict's terms: how a candidate for it is tested, whatever dataset it
//! came from. Readers build these; the evaluator runs them.

use serde_json::Value;
use verdict_contracts::judge::Language;
use verdict_contracts::oracle::FloatTolerance;

/// One problem of a dataset, keyed by the `task_id` its samples name.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The id samples refer to (`HumanEval/0`, `11`, `abc387_b`, ...).
    pub task_id: String,
    /// Where the problem came from (the dataset's format).
    pub format: crate::Format,
    /// Text put before the candidate's code (HumanEval's `prompt` for a bare completion).
    pub prompt: Option<String>,
    /// How candidates are tested.
    pub tests: Tests,
    /// The dataset's own limits, when it gives them.
    pub limits: Limits,
}

impl Problem {
    /// A problem with neither a prompt nor limits of its own.
    pub(crate) fn new(task_id: String, format: crate::Format, tests: Tests) -> Self {
        Problem {
            task_id,
            format,
            prompt: None,
            tests,
            limits: Limits::default(),
        }
    }

    /// The language its samples are judged in (Python but for [`Tests::Program`]).
    pub fn language(&self) -> Language {
        match &self.tests {
            Tests::Program(tests) => tests.language,
            _ => Language::Python3,
        }
    }
}

/// The dataset's own per-test limits (CodeContests gives both; most give none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Time limit of one test in milliseconds.
    pub time_ms: Option<u64>,
    /// Memory limit in bytes.
    pub memory_bytes: Option<u64>,
}

/// How candidates for a problem are tested.
#[derive(Debug, Clone, PartialEq)]
pub enum Tests {
    /// Assertion-style tests run as one Python script with the candidate in the same box
    /// (HumanEval's `check`, MBPP's asserts, EvalPlus's `test`).
    Assertion(AssertionTests),
    /// Calls of a named function; return values compared outside the box.
    Function(FunctionTests),
    /// Whole programs fed stdin; stdout compared outside the box.
    Stdio(StdioTests),
    /// Function calls whose expected values the reference solution gives.
    Reference(ReferenceTests),
    /// Tests `judge eval` cannot run (a `verification_info` record for a language verdict has
    /// no profile for): each sample of the problem is an `infra_error` (not retryable) saying
    /// why, never a score.
    Unsupported(UnsupportedTests),
    /// Tests run as a program of the record's own language, built once per sample in the
    /// sandbox (HumanEval-X, MultiPL-E, `verification_info` in C++, Rust, JavaScript).
    Program(ProgramTests),
}

/// Tests of a language other than verdict's Python harnesses: each sample is assembled into a
/// program of `language` (see [`crate::program`]), compiled once and run per test.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramTests {
    /// The language profile (`crates/scripts/languages.toml`) that builds and runs it.
    pub language: Language,
    /// How the program is assembled and what makes a test pass.
    pub kind: ProgramKind,
}

/// How a sample becomes a program, and what decides its tests.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgramKind {
    /// HumanEval-X: the completion between the record's prompt and its test program, as
    /// CodeGeeX's `evaluate_humaneval_x.py` assembles it per language (docs/datasets.md).
    HumanEvalX(HumanEvalXTest),
    /// MultiPL-E: `prompt + completion` (cut at the first stop token) + `tests`.
    MultiPle(MultiPleTest),
    /// MBXP (mxeval): `prompt + completion + test`, the test a `main` of checks.
    Mbxp(MbxpTest),
    /// The sample is a whole program, fed each test's stdin; stdout compared outside the box.
    Stdio(StdioTests),
}

/// One MBXP problem's parts, as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MbxpTest {
    /// `prompt`: what the completion continues.
    pub prompt: String,
    /// `test`: the checks appended after the completion (a `main`, or Python's `check`).
    pub test: String,
    /// `entry_point`: the function under test (Python's `check` is called with it).
    pub entry_point: String,
}

/// One HumanEval-X record's parts, as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HumanEvalXTest {
    /// `prompt`: what the completion continues.
    pub prompt: String,
    /// `declaration`: the imports and signature (Rust's program starts with it).
    pub declaration: String,
    /// `test`: the test program (C++'s `main`, Java's `Main`, Go's `Test...`, Rust's test module).
    pub test: String,
    /// Go's `import`: the imports taken out of the prompt.
    pub import: String,
    /// Go's `test_setup`: the package clause and the test's imports.
    pub test_setup: String,
}

/// One MultiPL-E problem's parts, as published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiPleTest {
    /// `prompt`: what the completion continues.
    pub prompt: String,
    /// `tests`: the test code appended after the completion.
    pub tests: String,
    /// `stop_tokens`: the completion is cut at the first of them.
    pub stop_tokens: Vec<String>,
}

/// A problem whose tests this judge cannot run; the dataset is still read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedTests {
    /// Why, naming the record's field (`verification_info.language: ...`).
    pub reason: String,
    /// How many tests the record has.
    pub cases: usize,
}

impl Tests {
    /// Tests of a program of `kind` in `language`, which the record calls `name`; when verdict
    /// has no language profile for it (`None`), unsupported tests of one case naming `dataset`'s
    /// language.
    pub(crate) fn in_language(
        language: Option<Language>,
        name: &str,
        dataset: &str,
        kind: ProgramKind,
    ) -> Tests {
        match language {
            Some(language) => Tests::Program(ProgramTests { language, kind }),
            None => Tests::Unsupported(UnsupportedTests {
                reason: format!(
                    "language: verdict has no language profile for {dataset}'s {name:?} (crates/scripts/languages.toml)"
                ),
                cases: 1,
            }),
        }
    }

    /// How many test cases there are (an assertion script counts as one).
    pub fn len(&self) -> usize {
        match self {
            Tests::Assertion(_) => 1,
            Tests::Function(tests) => tests.cases.len(),
            Tests::Stdio(tests) => tests.cases.len(),
            Tests::Reference(tests) => tests.cases.len(),
            Tests::Unsupported(tests) => tests.cases,
            Tests::Program(tests) => match &tests.kind {
                ProgramKind::Stdio(stdio) => stdio.cases.len(),
                ProgramKind::HumanEvalX(_) | ProgramKind::MultiPle(_) | ProgramKind::Mbxp(_) => 1,
            },
        }
    }

    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Assertion-style tests: the program is the candidate, then `setup`, then `test`, then
/// `check(entry_point)` when the dataset's harness calls it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertionTests {
    /// Code run after the candidate and before the tests (MBPP's `test_setup_code`).
    pub setup: String,
    /// The test code (HumanEval's `test`, MBPP's `test_list` joined by newlines).
    pub test: String,
    /// The function `check` is called with (HumanEval's `entry_point`); `None` when the tests
    /// are bare asserts.
    pub check_entry_point: Option<String>,
    /// Functions whose return values are checked to be plain values before the tests see them
    /// (the entry point, or the names MBPP's asserts call).
    pub guarded: Vec<String>,
}

/// How a function test calls the candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallStyle {
    /// `Solution().name(*args)` when the candidate's code contains `class Solution`, else the
    /// module-level `name(*args)` (APPS's and LiveCodeBench's rule).
    SolutionOrModule,
    /// Always the module-level function.
    Module,
}

/// Calls of a named function with JSON arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionTests {
    /// The function's (or method's) name.
    pub fn_name: String,
    /// How it is called.
    pub call: CallStyle,
    /// How close floats must be (the oracle's default, 1e-9, when `None`).
    pub tolerance: Option<FloatTolerance>,
    /// The cases, in the dataset's order.
    pub cases: Vec<Case<FunctionCase>>,
}

/// Calls whose expected values come from running the dataset's reference solution in the box
/// first (EvalPlus's MBPP+ `base_input` and `plus_input`); [`crate::resolve_reference`] turns
/// them into [`FunctionTests`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceTests {
    /// The function's name.
    pub fn_name: String,
    /// The reference solution's code (`canonical_solution`).
    pub reference: String,
    /// How close floats must be.
    pub tolerance: FloatTolerance,
    /// The argument lists, in the dataset's order.
    pub cases: Vec<Case<Vec<Value>>>,
}

/// One function call and its expected return value.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionCase {
    /// The positional arguments.
    pub args: Vec<Value>,
    /// The expected return value.
    pub expected: Value,
}

/// Whole-program tests over stdin and stdout.
#[derive(Debug, Clone, PartialEq)]
pub struct StdioTests {
    /// The cases, in the dataset's order.
    pub cases: Vec<Case<StdioCase>>,
}

/// One stdin and the stdout expected for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCase {
    /// Fed as standard input.
    pub stdin: String,
    /// Compared with standard output by [`verdict_compare::tokens::outputs_match`].
    pub stdout: String,
}

/// A test case as read: runnable, or malformed in a way reported as `invalid_test_format`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case<T> {
    /// The case's name: the dataset field it came from (`public_test_cases[2]`).
    pub name: String,
    /// The case, or why its record is malformed.
    pub body: Result<T, InvalidCase>,
}

/// A malformed test case: `invalid_test_format` naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidCase {
    /// The field at fault, e.g. `input_output.outputs[3]`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl InvalidCase {
    /// A malformed field.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        InvalidCase {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The message as reported: `invalid_test_format: record R field F: ...`.
    pub fn report(&self, task_id: &str) -> String {
        format!(
            "invalid_test_format: record {task_id} field {}: {}",
            self.field, self.message
        )
    }
}
