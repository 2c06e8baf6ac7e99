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

/// MBRBP/3 as published in `mbrbp_release_v1.2.jsonl`.
const MBRBP_3: &str = r#"{"task_id": "MBRBP/3", "prompt": "\n##\n# You are an expert Ruby programmer, and here is your task.\n# # Write a Ruby function to identify non-prime numbers.\n#\n# irb> is_not_prime(2)\n# => false\n# irb> is_not_prime(10)\n# => true\n# irb> is_not_prime(35)\n# => true\ndef is_not_prime(n)", "entry_point": "is_not_prime", "test": "\n\narg00 = 2\nx0 = is_not_prime(arg00)\nv0 = false\nif x0 != v0\n    raise StandardError, \"Error at test case 1\"\nend\n\narg10 = 10\nx1 = is_not_prime(arg10)\nv1 = true\nif x1 != v1\n    raise StandardError, \"Error at test case 2\"\nend\n\narg20 = 35\nx2 = is_not_prime(arg20)\nv2 = true\nif x2 != v2\n    raise StandardError, \"Error at test case 3\"\nend\n\n", "description": "Write a Ruby function to identify non-prime numbers.", "language": "ruby", "canonical_solution": "  return n > n%10\n\nend\n"}"#;

/// MBKP/3 as published in `mbkp_release_v1.2.jsonl`.
const MBKP_3: &str = r#"{"task_id": "MBKP/3", "prompt": "/**\n * You are an expert Kotlin programmer, and here is your task.\n * * Write a Kotlin function to identify non-prime numbers.\n *\n * >>> isNotPrime(2)\n * false\n * >>> isNotPrime(10)\n * true\n * >>> isNotPrime(35)\n * true\n */\nfun isNotPrime(n : Int) : Boolean {\n", "entry_point": "isNotPrime", "test": "\nfun main() {\n    var arg00 : Int = 2\n    var x0 : Boolean = isNotPrime(arg00);\n    var v0 : Boolean = false;\n    if (x0 != v0) {\n        throw Exception(\"Exception -- test case 0 did not pass. x0 = \" + x0)\n    }\n\n    var arg10 : Int = 10\n    var x1 : Boolean = isNotPrime(arg10);\n    var v1 : Boolean = true;\n    if (x1 != v1) {\n        throw Exception(\"Exception -- test case 1 did not pass. x1 = \" + x1)\n    }\n\n    var arg20 : Int = 35\n    var x2 : Boolean = isNotPrime(arg20);\n    var v2 : Boolean = true;\n    if (x2 != v2) {\n        throw Exception(\"Exception -- test case 2 did not pass. x2 = \" + x2)\n    }\n\n\n}\n", "description": "Write a Kotlin function to identify non-prime numbers.", "language": "kotlin", "canonical_solution": "    return n > 2\n}"}"#;

/// MBPLP/3 as published in `mbplp_release_v1.jsonl`.
const MBPLP_3: &str = r#"{"task_id": "MBPLP/3", "prompt": "\n# You are an expert Perl programmer, and here is your task.\n# # Write a Perl function to identify non-prime numbers.\n#\n# >>> is_not_prime(2)\n# 0\n# >>> is_not_prime(10)\n# 1\n# >>> is_not_prime(35)\n# 1\nsub is_not_prime\n{\n  my ($n) = @_;\n", "entry_point": "is_not_prime", "test": "\n\nuse Data::Compare;\n\nmy $arg00 = 2;\nmy $x0 = is_not_prime($arg00);\nmy $v0 = 0;\nunless(Compare($x0, $v0)) {\n    die \"Exception -- test case 0 did not pass.\";\n}\nmy $arg10 = 10;\nmy $x1 = is_not_prime($arg10);\nmy $v1 = 1;\nunless(Compare($x1, $v1)) {\n    die \"Exception -- test case 1 did not pass.\";\n}\nmy $arg20 = 35;\nmy $x2 = is_not_prime($arg20);\nmy $v2 = 1;\nunless(Compare($x2, $v2)) {\n    die \"Exception -- test case 2 did not pass.\";\n}\n", "description": "Write a Perl function to identify non-prime numbers.", "language": "perl", "canonical_solution": null}"#;

