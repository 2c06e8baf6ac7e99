//! The entry point for a judge request: text in, a valid `Submission` or a `RequestError` out.
//!
//! - Text that is not JSON is [`RequestError::NotJson`] (the CLI exits 2).
//! - JSON that does not fit the types, or breaks a rule of [`Submission::validate`], is
//!   [`RequestError::Invalid`]: its report echoes `sub_type`, `category`, `prob_id` and `sub_id`
//!   (read leniently from the raw JSON: strings as they are, numbers as digits) with
//!   `results: []` and a message naming the field, such as
//!   `judge_tasks[0].check_script: unknown variant "compil", expected one of "compile", "standard", "static"`.
//! - Unknown fields are ignored (forward compatibility); a report carries exactly the contract's.

use crate::judge::{JudgeReport, SourceCode, Submission};
use crate::validate::{FieldError, IntoValid, InvalidRequest, Valid};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Write as _;

/// Why a judge request was refused.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The text is not JSON.
    #[error("request is not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// The JSON is not a valid Submission.
    #[error(transparent)]
    Invalid(#[from] InvalidRequest),
}

impl RequestError {
    /// The report for this refusal: `results: []` and the message (echo fields empty when the
    /// text was not JSON).
    pub fn into_report(self) -> JudgeReport {
        match self {
            RequestError::Invalid(invalid) => invalid.into_report(),
            not_json @ RequestError::NotJson(_) => JudgeReport {
                sub_type: String::new(),
                category: String::new(),
                prob_id: String::new(),
                sub_id: String::new(),
                results: Vec::new(),
                message: Some(not_json.to_string()),
            },
        }
    }
}

/// Parses and validates a judge request.
///
/// ```
/// use verdict_contracts::{RequestError, parse_submission};
///
/// let err = parse_submission(r#"{"sub_type": "programming", "category": "oj", "prob_id": "p1",
///     "sub_id": "s1", "updated_at": 0,
///     "judge_tasks": [{"check_script": "compil", "time_limit": 1000}],
///     "submission": {"type": "source_code", "language": "c", "source_files": []}}"#)
///     .unwrap_err();
/// let report = err.into_report();
/// assert_eq!(report.sub_id, "s1");
/// assert!(report.results.is_empty());
/// assert_eq!(
///     report.message.as_deref(),
///     Some(r#"judge_tasks[0].check_script: unknown variant "compil", expected one of "compile", "standard", "static""#)
/// );
/// assert!(matches!(parse_submission("{oops"), Err(RequestError::NotJson(_))));
/// ```
pub fn parse_submission(json: &str) -> Result<Valid<Submission>, RequestError> {
    // A request that fits the types (the common case, and every request refused only for a
    // rule or a cap) is read straight into them: building a `Value` first and tracking the path
    // cost five to eight times as much (contracts' parse bench). Anything else is read again
    // through the `Value`, whose errors name the field; so are duplicate keys, which the
    // `Value` settles (the last one wins) and the types refuse. Only an object is read
    // straight: the types would take an array too.
    if json.trim_start().starts_with('{')
        && let Ok(submission) = serde_json::from_str::<Submission>(json)
    {
        return Ok(submission.into_valid()?);
    }
    let value: Value = serde_json::from_str(json).map_err(RequestError::NotJson)?;
    submission_from_value(&value)
}

/// Reads and validates a judge request already parsed as JSON.
pub fn submission_from_value(value: &Value) -> Result<Valid<Submission>, RequestError> {
    let submission = typed(value).map_err(|error| InvalidRequest {
        sub_type: echo(value, "sub_type"),
        category: echo(value, "category"),
        prob_id: echo(value, "prob_id"),
        sub_id: echo(value, "sub_id"),
        errors: vec![error],
    })?;
    Ok(submission.into_valid()?)
}

/// The request as a Submission, or the first field that does not fit.
fn typed(value: &Value) -> Result<Submission, FieldError> {
    // A Program is internally tagged, which hides the path inside it: read the source code
    // again on its own to name the field.
    typed_object(value, "request", |path| {
        value
            .get(path)
            .filter(|p| p.get("type") == Some(&Value::String("source_code".into())))
            .and_then(misfit::<SourceCode>)
    })
}

