//! Agent Lab engine: the seed's intent task and booking scenario against the example agent
//! (`examples/lab/agent/agent.py`) through the `command` runner, the `http` runner against a
//! loopback server, the oracle and programming runners in the sandbox, and the failure paths.

use crate::common::{judge, repo_root, runtime};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use verdict_contracts::{
    AtomicTask, RunRecord, RunStatus, ScoreRecord, ScoreTarget, ScoreValue, StepStatus,
};
use verdict_lab::{CommandRunner, HttpRunner, LabConfig, RunBuilder, parse_tasks, task_hash};
use verdict_lab::{Lab, LabError, LabOutcome, LabTask, Registry, Runner};
use verdict_oracle::OracleOptions;

fn agent() -> CommandRunner {
    let script = repo_root().join("examples/lab/agent/agent.py");
    CommandRunner::new("*", vec!["python3".into(), script.display().to_string()])
        .unwrap()
        .default_timeout_ms(20_000)
}

/// A lab whose every type runs the example agent.
fn lab() -> Lab {
    let mut registry = Registry::new();
    registry.set_fallback(Arc::new(agent()), Value::Null);
    Lab::new(registry)
}

fn seed_tasks() -> Vec<LabTask> {
    let text = std::fs::read_to_string(repo_root().join("examples/lab/tasks.json")).unwrap();
    parse_tasks(&text)
        .unwrap()
        .into_iter()
        .map(|e| e.task)
        .collect()
}

fn task(value: Value) -> LabTask {
    LabTask::from_value(value).unwrap()
}

fn run(lab: &Lab, task: &LabTask) -> LabOutcome {
    runtime().block_on(lab.run(task))
}

fn score<'a>(scores: &'a [ScoreRecord], metric: &str, target: &str) -> &'a ScoreRecord {
    scores
        .iter()
        .find(|s| s.metric == metric && s.target.to_string() == target)
        .unwrap_or_else(|| panic!("no {metric} score for {target}: {scores:#?}"))
}

/// The engine's own events of a scenario run, as `event@step`.
fn engine_events(run: &RunRecord) -> Vec<String> {
    const ENGINE: [&str; 8] = [
        "started",
        "step_started",
        "input_mapped",
        "step_completed",
        "step_failed",
        "step_skipped",
        "completed",
        "failed",
    ];
    run.trace
        .iter()
        .filter(|e| ENGINE.contains(&e.event.as_str()))
        // A step runner's own started/completed carry the step too; keep the scenario's.
        .filter(|e| {
            e.step.is_none() || !matches!(e.event.as_str(), "started" | "completed" | "failed")
        })
        .map(|e| match &e.step {
            Some(step) => format!("{}@{step}", e.event),
            None => e.event.clone(),
        })
        .collect()
}

