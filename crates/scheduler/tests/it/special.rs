//! Memory, Google Test and static tests end to end (docs/special-tests.md): the
//! special examples of `examples/judge/` judged with the real tools, their reports checked
//! (counts, scores, params, priorities, error_log wording). The statuses alone are checked
//! by `examples.rs` with the other examples.

use crate::common::assert_scored;
use verdict_contracts::JudgeStatus;
use verdict_contracts::{
    GoogleTestReport, JudgeTaskResult, MemoryReport, StaticReport, TaskReport,
};

fn result(name: &str, task: usize) -> Option<&'static JudgeTaskResult> {
    // The examples module judges every example once; these tests read its reports.
    Some(&crate::examples::reports()?[name].results[task])
}

/// The result of task `task` of example `name`, checked to have `status` and `score`.
fn judged(
    name: &str,
    task: usize,
    status: JudgeStatus,
    score: &str,
) -> Option<&'static JudgeTaskResult> {
    let r = result(name, task)?;
    assert_scored(r, status, score);
    Some(r)
}

/// [`judged`], also checked to say `log` in its error log.
fn judged_saying(
    name: &str,
    task: usize,
    status: JudgeStatus,
    score: &str,
    log: &str,
) -> Option<&'static JudgeTaskResult> {
    let r = judged(name, task, status, score)?;
    assert_eq!(r.error_log, log);
    Some(r)
}

/// A gtest report's counts: total, passed, failed, disabled.
fn counts(g: &GoogleTestReport) -> (u32, u32, u32, u32) {
    (g.total_cases, g.pass_cases, g.error_cases, g.disabled_cases)
}

fn memory(r: &JudgeTaskResult) -> &MemoryReport {
    match &r.report {
        Some(TaskReport::Memory(m)) => m,
        other => panic!("expected a memory report, got {other:?} ({})", r.error_log),
    }
}

fn gtest(r: &JudgeTaskResult) -> &GoogleTestReport {
    match &r.report {
        Some(TaskReport::GoogleTest(g)) => g,
        other => panic!("expected a gtest report, got {other:?} ({})", r.error_log),
    }
}

fn static_report(r: &JudgeTaskResult) -> &StaticReport {
    match &r.report {
        Some(TaskReport::Static(s)) => s,
        other => panic!("expected a static report, got {other:?} ({})", r.error_log),
    }
}

/// The wire form of a report, as the platform receives it.
fn wire(r: &JudgeTaskResult) -> serde_json::Value {
    serde_json::to_value(r).expect("serialisable")
}

#[test]
fn a_clean_program_passes_its_memory_test() {
    let Some(r) = judged_saying(
        "memory-clean",
        2,
        JudgeStatus::Accepted,
        "1/1",
        "no memory errors (input: test datum 0)",
    ) else {
        return;
    };
    let report = memory(r);
    assert!(report.tool.starts_with("valgrind-3."), "{}", report.tool);
    assert_eq!(report.error_count, 0);
    assert!(report.errors.is_empty());
    // run_time and memory_used are the valgrind run's: valgrind itself takes tens of MB.
    assert!(r.memory_used > 20 * 1024, "memory_used {}", r.memory_used);
}

#[test]
fn each_leak_costs_ten_percent() {
    let Some(r) = judged_saying(
        "memory-leaking",
        2,
        JudgeStatus::PartialCorrect,
        "8/10",
        "2 memory errors: Leak_DefinitelyLost x2 (input: test datum 0)",
    ) else {
        return;
    };
    let report = memory(r);
    assert_eq!(report.error_count, 2);
    let mut leaks: Vec<(u64, u32)> = report
        .errors
        .iter()
        .map(|e| {
            assert_eq!(e.kind, "Leak_DefinitelyLost");
            assert_eq!(e.blocks_leaked, Some(1));
            // The debug build gives the allocating line in the student's file.
            let main = e
                .stack
                .iter()
                .find(|f| f.function.as_deref() == Some("main"))
                .expect("a main frame");
            assert_eq!(main.file.as_deref(), Some("main.cpp"));
            (e.bytes_leaked.expect("bytes"), main.line.expect("line"))
        })
        .collect();
    leaks.sort();
    assert_eq!(leaks, [(32, 6), (64, 5)]);
    let json = wire(r);
    assert_eq!(json["report"]["error_count"], 2);
    assert_eq!(json["score"], "8/10");
}