/// `value` read as `T`, or the first field that does not fit, by its path. `whole` names the
/// value itself (when it is not an object, or the misfit has no path); `tagged` reads the
/// section at a path again to find the field inside it, since serde's tagged enums hide it.
pub(crate) fn typed_object<T: DeserializeOwned>(
    value: &Value,
    whole: &str,
    tagged: impl FnOnce(&str) -> Option<(String, String)>,
) -> Result<T, FieldError> {
    if !value.is_object() {
        return Err(FieldError::new(
            whole,
            format!(
                "must be a JSON object, not {}",
                crate::data_path::json_kind(value)
            ),
        ));
    }
    serde_path_to_error::deserialize::<_, T>(value).map_err(|err| {
        let path = path_string(err.path());
        let error = match tagged(&path) {
            Some((inner_path, message)) => field_error(&join(&path, &inner_path), &message),
            None => field_error(&path, &err.into_inner().to_string()),
        };
        if error.field == "request" {
            FieldError::new(whole, error.message)
        } else {
            error
        }
    })
}

/// Where and why `value` does not read as `T` (its path and serde's message), if it does not.
pub(crate) fn misfit<T: DeserializeOwned>(value: &Value) -> Option<(String, String)> {
    let err = serde_path_to_error::deserialize::<_, T>(value).err()?;
    Some((path_string(err.path()), err.into_inner().to_string()))
}

/// `outer` and `inner` paths as one (`a.b`, `a[0]`).
pub(crate) fn join(outer: &str, inner: &str) -> String {
    if outer.is_empty() {
        inner.to_owned()
    } else if inner.is_empty() {
        outer.to_owned()
    } else if inner.starts_with('[') {
        format!("{outer}{inner}")
    } else {
        format!("{outer}.{inner}")
    }
}

/// A serde message as a field error: backticks become quotes, a missing field joins the path.
pub(crate) fn field_error(path: &str, message: &str) -> FieldError {
    let message = message.replace('`', "\"");
    if let Some(rest) = message.strip_prefix("missing field \"")
        && let Some(name) = rest.strip_suffix('"')
    {
        return FieldError::new(join(path, name), "required field is missing");
    }
    let field = if path.is_empty() { "request" } else { path };
    FieldError::new(field, message)
}

/// `judge_tasks[0].check_script`; empty for the root.
pub(crate) fn path_string(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            serde_path_to_error::Segment::Seq { index } => {
                let _ = write!(out, "[{index}]");
            }
            serde_path_to_error::Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => {}
        }
    }
    out
}