#[test]
fn seed_intent_task_runs_through_the_command_runner() {
    let tasks = seed_tasks();
    let intent = &tasks[0];
    let out = run(&lab(), intent);
    let r = &out.run;
    assert_eq!(r.status, RunStatus::Completed, "{r:#?}");
    assert_eq!(r.task_id, "task-001");
    assert_eq!(
        r.output,
        Some(json!({"intent": "book_flight", "confidence": 0.95}))
    );
    let events: Vec<&str> = r.trace.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(
        events,
        [
            "started",
            "agent_spawned",
            "received",
            "llm_call",
            "usage",
            "completed"
        ]
    );
    assert_eq!(r.trace[3].data.as_ref().unwrap()["model"], "rules-v1");
    // The agent under test never sees `expected`.
    assert_eq!(
        r.trace[2].data.as_ref().unwrap()["fields"],
        json!(["extensions", "id", "input", "metadata", "name", "type"])
    );
    assert!(r.metrics.latency > 0.0);
    assert!(r.metrics.tokens.unwrap() > 0);
    assert_eq!(r.metrics.cost, Some(0.0001));
    assert_eq!(r.provenance.runner_id, "command");
    assert_eq!(r.provenance.runner_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(
        r.provenance.verdict_version(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(r.provenance.task_hash(), Some(task_hash(intent).as_str()));
    assert_eq!(r.provenance.config["timeoutMs"], 5000);

    // expected.confidence 0.9 is a minimum (extensions.subset): 0.95 passes.
    assert_eq!(
        score(&out.scores, "subset_match", "final").value,
        ScoreValue::Bool(true)
    );
    assert_eq!(
        score(&out.scores, "field_accuracy", "final").value,
        ScoreValue::Number(1.0)
    );
    assert!(
        matches!(score(&out.scores, "latency", "global").value, ScoreValue::Number(ms) if ms > 0.0)
    );
    assert!(
        matches!(score(&out.scores, "tokens", "global").value, ScoreValue::Number(t) if t > 0.0)
    );
    assert!(out.scores.iter().all(|s| s.run_id == r.id));
    assert!(
        out.evaluator_failures.is_empty(),
        "{:?}",
        out.evaluator_failures
    );

    // The record is the contract's camelCase JSON.
    let wire = serde_json::to_value(r).unwrap();
    for key in [
        "id",
        "taskId",
        "taskType",
        "status",
        "output",
        "metrics",
        "trace",
        "startedAt",
        "completedAt",
        "provenance",
    ] {
        assert!(wire.get(key).is_some(), "{key} missing in {wire}");
    }
    assert_eq!(wire["taskType"], "atomic");
    assert_eq!(wire["provenance"]["runnerId"], "command");
}

#[test]
fn seed_booking_scenario_injects_step_outputs() {
    let tasks = seed_tasks();
    let scenario = &tasks[1];
    let out = run(&lab(), scenario);
    let r = &out.run;
    assert_eq!(r.status, RunStatus::Completed, "{r:#?}");
    assert_eq!(serde_json::to_value(r.task_type).unwrap(), "scenario");
    let steps = r.steps.as_ref().unwrap();
    assert_eq!(steps.len(), 3);
    assert!(steps.iter().all(|s| s.status == StepStatus::Completed));
    assert_eq!(
        steps[0].output,
        Some(json!({"intent": "book_flight", "confidence": 0.95}))
    );
    // step-2 received step-1's intent, step-3 step-2's conversation.
    let conversation = json!([
        {"role": "user", "intent": "book_flight"},
        {"role": "assistant", "text": "请问您要去哪里？"}
    ]);
    assert_eq!(
        steps[1].output.as_ref().unwrap()["conversation"],
        conversation
    );
    assert_eq!(
        steps[2].output,
        Some(json!({"stored": 2, "memory": {"intents": ["book_flight"]}}))
    );
    assert_eq!(r.output, steps[2].output);
    let mapped: Vec<&Value> = r
        .trace
        .iter()
        .filter(|e| e.event == "input_mapped")
        .map(|e| e.data.as_ref().unwrap())
        .collect();
    assert_eq!(
        mapped[0],
        &json!({"from": "step:step-1.output.intent", "to": "input.intent", "value": "book_flight"})
    );
    assert_eq!(mapped[1]["value"], conversation);
    assert_eq!(
        engine_events(r),
        [
            "started",
            "step_started@step-1",
            "step_completed@step-1",
            "step_started@step-2",
            "input_mapped@step-2",
            "step_completed@step-2",
            "step_started@step-3",
            "input_mapped@step-3",
            "step_completed@step-3",
            "completed",
        ]
    );
    // The agent's own events are in the trace, attributed to their step.
    assert!(
        r.trace
            .iter()
            .any(|e| e.event == "llm_call" && e.step.as_deref() == Some("step-1"))
    );
    assert!(
        r.trace
            .iter()
            .any(|e| e.event == "policy" && e.step.as_deref() == Some("step-2"))
    );
    // Usage is summed over the steps.
    assert!(r.metrics.tokens.unwrap() > 0);
    assert!((r.metrics.cost.unwrap() - 0.0003).abs() < 1e-9);
    assert_eq!(r.provenance.runner_id, "scenario");
    assert_eq!(r.provenance.config["steps"].as_array().unwrap().len(), 3);
    assert_eq!(r.provenance.config["steps"][1]["runnerId"], "command");

    assert_eq!(
        score(&out.scores, "subset_match", "step:step-1").value,
        ScoreValue::Bool(true)
    );
    assert!(
        out.scores
            .iter()
            .any(|s| s.metric == "latency" && s.target == ScoreTarget::Step("step-3".into()))
    );
    assert_eq!(
        score(&out.scores, "steps_completed", "global").value,
        ScoreValue::Number(1.0)
    );
    assert!(matches!(
        score(&out.scores, "latency", "global").value,
        ScoreValue::Number(_)
    ));
    assert!(out.scores.iter().all(|s| s.run_id == r.id));
}

fn booking(step2_message: &str, map2_from: &str) -> LabTask {
    task(json!({
        "id": "scenario-x", "name": "n", "description": "d",
        "steps": [
            {"id": "step-1", "name": "recognize_intent", "type": "intent", "input": "我想订机票", "metadata": {}},
            {"id": "step-2", "name": "manage_dialogue", "type": "dialogue",
             "input": {"intent": null, "message": step2_message}, "metadata": {}},
            {"id": "step-3", "name": "store_memory", "type": "memory", "input": {"conversation": null}, "metadata": {}}
        ],
        "input_map": {
            "step-2": [{"from": map2_from, "to": "input.intent"}],
            "step-3": [{"from": "step:step-2.output.conversation", "to": "input.conversation"}]
        },
        "metadata": {}
    }))
}

#[test]
fn failing_step_fails_the_run_and_skips_the_rest() {
    let out = run(&lab(), &booking("__fail__", "step:step-1.output.intent"));
    let r = &out.run;
    assert_eq!(r.status, RunStatus::Failed);
    let error = r.error.as_ref().unwrap();
    assert_eq!(error.step.as_deref(), Some("step-2"));
    assert_eq!(
        error.message,
        "agent exited with code 2: agent: asked to fail"
    );
    assert!(error.stack.as_deref().unwrap().contains("asked to fail"));
    assert!(r.output.is_none());
    let steps = r.steps.as_ref().unwrap();
    let statuses: Vec<StepStatus> = steps.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [
            StepStatus::Completed,
            StepStatus::Failed,
            StepStatus::Skipped
        ]
    );
    assert_eq!(steps[1].error.as_deref(), Some(error.message.as_str()));
    assert_eq!(steps[2].latency, 0.0);
    assert_eq!(
        engine_events(r),
        [
            "started",
            "step_started@step-1",
            "step_completed@step-1",
            "step_started@step-2",
            "input_mapped@step-2",
            "step_failed@step-2",
            "step_skipped@step-3",
            "failed",
        ]
    );
    let last = r.trace.last().unwrap();
    assert_eq!(last.data.as_ref().unwrap()["step"], "step-2");
    assert_eq!(
        score(&out.scores, "steps_completed", "global").value,
        ScoreValue::Number(1.0 / 3.0)
    );
    assert!(
        !out.scores
            .iter()
            .any(|s| s.target == ScoreTarget::Step("step-3".into()))
    );
}

#[test]
fn missing_mapped_value_fails_its_step() {
    let out = run(&lab(), &booking("hi", "step:step-1.output.slots.city"));
    let r = &out.run;
    assert_eq!(r.status, RunStatus::Failed);
    let error = r.error.as_ref().unwrap();
    assert_eq!(error.step.as_deref(), Some("step-2"));
    assert_eq!(
        error.message,
        "input_map: step:step-1.output.slots.city -> input.intent: no value in the output of step \"step-1\""
    );
    assert_eq!(r.steps.as_ref().unwrap()[2].status, StepStatus::Skipped);
}

#[test]
fn invalid_input_map_is_refused_before_anything_runs() {
    // parse_tasks and Lab::check refuse it with every problem named ...
    let text = json!({
        "id": "s", "name": "n", "description": "d",
        "steps": [
            {"id": "a", "name": "a", "type": "echo", "input": {}, "metadata": {}},
            {"id": "b", "name": "b", "type": "echo", "input": {}, "metadata": {}}
        ],
        "input_map": {
            "a": [{"from": "step:b.output.x", "to": "input.x"}],
            "b": [{"from": "step:a.output.x", "to": "inputs.x"}, {"from": "step:nope.output", "to": "input.y"}]
        },
        "metadata": {}
    });
    let errors = parse_tasks(&text.to_string()).unwrap_err();
    let message = &errors[0];
    assert!(
        message.contains(
            "input_map[\"a\"][0].from: step \"b\" (steps[1]) runs after step \"a\" (steps[0])"
        ),
        "{message}"
    );
    assert!(
        message.contains("input_map[\"b\"][0].to: \"inputs.x\" must start with \"input\""),
        "{message}"
    );
    assert!(
        message.contains("input_map[\"b\"][1].from: unknown step \"nope\""),
        "{message}"
    );
    // ... and the engine, given it anyway, fails the run without running a step.
    let scenario: verdict_contracts::ScenarioTask = serde_json::from_value(text).unwrap();
    let r = runtime().block_on(lab().run_scenario(&scenario, &Value::Null));
    assert_eq!(r.status, RunStatus::Failed);
    assert!(
        r.error
            .as_ref()
            .unwrap()
            .message
            .starts_with("invalid scenario: ")
    );
    assert!(
        r.steps
            .as_ref()
            .unwrap()
            .iter()
            .all(|s| s.status == StepStatus::Skipped)
    );
    assert!(!r.trace.iter().any(|e| e.event == "step_started"));
}

#[test]
fn scenario_input_and_array_indices_are_injected() {
    let t = task(json!({
        "id": "s", "name": "n", "description": "d",
        "steps": [
            {"id": "one", "name": "first", "type": "echo", "input": {"list": ["x"]}, "metadata": {}},
            {"id": "two", "name": "second", "type": "echo", "input": null, "metadata": {}}
        ],
        "input_map": {
            "first": [{"from": "input:user.names[1]", "to": "input.list[2]"}],
            "two": [{"from": "step:previous.output.list", "to": "input"},
                    {"from": "input:", "to": "input[3]"}]
        },
        "metadata": {"input": {"user": {"names": ["ann", "bob"]}}}
    }));
    let out = run(&lab(), &t);
    let r = &out.run;
    assert_eq!(r.status, RunStatus::Completed, "{r:#?}");
    let steps = r.steps.as_ref().unwrap();
    assert_eq!(steps[0].output, Some(json!({"list": ["x", null, "bob"]})));
    assert_eq!(
        r.output,
        Some(json!(["x", null, "bob", {"user": {"names": ["ann", "bob"]}}]))
    );
    let tos: Vec<&Value> = r
        .trace
        .iter()
        .filter(|e| e.event == "input_mapped")
        .map(|e| &e.data.as_ref().unwrap()["to"])
        .collect();
    assert_eq!(tos, ["input.list[2]", "input", "input[3]"]);
}

fn atomic(id: &str, kind: &str, input: Value, timeout: Option<u64>) -> LabTask {
    let mut metadata = json!({});
    if let Some(ms) = timeout {
        metadata["timeout"] = json!(ms);
    }
    task(json!({"id": id, "name": id, "type": kind, "input": input, "metadata": metadata}))
}

#[test]
fn agent_timeout_garbage_and_crash_fail_the_run() {
    let lab = lab();
    let started = std::time::Instant::now();
    let out = run(&lab, &atomic("slow", "echo", json!("__sleep__"), Some(500)));
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "agent timed out after 500 ms"
    );
    // Rule 3: an atomic run's error names the step of the run that failed.
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("run_agent")
    );
    assert_eq!(out.run.trace.last().unwrap().event, "failed");

    let out = run(&lab, &atomic("junk", "echo", json!("__garbage__"), None));
    assert_eq!(out.run.status, RunStatus::Failed);
    assert!(
        out.run
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("agent output is not JSON"),
        "{:?}",
        out.run.error
    );

    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("read_output")
    );

    let mut registry = Registry::new();
    registry.set_fallback(Arc::new(agent().max_output_bytes(16)), Value::Null);
    let small = Lab::new(registry);
    let out = run(
        &small,
        &atomic("big", "echo", json!("x".repeat(200_000)), None),
    );
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "agent output exceeds 16 bytes"
    );
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("read_output")
    );

    let out = run(&lab, &atomic("who", "translate", json!("hi"), None));
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "agent exited with code 3: agent: no handler for type 'translate'"
    );
}

