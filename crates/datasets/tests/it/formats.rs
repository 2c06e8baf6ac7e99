//! Datasets read from files shaped as their authors publish them, and model completions judged
//! against them exactly as `judge eval` does (`Dataset::read`, `samples_from`,
//! `Sample::program`, one `evaluate` batch per problem): open-r1's and PrimeIntellect's
//! `verification_info` (an object, or JSON text; `stdin_stdout` tests with `fn_name: null`,
//! `function_call` tests with `fn_name` and an args list; other languages), and LiveCodeBench's
//! `code_generation_lite` stdin problems (public tests as JSON text; private tests as JSON
//! text, or base64 of zlib of a pickle of the JSON text made here by CPython, the inverse of
//! LiveCodeBench's own loader).

use crate::{assert_failed_at, judge_env};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use verdict_datasets::samples::samples_from;
use verdict_datasets::{Dataset, EvalOptions, SampleResult, SampleStatus, evaluate, read_records};

fn write_lines(path: &Path, records: &[Value]) {
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n") + "\n").expect("write");
}

/// Writes the dataset and the samples to files and judges them as `judge eval` does, with a
/// 1 s limit per test; the results in the samples' order, or `None` without a sandbox.
fn eval(dataset: &[Value], samples: &[Value]) -> Option<Vec<SampleResult>> {
    let (runtime, judge) = judge_env()?;
    let dir = tempfile::tempdir().expect("temp dir");
    let (data, sample_file) = (dir.path().join("data.jsonl"), dir.path().join("s.jsonl"));
    write_lines(&data, dataset);
    write_lines(&sample_file, samples);
    let dataset = Dataset::read(&data, None).expect("the dataset reads whole");
    let records = read_records(&sample_file).expect("sample records");
    let samples = samples_from(&sample_file, records).expect("samples");
    let options = EvalOptions {
        timeout_ms: 1000,
        ..EvalOptions::default()
    };
    let mut results: Vec<Option<SampleResult>> = vec![None; samples.len()];
    for problem in &dataset.problems {
        let members: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].task_id == problem.task_id)
            .collect();
        if members.is_empty() {
            continue;
        }
        let programs: Vec<String> = members
            .iter()
            .map(|&i| samples[i].program(problem))
            .collect();
        let judged = runtime.block_on(evaluate(judge, problem, &programs, &options));
        for (i, result) in members.into_iter().zip(judged) {
            results[i] = Some(result);
        }
    }
    Some(
        results
            .into_iter()
            .map(|r| r.expect("every sample judged"))
            .collect(),
    )
}

fn sample(task_id: &str, completion: &str) -> Value {
    json!({"task_id": task_id, "completion": completion})
}

/// A row of open-r1's `verifiable-coding-problems-python` as its JSON export writes it:
/// `verification_info` an object whose stdin tests carry `fn_name: null`.
fn open_r1_record() -> Value {
    json!({
        "source": "apps", "task_type": "verifiable_code", "in_source_id": "4212",
        "prompt": "Solve the following coding problem using the programming language python:\n\nGiven two integers a and b, print a + b.\n\nThe input will be stdin and you should print your solution to stdout\n",
        "gold_standard_solution": "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
        "verification_info": {"language": "python", "test_cases": [
            {"fn_name": null, "input": "1 2\n", "output": "3\n", "type": "stdin_stdout"},
            {"fn_name": null, "input": "10 -4\n", "output": "6\n", "type": "stdin_stdout"},
            {"fn_name": null, "input": "0 0\n", "output": "0", "type": "stdin_stdout"}
        ]},
        "metadata": {"difficulty": "introductory", "memory_limit": null, "problem_url": null, "time_limit": null},
        "problem_id": "vfc_14212"
    })
}

/// A row of PrimeIntellect's `verifiable-coding-problems`: `verification_info` and `metadata`
/// as JSON text; each function test names `fn_name` and gives the args as a list.
fn prime_intellect_function_record() -> Value {
    let info = json!({"language": "python", "test_cases": [
        {"fn_name": "count_vowels", "input": ["hello"], "output": 2, "type": "function_call"},
        {"fn_name": "count_vowels", "input": ["rhythm"], "output": 0, "type": "function_call"},
        {"fn_name": "count_vowels", "input": ["AEIOU aeiou"], "output": 10, "type": "function_call"}
    ]});
    json!({
        "source": "codewars", "task_type": "verifiable_code", "in_source_id": "54ff3102c1bad923760001f3",
        "prompt": "Solve the following coding problem using the programming language python:\n\nReturn the number of vowels in the given string.\n",
        "gold_standard_solution": "```python\ndef count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n```",
        "verification_info": info.to_string(),
        "metadata": "{\"difficulty\": \"introductory\"}",
        "problem_id": "vfc_99001"
    })
}

/// PrimeIntellect's file mixes languages: a Rust problem in the same file.
fn prime_intellect_rust_record() -> Value {
    json!({
        "source": "codeforces", "task_type": "verifiable_code", "in_source_id": "1352_A",
        "prompt": "Solve the following coding problem using the programming language rust:\n\n...",
        "gold_standard_solution": "```rust\nfn main() {}\n```",
        "verification_info": "{\"language\": \"rust\", \"test_cases\": [{\"fn_name\": null, \"input\": \"1\\n\", \"output\": \"1\\n\", \"type\": \"stdin_stdout\"}]}",
        "metadata": "{\"difficulty\": \"800\"}",
        "problem_id": "vfc_777"
    })
}

