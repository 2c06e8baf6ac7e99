//! The `command` runner: spawns the user's agent program for each task.
//!
//! Protocol (see `docs/agent-lab.md`):
//! - the task (the AtomicTask, with any `input_map` values already injected, and without
//!   `expected` unless [`CommandRunner::send_expected`] is set: the agent under test does not
//!   see the answer) is written as one JSON document on the agent's stdin, which is then closed;
//! - the agent writes its output as one JSON value on stdout and exits 0;
//! - each stderr line that is a JSON object becomes a [`TraceEvent`] (`event`, default `"log"`;
//!   `level`, default `"debug"`; `data`; `timestamp`, default the time the line arrived). An
//!   event named `usage` with `data.tokens` and/or `data.cost` adds to the run's metrics. Other
//!   stderr lines are kept as text (one `stderr` event, and the error's `stack` on failure);
//! - the run is stopped after `metadata.timeout` ms (the runner's default when absent);
//! - the agent leads a process group of its own, killed whole when the run ends: at its exit
//!   (what it left running dies with it), at the timeout, or when the run is dropped
//!   (see [`crate::tree`]).
//!
//! The agent runs as a normal host process (it usually needs the network to reach its model),
//! not in the judge's sandbox: run only agents you trust.

use crate::VERDICT_VERSION;
use crate::builder::RunBuilder;
use crate::traits::{LabError, Runner};
use crate::tree::{self, AgentTree};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;
use verdict_contracts::{
    AtomicTask, Provenance, RunError, RunRecord, Timestamp, TraceEvent, TraceLevel,
};

/// `error.step` of a run whose agent failed, crashed or timed out (rule 3).
pub const RUN_AGENT: &str = "run_agent";
/// `error.step` of a run whose agent's output is missing or not JSON.
pub const READ_OUTPUT: &str = "read_output";

/// Default per-task timeout when a task's `metadata.timeout` is absent, in ms.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

/// Runs tasks of one type by spawning an agent program (id `command`).
#[derive(Debug, Clone)]
pub struct CommandRunner {
    task_type: String,
    command: Vec<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
    default_timeout_ms: u64,
    max_output_bytes: usize,
    send_expected: bool,
}

impl CommandRunner {
    /// A runner for tasks of `task_type` running `command` (program and arguments).
    pub fn new(task_type: impl Into<String>, command: Vec<String>) -> Result<Self, LabError> {
        if command.first().is_none_or(|p| p.is_empty()) {
            return Err(LabError::InvalidConfig(
                "command: must name a program (e.g. [\"python3\", \"agent.py\"])".into(),
            ));
        }
        Ok(CommandRunner {
            task_type: task_type.into(),
            command,
            cwd: None,
            env: Vec::new(),
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_output_bytes: 16 << 20,
            send_expected: false,
        })
    }

    /// Runs the agent in `dir`.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable for the agent (on top of the inherited environment).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The timeout of a task without `metadata.timeout`, in ms.
    pub fn default_timeout_ms(mut self, ms: u64) -> Self {
        self.default_timeout_ms = ms.max(1);
        self
    }

    /// At most this many bytes of stdout are read (default 16 MiB); more fails the run.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = bytes;
        self
    }

    /// Whether the agent receives the task's `expected` (default: no).
    pub fn send_expected(mut self, yes: bool) -> Self {
        self.send_expected = yes;
        self
    }

    /// The command this runner spawns.
    pub fn command(&self) -> &[String] {
        &self.command
    }

    /// The command runner's own provenance entries.
    fn settings(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("command".into(), json!(self.command));
        if let Some(dir) = &self.cwd {
            map.insert("cwd".into(), json!(dir.display().to_string()));
        }
        map
    }
}

/// One call of an agent begun: its time limit, the provenance recorded, the task as the agent
/// receives it (JSON) and the run being built.
pub(crate) struct AgentCall {
    /// The task's time limit (the runner's default when it sets none), in ms.
    pub(crate) timeout_ms: u64,
    /// The runner's `settings`, then `timeoutMs`, `sendExpected` (when set) and the config.
    pub(crate) provenance: Provenance,
    /// The task as JSON, without `expected` unless sent.
    pub(crate) payload: Vec<u8>,
    /// The run record under way.
    pub(crate) run: RunBuilder,
}