#[test]
fn unknown_type_without_runner_is_named() {
    let lab = Lab::new(Registry::new());
    let t = atomic("task-9", "intent", json!("x"), None);
    let errors = lab.check(&t).unwrap_err();
    assert_eq!(errors[0].field, "type");
    assert_eq!(
        errors[0].to_string(),
        "type: no runner for type \"intent\" (give the lab a runner for it, or a fallback agent)"
    );
    assert_eq!(errors.len(), 1);
    let out = run(&lab, &t);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "no runner for type \"intent\" (task \"task-9\")"
    );
    assert_eq!(out.run.provenance.runner_id, "none");
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("select_runner")
    );
    let bad = task(
        json!({"id": "t", "name": "n", "type": "intent", "input": 1, "metadata": {},
        "extensions": {"evaluators": ["bleu"]}}),
    );
    let errors = self::lab().check(&bad).unwrap_err();
    assert_eq!(errors[0].field, "extensions.evaluators", "{errors:?}");
    assert!(
        errors[0].message.starts_with("no evaluator \"bleu\""),
        "{errors:?}"
    );
    let scenario = task(json!({"id": "s", "name": "n", "description": "d",
        "steps": [{"id": "a", "name": "a", "type": "echo", "input": 1, "metadata": {},
                   "extensions": {"evaluators": ["nope"]}}],
        "metadata": {"evaluators": ["bleu"], "expected": 1}}));
    let errors = self::lab().check(&scenario).unwrap_err();
    // Each problem names its field from the task's top, so a client can point at it.
    assert_eq!(errors[0].field, "metadata.evaluators", "{errors:?}");
    assert!(
        errors[0].message.starts_with("no evaluator \"bleu\""),
        "{errors:?}"
    );
    assert_eq!(
        errors[1].field, "steps[0].extensions.evaluators",
        "{errors:?}"
    );
    assert!(
        errors[1].message.starts_with("no evaluator \"nope\""),
        "{errors:?}"
    );
}

