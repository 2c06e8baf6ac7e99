//! Stdin/stdout tests (CodeContests, APPS, LiveCodeBench stdin): stdout is compared outside the
//! box by LiveCodeBench's rule.

use crate::{assert_failed_at, judge, problem};
use serde_json::json;
use verdict_datasets::SampleStatus;

fn a_plus_b() -> verdict_datasets::Problem {
    problem(&json!({
        "name": "A+B", "description": "Print a + b.",
        "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
        "private_tests": {"input": ["10 20\n", "-5 5\n"], "output": ["30\n", "0\n"]},
        "generated_tests": {"input": [], "output": []},
        "time_limit": {"seconds": 1, "nanos": 0},
        "memory_limit_bytes": 268435456
    }))
}

fn sample(code: &str) -> serde_json::Value {
    json!({"task_id": "A+B", "completion": format!("```python\n{code}```")})
}

#[test]
fn right_wrong_crashing_and_looping_programs() {
    let Some(results) = judge(
        &a_plus_b(),
        &[
            sample("a, b = map(int, input().split())\nprint(a + b, end='  \\n\\n')\n"),
            sample("a, b = map(int, input().split())\nprint(a * b)\n"),
            sample("raise ValueError('boom')\n"),
            sample("while True:\n    pass\n"),
            sample("import os\nos._exit(0)\n"),
            sample("print('passed')\n"),
        ],
        5000,
    ) else {
        return;
    };
    let statuses: Vec<SampleStatus> = results.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses,
        [
            SampleStatus::Passed,
            SampleStatus::Failed,
            SampleStatus::Error,
            SampleStatus::Timeout,
            SampleStatus::Failed,
            SampleStatus::Failed,
        ],
        "{results:#?}"
    );
    assert_eq!(results[0].tests_passed, 3);
    assert_eq!(results[1].tests_passed, 0);
    assert_failed_at(&results[1], "public_tests[0]: wrong answer: line 1");
    // The dataset's own limit (1 s), not the 5 s default, stops the loop.
    assert!(
        results[3].tests[0].time_ms < 4000,
        "{:#?}",
        results[3].tests[0]
    );
}