impl AgentCall {
    /// Begins calling an agent with `task` for `runner`, whose own provenance entries are
    /// `settings`.
    pub(crate) fn start(
        runner: &dyn Runner,
        settings: Map<String, Value>,
        task: &AtomicTask,
        config: &Value,
        default_timeout_ms: u64,
        send_expected: bool,
    ) -> Result<AgentCall, LabError> {
        let timeout_ms = task.timeout_ms().unwrap_or(default_timeout_ms).max(1);
        let mut map = settings;
        map.insert("timeoutMs".into(), json!(timeout_ms));
        if send_expected {
            map.insert("sendExpected".into(), json!(true));
        }
        merge_config(&mut map, config);
        let payload = serde_json::to_vec(&agent_view(task, send_expected))
            .map_err(|e| LabError::Failed(format!("cannot serialise task {:?}: {e}", task.id)))?;
        Ok(AgentCall {
            timeout_ms,
            provenance: Provenance::new(runner.id(), runner.version(), map),
            payload,
            run: RunBuilder::start(task),
        })
    }
}

/// The task as an agent sees it: without `expected` unless `send_expected`.
pub(crate) fn agent_view(
    task: &AtomicTask,
    send_expected: bool,
) -> std::borrow::Cow<'_, AtomicTask> {
    if send_expected || task.expected.is_none() {
        std::borrow::Cow::Borrowed(task)
    } else {
        let mut view = task.clone();
        view.expected = None;
        std::borrow::Cow::Owned(view)
    }
}

/// Copies the keys of a JSON object `config` into `map` (other values are kept as `config`).
pub(crate) fn merge_config(map: &mut Map<String, Value>, config: &Value) {
    match config {
        Value::Null => {}
        Value::Object(obj) => {
            for (k, v) in obj {
                map.insert(k.clone(), v.clone());
            }
        }
        other => {
            map.insert("config".into(), other.clone());
        }
    }
}

#[async_trait]
impl Runner for CommandRunner {
    fn id(&self) -> &str {
        "command"
    }
    fn task_type(&self) -> &str {
        &self.task_type
    }
    fn version(&self) -> &str {
        VERDICT_VERSION
    }

    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        let AgentCall {
            timeout_ms,
            provenance,
            payload,
            mut run,
        } = AgentCall::start(
            self,
            self.settings(),
            task,
            config,
            self.default_timeout_ms,
            self.send_expected,
        )?;