/// A top-level string of the raw request for the report's echo: strings as they are, numbers as
/// digits, anything else empty.
fn echo(value: &Value, key: &str) -> String {
    match value.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Value {
        json!({
            "sub_type": "programming", "category": "oj", "prob_id": "p1", "sub_id": "s1",
            "updated_at": 1,
            "judge_tasks": [{"check_script": "compile", "depends_on": -1, "time_limit": 10000}],
            "test_data": [],
            "submission": {"type": "source_code", "language": "cpp",
                "source_files": [{"type": "text", "name": "main.cpp", "text": "int main(){}"}]}
        })
    }

    fn message(value: &Value) -> String {
        match submission_from_value(value) {
            Err(RequestError::Invalid(invalid)) => invalid.message(),
            other => panic!("expected an invalid request, got {other:?}"),
        }
    }

    #[test]
    fn minimal_request_parses() {
        assert!(parse_submission(&minimal().to_string()).is_ok());
    }

    #[test]
    fn echo_fields_are_read_leniently() {
        let mut v = minimal();
        v["sub_id"] = json!(42);
        let report = submission_from_value(&v).unwrap_err().into_report();
        assert_eq!(report.sub_id, "42");
        assert_eq!(
            report.message.as_deref(),
            Some(r#"sub_id: invalid type: integer "42", expected a string"#)
        );
        v["prob_id"] = json!(["p"]);
        assert_eq!(
            submission_from_value(&v).unwrap_err().into_report().prob_id,
            ""
        );
    }

    #[test]
    fn not_json_is_its_own_error() {
        let err = parse_submission("{\"sub_type\": ").unwrap_err();
        assert!(matches!(err, RequestError::NotJson(_)));
        let report = err.into_report();
        assert!(report.results.is_empty());
        assert!(report.message.unwrap().starts_with("request is not JSON: "));
    }

    #[test]
    fn type_errors_name_the_path_and_echo_the_ids() {
        let mut v = minimal();
        v["judge_tasks"][0]["check_script"] = json!("compil");
        let err = submission_from_value(&v).unwrap_err();
        let report = err.into_report();
        assert_eq!(report.sub_id, "s1");
        assert_eq!(report.prob_id, "p1");
        assert_eq!(report.sub_type, "programming");
        assert_eq!(
            report.message.as_deref(),
            Some(
                r#"judge_tasks[0].check_script: unknown variant "compil", expected one of "compile", "standard", "static""#
            )
        );
    }

    #[test]
    fn missing_fields_are_named() {
        let mut v = minimal();
        v["judge_tasks"][0]
            .as_object_mut()
            .unwrap()
            .remove("time_limit");
        assert_eq!(
            message(&v),
            "judge_tasks[0].time_limit: required field is missing"
        );
        let mut v = minimal();
        v.as_object_mut().unwrap().remove("submission");
        assert_eq!(message(&v), "submission: required field is missing");
    }

    #[test]
    fn errors_inside_a_program_name_the_inner_path() {
        let mut v = minimal();
        v["submission"]["source_files"][0]["type"] = json!("ftp");
        assert_eq!(
            message(&v),
            r#"submission.source_files[0].type: unknown variant "ftp", expected one of "text", "remote", "local""#
        );
        let mut v = minimal();
        v["submission"]["language"] = json!("cobol");
        assert!(
            message(&v).starts_with(
                r#"submission.language: unknown variant "cobol", expected one of "ada""#
            )
        );
        let mut v = minimal();
        v["submission"]["type"] = json!("binary");
        assert_eq!(
            message(&v),
            r#"submission.type: unknown variant "binary", expected "source_code""#
        );
    }

    #[test]
    fn a_non_object_request_is_invalid_not_unreadable() {
        assert_eq!(
            message(&json!([1])),
            "request: must be a JSON object, not an array"
        );
    }

    /// The text path reads a request that fits the types straight into them: a top-level array
    /// of the fields in order would fit them too, and is still refused as not an object.
    #[test]
    fn a_top_level_array_is_refused_by_the_text_path_too() {
        let v = minimal();
        let fields = [
            "sub_type",
            "category",
            "prob_id",
            "sub_id",
            "updated_at",
            "judge_tasks",
            "test_data",
            "submission",
        ];
        let array = Value::Array(fields.iter().map(|f| v[f].clone()).collect());
        match parse_submission(&format!(" \n{array}")) {
            Err(RequestError::Invalid(invalid)) => assert_eq!(
                invalid.message(),
                "request: must be a JSON object, not an array"
            ),
            other => panic!("expected an invalid request, got {other:?}"),
        }
    }

    /// Duplicate keys: the types refuse them, the `Value` keeps the last; the text path takes
    /// the request as it always did.
    #[test]
    fn a_duplicate_key_is_read_as_its_last_value_by_the_text_path() {
        let text = minimal().to_string().replacen(
            "\"sub_id\":\"s1\"",
            "\"sub_id\":\"first\",\"sub_id\":\"s1\"",
            1,
        );
        assert!(text.contains("\"first\""), "{text}");
        let submission = parse_submission(&text).expect("valid");
        assert_eq!(submission.sub_id, "s1");
    }

    /// The text path and the `Value` path agree: the same Submission, or the same refusal
    /// naming the same field, for requests that fit the types, break a rule, or do not fit.
    #[test]
    fn the_text_path_answers_as_the_value_path_does() {
        let mut cases = vec![minimal()];
        let mut edit = |f: &dyn Fn(&mut Value)| {
            let mut v = minimal();
            f(&mut v);
            cases.push(v);
        };
        edit(&|v| v["judge_tasks"][0]["time_limit"] = json!(0));
        edit(&|v| v["judge_tasks"][0]["check_script"] = json!("compil"));
        edit(&|v| v["sub_id"] = json!(42));
        edit(&|v| v["submission"]["language"] = json!("cobol"));
        edit(&|v| v["submission"]["source_files"][0]["name"] = json!(7));
        edit(&|v| v["updated_at"] = json!("2024-01-01T00:00:00Z"));
        edit(&|v| v["priority"] = json!({"nested": [1, 2]}));
        edit(&|v| {
            v.as_object_mut().expect("object").remove("judge_tasks");
        });
        for v in cases {
            let by_text = parse_submission(&v.to_string()).map_err(|e| e.into_report());
            let by_value = submission_from_value(&v).map_err(|e| e.into_report());
            match (by_text, by_value) {
                (Ok(a), Ok(b)) => assert_eq!(*a, *b),
                (Err(a), Err(b)) => assert_eq!(a, b, "{v}"),
                (a, b) => panic!("{v}: text {a:?}, value {b:?}"),
            }
        }
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let mut v = minimal();
        v["priority"] = json!(9);
        v["judge_tasks"][0]["future_knob"] = json!(true);
        assert!(submission_from_value(&v).is_ok());
    }

    #[test]
    fn rule_violations_come_after_parsing() {
        let mut v = minimal();
        v["judge_tasks"][0]["time_limit"] = json!(0);
        let report = submission_from_value(&v).unwrap_err().into_report();
        assert_eq!(report.sub_id, "s1");
        assert_eq!(
            report.message.as_deref(),
            Some("judge_tasks[0].time_limit: must be a positive number of milliseconds (got 0)")
        );
    }
}