const SUM_RIGHT: &str = "<think>\nRead two integers and print their sum.\n</think>\n\nHere is my solution:\n\n```python\na, b = map(int, input().split())\nprint(a + b)\n```\n\nIt reads both numbers from one line.";

#[test]
fn verification_info_right_wrong_and_looping_samples_are_judged_from_a_published_file() {
    let vowels_right = "Count the vowels case-insensitively.\n\n```python\ndef count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n```\n\nExample:\n\n```\n>>> count_vowels('hello')\n2\n```\n";
    let Some(results) = eval(
        &[
            open_r1_record(),
            prime_intellect_function_record(),
            prime_intellect_rust_record(),
        ],
        &[
            sample("vfc_14212", SUM_RIGHT),
            sample(
                "vfc_14212",
                "```python\na, b = map(int, input().split())\nprint(a - b)\n```",
            ),
            sample("vfc_14212", "```python\nwhile True:\n    pass\n```"),
            // A block in a list item: its code is indented by the list.
            sample(
                "vfc_14212",
                "Steps:\n\n1. Read the line.\n2. Print:\n\n   ```python\n   a, b = map(int, input().split())\n   if True:\n       print(a + b)\n   ```\n",
            ),
            sample("vfc_99001", vowels_right),
            sample(
                "vfc_99001",
                "```python\ndef count_vowels(s):\n    return sum(c in 'aeiou' for c in s)\n```",
            ),
            sample(
                "vfc_99001",
                "```python\ndef count_vowels(s):\n    while True:\n        pass\n```",
            ),
            // No fenced block at all: the completion is the program.
            sample("vfc_99001", "def count_vowels(s):\n    return 2\n"),
            sample("vfc_777", "```rust\nfn main() { println!(\"1\"); }\n```"),
        ],
    ) else {
        return;
    };
    let got: Vec<(bool, &str)> = results
        .iter()
        .map(|r| (r.passed, r.result.as_str()))
        .collect();
    assert_eq!(got[0], (true, "passed"), "{results:#?}");
    assert!(
        got[1].1.starts_with(
            "failed: verification_info.test_cases[0]: wrong answer: line 1: got \"-1\", expected \"3\""
        ),
        "{results:#?}"
    );
    assert_eq!(got[2], (false, "timed out"), "{results:#?}");
    assert_eq!(results[2].tests.len(), 3, "every test ran: {results:#?}");
    assert_eq!(
        got[3],
        (true, "passed"),
        "the list item's block: {results:#?}"
    );
    assert_eq!(
        got[4],
        (true, "passed"),
        "not the example block: {results:#?}"
    );
    assert!(!got[5].0);
    assert!(
        got[5]
            .1
            .starts_with("failed: verification_info.test_cases[2]"),
        "only the upper-case test fails: {results:#?}"
    );
    assert_eq!(results[5].tests_passed, 2);
    assert_eq!(got[6], (false, "timed out"), "{results:#?}");
    assert_eq!(
        (got[7].0, results[7].tests_passed),
        (false, 1),
        "{results:#?}"
    );
    // The Rust problem is read with the file and judged in Rust.
    assert_eq!(got[8], (true, "passed"), "{results:#?}");
}

/// PrimeIntellect's C++, Rust and JavaScript records (`stdin_stdout` tests, the sample a whole
/// program in a fenced block of that language).
fn prime_intellect_record(id: &str, language: &str) -> Value {
    let info = json!({"language": language, "test_cases": [
        {"fn_name": null, "input": "1 2\n", "output": "3\n", "type": "stdin_stdout"},
        {"fn_name": null, "input": "10 -4\n", "output": "6\n", "type": "stdin_stdout"}
    ]});
    json!({
        "source": "codeforces", "task_type": "verifiable_code", "in_source_id": "1A",
        "prompt": format!("Solve the following coding problem using the programming language {language}:\n\nPrint a + b.\n"),
        "gold_standard_solution": "", "verification_info": info.to_string(),
        "metadata": "{\"difficulty\": \"800\"}", "problem_id": id
    })
}

