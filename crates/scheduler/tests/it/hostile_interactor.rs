//! Hostile interactors end to end (docs/interactive.md "A broken or hostile
//! interactor"): one that floods a program that does not read, forks without end, never
//! reads, stalls, writes a huge judge message, or exits before the program without a verdict.
//! Each is contained by its own limits, the run ends in bounded time, and the program gets
//! the documented verdict: never Accepted, and a correct program is never blamed for what the
//! interactor did (Compare Error, the problem's fault).
//!
//! The judge here has tight `[generator]` limits (the interactor's): 2 s of CPU (the task's),
//! a wall clock of 6 s (the program's 5 s + 1 s), 1 MiB of output, 16 processes.

use crate::common::{
    BesideCompare, assert_idle_at_wall_limit, assert_log_has, c, judge_beside_compare, judge_with,
    python, searcher,
};
use serde_json::{Value, json};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
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

/// A correct program: the binary search of [`searcher`].
fn correct_program() -> Value {
    c(&searcher("", ""))
}

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
    let start = Instant::now();
    let result = judge_beside_compare(
        judge,
        BesideCompare {
            fields: json!({"category": "interactive", "prob_id": format!("hostile-{name}"),
                "sub_id": format!("hostile-{name}"), "compare_protocol": protocol}),
            test: json!({"run_script": "interactive", "time_limit": 2000}),
            data: ["777777\n", "777777\n"],
            program,
            compare: interactor,
        },
    );
    let took = start.elapsed();
    assert!(
        took < BOUND,
        "{name}: took {took:?}: {:?} {}",
        result.status,
        result.error_log
    );
    Some((result, took))
}

/// Judges `program` beside `interactor` as [`judge`] does (the case named `name`) and checks
/// its status is `want`; the result, or `None` (skipped) without a sandbox.
fn judge_expecting(
    name: &str,
    program: Value,
    interactor: Value,
    protocol: &str,
    want: JudgeStatus,
) -> Option<(JudgeTaskResult, Duration)> {
    let (r, took) = judge(name, program, interactor, protocol)?;
    let log: String = r.error_log.chars().take(2000).collect();
    assert_eq!(r.status, want, "{name}: {log}");
    Some((r, took))
}

/// [`judge_expecting`] in each of the [`DIALECTS`], as `name-<dialect>`; each dialect's
/// result, or `None` (skipped) without a sandbox.
fn judge_in_dialects(
    name: &str,
    program: &Value,
    interactor: &Value,
    want: JudgeStatus,
) -> Option<Vec<(&'static str, JudgeTaskResult)>> {
    DIALECTS
        .into_iter()
        .map(|protocol| {
            let name = format!("{name}-{protocol}");
            let (r, _) =
                judge_expecting(&name, program.clone(), interactor.clone(), protocol, want)?;
            Some((protocol, r))
        })
        .collect()
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
    let Some(results) = judge_in_dialects(
        "flood-sleeper",
        &c(sleeper),
        &interactor(FLOOD),
        JudgeStatus::TimeLimitExceeded,
    ) else {
        return;
    };
    for (_, r) in results {
        assert_idle_at_wall_limit(&r);
    }
}

#[test]
fn an_interactor_flooding_a_program_that_leaves_is_cut_off_and_the_program_wrong() {
    // The program exits at once without reading (no answer given): the interactor, writing
    // to a program that left, dies of SIGPIPE; that is not its failure (rule 4): Wrong Answer.
    let leaver = python("print(1)\n");
    judge_in_dialects(
        "flood-leaver",
        &leaver,
        &interactor(FLOOD),
        JudgeStatus::WrongAnswer,
    );
}

#[test]
fn an_interactor_fork_bomb_is_held_by_its_own_process_limit_and_is_a_compare_error() {
    // The interactor forks without end before greeting: its box holds at most 16 processes,
    // its CPU time and wall clock stop it. The correct program waited for a greeting that never
    // came: the interactor's failure, Compare Error, not the program's Time Limit Exceeded.
    let bomb = interactor("for (;;) fork();");
    let Some(results) = judge_in_dialects(
        "fork-bomb",
        &correct_program(),
        &bomb,
        JudgeStatus::CompareError,
    ) else {
        return;
    };
    for (protocol, r) in results {
        assert_log_has(&r.error_log, "exceeded its");
        assert!(r.run_time < 200, "{protocol}: program CPU {}", r.run_time);
    }
}

#[test]
fn an_interactor_that_never_reads_stalls_the_exchange_and_is_a_compare_error() {
    // It greets, then never reads the guesses and never answers (sleeping past the end of its
    // stdin): the correct program waits for an answer to its first guess until its wall limit;
    // the interactor is stopped at its own. Rule 3': Compare Error.
    let deaf = interactor(r#"printf("start\n"); fflush(stdout); for (;;) sleep(100);"#);
    let Some(results) =
        judge_in_dialects("deaf", &correct_program(), &deaf, JudgeStatus::CompareError)
    else {
        return;
    };
    for (_, r) in results {
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
    judge_expecting(
        "deaf-flooded",
        c(flood),
        deaf,
        "kattis",
        JudgeStatus::CompareError,
    );
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
        let name = format!(
            "idle-{protocol}-{}",
            idle["language"].as_str().unwrap_or("")
        );
        let Some((r, took)) = judge_expecting(
            &name,
            correct_program(),
            idle,
            protocol,
            JudgeStatus::CompareError,
        ) else {
            return;
        };
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
        let Some((r, _)) = judge_expecting(
            &format!("huge-message-{protocol}"),
            correct_program(),
            huge(target),
            protocol,
            JudgeStatus::CompareError,
        ) else {
            return;
        };
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
        let Some((r, _)) = judge_expecting(
            &format!("big-message-{protocol}"),
            correct_program(),
            big(target, code),
            protocol,
            JudgeStatus::WrongAnswer,
        ) else {
            return;
        };
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
    let search = searcher("", "");
    let cases = [
        (
            "kattis-0",
            interactor("return 0;"),
            "kattis",
            search.as_str(),
        ),
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
            search.as_str(),
        ),
        (
            "testlib-5-tolerant",
            interactor("return 5;"),
            "testlib",
            tolerant,
        ),
        (
            "testlib-abort",
            interactor("abort();"),
            "testlib",
            search.as_str(),
        ),
        (
            "kattis-python",
            python("import sys\nsys.exit(0)\n"),
            "kattis",
            search.as_str(),
        ),
    ];
    for (name, broken, protocol, program) in cases {
        let name = format!("early-{name}");
        if judge_expecting(
            &name,
            c(program),
            broken,
            protocol,
            JudgeStatus::CompareError,
        )
        .is_none()
        {
            return;
        }
    }
}
