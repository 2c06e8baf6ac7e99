//! APPS (`codeparrot/apps`) and TACO (`BAAI/TACO`): `input_output` is JSON text
//! `{"inputs": [...], "outputs": [...], "fn_name"?: "..."}`.
//!
//! Without `fn_name` each input and output is text, or a list of lines joined by `\n` (as APPS's
//! `testing_util.py` joins them). With `fn_name` each input is the args list and each output the
//! return value, called as `Solution().fn_name(*args)` when the candidate defines
//! `class Solution`, else as a module-level function (the same rule as `testing_util.py`). An
//! output that is a one-element list is `invalid_test_format`: these datasets wrap some return
//! values in a list and not others, and the record does not say which. The id is `problem_id`
//! when the record has one (APPS), else the record's 0-based index (TACO has no id field).
//! TACO's `time_limit` (`"2 seconds"`) and `memory_limit` (`"256 megabytes"`) are read when
//! they have that shape.

use crate::cases::{stdio_case, wrapped_function_case};
use crate::format::Fields;
use crate::jsonl::kind;
use crate::problem::{
    CallStyle, Case, FunctionTests, InvalidCase, Limits, Problem, StdioTests, Tests,
};
use crate::{Error, Format};
use serde_json::Value;

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = if r.record.fields.contains_key("problem_id") {
        r.id_field("problem_id")?
    } else {
        r.index.to_string()
    };
    let limits = Limits {
        time_ms: r.opt_str("time_limit").ok().flatten().and_then(seconds_ms),
        memory_bytes: r.opt_str("memory_limit").ok().flatten().and_then(megabytes),
    };
    let empty = matches!(r.get("input_output")?, Value::String(s) if s.trim().is_empty());
    let io = if empty {
        Value::Null
    } else {
        r.json_or_text("input_output")?
    };
    let tests = tests_of(&io);
    Ok(Problem {
        task_id,
        format: Format::Apps,
        prompt: None,
        tests,
        limits,
    })
}

fn tests_of(io: &Value) -> Tests {
    let invalid = |field: &str, message: String| {
        Tests::Stdio(StdioTests {
            cases: vec![Case {
                name: field.to_string(),
                body: Err(InvalidCase::new(field, message)),
            }],
        })
    };
    let Value::Object(io) = io else {
        return invalid(
            "input_output",
            format!(
                "expected an object of inputs and outputs, found {}",
                kind(io)
            ),
        );
    };
    let (Some(Value::Array(inputs)), Some(Value::Array(outputs))) =
        (io.get("inputs"), io.get("outputs"))
    else {
        return invalid(
            "input_output",
            "expected lists `inputs` and `outputs`".to_string(),
        );
    };
    if inputs.len() != outputs.len() {
        return invalid(
            "input_output.outputs",
            format!("{} inputs but {} outputs", inputs.len(), outputs.len()),
        );
    }
    let names = (0..inputs.len()).map(|i| {
        (
            format!("input_output.inputs[{i}]"),
            format!("input_output.outputs[{i}]"),
        )
    });
    match io.get("fn_name") {
        None | Some(Value::Null) => Tests::Stdio(StdioTests {
            cases: names
                .zip(inputs.iter().zip(outputs))
                .map(|((i, o), (input, output))| stdio_case(i.clone(), (&i, input), (&o, output)))
                .collect(),
        }),
        Some(Value::String(fn_name)) if !fn_name.is_empty() => Tests::Function(FunctionTests {
            fn_name: fn_name.clone(),
            call: CallStyle::SolutionOrModule,
            tolerance: None,
            cases: names
                .zip(inputs.iter().zip(outputs))
                .map(|((i, o), (input, output))| {
                    wrapped_function_case(i.clone(), (&i, input), (&o, output))
                })
                .collect(),
        }),
        Some(other) => invalid(
            "input_output.fn_name",
            format!("a function call without a name ({})", kind(other)),
        ),
    }
}

