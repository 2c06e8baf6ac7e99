//! The server's one error type: every failure becomes a JSON body
//! `{"error": {"code", "message", "field"?}}` with its status; internals are logged, not sent.
//! Also why a configuration is refused ([`ConfigError`]), before anything is served: here, below
//! `config.rs` and the platforms' sections that check their own keys.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use verdict_contracts::JudgeReport;
use verdict_submissions::SubmissionError;

/// Why a request was not served.
#[derive(Debug)]
pub enum ApiError {
    /// No or a wrong bearer token (401).
    Unauthorized(String),
    /// The token may not do this (403); the message names the field.
    Forbidden {
        /// The field at fault.
        field: String,
        /// Why.
        message: String,
    },
    /// Nothing at this path, or no such submission (404).
    NotFound(String),
    /// The path exists but not with this method (405).
    MethodNotAllowed,
    /// The body is not JSON or not UTF-8 (400).
    BadRequest {
        /// The field at fault (`body` for the whole body).
        field: String,
        /// Why.
        message: String,
    },
    /// The JSON does not fit the request type (422); the message names the field.
    Invalid {
        /// The field at fault.
        field: String,
        /// Why.
        message: String,
    },
    /// A Submission that does not fit the contract (422): the contract's report (`results: []`,
    /// a message naming the field) plus the `error` object.
    InvalidSubmission {
        /// The report.
        report: Box<JudgeReport>,
        /// The first field at fault.
        field: String,
    },
    /// A submission with this `sub_id` is still queued or running (409).
    Conflict(String),
    /// The body is larger than `max_body_kb` (413).
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The queue or the direct pool is full (429 with Retry-After).
    Busy {
        /// What is full.
        message: String,
        /// Seconds after which to retry.
        retry_after_secs: u64,
    },
    /// The server is shutting down (503).
    ShuttingDown,
    /// Something the server needs is unreachable for now, such as a front end's broker (503
    /// with Retry-After); nothing was accepted.
    Unavailable {
        /// What is unreachable, and why.
        message: String,
        /// Seconds after which to retry.
        retry_after_secs: u64,
    },
    /// The request took too long (504).
    Timeout(String),
    /// The server failed (500): the detail is logged, the client gets a generic message.
    Internal(String),
}

impl ApiError {
    /// A 400 about the body.
    pub fn bad_body(message: impl Into<String>) -> Self {
        ApiError::BadRequest {
            field: "body".into(),
            message: message.into(),
        }
    }

