//! Scenarios: the seed's booking scenario, a failing step, input maps (missing values, invalid
//! maps refused before anything runs, scenario input and array indices).

use crate::common::{completed_seed_run, engine_events, lab, run, runtime, score, task};
use serde_json::{Value, json};
use verdict_contracts::{RunError, RunRecord, RunStatus, ScoreTarget, ScoreValue, StepStatus};
use verdict_lab::{LabTask, parse_tasks};

#[test]
fn seed_booking_scenario_injects_step_outputs() {
    let (_, out) = completed_seed_run(1);
    let r = &out.run;
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
        engine_events(r).join(" "),
        "started step_started@step-1 step_completed@step-1 step_started@step-2 input_mapped@step-2 \
         step_completed@step-2 step_started@step-3 input_mapped@step-3 step_completed@step-3 completed"
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

/// Checks that `r` failed at step 2 with `message`; its error.
fn failed_at_step_2<'a>(r: &'a RunRecord, message: &str) -> &'a RunError {
    assert_eq!(r.status, RunStatus::Failed);
    let error = r.error.as_ref().unwrap();
    assert_eq!(error.step.as_deref(), Some("step-2"));
    assert_eq!(error.message, message);
    error
}

#[test]
fn failing_step_fails_the_run_and_skips_the_rest() {
    let out = run(&lab(), &booking("__fail__", "step:step-1.output.intent"));
    let r = &out.run;
    let error = failed_at_step_2(r, "agent exited with code 2: agent: asked to fail");
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
        engine_events(r).join(" "),
        "started step_started@step-1 step_completed@step-1 step_started@step-2 \
         input_mapped@step-2 step_failed@step-2 step_skipped@step-3 failed"
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
    failed_at_step_2(
        r,
        "input_map: step:step-1.output.slots.city -> input.intent: no value in the output of step \"step-1\"",
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
