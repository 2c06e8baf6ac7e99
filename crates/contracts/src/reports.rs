//! The detailed reports of gtest, memory (valgrind) and static tests, in the contract's shapes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The Google Test report of a gtest task (the contract's field names).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct GoogleTestReport {
    /// Every test case in the run, disabled ones included.
    pub total_cases: u32,
    /// Cases that passed.
    pub pass_cases: u32,
    /// Cases that failed.
    pub error_cases: u32,
    /// Cases that were disabled.
    pub disabled_cases: u32,
    /// The failed cases.
    pub report: Vec<GoogleTestFailureCase>,
}

/// One failed Google Test case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GoogleTestFailureCase {
    /// The suite: `"InstanceName/TestName"` for TEST_P, else `"TestName"`.
    pub suite: String,
    /// The case: `"CaseName/ParamValue"` for TEST_P, else `"CaseName"`.
    pub case: String,
    /// The failure message.
    pub message: String,
    /// The parameter of a TEST_P case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
}

/// The static test report, in oclint's JSON shape (the contract's example).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaticReport {
    /// The analyser's home page.
    pub url: String,
    /// Counts per file and priority.
    pub summary: StaticSummary,
    /// The analyser's version.
    pub version: String,
    /// When the analysis ran (Unix seconds).
    pub timestamp: i64,
    /// The findings.
    pub violation: Vec<Violation>,
    /// Findings of the Clang static analyzer (kept empty unless that analyser runs).
    #[serde(default)]
    pub clang_static_analyzer: Vec<serde_json::Value>,
}

/// The summary of a static report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StaticSummary {
    /// Files analysed.
    pub number_of_files: u32,
    /// Files with at least one finding.
    pub number_of_files_with_violations: u32,
    /// Findings per priority, priorities 1, 2 and 3 always listed.
    pub number_of_violations_with_priority: Vec<PriorityCount>,
}

/// How many findings have one priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PriorityCount {
    /// The number of findings.
    pub number: u32,
    /// The priority (1 most severe, 3 least).
    pub priority: u8,
}

/// One static-analysis finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// The file, relative to the box.
    pub path: String,
    /// The rule's name.
    pub rule: String,
    /// Last line of the finding.
    pub end_line: u32,
    /// What is wrong.
    pub message: String,
    /// The rule's category.
    pub category: String,
    /// 1 (most severe) to 3.
    pub priority: u8,
    /// Last column of the finding.
    pub end_column: u32,
    /// First line of the finding.
    pub start_line: u32,
    /// First column of the finding.
    pub start_column: u32,
}

/// The memory test report: valgrind memcheck's errors.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct MemoryReport {
    /// The tool that produced it, e.g. `"valgrind-3.19.0"`.
    pub tool: String,
    /// How many errors count against the score.
    pub error_count: u32,
    /// The errors, leaks included.
    pub errors: Vec<MemoryError>,
}

/// One memcheck error or leak.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MemoryError {
    /// valgrind's kind, e.g. `"InvalidRead"`, `"Leak_DefinitelyLost"`.
    pub kind: String,
    /// valgrind's description.
    pub what: String,
    /// Bytes leaked, for leaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_leaked: Option<u64>,
    /// Blocks leaked, for leaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks_leaked: Option<u64>,
    /// Where it happened, innermost frame first.
    pub stack: Vec<StackFrame>,
}

/// One frame of a memcheck stack trace.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct StackFrame {
    /// The function.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The source file, relative to the box when inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The source line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The object file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
}
