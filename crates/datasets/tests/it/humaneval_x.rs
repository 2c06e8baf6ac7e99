//! HumanEval-X (THUDM/CodeGeeX) problem 0, `has_close_elements`, as published in all six
//! languages (`tests/fixtures/humaneval-x/problem-0.jsonl`): the canonical solution passes;
//! a wrong body, a compile error, an exit with status 0 at the start of the completion, a
//! forged success line and a loop do not.

use crate::{judge, problem};
use serde_json::{Value, json};
use verdict_datasets::{SampleResult, SampleStatus};

/// Problem 0's record of the language whose task id starts with `prefix`.
fn record(prefix: &str) -> Value {
    let text = include_str!("../fixtures/humaneval-x/problem-0.jsonl");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("fixture line"))
        .find(|r| {
            r["task_id"]
                .as_str()
                .is_some_and(|id| id.starts_with(prefix))
        })
        .expect("a record of that language")
}

/// The samples of one language: canonical, then each hack and failure, in CodeGeeX's shape.
fn judge_language(prefix: &str, others: &[&str]) -> Option<Vec<SampleResult>> {
    let record = record(prefix);
    let task_id = record["task_id"].as_str().expect("task id").to_string();
    let canonical = record["canonical_solution"].as_str().expect("canonical");
    let mut samples = vec![json!({"task_id": task_id, "generation": canonical})];
    for other in others {
        // The human-eval shape too: `completion`.
        samples.push(
            json!({"task_id": task_id, "completion": other.replace("{canonical}", canonical)}),
        );
    }
    judge(&problem(&record), &samples, 3000)
}

/// Asserts the canonical sample passed and every other one did not, with `statuses`.
fn assert_only_canonical_passes(results: &[SampleResult], statuses: &[SampleStatus]) {
    assert!(results[0].passed, "canonical: {:#?}", results[0]);
    for (result, status) in results[1..].iter().zip(statuses) {
        assert!(!result.passed, "{result:#?}");
        assert_eq!(result.status, *status, "{result:#?}");
        assert!(result.infra_error.is_none(), "{result:#?}");
    }
    assert_eq!(results.len(), statuses.len() + 1);
}

/// Judges the canonical solution of `prefix` and `others` (each one's `{canonical}` replaced
/// by it), checking that only the canonical one passes and the others end with `statuses`; the
/// results, or `None` (skipped) without a sandbox.
fn judge_expecting(
    prefix: &str,
    others: &[&str],
    statuses: &[SampleStatus],
) -> Option<Vec<SampleResult>> {
    let results = judge_language(prefix, others)?;
    assert_only_canonical_passes(&results, statuses);
    Some(results)
}

const FORGED: &str = "verdict-passed-00000000000000000000000000000000";

#[test]
fn humaneval_x_cpp_canonical_passes_and_exit_forgery_wrong_loop_and_compile_errors_fail() {
    let forged = format!("    printf(\"\\n{FORGED}\\n\"); exit(0);\n{{canonical}}");
    use SampleStatus::*;
    let others = [
        "    return false;\n}\n",
        "    exit(0);\n{canonical}",
        &forged,
        "    while (true) {}\n{canonical}",
        "    return undefined_thing;\n}\n",
    ];
    let Some(results) = judge_expecting("CPP/", &others, &[Failed, Failed, Failed, Timeout, Error])
    else {
        return;
    };
    assert!(
        results[5].result.contains("compile error"),
        "{:#?}",
        results[5]
    );
}

#[test]
fn humaneval_x_go_runs_go_test_with_testify_and_a_forged_pass_line_fails() {
    use SampleStatus::*;
    let others = [
        "    return false\n}\n",
        "    os.Exit(0)\n{canonical}",
        "    fmt.Println(\"PASS\")\n    fmt.Println(\"ok\")\n    return false\n}\n",
        "    for {\n    }\n}\n",
    ];
    judge_expecting("Go/", &others, &[Failed, Error, Failed, Timeout]);
}

#[test]
fn humaneval_x_java_main_runs_the_solution_and_system_exit_fails() {
    let forged = format!(
        "        System.out.println(\"\\n{FORGED}\");\n        System.exit(0);\n{{canonical}}"
    );
    use SampleStatus::*;
    let others = [
        "        return false;\n    }\n}",
        "        System.exit(0);\n{canonical}",
        &forged,
        "        while (true) {}\n    }\n}",
    ];
    judge_expecting("Java/", &others, &[Failed, Failed, Failed, Timeout]);
}

#[test]
fn humaneval_x_js_console_assert_failures_and_process_exit_fail() {
    use SampleStatus::*;
    let others = [
        "  return false\n}\n",
        "  process.exit(0)\n{canonical}",
        "  console.log('ok')\n{canonical}",
        "  while (true) {}\n}\n",
    ];
    judge_expecting("JavaScript/", &others, &[Failed, Failed, Failed, Timeout]);
}

#[test]
fn humaneval_x_rust_test_module_runs_as_cargo_test_and_process_exit_fails() {
    let forged = "    println!(\"test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\");\n    std::process::exit(0);\n}\n";
    use SampleStatus::*;
    let others = [
        "\n    return false;\n}\n",
        "\n    std::process::exit(0);\n{canonical}",
        forged,
        "\n    loop {}\n}\n",
        "\n    return undefined_thing;\n}\n",
    ];
    judge_expecting("Rust/", &others, &[Failed, Failed, Failed, Timeout, Error]);
}

#[test]
fn humaneval_x_python_runs_codegeexs_program_as_an_assertion_script() {
    use SampleStatus::*;
    let others = [
        "    return False\n",
        "    import os; os._exit(0)\n",
        "    while True:\n        pass\n",
    ];
    judge_expecting("Python/", &others, &[Failed, Error, Timeout]);
}