#[test]
fn memory_tests_use_random_data_of_the_parent_or_their_own() {
    let Some(under_random) = result("memory-random", 2) else {
        return;
    };
    let own = result("memory-random", 3).expect("judged");
    // The seed and the generator's command line say how to regenerate the input.
    let seed = |task| verdict_scheduler::random_seed("memory-random-1", task);
    assert_eq!(
        under_random.error_log,
        format!(
            "1 memory error: Leak_DefinitelyLost x1 (input: the random data of task 1, seed {0} (generator: ./main {0}))",
            seed(1)
        )
    );
    assert_eq!(
        own.error_log,
        format!(
            "1 memory error: Leak_DefinitelyLost x1 (input: the random data of task 3, seed {0} (generator: ./main {0}))",
            seed(3)
        )
    );
    for r in [under_random, own] {
        assert_eq!(r.score.to_string(), "9/10");
        // The generator writes 100 lines; the program leaks one block per line.
        assert_eq!(memory(r).errors[0].blocks_leaked, Some(100));
    }
}

#[test]
fn a_crash_under_valgrind_keeps_its_report() {
    let Some(r) = judged("memory-crash", 1, JudgeStatus::SegmentationFault, "0/1") else {
        return;
    };
    assert!(
        r.error_log.starts_with(
            "under valgrind: killed by signal SIGSEGV\n2 memory errors: InvalidWrite x2"
        ),
        "{}",
        r.error_log
    );
    assert!(
        !r.error_log.contains("=="),
        "valgrind's own commentary is left out: {}",
        r.error_log
    );
    let report = memory(r);
    let lines: Vec<_> = report
        .errors
        .iter()
        .map(|e| (e.kind.as_str(), e.stack[0].line))
        .collect();
    assert_eq!(
        lines,
        [("InvalidWrite", Some(6)), ("InvalidWrite", Some(9))]
    );
    assert!(
        report.errors[0]
            .what
            .contains("0 bytes after a block of size 16")
    );
}

#[test]
fn the_time_limit_is_scaled_under_valgrind() {
    let Some(r) = judged(
        "memory-time-limit",
        1,
        JudgeStatus::TimeLimitExceeded,
        "0/1",
    ) else {
        return;
    };
    // time_limit 100 ms x valgrind_time_factor 10; memory_limit + 256 MB.
    let (ending, limits) = r.error_log.split_once('\n').expect("two parts");
    assert_eq!(
        limits,
        "limits under valgrind: 1000 ms CPU, 327680 KB\ninput: test datum 0"
    );
    // A host too loaded to give the loop its CPU ends it at the wall limit (3 x CPU) first.
    if ending == "under valgrind: wall time over 3000 ms (the program was waiting, not computing)" {
        return;
    }
    assert_eq!(ending, "under valgrind: CPU time over 1000 ms");
    assert!(
        (1000..=1300).contains(&r.run_time),
        "run_time {}",
        r.run_time
    );
}

#[test]
fn a_passing_gtest_suite_is_accepted_with_passed_over_total() {
    let Some(r) = judged_saying(
        "gtest-all-pass",
        1,
        JudgeStatus::Accepted,
        "8/8",
        "8 of 8 test cases passed (0 failed, 0 disabled)",
    ) else {
        return;
    };
    let g = gtest(r);
    assert_eq!(counts(g), (8, 8, 0, 0));
    assert!(g.report.is_empty());
}

#[test]
fn a_partly_passing_gtest_suite_counts_disabled_tests_in_the_total() {
    let Some(r) = judged_saying(
        "gtest-partial",
        1,
        JudgeStatus::PartialCorrect,
        "4/9",
        "4 of 9 test cases passed (4 failed, 1 disabled)",
    ) else {
        return;
    };
    let g = gtest(r);
    assert_eq!(counts(g), (9, 4, 4, 1));
    let plain = &g.report[0];
    assert_eq!(
        (plain.suite.as_str(), plain.case.as_str()),
        ("Adder", "addOneTo41")
    );
    assert_eq!(plain.param, None);
    assert!(
        plain.message.starts_with("test.cpp:5\n"),
        "{}",
        plain.message
    );
    assert!(plain.message.contains("Which is: 41"), "{}", plain.message);
    let param = &g.report[1];
    assert_eq!(param.suite, "AdderTestWithParam/AdderTest");
    assert_eq!(param.case, "addOne/0");
    assert_eq!(param.param.as_deref(), Some("0"));
    assert!(
        param.message.starts_with("test.cpp:9\n"),
        "{}",
        param.message
    );
    let json = wire(r);
    assert_eq!(json["report"]["report"][1]["param"], "0");
    assert!(json["report"]["report"][0].get("param").is_none());
}

#[test]
fn run_args_reach_the_test_binary() {
    let Some(r) = result("gtest-partial", 2) else {
        return;
    };
    assert_eq!(r.score.to_string(), "5/9", "{}", r.error_log);
    assert_eq!(r.status, JudgeStatus::PartialCorrect);
    let g = gtest(r);
    assert_eq!(counts(g), (9, 5, 4, 0));
}

