//! The example agent through the `command` runner: the seed's intent task, an agent that times
//! out, prints garbage or crashes, a type no runner takes, and a `LabConfig` of types.

use crate::common::{
    agent, atomic, completed_seed_run, error_message, lab, repo_root, run, score, task,
};
use serde_json::{Value, json};
use std::sync::Arc;
use verdict_contracts::{RunStatus, ScoreValue};
use verdict_lab::{Lab, LabConfig, Registry, task_hash};

#[test]
fn seed_intent_task_runs_through_the_command_runner() {
    let (intent, out) = completed_seed_run(0);
    let r = &out.run;
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
    assert_eq!(r.provenance.task_hash(), Some(task_hash(&intent).as_str()));
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
fn agent_timeout_garbage_and_crash_fail_the_run() {
    let lab = lab();
    let started = std::time::Instant::now();
    let out = run(&lab, &atomic("slow", "echo", json!("__sleep__"), Some(500)));
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(error_message(&out), "agent timed out after 500 ms");
    // Rule 3: an atomic run's error names the step of the run that failed.
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("run_agent")
    );
    assert_eq!(out.run.trace.last().unwrap().event, "failed");

    let out = run(&lab, &atomic("junk", "echo", json!("__garbage__"), None));
    assert_eq!(out.run.status, RunStatus::Failed);
    assert!(
        error_message(&out).starts_with("agent output is not JSON"),
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
    assert_eq!(error_message(&out), "agent output exceeds 16 bytes");
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("read_output")
    );

    let out = run(&lab, &atomic("who", "translate", json!("hi"), None));
    assert_eq!(
        error_message(&out),
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
        error_message(&out),
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