/// `"2 seconds"`, `"1 second"`, `"2.5 seconds"` in milliseconds.
fn seconds_ms(text: &str) -> Option<u64> {
    let mut words = text.split_whitespace();
    let number: f64 = words.next()?.parse().ok()?;
    let unit = words.next()?;
    (matches!(unit, "second" | "seconds") && words.next().is_none() && number > 0.0)
        .then(|| (number * 1000.0).round() as u64)
}

/// `"256 megabytes"` in bytes.
fn megabytes(text: &str) -> Option<u64> {
    let mut words = text.split_whitespace();
    let number: u64 = words.next()?.parse().ok()?;
    let unit = words.next()?;
    (matches!(unit, "megabyte" | "megabytes") && words.next().is_none())
        .then(|| number.saturating_mul(1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_one(fields: Value) -> Problem {
        Format::Apps.read_detected(7, &fields.to_string())
    }

    #[test]
    fn stdio_records_join_lists_of_lines() {
        let problem = read_one(json!({
            "problem_id": 4000, "question": "...", "solutions": "[]", "difficulty": "introductory",
            "url": "https://codeforces.com/problemset/problem/1/A", "starter_code": "",
            "input_output": "{\"inputs\": [\"6 6 4\\n\", [\"1 1\", \"1\"]], \"outputs\": [\"4\\n\", [\"1\"]]}"
        }));
        assert_eq!(problem.task_id, "4000");
        let Tests::Stdio(tests) = problem.tests else {
            panic!("not stdio")
        };
        assert_eq!(tests.cases[1].body.as_ref().unwrap().stdin, "1 1\n1");
    }

    #[test]
    fn call_based_records_refuse_one_element_list_outputs_naming_the_field() {
        let problem = read_one(json!({
            "problem_id": 2500, "starter_code": "def dig_pow(n, p):\n\t",
            "input_output": "{\"fn_name\": \"dig_pow\", \"inputs\": [[89, 1], [92, 1]], \"outputs\": [[1], -1]}"
        }));
        let Tests::Function(tests) = problem.tests else {
            panic!("not a function test")
        };
        assert_eq!(tests.fn_name, "dig_pow");
        let err = tests.cases[0].body.as_ref().unwrap_err();
        assert_eq!(
            err.report(&problem.task_id),
            "invalid_test_format: record 2500 field input_output.outputs[0]: a one-element list \
             is either the return value or the dataset's wrapping of it; the record does not say which"
        );
        assert_eq!(tests.cases[1].body.as_ref().unwrap().expected, json!(-1));
    }

    #[test]
    fn a_function_call_without_a_name_is_invalid() {
        let problem = read_one(json!({
            "input_output": "{\"fn_name\": \"\", \"inputs\": [[1]], \"outputs\": [2]}"
        }));
        let Tests::Stdio(tests) = problem.tests else {
            panic!("an invalid record reads as one invalid case")
        };
        assert_eq!(
            tests.cases[0].body.as_ref().unwrap_err().field,
            "input_output.fn_name"
        );
    }

    #[test]
    fn taco_records_use_their_index_and_limits() {
        let problem = read_one(json!({
            "question": "...", "solutions": "[]", "starter_code": "",
            "input_output": "{\"inputs\": [\"1\\n\"], \"outputs\": [\"1\\n\"]}",
            "time_limit": "2.5 seconds", "memory_limit": "256 megabytes", "source": "codeforces"
        }));
        assert_eq!(problem.task_id, "7");
        assert_eq!(problem.limits.time_ms, Some(2500));
        assert_eq!(problem.limits.memory_bytes, Some(256 << 20));
    }

    #[test]
    fn an_empty_input_output_is_one_invalid_case() {
        let problem = read_one(json!({"problem_id": 1, "input_output": ""}));
        assert_eq!(problem.tests.len(), 1);
    }
}
