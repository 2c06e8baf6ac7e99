//! What the pipeline tests share: the test kit's judges (one per test binary, or one of a
//! test's own) and helpers.

use serde_json::{Value, json};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scheduler::Judge;
pub use verdict_testkit::programs::{after_start_free, searcher};
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

/// Checks that `r` has `status` (showing its error log when not) and `score`.
pub fn assert_scored(r: &JudgeTaskResult, status: JudgeStatus, score: &str) {
    assert_eq!(r.status, status, "{}", r.error_log);
    assert_eq!(r.score.to_string(), score);
}

/// Checks that a result's error log `log` says `needle` (showing the log when it does not).
pub fn assert_log_has(log: &str, needle: &str) {
    assert!(log.contains(needle), "{log}");
}

/// Checks that `r` is a program stopped idle at its wall limit: Time Limit Exceeded by wall
/// time, having used little CPU time of its own.
pub fn assert_idle_at_wall_limit(r: &JudgeTaskResult) {
    assert_eq!(r.status, JudgeStatus::TimeLimitExceeded, "{}", r.error_log);
    assert_log_has(&r.error_log, "wall time");
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