#[test]
fn verification_info_in_cpp_rust_and_javascript_is_judged_in_that_language() {
    let cpp = "```cpp\n#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << std::endl; }\n```\n\n```\n3\n```";
    let rust = "```rust\nuse std::io::Read;\nfn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap(); let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect(); println!(\"{}\", v[0] + v[1]); }\n```";
    let js = "```javascript\nconst [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n```";
    let Some(results) = eval(
        &[
            prime_intellect_record("vfc_1", "cpp"),
            prime_intellect_record("vfc_2", "rust"),
            prime_intellect_record("vfc_3", "javascript"),
        ],
        &[
            sample("vfc_1", cpp),
            sample("vfc_1", "```cpp\nint main() { return 0 }\n```"),
            sample("vfc_1", "```cpp\nint main() { while (true) {} }\n```"),
            sample("vfc_2", rust),
            sample("vfc_2", "```rust\nfn main() { println!(\"3\"); }\n```"),
            sample("vfc_3", js),
            sample("vfc_3", "```js\nprocess.exit(0)\n```"),
        ],
    ) else {
        return;
    };
    let got: Vec<(bool, SampleStatus)> = results.iter().map(|r| (r.passed, r.status)).collect();
    assert_eq!(
        got,
        [
            (true, SampleStatus::Passed),
            (false, SampleStatus::Error),
            (false, SampleStatus::Timeout),
            (true, SampleStatus::Passed),
            (false, SampleStatus::Failed),
            (true, SampleStatus::Passed),
            (false, SampleStatus::Failed),
        ],
        "{results:#?}"
    );
    assert!(
        results[1].result.contains("compile error"),
        "{:#?}",
        results[1]
    );
    assert_eq!(results[4].tests_passed, 1, "{:#?}", results[4]);
}

/// `base64(zlib(pickle(json.dumps(tests))))` made by CPython, as LiveCodeBench stores
/// `private_test_cases` in `code_generation_lite` (its loader is the inverse).
fn lcb_compress(tests: &Value) -> String {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import base64, json, pickle, sys, zlib\n\
             tests = json.load(sys.stdin)\n\
             sys.stdout.write(base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode('utf-8'))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(
        child.stdin.as_mut().expect("stdin"),
        tests.to_string().as_bytes(),
    )
    .expect("write the tests");
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("python3 ends");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("base64 text")
}

fn stdin_test(input: &str, output: &str) -> Value {
    json!({"input": input, "output": output, "testtype": "stdin"})
}

#[test]
fn livecodebench_stdin_problems_with_public_and_compressed_private_tests_are_judged() {
    // A private test large enough that CPython's pickle frames it (over 64 KiB).
    let big: Vec<String> = (1..=30_000).map(|i| (i % 1000).to_string()).collect();
    let big_sum: u64 = (1..=30_000u64).map(|i| i % 1000).sum();
    let private = json!([
        stdin_test("3\n1 2 3\n", "6\n"),
        stdin_test(
            &format!("{}\n{}\n", big.len(), big.join(" ")),
            &format!("{big_sum}\n")
        ),
    ]);
    let compressed = lcb_compress(&private);
    assert!(
        serde_json::from_str::<Value>(&compressed).is_err(),
        "not JSON text"
    );
    let sum_problem = json!({
        "question_title": "Sum of the list", "question_content": "Given N and N integers, print their sum.",
        "platform": "atcoder", "question_id": "abc999_a", "contest_id": "abc999",
        "contest_date": "2024-08-03T00:00:00", "starter_code": "", "difficulty": "easy",
        "public_test_cases": json!([stdin_test("2\n1 1\n", "2\n")]).to_string(),
        "private_test_cases": compressed,
        "metadata": "{}"
    });
    // An older release: private tests as plain JSON text.
    let echo_problem = json!({
        "question_title": "Echo", "question_content": "Print S twice.",
        "platform": "codeforces", "question_id": "1999A", "contest_id": "1999",
        "contest_date": "2024-07-30T00:00:00", "starter_code": "", "difficulty": "easy",
        "public_test_cases": json!([stdin_test("ab\n", "abab\n")]).to_string(),
        "private_test_cases": json!([stdin_test("x\n", "xx\n"), stdin_test("hello\n", "hellohello\n")]).to_string(),
        "metadata": "{}"
    });
    let right = "### Approach\nRead everything at once.\n\n```python\nimport sys\ndata = sys.stdin.read().split()\nn = int(data[0])\nprint(sum(map(int, data[1:1 + n])))\n```\n";
    // Right on the small tests, wrong past 1000 numbers: only the compressed test shows it.
    let small_only = "```python\nimport sys\ndata = sys.stdin.read().split()\nn = int(data[0])\nprint(sum(map(int, data[1:1 + min(n, 1000)])))\n```";
    let Some(results) = eval(
        &[sum_problem, echo_problem],
        &[
            sample("abc999_a", right),
            sample("abc999_a", small_only),
            sample("abc999_a", "```python\nwhile True:\n    pass\n```"),
            sample("1999A", "```python\ns = input().strip()\nprint(s * 2)\n```"),
            sample("1999A", "```python\nprint(input())\n```"),
        ],
    ) else {
        return;
    };
    assert!(results[0].passed, "{results:#?}");
    assert_eq!(
        (results[0].tests_passed, results[0].tests_total),
        (3, 3),
        "public + 2 private"
    );
    assert!(!results[1].passed);
    assert_eq!(results[1].tests_passed, 2, "{results:#?}");
    assert_failed_at(&results[1], "private_test_cases[1]: wrong answer");
    assert_eq!(results[2].result, "timed out");
    assert_eq!(results[2].status, SampleStatus::Timeout);
    assert!(results[3].passed, "{results:#?}");
    assert_eq!(results[3].tests_total, 3);
    assert_failed_at(&results[4], "public_test_cases[0]: wrong answer");
}
