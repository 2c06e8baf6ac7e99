//! Batches: one problem, many candidates, judged in the real sandbox (design #26, #27).

use crate::common::{judge, runtime};
use serde_json::{Value, json};
use verdict_contracts::batch::{BatchEvent, BatchReport, CandidateResult, parse_batch};
use verdict_scheduler::{BatchCancel, BatchJudge};
use verdict_scripts::oracle::OracleOptions;

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
