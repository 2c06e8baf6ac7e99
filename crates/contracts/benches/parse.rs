//! The cost of reading a judge request: [`parse_submission`] (the text read straight into the
//! types) against the baseline measured in the same run, the text read into a `Value` and then
//! into the types with the path tracked ([`submission_from_value`], what `parse_submission` did
//! before). A server pays it for every request, including each one it then refuses for a cap.
//!
//! `cargo bench -p verdict-contracts --bench parse` (plain main, no criterion) prints the median
//! ms per request of each path and their ratio, for an ordinary A+B request and for a 1 MiB one
//! of 5,001 tasks (the availability bench's over-cap request). `VERDICT_BENCH_ROUNDS` (default
//! 200) sets how many times each is read.
#![allow(clippy::print_stdout)]

use serde_json::{Value, json};
use std::time::Instant;
use verdict_contracts::{parse_submission, submission_from_value};

/// A+B in C: a compile task and `tests` standard tasks on one test datum.
fn a_plus_b(tests: usize) -> String {
    let mut tasks = vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
    tasks.extend((0..tests).map(|_| {
        json!({"check_script": "standard", "run_script": "standard",
               "compare_script": "diff-ign-space", "testcase_id": 0, "depends_on": 0,
               "depends_cond": "ACCEPTED", "time_limit": 1000, "memory_limit": 65536,
               "proc_limit": 4})
    }));
    json!({
        "sub_type": "programming", "category": "bench", "prob_id": "a-plus-b",
        "sub_id": "s1", "updated_at": 1_700_000_000,
        "judge_tasks": tasks,
        "test_data": [
            {"inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
             "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"}]}
        ],
        "submission": {"type": "source_code", "language": "c", "source_files": [
            {"type": "text", "name": "main.c",
             "text": "#include <stdio.h>\nint main(void){int a,b;scanf(\"%d %d\",&a,&b);printf(\"%d\\n\",a+b);return 0;}\n"}
        ]}
    })
    .to_string()
}

/// The median ms of `rounds` calls of `read`.
fn median_ms(rounds: usize, mut read: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            read();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rounds = std::env::var("VERDICT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    println!("| request | bytes | text path ms | Value path ms (baseline) | text / Value |");
    println!("|---|---|---|---|---|");
    for (name, tests) in [("A+B, 10 tests", 10), ("A+B, 5,000 tests", 5000)] {
        let text = a_plus_b(tests);
        let direct = median_ms(rounds, || {
            parse_submission(&text).expect("valid");
        });
        let through_value = median_ms(rounds, || {
            let value: Value = serde_json::from_str(&text).expect("JSON");
            submission_from_value(&value).expect("valid");
        });
        println!(
            "| {name} | {} | {direct:.3} | {through_value:.3} | {:.2}x |",
            text.len(),
            direct / through_value
        );
    }
}
