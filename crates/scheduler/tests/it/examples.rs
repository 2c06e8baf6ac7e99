//! Every `examples/judge/*.json` is judged and its statuses compared with `NAME.expected`
//! (one status per line, or `invalid: <message>`). `VERDICT_BLESS=1` rewrites the expectations.

use crate::common::{judge, repo_root, runtime};
use std::collections::BTreeMap;
use verdict_contracts::JudgeStatus;
use verdict_contracts::{JudgeReport, RequestError, parse_submission};

/// The statuses of a report as the `.expected` files write them.
fn summary(report: &JudgeReport) -> String {
    match &report.message {
        Some(message) if report.results.is_empty() => format!("invalid: {message}\n"),
        _ => report
            .results
            .iter()
            .map(|r| format!("{}\n", r.status))
            .collect(),
    }
}

/// Judges every example concurrently (the judge's pool bounds the parallelism).
fn judge_all() -> Option<BTreeMap<String, JudgeReport>> {
    let judge = judge()?;
    let dir = repo_root().join("examples/judge");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/judge")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let rt = runtime();
    let reports = rt.block_on(async {
        let mut handles = Vec::new();
        for path in names {
            let name = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&path).expect("example readable");
            let judge = judge.clone();
            handles.push(tokio::spawn(async move {
                let report = match parse_submission(&text) {
                    Ok(submission) => judge.judge(submission).await,
                    Err(RequestError::Invalid(invalid)) => invalid.into_report(),
                    Err(err) => panic!("{name}: not JSON: {err}"),
                };
                (name, report)
            }));
        }
        let mut reports = BTreeMap::new();
        for handle in handles {
            let (name, report) = handle.await.expect("judging task");
            reports.insert(name, report);
        }
        reports
    });
    Some(reports)
}

/// The language of a "toolchain ... is not installed" System Error, when that language is not
/// one the run requires (`VERDICT_REQUIRE_LANGS`, comma-separated).
fn missing_toolchain(report: &JudgeReport) -> Option<String> {
    let log = report
        .results
        .iter()
        .find_map(|r| r.error_log.strip_prefix("toolchain for "))?;
    let language = log.split_whitespace().next()?.to_owned();
    let required = std::env::var("VERDICT_REQUIRE_LANGS").unwrap_or_default();
    (!required.split(',').any(|l| l.trim() == language)).then_some(language)
}

/// Every example's report, judged once for the whole test binary.
pub fn reports() -> Option<&'static BTreeMap<String, JudgeReport>> {
    static REPORTS: std::sync::OnceLock<Option<BTreeMap<String, JudgeReport>>> =
        std::sync::OnceLock::new();
    REPORTS.get_or_init(judge_all).as_ref()
}

#[test]
fn every_example_gets_its_expected_statuses() {
    let Some(reports) = reports() else { return };
    let bless = std::env::var("VERDICT_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    for (name, report) in reports {
        if let Some(language) = missing_toolchain(report) {
            println!("skipped: {name}: toolchain for {language} is not installed");
            continue;
        }
        let got = summary(report);
        let path = repo_root()
            .join("examples/judge")
            .join(format!("{name}.expected"));
        if bless {
            std::fs::write(&path, &got).expect("write expectation");
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| format!("(missing {})\n", path.display()));
        if got != want {
            let logs: Vec<_> = report
                .results
                .iter()
                .map(|r| r.error_log.as_str())
                .collect();
            failures.push(format!(
                "{name}:\n--- expected\n{want}--- got\n{got}--- logs: {logs:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn run_time_and_memory_are_measured() {
    let Some(reports) = reports() else { return };
    let result = &reports["measured-cost"].results[1];
    assert_eq!(result.status, JudgeStatus::Accepted, "{}", result.error_log);
    assert!(
        (270..=420).contains(&result.run_time),
        "run_time {} ms for ~300 ms of CPU",
        result.run_time
    );
    assert!(
        (32 * 1024..=40 * 1024).contains(&result.memory_used),
        "memory_used {} KB for 32 MiB touched",
        result.memory_used
    );
}

#[test]
fn a_time_limit_is_reported_near_the_limit() {
    let Some(reports) = reports() else { return };
    let result = &reports["time-limit-busy"].results[1];
    assert_eq!(result.status, JudgeStatus::TimeLimitExceeded);
    assert!(
        (1000..=1200).contains(&result.run_time),
        "run_time {} for a 1000 ms limit",
        result.run_time
    );
}

#[test]
fn failures_explain_themselves_in_error_log() {
    let Some(reports) = reports() else { return };
    let log = |name: &str, task: usize| reports[name].results[task].error_log.clone();
    assert!(
        log("compilation-error", 0).contains("main.c:1"),
        "{}",
        log("compilation-error", 0)
    );
    assert!(
        !log("compilation-error", 0).contains("/box/"),
        "box paths are shown relative"
    );
    // Python's syntax check names the file and line as py_compile did (its own compile, without
    // py_compile's imports).
    let python = log("compilation-error-python3", 0);
    assert!(
        python.contains("helper.py\", line 2") && python.contains("SyntaxError"),
        "{python}"
    );
    assert!(
        log("executable-compilation-error", 0).starts_with("the standard program did not compile")
    );
    assert!(log("system-error-local-asset", 1).starts_with("test_data[0].inputs[0]: path:"));
    assert!(
        log("custom-comparator-partial", 1).contains("2 of 3"),
        "the comparator's report.txt is shown"
    );
    assert_eq!(
        reports["custom-comparator-partial"].results[1]
            .score
            .to_string(),
        "2/3"
    );
}

#[test]
fn random_tests_are_reproducible() {
    let Some(judge) = judge() else { return };
    let text = std::fs::read_to_string(repo_root().join("examples/judge/random-tests.json"))
        .expect("example");
    let rt = runtime();
    let first = rt.block_on(judge.judge(parse_submission(&text).expect("valid")));
    let second = rt.block_on(judge.judge(parse_submission(&text).expect("valid")));
    let statuses = |r: &JudgeReport| r.results.iter().map(|x| x.status).collect::<Vec<_>>();
    assert_eq!(statuses(&first), statuses(&second));
    assert_eq!(
        verdict_scheduler::random_seed("s", 1),
        verdict_scheduler::random_seed("s", 1)
    );
}

#[test]
fn random_tasks_log_their_seed_and_generator_command() {
    let Some(reports) = reports() else { return };
    for (name, tasks) in [("random-tests", [1, 2]), ("random-gen-error", [1, 2])] {
        let report = &reports[name];
        for task in tasks {
            let seed = verdict_scheduler::random_seed(&report.sub_id, task);
            let log = &report.results[task].error_log;
            assert!(
                log.contains(&format!(
                    "random input: seed {seed} (generator: ./main {seed})"
                )),
                "{name} task {task}: {log}"
            );
        }
    }
}
