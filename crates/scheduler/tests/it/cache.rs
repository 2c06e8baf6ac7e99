//! The per-problem cache: content changed without a newer `updated_at` is not served stale
//!, and local test data costs no second copy.

use crate::common::{judge, judge_request, judge_with};
use serde_json::{Value, json};
use std::path::Path;
use verdict_contracts::JudgeStatus;
use verdict_scheduler::JudgeConfig;

const APLUSB: &str = "a, b = map(int, input().split())\nprint(a + b)\n";

fn program(text: &str) -> Value {
    json!({"type": "source_code", "language": "python3", "assist_files": [],
        "source_files": [{"type": "text", "name": "main.py", "text": text}]})
}

fn compile_task() -> Value {
    json!({"check_script": "compile", "run_script": null, "compare_script": null,
        "is_random": false, "testcase_id": -1, "depends_on": -1, "depends_cond": null,
        "time_limit": 10000})
}

fn test_task(random: bool) -> Value {
    json!({"check_script": "standard", "run_script": "standard", "compare_script": "diff-all",
        "is_random": random, "testcase_id": if random { -1 } else { 0 }, "depends_on": 0,
        "depends_cond": "ACCEPTED", "memory_limit": 65536, "time_limit": 2000,
        "file_limit": 1024, "proc_limit": 5})
}

/// A+B as `sub_id` of `prob_id`, always of the same `updated_at`: a compile, then one test
/// (`random` or not); its test data is the caller's.
fn aplusb_at_one_time(prob_id: &str, sub_id: &str, random: bool) -> Value {
    json!({"sub_type": "programming", "category": "cache", "prob_id": prob_id,
        "sub_id": sub_id, "updated_at": 7,
        "judge_tasks": [compile_task(), test_task(random)],
        "submission": program(APLUSB)})
}

/// Judges `submission` and returns the status of its second task.
fn status_of_the_test(submission: Value) -> Option<JudgeStatus> {
    Some(judge_request(judge()?, &submission).results[1].status)
}

#[test]
fn inline_test_data_changed_without_a_newer_updated_at_is_not_served_stale() {
    let with_answer = |sub_id: &str, answer: &str| {
        let mut request = aplusb_at_one_time("stale-data", sub_id, false);
        request["test_data"] = json!([{
            "inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": answer}]
        }]);
        request
    };
    let Some(first) = status_of_the_test(with_answer("stale-data-1", "3\n")) else {
        return;
    };
    assert_eq!(first, JudgeStatus::Accepted);
    let second = status_of_the_test(with_answer("stale-data-2", "4\n")).unwrap();
    assert_eq!(
        second,
        JudgeStatus::WrongAnswer,
        "the old expected output was served"
    );
}

#[test]
fn a_standard_program_changed_without_a_newer_updated_at_is_not_served_stale() {
    let with_standard = |sub_id: &str, standard: &str| {
        let mut request = aplusb_at_one_time("stale-standard", sub_id, true);
        request["test_data"] = json!([]);
        request["standard"] = program(standard);
        request["random"] = program("print(1, 2)\n");
        request
    };
    let Some(first) = status_of_the_test(with_standard("stale-standard-1", APLUSB)) else {
        return;
    };
    assert_eq!(first, JudgeStatus::Accepted);
    let changed = "a, b = map(int, input().split())\nprint(a + b + 1)\n";
    let second = status_of_the_test(with_standard("stale-standard-2", changed)).unwrap();
    assert_eq!(
        second,
        JudgeStatus::WrongAnswer,
        "the old standard program was served"
    );
}

/// The bytes of every regular file under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| match entry.file_type() {
                    Ok(t) if t.is_dir() => bytes_under(&entry.path()),
                    Ok(t) if t.is_file() => entry.metadata().map_or(0, |m| m.len()),
                    _ => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn local_test_data_costs_no_second_copy_in_the_cache() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().unwrap();
    let input = data.path().join("big.in");
    // The program reads the first line; the rest stands for a large test set.
    let mut text = b"1 2\n".to_vec();
    text.resize(8 << 20, b'\n');
    std::fs::write(&input, &text).unwrap();
    std::fs::set_permissions(&input, std::fs::Permissions::from_mode(0o644)).unwrap();
    let Some((judge, dir)) = judge_with(|config| JudgeConfig {
        local_roots: vec![data.path().to_owned()],
        ..config
    }) else {
        return;
    };
    let submission = json!({"sub_type": "programming", "category": "cache", "prob_id": "local",
        "sub_id": "local-1", "updated_at": 1,
        "judge_tasks": [compile_task(), test_task(false)],
        "test_data": [{
            "inputs": [{"type": "local", "name": "testdata.in", "path": input}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"}]
        }],
        "submission": program(APLUSB)});
    let report = judge_request(&judge, &submission);
    assert_eq!(
        report.results[1].status,
        JudgeStatus::Accepted,
        "{report:?}"
    );
    let cached = bytes_under(&dir.path().join("cache"));
    assert!(
        cached < 1 << 20,
        "the cache holds {cached} bytes for 8 MiB of local data"
    );
    assert!(
        judge.cache_stats().bytes < 1 << 20,
        "{:?}",
        judge.cache_stats()
    );
}

/// Every directory under `dir`, `dir` included.
fn dirs_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut all = vec![dir.to_owned()];
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            all.extend(dirs_under(&entry.path()));
        }
    }
    all
}

/// A test datum's cache item is one directory with its files (`in.<name>`, `out.<name>`,
/// nested names keeping theirs): making a directory is what costs most on some file systems,
/// and a cold judge makes one item per datum.
#[test]
fn a_datum_is_cached_as_one_directory_with_its_inputs_and_outputs_apart() {
    let Some((judge, dir)) = judge_with(|config| config) else {
        return;
    };
    let submission = json!({"sub_type": "programming", "category": "cache", "prob_id": "layout",
        "sub_id": "layout-1", "updated_at": 1,
        "judge_tasks": [compile_task(), test_task(false)],
        "test_data": [{
            // The same name as input and output, and a nested one.
            "inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"},
                       {"type": "text", "name": "same.txt", "text": "input"},
                       {"type": "text", "name": "sub/extra.txt", "text": "x"}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"},
                        {"type": "text", "name": "same.txt", "text": "output"}]
        }],
        "submission": program(APLUSB)});
    let report = judge_request(&judge, &submission);
    // The program leaves the input `same.txt` as it was placed; the expected one differs.
    let test = &report.results[1];
    assert_eq!(test.status, JudgeStatus::WrongAnswer, "{report:?}");
    assert!(
        test.error_log.contains(r#"expected "output", got "input""#),
        "{}",
        test.error_log
    );
    let datum = dirs_under(&dir.path().join("cache"))
        .into_iter()
        .find(|d| {
            d.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("datum-0-"))
        })
        .expect("the datum's cache item");
    let read = |name: &str| std::fs::read_to_string(datum.join(name)).unwrap_or_default();
    assert_eq!(read("in.testdata.in"), "1 2\n");
    assert_eq!(read("out.testdata.out"), "3\n");
    assert_eq!(
        (read("in.same.txt"), read("out.same.txt")),
        ("input".into(), "output".into())
    );
    assert_eq!(read("in.sub/extra.txt"), "x");
    let dirs: Vec<_> = dirs_under(&datum).into_iter().skip(1).collect();
    assert_eq!(
        dirs,
        vec![datum.join("in.sub")],
        "only the nested name makes a directory"
    );
}
