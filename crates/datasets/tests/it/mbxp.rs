//! MBXP (amazon-science/mxeval) records in the published shape, per language verdict runs:
//! `prompt + completion + test`; right completions pass, wrong ones, exits with status 0 and
//! loops do not.

use crate::{judge, problem};
use serde_json::{Value, json};
use verdict_datasets::{SampleResult, SampleStatus};

/// MBGP/5 as published in `mbgp_release_v1.2.jsonl`, with its canonical solution.
fn mbgp_5() -> Value {
    json!({
        "task_id": "MBGP/5",
        "prompt": "package main\n\nimport (\n\t\"encoding/json\"\n\t\"reflect\"\n)\n// Code should be written in Go/Golang\n// Write a function to find the number of ways to fill it with 2 x 1 dominoes for the given 3 x n board.\nfunc count_ways (n int) int {\n",
        "test": "\n\nfunc deepCompare(a interface{}, b interface{}, msg string) bool {\n\taJSON, err := json.Marshal(a)\n\tif err != nil {\n\t\tpanic(msg)\n\t}\n\tbJSON, err := json.Marshal(b)\n\tif err != nil {\n\t\tpanic(msg)\n\t}\n\tvar a2 interface{}\n\tvar b2 interface{}\n\terr = json.Unmarshal(aJSON, &a2)\n\tif err != nil {\n\t\tpanic(msg)\n\t}\n\terr = json.Unmarshal(bJSON, &b2)\n\tif err != nil {\n\t\tpanic(msg)\n\t}\n\tresult := reflect.DeepEqual(a2, b2)\n\tif result {\n\t\treturn true\n\t} else {\n\t\tpanic(msg)\n\t}\n}\n\nfunc main() {\n\tactual_1 := count_ways(2)\n\texpected_1 := 3\n\tdeepCompare(actual_1, expected_1, \"Exception --- test case 0 failed to pass\")\n\n\tactual_2 := count_ways(8)\n\texpected_2 := 153\n\tdeepCompare(actual_2, expected_2, \"Exception --- test case 1 failed to pass\")\n\n}",
        "language": "go", "description": "Write a function to find the number of ways to fill it with 2 x 1 dominoes for the given 3 x n board.",
        "entry_point": "count_ways",
        "canonical_solution": "\tA := make([]int, n + 1)\n\tB := make([]int, n + 1)\n\tA[0] = 1\n\tA[1] = 0\n\tB[0] = 0\n\tB[1] = 1\n\n\tfor i := 2; i <= n; i++ {\n\t\tA[i] = A[i - 2] + 2 * B[i - 1]\n\t\tB[i] = A[i - 1] + B[i - 2]\n\t}\n\treturn A[n]\n}"
    })
}

/// MBJP/3 as published in `mbjp_release_v1.jsonl` (two of its three cases).
fn mbjp_3() -> Value {
    json!({
        "task_id": "MBJP/3",
        "prompt": "import java.io.*;\nimport java.lang.*;\nimport java.util.*;\nimport java.math.*;\n\n\nclass IsNotPrime {\n    /**\n     * * Write a Java function to identify non-prime numbers.\n     */\n    public static Boolean isNotPrime(int n) {\n",
        "entry_point": "isNotPrime",
        "test": "\n\nclass Main {\n    public static boolean compare(Object obj1, Object obj2) {\n        if (obj1 == null && obj2 == null){\n            return true;\n        } else if (obj1 == null || obj2 == null){\n            return false;\n        } else {\n            return obj1.equals(obj2);\n        }\n    }\n    \n    public static void main(String[] args) throws Exception {\n        Boolean x0 = IsNotPrime.isNotPrime(2);\n        Boolean v0 = false;\n        if (!(compare(x0, v0))) {\n            throw new java.lang.Exception(\"Exception -- test case 0 did not pass. x0 = \" + x0);\n        }\n\n        Boolean x1 = IsNotPrime.isNotPrime(10);\n        Boolean v1 = true;\n        if (!(compare(x1, v1))) {\n            throw new java.lang.Exception(\"Exception -- test case 1 did not pass. x1 = \" + x1);\n        }\n\n\n}\n}\n",
        "description": "Write a Java function to identify non-prime numbers.", "language": "java", "canonical_solution": null
    })
}

/// An MBCPP record in mxeval's shape (a `main(int argc, char* argv[])` of checks).
fn mbcpp_3() -> Value {
    json!({
        "task_id": "MBCPP/3",
        "prompt": "#include <bits/stdc++.h>\nusing namespace std;\n\n\n/**\n * Write a c++ function to identify non-prime numbers.\n */\nbool isNotPrime(int n) {\n",
        "entry_point": "isNotPrime",
        "test": "\n\ntemplate <typename T> bool compare(T a, T b){ \n    return a == b; \n}\n\nint main(int argc, char* argv[]) {\n    bool x0 = isNotPrime(2);\n    if (!(compare(x0, false))) {\n        throw runtime_error(\"Exception -- test case 0 did not pass.\");\n    }\n\n    bool x1 = isNotPrime(10);\n    if (!(compare(x1, true))) {\n        throw runtime_error(\"Exception -- test case 1 did not pass.\");\n    }\n\n    return 0;\n}\n",
        "description": "Write a c++ function to identify non-prime numbers.", "language": "cpp", "canonical_solution": null
    })
}

fn samples(task_id: &str, completions: &[&str]) -> Vec<Value> {
    completions
        .iter()
        .map(|c| json!({"task_id": task_id, "completion": c}))
        .collect()
}

fn statuses(results: &[SampleResult]) -> Vec<SampleStatus> {
    results.iter().map(|r| r.status).collect()
}

use SampleStatus::{Failed, Passed, Timeout};

#[test]
fn mbxp_go_runs_the_tests_main_and_a_wrong_answer_or_a_loop_fails() {
    let record = mbgp_5();
    let canonical = record["canonical_solution"].as_str().expect("canonical");
    let Some(results) = judge(
        &problem(&record),
        &samples("MBGP/5", &[canonical, "\treturn 3\n}", "\tfor {\n\t}\n}"]),
        3000,
    ) else {
        return;
    };
    assert_eq!(
        statuses(&results),
        [Passed, Failed, Timeout],
        "{results:#?}"
    );
}

#[test]
fn mbxp_java_calls_main_and_system_exit_fails() {
    let right = "        if (n < 2) return true;\n        for (int i = 2; i * i <= n; i++) if (n % i == 0) return true;\n        return false;\n    }\n}\n";
    let Some(results) = judge(
        &problem(&mbjp_3()),
        &samples(
            "MBJP/3",
            &[
                right,
                "        return false;\n    }\n}\n",
                "        System.exit(0); return true;\n    }\n}\n",
            ],
        ),
        3000,
    ) else {
        return;
    };
    assert_eq!(statuses(&results), [Passed, Failed, Failed], "{results:#?}");
}

#[test]
fn mbxp_cpp_main_with_arguments_is_called_and_exit_zero_fails() {
    let right = "    if (n < 2) return true;\n    for (int i = 2; i * i <= n; i++) if (n % i == 0) return true;\n    return false;\n}\n";
    let Some(results) = judge(
        &problem(&mbcpp_3()),
        &samples(
            "MBCPP/3",
            &[right, "    return false;\n}\n", "    exit(0);\n}\n"],
        ),
        3000,
    ) else {
        return;
    };
    assert_eq!(statuses(&results), [Passed, Failed, Failed], "{results:#?}");
}
