//! Interactive tests end to end (docs/interactive.md): a guessing game judged with
//! real programs and interactors in the real sandbox, one test per race rule.

use crate::common::{
    BesideCompare, after_start_free, assert_idle_at_wall_limit, assert_log_has, assert_scored, c,
    judge, judge_beside_compare, searcher,
};
use serde_json::json;
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_testkit::programs::KATTIS_INTERACTOR;

/// A testlib-dialect interactor (exit codes and `points` as testlib writes them): full marks
/// within 10 guesses, half marks within 30.
const TESTLIB_INTERACTOR: &str = r#"
#include <stdio.h>
int main(int argc, char **argv) {
    FILE *in = fopen(argv[1], "r");
    int n;
    if (!in || fscanf(in, "%d", &n) != 1) { fprintf(stderr, "FAIL no input"); return 3; }
    printf("start\n");
    fflush(stdout);
    for (int q = 1; q <= 30; q++) {
        int g;
        if (scanf("%d", &g) != 1) { fprintf(stderr, "wrong answer no guess %d", q); return 1; }
        if (g == n) {
            printf("correct\n");
            fflush(stdout);
            if (q <= 10) { fprintf(stderr, "ok found in %d", q); return 0; }
            fprintf(stderr, "points 0.5 found in %d", q);
            return 7;
        }
        printf(g < n ? "higher\n" : "lower\n");
        fflush(stdout);
    }
    fprintf(stderr, "wrong answer too many guesses");
    return 1;
}
"#;

/// A program that reads the greeting and then does `body`.
fn after_start(body: &str) -> String {
    after_start_free(&format!(
        r#"char r[32];
    if (scanf("%31s", r) != 1) return 3;
    {body}"#
    ))
}

/// Judges `program` against `interactor` on hidden number 777777 and returns the
/// interactive task's result.
fn judge_game(
    name: &str,
    program: &str,
    interactor: &str,
    protocol: Option<&str>,
    flags: &[&str],
) -> Option<JudgeTaskResult> {
    let mut fields = json!({"category": "interactive",
        "prob_id": format!("guess-{}", protocol.unwrap_or("detected")),
        "sub_id": format!("interactive-{name}")});
    if let Some(p) = protocol {
        fields["compare_protocol"] = json!(p);
    }
    let test = json!({"run_script": "interactive", "time_limit": 2000, "validator_flags": flags});
    Some(judge_beside_compare(
        judge()?,
        BesideCompare {
            fields,
            test,
            data: ["777777\n", "777777\n"],
            program: c(program),
            compare: c(interactor),
        },
    ))
}

fn kattis(name: &str, program: &str) -> Option<JudgeTaskResult> {
    judge_game(name, program, KATTIS_INTERACTOR, None, &[])
}

fn testlib(name: &str, program: &str) -> Option<JudgeTaskResult> {
    judge_game(name, program, TESTLIB_INTERACTOR, Some("testlib"), &[])
}

#[test]
fn a_binary_search_is_accepted_with_a_transcript_of_the_exchange() {
    let Some(r) = kattis("ac", &searcher("", "")) else {
        return;
    };
    assert_scored(&r, JudgeStatus::Accepted, "1/1");
    assert_log_has(&r.error_log, "found in");
    assert_log_has(&r.error_log, "interactor -> program  \"start\\n\"");
    assert_log_has(&r.error_log, "program -> interactor  \"500000\\n\"");
    assert_log_has(&r.error_log, "interactor -> program  \"correct\\n\"");
}

