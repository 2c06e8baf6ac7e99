//! What a `sub_id` and a `category` may be on a server, and a Submission read as a server takes
//! it ([`read_submission`]). They name a submission in a URL
//! (`/v1/submissions/{sub_id}?category=...`) and in the store, so: not empty (an empty
//! `sub_id` would be `GET /v1/submissions/`, which names nothing), at most [`MAX_ID_BYTES`],
//! not `.` or `..` (URL resolution removes those path segments before a request is sent), and no
//! control characters (they cannot be written in logs or headers as they are). Everything else,
//! `/`, `?`, `%`, spaces or any Unicode, is allowed: the server percent-encodes it in the URLs it
//! gives out, so a platform's existing ids keep working.

use verdict_contracts::{
    Caps, FieldError, InvalidRequest, RequestError, Submission, Valid, parse_submission,
};

/// The longest `sub_id` or `category`, in bytes of UTF-8.
pub const MAX_ID_BYTES: usize = 256;

/// The problems of one id named `field`, if any.
fn check_id(field: &str, value: &str) -> Option<FieldError> {
    let why = if value.is_empty() {
        "must not be empty".to_owned()
    } else if value.len() > MAX_ID_BYTES {
        format!(
            "is {} bytes long; at most {MAX_ID_BYTES} are allowed",
            value.len()
        )
    } else if value == "." || value == ".." {
        format!("{value:?} cannot be a URL path segment")
    } else if let Some(c) = value.chars().find(|c| c.is_control()) {
        format!(
            "must not contain control characters (found U+{:04X})",
            c as u32
        )
    } else {
        return None;
    };
    // The field is named once: `FieldError` puts it in front of the message.
    Some(FieldError::new(field, why))
}

/// The problems of a Submission's `category` and `sub_id` (empty: none).
pub fn check_ids(submission: &Submission) -> Vec<FieldError> {
    [
        check_id("category", &submission.category),
        check_id("sub_id", &submission.sub_id),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Reads a Submission as a server takes it, once: parsed and validated
/// ([`parse_submission`]), then its `category` and `sub_id` checked as ids and the whole
/// against the operator's `caps`; a refusal lists every problem, each naming its field.
pub fn read_submission(text: &str, caps: &Caps) -> Result<Valid<Submission>, RequestError> {
    let submission = parse_submission(text)?;
    let mut errors = check_ids(&submission);
    errors.extend(caps.check_submission(&submission));
    if errors.is_empty() {
        Ok(submission)
    } else {
        Err(RequestError::Invalid(InvalidRequest::of(
            &submission,
            errors,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_cannot_name_a_submission_are_refused() {
        for bad in ["", ".", "..", "a\nb", "tab\there", "\u{7f}"] {
            assert!(check_id("sub_id", bad).is_some(), "{bad:?}");
        }
        let long = "x".repeat(MAX_ID_BYTES + 1);
        let err = check_id("sub_id", &long).unwrap();
        assert!(err.message.starts_with("is 257 bytes long"), "{err:?}");
        assert_eq!(
            check_id("sub_id", "").unwrap().to_string(),
            "sub_id: must not be empty",
            "the field is named once"
        );
    }

    #[test]
    fn a_submission_read_by_a_server_names_its_bad_ids_and_its_caps_together() {
        let text = r#"{"sub_type": "programming", "category": "..", "prob_id": "p",
            "sub_id": "", "updated_at": 1, "test_data": [],
            "judge_tasks": [{"check_script": "compile", "depends_on": -1, "time_limit": 5000}],
            "submission": {"type": "source_code", "language": "c",
              "source_files": [{"type": "text", "name": "main.c", "text": "int main(){}"}]}}"#;
        let caps = Caps {
            time_limit_ms: 1000,
            ..Caps::default()
        };
        let Err(RequestError::Invalid(invalid)) = read_submission(text, &caps) else {
            panic!("refused as invalid");
        };
        let fields: Vec<&str> = invalid.errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            ["category", "sub_id", "judge_tasks[0].time_limit"],
            "{invalid}"
        );
        let within = Caps {
            time_limit_ms: 5000,
            ..Caps::default()
        };
        let fixed = text
            .replace(r#""category": "..""#, r#""category": "c""#)
            .replace(r#""sub_id": """#, r#""sub_id": "s""#);
        assert_eq!(read_submission(&fixed, &within).expect("read").sub_id, "s");
    }

    #[test]
    fn ordinary_ids_pass() {
        for good in [
            "1",
            "a-b_c.d~e",
            "a/b",
            "a b",
            "100%",
            "提交-1",
            "...",
            &"x".repeat(256),
        ] {
            assert!(check_id("sub_id", good).is_none(), "{good:?}");
        }
    }
}
