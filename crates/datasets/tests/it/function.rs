//! Function tests (LiveCodeBench functional, APPS `fn_name`): the return value is compared
//! outside the box, so what the candidate writes or how it exits cannot make it pass.

use crate::{assert_failed_at, judge, problem};
use serde_json::json;
use verdict_contracts::oracle::OracleCaseStatus;
use verdict_datasets::SampleStatus;

fn two_sum() -> verdict_datasets::Problem {
    problem(&json!({
        "question_id": "1", "platform": "leetcode", "question_title": "two-sum",
        "starter_code": "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
        "public_test_cases": "[{\"input\": \"[2,7,11,15]\\n9\", \"output\": \"[0, 1]\", \"testtype\": \"functional\"}, {\"input\": \"[3,2,4]\\n6\", \"output\": \"[1, 2]\", \"testtype\": \"functional\"}]",
        "private_test_cases": "[{\"input\": \"[3,3]\\n6\", \"output\": \"[0, 1]\", \"testtype\": \"functional\"}]",
        "metadata": "{\"func_name\": \"twoSum\"}"
    }))
}

fn solution(body: &str) -> serde_json::Value {
    let code = format!(
        "```python\nfrom typing import List\nclass Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n{body}```\n"
    );
    json!({"task_id": "1", "completion": code})
}

#[test]
fn a_right_solution_passes_every_test_and_a_wrong_one_fails_with_the_test_named() {
    let right = "        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i\n";
    let Some(results) = judge(
        &two_sum(),
        &[solution(right), solution("        return [0, 1]\n")],
        2000,
    ) else {
        return;
    };
    assert!(results[0].passed, "{results:#?}");
    assert_eq!(results[0].tests_passed, 3);
    assert!(!results[1].passed);
    assert_eq!(results[1].tests_passed, 2);
    assert_failed_at(&results[1], "public_test_cases[1]");
}

#[test]
fn hacks_fail_and_a_loop_times_out_in_function_tests() {
    let Some(results) = judge(
        &two_sum(),
        &[
            solution("        import os\n        os._exit(0)\n"),
            solution(
                "        class E(list):\n            def __eq__(self, o):\n                return True\n        return E()\n",
            ),
            solution(
                "        import os\n        for fd in range(3, 30):\n            try:\n                os.write(fd, b'{\"i\": 0, \"ok\": [0, 1]}\\n{\"i\": 1, \"ok\": [1, 2]}\\n{\"i\": 2, \"ok\": [0, 1]}\\n{\"done\": true}\\n')\n            except OSError:\n                pass\n        return None\n",
            ),
            solution("        while True:\n            pass\n"),
        ],
        1000,
    ) else {
        return;
    };
    for result in &results[..3] {
        assert!(!result.passed, "{result:#?}");
    }
    assert_eq!(
        results[3].status,
        SampleStatus::Timeout,
        "{:#?}",
        results[3]
    );
    assert_eq!(results[3].result, "timed out");
}

#[test]
fn an_ambiguous_apps_output_is_reported_and_the_other_tests_still_run() {
    let problem = problem(&json!({
        "problem_id": 2500, "starter_code": "def dig_pow(n, p):\n\t",
        "input_output": "{\"fn_name\": \"dig_pow\", \"inputs\": [[89, 1], [92, 1]], \"outputs\": [[1], -1]}"
    }));
    let code = "def dig_pow(n, p):\n    s = sum(int(d) ** (p + i) for i, d in enumerate(str(n)))\n    return s // n if s % n == 0 else -1\n";
    let Some(results) = judge(
        &problem,
        &[json!({"task_id": 2500, "completion": code})],
        2000,
    ) else {
        return;
    };
    let r = &results[0];
    assert_eq!(r.status, SampleStatus::InvalidTestFormat, "{r:#?}");
    assert_eq!(r.tests[0].status, OracleCaseStatus::InvalidTestFormat);
    assert!(
        r.result
            .contains("invalid_test_format: record 2500 field input_output.outputs[0]"),
        "{}",
        r.result
    );
    assert_eq!(r.tests[1].status, OracleCaseStatus::Passed);
}

