//! PrimeIntellect's and open-r1's `verification_info` (e.g. `open-r1/verifiable-coding-problems-python`):
//! an object, or JSON text of one, `{"language": "python", "test_cases": [...]}` where each
//! test is `{"type": "stdin_stdout", "input", "output"}` or
//! `{"type": "function_call", "fn_name", "input": [args], "output"}`. The first test's type
//! decides the problem's kind; a test of the other kind, a function call without a name, or a
//! function output that is a one-element list (the same wrapping question as APPS) is
//! `invalid_test_format`. The id is `problem_id` when present, else the record's 0-based index.
//! A record for another language (PrimeIntellect's `cpp`, `rust`, `javascript`) with
//! `stdin_stdout` tests is judged in that language ([`Tests::Program`]); a language verdict has
//! no profile for, or function calls outside Python, are read as [`Tests::Unsupported`]: the
//! dataset reads whole, and that problem's samples are infra errors.

use crate::cases::{stdio_case, wrapped_function_case};
use crate::format::Fields;
use crate::jsonl::kind;
use crate::problem::{
    CallStyle, Case, FunctionTests, InvalidCase, Problem, ProgramKind, ProgramTests, StdioTests,
    Tests, UnsupportedTests,
};
use crate::{Error, Format};
use serde_json::Value;
use verdict_contracts::judge::Language;

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = if r.record.fields.contains_key("problem_id") {
        r.id_field("problem_id")?
    } else {
        r.index.to_string()
    };
    let info = r.json_or_text("verification_info")?;
    let Some(Value::Array(tests)) = info.get("test_cases") else {
        return Err(r.error("verification_info.test_cases", "expected a list of tests"));
    };
    let language = match info.get("language") {
        None | Some(Value::Null) => Language::Python3,
        Some(Value::String(lang)) => match language_named(lang) {
            Some(language) => language,
            // A language verdict has no profile for: the record is read, and its samples
            // are the judge's failure, not the dataset's or the sample's.
            None => {
                let unsupported = Tests::Unsupported(UnsupportedTests {
                    reason: format!(
                        "verification_info.language: verdict has no language profile for {lang:?} (crates/scripts/languages.toml)"
                    ),
                    cases: tests.len(),
                });
                return Ok(Problem::new(task_id, Format::VerificationInfo, unsupported));
            }
        },
        Some(other) => {
            return Err(r.error(
                "verification_info.language",
                format!("expected a string, found {}", kind(other)),
            ));
        }
    };
    let function = tests
        .first()
        .and_then(|t| t.get("type"))
        .and_then(Value::as_str)
        == Some("function_call");
    let tests = if function {
        let mut fn_name = None;
        let mismatch = "not a function_call in a problem of function calls";
        let cases = cases_of(tests, "function_call", mismatch, |i, t| {
            match t.get("fn_name") {
                Some(Value::String(n)) if !n.is_empty() => {
                    if fn_name.get_or_insert_with(|| n.clone()) != n {
                        return invalid(
                            i,
                            "fn_name",
                            format!("{n:?} differs from the first test's"),
                        );
                    }
                }
                other => {
                    return invalid(
                        i,
                        "fn_name",
                        format!(
                            "a function call without a name ({})",
                            kind(other.unwrap_or(&Value::Null))
                        ),
                    );
                }
            }
            io_case(i, t, wrapped_function_case)
        });
        Tests::Function(FunctionTests {
            fn_name: fn_name.unwrap_or_default(),
            call: CallStyle::SolutionOrModule,
            tolerance: None,
            cases,
        })
    } else {
        let mismatch = "not stdin_stdout in a problem of stdin_stdout tests";
        Tests::Stdio(StdioTests {
            cases: cases_of(tests, "stdin_stdout", mismatch, |i, t| {
                io_case(i, t, stdio_case)
            }),
        })
    };
    let tests = match tests {
        _ if language == Language::Python3 => tests,
        // PrimeIntellect's C++, Rust and JavaScript records: the sample is a whole program of
        // that language, built once and fed each test's stdin.
        Tests::Stdio(stdio) => Tests::Program(ProgramTests {
            language,
            kind: ProgramKind::Stdio(stdio),
        }),
        other => Tests::Unsupported(UnsupportedTests {
            reason: format!(
                "verification_info.language: function_call tests are run in python, not {language}"
            ),
            cases: other.len(),
        }),
    };
    Ok(Problem::new(task_id, Format::VerificationInfo, tests))
}

/// The name of test `i` of `verification_info.test_cases`, and of its field `key`.
fn test_name(i: usize, key: Option<&str>) -> String {
    let name = format!("verification_info.test_cases[{i}]");
    key.map_or(name.clone(), |key| format!("{name}.{key}"))
}

