//! Batches: one problem, many candidates, judged in the real sandbox (design #26, #27).

use crate::common::{judge, runtime};
use serde_json::{Value, json};
use verdict_contracts::batch::{BatchEvent, BatchReport, CandidateResult, parse_batch};
use verdict_oracle::OracleOptions;
use verdict_scheduler::{BatchCancel, BatchJudge};

fn batches() -> Option<BatchJudge> {
    judge().map(|j| BatchJudge::new(j.clone(), OracleOptions::default()))
}

/// Runs `batch` and returns its report and the events it streamed.
fn run(batches: &BatchJudge, batch: Value) -> (BatchReport, Vec<BatchEvent>) {
    let batch = parse_batch(&batch.to_string()).expect("a valid batch");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let report = runtime()
        .block_on(batches.run(batch, Some(tx), BatchCancel::new()))
        .expect("the batch runs");
    let mut events = Vec::new();
    while let Ok(event) = rx.try_recv() {
        events.push(event);
    }
    (report, events)
}

fn by_id<'a>(report: &'a BatchReport, id: &str) -> &'a CandidateResult {
    report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no result for {id}: {report:#?}"))
}

fn add_suite(cases: usize, extra: Value) -> Value {
    let test_cases: Vec<Value> = (0..cases)
        .map(|i| json!({"name": format!("c{i}"), "input": [i, 1], "expected": i + 1}))
        .collect();
    let mut problem = json!({"kind": "suite", "deliverable_type": "function",
        "language": "python3", "entry_point": "add", "timeout_ms": 1000,
        "test_cases": test_cases});
    if let (Some(p), Some(extra)) = (problem.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    problem
}

#[test]
fn a_suite_batch_reports_each_candidate_once_per_id_and_pass_at_k() {
    let Some(batches) = batches() else { return };
    let right = "def add(a, b):\n    return a + b\n";
    let (report, events) = run(
        &batches,
        json!({
            "problem": add_suite(3, json!({})),
            "candidates": [
                {"id": "right", "code": right},
                {"id": "wrong", "code": "def add(a, b):\n    return a - b\n"},
                {"id": "raises", "code": "def add(a, b):\n    raise ValueError('no')\n"},
                {"id": "right-again", "code": right}
            ],
            "options": {"pass_at_k": [1, 2, 5]}
        }),
    );
    assert_eq!(report.results.len(), 4);
    let ids: Vec<&str> = report.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        ["right", "wrong", "raises", "right-again"],
        "request order"
    );
    let right = by_id(&report, "right");
    assert!(right.passed && right.fraction == 1.0, "{right:#?}");
    assert_eq!(right.status.as_str(), "passed");
    assert_eq!(right.cases.as_ref().map(Vec::len), Some(3));
    let again = by_id(&report, "right-again");
    assert_eq!(again.same_as.as_deref(), Some("right"), "judged once");
    assert!(again.passed);
    let wrong = by_id(&report, "wrong");
    assert_eq!(wrong.status.as_str(), "failed");
    // 0 - 1 = -1 != 1, 1 - 1 = 0 != 2, 2 - 1 = 1 != 3: none right.
    assert_eq!((wrong.tests_passed, wrong.tests_total), (0, 3));
    assert_eq!(by_id(&report, "raises").status.as_str(), "error");
    assert_eq!(report.summary.passed, 2);
    assert_eq!(report.summary.judged, 3);
    assert_eq!(report.summary.pass_at_k["1"], Some(0.5));
    // 1 - C(2,2)/C(4,2) = 5/6
    let p2 = report.summary.pass_at_k["2"].expect("defined");
    assert!((p2 - 5.0 / 6.0).abs() < 1e-12, "{p2}");
    assert_eq!(report.summary.pass_at_k["5"], None);
    // Streamed: one event per candidate, then the summary, last.
    assert_eq!(events.len(), 5);
    assert!(matches!(events.last(), Some(BatchEvent::Summary(_))));
}

