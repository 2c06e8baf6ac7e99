//! LiveCodeBench's code generation problems (`livecodebench/code_generation_lite`'s
//! `test*.jsonl`): `question_id, public_test_cases, private_test_cases, metadata, starter_code`.
//!
//! `public_test_cases` is JSON text (or, re-exported, the list itself): a list of
//! `{input, output, testtype}` with `testtype` `stdin` or `functional`, all three strings.
//! `private_test_cases` is the same list, as JSON text, compressed (base64, then zlib, then a
//! pickle of the JSON text: `code_generation_lite`), or the list itself. The pickle is read by
//! `serde-pickle`, which decodes data and never runs code (a pickle that asks to call anything
//! is an error). `metadata` is JSON text (or the object itself); its `func_name` names the
//! function a functional test calls, whose `input` holds one JSON value per line (the args)
//! and whose `output` is JSON.

use crate::format::Fields;
use crate::jsonl::kind;
use crate::problem::{
    CallStyle, Case, FunctionCase, FunctionTests, InvalidCase, Problem, StdioCase, StdioTests,
    Tests,
};
use crate::{Error, Format};
use base64::Engine;
use flate2::read::ZlibDecoder;
use serde_json::Value;
use std::io::Read;

/// The most bytes one compressed `private_test_cases` may inflate to.
const MAX_INFLATED: u64 = 1 << 30;

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("question_id")?;
    let metadata = match r.record.fields.get("metadata") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::String(text)) if text.trim().is_empty() => Value::Null,
        Some(Value::String(text)) => serde_json::from_str::<Value>(text)
            .map_err(|e| r.error("metadata", format!("not JSON text: {e}")))?,
        Some(object @ Value::Object(_)) => object.clone(),
        Some(other) => {
            return Err(r.error(
                "metadata",
                format!("expected JSON text or an object, found {}", kind(other)),
            ));
        }
    };
    let fn_name = match metadata.get("func_name") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(name.clone()),
        Some(other) => {
            return Err(r.error(
                "metadata.func_name",
                format!("expected a string, found {}", kind(other)),
            ));
        }
    };
    let mut tests = list(r, "public_test_cases", r.get("public_test_cases")?)?;
    match r.record.fields.get("private_test_cases") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => {
            let text = decode_private(r, text)?;
            tests.extend(list(r, "private_test_cases", &Value::String(text))?);
        }
        Some(value) => tests.extend(list(r, "private_test_cases", value)?),
    }
    let tests = match fn_name {
        Some(fn_name) => Tests::Function(FunctionTests {
            fn_name,
            call: CallStyle::SolutionOrModule,
            tolerance: None,
            cases: tests
                .into_iter()
                .map(|(name, test)| Case {
                    body: functional(&name, &test),
                    name,
                })
                .collect(),
        }),
        None => Tests::Stdio(StdioTests {
            cases: tests
                .into_iter()
                .map(|(name, test)| Case {
                    body: stdin(&name, &test),
                    name,
                })
                .collect(),
        }),
    };
    Ok(Problem::new(task_id, Format::LiveCodeBench, tests))
}

/// Decodes `private_test_cases`: JSON text as it is, else base64 -> zlib -> pickled string.
pub fn decode_private_test_cases(text: &str) -> Result<String, String> {
    if serde_json::from_str::<Value>(text).is_ok() {
        return Ok(text.to_string());
    }
    let compressed = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| format!("neither JSON nor base64: {e}"))?;
    let mut pickled = Vec::new();
    ZlibDecoder::new(compressed.as_slice())
        .take(MAX_INFLATED)
        .read_to_end(&mut pickled)
        .map_err(|e| format!("not zlib data: {e}"))?;
    serde_pickle::from_slice::<String>(&pickled, serde_pickle::DeOptions::new())
        .map_err(|e| format!("not a pickled string: {e}"))
}

fn decode_private(r: &Fields<'_>, text: &str) -> Result<String, Error> {
    decode_private_test_cases(text).map_err(|e| r.error("private_test_cases", e))
}

/// The tests of a list field, JSON text or the list itself: `(name, test)` each.
fn list(r: &Fields<'_>, field: &str, value: &Value) -> Result<Vec<(String, Value)>, Error> {
    let parsed;
    let value = match value {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text)
                .map_err(|e| r.error(field, format!("not a JSON list of tests: {e}")))?;
            &parsed
        }
        other => other,
    };
    let Value::Array(items) = value else {
        return Err(r.error(field, format!("expected a list, found {}", kind(value))));
    };
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, test)| (format!("{field}[{i}]"), test.clone()))
        .collect())
}

fn field<'v>(name: &str, test: &'v Value, key: &str) -> Result<&'v str, InvalidCase> {
    match test.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(InvalidCase::new(
            format!("{name}.{key}"),
            format!("expected a string, found {}", kind(other)),
        )),
        None => Err(InvalidCase::new(format!("{name}.{key}"), "missing")),
    }
}

fn check_type(name: &str, test: &Value, want: &str) -> Result<(), InvalidCase> {
    let got = field(name, test, "testtype")?;
    if got == want {
        Ok(())
    } else {
        Err(InvalidCase::new(
            format!("{name}.testtype"),
            format!("{got:?} in a problem whose tests are {want:?} (metadata.func_name decides)"),
        ))
    }
}