/// Each test as a case `case` makes, but for a test whose `type` is not `want`: invalid,
/// `mismatch` saying why.
fn cases_of<T>(
    tests: &[Value],
    want: &str,
    mismatch: &str,
    mut case: impl FnMut(usize, &Value) -> Case<T>,
) -> Vec<Case<T>> {
    tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if t.get("type").and_then(Value::as_str) == Some(want) {
                case(i, t)
            } else {
                invalid(i, "type", mismatch)
            }
        })
        .collect()
}

/// A case made from its name and its input and output fields (name and value):
/// [`stdio_case`] or [`wrapped_function_case`].
type MakeCase<T> = fn(String, (&str, &Value), (&str, &Value)) -> Case<T>;

/// Test `i` (`t`) as the case `make` builds from its `input` and `output` fields.
fn io_case<T>(i: usize, t: &Value, make: MakeCase<T>) -> Case<T> {
    static NULL: Value = Value::Null;
    let field = |key: &str| (test_name(i, Some(key)), t.get(key).unwrap_or(&NULL));
    let ((input, input_value), (output, output_value)) = (field("input"), field("output"));
    make(
        test_name(i, None),
        (&input, input_value),
        (&output, output_value),
    )
}

/// Test `i` as a case whose field `key` is malformed.
fn invalid<T>(i: usize, key: &str, message: impl Into<String>) -> Case<T> {
    Case {
        name: test_name(i, None),
        body: Err(InvalidCase::new(test_name(i, Some(key)), message)),
    }
}

/// verdict's language for a `verification_info.language` name (PrimeIntellect writes `cpp`,
/// `rust`, `javascript`, `python`; other names are verdict's own).
fn language_named(name: &str) -> Option<Language> {
    match name.to_ascii_lowercase().as_str() {
        "python" | "python3" | "py" => Some(Language::Python3),
        "cpp" | "c++" => Some(Language::Cpp),
        "javascript" | "js" | "node" => Some(Language::Js),
        "rust" | "rs" => Some(Language::Rust),
        other => Language::from_name(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_one(fields: Value) -> Problem {
        Format::VerificationInfo.read_detected(0, &fields.to_string())
    }

    #[test]
    fn stdin_stdout_tests_from_json_text() {
        let problem = read_one(json!({
            "source": "codeforces", "task_type": "verifiable_code", "in_source_id": "1259_D",
            "problem_id": "vfc_1", "prompt": "Solve ...", "gold_standard_solution": "```python\n...```",
            "verification_info": "{\"language\": \"python\", \"test_cases\": [{\"input\": \"1 2\\n\", \"output\": \"3\\n\", \"type\": \"stdin_stdout\"}]}",
            "metadata": "{\"difficulty\": \"\"}"
        }));
        assert_eq!(problem.task_id, "vfc_1");
        let Tests::Stdio(tests) = problem.tests else {
            panic!("not stdio")
        };
        assert_eq!(tests.cases[0].body.as_ref().unwrap().stdout, "3\n");
    }

    #[test]
    fn a_rust_record_is_judged_in_rust_and_an_unknown_language_is_unsupported() {
        // PrimeIntellect's verifiable-coding-problems mixes languages in one file.
        let problem = read_one(json!({
            "source": "codeforces", "task_type": "verifiable_code", "problem_id": "vfc_2",
            "prompt": "Solve the following coding problem using the programming language rust:\n...",
            "verification_info": "{\"language\": \"rust\", \"test_cases\": [{\"fn_name\": null, \"input\": \"1\\n\", \"output\": \"1\\n\", \"type\": \"stdin_stdout\"}]}",
            "metadata": "{}"
        }));
        let Tests::Program(tests) = problem.tests else {
            panic!("not a program: {problem:?}")
        };
        assert_eq!(tests.language, Language::Rust);
        let problem = read_one(json!({
            "problem_id": "vfc_3",
            "verification_info": {"language": "cobol", "test_cases": [{"type": "stdin_stdout", "input": "", "output": ""}]}
        }));
        let Tests::Unsupported(tests) = problem.tests else {
            panic!("not unsupported: {problem:?}")
        };
        assert_eq!(tests.cases, 1);
        assert!(
            tests.reason.starts_with("verification_info.language"),
            "{}",
            tests.reason
        );
    }

    #[test]
    fn function_calls_need_a_name() {
        let problem = read_one(json!({
            "problem_id": "p",
            "verification_info": {"language": "python", "test_cases": [
                {"type": "function_call", "fn_name": "majorityElement", "input": [[3, 2, 3]], "output": 3},
                {"type": "function_call", "input": [[1]], "output": 1}
            ]}
        }));
        let Tests::Function(tests) = problem.tests else {
            panic!("not a function test")
        };
        assert_eq!(tests.fn_name, "majorityElement");
        assert_eq!(tests.cases[0].body.as_ref().unwrap().expected, json!(3));
        assert_eq!(
            tests.cases[1].body.as_ref().unwrap_err().field,
            "verification_info.test_cases[1].fn_name"
        );
    }
}