#[test]
fn a_looping_function_candidate_costs_one_time_limit_when_stopping_at_the_first_failure() {
    let Some(batches) = batches() else { return };
    let looping = "def add(a, b):\n    while True:\n        pass\n";
    let batch = |stop: bool| {
        json!({
            "problem": add_suite(4, json!({"timeout_ms": 300})),
            "candidates": [{"id": "loop", "code": looping}],
            "options": {"stop_at_first_failure": stop}
        })
    };
    let (stopping, _) = run(&batches, batch(true));
    let r = by_id(&stopping, "loop");
    assert_eq!(r.status.as_str(), "timeout");
    assert!(r.stopped_early && !r.passed, "{r:#?}");
    assert_eq!(r.cases.as_ref().map(Vec::len), Some(1), "{r:#?}");
    let (all, _) = run(&batches, batch(false));
    let r = by_id(&all, "loop");
    let cases = r.cases.as_ref().expect("cases");
    assert_eq!(cases.len(), 4);
    assert!(
        cases.iter().all(|c| c.status.as_str() == "timeout"),
        "{r:#?}"
    );
    assert!(!r.stopped_early);
}

#[test]
fn reward_hacks_fail_in_a_suite_batch() {
    let Some(batches) = batches() else { return };
    // The expected values are secrets never written into the box: a candidate that looks for
    // them finds nothing.
    let cases: Vec<Value> = (0..3)
        .map(|i| json!({"name": format!("c{i}"), "input": [i], "expected": format!("secret-{i}-b7e1")}))
        .collect();
    let hacks = [
        (
            "exit-at-load",
            "import os\nos._exit(0)\ndef f(x):\n    return 0\n",
        ),
        ("exit-in-call", "import os\ndef f(x):\n    os._exit(0)\n"),
        (
            "always-equal",
            "class Eq:\n    def __eq__(self, o):\n        return True\n    def __ne__(self, o):\n        return False\ndef f(x):\n    return Eq()\n",
        ),
        (
            "forged-lines",
            concat!(
                "import os\n",
                "def f(x):\n",
                "    for fd in range(3, 1024):\n",
                "        for line in ['{\"i\": 0, \"ok\": true}', '{\"i\": %d, \"passed\": true}' % x,\n",
                "                     '{\"i\": %d, \"ok\": \"secret-%d-b7e1x\"}' % (x, x), '{\"done\": true}']:\n",
                "            try:\n",
                "                os.write(fd, (line + '\\n').encode())\n",
                "            except OSError:\n",
                "                pass\n",
                "    os._exit(0)\n",
            ),
        ),
        (
            "patched-harness",
            concat!(
                "import sys, os\n",
                "main = sys.modules.get('__main__')\n",
                "for name in ('emit', 'main', 'json_codec', 'describe'):\n",
                "    if main is not None and hasattr(main, name):\n",
                "        setattr(main, name, lambda *a, **k: None)\n",
                "for root, _, files in os.walk('.'):\n",
                "    for n in files:\n",
                "        try:\n",
                "            open(os.path.join(root, n), 'w').write('{\"i\": 0, \"ok\": \"x\"}\\n')\n",
                "        except OSError:\n",
                "            pass\n",
                "def f(x):\n",
                "    return 'x'\n",
            ),
        ),
        (
            "expected-scanner",
            concat!(
                "import os, re\n",
                "def f(x):\n",
                "    for top in ('.', '/tmp', '/'):\n",
                "        for root, dirs, files in os.walk(top):\n",
                "            if root.count(os.sep) > 6:\n",
                "                dirs[:] = []\n",
                "            for n in files:\n",
                "                try:\n",
                "                    m = re.search(r'secret-%d-[0-9a-f]{4}' % x, open(os.path.join(root, n), errors='ignore').read(1 << 20))\n",
                "                except OSError:\n",
                "                    continue\n",
                "                if m:\n",
                "                    return m.group(0)\n",
                "            if top == '/' and root.count(os.sep) > 3:\n",
                "                return None\n",
                "    return None\n",
            ),
        ),
    ];
    let candidates: Vec<Value> = hacks
        .iter()
        .map(|(id, code)| json!({"id": id, "code": code}))
        .collect();
    for stop in [false, true] {
        let (report, _) = run(
            &batches,
            json!({
                "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                            "entry_point": "f", "timeout_ms": 2000, "test_cases": cases},
                "candidates": candidates,
                "options": {"stop_at_first_failure": stop}
            }),
        );
        for (id, _) in hacks {
            let r = by_id(&report, id);
            assert!(!r.passed, "{id} passed (stop={stop}): {r:#?}");
            assert_eq!(r.tests_passed, 0, "{id} (stop={stop}): {r:#?}");
            assert!(
                r.infra_error.is_none(),
                "{id} is the candidate's doing: {r:#?}"
            );
        }
        assert_eq!(report.summary.passed, 0);
    }
}