    /// A 422 naming `field`.
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            ApiError::Invalid { .. } | ApiError::InvalidSubmission { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Busy { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::ShuttingDown | ApiError::Unavailable { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::Forbidden { .. } => "forbidden",
            ApiError::NotFound(_) => "not_found",
            ApiError::MethodNotAllowed => "method_not_allowed",
            ApiError::BadRequest { .. } => "bad_request",
            ApiError::Invalid { .. } => "invalid_request",
            ApiError::InvalidSubmission { .. } => "invalid_submission",
            ApiError::Conflict(_) => "conflict",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::Busy { .. } => "busy",
            ApiError::ShuttingDown => "shutting_down",
            ApiError::Unavailable { .. } => "unavailable",
            ApiError::Timeout(_) => "timeout",
            ApiError::Internal(_) => "internal",
        }
    }

    fn body(&self) -> ErrorBody {
        let (field, message) = match self {
            ApiError::Unauthorized(m) => (Some("Authorization".to_owned()), m.clone()),
            ApiError::Forbidden { field, message }
            | ApiError::BadRequest { field, message }
            | ApiError::Invalid { field, message } => (Some(field.clone()), message.clone()),
            ApiError::InvalidSubmission { report, field } => (
                Some(field.clone()),
                report.message.clone().unwrap_or_default(),
            ),
            ApiError::NotFound(m) | ApiError::Conflict(m) | ApiError::Timeout(m) => {
                (None, m.clone())
            }
            ApiError::Busy { message, .. } | ApiError::Unavailable { message, .. } => {
                (None, message.clone())
            }
            ApiError::MethodNotAllowed => (None, "method not allowed on this path".into()),
            ApiError::PayloadTooLarge { limit } => (
                Some("body".into()),
                format!("body: larger than the limit of {limit} bytes (max_body_kb)"),
            ),
            ApiError::ShuttingDown => (
                None,
                "the server is shutting down and accepts no new work".into(),
            ),
            ApiError::Internal(_) => (
                None,
                "internal error; the server's log has the details".into(),
            ),
        };
        ErrorBody {
            code: self.code(),
            message,
            field,
        }
    }
}

/// The one place a refusal of the submission store or queue becomes HTTP.
impl From<SubmissionError> for ApiError {
    fn from(err: SubmissionError) -> Self {
        match err {
            SubmissionError::Conflict { .. } => ApiError::Conflict(err.to_string()),
            SubmissionError::QueueFull {
                retry_after_secs, ..
            }
            | SubmissionError::QueueBytesFull {
                retry_after_secs, ..
            } => ApiError::Busy {
                message: err.to_string(),
                retry_after_secs,
            },
            SubmissionError::ShuttingDown => ApiError::ShuttingDown,
            // The host's fault, which may pass (a full, read-only or removed data disk): 503
            // with Retry-After, and nothing accepted. The detail (host paths) goes to the log.
            SubmissionError::Db(ref db) if db.is_unavailable() => {
                tracing::error!("the submission store cannot take a write: {err}");
                ApiError::Unavailable {
                    message: "the submission store cannot take a write now (its disk is full, \
                              read-only or its data dir was removed); nothing was accepted: \
                              retry later"
                        .into(),
                    retry_after_secs: 5,
                }
            }
            // A frozen or stalled data disk: 503 with Retry-After, nothing accepted.
            SubmissionError::Stalled { .. } => {
                tracing::error!("{err}");
                ApiError::Unavailable {
                    message: err.to_string(),
                    retry_after_secs: 5,
                }
            }
            SubmissionError::Db(_) | SubmissionError::Internal(_) => {
                ApiError::Internal(err.to_string())
            }
        }
    }
}

/// Every error response: `{"error": {...}}`.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "Error")]
pub struct ErrorResponse {
    /// What went wrong.
    pub error: ErrorBody,
}

/// The `error` object of every error response.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ErrorBody {
    /// Machine-readable: unauthorized, forbidden, not_found, method_not_allowed, bad_request,
    /// invalid_request, invalid_submission, conflict, payload_too_large, busy, shutting_down,
    /// unavailable, timeout, internal.
    pub code: &'static str,
    /// What went wrong, naming the field.
    pub message: String,
    /// The field at fault, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if let ApiError::Internal(detail) = &self {
            tracing::error!(%detail, "internal error");
        } else {
            tracing::debug!(
                status = status.as_u16(),
                code = self.code(),
                "request refused"
            );
        }
        let error = self.body();
        let body = match &self {
            ApiError::InvalidSubmission { report, .. } => {
                let mut value = serde_json::to_value(report.as_ref()).unwrap_or_else(|_| json!({}));
                if let Some(object) = value.as_object_mut() {
                    object.insert("error".into(), json!(error));
                }
                value
            }
            _ => serde_json::to_value(ErrorResponse { error }).unwrap_or_else(|_| json!({})),
        };
        let mut response = (status, axum::Json(body)).into_response();
        let headers = response.headers_mut();
        match &self {
            ApiError::Busy {
                retry_after_secs, ..
            }
            | ApiError::Unavailable {
                retry_after_secs, ..
            } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after_secs));
            }
            ApiError::Unauthorized(_) => {
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"verdict\""),
                );
            }
            ApiError::ShuttingDown => {
                headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            _ => {}
        }
        response
    }
}

/// Why a configuration is refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not TOML, or an unknown or mistyped key (the message names it).
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// A value out of range.
    #[error("{key}: {message}")]
    Value {
        /// The key at fault.
        key: String,
        /// What is wrong with it.
        message: String,
    },
}

/// `[("key", value as f64), ...]` of fields of `$config` (or paths below it, `limits.x`): each
/// key is its field's path, written once. For [`ConfigError::check_positive`].
macro_rules! keyed_values {
    ($config:expr => $($($field:ident).+),* $(,)?) => {
        [$((stringify!($($field).+), $config.$($field).+ as f64)),*]
    };
}
pub(crate) use keyed_values;

impl ConfigError {
    /// Checks that every value is a finite number above 0, else names the first that is not
    /// (`{prefix}{key}: {message}`).
    pub(crate) fn check_positive(
        prefix: &str,
        values: &[(&str, f64)],
        message: &str,
    ) -> Result<(), ConfigError> {
        match values
            .iter()
            .find(|(_, value)| !(value.is_finite() && *value > 0.0))
        {
            Some((key, _)) => Err(ConfigError::Value {
                key: format!("{prefix}{key}"),
                message: message.into(),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_submission_names_the_field() {
        let report = JudgeReport {
            sub_type: "programming".into(),
            category: "oj".into(),
            prob_id: "p".into(),
            sub_id: "s".into(),
            results: vec![],
            message: Some("judge_tasks[2].testcase_id: 7 is out of range (3 test data)".into()),
        };
        let body = ApiError::InvalidSubmission {
            report: Box::new(report),
            field: "judge_tasks[2].testcase_id".into(),
        }
        .body();
        assert_eq!(body.field.as_deref(), Some("judge_tasks[2].testcase_id"));
        assert_eq!(body.code, "invalid_submission");
    }

    #[test]
    fn internal_errors_do_not_leak() {
        let body = ApiError::Internal("/secret/path: permission denied".into()).body();
        assert!(!body.message.contains("secret"));
    }
}