        let mut cmd = Command::new(&self.command[0]);
        cmd.args(&self.command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let tag = tree::new_tag();
        cmd.env(tree::AGENT_TAG_VAR, &tag);
        let mut child = cmd.spawn().map_err(|e| {
            LabError::Failed(format!("cannot start agent {:?}: {e}", self.command[0]))
        })?;
        // Dropped (a cancelled run) or not, the whole tree dies with the run.
        let tree = child
            .id()
            .ok_or(tree::Stopping)
            .and_then(|pid| AgentTree::register(pid, tag))
            .map_err(|_| LabError::Failed("the lab is stopping: no new agent is started".into()))?;
        run.event(
            TraceLevel::Debug,
            "agent_spawned",
            Some(json!({"command": self.command, "pid": child.id()})),
        );

        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(LabError::Failed("agent pipes are missing".into()));
        };
        let writer = tokio::spawn(async move {
            // An agent that exits without reading its input is not an error of ours.
            let _ = stdin.write_all(&payload).await;
            let _ = stdin.shutdown().await;
        });
        let cap = self.max_output_bytes;
        let mut out_reader = tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut limited = stdout.take(cap as u64 + 1);
            let read = limited.read_to_end(&mut buf).await;
            // Past the cap, keep draining so that the agent is not blocked writing.
            let _ = tokio::io::copy(&mut limited.into_inner(), &mut tokio::io::sink()).await;
            read.map(|_| buf)
        });
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut err_reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if tx.send((Timestamp::now(), line)).is_err() {
                    break;
                }
            }
        });

        let waited = tokio::time::timeout(Duration::from_millis(timeout_ms), child.wait()).await;
        let status = match waited {
            Ok(Ok(status)) => {
                // The run ends with the agent: what it left running (a grandchild still
                // holding the pipes, a server it started) is killed now.
                tree.kill();
                Some(status)
            }
            Ok(Err(e)) => return Err(LabError::Failed(format!("cannot wait for the agent: {e}"))),
            Err(_) => {
                tree.kill();
                let _ = child.wait().await;
                None
            }
        };
        let grace = Duration::from_millis(500);
        // A process that escaped the tree may still hold the pipes: stop listening after a grace
        // period.
        let stdout = match tokio::time::timeout(grace, &mut out_reader).await {
            Ok(Ok(Ok(bytes))) => bytes,
            _ => Vec::new(),
        };
        out_reader.abort();
        let _ = tokio::time::timeout(grace, &mut err_reader).await;
        err_reader.abort();
        writer.abort();

        let mut stderr_text = String::new();
        while let Ok((at, line)) = rx.try_recv() {
            match stderr_event(&line, at) {
                Some(StderrLine::Event(event, usage)) => {
                    if let Some((tokens, cost)) = usage {
                        run.add_usage(tokens, cost);
                    }
                    run.push(event);
                }
                Some(StderrLine::Malformed(event)) => run.push(event),
                None => {
                    if stderr_text.len() < 64 * 1024 {
                        stderr_text.push_str(&line);
                        stderr_text.push('\n');
                    }
                }
            }
        }
        let stack = (!stderr_text.is_empty()).then(|| stderr_text.clone());
        let failure = |message: String, step: &str| RunError {
            message,
            step: Some(step.to_owned()),
            stack: stack.clone(),
        };

        let Some(status) = status else {
            note_stderr(&mut run, &stderr_text, TraceLevel::Warn);
            return Ok(run.fail(
                failure(format!("agent timed out after {timeout_ms} ms"), RUN_AGENT),
                None,
                provenance,
            ));
        };
        if !status.success() {
            note_stderr(&mut run, &stderr_text, TraceLevel::Warn);
            let how = match status.code() {
                Some(code) => format!("agent exited with code {code}"),
                None => format!("agent was killed ({status})"),
            };
            let last = stderr_text.lines().rev().find(|l| !l.trim().is_empty());
            let message = match last {
                Some(line) => format!("{how}: {}", line.trim()),
                None => how,
            };
            return Ok(run.fail(failure(message, RUN_AGENT), None, provenance));
        }
        note_stderr(&mut run, &stderr_text, TraceLevel::Debug);
        if stdout.len() > cap {
            return Ok(run.fail(
                failure(format!("agent output exceeds {cap} bytes"), READ_OUTPUT),
                None,
                provenance,
            ));
        }
        if stdout.iter().all(u8::is_ascii_whitespace) {
            return Ok(run.fail(
                failure(
                    "agent wrote nothing on stdout (expected one JSON value)".into(),
                    READ_OUTPUT,
                ),
                None,
                provenance,
            ));
        }
        match serde_json::from_slice::<Value>(&stdout) {
            Ok(output) => Ok(run.complete(output, provenance)),
            Err(e) => {
                let text = String::from_utf8_lossy(&stdout);
                let snippet: String = text.chars().take(200).collect();
                Ok(run.fail(
                    failure(
                        format!("agent output is not JSON ({e}): {snippet:?}"),
                        READ_OUTPUT,
                    ),
                    None,
                    provenance,
                ))
            }
        }
    }
}

fn note_stderr(run: &mut RunBuilder, text: &str, level: TraceLevel) {
    if !text.is_empty() {
        run.event(level, "stderr", Some(Value::String(text.to_owned())));
    }
}

/// Tokens and cost reported by a `usage` event.
pub type Usage = (Option<u64>, Option<f64>);

/// What a stderr line that starts with `{` is.
pub enum StderrLine {
    /// A trace event (and its usage, for `usage` events).
    Event(TraceEvent, Option<Usage>),
    /// A trace line that does not follow the protocol: a `warn` event `malformed_trace` whose
    /// data keeps the raw line and the problem, so that nothing the agent said is lost.
    Malformed(TraceEvent),
}

/// The keys of a trace line.
const TRACE_KEYS: [&str; 4] = ["event", "level", "data", "timestamp"];