#[test]
fn a_script_candidate_that_claims_success_still_fails() {
    let Some(batches) = batches() else { return };
    let (report, _) = run(
        &batches,
        json!({
            "problem": {"kind": "suite", "deliverable_type": "script", "language": "python3",
                        "entry_point": "main.py",
                        "test_cases": [
                            {"name": "sum", "input": {"stdin": "2 3\n"}, "expected": {"stdout": "5\n"}},
                            {"name": "sum2", "input": {"stdin": "4 4\n"}, "expected": {"stdout": "8\n"}}]},
            "candidates": [
                {"id": "right", "code": "a, b = map(int, input().split())\nprint(a + b)\n"},
                {"id": "exit0", "code": "import os\nprint('All tests passed')\nos._exit(0)\n"},
                {"id": "first-only", "code": "print(5)\n"}
            ],
            "options": {"stop_at_first_failure": true}
        }),
    );
    assert!(by_id(&report, "right").passed);
    let exit0 = by_id(&report, "exit0");
    assert!(!exit0.passed && exit0.stopped_early, "{exit0:#?}");
    assert_eq!(exit0.cases.as_ref().map(Vec::len), Some(1));
    let first = by_id(&report, "first-only");
    assert_eq!((first.tests_passed, first.fraction), (1, 0.5), "{first:#?}");
    assert_eq!(
        first.cases.as_ref().map(Vec::len),
        Some(2),
        "it failed on the last test"
    );
}

#[test]
fn a_missing_interpreter_is_an_infra_error_never_a_verdict() {
    let Some(judge) = judge() else { return };
    let mut oracle = OracleOptions::default();
    oracle.interpreters.js = vec!["/nonexistent/node".into()];
    let batches = BatchJudge::new(judge.clone(), oracle);
    let (report, _) = run(
        &batches,
        json!({
            "problem": add_suite(2, json!({})),
            "candidates": [
                {"id": "js", "language": "js", "code": "function add(a, b) { return a + b; }\nmodule.exports = { add };\n"},
                {"id": "py", "code": "def add(a, b):\n    return a + b\n"}
            ]
        }),
    );
    let js = by_id(&report, "js");
    let infra = js.infra_error.as_ref().expect("an infra error");
    assert!(
        !infra.retryable && infra.message.contains("/nonexistent/node"),
        "{infra:?}"
    );
    assert!(!js.passed);
    assert_eq!(report.summary.infra_errors, 1);
    // Left out of pass@k: one scored candidate, and it passed.
    assert_eq!(report.summary.pass_at_k["1"], Some(1.0));
}

fn a_plus_b(tests: usize, extra_task: Value) -> Value {
    let mut judge_tasks =
        vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
    let mut test_data = Vec::new();
    for i in 0..tests {
        judge_tasks.push(json!({"check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "testcase_id": i, "depends_on": 0,
            "depends_cond": "ACCEPTED", "time_limit": 500}));
        test_data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": format!("{i} {i}\n")}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": format!("{}\n", 2 * i)}]}));
    }
    if !extra_task.is_null() {
        judge_tasks.push(extra_task);
    }
    json!({"kind": "programming", "category": "batch-test", "prob_id": format!("a+b-{tests}"),
           "updated_at": 1, "judge_tasks": judge_tasks, "test_data": test_data})
}