/// A runner of one's own that panics.
struct Panicky;

#[async_trait::async_trait]
impl Runner for Panicky {
    fn id(&self) -> &str {
        "panicky"
    }
    fn task_type(&self) -> &str {
        "boom"
    }
    fn version(&self) -> &str {
        "1"
    }
    async fn execute(&self, _task: &AtomicTask, _config: &Value) -> Result<RunRecord, LabError> {
        panic!("boom")
    }
}

/// A runner of one's own that never ends.
struct Hangs;

#[async_trait::async_trait]
impl Runner for Hangs {
    fn id(&self) -> &str {
        "hangs"
    }
    fn task_type(&self) -> &str {
        "hang"
    }
    fn version(&self) -> &str {
        "1"
    }
    async fn execute(&self, _task: &AtomicTask, _config: &Value) -> Result<RunRecord, LabError> {
        std::future::pending().await
    }
}

/// A runner of one's own built with RunBuilder.
struct Upper;

#[async_trait::async_trait]
impl Runner for Upper {
    fn id(&self) -> &str {
        "upper"
    }
    fn task_type(&self) -> &str {
        "upper"
    }
    fn version(&self) -> &str {
        "2.0.0"
    }
    async fn execute(&self, task: &AtomicTask, config: &Value) -> Result<RunRecord, LabError> {
        let mut run = RunBuilder::start(task);
        let text = task.input.as_str().ok_or_else(|| LabError::InvalidTask {
            task_id: task.id.clone(),
            message: "input: must be a string".into(),
        })?;
        run.event(verdict_contracts::TraceLevel::Debug, "uppercased", None);
        let provenance = verdict_contracts::Provenance::new(
            self.id(),
            self.version(),
            config.as_object().cloned().unwrap_or_default(),
        );
        Ok(run.complete(json!(text.to_uppercase()), provenance))
    }
}

