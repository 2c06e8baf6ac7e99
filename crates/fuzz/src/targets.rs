//! Every parser a user's bytes reach, as a fuzz target with its seed corpus (real examples and
//! fixtures made by the real tools, read from the repository).

use std::path::{Path, PathBuf};
use verdict_compare::{ComparatorExit, interpret_judge_system, interpret_testlib};

/// One parser under fuzzing.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// A short name (`--target` on the command line).
    pub name: &'static str,
    /// The JSON Schema (by type name) to generate structured inputs from, if any.
    pub schema: Option<&'static str>,
    /// The seed inputs.
    pub corpus: fn() -> Vec<Vec<u8>>,
    /// Parses one input; must never panic or allocate beyond the engine's bound.
    pub run: fn(&[u8]),
}

/// The repository's root (corpus files are read from it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` (relative to the repository) whose name ends with one of `suffixes`.
fn files(dir: &str, suffixes: &[&str]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![repo_root().join(dir)];
    while let Some(path) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for entry in entries {
            if entry.is_dir() {
                stack.push(entry);
            } else if suffixes
                .iter()
                .any(|s| entry.to_string_lossy().ends_with(s))
                && let Ok(bytes) = std::fs::read(&entry)
            {
                out.push(bytes);
            }
        }
    }
    out
}

/// A corpus of the texts `samples`, written here.
fn seeds(samples: &[&str]) -> Vec<Vec<u8>> {
    samples.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn text(input: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(input)
}

fn box_dir() -> &'static Path {
    Path::new("/tmp/box")
}

fn submission_corpus() -> Vec<Vec<u8>> {
    let mut corpus = files("examples/judge", &[".json"]);
    corpus.extend(files("examples/languages", &[".json"]));
    corpus
}

fn run_submission(input: &[u8]) {
    let _ = verdict_contracts::parse_submission(&text(input));
}

fn suite_corpus() -> Vec<Vec<u8>> {
    files("examples/oracle", &[".json"])
}

fn run_suite(input: &[u8]) {
    let _ = verdict_contracts::parse_suite(&text(input));
}

fn lab_corpus() -> Vec<Vec<u8>> {
    files("examples/lab", &[".json", ".jsonl"])
}

fn run_lab_tasks(input: &[u8]) {
    let _ = verdict_lab::parse_tasks(&text(input));
}

fn records_corpus() -> Vec<Vec<u8>> {
    files("crates/contracts/tests", &[".json"])
}

fn run_records(input: &[u8]) {
    // What `--resume` and `judge view` read back: one record per line.
    for line in text(input).lines() {
        let _ = serde_json::from_str::<verdict_contracts::RunRecord>(line);
        let _ = serde_json::from_str::<verdict_contracts::ScoreRecord>(line);
        let _ = serde_json::from_str::<verdict_contracts::JudgeReport>(line);
    }
}

fn data_path_corpus() -> Vec<Vec<u8>> {
    seeds(&[
        "input.a[0]",
        "output.items[2].name",
        "expected",
        "input",
        "trace[0].data.x",
    ])
}

fn run_data_path(input: &[u8]) {
    let text = text(input);
    if let Ok(path) = verdict_contracts::DataPath::parse(&text) {
        // Reading and writing through the path, as input_map does.
        let mut value = serde_json::json!({"input": {"a": [1, 2]}, "output": null});
        let _ = path.get(&value);
        let _ = path.set(&mut value, serde_json::Value::Null);
    }
    let _ = verdict_contracts::parse_target(&text);
}

fn gtest_xml_corpus() -> Vec<Vec<u8>> {
    files("crates/reports/tests/fixtures/gtest", &[".xml"])
}

fn run_gtest_xml(input: &[u8]) {
    let _ = verdict_reports::parse_gtest_xml(&text(input));
}

fn gtest_stdout_corpus() -> Vec<Vec<u8>> {
    files("crates/reports/tests/fixtures/gtest", &[".stdout"])
}

fn run_gtest_stdout(input: &[u8]) {
    let _ = verdict_reports::parse_gtest_stdout(&text(input));
}

fn valgrind_corpus() -> Vec<Vec<u8>> {
    files("crates/reports/tests/fixtures/valgrind", &[".xml"])
}

fn run_valgrind(input: &[u8]) {
    let _ = verdict_reports::parse_valgrind_xml(&text(input), box_dir());
}