#[test]
fn a_program_that_leaves_early_is_wrong_and_the_interactor_cut_off_is_not_blamed() {
    let Some(r) = kattis("early", &after_start(r#"printf("1\n"); fflush(stdout);"#)) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::WrongAnswer, "{}", r.error_log);
}

#[test]
fn a_program_waiting_for_an_interactor_that_waits_for_it_is_idle_time_limit() {
    let Some(r) = kattis(
        "idle",
        &after_start("int g; if (scanf(\"%d\", &g) != 1) return 5;"),
    ) else {
        return;
    };
    assert_idle_at_wall_limit(&r);
}

#[test]
fn a_flood_is_wrong_as_the_interactor_said_first_and_the_program_is_cut_off() {
    let Some(r) = kattis("flood", &after_start("for (;;) fputs(\"1 \", stdout);")) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::WrongAnswer, "{}", r.error_log);
    assert_log_has(&r.error_log, "too many guesses");
}

/// A program that sends 100 wrong guesses at once and then spins, run beside `interactor`
/// (of `protocol`, or detected): Wrong Answer, killed as soon as the interactor rejected it,
/// not at its 2 s limit.
fn assert_killed_once_rejected(name: &str, interactor: &str, protocol: Option<&str>) {
    let body = "signal(SIGPIPE, SIG_IGN); for (int i = 0; i < 100; i++) printf(\"1\\n\"); \
                fflush(stdout); for (volatile unsigned long x = 0;; x++) {}";
    let Some(r) = judge_game(name, &after_start(body), interactor, protocol, &[]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::WrongAnswer, "{}", r.error_log);
    assert!(
        r.run_time < 1000,
        "ran {} ms after the rejection",
        r.run_time
    );
}

#[test]
fn the_interactors_wrong_answer_first_wins_over_a_program_that_then_burns_its_time() {
    assert_killed_once_rejected("wa-then-spin", KATTIS_INTERACTOR, None);
}

#[test]
fn a_program_still_running_after_a_testlib_interactor_rejected_it_is_killed_at_once() {
    assert_killed_once_rejected("testlib-wa-then-spin", TESTLIB_INTERACTOR, Some("testlib"));
}

#[test]
fn a_program_that_spins_after_the_interactor_accepted_runs_to_its_limit() {
    let after = "for (volatile unsigned long x = 0;; x++) {}";
    let Some(r) = kattis("ac-then-spin", &searcher("", after)) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::TimeLimitExceeded, "{}", r.error_log);
}

/// Output after an accepting interactor left is drained, not cut off with `SIGPIPE`: the
/// program is judged by the interactor's verdict and its own exit, as problemtools' and
/// BAPCtools' runners judge it (BAPCtools' `guessnoeofcheck` expects exactly this).
#[test]
fn output_after_the_interactor_accepted_is_drained_and_the_interactors_verdict_stands() {
    let after = "for (int i = 0; i < 5000; i++) printf(\"extra output %d\\n\", i); fflush(stdout);";
    let Some(r) = kattis("late-output", &searcher("", after)) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
    // Past its output limit (1 MiB) it is an output limit, still never a SIGPIPE.
    let flood = "for (;;) fputs(\"extra output\\n\", stdout);";
    let Some(r) = kattis("late-flood", &searcher("", flood)) else {
        return;
    };
    assert_eq!(
        r.status,
        JudgeStatus::OutputLimitExceeded,
        "{}",
        r.error_log
    );
}

/// A program that closes its stdout and then crashes is judged by its crash: the interactor
/// reads end-of-file only once the program has exited (problemtools and BAPCtools hold the
/// pipe until then; BAPCtools' `guess` expects `run_time_error` of such a program), so it
/// cannot say "wrong answer" first. One that closes it and sleeps is a time limit.
#[test]
fn a_program_that_closes_its_output_is_judged_by_how_it_ends_not_by_the_interactors_eof() {
    let Some(r) = kattis(
        "close-then-crash",
        &after_start("fclose(stdout); usleep(300000); abort();"),
    ) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::RuntimeError, "{}", r.error_log);
    let Some(r) = kattis(
        "close-then-sleep",
        &after_start("fclose(stdout); sleep(30);"),
    ) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::TimeLimitExceeded, "{}", r.error_log);
}

#[test]
fn a_crash_of_the_program_first_is_its_own_verdict() {
    let body = r#"printf("1\n"); fflush(stdout); *(volatile int *)0 = 1;"#;
    let Some(r) = kattis("crash", &after_start(body)) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::SegmentationFault, "{}", r.error_log);
}

/// Contained by whichever of its limits it meets first: its processes, its CPU time, or its
/// memory (the cgroup counts each process's kernel memory; a loaded CI host met that first).
#[test]
fn a_fork_bomb_beside_an_interactor_is_contained() {
    let Some(r) = kattis("forks", &after_start("for (;;) fork();")) else {
        return;
    };
    assert!(
        matches!(
            r.status,
            JudgeStatus::TimeLimitExceeded
                | JudgeStatus::RuntimeError
                | JudgeStatus::MemoryLimitExceeded
        ),
        "{:?}: {}",
        r.status,
        r.error_log
    );
}

#[test]
fn run_time_is_the_programs_cpu_and_never_the_interactors() {
    let Some(r) = judge_game(
        "burn",
        &searcher("", ""),
        KATTIS_INTERACTOR,
        Some("kattis"),
        &["burn"],
    ) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
    assert!(
        r.run_time < 75,
        "run_time {} includes the interactor's",
        r.run_time
    );
}

