//! Logs cut to fit `error_log` say how much was cut: a compiler's half-megabyte log and a failing
//! program's 100 KB of stderr, judged for real.

use crate::common::{judge, runtime};
use verdict_contracts::{JudgeStatus, parse_submission};

/// The `(N more bytes not shown, T bytes in all)` note at the end of `log`: (N, T).
fn cut_note(log: &str) -> (u64, u64) {
    let tail = log
        .rsplit_once("... (")
        .map(|(_, t)| t)
        .unwrap_or_else(|| panic!("no cut note: …{}", &log[log.len().saturating_sub(200)..]));
    let mut numbers = tail
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().expect("a number"));
    let left_out = numbers.next().expect("N");
    let total = numbers.next().expect("T");
    assert!(
        tail.starts_with(&format!(
            "{left_out} more bytes not shown, {total} bytes in all)"
        )),
        "{tail}"
    );
    (left_out, total)
}

/// A C submission of `source` with a compile task and one standard test (no input, expects a
/// blank line).
fn submission(sub_id: &str, source: &str) -> verdict_contracts::Submission {
    let submission = serde_json::json!({
        "sub_type": "programming", "category": "logs", "prob_id": "logs", "sub_id": sub_id,
        "updated_at": 1,
        "judge_tasks": [
            {"check_script": "compile", "depends_on": -1, "time_limit": 10000},
            {"check_script": "standard", "run_script": "standard", "compare_script": "diff-all",
             "testcase_id": 0, "depends_on": 0, "depends_cond": "ACCEPTED", "time_limit": 2000,
             "memory_limit": 65536, "file_limit": 4096}
        ],
        "test_data": [{"inputs": [], "outputs": [{"type": "text", "name": "testdata.out", "text": "\n"}]}],
        "submission": {"type": "source_code", "language": "c",
            "source_files": [{"type": "text", "name": "main.c", "text": source}]}
    });
    parse_submission(&submission.to_string())
        .expect("a Submission")
        .into_inner()
}

#[test]
fn a_cut_compile_log_and_a_cut_stderr_say_how_much_was_cut() {
    let Some(judge) = judge() else {
        return;
    };
    // gcc stops at 50 errors (-fmax-errors=50) and shows each line it complains about: 60
    // errors on 3000-character lines make far more log than the 16 KiB kept.
    let long = "x".repeat(3000);
    let mut source = String::new();
    for i in 0..60 {
        source.push_str(&format!(
            "int f{i}(void) {{ return missing_{i}_{long}; }}\n"
        ));
    }
    let report = runtime().block_on(judge.judge(submission("logs-compile", &source)));
    let compile = &report.results[0];
    assert_eq!(
        compile.status,
        JudgeStatus::CompilationError,
        "{}",
        compile.error_log
    );
    let (left_out, total) = cut_note(&compile.error_log);
    assert!(total > 100_000, "the compiler wrote {total} bytes");
    // What is shown plus what was cut is the whole log (paths shortened in what is shown).
    assert!(
        left_out > total - 17 * 1024 && left_out < total,
        "{left_out} of {total}"
    );

    // 100 000 bytes on stderr, then a failure: 2 KiB are kept.
    let source = "#include <stdio.h>\nint main(void){for(int i=0;i<100000;i++)fputc('e',stderr);return 3;}\n";
    let report = runtime().block_on(judge.judge(submission("logs-stderr", source)));
    let run = &report.results[1];
    assert_eq!(run.status, JudgeStatus::RuntimeError, "{}", run.error_log);
    let (left_out, total) = cut_note(&run.error_log);
    assert_eq!(total, 100_000, "{}", run.error_log);
    assert_eq!(left_out, 100_000 - 2048);
}
