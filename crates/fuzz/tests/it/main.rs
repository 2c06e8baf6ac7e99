//! Every parser under a short fuzzing budget, plus the regression inputs fuzzing found.

use std::time::Duration;
use verdict_fuzz::{Budget, TARGETS, TrackingAlloc, check_one, fuzz, quiet_panics, target};

#[global_allocator]
static ALLOC: TrackingAlloc = TrackingAlloc;

mod regressions;

/// Inputs per target: `VERDICT_FUZZ_INPUTS` (default 1500; CI's short budget).
fn budget() -> Budget {
    let inputs = std::env::var("VERDICT_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    Budget {
        inputs,
        time: Duration::from_secs(120),
    }
}

fn fuzz_target(name: &str) {
    quiet_panics();
    let t = target(name).expect("target exists");
    let stats = fuzz(t, budget(), 0x5eed ^ name.len() as u64);
    let shown: Vec<String> = stats
        .findings
        .iter()
        .map(|f| {
            format!(
                "{} on {:?}",
                f.what,
                String::from_utf8_lossy(&f.input[..f.input.len().min(300)])
            )
        })
        .collect();
    assert_eq!(stats.failures, 0, "{name}: {shown:#?}");
    assert!(stats.inputs > 0);
}

#[test]
fn every_target_has_a_corpus_and_a_test() {
    for t in TARGETS {
        assert!(!(t.corpus)().is_empty(), "{} has no corpus", t.name);
    }
    // Keep this list in step with TARGETS: each is fuzzed by its own test below.
    let tested = [
        "submission",
        "oracle-suite",
        "lab-tasks",
        "lab-records",
        "data-path",
        "gtest-xml",
        "gtest-stdout",
        "valgrind-xml",
        "static-analysis",
        "configs",
        "comparator-feedback",
    ];
    for t in TARGETS {
        assert!(tested.contains(&t.name), "{} has no test", t.name);
    }
}

#[test]
fn the_allocation_bound_catches_an_allocation_sized_by_a_number() {
    let t = verdict_fuzz::Target {
        name: "greedy",
        schema: None,
        corpus: Vec::new,
        run: |input| {
            let n: usize = String::from_utf8_lossy(input).trim().parse().unwrap_or(0);
            let v: Vec<u8> = Vec::with_capacity(n);
            std::hint::black_box(v);
        },
    };
    assert!(check_one(&t, b"1000").is_ok());
    assert!(check_one(&t, b"100000000").is_err());
}

#[test]
fn fuzz_submission() {
    fuzz_target("submission");
}
#[test]
fn fuzz_oracle_suite() {
    fuzz_target("oracle-suite");
}
#[test]
fn fuzz_lab_tasks() {
    fuzz_target("lab-tasks");
}
#[test]
fn fuzz_lab_records() {
    fuzz_target("lab-records");
}
#[test]
fn fuzz_data_path() {
    fuzz_target("data-path");
}
#[test]
fn fuzz_gtest_xml() {
    fuzz_target("gtest-xml");
}
#[test]
fn fuzz_gtest_stdout() {
    fuzz_target("gtest-stdout");
}
#[test]
fn fuzz_valgrind_xml() {
    fuzz_target("valgrind-xml");
}
#[test]
fn fuzz_static_analysis() {
    fuzz_target("static-analysis");
}
#[test]
fn fuzz_configs() {
    fuzz_target("configs");
}
#[test]
fn fuzz_comparator_feedback() {
    fuzz_target("comparator-feedback");
}
