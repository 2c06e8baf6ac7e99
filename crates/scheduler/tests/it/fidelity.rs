//! Programs as people write them: each judged as a platform sends it, end to end in
//! the real sandbox. A language or library that is not installed here is reported as
//! `skipped: ...` (as the language suite does), never as passed.

use crate::common::{judge, judge_request};
use serde_json::{Value, json};
use verdict_contracts::{JudgeReport, JudgeStatus};
use verdict_testkit::submission::{A_PLUS_B_TESTS, SubmissionJson};

/// Judges `request` (JSON) with the shared judge.
fn judge_json(request: &Value) -> Option<JudgeReport> {
    Some(judge_request(judge()?, request))
}

/// Checks that the compile and the A+B tests were accepted and the wrong test (`1 1` -> `3`)
/// was Wrong Answer; `context` heads the message.
fn assert_only_the_wrong_test_fails(report: &JudgeReport, context: &str) {
    let (got, logs) = statuses(report);
    assert_eq!(
        got,
        [
            JudgeStatus::Accepted,
            JudgeStatus::Accepted,
            JudgeStatus::Accepted,
            JudgeStatus::WrongAnswer
        ],
        "{context}: {logs:?}"
    );
}

/// Makes `request`'s test tasks judged by its own `compare` program instead of a built-in
/// script, called with `protocol` when given.
fn judge_by_compare_program(request: &mut Value, compare: Value, protocol: Option<&str>) {
    for task in request["judge_tasks"]
        .as_array_mut()
        .expect("tasks")
        .iter_mut()
        .skip(1)
    {
        task["compare_script"] = json!("");
    }
    request["compare"] = compare;
    if let Some(protocol) = protocol {
        request["compare_protocol"] = json!(protocol);
    }
}

/// Every task's status, and the logs of those not accepted (for the assertion's message).
fn statuses(report: &JudgeReport) -> (Vec<JudgeStatus>, Vec<&str>) {
    let statuses = report.results.iter().map(|r| r.status).collect();
    let logs = report
        .results
        .iter()
        .filter(|r| r.status != JudgeStatus::Accepted)
        .map(|r| r.error_log.as_str())
        .collect();
    (statuses, logs)
}

/// An A+B request in `language` (file `file`, source `source`) on the two A+B tests.
fn a_plus_b(id: &str, language: &str, file: &str, source: &str) -> Value {
    SubmissionJson::a_plus_b(id)
        .program(language, file, source)
        .tests(A_PLUS_B_TESTS)
        .limit("memory_limit", 262_144)
        .limit("proc_limit", 5)
        .build()
}

/// Whether `language`'s toolchain is installed here (else says it is skipped).
fn installed(language: verdict_contracts::Language) -> bool {
    let profiles = verdict_scripts::LanguageProfiles::builtin().expect("built-in profiles");
    let profile = profiles.get(language).expect("a built-in profile");
    let missing = verdict_scripts::missing_programs(profile);
    if !missing.is_empty() {
        println!("skipped: {language}: {} not installed", missing.join(", "));
    }
    missing.is_empty()
}

const ACCEPTED_X3: [JudgeStatus; 3] = [JudgeStatus::Accepted; 3];

/// Python ran with `-S` (no site module), so `exit()` and `quit()` were NameErrors
/// and a correct A+B ending with `exit()`, a common contest idiom, was judged Runtime Error.
#[test]
fn python_programs_ending_with_exit_or_quit_are_accepted() {
    let mut programs = vec![
        ("python3", "print(sum(map(int,input().split())));exit()\n"),
        ("python3", "print(sum(map(int, input().split())))\nquit()\n"),
        (
            "python3",
            "a, b = map(int, input().split())\nprint(a + b)\nexit(0)\n",
        ),
    ];
    if installed(verdict_contracts::Language::Python2) {
        programs.push((
            "python2",
            "print sum(map(int, raw_input().split()))\nexit()\n",
        ));
        programs.push((
            "python2",
            "print sum(map(int, raw_input().split()))\nquit(0)\n",
        ));
    }
    for (k, (language, source)) in programs.into_iter().enumerate() {
        let request = a_plus_b(&format!("exit-{language}-{k}"), language, "main.py", source);
        let Some(report) = judge_json(&request) else {
            return;
        };
        let (got, logs) = statuses(&report);
        assert_eq!(got, ACCEPTED_X3, "{language}: {source:?}: {logs:?}");
    }
}