#[test]
fn custom_runners_plug_in_and_a_panic_fails_only_its_run() {
    let mut registry = Registry::new();
    registry.register_runner(Arc::new(Panicky));
    registry.register_runner_for("upper", Arc::new(Upper), json!({"mode": "ascii"}));
    let lab = Lab::new(registry);
    let out = run(&lab, &atomic("p", "boom", json!(1), None));
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "runner \"panicky\" panicked"
    );
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("execute")
    );
    let t = task(
        json!({"id": "u", "name": "u", "type": "upper", "input": "abc", "expected": "ABC",
        "metadata": {}, "extensions": {"evaluators": ["exact"]}}),
    );
    let out = run(&lab, &t);
    assert_eq!(out.run.output, Some(json!("ABC")));
    assert_eq!(out.run.provenance.runner_version, "2.0.0");
    assert_eq!(out.run.provenance.config["mode"], "ascii");
    assert!(out.run.provenance.task_hash().is_some());
    assert_eq!(out.scores.len(), 1);
    assert_eq!(
        score(&out.scores, "exact_match", "final").value,
        ScoreValue::Bool(true)
    );
    let out = run(&lab, &atomic("u2", "upper", json!(5), None));
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "invalid task \"u2\": input: must be a string"
    );

    let mut registry = Registry::new();
    registry.register_runner(Arc::new(Hangs));
    let lab = Lab::new(registry).with_timeout_grace(std::time::Duration::from_millis(100));
    let out = run(&lab, &atomic("h", "hang", json!(1), Some(100)));
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "runner \"hangs\" did not finish within 200 ms (metadata.timeout 100 ms and a grace period)"
    );
}

