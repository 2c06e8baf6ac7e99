//! Helpers: building Submission JSON from files on disk and judging it with the built `judge`.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub mod page;

/// The repository's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `examples/languages` in the repository.
pub fn language_examples() -> PathBuf {
    repo_root().join("examples/languages")
}

/// One source file: its name in the box and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The asset name.
    pub name: String,
    /// The file's text.
    pub text: String,
}

impl SourceFile {
    /// A source file from a name and a text.
    pub fn new(name: &str, text: &str) -> Self {
        SourceFile {
            name: name.to_owned(),
            text: text.to_owned(),
        }
    }
}

/// The files of a directory as sources: a `Makefile` first, then the others by name.
pub fn sources_in(dir: &Path) -> Vec<SourceFile> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_by_key(|n| (n != "Makefile", n.clone()));
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(&name))
                .unwrap_or_else(|e| panic!("cannot read {name}: {e}"));
            SourceFile { name, text }
        })
        .collect()
}

/// One standard test: its input and expected output.
#[derive(Debug, Clone)]
pub struct TestDatum {
    /// `testdata.in`.
    pub input: String,
    /// `testdata.out`.
    pub output: String,
}

/// The A+B test data in `examples/languages/testdata` (`N.in` / `N.out`).
pub fn a_plus_b_data() -> Vec<TestDatum> {
    let dir = language_examples().join("testdata");
    (1..)
        .map(|i| (dir.join(format!("{i}.in")), dir.join(format!("{i}.out"))))
        .take_while(|(input, _)| input.is_file())
        .map(|(input, output)| TestDatum {
            input: std::fs::read_to_string(input).unwrap(),
            output: std::fs::read_to_string(output).unwrap(),
        })
        .collect()
}

/// The limits of the standard tests of a submission built by [`submission`].
#[derive(Debug, Clone, Copy)]
pub struct TestLimits {
    /// `time_limit` in ms.
    pub time_ms: u64,
    /// `memory_limit` in KB.
    pub memory_kb: i64,
    /// `proc_limit`.
    pub processes: i64,
}

impl Default for TestLimits {
    fn default() -> Self {
        TestLimits {
            time_ms: 5000,
            memory_kb: 262_144,
            processes: 10,
        }
    }
}

/// A Submission: a compile task, then one standard diff-ign-space test per datum.
pub fn submission(
    language: &str,
    id: &str,
    files: &[SourceFile],
    data: &[TestDatum],
    limits: TestLimits,
) -> Value {
    let mut tasks = vec![json!({
        "check_script": "compile", "run_script": null, "compare_script": null,
        "is_random": false, "testcase_id": -1, "depends_on": -1, "depends_cond": null,
        "time_limit": 60000
    })];
    for i in 0..data.len() {
        tasks.push(json!({
            "check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "is_random": false,
            "testcase_id": i, "depends_on": 0, "depends_cond": "ACCEPTED",
            "memory_limit": limits.memory_kb, "time_limit": limits.time_ms,
            "file_limit": 65536, "proc_limit": limits.processes
        }));
    }
    let test_data: Vec<Value> = data
        .iter()
        .map(|d| {
            json!({
                "inputs": [{"type": "text", "name": "testdata.in", "text": d.input}],
                "outputs": [{"type": "text", "name": "testdata.out", "text": d.output}]
            })
        })
        .collect();
    let source_files: Vec<Value> = files
        .iter()
        .map(|f| json!({"type": "text", "name": f.name, "text": f.text}))
        .collect();
    json!({
        "sub_type": "programming",
        "category": "tests",
        "prob_id": id,
        "sub_id": format!("{id}-1"),
        "updated_at": 1,
        "judge_tasks": tasks,
        "test_data": test_data,
        "submission": {
            "type": "source_code",
            "language": language,
            "source_files": source_files,
            "assist_files": []
        }
    })
}

fn scratch() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temp dir"))
}

/// Judges a Submission with the built `judge run` (its own work and cache dirs) and returns the report.
pub fn judge_run(submission: &Value) -> Value {
    let root = scratch().path();
    let id = submission["sub_id"].as_str().unwrap_or("sub");
    let file = root.join(format!("{id}.json"));
    std::fs::write(&file, serde_json::to_vec(submission).unwrap()).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("run")
        .arg(&file)
        .arg("--work-dir")
        .arg(root.join("work"))
        .arg("--cache-dir")
        .arg(root.join(format!("cache-{id}")))
        .arg("--parallelism")
        .arg("2")
        .output()
        .expect("run judge");
    assert!(
        output.status.success(),
        "judge run {id} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "judge run {id} printed no report ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Judges `files` in `language` (`sub_id`) on the first A+B test with the default limits, the
/// program started from `entry_point` when one is given, and checks the compile and the test
/// are Accepted.
pub fn a_plus_b_accepted(
    language: &str,
    sub_id: &str,
    files: &[SourceFile],
    entry_point: Option<&str>,
) {
    let data = &a_plus_b_data()[..1];
    let mut sub = submission(language, sub_id, files, data, TestLimits::default());
    if let Some(entry_point) = entry_point {
        sub["submission"]["entry_point"] = entry_point.into();
    }
    let report = judge_run(&sub);
    assert_eq!(statuses(&report), ["Accepted", "Accepted"], "{report}");
}

/// Checks a command refused with exit 2 (bad usage or unreadable input): its stderr and stdout.
pub fn refused(output: std::process::Output) -> (String, String) {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    (stderr, String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The status of each result of a report.
pub fn statuses(report: &Value) -> Vec<String> {
    report["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .map(|r| r["status"].as_str().unwrap_or("?").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The `error_log` of result `i`.
pub fn error_log(report: &Value, i: usize) -> String {
    report["results"][i]["error_log"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The fields of `/proc/PID/stat` after the command name (in parentheses, and it may hold
/// spaces): the state first, then the parent's pid; `None` when there is no such process.
pub fn proc_stat(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    Some(rest.split_whitespace().map(str::to_owned).collect())
}