/// Debian's Python packages (python3-numpy under /usr/lib/python3/dist-packages)
/// were not importable in a box: a course's numpy exercise was Runtime Error.
#[test]
fn a_box_imports_debians_numpy_where_python3_numpy_is_installed() {
    if !std::path::Path::new("/usr/lib/python3/dist-packages/numpy").is_dir() {
        verdict_testkit::skip_or_fail::<()>("numpy", "python3-numpy is not installed");
        return;
    }
    let source =
        "import numpy as np\nprint(int(np.array(input().split(), dtype=np.int64).sum()))\n";
    let Some(report) = judge_json(&a_plus_b("numpy", "python3", "main.py", source)) else {
        return;
    };
    let (got, logs) = statuses(&report);
    assert_eq!(got, ACCEPTED_X3, "{logs:?}");
}

/// A python3 program as `Submission.compare`.
fn python_compare(source: &str) -> Value {
    json!({"type": "source_code", "language": "python3",
        "source_files": [{"type": "text", "name": "compare.py", "text": source}]})
}

/// a checker or validator written in Python that ends with `exit(42)` or
/// `quit(43)` (DOMjudge's `hangman` and `jumble` validators do) died with NameError (exit 1),
/// every test a Compare Error. Both protocols a Python program is called with here: the
/// contract's judge-system comparator and a Kattis output validator.
#[test]
fn a_python_checker_ending_with_exit_or_quit_judges_by_its_code() {
    let judge_system = "import sys\nuser = open(sys.argv[2] + '/testdata.out').read().split()\n\
                        answer = open(sys.argv[3] + '/testdata.out').read().split()\n\
                        if user == answer:\n    quit(42)\nexit(43)\n";
    let kattis = "import sys\nuser = sys.stdin.read().split()\n\
                  answer = open(sys.argv[2]).read().split()\n\
                  quit(42) if user == answer else exit(43)\n";
    for (protocol, checker) in [("judge-system", judge_system), ("kattis", kattis)] {
        let mut request = SubmissionJson::a_plus_b(format!("python-checker-{protocol}"))
            .tests(A_PLUS_B_TESTS)
            .test("1 1\n", "3\n")
            .build();
        judge_by_compare_program(&mut request, python_compare(checker), Some(protocol));
        let Some(report) = judge_json(&request) else {
            return;
        };
        assert_only_the_wrong_test_fails(&report, protocol);
    }
}

