//! The Task Oracle's rule for a script or cli run against its [`ScriptExpectation`]: only the
//! named parts are checked, `exit_code` defaults to 0, texts are equal byte for byte and a
//! difference is located by line.

use std::collections::BTreeMap;
use verdict_contracts::oracle::{OracleCaseStatus, ScriptExpectation};

/// What a script or cli run left behind, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit code.
    pub exit_code: i32,
    /// Files named by the expectation: content, or `None` when not produced.
    pub files: BTreeMap<String, Option<String>>,
}

/// The status of a run that exited normally: `passed`, `failed` (it ran and differed), or
/// `error` when it exited non-zero where the case expects 0 (it raised or crashed).
pub fn judge_captured(
    expected: &ScriptExpectation,
    got: &Captured,
) -> (OracleCaseStatus, Option<String>) {
    let want_exit = expected.expected_exit_code();
    if got.exit_code != want_exit && want_exit == 0 {
        let mut message = format!("exited with code {}", got.exit_code);
        let stderr = tail(&got.stderr, 400);
        if !stderr.is_empty() {
            message.push_str(": ");
            message.push_str(&stderr);
        }
        return (OracleCaseStatus::Error, Some(message));
    }
    let mut problems = Vec::new();
    if got.exit_code != want_exit {
        problems.push(format!(
            "exit_code: got {}, expected {want_exit}",
            got.exit_code
        ));
    }
    if let Some(d) = expected
        .stdout
        .as_ref()
        .and_then(|want| text_difference(&got.stdout, want))
    {
        problems.push(format!("stdout {d}"));
    }
    if let Some(d) = expected
        .stderr
        .as_ref()
        .and_then(|want| text_difference(&got.stderr, want))
    {
        problems.push(format!("stderr {d}"));
    }
    if let Some(want) = expected
        .stderr_contains
        .as_ref()
        .filter(|w| !got.stderr.contains(w.as_str()))
    {
        problems.push(format!("stderr does not contain {want:?}"));
    }
    for (name, want) in expected.files.iter().flatten() {
        match got.files.get(name) {
            Some(Some(content)) => {
                if let Some(d) = text_difference(content, want) {
                    problems.push(format!("file {name} {d}"));
                }
            }
            _ => problems.push(format!("file {name} was not produced")),
        }
    }
    if problems.is_empty() {
        (OracleCaseStatus::Passed, None)
    } else {
        (OracleCaseStatus::Failed, Some(problems.join("; ")))
    }
}

/// `None` when equal, else where two texts first differ (line numbers from 1).
fn text_difference(got: &str, want: &str) -> Option<String> {
    if got == want {
        return None;
    }
    let mut got_lines = got.split_inclusive('\n');
    let mut want_lines = want.split_inclusive('\n');
    let mut line = 1;
    loop {
        match (got_lines.next(), want_lines.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (Some(a), Some(b)) => {
                return Some(format!(
                    "differs at line {line}: got {}, expected {}",
                    clip(a),
                    clip(b)
                ));
            }
            (Some(a), None) => {
                return Some(format!("has extra output at line {line}: {}", clip(a)));
            }
            (None, Some(b)) => {
                return Some(format!("ends before line {line}: expected {}", clip(b)));
            }
            (None, None) => return Some("differs".into()),
        }
    }
}

/// The last `max_chars` characters of `text`, trimmed at the end, `...` marking a cut.
pub fn tail(text: &str, max_chars: usize) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return text.trim_end().to_owned();
    }
    let rest: String = text.chars().skip(count - max_chars).collect();
    format!("...{}", rest.trim_end())
}

fn clip(line: &str) -> String {
    const MAX: usize = 100;
    if line.chars().count() <= MAX {
        return format!("{line:?}");
    }
    let cut: String = line.chars().take(MAX).collect();
    format!("{cut:?}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(stdout: &str, exit_code: i32) -> Captured {
        Captured {
            stdout: stdout.into(),
            stderr: "warn: x\n".into(),
            exit_code,
            files: BTreeMap::new(),
        }
    }

    #[test]
    fn only_named_parts_are_checked() {
        let e = ScriptExpectation {
            stdout: Some("a\n".into()),
            ..Default::default()
        };
        assert_eq!(
            judge_captured(&e, &captured("a\n", 0)).0,
            OracleCaseStatus::Passed
        );
        let (status, msg) = judge_captured(&e, &captured("b\n", 0));
        assert_eq!(status, OracleCaseStatus::Failed);
        assert_eq!(
            msg.unwrap(),
            "stdout differs at line 1: got \"b\\n\", expected \"a\\n\""
        );
        let none = ScriptExpectation::default();
        assert_eq!(
            judge_captured(&none, &captured("anything", 0)).0,
            OracleCaseStatus::Passed
        );
    }

    #[test]
    fn a_non_zero_exit_is_an_error_unless_expected() {
        let e = ScriptExpectation::default();
        let (status, msg) = judge_captured(&e, &captured("", 1));
        assert_eq!(status, OracleCaseStatus::Error);
        assert!(msg.unwrap().starts_with("exited with code 1: warn: x"));
        let e2 = ScriptExpectation {
            exit_code: Some(2),
            stderr_contains: Some("usage".into()),
            ..Default::default()
        };
        let (status, msg) = judge_captured(&e2, &captured("", 2));
        assert_eq!(status, OracleCaseStatus::Failed);
        assert_eq!(msg.unwrap(), "stderr does not contain \"usage\"");
        let (status, msg) = judge_captured(&e2, &captured("", 0));
        assert_eq!(status, OracleCaseStatus::Failed);
        assert!(msg.unwrap().starts_with("exit_code: got 0, expected 2"));
    }

    #[test]
    fn files_must_be_produced_and_equal() {
        let mut files = BTreeMap::new();
        files.insert("out.csv".to_string(), "id\n1\n".to_string());
        let e = ScriptExpectation {
            files: Some(files),
            ..Default::default()
        };
        let mut got = captured("", 0);
        got.files.insert("out.csv".into(), None);
        assert_eq!(
            judge_captured(&e, &got).1.unwrap(),
            "file out.csv was not produced"
        );
        got.files.insert("out.csv".into(), Some("id\n2\n".into()));
        assert!(
            judge_captured(&e, &got)
                .1
                .unwrap()
                .contains("file out.csv differs at line 2")
        );
        got.files.insert("out.csv".into(), Some("id\n1\n".into()));
        assert_eq!(judge_captured(&e, &got).0, OracleCaseStatus::Passed);
    }

    #[test]
    fn a_tail_is_marked_when_cut() {
        assert_eq!(tail("0123456789", 3), "...789");
    }

    #[test]
    fn text_differences() {
        assert_eq!(
            text_difference("a\nb", "a\n").unwrap(),
            "has extra output at line 2: \"b\""
        );
        assert_eq!(
            text_difference("a\n", "a\nb\n").unwrap(),
            "ends before line 2: expected \"b\\n\""
        );
        assert_eq!(
            text_difference("a", "a\n").unwrap(),
            "differs at line 1: got \"a\", expected \"a\\n\""
        );
    }
}