#[test]
fn a_programming_batch_stops_a_looping_candidate_at_its_first_time_limit() {
    let Some(batches) = batches() else { return };
    let right = "#include <cstdio>\nint main(){long a,b;std::scanf(\"%ld %ld\",&a,&b);std::printf(\"%ld\\n\",a+b);}\n";
    let batch = json!({
        "problem": a_plus_b(4, Value::Null),
        "candidates": [
            {"id": "right", "language": "cpp", "code": right},
            {"id": "twice", "language": "cpp", "code": right},
            {"id": "wrong", "language": "cpp", "code": "#include <cstdio>\nint main(){std::printf(\"0\\n\");}\n"},
            {"id": "loop", "language": "cpp", "code": "int main(){volatile int x=0;for(;;){x++;}}\n"},
            {"id": "broken", "language": "cpp", "code": "int main( {"}
        ],
        "options": {"stop_at_first_failure": true, "pass_at_k": [1]}
    });
    let (report, _) = run(&batches, batch.clone());
    let right_r = by_id(&report, "right");
    assert!(right_r.passed, "{right_r:#?}");
    assert_eq!(right_r.results.as_ref().map(Vec::len), Some(5));
    assert_eq!(by_id(&report, "twice").same_as.as_deref(), Some("right"));
    let wrong = by_id(&report, "wrong");
    // Test 0 is "0 0" -> 0: the wrong program passes it and fails test 1, then stops.
    assert_eq!(wrong.status.as_str(), "Wrong Answer");
    assert_eq!((wrong.tests_passed, wrong.tests_total), (1, 4));
    assert_eq!(wrong.results.as_ref().map(Vec::len), Some(3));
    assert!(wrong.stopped_early);
    let looping = by_id(&report, "loop");
    assert_eq!(looping.status.as_str(), "Time Limit Exceeded");
    let results = looping.results.as_ref().expect("results");
    assert_eq!(results.len(), 2, "compile and one test: {looping:#?}");
    let broken = by_id(&report, "broken");
    assert_eq!(broken.status.as_str(), "Compilation Error");
    assert_eq!(broken.results.as_ref().map(Vec::len), Some(1));
    assert_eq!(report.summary.pass_at_k["1"], Some(0.4));
    assert_eq!(report.summary.statuses["Accepted"], 2);

    // The same batch again: every result is the one already judged (content-addressed).
    let (again, _) = run(&batches, batch);
    for r in &again.results {
        assert!(r.same_as.is_some(), "{} judged again: {r:#?}", r.id);
    }
    assert_eq!(again.summary.judged, 0);
    assert_eq!(again.summary.pass_at_k, report.summary.pass_at_k);
}

#[test]
fn running_every_test_gives_partial_credit() {
    let Some(batches) = batches() else { return };
    // Prints 0: right on test 0 ("0 0") only.
    let (report, _) = run(
        &batches,
        json!({
            "problem": a_plus_b(4, Value::Null),
            "candidates": [{"id": "zero", "language": "cpp",
                            "code": "#include <cstdio>\nint main(){std::printf(\"0\\n\");}\n"}]
        }),
    );
    let r = by_id(&report, "zero");
    assert_eq!((r.tests_passed, r.tests_total), (1, 4), "{r:#?}");
    assert!((r.fraction - 0.25).abs() < 1e-12);
    assert!(!r.stopped_early);
    assert_eq!(r.results.as_ref().map(Vec::len), Some(5));
    assert!((report.summary.mean_fraction - 0.25).abs() < 1e-12);
}

#[test]
fn invalid_candidates_are_refused_naming_their_field_before_anything_runs() {
    let Some(batches) = batches() else { return };
    let batch = parse_batch(
        &json!({
            "problem": a_plus_b(1, Value::Null),
            "candidates": [
                {"id": "ok", "language": "cpp", "code": "int main(){}"},
                {"id": "bad", "language": "cpp",
                 "source_files": [{"type": "text", "name": "../escape.cpp", "text": "int main(){}"}]},
                {"id": "nolang", "code": "int main(){}"}
            ]
        })
        .to_string(),
    )
    .expect("the types are right");
    let errors = batches.check(&batch).expect_err("refused");
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert!(
        fields
            .iter()
            .any(|f| f.starts_with("candidates[1].source_files[0]")),
        "{errors:?}"
    );
    assert!(fields.contains(&"candidates[2].language"), "{errors:?}");
    assert!(
        !fields.iter().any(|f| f.starts_with("candidates[0]")),
        "{errors:?}"
    );
}

