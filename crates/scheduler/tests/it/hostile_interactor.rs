//! Hostile interactors end to end (docs/interactive.md "A broken or hostile
//! interactor"): one that floods a program that does not read, forks without end, never
//! reads, stalls, writes a huge judge message, or exits before the program without a verdict.
//! Each is contained by its own limits, the run ends in bounded time, and the program gets
//! the documented verdict: never Accepted, and a correct program is never blamed for what the
//! interactor did (Compare Error, the problem's fault).
//!
//! The judge here has tight `[generator]` limits (the interactor's): 2 s of CPU (the task's),
//! a wall clock of 6 s (the program's 5 s + 1 s), 1 MiB of output, 16 processes.

use crate::common::{judge_with, runtime};
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use verdict_contracts::{JudgeStatus, JudgeTaskResult, parse_submission};
use verdict_scheduler::{GeneratorConfig, Judge, JudgeConfig};

/// The most a hostile test may take, compiles included: the program's wall limit (5 s), the
/// interactor's (6 s) and slack for a loaded machine.
const BOUND: Duration = Duration::from_secs(40);

fn hostile_judge() -> Option<&'static Judge> {
    static JUDGE: OnceLock<Option<(Judge, tempfile::TempDir)>> = OnceLock::new();
    JUDGE
        .get_or_init(|| {
            judge_with(|c| JudgeConfig {
                generator: GeneratorConfig {
                    time_ms: 1000,
                    memory_kb: 256 * 1024,
                    output_kb: 1024,
                    processes: 16,
                },
                ..c
            })
        })
        .as_ref()
        .map(|(judge, _)| judge)
}

fn c(text: &str) -> Value {
    json!({"type": "source_code", "language": "c",
        "source_files": [{"type": "text", "name": "main.c", "text": text}]})
}

fn python(text: &str) -> Value {
    json!({"type": "source_code", "language": "python3",
        "source_files": [{"type": "text", "name": "main.py", "text": text}]})
}

/// A correct binary search for the hidden number: reads the greeting, guesses, stops at
/// "correct" (or at end of file: exit 4).
const SEARCHER: &str = r#"
#include <stdio.h>
#include <string.h>
int main(void) {
    char r[32];
    if (scanf("%31s", r) != 1) return 3;
    int lo = 1, hi = 1000000;
    while (lo <= hi) {
        int m = lo + (hi - lo) / 2;
        printf("%d\n", m);
        fflush(stdout);
        if (scanf("%31s", r) != 1) return 4;
        if (!strcmp(r, "correct")) break;
        if (!strcmp(r, "higher")) lo = m + 1; else hi = m - 1;
    }
    return 0;
}
"#;

/// An interactor in C: `body` runs in `main` with `msg` open on the Kattis feedback file
/// (`argv[3]/judgemessage.txt`; a testlib interactor's `argv[3]` is the answer file, so it
/// writes its messages to stderr instead).
fn interactor(body: &str) -> Value {
    c(&format!(
        r#"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {{
    (void)argc;
    char path[4096];
    snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
    FILE *msg = fopen(path, "w");
    if (!msg) msg = stderr;
    {body}
    return 42;
}}
"#
    ))
}

/// Judges `program` beside `interactor` (of `protocol`) on hidden number 777777; returns the
/// interactive task's result and how long the whole submission took.
fn judge(
    name: &str,
    program: Value,
    interactor: Value,
    protocol: &str,
) -> Option<(JudgeTaskResult, Duration)> {
    let judge = hostile_judge()?;
    let submission = json!({
        "sub_type": "programming", "category": "interactive", "prob_id": format!("hostile-{name}"),
        "sub_id": format!("hostile-{name}"), "updated_at": 1,
        "judge_tasks": [
            {"check_script": "compile", "depends_on": -1, "time_limit": 20000},
            {"check_script": "standard", "run_script": "interactive", "compare_script": "",
             "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED",
             "time_limit": 2000, "memory_limit": 65536, "file_limit": 1024, "proc_limit": 8}
        ],
        "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": "777777\n"}],
                       "outputs": [{"type": "text", "name": "testdata.out", "text": "777777\n"}]}],
        "submission": program,
        "compare": interactor,
        "compare_protocol": protocol,
    });
    let submission = parse_submission(&submission.to_string()).expect("valid submission");
    let start = Instant::now();
    let report = runtime().block_on(judge.judge(submission));
    let took = start.elapsed();
    assert_eq!(report.results.len(), 2, "{report:?}");
    assert_eq!(
        report.results[0].status,
        JudgeStatus::Accepted,
        "{}",
        report.results[0].error_log
    );
    let result = report.results[1].clone();
    assert!(
        took < BOUND,
        "{name}: took {took:?}: {:?} {}",
        result.status,
        result.error_log
    );
    Some((result, took))
}