/// a Submission whose `compare` program (language `make`) ships a header named
/// `validate.h` was called with the Kattis protocol (`validator input answer feedback`, the
/// output on stdin) instead of the contract's judge-system protocol, and every test was
/// Compare Error (`validator exited with unexpected code 1 (expected 42 or 43)`). With no
/// `compare_protocol` it is called as the contract says; with `"kattis"` as a validator.
#[test]
fn a_make_comparator_shipping_validate_h_is_called_with_the_judge_system_protocol() {
    let makefile = "run: compare.c validate.h\n\tgcc -O2 -o run compare.c\n";
    let header = "#include <stdio.h>\n#include <string.h>\n\
                  static int same(FILE *a, FILE *b) {\n  long long x, y;\n  int n, m;\n\
                  for (;;) {\n    n = fscanf(a, \"%lld\", &x);\n    m = fscanf(b, \"%lld\", &y);\n\
                  if (n != 1 || m != 1) return n == m;\n    if (x != y) return 0;\n  }\n}\n";
    // judge-system: compare <input_dir> <user_output_dir> <answer_dir> <feedback_dir>; a
    // Kattis call (input file, answer file, feedback dir: three arguments) exits 1.
    let compare = "#include \"validate.h\"\n\
                   int main(int argc, char **argv) {\n  char u[4096], a[4096];\n\
                   if (argc != 5) return 1;\n\
                   snprintf(u, sizeof u, \"%s/testdata.out\", argv[2]);\n\
                   snprintf(a, sizeof a, \"%s/testdata.out\", argv[3]);\n\
                   FILE *uf = fopen(u, \"r\"), *af = fopen(a, \"r\");\n\
                   if (!uf || !af) return 1;\n  return same(uf, af) ? 42 : 43;\n}\n";
    let text = |name: &str, text: &str| json!({"type": "text", "name": name, "text": text});
    let mut request = SubmissionJson::a_plus_b("make-compare-validate-h")
        .tests(A_PLUS_B_TESTS)
        .test("1 1\n", "3\n")
        .build();
    let make = json!({"type": "source_code", "language": "make",
        "source_files": [text("Makefile", makefile), text("compare.c", compare),
                         text("validate.h", header)]});
    judge_by_compare_program(&mut request, make, None);
    let Some(report) = judge_json(&request) else {
        return;
    };
    assert_only_the_wrong_test_fails(&report, "judge-system");
    // Said to be a Kattis validator, it is called as one (and this one refuses the call).
    request["compare_protocol"] = json!("kattis");
    request["sub_id"] = json!("make-compare-validate-h-kattis");
    let Some(report) = judge_json(&request) else {
        return;
    };
    let (got, logs) = statuses(&report);
    assert_eq!(got[1], JudgeStatus::CompareError, "{logs:?}");
}

/// a checker or validator that crashed was reported as `Compare Error: validator
/// exited with unexpected code 1 (expected 42 or 43): ` with nothing after the colon; its
/// stderr (the `NameError` line problemtools shows) now follows the reason.
#[test]
fn a_crashing_checker_says_why_with_the_end_of_its_stderr() {
    let checker = "import sys\nprint('checking', file=sys.stderr)\nundefined_name\n";
    for protocol in ["judge-system", "kattis"] {
        let mut request = SubmissionJson::a_plus_b(format!("crashing-checker-{protocol}"))
            .test("1 2\n", "3\n")
            .build();
        judge_by_compare_program(&mut request, python_compare(checker), Some(protocol));
        let Some(report) = judge_json(&request) else {
            return;
        };
        let result = &report.results[1];
        assert_eq!(result.status, JudgeStatus::CompareError, "{protocol}");
        assert!(
            result.error_log.contains("exited with unexpected code 1")
                && result.error_log.contains("\nstderr:\n")
                && result
                    .error_log
                    .contains("NameError: name 'undefined_name' is not defined"),
            "{protocol}: {}",
            result.error_log
        );
    }
}

/// Whether Debian's Python can import `module` (the box runs `/usr/bin/python3`).
fn python_has(module: &str) -> bool {
    std::process::Command::new("/usr/bin/python3")
        .args(["-c", &format!("import {module}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn every_program_of_the_corpus_is_accepted() {
    let corpus = verdict_testkit::repo_root().join("examples/corpus");
    let mut failures = Vec::new();
    let mut judged = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(&corpus)
        .expect("examples/corpus")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let language: verdict_contracts::Language =
            serde_json::from_value(json!(name)).expect("a directory named after a language");
        if !installed(language) {
            continue;
        }
        let mut files: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().collect();
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let file_name = file.file_name().to_string_lossy().into_owned();
            let source = std::fs::read_to_string(file.path()).expect("read");
            if source.contains("import numpy") && !python_has("numpy") {
                println!("skipped: {file_name}: numpy is not installed (python3-numpy)");
                continue;
            }
            let request = a_plus_b(&file_name, language.as_str(), &file_name, &source);
            let Some(report) = judge_json(&request) else {
                return;
            };
            judged += 1;
            let (got, logs) = statuses(&report);
            if got != ACCEPTED_X3 {
                failures.push(format!("{language}/{file_name}: {got:?} {logs:?}"));
            }
        }
    }
    assert!(judged > 0, "nothing of examples/corpus was judged");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
