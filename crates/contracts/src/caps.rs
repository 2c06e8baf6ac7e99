//! Operator caps (design #28): the most a client may ask for. Every limit a request sends (time,
//! memory, output, processes, tasks, test data, a suite's `timeout_ms`) is checked against the
//! server's configured maximum, and a request over one is refused naming the field and the cap,
//! before anything is queued or run. Without them a tenant's `time_limit: 1000000000` (about 23
//! days with the wall clock) holds a worker for weeks, and durability brings it back after a
//! restart.

use crate::judge::{Asset, Submission};
use crate::oracle::TestSuite;
use crate::validate::FieldError;
use serde::Deserialize;

/// The operator's caps on what one request may ask for (`[caps]` in the server's config).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Caps {
    /// The largest `time_limit` of a task, in ms.
    pub time_limit_ms: u64,
    /// The largest `memory_limit` of a task, in KB.
    pub memory_limit_kb: u64,
    /// The largest `file_limit` of a task, in KB (`-1`, no limit, takes the judge's global cap).
    pub file_limit_kb: u64,
    /// The largest `proc_limit` of a task.
    pub proc_limit: u64,
    /// The most `judge_tasks` in one submission.
    pub tasks: usize,
    /// The most `test_data` in one submission.
    pub test_data: usize,
    /// The most bytes of inline (`text`) test data in one submission, in KB.
    pub test_data_kb: u64,
    /// The largest `timeout_ms` of a Task Oracle suite (per case), in ms.
    pub suite_timeout_ms: u64,
    /// The most `test_cases` in one Task Oracle suite.
    pub suite_cases: usize,
    /// The most `candidates` in one batch.
    pub batch_candidates: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            time_limit_ms: 60_000,
            memory_limit_kb: 4 * 1024 * 1024,
            file_limit_kb: 1024 * 1024,
            proc_limit: 4096,
            tasks: 1024,
            test_data: 1024,
            test_data_kb: 256 * 1024,
            suite_timeout_ms: 60_000,
            suite_cases: 10_000,
            batch_candidates: 10_000,
        }
    }
}

/// A value over its cap, if it is: `field: <value> <unit> is over the operator's cap of <cap>
/// (caps.<key>)`.
fn over(
    field: impl Into<String>,
    value: u64,
    cap: u64,
    unit: &str,
    key: &str,
) -> Option<FieldError> {
    if value <= cap {
        return None;
    }
    let unit = if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    };
    Some(FieldError::new(
        field,
        format!("{value}{unit} is over the operator's cap of {cap}{unit} (caps.{key})"),
    ))
}

impl Caps {
    /// Every problem of `submission` with these caps, in field order (empty: within them).
    pub fn check_submission(&self, submission: &Submission) -> Vec<FieldError> {
        let mut errors = Vec::new();
        errors.extend(over(
            "judge_tasks",
            submission.judge_tasks.len() as u64,
            self.tasks as u64,
            "tasks",
            "tasks",
        ));
        for (i, task) in submission.judge_tasks.iter().enumerate() {
            let checks = [
                (
                    "time_limit",
                    task.time_limit_ms(),
                    self.time_limit_ms,
                    "ms",
                    "time_limit_ms",
                ),
                (
                    "memory_limit",
                    task.memory_limit_kb(),
                    self.memory_limit_kb,
                    "KB",
                    "memory_limit_kb",
                ),
                (
                    "file_limit",
                    task.file_limit_kb(),
                    self.file_limit_kb,
                    "KB",
                    "file_limit_kb",
                ),
                (
                    "proc_limit",
                    task.proc_limit(),
                    self.proc_limit,
                    "",
                    "proc_limit",
                ),
            ];
            for (name, value, cap, unit, key) in checks {
                let field = || format!("judge_tasks[{i}].{name}");
                errors.extend(value.and_then(|value| over(field(), value, cap, unit, key)));
            }
        }
        errors.extend(over(
            "test_data",
            submission.test_data.len() as u64,
            self.test_data as u64,
            "data",
            "test_data",
        ));
        let inline: u64 = submission
            .test_data
            .iter()
            .flat_map(|d| d.inputs.iter().chain(&d.outputs))
            .map(inline_bytes)
            .sum();
        errors.extend(over(
            "test_data",
            inline.div_ceil(1024),
            self.test_data_kb,
            "KB",
            "test_data_kb",
        ));
        errors
    }

    /// Every problem of `suite` with these caps (empty: within them).
    pub fn check_suite(&self, suite: &TestSuite) -> Vec<FieldError> {
        let mut errors = Vec::new();
        errors.extend(suite.timeout_ms.and_then(|timeout| {
            over(
                "timeout_ms",
                timeout,
                self.suite_timeout_ms,
                "ms",
                "suite_timeout_ms",
            )
        }));
        errors.extend(over(
            "test_cases",
            suite.test_cases.len() as u64,
            self.suite_cases as u64,
            "cases",
            "suite_cases",
        ));
        errors
    }

    /// A batch's `candidates` over [`Caps::batch_candidates`], if they are.
    pub fn check_candidates(&self, candidates: usize) -> Option<FieldError> {
        over(
            "candidates",
            candidates as u64,
            self.batch_candidates as u64,
            "candidates",
            "batch_candidates",
        )
    }
}

/// The bytes an asset carries in the request itself.
fn inline_bytes(asset: &Asset) -> u64 {
    asset.text.as_ref().map_or(0, |t| t.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(time_limit: i64, proc_limit: i64) -> Submission {
        let text = serde_json::json!({"sub_type": "programming", "category": "c", "prob_id": "p",
            "sub_id": "s", "updated_at": 1,
            "judge_tasks": [{"check_script": "compile", "run_script": null,
                "compare_script": null, "is_random": false, "testcase_id": -1, "depends_on": -1,
                "depends_cond": null, "time_limit": time_limit, "proc_limit": proc_limit}],
            "test_data": [{"inputs": [{"type": "text", "name": "a.in", "text": "x".repeat(3000)}],
                "outputs": []}],
            "submission": {"type": "source_code", "language": "c", "assist_files": [],
                "source_files": [{"type": "text", "name": "a.c", "text": "int main(){}"}]}});
        crate::parse_submission(&text.to_string())
            .unwrap()
            .into_inner()
    }

    #[test]
    fn limits_over_a_cap_are_refused_naming_the_field_and_the_cap() {
        let caps = Caps::default();
        assert!(caps.check_submission(&submission(1000, 8)).is_empty());
        let errors = caps.check_submission(&submission(1_000_000_000, 1 << 30));
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "judge_tasks[0].time_limit: 1000000000 ms is over the operator's cap of 60000 ms \
                 (caps.time_limit_ms)",
                "judge_tasks[0].proc_limit: 1073741824 is over the operator's cap of 4096 \
                 (caps.proc_limit)",
            ]
        );
    }

    #[test]
    fn counts_and_inline_bytes_are_capped() {
        let caps = Caps {
            tasks: 0,
            test_data_kb: 2,
            ..Caps::default()
        };
        let text: Vec<String> = caps
            .check_submission(&submission(1000, 8))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            text,
            [
                "judge_tasks: 1 tasks is over the operator's cap of 0 tasks (caps.tasks)",
                "test_data: 3 KB is over the operator's cap of 2 KB (caps.test_data_kb)",
            ]
        );
    }
}
