//! [`RunBuilder`]: the trace, timings and usage of one run, for the built-in runners and for
//! runners of one's own.

use serde_json::{Value, json};
use std::time::Instant;
use verdict_contracts::{
    AtomicTask, Evidence, Provenance, RunError, RunMetrics, RunRecord, RunStatus, ScoreRecord,
    ScoreTarget, ScoreValue, TaskType, Timestamp, TraceEvent, TraceLevel,
};

/// A fresh unique id (a UUID v7, so ids sort by creation time).
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A score record for `run_id`, with a fresh id and the current time.
pub fn score_record(
    run_id: &str,
    evaluator_id: &str,
    metric: &str,
    value: impl Into<ScoreValue>,
    target: ScoreTarget,
    evidence: Option<Evidence>,
) -> ScoreRecord {
    ScoreRecord {
        id: new_id(),
        run_id: run_id.to_owned(),
        metric: metric.to_owned(),
        value: value.into(),
        target,
        evidence,
        evaluator_id: evaluator_id.to_owned(),
        created_at: Timestamp::now(),
    }
}

/// Builds a [`RunRecord`]: [`RunBuilder::start`] records `started`, [`RunBuilder::complete`]
/// `completed` and [`RunBuilder::fail`] `failed` (rule 2: every key step is in the trace).
#[derive(Debug)]
pub struct RunBuilder {
    id: String,
    task_id: String,
    task_type: TaskType,
    started_at: Timestamp,
    clock: Instant,
    trace: Vec<TraceEvent>,
    tokens: Option<u64>,
    cost: Option<f64>,
}

impl RunBuilder {
    /// Starts a run of an atomic task: records `started` with the task's id and type.
    pub fn start(task: &AtomicTask) -> Self {
        let mut builder = Self::start_as(&task.id, TaskType::Atomic);
        builder.event(
            TraceLevel::Info,
            "started",
            Some(json!({"taskId": task.id, "type": task.kind})),
        );
        builder
    }

    /// Starts a run without recording anything yet.
    pub fn start_as(task_id: &str, task_type: TaskType) -> Self {
        RunBuilder {
            id: new_id(),
            task_id: task_id.to_owned(),
            task_type,
            started_at: Timestamp::now(),
            clock: Instant::now(),
            trace: Vec::new(),
            tokens: None,
            cost: None,
        }
    }

    /// The run's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Milliseconds since the run started.
    pub fn elapsed_ms(&self) -> f64 {
        elapsed_ms(self.clock)
    }

    /// Records an event now.
    pub fn event(&mut self, level: TraceLevel, event: &str, data: Option<Value>) {
        let mut e = TraceEvent::new(Timestamp::now(), level, event);
        e.data = data;
        self.trace.push(e);
    }

    /// Records an event as given (its own timestamp and step).
    pub fn push(&mut self, event: TraceEvent) {
        self.trace.push(event);
    }

    /// Attributes the last event to a scenario step.
    pub fn attribute_last(&mut self, step: &str) {
        if let Some(e) = self.trace.last_mut() {
            e.step = Some(step.to_owned());
        }
    }

    /// The events so far.
    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    /// Adds tokens and cost reported by the agent (summed over the run).
    pub fn add_usage(&mut self, tokens: Option<u64>, cost: Option<f64>) {
        if let Some(t) = tokens {
            self.tokens = Some(self.tokens.unwrap_or(0).saturating_add(t));
        }
        if let Some(c) = cost.filter(|c| c.is_finite()) {
            self.cost = Some(self.cost.unwrap_or(0.0) + c);
        }
    }

    /// Ends the run with an output: records `completed` with `{output}`.
    pub fn complete(mut self, output: Value, provenance: Provenance) -> RunRecord {
        self.event(
            TraceLevel::Info,
            "completed",
            Some(json!({ "output": output })),
        );
        self.finish(RunStatus::Completed, Some(output), None, provenance)
    }

    /// Ends the run with an error: records `failed` with `{error, step?}` at level `error`.
    pub fn fail(
        mut self,
        error: RunError,
        output: Option<Value>,
        provenance: Provenance,
    ) -> RunRecord {
        let mut data = json!({ "error": error.message });
        if let Some(step) = &error.step {
            data["step"] = Value::String(step.clone());
        }
        self.event(TraceLevel::Error, "failed", Some(data));
        self.finish(RunStatus::Failed, output, Some(error), provenance)
    }

    /// Ends the run as is (the caller recorded the final event itself).
    pub fn finish(
        self,
        status: RunStatus,
        output: Option<Value>,
        error: Option<RunError>,
        provenance: Provenance,
    ) -> RunRecord {
        RunRecord {
            id: self.id,
            task_id: self.task_id,
            task_type: self.task_type,
            status,
            output,
            error,
            metrics: RunMetrics {
                latency: elapsed_ms(self.clock),
                tokens: self.tokens,
                cost: self.cost,
            },
            trace: self.trace,
            steps: None,
            started_at: self.started_at,
            completed_at: Some(Timestamp::now()),
            provenance,
        }
    }
}

/// Milliseconds since `clock`, to the microsecond.
pub(crate) fn elapsed_ms(clock: Instant) -> f64 {
    (clock.elapsed().as_micros() as f64 / 1000.0).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;
    use verdict_contracts::TaskMetadata;

    #[test]
    fn builder_records_started_and_completed() {
        let task = AtomicTask {
            id: "t".into(),
            name: "n".into(),
            kind: "intent".into(),
            input: json!("x"),
            expected: None,
            context: None,
            metadata: TaskMetadata::default(),
            extensions: None,
        };
        let mut b = RunBuilder::start(&task);
        b.add_usage(Some(3), Some(0.5));
        b.add_usage(Some(4), None);
        let run = b.complete(json!({"a": 1}), Provenance::new("r", "1", Map::new()));
        let events: Vec<_> = run.trace.iter().map(|e| e.event.as_str()).collect();
        assert_eq!(events, ["started", "completed"]);
        assert_eq!(run.status, RunStatus::Completed);
        assert_eq!(run.metrics.tokens, Some(7));
        assert_eq!(run.metrics.cost, Some(0.5));
        assert_eq!(run.trace[1].data, Some(json!({"output": {"a": 1}})));
    }
}