/// Serves `responses` (status, body) to one request each on 127.0.0.1; returns the URL and the
/// request bodies received.
fn serve(responses: Vec<(u16, &'static str)>) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        for (status, body) in responses {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" || line.is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut buf = vec![0; length];
            reader.read_exact(&mut buf).unwrap();
            bodies.push(String::from_utf8(buf).unwrap());
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        }
        bodies
    });
    (url, handle)
}

#[test]
fn http_runner_posts_the_task_and_reads_the_output() {
    let (url, server) = serve(vec![
        (200, r#"{"intent":"book_flight","confidence":0.99}"#),
        (500, r#"{"error":"model down"}"#),
        (200, "not json"),
    ]);
    let mut registry = Registry::new();
    registry.register_runner_for(
        "intent",
        Arc::new(HttpRunner::new("intent", &url).unwrap()),
        Value::Null,
    );
    let lab = Lab::new(registry);
    let tasks = seed_tasks();
    let out = run(&lab, &tasks[0]);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert_eq!(out.run.output.as_ref().unwrap()["confidence"], 0.99);
    assert_eq!(out.run.provenance.runner_id, "http");
    assert_eq!(out.run.provenance.config["url"], url.as_str());
    assert_eq!(
        score(&out.scores, "subset_match", "final").value,
        ScoreValue::Bool(true)
    );
    let out = run(&lab, &tasks[0]);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        r#"agent answered HTTP 500: "{\"error\":\"model down\"}""#
    );
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("read_response")
    );
    let out = run(&lab, &tasks[0]);
    assert!(
        out.run
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("agent response is not JSON")
    );
    let bodies = server.join().unwrap();
    let sent: Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(sent["id"], "task-001");
    assert_eq!(sent["input"], "我想订一张明天去北京的机票");
    assert!(sent.get("expected").is_none(), "{sent}");
    // Nobody listens here any more.
    let out = run(&lab, &tasks[0]);
    assert!(
        out.run
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("POST http://127.0.0.1"),
        "{:?}",
        out.run.error
    );
}

#[test]
fn lab_config_maps_types_to_the_example_agent() {
    let dir = repo_root().join("examples/lab");
    let config =
        LabConfig::from_toml(&std::fs::read_to_string(dir.join("lab.toml")).unwrap()).unwrap();
    let mut registry = Registry::new();
    config.apply(&mut registry, &dir).unwrap();
    let lab = Lab::new(registry);
    // Without the task's own rule, the config's `confidence = "min"` applies.
    let t = task(
        json!({"id": "t", "name": "n", "type": "intent", "input": "订机票",
        "expected": {"intent": "book_flight", "confidence": 0.9}, "metadata": {}}),
    );
    let out = run(&lab, &t);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert_eq!(
        score(&out.scores, "subset_match", "final").value,
        ScoreValue::Bool(true)
    );
}

