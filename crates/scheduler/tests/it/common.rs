//! What the pipeline tests share: the test kit's judges (one per test binary, or one of a
//! test's own) and helpers.

use serde_json::{Value, json};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scheduler::Judge;
pub use verdict_testkit::{judge, judge_request, judge_with, repo_root, runtime, statuses};

/// A C program of one file, `main.c`, as a submission's source.
pub fn c(text: &str) -> Value {
    json!({"type": "source_code", "language": "c",
        "source_files": [{"type": "text", "name": "main.c", "text": text}]})
}

/// A Python program of one file, `main.py`, as a submission's source.
pub fn python(text: &str) -> Value {
    json!({"type": "source_code", "language": "python3",
        "source_files": [{"type": "text", "name": "main.py", "text": text}]})
}

/// A C program that reads the greeting and binary searches for the hidden number (1 to a
/// million) by the answers higher, lower and correct; `after` runs once the number is found
/// (or at end of file: exit 4), `setup` before the first read.
pub fn searcher(setup: &str, after: &str) -> String {
    after_start_free(&format!(
        r#"char r[32];
    {setup}
    if (scanf("%31s", r) != 1) return 3;
    int lo = 1, hi = 1000000;
    while (lo <= hi) {{
        int m = lo + (hi - lo) / 2;
        printf("%d\n", m);
        fflush(stdout);
        if (scanf("%31s", r) != 1) return 4;
        if (!strcmp(r, "correct")) break;
        if (!strcmp(r, "higher")) lo = m + 1; else hi = m - 1;
    }}
    {after}"#
    ))
}

/// A C program that does `body`, with the headers the tests' programs use.
pub fn after_start_free(body: &str) -> String {
    format!(
        r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {{
    {body}
    return 0;
}}
"#
    )
}

/// What a two-task submission judged beside a program of the problem's is made of.
pub struct BesideCompare<'a> {
    /// The submission's own fields: `category`, `prob_id`, `sub_id`, `compare_protocol`.
    pub fields: Value,
    /// Task 1's fields beyond test case 0 and its 64 MiB, 1 MiB of output and 8 processes:
    /// `run_script`, `time_limit`, flags, passes.
    pub test: Value,
    /// The test's input and expected output.
    pub data: [&'a str; 2],
    /// The submitted program.
    pub program: Value,
    /// The problem's interactor or validator.
    pub compare: Value,
}

/// Judges a submission whose task 0 compiles the program (checked Accepted) and task 1 runs it
/// on one test beside the problem's `compare` program; returns task 1's result.
pub fn judge_beside_compare(judge: &Judge, parts: BesideCompare<'_>) -> JudgeTaskResult {
    let BesideCompare {
        fields,
        test,
        data: [input, output],
        program,
        compare,
    } = parts;
    let mut task = json!({"check_script": "standard", "compare_script": "", "testcase_id": 0,
        "depends_on": 0, "depends_cond": "ACCEPTED",
        "memory_limit": 65536, "file_limit": 1024, "proc_limit": 8});
    let mut submission = json!({
        "sub_type": "programming", "updated_at": 1,
        "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": input}],
                       "outputs": [{"type": "text", "name": "testdata.out", "text": output}]}],
        "submission": program,
        "compare": compare,
    });
    merge(&mut task, test);
    submission["judge_tasks"] =
        json!([{"check_script": "compile", "depends_on": -1, "time_limit": 20000}, task]);
    merge(&mut submission, fields);
    let report = judge_request(judge, &submission);
    assert_eq!(report.results.len(), 2, "{report:?}");
    assert_eq!(
        report.results[0].status,
        JudgeStatus::Accepted,
        "{}",
        report.results[0].error_log
    );
    report.results[1].clone()
}

/// Checks that `r` is a program stopped idle at its wall limit: Time Limit Exceeded by wall
/// time, having used little CPU time of its own.
pub fn assert_idle_at_wall_limit(r: &JudgeTaskResult) {
    assert_eq!(r.status, JudgeStatus::TimeLimitExceeded, "{}", r.error_log);
    assert!(r.error_log.contains("wall time"), "{}", r.error_log);
    assert!(
        r.run_time < 200,
        "an idle program's CPU time: {}",
        r.run_time
    );
}

/// Sets `fields`' entries on the object `into`.
fn merge(into: &mut Value, fields: Value) {
    if let (Some(into), Value::Object(fields)) = (into.as_object_mut(), fields) {
        into.extend(fields);
    }
}
