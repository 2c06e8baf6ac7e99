//! The `http` runner: POSTs each task (JSON, without `expected` unless
//! [`HttpRunner::send_expected`] is set) to an agent endpoint; the response body (JSON) is
//! the output. A status other than 2xx, a body that is not JSON, a refused connection or the
//! task's timeout (`metadata.timeout`, else the runner's default) fail the run. Requests go
//! through `verdict-fetch`: only the configured host is reached (at whatever address the
//! operator's name resolves to); a redirect elsewhere is refused (docs/server.md, "Remote
//! fetches (SSRF)").

use crate::VERDICT_VERSION;
use crate::command::{AgentCall, DEFAULT_TIMEOUT_MS};
use crate::traits::{LabError, Runner};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::time::Duration;
use verdict_contracts::{AtomicTask, RunError, RunRecord, TraceLevel};

/// Runs tasks of one type by POSTing them to an agent endpoint (id `http`).
#[derive(Debug, Clone)]
pub struct HttpRunner {
    task_type: String,
    url: String,
    headers: Vec<(String, String)>,
    default_timeout_ms: u64,
    max_response_bytes: u64,
    send_expected: bool,
    http: verdict_fetch::Fetcher,
}

enum Reply {
    Body { status: u16, text: String },
    Failed(String),
}

impl HttpRunner {
    /// A runner for tasks of `task_type` posting to `url` (`http://` or `https://`).
    pub fn new(task_type: impl Into<String>, url: impl Into<String>) -> Result<Self, LabError> {
        let url = url.into();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(LabError::InvalidConfig(format!(
                "url: {url:?} must start with http:// or https://"
            )));
        }
        let host = url
            .parse::<verdict_fetch::Uri>()
            .ok()
            .and_then(|uri| uri.host().map(str::to_owned))
            .ok_or_else(|| LabError::InvalidConfig(format!("url: {url:?} has no host")))?;
        // The operator named this host: it is trusted, and the only one reached.
        let http = verdict_fetch::Fetcher::new(verdict_fetch::Policy {
            allow_hosts: vec![host],
            ..verdict_fetch::Policy::default()
        });
        Ok(HttpRunner {
            task_type: task_type.into(),
            url,
            headers: Vec::new(),
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_response_bytes: 16 << 20,
            send_expected: false,
            http,
        })
    }

    /// Sends this header with every request (e.g. an authorisation token; never recorded).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Whether the agent receives the task's `expected` (default: no).
    pub fn send_expected(mut self, yes: bool) -> Self {
        self.send_expected = yes;
        self
    }

    /// The timeout of a task without `metadata.timeout`, in ms.
    pub fn default_timeout_ms(mut self, ms: u64) -> Self {
        self.default_timeout_ms = ms.max(1);
        self
    }

    fn post(&self, body: Vec<u8>, timeout_ms: u64) -> Reply {
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("accept".to_owned(), "application/json".to_owned()),
        ];
        headers.extend(self.headers.iter().cloned());
        let reply = self.http.post(
            &self.url,
            &headers,
            &body,
            self.max_response_bytes,
            Some(Duration::from_millis(timeout_ms)),
        );
        match reply {
            Ok(reply) => Reply::Body {
                status: reply.status,
                text: String::from_utf8_lossy(&reply.body).into_owned(),
            },
            Err(e) if matches!(e.kind, verdict_fetch::FetchErrorKind::Timeout(_)) => {
                Reply::Failed(format!("agent timed out after {timeout_ms} ms"))
            }
            Err(e) => Reply::Failed(e.to_string()),
        }
    }
}

#[async_trait]
impl Runner for HttpRunner {
    fn id(&self) -> &str {
        "http"
    }
    fn task_type(&self) -> &str {
        &self.task_type
    }
    fn version(&self) -> &str {
        VERDICT_VERSION
    }

    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        let mut settings = Map::new();
        settings.insert("url".into(), json!(self.url));
        let AgentCall {
            timeout_ms,
            provenance,
            payload: body,
            mut run,
        } = AgentCall::start(
            self,
            settings,
            task,
            config,
            self.default_timeout_ms,
            self.send_expected,
        )?;
        run.event(
            TraceLevel::Debug,
            "request_sent",
            Some(json!({"url": self.url})),
        );
        let this = self.clone();
        let reply = tokio::task::spawn_blocking(move || this.post(body, timeout_ms))
            .await
            .map_err(|e| LabError::Failed(format!("http runner thread failed: {e}")))?;
        let (status, text) = match reply {
            Reply::Body { status, text } => (status, text),
            Reply::Failed(message) => {
                return Ok(run.fail(RunError::new(message).at_step("request"), None, provenance));
            }
        };
        run.event(
            TraceLevel::Debug,
            "response_received",
            Some(json!({"status": status, "bytes": text.len()})),
        );
        if !(200..300).contains(&status) {
            let snippet: String = text.chars().take(200).collect();
            let error = RunError {
                message: format!("agent answered HTTP {status}: {snippet:?}"),
                step: Some("read_response".into()),
                stack: None,
            };
            return Ok(run.fail(error, None, provenance));
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(output) => Ok(run.complete(output, provenance)),
            Err(e) => {
                let snippet: String = text.chars().take(200).collect();
                Ok(run.fail(
                    RunError::new(format!("agent response is not JSON ({e}): {snippet:?}"))
                        .at_step("read_response"),
                    None,
                    provenance,
                ))
            }
        }
    }
}