/// A Kattis-protocol interactor that looks for the program's secret once the program says
/// it wrote it: it reads the program's `ready`, then tries the program's box through every
/// `/proc/<pid>/{root,cwd}` it can see and walks its own file system (all but `/proc`, `/sys`,
/// `/dev` and the system's read-only trees) for a file named `secret*` holding the secret.
/// Seen: Wrong Answer naming the path; else it answers `ok` and accepts, saying how much it
/// looked at.
const PEEKER: &str = r#"
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
static long looked;
static char seen[4096];
static int holds_secret(const char *p) {
    char buf[32];
    FILE *s = fopen(p, "r");
    if (!s) return 0;
    int hit = fgets(buf, sizeof buf, s) && strstr(buf, "s3cret");
    fclose(s);
    if (hit) snprintf(seen, sizeof seen, "%s", p);
    return hit;
}
static int visit(const char *p, const struct stat *st, int type, struct FTW *f) {
    (void)st;
    const char *skip[] = {"/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/lib32", "/bin",
                          "/sbin", "/etc"};
    looked++;
    if (type == FTW_D)
        for (unsigned i = 0; i < sizeof skip / sizeof *skip; i++)
            if (!strcmp(p, skip[i])) return FTW_SKIP_SUBTREE;
    if (type == FTW_F && !strncmp(p + f->base, "secret", 6) && holds_secret(p)) return FTW_STOP;
    return FTW_CONTINUE;
}
int main(int argc, char **argv) {
    (void)argc;
    char path[4096], word[32];
    snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
    FILE *msg = fopen(path, "w");
    if (!msg || scanf("%31s", word) != 1 || strcmp(word, "ready")) return 1;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && (e = readdir(proc)) && !seen[0]) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        const char *forms[] = {"/proc/%s/root/box/secret.txt", "/proc/%s/cwd/secret.txt",
                               "/proc/%s/root/tmp/secret.txt"};
        for (int i = 0; i < 3 && !seen[0]; i++) {
            snprintf(path, sizeof path, forms[i], e->d_name);
            looked++;
            holds_secret(path);
        }
    }
    if (!seen[0]) nftw("/", visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
    if (seen[0]) { fprintf(msg, "saw the program's secret at %s", seen); return 43; }
    fprintf(msg, "looked at %ld paths, saw no secret", looked);
    printf("ok\n");
    fflush(stdout);
    return 42;
}
"#;

#[test]
fn an_interactor_cannot_see_the_programs_files() {
    // The program writes its secret (in its box and its /tmp) before it says `ready`, and
    // waits for the interactor's answer: the interactor looks only after reading `ready`, while
    // the program still runs, so the file exists when it looks (no race to pass by).
    let program = after_start_free(
        r#"const char *paths[] = {"secret.txt", "/tmp/secret.txt"};
           for (int i = 0; i < 2; i++) {
               FILE *s = fopen(paths[i], "w");
               if (!s || fputs("s3cret\n", s) < 0 || fclose(s)) return 2;
           }
           printf("ready\n");
           fflush(stdout);
           char r[32];
           if (scanf("%31s", r) != 1) return 3;"#,
    );
    let Some(r) = judge_game("peek", &program, PEEKER, Some("kattis"), &[]) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
    assert_log_has(&r.error_log, "saw no secret");
    // It did look: its own box and /tmp at least.
    let looked: u64 = r
        .error_log
        .split("looked at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(looked >= 5, "{}", r.error_log);
    // The exchange shows the order: ready, then the interactor's answer.
    assert!(
        r.error_log.contains("program -> interactor  \"ready\\n\"")
            && r.error_log.contains("interactor -> program  \"ok\\n\""),
        "{}",
        r.error_log
    );
}

#[test]
fn a_testlib_interactor_gives_full_and_partial_marks() {
    let Some(r) = testlib("testlib-ac", &searcher("", "")) else {
        return;
    };
    // 20 guesses for 777777 by binary search over a million: half marks.
    assert_scored(&r, JudgeStatus::PartialCorrect, "1/2");
    let linear = after_start(
        "for (int g = 777770;; g++) { printf(\"%d\\n\", g); fflush(stdout); \
         if (scanf(\"%31s\", r) != 1 || r[0] == 'c') break; }",
    );
    let r = testlib("testlib-fast", &linear).unwrap();
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
}