fn stdin(name: &str, test: &Value) -> Result<StdioCase, InvalidCase> {
    check_type(name, test, "stdin")?;
    Ok(StdioCase {
        stdin: field(name, test, "input")?.to_string(),
        stdout: field(name, test, "output")?.to_string(),
    })
}

fn functional(name: &str, test: &Value) -> Result<FunctionCase, InvalidCase> {
    check_type(name, test, "functional")?;
    let input = field(name, test, "input")?;
    let args = input
        .split('\n')
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| {
                InvalidCase::new(
                    format!("{name}.input"),
                    format!("line {} is not JSON: {e}", i + 1),
                )
            })
        })
        .collect::<Result<Vec<Value>, _>>()?;
    let expected = serde_json::from_str(field(name, test, "output")?)
        .map_err(|e| InvalidCase::new(format!("{name}.output"), format!("not JSON: {e}")))?;
    Ok(FunctionCase { args, expected })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // `base64(zlib(pickle.dumps(json.dumps(tests))))` made by CPython 3.11 (pickle protocol 4),
    // as LiveCodeBench stores `private_test_cases`.
    const PRIVATE_STDIN: &str = "eJxrYJlaxwABPVXR1UqZeQWlJUpWCkrGMXmGCkYKQEpJR0Epv7QEKm4GEShJLS4pqSxIBQkVl6Rk5inV6iggaTeMyTNF12qKU2vsFD0AXywocA==";
    const PRIVATE_FUNCTIONAL: &str = "eJxrYJnqzwABPd7R1UqZeQWlJUpWCkrRRjrmOoaGOoamsTF5lko6Ckr5pSUwOQMdBcNYkFhJanFJSWVBKkg0rTQvuSQzPy8xR6k2dooeABKfGVs=";

    fn record(fields: Value) -> Problem {
        let text = fields.to_string();
        Format::LiveCodeBench.read_detected(0, &text)
    }

    #[test]
    fn compressed_private_tests_are_decoded_without_running_the_pickle() {
        let problem = record(json!({
            "question_title": "Sum", "question_content": "...", "platform": "atcoder",
            "question_id": "abc000_a", "contest_id": "abc000", "contest_date": "2024-01-01T00:00:00",
            "starter_code": "", "difficulty": "easy",
            "public_test_cases": "[{\"input\": \"2\\n1 1\\n\", \"output\": \"2\\n\", \"testtype\": \"stdin\"}]",
            "private_test_cases": PRIVATE_STDIN,
            "metadata": "{}"
        }));
        let Tests::Stdio(tests) = problem.tests else {
            panic!("not stdio")
        };
        assert_eq!(tests.cases.len(), 3);
        assert_eq!(tests.cases[1].name, "private_test_cases[0]");
        assert_eq!(tests.cases[1].body.as_ref().unwrap().stdout, "6\n");
    }

    #[test]
    fn functional_tests_call_the_named_function_with_one_json_value_per_line() {
        let problem = record(json!({
            "question_id": "1", "platform": "leetcode",
            "starter_code": "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
            "public_test_cases": "[{\"input\": \"[3,3]\\n6\", \"output\": \"[0, 1]\", \"testtype\": \"functional\"}]",
            "private_test_cases": PRIVATE_FUNCTIONAL,
            "metadata": "{\"func_name\": \"twoSum\"}"
        }));
        let Tests::Function(tests) = problem.tests else {
            panic!("not functional")
        };
        assert_eq!(tests.fn_name, "twoSum");
        let case = tests.cases[1].body.as_ref().unwrap();
        assert_eq!(case.args, vec![json!([2, 7, 11, 15]), json!(9)]);
        assert_eq!(case.expected, json!([0, 1]));
    }

    #[test]
    fn re_exported_lists_and_metadata_objects_are_read_as_the_values_they_hold() {
        let problem = record(json!({
            "question_id": "3", "platform": "leetcode",
            "public_test_cases": [{"input": "[1,2]", "output": "3", "testtype": "functional"}],
            "private_test_cases": [{"input": "[5,5]", "output": "10", "testtype": "functional"}],
            "metadata": {"func_name": "total"}
        }));
        let Tests::Function(tests) = problem.tests else {
            panic!("not functional")
        };
        assert_eq!(tests.fn_name, "total");
        assert_eq!(tests.cases.len(), 2);
        assert_eq!(tests.cases[1].name, "private_test_cases[0]");
        assert_eq!(tests.cases[1].body.as_ref().unwrap().expected, json!(10));
    }

    #[test]
    fn a_pickle_that_would_call_a_function_is_refused() {
        // pickle of `os.system("true")` made by hand: GLOBAL 'os system', a tuple, REDUCE.
        let pickle = b"cos\nsystem\n(S'true'\ntR.";
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut z, pickle).unwrap();
        let text = base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap());
        let err = decode_private_test_cases(&text).unwrap_err();
        assert!(err.starts_with("not a pickled string"), "{err}");
    }

    #[test]
    fn a_test_of_the_other_type_is_invalid_naming_its_field() {
        let problem = record(json!({
            "question_id": "2",
            "public_test_cases": "[{\"input\": \"1\", \"output\": \"1\", \"testtype\": \"stdin\"}]",
            "private_test_cases": "[]",
            "metadata": "{\"func_name\": \"f\"}"
        }));
        let Tests::Function(tests) = problem.tests else {
            panic!("not functional")
        };
        let err = tests.cases[0].body.as_ref().unwrap_err();
        assert_eq!(err.field, "public_test_cases[0].testtype");
    }
}