const DIALECTS: [&str; 2] = ["kattis", "testlib"];

/// Floods "start " without end and never reads.
const FLOOD: &str = r#"for (;;) fputs("start ", stdout);"#;

#[test]
fn an_interactor_flooding_a_program_that_sleeps_is_held_by_the_pipe_and_the_program_is_idle() {
    // The program never reads: the flood fills the pipes (the relay holds at most 64 KiB) and
    // blocks the interactor; the program is stopped at its wall limit, which closes the
    // interactor's output (SIGPIPE). The program's idleness is its own: Time Limit Exceeded,
    // as for any program that does not read what it is sent.
    let sleeper = "#include <unistd.h>\nint main(void) { for (;;) sleep(100); }\n";
    for protocol in DIALECTS {
        let Some((r, _)) = judge(
            &format!("flood-sleeper-{protocol}"),
            c(sleeper),
            interactor(FLOOD),
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::TimeLimitExceeded,
            "{protocol}: {}",
            r.error_log
        );
        assert!(r.error_log.contains("wall time"), "{}", r.error_log);
        assert!(
            r.run_time < 200,
            "{protocol}: an idle program's CPU: {}",
            r.run_time
        );
    }
}

#[test]
fn an_interactor_flooding_a_program_that_leaves_is_cut_off_and_the_program_wrong() {
    // The program exits at once without reading (no answer given): the interactor, writing
    // to a program that left, dies of SIGPIPE; that is not its failure (rule 4): Wrong Answer.
    let leaver = python("print(1)\n");
    for protocol in DIALECTS {
        let Some((r, _)) = judge(
            &format!("flood-leaver-{protocol}"),
            leaver.clone(),
            interactor(FLOOD),
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::WrongAnswer,
            "{protocol}: {}",
            r.error_log
        );
    }
}

#[test]
fn an_interactor_fork_bomb_is_held_by_its_own_process_limit_and_is_a_compare_error() {
    // The interactor forks without end before greeting: its box holds at most 16 processes,
    // its CPU time and wall clock stop it. The correct program waited for a greeting that never
    // came: the interactor's failure, Compare Error, not the program's Time Limit Exceeded.
    let bomb = interactor("for (;;) fork();");
    for protocol in DIALECTS {
        let Some((r, _)) = judge(
            &format!("fork-bomb-{protocol}"),
            c(SEARCHER),
            bomb.clone(),
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::CompareError,
            "{protocol}: {}",
            r.error_log
        );
        assert!(r.error_log.contains("exceeded its"), "{}", r.error_log);
        assert!(r.run_time < 200, "{protocol}: program CPU {}", r.run_time);
    }
}