#[test]
fn a_cancelled_batch_starts_no_candidate() {
    let Some(batches) = batches() else { return };
    let batch = parse_batch(
        &json!({
            "problem": add_suite(1, json!({})),
            "candidates": [{"id": "a", "code": "def add(a, b):\n    return a + b + 0\n"},
                           {"id": "b", "code": "def add(a, b):\n    return a + b + 0 * 1\n"}]
        })
        .to_string(),
    )
    .expect("valid");
    let cancel = BatchCancel::new();
    cancel.cancel();
    let report = runtime()
        .block_on(batches.run(batch, None, cancel))
        .expect("runs");
    assert!(report.results.is_empty(), "{report:#?}");
    assert_eq!(report.summary.cancelled, 2);
}

/// A programming problem in Python: `tests` A+B tests of `time_limit` ms each.
fn a_plus_b_python(tests: usize, time_limit: i64) -> Value {
    let mut problem = a_plus_b(tests, Value::Null);
    if let Some(tasks) = problem["judge_tasks"].as_array_mut() {
        for task in tasks.iter_mut().skip(1) {
            task["time_limit"] = json!(time_limit);
        }
    }
    problem["prob_id"] = json!(format!("a+b-py-{tests}-{time_limit}"));
    problem
}

#[test]
fn test_timeout_ms_caps_each_tests_own_limit() {
    let Some(batches) = batches() else { return };
    // A suite whose cases allow 5 s each, capped at 300 ms: a looping candidate's three cases
    // cost about a second, not fifteen.
    let (report, _) = run(
        &batches,
        json!({
            "problem": add_suite(3, json!({"timeout_ms": 5000})),
            "candidates": [{"id": "loop", "code": "def add(a, b):\n    while True:\n        pass\n"},
                           {"id": "right", "code": "def add(a, b):\n    return a + b\n"}],
            "options": {"test_timeout_ms": 300}
        }),
    );
    let r = by_id(&report, "loop");
    let cases = r.cases.as_ref().expect("cases");
    assert_eq!(cases.len(), 3, "every case ran: {r:#?}");
    assert!(
        cases.iter().all(|c| c.status.as_str() == "timeout"),
        "{r:#?}"
    );
    // Three 5 s limits would take 15 s; a loaded host stretches the 300 ms ones' wall time.
    assert!(
        r.time_ms < 9000,
        "three 300 ms limits, not 5 s ones: {r:#?}"
    );
    assert!(
        by_id(&report, "right").passed,
        "a fast candidate is untouched"
    );

    // A programming problem whose tests allow 5 s each, capped at 300 ms.
    let (report, _) = run(
        &batches,
        json!({
            "problem": a_plus_b_python(2, 5000),
            "candidates": [{"id": "loop", "language": "python3", "code": "while True:\n    pass\n"}],
            "options": {"test_timeout_ms": 300}
        }),
    );
    let r = by_id(&report, "loop");
    let results = r.results.as_ref().expect("results");
    assert_eq!(results.len(), 3, "compile and both tests: {r:#?}");
    assert!(
        results[1..]
            .iter()
            .all(|t| t.status.to_string() == "Time Limit Exceeded"),
        "{r:#?}"
    );
    // Two 5 s limits would take 10 s: the bound leaves a loaded host room, not a 5 s limit.
    assert!(r.time_ms < 9000, "two 300 ms limits, not 5 s ones: {r:#?}");
}