/// MBSCP/3 as published in `mbscp_release_v1.jsonl`.
const MBSCP_3: &str = r#"{"task_id": "MBSCP/3", "prompt": "object Main extends App {\n    /**\n     * You are an expert Scala programmer, and here is your task.\n     * * Write a Scala function to identify non-prime numbers.\n     *\n     * >>> isNotPrime(2)\n     * false\n     * >>> isNotPrime(10)\n     * true\n     * >>> isNotPrime(35)\n     * true\n     */\n    def isNotPrime(n : Int) : Boolean = {\n", "entry_point": "isNotPrime", "test": "\n\n    var arg00 : Int = 2\n    var x0 : Boolean = isNotPrime(arg00)\n    var v0 : Boolean = false\n    assert(x0 == v0, \"Exception -- test case 0 did not pass. x0 = \" + x0)\n\n    var arg10 : Int = 10\n    var x1 : Boolean = isNotPrime(arg10)\n    var v1 : Boolean = true\n    assert(x1 == v1, \"Exception -- test case 1 did not pass. x1 = \" + x1)\n\n    var arg20 : Int = 35\n    var x2 : Boolean = isNotPrime(arg20)\n    var v2 : Boolean = true\n    assert(x2 == v2, \"Exception -- test case 2 did not pass. x2 = \" + x2)\n\n\n}\n", "description": "Write a Scala function to identify non-prime numbers.", "language": "scala", "canonical_solution": null}"#;

/// MBPHP/3 as published in `mbphp_release_v1.jsonl`.
const MBPHP_3: &str = r##"{"task_id": "MBPHP/3", "prompt": "<?php\n\n/**\n * You are an expert PHP programmer, and here is your task.\n * * Write a PHP function to identify non-prime numbers.\n *\n * php > isNotPrime(2)\n * false\n * php > isNotPrime(10)\n * true\n * php > isNotPrime(35)\n * true\n */\nfunction isNotPrime($n){\n", "entry_point": "isNotPrime", "test": "\n\nfunction compare($x, $y) {\n    return $x == $y;\n}\n\n$arg00 = 2;\n$x0 = isNotPrime($arg00);\n$v0 = false;\nif (!compare($x0, $v0)) {\n    throw new Exception(\"Error at 1th assert statement.\");\n}\n$arg10 = 10;\n$x1 = isNotPrime($arg10);\n$v1 = true;\nif (!compare($x1, $v1)) {\n    throw new Exception(\"Error at 2th assert statement.\");\n}\n$arg20 = 35;\n$x2 = isNotPrime($arg20);\n$v2 = true;\nif (!compare($x2, $v2)) {\n    throw new Exception(\"Error at 3th assert statement.\");\n}\n", "description": "Write a PHP function to identify non-prime numbers.", "language": "php", "canonical_solution": null}"##;

/// MBTSP/5 as published in `mbtsp_release_v1.jsonl`.
const MBTSP_5: &str = r##"{"task_id": "MBTSP/5", "prompt": "/**\n * Write a function to find the number of ways to fill it with 2 x 1 dominoes for the given 3 x n board.\n * \n * Examples:\n * >>> count_ways(2)\n * >>> 3\n * >>> count_ways(8)\n * >>> 153\n * >>> count_ways(12)\n * >>> 2131\n */\nconst count_ways = function (n: number) : number  {\n", "test": "\nimport * as assert from 'assert'\n\nlet actual_1 = count_ways(2);\nlet expected_1 = 3;\nassert.deepEqual(actual_1, expected_1, \"Exception --- test case 0 failed to pass\");\n\nlet actual_2 = count_ways(8);\nlet expected_2 = 153;\nassert.deepEqual(actual_2, expected_2, \"Exception --- test case 1 failed to pass\");\n\nlet actual_3 = count_ways(12);\nlet expected_3 = 2131;\nassert.deepEqual(actual_3, expected_3, \"Exception --- test case 2 failed to pass\");\n\n", "language": "typescript", "description": "Write a function to find the number of ways to fill it with 2 x 1 dominoes for the given 3 x n board.", "entry_point": "count_ways"}"##;