#[test]
fn an_interactor_that_never_reads_stalls_the_exchange_and_is_a_compare_error() {
    // It greets, then never reads the guesses and never answers (sleeping past the end of its
    // stdin): the correct program waits for an answer to its first guess until its wall limit;
    // the interactor is stopped at its own. Rule 3': Compare Error.
    let deaf = interactor(r#"printf("start\n"); fflush(stdout); for (;;) sleep(100);"#);
    for protocol in DIALECTS {
        let Some((r, _)) = judge(
            &format!("deaf-{protocol}"),
            c(SEARCHER),
            deaf.clone(),
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::CompareError,
            "{protocol}: {}",
            r.error_log
        );
        assert!(
            r.error_log.contains("program -> interactor  \"500000\\n\""),
            "the guess was sent: {}",
            r.error_log
        );
    }
}

#[test]
fn a_program_flooding_an_interactor_that_never_reads_is_not_blamed_for_blocking() {
    // The program writes guesses without waiting; the interactor never reads them: the program
    // blocks on a full pipe (the judge's memory stays bounded) until its wall limit, the
    // interactor stalls to its own. Compare Error, not the program's Output Limit (it sent
    // less than its limit) nor Time Limit.
    let deaf = interactor(r#"printf("start\n"); fflush(stdout); for (;;) pause();"#);
    let flood = "#include <stdio.h>\nint main(void) { for (;;) printf(\"1\\n\"); }\n";
    let Some((r, _)) = judge("deaf-flooded", c(flood), deaf, "kattis") else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::CompareError, "{}", r.error_log);
}

#[test]
fn an_interactor_that_stalls_without_a_word_is_stopped_at_its_wall_limit_and_is_a_compare_error() {
    // Idle from the start: it neither writes nor reads nor exits.
    let idle = interactor("for (;;) pause();");
    let python_idle = python("import time\nwhile True:\n    time.sleep(100)\n");
    for (protocol, idle) in [
        ("kattis", idle.clone()),
        ("testlib", idle),
        ("kattis", python_idle),
    ] {
        let Some((r, took)) = judge(
            &format!(
                "idle-{protocol}-{}",
                idle["language"].as_str().unwrap_or("")
            ),
            c(SEARCHER),
            idle,
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::CompareError,
            "{protocol}: {}",
            r.error_log
        );
        assert!(
            r.error_log.contains("exceeded its WallTime limit"),
            "{protocol}: {}",
            r.error_log
        );
        // Bounded by the interactor's wall clock (6 s), not by anything larger.
        assert!(took < Duration::from_secs(30), "{protocol}: took {took:?}");
    }
}

#[test]
fn a_huge_judge_message_is_cut_by_the_interactors_output_limit_or_read_capped() {
    // 8 MiB of judge message, past the interactor's 1 MiB output limit: its write fails on
    // the limit (SIGXFSZ), the interactor failed: Compare Error. In the testlib dialect the
    // message is its stderr.
    let huge = |target: &str| {
        interactor(&format!(
            r#"static char line[1024]; memset(line, 'm', sizeof line - 1);
               for (int i = 0; i < 8 * 1024; i++) fputs(line, {target});
               return {code};"#,
            code = if target == "msg" { 43 } else { 1 }
        ))
    };
    for (protocol, target) in [("kattis", "msg"), ("testlib", "stderr")] {
        let Some((r, _)) = judge(
            &format!("huge-message-{protocol}"),
            c(SEARCHER),
            huge(target),
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::CompareError,
            "{protocol}: {}",
            &r.error_log[..r.error_log.len().min(2000)]
        );
        assert!(
            r.error_log.len() < 80 * 1024,
            "{protocol}: error_log of {} bytes",
            r.error_log.len()
        );
        assert!(
            r.error_log.contains("exceeded its Output limit"),
            "{protocol}: stopped by its output limit: {}",
            &r.error_log[..r.error_log.len().min(2000)]
        );
    }
    // Under the limit (900 KiB) with a rejection: Wrong Answer, the message read up to 64 KiB.
    let big = |target: &str, code: i32| {
        interactor(&format!(
            r#"static char line[1024]; memset(line, 'm', sizeof line - 1);
               for (int i = 0; i < 900; i++) fputs(line, {target});
               fflush({target});
               return {code};"#
        ))
    };
    for (protocol, target, code) in [("kattis", "msg", 43), ("testlib", "stderr", 1)] {
        let Some((r, _)) = judge(
            &format!("big-message-{protocol}"),
            c(SEARCHER),
            big(target, code),
            protocol,
        ) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::WrongAnswer,
            "{protocol}: {}",
            &r.error_log[..r.error_log.len().min(2000)]
        );
        assert!(
            r.error_log.contains("mmmm") && r.error_log.len() < 80 * 1024,
            "{protocol}: error_log of {} bytes",
            r.error_log.len()
        );
    }
}

#[test]
fn an_interactor_that_exits_before_the_program_without_a_verdict_is_a_compare_error() {
    // Exits at once, with no verdict of its dialect (Kattis: not 42 or 43; testlib: 3 is the
    // checker's own failure, 5 is no code at all, a crash is no exit). The program reads end
    // of file: whether it then fails (exit 3) or ends as if done (exit 0), never Accepted and
    // never the program's fault.
    let tolerant = "#include <stdio.h>\nint main(void) { char r[32]; \
                    if (scanf(\"%31s\", r) != 1) return 0; return 0; }\n";
    let cases = [
        ("kattis-0", interactor("return 0;"), "kattis", SEARCHER),
        (
            "kattis-1-tolerant",
            interactor("return 1;"),
            "kattis",
            tolerant,
        ),
        (
            "testlib-3",
            interactor(r#"fputs("FAIL broken", stderr); return 3;"#),
            "testlib",
            SEARCHER,
        ),
        (
            "testlib-5-tolerant",
            interactor("return 5;"),
            "testlib",
            tolerant,
        ),
        ("testlib-abort", interactor("abort();"), "testlib", SEARCHER),
        (
            "kattis-python",
            python("import sys\nsys.exit(0)\n"),
            "kattis",
            SEARCHER,
        ),
    ];
    for (name, broken, protocol, program) in cases {
        let Some((r, _)) = judge(&format!("early-{name}"), c(program), broken, protocol) else {
            return;
        };
        assert_eq!(
            r.status,
            JudgeStatus::CompareError,
            "{name}: {}",
            r.error_log
        );
    }
}