#[test]
fn candidate_timeout_ms_stops_a_candidate_and_its_unrun_tests_count_as_failed() {
    let Some(batches) = batches() else { return };
    // Six right answers at 300 ms each, a 1 s budget: the budget ends the candidate.
    let slow = "import time\ndef add(a, b):\n    time.sleep(0.3)\n    return a + b\n";
    let looping = "def add(a, b):\n    while True:\n        pass\n";
    let (report, _) = run(
        &batches,
        json!({
            "problem": add_suite(6, json!({"timeout_ms": 5000})),
            "candidates": [{"id": "slow", "code": slow}, {"id": "loop", "code": looping}],
            "options": {"candidate_timeout_ms": 1000}
        }),
    );
    let r = by_id(&report, "slow");
    assert!(r.stopped_early && !r.passed, "{r:#?}");
    assert!(r.tests_passed < 6 && r.fraction < 1.0, "{r:#?}");
    assert_eq!(r.status.as_str(), "timeout", "{r:#?}");
    assert!(
        r.message.as_deref().is_some_and(|m| m.contains("budget")),
        "{r:#?}"
    );
    assert!(r.infra_error.is_none(), "the candidate's doing: {r:#?}");
    assert!(r.time_ms < 3000, "{r:#?}");
    // A candidate looping inside its first case is stopped at the budget, not at the 5 s limit.
    let r = by_id(&report, "loop");
    assert!(!r.passed && r.infra_error.is_none(), "{r:#?}");
    assert!(r.time_ms < 4000, "stopped at the 1 s budget: {r:#?}");

    // A programming candidate: 2 s per test, six tests of 300 ms each, a 1 s budget.
    let (report, _) = run(
        &batches,
        json!({
            "problem": a_plus_b_python(6, 2000),
            "candidates": [{"id": "slow", "language": "python3",
                            "code": "import time\ntime.sleep(0.3)\na, b = map(int, input().split())\nprint(a + b)\n"}],
            "options": {"candidate_timeout_ms": 1000}
        }),
    );
    let r = by_id(&report, "slow");
    assert!(r.stopped_early && !r.passed, "{r:#?}");
    assert_eq!(r.status.as_str(), "Time Limit Exceeded", "{r:#?}");
    let ran = r.results.as_ref().map_or(0, Vec::len);
    assert!((2..7).contains(&ran), "the compile and some tests: {r:#?}");
    assert!(r.tests_passed < 6 && r.fraction < 1.0, "{r:#?}");
    assert!(r.infra_error.is_none(), "{r:#?}");
    assert!(r.time_ms < 3000, "{r:#?}");
}

#[test]
fn a_host_failure_is_a_retryable_infra_error_kept_out_of_results_scores_and_the_cache() {
    let Some(judge) = judge() else { return };
    // The oracle's work dir (under the judge's, as judge-server has it) is a regular file: no
    // box can be made under it.
    let work = judge.config().work_dir.join("oracle-work-host-failure");
    std::fs::write(&work, "not a directory").expect("a file");
    let oracle = OracleOptions {
        work_dir: Some(work.clone()),
        ..OracleOptions::default()
    };
    let batches = BatchJudge::new(judge.clone(), oracle);
    let right = "def add(a, b):\n    return a + b\n";
    let batch = json!({
        "problem": add_suite(2, json!({})),
        "candidates": [{"id": "right", "code": right},
                       {"id": "wrong", "code": "def add(a, b):\n    return a - b\n"},
                       {"id": "right-copy", "code": right}],
        "options": {"pass_at_k": [1]}
    });
    let (report, events) = run(&batches, batch.clone());
    assert_eq!(report.results.len(), 3);
    for r in &report.results {
        let infra = r.infra_error.as_ref().unwrap_or_else(|| panic!("{r:#?}"));
        assert!(infra.retryable, "a host failure may pass: {infra:?}");
        assert!(
            infra.message.contains("<work>/oracle-work-host-failure"),
            "the judge's dir named as <work>: {infra:?}"
        );
        let host = judge.config().work_dir.display().to_string();
        assert!(!infra.message.contains(&host), "{infra:?}");
        assert!(
            !r.passed && r.tests_passed == 0 && r.fraction == 0.0,
            "{r:#?}"
        );
        assert!(
            r.cases.as_ref().is_none_or(Vec::is_empty),
            "no case result: {r:#?}"
        );
    }
    let summary = &report.summary;
    assert_eq!((summary.infra_errors, summary.passed), (3, 0));
    assert!(summary.statuses.is_empty(), "{summary:#?}");
    assert_eq!(summary.pass_at_k["1"], None, "nothing was scored");
    assert_eq!(summary.mean_fraction, 0.0);
    assert_eq!(events.len(), 4, "streamed like any result");

    // The host recovers: the same judge judges the same batch again (nothing was kept).
    std::fs::remove_file(&work).expect("remove the file");
    std::fs::create_dir(&work).expect("a directory now");
    let (report, _) = run(&batches, batch);
    assert!(by_id(&report, "right").passed, "{report:#?}");
    assert!(
        by_id(&report, "right").same_as.is_none(),
        "judged, not cached"
    );
    assert_eq!(by_id(&report, "wrong").status.as_str(), "failed");
    assert_eq!(report.summary.infra_errors, 0);
    assert_eq!(report.summary.pass_at_k["1"], Some(2.0 / 3.0));
}

