//! Building test cases from the values datasets store, with the checks every reader shares.

use crate::jsonl::kind;
use crate::problem::{Case, FunctionCase, InvalidCase, StdioCase};
use serde_json::Value;

/// A stdin/stdout case from two values that are strings, or lists of lines joined by `\n`
/// (APPS's and TACO's `input_output` store both shapes).
pub(crate) fn stdio_case(
    name: String,
    input: (&str, &Value),
    output: (&str, &Value),
) -> Case<StdioCase> {
    let body = text_or_lines(input.0, input.1).and_then(|stdin| {
        text_or_lines(output.0, output.1).map(|stdout| StdioCase { stdin, stdout })
    });
    Case { name, body }
}

fn text_or_lines(field: &str, value: &Value) -> Result<String, InvalidCase> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Array(lines) => {
            let mut parts = Vec::with_capacity(lines.len());
            for (i, line) in lines.iter().enumerate() {
                match line {
                    Value::String(s) => parts.push(s.as_str()),
                    other => {
                        return Err(InvalidCase::new(
                            format!("{field}[{i}]"),
                            format!("expected a line of text, found {}", kind(other)),
                        ));
                    }
                }
            }
            Ok(parts.join("\n"))
        }
        other => Err(InvalidCase::new(
            field,
            format!("expected text or a list of lines, found {}", kind(other)),
        )),
    }
}

/// A function case whose `input` is the args list and whose `output` is the return value as
/// APPS, TACO and `verification_info` store it. A one-element list is refused: those datasets
/// wrap return values in a list in some records and not in others, and APPS's own harness
/// accepts either reading, so the expected value cannot be told.
pub(crate) fn wrapped_function_case(
    name: String,
    input: (&str, &Value),
    output: (&str, &Value),
) -> Case<FunctionCase> {
    let body = match input.1 {
        Value::Array(args) => match output.1 {
            Value::Array(items) if items.len() == 1 => Err(InvalidCase::new(
                output.0,
                "a one-element list is either the return value or the dataset's wrapping of it; \
                 the record does not say which",
            )),
            expected => Ok(FunctionCase {
                args: args.clone(),
                expected: expected.clone(),
            }),
        },
        other => Err(InvalidCase::new(
            input.0,
            format!(
                "a function call's input must be an args list, found {}",
                kind(other)
            ),
        )),
    };
    Case { name, body }
}

/// The names called in Python test code (`name(` not preceded by `.`), in order, once each.
pub(crate) fn called_names(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let after_dot = start > 0 && bytes[start - 1] == b'.';
            let mut j = i;
            while j < bytes.len() && bytes[j] == b' ' {
                j += 1;
            }
            let name = &code[start..i];
            if !after_dot
                && j < bytes.len()
                && bytes[j] == b'('
                && !is_keyword(name)
                && !names.iter().any(|n| n == name)
            {
                names.push(name.to_string());
            }
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    names
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "assert"
            | "and"
            | "or"
            | "not"
            | "in"
            | "is"
            | "if"
            | "else"
            | "for"
            | "while"
            | "return"
            | "lambda"
            | "print"
            | "def"
            | "class"
            | "elif"
            | "with"
            | "yield"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_of_lines_are_joined_with_newlines() {
        let case = stdio_case(
            "t".into(),
            ("inputs[0]", &json!(["1 2", "3"])),
            ("outputs[0]", &json!("6\n")),
        );
        assert_eq!(case.body.unwrap().stdin, "1 2\n3");
    }

    #[test]
    fn a_one_element_list_output_is_ambiguous_and_named() {
        let case = wrapped_function_case(
            "t".into(),
            ("inputs[0]", &json!([89, 1])),
            ("input_output.outputs[0]", &json!([1])),
        );
        let err = case.body.unwrap_err();
        assert_eq!(err.field, "input_output.outputs[0]");
    }

    #[test]
    fn other_outputs_are_taken_as_they_are() {
        let case =
            wrapped_function_case("t".into(), ("i", &json!([[1, 2]])), ("o", &json!([3, 4])));
        assert_eq!(case.body.unwrap().expected, json!([3, 4]));
        let bad = wrapped_function_case("t".into(), ("i", &json!(5)), ("o", &json!(5)));
        assert!(bad.body.unwrap_err().message.contains("args list"));
    }

    #[test]
    fn called_names_skip_methods_keywords_and_repeats() {
        let names = called_names("assert set(f(1)) == set([1])\nassert math.isclose(g (2.5), 1)");
        assert_eq!(names, ["set", "f", "g"]);
    }
}