#[test]
fn oracle_and_programming_runners_judge_in_the_sandbox() {
    let Some(judge) = judge() else { return };
    let lab = Lab::new(Registry::new().with_judge(judge, OracleOptions::default()));
    let deliverable = json!({"language": "python3", "entry_point": "add",
        "source_files": [{"type": "text", "name": "add.py", "text": "def add(a, b):\n    return a + b\n"}]});
    let pass = task(
        json!({"id": "add-1", "name": "adds", "type": "function", "input": [1, 2], "expected": 3,
        "metadata": {"timeout": 3000}, "extensions": {"deliverable": deliverable}}),
    );
    let out = run(&lab, &pass);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert_eq!(
        out.run.output.as_ref().unwrap()["results"][0]["status"],
        "passed"
    );
    assert_eq!(out.run.provenance.runner_id, "function");
    assert_eq!(
        score(&out.scores, "judge_score", "final").value,
        ScoreValue::Number(1.0)
    );
    assert_eq!(
        score(&out.scores, "judge_passed", "final").value,
        ScoreValue::Bool(true)
    );
    let wrong = task(
        json!({"id": "add-2", "name": "adds", "type": "function", "input": [1, 2], "expected": 4,
        "metadata": {}, "extensions": {"deliverable": deliverable}}),
    );
    let out = run(&lab, &wrong);
    assert_eq!(out.run.status, RunStatus::Completed);
    assert_eq!(
        score(&out.scores, "judge_score", "final").value,
        ScoreValue::Number(0.0)
    );
    let malformed = task(
        json!({"id": "add-3", "name": "adds", "type": "function", "input": 1, "expected": 4,
        "metadata": {}, "extensions": {"deliverable": deliverable}}),
    );
    let out = run(&lab, &malformed);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        out.run.error.as_ref().unwrap().message,
        "invalid_test_format: function input must be args list"
    );
    let missing = atomic("add-4", "function", json!([1]), None);
    let out = run(&lab, &missing);
    assert!(
        out.run
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("extensions.deliverable: missing")
    );

    let submission: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("examples/judge/aplusb-python3.json")).unwrap(),
    )
    .unwrap();
    let prog = task(
        json!({"id": "prog-1", "name": "a+b", "type": "programming", "input": submission, "metadata": {}}),
    );
    let out = run(&lab, &prog);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert!(
        out.run.output.as_ref().unwrap()["results"]
            .as_array()
            .is_some()
    );
    assert!(matches!(
        score(&out.scores, "judge_score", "final").value,
        ScoreValue::Number(_)
    ));
    let bad = task(
        json!({"id": "prog-2", "name": "a+b", "type": "programming", "input": {"sub_type": "programming"}, "metadata": {}}),
    );
    let out = run(&lab, &bad);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert!(
        out.run
            .error
            .as_ref()
            .unwrap()
            .message
            .starts_with("input: "),
        "{:?}",
        out.run.error
    );
}

#[test]
fn http_runner_never_follows_its_agent_to_another_host() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    const SECRET: &str = r#"{"secret":"INTERNAL-SECRET-LAB"}"#;
    // An internal service holding a secret, and an agent that redirects there.
    let secret = TcpListener::bind("127.0.0.1:0").unwrap();
    let secret_port = secret.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in secret.incoming() {
            let Ok(mut stream) = stream else { continue };
            counter.fetch_add(1, Ordering::SeqCst);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{SECRET}",
                SECRET.len()
            );
        }
    });
    let agent = TcpListener::bind("127.0.0.2:0").unwrap();
    let url = format!("http://{}/agent", agent.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in agent.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 8192];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:{secret_port}/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
        }
    });
    let mut registry = Registry::new();
    registry.register_runner_for(
        "intent",
        Arc::new(HttpRunner::new("intent", &url).unwrap()),
        Value::Null,
    );
    let lab = Lab::new(registry);
    let out = run(&lab, &seed_tasks()[0]);
    assert_eq!(out.run.status, RunStatus::Failed);
    let record = serde_json::to_string(&out.run).unwrap();
    assert!(!record.contains("INTERNAL-SECRET"), "{record}");
    let message = &out.run.error.as_ref().unwrap().message;
    assert!(
        message.contains("refused: host 127.0.0.1 is not in allow_hosts"),
        "{message}"
    );
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the internal service was reached"
    );
}