/// Reads one stderr line of an agent: `None` when it is plain text (it does not start with
/// `{`), else a trace event or, when it breaks the protocol, a [`StderrLine::Malformed`] event.
pub fn stderr_event(line: &str, arrived: Timestamp) -> Option<StderrLine> {
    let trimmed = line.trim();
    if !trimmed.starts_with('{') {
        return None;
    }
    let malformed = |problem: String| {
        let event = TraceEvent::new(arrived, TraceLevel::Warn, "malformed_trace")
            .with_data(json!({"line": line, "problem": problem}));
        Some(StderrLine::Malformed(event))
    };
    let mut obj = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(obj)) => obj,
        Ok(_) => return malformed("not a JSON object".into()),
        Err(e) => return malformed(format!("not JSON: {e}")),
    };
    if let Some(key) = obj.keys().find(|k| !TRACE_KEYS.contains(&k.as_str())) {
        return malformed(format!(
            "unknown key {key:?} (a trace line has event, level, data, timestamp; put the rest in data)"
        ));
    }
    let event = match obj.remove("event") {
        None => "log".to_owned(),
        Some(Value::String(s)) if !s.is_empty() => s,
        Some(other) => return malformed(format!("event: must be a non-empty string, got {other}")),
    };
    let level = match obj.get("level") {
        None => TraceLevel::Debug,
        Some(l) => match serde_json::from_value::<TraceLevel>(l.clone()) {
            Ok(level) => level,
            Err(_) => {
                return malformed(format!(
                    "level: must be \"debug\", \"info\", \"warn\" or \"error\", got {l}"
                ));
            }
        },
    };
    let timestamp = match obj.get("timestamp") {
        None => arrived,
        Some(t) => match t.as_str().and_then(|t| t.parse::<Timestamp>().ok()) {
            Some(t) => t,
            None => return malformed(format!("timestamp: must be an RFC 3339 time, got {t}")),
        },
    };
    let data = obj.remove("data");
    let usage = (event == "usage").then(|| {
        let d = data.as_ref();
        (
            d.and_then(|d| d.get("tokens")).and_then(Value::as_u64),
            d.and_then(|d| d.get("cost")).and_then(Value::as_f64),
        )
    });
    let mut e = TraceEvent::new(timestamp, level, event);
    e.data = data;
    Some(StderrLine::Event(e, usage))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_json_objects_become_events() {
        let at = Timestamp::now();
        let Some(StderrLine::Event(e, usage)) = stderr_event(
            r#"{"level":"info","event":"llm_call","data":{"model":"m"}}"#,
            at,
        ) else {
            panic!("not an event")
        };
        assert_eq!(e.event, "llm_call");
        assert_eq!(e.level, TraceLevel::Info);
        assert_eq!(e.data, Some(json!({"model": "m"})));
        assert!(usage.is_none());
        let Some(StderrLine::Event(e, usage)) =
            stderr_event(r#"{"event":"usage","data":{"tokens":12,"cost":0.5}}"#, at)
        else {
            panic!("not an event")
        };
        assert_eq!(e.level, TraceLevel::Debug);
        assert_eq!(usage, Some((Some(12), Some(0.5))));
        assert!(stderr_event("Traceback (most recent call last):", at).is_none());
        assert!(stderr_event("[1, 2]", at).is_none());
    }

    #[test]
    fn malformed_trace_lines_keep_the_raw_line_as_a_warning() {
        let at = Timestamp::now();
        for (line, problem) in [
            ("{not json", "not JSON"),
            (r#"{"msg":"hello"}"#, "unknown key \"msg\""),
            (r#"{"event":"x","level":"loud"}"#, "level: must be"),
            (r#"{"event":7}"#, "event: must be a non-empty string"),
            (
                r#"{"event":"x","timestamp":"yesterday"}"#,
                "timestamp: must be",
            ),
        ] {
            let Some(StderrLine::Malformed(e)) = stderr_event(line, at) else {
                panic!("{line}: not reported as malformed")
            };
            assert_eq!(e.level, TraceLevel::Warn, "{line}");
            assert_eq!(e.event, "malformed_trace");
            let data = e.data.unwrap();
            assert_eq!(data["line"], line);
            assert!(
                data["problem"].as_str().unwrap().starts_with(problem),
                "{line}: {data}"
            );
        }
    }

    #[test]
    fn empty_command_is_refused() {
        let err = CommandRunner::new("intent", vec![]).unwrap_err();
        assert!(err.to_string().contains("command"), "{err}");
    }
}