/// A published record's problem.
fn published(record: &str) -> Value {
    serde_json::from_str(record).expect("a published record")
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

/// Judges `completions` of `record` and checks their statuses are `want`. A run without
/// Data::Compare (Debian's libdata-compare-perl, MBXP's Perl) must instead name it in an infra
/// error, never give a score.
fn assert_judged(record: &Value, completions: &[&str], want: &[SampleStatus]) {
    let task_id = record["task_id"].as_str().expect("task_id");
    let Some(results) = judge(&problem(record), &samples(task_id, completions), 3000) else {
        return;
    };
    if let Some(infra) = results.iter().find_map(|r| r.infra_error.as_ref()) {
        assert!(infra.message.contains("libdata-compare-perl"), "{infra:?}");
        return;
    }
    assert_eq!(statuses(&results), want, "{results:#?}");
}

/// Judges `completions` (right, wrong, exit with status 0, loop, forged success line; one that
/// is `{canonical}` is the record's canonical solution) of the published `record`: only the
/// right one passes.
fn right_wrong_exit_loop_forged(record: &str, completions: [&str; 5]) {
    let record = published(record);
    let completions = completions.map(|c| match c {
        "{canonical}" => record["canonical_solution"].as_str().expect("canonical"),
        other => other,
    });
    let want = [Passed, Failed, Failed, Timeout, Failed];
    assert_judged(&record, &completions, &want);
}

#[test]
fn mbxp_go_runs_the_tests_main_and_a_wrong_answer_or_a_loop_fails() {
    let record = mbgp_5();
    let canonical = record["canonical_solution"].as_str().expect("canonical");
    let completions = [canonical, "\treturn 3\n}", "\tfor {\n\t}\n}"];
    assert_judged(&record, &completions, &[Passed, Failed, Timeout]);
}

#[test]
fn mbxp_java_calls_main_and_system_exit_fails() {
    let right = "        if (n < 2) return true;\n        for (int i = 2; i * i <= n; i++) if (n % i == 0) return true;\n        return false;\n    }\n}\n";
    let wrong = "        return false;\n    }\n}\n";
    let exit = "        System.exit(0); return true;\n    }\n}\n";
    assert_judged(&mbjp_3(), &[right, wrong, exit], &[Passed, Failed, Failed]);
}

#[test]
fn mbxp_cpp_main_with_arguments_is_called_and_exit_zero_fails() {
    let right = "    if (n < 2) return true;\n    for (int i = 2; i * i <= n; i++) if (n % i == 0) return true;\n    return false;\n}\n";
    let completions = [right, "    return false;\n}\n", "    exit(0);\n}\n"];
    assert_judged(&mbcpp_3(), &completions, &[Passed, Failed, Failed]);
}

#[test]
fn mbxp_ruby_runs_the_top_level_test_and_exit_zero_fails() {
    right_wrong_exit_loop_forged(
        MBRBP_3,
        [
            "{canonical}",
            "  false\nend\n",
            "  exit 0\nend\n",
            "  loop {}\nend\n",
            "  puts \"ok\"\n  exit! 0\nend\n",
        ],
    );
}

#[test]
fn mbxp_kotlin_calls_the_tests_main_and_exit_process_fails() {
    right_wrong_exit_loop_forged(
        MBKP_3,
        [
            "{canonical}",
            "    return false\n}",
            "    kotlin.system.exitProcess(0)\n}",
            "    while (n > -1 || n <= -1) {}\n    return true\n}",
            "    println(\"OK\")\n    kotlin.system.exitProcess(0)\n}",
        ],
    );
}

#[test]
fn mbxp_perl_runs_with_data_compare_and_exit_zero_fails() {
    right_wrong_exit_loop_forged(
        MBPLP_3,
        [
            "  for (my $i = 2; $i * $i <= $n; $i++) { return 1 if $n % $i == 0; }\n  return 0;\n}\n",
            "  return 0;\n}\n",
            "  exit 0;\n}\n",
            "  while (1) {}\n}\n",
            "  print \"ok\\n\"; exit 0;\n}\n",
        ],
    );
}

#[test]
fn mbxp_scala_runs_the_app_body_and_sys_exit_fails() {
    right_wrong_exit_loop_forged(
        MBSCP_3,
        [
            "        (2 to math.sqrt(n).toInt).exists(n % _ == 0)\n    }",
            "        false\n    }",
            "        sys.exit(0)\n    }",
            "        while (true) {}\n        false\n    }",
            "        println(\"OK\"); sys.exit(0)\n    }",
        ],
    );
}

#[test]
fn mbxp_php_runs_the_top_level_test_and_exit_zero_fails() {
    right_wrong_exit_loop_forged(
        MBPHP_3,
        [
            "    for ($i = 2; $i * $i <= $n; $i++) {\n        if ($n % $i == 0) {\n            return true;\n        }\n    }\n    return false;\n}\n",
            "    return false;\n}\n",
            "    exit(0);\n}\n",
            "    while (true) {}\n}\n",
            "    echo \"ok\\n\";\n    exit(0);\n}\n",
        ],
    );
}

#[test]
fn mbxp_typescript_imports_nodes_assert_and_process_exit_fails() {
    right_wrong_exit_loop_forged(
        MBTSP_5,
        [
            "  const a: number[] = [1, 0], b: number[] = [0, 1];\n  for (let i = 2; i <= n; i++) {\n    a[i] = a[i - 2] + 2 * b[i - 1];\n    b[i] = a[i - 1] + b[i - 2];\n  }\n  return a[n];\n}\n",
            "  return n;\n}\n",
            "  process.exit(0);\n}\n",
            "  while (true) {}\n}\n",
            "  console.log(\"ok\");\n  process.exit(0);\n}\n",
        ],
    );
}
