//! FastAPI's answer to a request that does not fit its model: `422` with
//! `{"detail": [{"type", "loc", "msg", "input", "ctx"?}]}`, pydantic v2's error shapes, so a
//! SandboxFusion client reads verdict's refusals as it reads SandboxFusion's.

use serde::Serialize;
use serde_json::{Value, json};

/// One entry of FastAPI's `detail` list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Detail {
    /// pydantic's error type (`missing`, `string_type`, `enum`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Where: `["body", field, ...]`.
    pub loc: Vec<Value>,
    /// pydantic's message.
    pub msg: String,
    /// The value at fault.
    pub input: Value,
    /// pydantic's context, for some types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctx: Option<Value>,
}

impl Detail {
    fn new(kind: &str, loc: &[Value], msg: impl Into<String>, input: &Value) -> Detail {
        let mut full = vec![json!("body")];
        full.extend(loc.iter().cloned());
        Detail {
            kind: kind.into(),
            loc: full,
            msg: msg.into(),
            input: input.clone(),
            ctx: None,
        }
    }

    /// The body is not JSON.
    pub fn json_invalid(error: &serde_json::Error) -> Detail {
        Detail {
            ctx: Some(json!({"error": error.to_string()})),
            ..Detail::new(
                "json_invalid",
                &[json!(error.column())],
                "JSON decode error",
                &json!({}),
            )
        }
    }

    /// The body is JSON but not an object.
    pub fn not_object(body: &Value) -> Detail {
        Detail::new(
            "model_attributes_type",
            &[],
            "Input should be a valid dictionary or object to extract fields from",
            body,
        )
    }

    /// A required field is absent (`body` is the whole request, as pydantic echoes it).
    pub fn missing(field: &str, body: &Value) -> Detail {
        Detail::new("missing", &[json!(field)], "Field required", body)
    }

    /// Not a string.
    pub fn string(field: &str, input: &Value) -> Detail {
        Detail::string_at(&[field], input)
    }

    /// Not a string, at a nested path.
    pub fn string_at(path: &[&str], input: &Value) -> Detail {
        let loc: Vec<Value> = path.iter().map(|p| json!(p)).collect();
        Detail::new("string_type", &loc, "Input should be a valid string", input)
    }

    /// A list item that is not a string.
    pub fn string_index(field: &str, index: usize, input: &Value) -> Detail {
        Detail::new(
            "string_type",
            &[json!(field), json!(index)],
            "Input should be a valid string",
            input,
        )
    }

    /// Not a number.
    pub fn float(field: &str, input: &Value) -> Detail {
        match input {
            Value::String(_) => Detail::new(
                "float_parsing",
                &[json!(field)],
                "Input should be a valid number, unable to parse string as a number",
                input,
            ),
            _ => Detail::new(
                "float_type",
                &[json!(field)],
                "Input should be a valid number",
                input,
            ),
        }
    }

    /// Not an integer.
    pub fn int(field: &str, input: &Value) -> Detail {
        match input {
            Value::String(_) => Detail::new(
                "int_parsing",
                &[json!(field)],
                "Input should be a valid integer, unable to parse string as an integer",
                input,
            ),
            Value::Number(_) => Detail::new(
                "int_from_float",
                &[json!(field)],
                "Input should be a valid integer, got a number with a fractional part",
                input,
            ),
            _ => Detail::new(
                "int_type",
                &[json!(field)],
                "Input should be a valid integer",
                input,
            ),
        }
    }

    /// Not an object.
    pub fn dict(field: &str, input: &Value) -> Detail {
        Detail::new(
            "dict_type",
            &[json!(field)],
            "Input should be a valid dictionary",
            input,
        )
    }

    /// Not a list.
    pub fn list(field: &str, input: &Value) -> Detail {
        Detail::new(
            "list_type",
            &[json!(field)],
            "Input should be a valid list",
            input,
        )
    }

    /// A language name this server does not run: pydantic's `enum` error, the message saying
    /// which names it takes.
    pub fn language(name: &str, message: String) -> Detail {
        Detail {
            ctx: Some(json!({"expected": message.clone()})),
            ..Detail::new("enum", &[json!("language")], message, &json!(name))
        }
    }

    /// A language that is not a string.
    pub fn language_type(input: &Value) -> Detail {
        Detail::new(
            "enum",
            &[json!("language")],
            "Input should be a valid string",
            input,
        )
    }

    /// A value of the right type that this server refuses (pydantic's `value_error`).
    pub fn value_error(path: &[&str], why: &str, input: &Value) -> Detail {
        let loc: Vec<Value> = path.iter().map(|p| json!(p)).collect();
        Detail {
            ctx: Some(json!({"error": why})),
            ..Detail::new("value_error", &loc, format!("Value error, {why}"), input)
        }
    }

    /// [`Detail::value_error`] for a list item.
    pub fn value_error_index(field: &str, index: usize, why: &str, input: &Value) -> Detail {
        Detail {
            ctx: Some(json!({"error": why})),
            ..Detail::new(
                "value_error",
                &[json!(field), json!(index)],
                format!("Value error, {why}"),
                input,
            )
        }
    }
}

/// A number as pydantic's lax mode reads a float: a JSON number, or a string of one.
pub fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// An integer as pydantic's lax mode reads one: an integer, a float without a fraction, or a
/// string of an integer.
pub fn int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// FastAPI's 422 body.
pub fn body(details: &[Detail]) -> Value {
    json!({"detail": details})
}
