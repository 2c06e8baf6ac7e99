//! Multi-pass tests end to end (docs/interactive.md "Multi-pass tests"): a countdown
//! judged pass by pass with a real Kattis validator in the real sandbox, plain and interactive.

use crate::common::{BesideCompare, assert_log_has, c, judge, judge_beside_compare};
use serde_json::json;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};

/// A Kattis validator of a countdown: the pass's input is `n`, the program must answer
/// `n - 1`; at 0 it accepts, else it writes `nextpass.in` with the answer. It counts its passes
/// in `feedback/count.txt` (kept between passes) and appends to `judgemessage.txt`. Flags:
/// `talk` sends `n` to the program first (interactive); `reject_with_next` writes
/// `nextpass.in` and rejects.
const VALIDATOR: &str = r#"
#include <stdio.h>
#include <string.h>
static int flag(int argc, char **argv, const char *f) {
    for (int i = 4; i < argc; i++) if (!strcmp(argv[i], f)) return 1;
    return 0;
}
int main(int argc, char **argv) {
    char path[4096];
    FILE *in = fopen(argv[1], "r");
    int n, m, count = 0;
    if (!in || fscanf(in, "%d", &n) != 1) return 1;
    snprintf(path, sizeof path, "%scount.txt", argv[3]);
    FILE *c = fopen(path, "r");
    if (c) { if (fscanf(c, "%d", &count) != 1) return 1; fclose(c); }
    count++;
    c = fopen(path, "w");
    if (!c) return 2;
    fprintf(c, "%d\n", count);
    fclose(c);
    snprintf(path, sizeof path, "%sjudgemessage.txt", argv[3]);
    FILE *msg = fopen(path, "a");
    if (!msg) return 3;
    if (flag(argc, argv, "talk")) { printf("%d\n", n); fflush(stdout); }
    if (scanf("%d", &m) != 1) { fprintf(msg, "no answer in pass %d; ", count); return 43; }
    if (m != n - 1) { fprintf(msg, "pass %d: %d after %d; ", count, m, n); return 43; }
    if (m == 0) { fprintf(msg, "count %d", count); return 42; }
    snprintf(path, sizeof path, "%snextpass.in", argv[3]);
    FILE *next = fopen(path, "w");
    if (!next) return 4;
    fprintf(next, "%d\n", m);
    fclose(next);
    fprintf(msg, "pass %d ok; ", count);
    return flag(argc, argv, "reject_with_next") ? 43 : 42;
}
"#;

/// Counts down by one; `at_two` runs instead when the input is 2.
fn countdown(at_two: &str) -> String {
    format!(
        r#"
#include <stdio.h>
int main(void) {{
    int n;
    if (scanf("%d", &n) != 1) return 3;
    if (n == 2) {{ {at_two} }}
    printf("%d\n", n - 1);
    return 0;
}}
"#
    )
}

/// Judges `program` on input 3 with at most `passes` passes and returns the test's result.
fn judge_countdown(
    name: &str,
    program: &str,
    run_script: &str,
    passes: i64,
    flags: &[&str],
) -> Option<JudgeTaskResult> {
    let fields = json!({"category": "multipass", "prob_id": "countdown",
        "sub_id": format!("multipass-{name}"), "compare_protocol": "kattis"});
    let test = json!({"run_script": run_script, "time_limit": 1000,
        "validator_flags": flags, "passes": passes});
    Some(judge_beside_compare(
        judge()?,
        BesideCompare {
            fields,
            test,
            data: ["3\n", ""],
            program: c(program),
            compare: c(VALIDATOR),
        },
    ))
}

#[test]
fn a_multi_pass_test_runs_again_on_the_validators_next_input_with_its_feedback_kept() {
    let Some(r) = judge_countdown("ac", &countdown(""), "standard", 3, &[]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
    // Three passes (3 -> 2 -> 1 -> 0), counted by the validator in its kept feedback file,
    // its message appended to across them.
    assert_log_has(&r.error_log, "pass 1 ok; pass 2 ok; count 3");
    assert_log_has(&r.error_log, "pass 3: Accepted");
}

#[test]
fn a_multi_pass_test_asking_for_more_passes_than_allowed_is_a_judge_error() {
    let Some(r) = judge_countdown("too-many", &countdown(""), "standard", 2, &[]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::CompareError, "{}", r.error_log);
    assert_log_has(
        &r.error_log,
        "pass 2: the validator asked for pass 3 of a test of at most 2",
    );
}

#[test]
fn a_wrong_second_pass_is_wrong_answer_naming_the_pass() {
    let program = countdown(r#"printf("5\n"); return 0;"#);
    let Some(r) = judge_countdown("wa-second", &program, "standard", 3, &[]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::WrongAnswer, "{}", r.error_log);
    assert!(r.error_log.starts_with("pass 2: "), "{}", r.error_log);
    assert_log_has(&r.error_log, "pass 2: 5 after 2");
}

#[test]
fn a_time_limit_in_the_second_pass_is_the_tests_verdict_with_that_passs_time() {
    let program = countdown("volatile unsigned long x = 0; for (;;) x++;");
    let Some(r) = judge_countdown("tle-second", &program, "standard", 3, &[]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::TimeLimitExceeded, "{}", r.error_log);
    assert!(r.error_log.starts_with("pass 2: "), "{}", r.error_log);
    // The largest pass's CPU time, not the first pass's (a few ms). On a loaded machine the
    // wall limit may end the loop before its 1 s of CPU, so the bound leaves room for that.
    assert!(r.run_time >= 500, "{}", r.run_time);
}

#[test]
fn a_next_input_written_by_a_rejecting_validator_is_a_judge_error() {
    let Some(r) = judge_countdown(
        "reject-with-next",
        &countdown(""),
        "standard",
        3,
        &["reject_with_next"],
    ) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::CompareError, "{}", r.error_log);
    assert_log_has(
        &r.error_log,
        "pass 1: the validator wrote nextpass.in and exited with 43",
    );
}

#[test]
fn an_interactive_multi_pass_test_runs_each_pass_beside_the_validator() {
    let Some(r) = judge_countdown("interactive", &countdown(""), "interactive", 3, &["talk"])
    else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
    assert_log_has(&r.error_log, "count 3");
    // Each pass's exchange: the validator sends the pass's input.
    assert!(
        r.error_log.contains("pass 2 transcript:")
            && r.error_log.contains("interactor -> program  \"2\\n\""),
        "{}",
        r.error_log
    );
    let program = countdown(r#"printf("7\n"); return 0;"#);
    let Some(r) = judge_countdown("interactive-wa", &program, "interactive", 3, &["talk"]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::WrongAnswer, "{}", r.error_log);
    assert!(r.error_log.starts_with("pass 2: "), "{}", r.error_log);
}