fn static_corpus() -> Vec<Vec<u8>> {
    files(
        "crates/reports/tests/fixtures/static",
        &[".xml", ".txt", ".json"],
    )
}

fn run_static(input: &[u8]) {
    let text = text(input);
    let _ = verdict_reports::parse_cppcheck_xml(&text, box_dir());
    let _ = verdict_reports::parse_clang_tidy(&text, box_dir());
    let _ = verdict_reports::parse_oclint_json(&text, box_dir());
}

fn config_corpus() -> Vec<Vec<u8>> {
    let mut corpus = files("examples", &[".toml"]);
    corpus.extend(files("deploy", &[".toml"]));
    corpus.push(
        b"work_dir = \"/tmp/w\"\nparallelism = 2\nlocal_roots = [\"/srv\"]\n[compile]\ntime_ms = 20000\n[remote]\nenabled = true\nallow_hosts = [\"example.org\"]\n"
            .to_vec(),
    );
    corpus.push(
        b"listen = \"127.0.0.1:8080\"\nqueue_capacity = 256\nworkers = 2\n[[tokens]]\ntoken = \"t\"\ncategory = \"c\"\n[judge]\nparallelism = 2\n"
            .to_vec(),
    );
    corpus
}

fn run_configs(input: &[u8]) {
    let text = text(input);
    let _ = verdict_scheduler::JudgeConfig::from_toml(&text);
    // judge-server's own keys are plain numbers, addresses and paths; the tables it reads with
    // parsers of their own are the judge's (above), the lab's and the broker's.
    // (judge-server is a binary: this crate depends on libraries only.)
    let table = toml::from_str::<toml::Table>(&text).ok();
    let amqp = table.and_then(|t| t.get("amqp").cloned());
    let amqp = toml::from_str::<verdict_queue::AmqpConfig>(&text)
        .ok()
        .or_else(|| amqp.and_then(|v| v.try_into().ok()));
    if let Some(amqp) = amqp {
        let _ = amqp.check();
    }
    let _ = verdict_lab::LabConfig::from_toml(&text);
}

fn feedback_corpus() -> Vec<Vec<u8>> {
    seeds(&[
        "1 2",
        "3 3",
        "0 1",
        "points 0.5",
        "points 1/3",
        "ok 3 lines",
        "wrong answer 1st lines differ",
    ])
}

fn run_feedback(input: &[u8]) {
    // A judge-system comparator's feedback files and a testlib checker's message.
    let files = [("score.txt", input), ("report.txt", input)];
    let _ = interpret_judge_system(&ComparatorExit::Code(54), &files);
    let _ = interpret_judge_system(&ComparatorExit::Code(43), &files);
    let message = text(input);
    for code in [0, 1, 3, 7] {
        let _ = interpret_testlib(&ComparatorExit::Code(code), &message);
    }
}

/// Every target, in a fixed order.
pub const TARGETS: &[Target] = &[
    Target {
        name: "submission",
        schema: Some("Submission"),
        corpus: submission_corpus,
        run: run_submission,
    },
    Target {
        name: "oracle-suite",
        schema: Some("TestSuite"),
        corpus: suite_corpus,
        run: run_suite,
    },
    Target {
        name: "lab-tasks",
        schema: Some("ScenarioTask"),
        corpus: lab_corpus,
        run: run_lab_tasks,
    },
    Target {
        name: "lab-records",
        schema: Some("RunRecord"),
        corpus: records_corpus,
        run: run_records,
    },
    Target {
        name: "data-path",
        schema: None,
        corpus: data_path_corpus,
        run: run_data_path,
    },
    Target {
        name: "gtest-xml",
        schema: None,
        corpus: gtest_xml_corpus,
        run: run_gtest_xml,
    },
    Target {
        name: "gtest-stdout",
        schema: None,
        corpus: gtest_stdout_corpus,
        run: run_gtest_stdout,
    },
    Target {
        name: "valgrind-xml",
        schema: None,
        corpus: valgrind_corpus,
        run: run_valgrind,
    },
    Target {
        name: "static-analysis",
        schema: None,
        corpus: static_corpus,
        run: run_static,
    },
    Target {
        name: "configs",
        schema: None,
        corpus: config_corpus,
        run: run_configs,
    },
    Target {
        name: "comparator-feedback",
        schema: None,
        corpus: feedback_corpus,
        run: run_feedback,
    },
];

/// The target named `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