#[test]
fn a_crashing_test_binary_reports_the_cases_it_finished() {
    let Some(r) = judged("gtest-crash", 1, JudgeStatus::PartialCorrect, "2/4") else {
        return;
    };
    assert_eq!(
        r.error_log,
        "2 of 4 test cases passed (2 failed, 0 disabled)\n\
         the test binary crashed (killed by signal SIGSEGV)\n\
         it wrote no XML report; the report comes from the console output and covers the tests that finished"
    );
    let g = gtest(r);
    assert_eq!((g.total_cases, g.pass_cases, g.error_cases), (4, 2, 2));
    assert_eq!(
        (g.report[0].suite.as_str(), g.report[0].case.as_str()),
        ("Crash", "boom")
    );
}

#[test]
fn a_test_file_with_its_own_main_reads_the_test_datum() {
    let Some(r) = result("gtest-own-main", 1) else {
        return;
    };
    // The first test compares with the 42 read from testdata.in by the test file's main.
    assert_scored(r, JudgeStatus::Accepted, "2/2");
    let g = gtest(r);
    assert_eq!((g.total_cases, g.pass_cases), (2, 2));
}

/// Whether the static report came from clang-tidy (the examples' expectations assume it;
/// a host with oclint installed picks oclint instead).
#[allow(clippy::print_stdout)] // `skipped:` lines are how these tests report a skip
fn by_clang_tidy(r: &JudgeTaskResult) -> bool {
    let used = static_report(r).version.starts_with("clang-tidy ");
    if !used {
        println!(
            "skipped: the static analyser here is {}, not clang-tidy",
            static_report(r).version
        );
    }
    used
}

#[test]
fn clean_code_has_no_findings() {
    let Some(r) = result("static-clean", 1) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::Accepted, "{}", r.error_log);
    if !by_clang_tidy(r) {
        return;
    }
    let s = static_report(r);
    assert_eq!(r.score.to_string(), "1/1");
    assert_eq!(r.error_log, format!("{}: no findings", s.version));
    assert!(s.violation.is_empty());
    assert_eq!(s.summary.number_of_files, 2);
    assert_eq!(s.summary.number_of_files_with_violations, 0);
    assert_eq!(s.url, "https://clang.llvm.org/extra/clang-tidy/");
}

#[test]
fn ordinary_c_costs_nothing() {
    let Some(r) = result("static-clean-c", 1) else {
        return;
    };
    if !by_clang_tidy(r) {
        return;
    }
    // scanf into uninitialised variables, an adder(a, b), rand() and strcpy are no findings.
    assert_scored(r, JudgeStatus::Accepted, "1/1");
    let costly: Vec<_> = static_report(r)
        .violation
        .iter()
        .filter(|v| v.priority < 3)
        .collect();
    assert!(costly.is_empty(), "{costly:?}");
}

#[test]
fn findings_cost_twenty_and_ten_percent_by_priority() {
    let Some(r) = result("static-findings", 1) else {
        return;
    };
    if !by_clang_tidy(r) {
        return;
    }
    let s = static_report(r);
    // One priority-1 finding (a garbage value used) and three priority-2 ones: 10 - 2 - 3.
    assert_scored(r, JudgeStatus::PartialCorrect, "5/10");
    assert_eq!(
        r.error_log,
        format!(
            "{}: 4 findings (priority 1: 1, priority 2: 3, priority 3: 0)",
            s.version
        )
    );
    let found: Vec<(&str, u32, &str, u8)> = s
        .violation
        .iter()
        .map(|v| (v.path.as_str(), v.start_line, v.rule.as_str(), v.priority))
        .collect();
    assert_eq!(
        found,
        [
            (
                "employee.hpp",
                5,
                "cppcoreguidelines-virtual-class-destructor",
                2
            ),
            (
                "employee.hpp",
                16,
                "cppcoreguidelines-virtual-class-destructor",
                2
            ),
            (
                "employee.hpp",
                22,
                "cppcoreguidelines-virtual-class-destructor",
                2
            ),
            (
                "main.cpp",
                7,
                "clang-analyzer-core.UndefinedBinaryOperatorResult",
                1
            ),
        ]
    );
    assert_eq!(
        s.violation[0].message,
        "destructor of 'Employee' is public and non-virtual"
    );
    let json = wire(r);
    let counts = &json["report"]["summary"]["numberOfViolationsWithPriority"];
    assert_eq!(counts[0], serde_json::json!({"number": 1, "priority": 1}));
    assert_eq!(counts[1], serde_json::json!({"number": 3, "priority": 2}));
    assert_eq!(json["report"]["summary"]["numberOfFilesWithViolations"], 2);
    assert_eq!(json["report"]["violation"][0]["startLine"], 5);
}

#[test]
fn static_tests_refuse_other_languages() {
    let Some(r) = result("static-unsupported-language", 1) else {
        return;
    };
    assert_eq!(r.status, JudgeStatus::SystemError);
    assert_eq!(
        r.error_log,
        "static tests support c and cpp (the submission is python3)"
    );
}