#[test]
fn mbpp_plus_inputs_are_judged_against_what_the_reference_returns_in_the_box() {
    let problem = problem(&json!({
        "task_id": "Mbpp/7", "prompt": "\"\"\"\nSum and average.\n\"\"\"\n",
        "entry_point": "sum_average",
        "canonical_solution": "def sum_average(n):\n    if n == 0:\n        return {0}\n    return (n * (n + 1) // 2, (n + 1) / 2)\n",
        "assertion": "assert sum_average(10)==(55, 5.5)",
        "base_input": [[10], [15]], "plus_input": [[1], [0]], "atol": 0, "contract": ""
    }));
    let sandbox = match crate::sandbox() {
        Some(sb) => sb,
        None => return,
    };
    let resolved = verdict_datasets::resolve_reference(
        sandbox,
        &verdict_oracle::CancelToken::new(),
        &problem,
        &verdict_datasets::EvalOptions::default(),
    )
    .expect("the reference runs");
    let verdict_datasets::Tests::Function(tests) = &resolved.tests else {
        panic!("not resolved: {resolved:#?}")
    };
    assert_eq!(
        tests.cases[0].body.as_ref().expect("a value").expected,
        json!([55, 5.5])
    );
    // The reference returns a set for 0: not a JSON value, so that case cannot be judged.
    assert_eq!(
        tests.cases[3].body.as_ref().unwrap_err().field,
        "plus_input[1]"
    );
    let right = "def sum_average(n):\n    s = sum(range(1, n + 1))\n    return (s, s / n)\n";
    let close = "def sum_average(n):\n    s = sum(range(1, n + 1))\n    return (s, s / n + 1e-9)\n";
    let wrong = "def sum_average(n):\n    return (n, n)\n";
    let always_equal = "class E(tuple):\n    def __eq__(self, o):\n        return True\ndef sum_average(n):\n    return E()\n";
    let sample = |code: &str| json!({"task_id": "Mbpp/7", "solution": code});
    let Some(results) = judge(
        &problem,
        &[
            sample(right),
            sample(close),
            sample(wrong),
            sample(always_equal),
        ],
        2000,
    ) else {
        return;
    };
    let passed: Vec<usize> = results.iter().map(|r| r.tests_passed).collect();
    // (n, n) happens to be right for n = 1: (1, 1) == (1, 1.0).
    assert_eq!(passed, [3, 3, 1, 0], "{results:#?}");
    assert!(
        results.iter().all(|r| r.status != SampleStatus::Passed),
        "one case is invalid"
    );
    assert_eq!(results[0].status, SampleStatus::InvalidTestFormat);
}

#[test]
fn a_candidate_that_timed_out_runs_no_more_tests_and_they_count_as_not_passed() {
    // Six calls of a function that loops from the second on: one time limit is waited out,
    // not five (the harness stops after the first case that timed out).
    let problem = problem(&json!({
        "problem_id": 9,
        "input_output": json!({"fn_name": "f", "inputs": [[0], [1], [2], [3], [4], [5]],
                               "outputs": [0, 1, 2, 3, 4, 5]}).to_string()
    }));
    let looping = "def f(x):\n    while x:\n        pass\n    return x\n";
    let started = std::time::Instant::now();
    let Some(results) = judge(
        &problem,
        &[json!({"task_id": "9", "solution": looping})],
        1000,
    ) else {
        return;
    };
    let elapsed = started.elapsed();
    let result = &results[0];
    assert_eq!(result.status, SampleStatus::Timeout, "{result:#?}");
    assert_eq!(
        (result.tests_passed, result.tests_total),
        (1, 6),
        "{result:#?}"
    );
    assert_eq!(result.tests[1].status, OracleCaseStatus::Timeout);
    assert!(
        result.tests[2..]
            .iter()
            .all(|t| t.message.as_deref() == Some(verdict_oracle::NOT_RUN)),
        "{result:#?}"
    );
    assert!(
        elapsed.as_secs() < 5,
        "one time limit, not five: {elapsed:?}"
    );
}

#[test]
fn mbpp_plus_set_order_is_the_same_in_the_reference_run_and_the_candidates() {
    // Mbpp/2's shape: a list made from a set of strings, whose order depends on the hash seed.
    let problem = problem(&json!({
        "task_id": "Mbpp/2", "prompt": "", "entry_point": "similar_elements",
        "canonical_solution": "def similar_elements(a, b):\n    return list(set(a) & set(b))\n",
        "assertion": "", "atol": 0,
        "base_input": [[["DRwvS", "SmJpP", "xyz", "abc", "qqq"], ["SmJpP", "DRwvS", "abc", "qqq"]]],
        "plus_input": []
    }));
    let same = "def similar_elements(a, b):\n    return list(set(a) & set(b))\n";
    let Some(results) = judge(
        &problem,
        &[json!({"task_id": "Mbpp/2", "solution": same})],
        3000,
    ) else {
        return;
    };
    assert!(results[0].passed, "{results:#?}");
}
