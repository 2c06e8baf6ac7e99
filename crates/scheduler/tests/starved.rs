//! A run the host starves of CPU is never the program's Time Limit Exceeded (docs/sandbox.md,
//! Wall time): real programs beside real CPU hogs at nice -20. A binary of its own: the hogs
//! starve every box on the machine, and cargo runs test binaries one at a time, so no other
//! test's box runs beside them.

// Tests say `skipped: <reason>` on stdout when the host cannot sandbox.
#![allow(clippy::print_stdout)]

use serde_json::{Value, json};
use verdict_contracts::JudgeStatus;
use verdict_testkit::{judge_request, judge_with, statuses};

/// A submission of one C++ test of `source` under a `time_limit_ms` CPU limit.
fn one_test(sub_id: &str, source: &str, time_limit_ms: u64) -> Value {
    json!({"sub_type": "programming", "category": "starved", "prob_id": "loop",
        "sub_id": sub_id, "updated_at": 1,
        "judge_tasks": [
            {"check_script": "compile", "run_script": null, "compare_script": null,
             "is_random": false, "testcase_id": -1, "depends_on": -1, "depends_cond": null,
             "time_limit": 20000},
            {"check_script": "standard", "run_script": "standard", "compare_script": "diff-all",
             "is_random": false, "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED",
             "memory_limit": 262144, "time_limit": time_limit_ms, "file_limit": 1024,
             "proc_limit": 10}],
        "test_data": [{
            "inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"}]}],
        "submission": {"type": "source_code", "language": "cpp", "assist_files": [],
            "source_files": [{"type": "text", "name": "main.cpp", "text": source}]}})
}

/// Processes that keep every CPU busy at the highest priority, each in a session (and so a
/// scheduler autogroup) of its own at nice -20: a box beside them gets ~1% of a CPU. Killed on
/// drop. `None` (with `skipped:` printed) without root, a failure under
/// `VERDICT_REQUIRE_SANDBOX=1`.
struct Hogs(Vec<std::process::Child>);

impl Hogs {
    fn start() -> Option<Hogs> {
        let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
            status
                .lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
        });
        if !root {
            return verdict_testkit::skip_or_fail("CPU hogs at nice -20 need root", "not root");
        }
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let hogs = (0..cpus)
            .map(|_| {
                std::process::Command::new("setsid")
                    .args([
                        "nice",
                        "-n",
                        "-20",
                        "sh",
                        "-c",
                        "echo -20 > /proc/self/autogroup 2>/dev/null; while :; do :; done",
                    ])
                    .spawn()
                    .expect("spawn a hog")
            })
            .collect();
        Some(Hogs(hogs))
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
    }
}

#[test]
fn a_run_the_host_starves_of_cpu_is_never_the_programs_time_limit_exceeded() {
    let Some((judge, _dirs)) = judge_with(|c| c) else {
        return;
    };
    let looping = "int main(){ volatile unsigned long x = 0; for (;;) x++; }\n";
    let sleeping = "#include <unistd.h>\nint main(){ sleep(30); }\n";
    // Alone, a loop is stopped by its CPU limit and a sleeper by its wall clock: both TLE.
    for (id, source) in [("loop-alone", looping), ("sleep-alone", sleeping)] {
        let report = judge_request(&judge, &one_test(id, source, 200));
        assert_eq!(
            statuses(&report),
            [JudgeStatus::Accepted, JudgeStatus::TimeLimitExceeded],
            "{id}: {report:?}"
        );
    }
    let Some(_hogs) = Hogs::start() else {
        return;
    };
    // Beside the hogs the loop's wall clock runs out with its CPU time far under the limit,
    // twice: the host's failure. The sleeper waited for no CPU: still its own TLE.
    let report = judge_request(&judge, &one_test("loop-starved", looping, 200));
    assert_eq!(
        statuses(&report),
        [JudgeStatus::Accepted, JudgeStatus::SystemError],
        "{report:?}"
    );
    assert!(
        report.results[1]
            .error_log
            .contains("the host was too busy"),
        "{report:?}"
    );
    let report = judge_request(&judge, &one_test("sleep-starved", sleeping, 200));
    assert_eq!(
        statuses(&report),
        [JudgeStatus::Accepted, JudgeStatus::TimeLimitExceeded],
        "{report:?}"
    );
}