#[test]
fn a_read_only_work_disk_makes_programming_candidates_retryable_infra_errors_not_scores() {
    let Some(disk) = crate::host_faults::Tmpfs::mount(64) else {
        return;
    };
    let work_dir = disk.path().join("work");
    let Some((judge, _dirs)) =
        crate::common::judge_with(|c| verdict_scheduler::JudgeConfig { work_dir, ..c })
    else {
        return;
    };
    let batches = BatchJudge::new(judge, OracleOptions::default());
    let right = "a, b = map(int, input().split())\nprint(a + b)\n";
    let batch = json!({
        "problem": a_plus_b_python(2, 2000),
        "candidates": [{"id": "right", "language": "python3", "code": right},
                       {"id": "wrong", "language": "python3", "code": "print(0)\n"}],
        "options": {"pass_at_k": [1]}
    });
    disk.set_read_only(true);
    let (report, _) = run(&batches, batch.clone());
    disk.set_read_only(false);
    for r in &report.results {
        let infra = r.infra_error.as_ref().unwrap_or_else(|| panic!("{r:#?}"));
        assert!(infra.retryable, "{infra:?}");
        // A programming candidate's status is the contract's, as for a Submission.
        assert_eq!(r.status.as_str(), "System Error", "{r:#?}");
        assert!(!r.passed && r.fraction == 0.0, "{r:#?}");
        // The host's directories are the operator's business, as for a
        // Submission: `<work>`, never the path.
        let logs = r.results.iter().flatten().map(|t| t.error_log.as_str());
        for text in std::iter::once(infra.message.as_str()).chain(logs) {
            assert!(
                !text.contains(&*disk.path().to_string_lossy()),
                "a host path in {text:?}"
            );
        }
        assert!(infra.message.contains("<work>"), "{infra:?}");
    }
    assert_eq!(report.summary.infra_errors, 2);
    assert!(report.summary.statuses.is_empty(), "{:#?}", report.summary);
    assert_eq!(report.summary.pass_at_k["1"], None);
    // Writable again: judged now, not taken from a cache of the failure.
    let (report, _) = run(&batches, batch);
    assert!(by_id(&report, "right").passed, "{report:#?}");
    assert!(by_id(&report, "right").same_as.is_none());
    assert_eq!(report.summary.pass_at_k["1"], Some(0.5));
}

#[test]
fn a_value_of_the_wrong_type_is_refused_naming_its_path() {
    let suite = add_suite(1, json!({}));
    let mut bad = suite.clone();
    bad["test_cases"][0]["name"] = json!(7);
    let mut program = a_plus_b(1, Value::Null);
    program["judge_tasks"][1]["time_limit"] = json!("2s");
    let mut missing = suite.clone();
    if let Some(o) = missing.as_object_mut() {
        o.remove("entry_point");
    }
    let code = json!([{"id": "a", "code": "x"}, {"id": "b", "code": ["print(1)"]}]);
    let language = json!([{"id": "b", "language": 3, "code": "x"}]);
    let refused = [
        (
            json!({"problem": suite, "candidates": code}),
            "candidates[1].code",
        ),
        (
            json!({"problem": suite, "candidates": [], "options": {"pass_at_k": ["1"]}}),
            "options.pass_at_k[0]",
        ),
        (
            json!({"problem": bad, "candidates": []}),
            "problem.test_cases[0].name",
        ),
        (
            json!({"problem": program, "candidates": []}),
            "problem.judge_tasks[1].time_limit",
        ),
        (
            json!({"problem": suite, "candidates": language}),
            "candidates[0].language",
        ),
        (
            json!({"problem": missing, "candidates": []}),
            "problem.entry_point",
        ),
        (json!([1]), "batch"),
    ];
    for (batch, field) in refused {
        let errors = parse_batch(&batch.to_string()).expect_err("refused");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].field, field, "{batch}");
    }
    let not_json = parse_batch("{oops").expect_err("refused");
    assert_eq!(not_json[0].field, "batch (JSON)");
}
