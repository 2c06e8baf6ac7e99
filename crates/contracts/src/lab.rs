//! The Agent Lab records (the Agent Lab contract, restated in `docs/agent-lab.md`): `AtomicTask`, `ScenarioTask`,
//! `RunRecord`, `TraceEvent`, `StepSummary`, `ScoreRecord`: data only (the `Runner` and
//! `Evaluator` traits live in `verdict-lab`). Field names are the seed's (camelCase, and
//! `input_map` as the seed spells it).
//!
//! Decisions where the seed is silent:
//! - Dates are RFC 3339 strings ([`Timestamp`]).
//! - `input`, `expected`, `output` and `data` are any JSON; an explicit `null` is kept as
//!   `Some(Value::Null)` so that it is written back.
//! - Numbers that TypeScript types as `number` and that may be fractional (`priority`,
//!   `latency`, `cost`, a numeric score) are `f64`, written without `.0` when whole, as
//!   JavaScript writes them; `timeout` (ms) and `tokens` are unsigned integers.
//! - Rule 1 (module fields only in `extensions`): unknown top-level fields of a task are ignored
//!   on input and never written; [`AtomicTask::unknown_fields`] names them so that the lab engine
//!   can warn.
//! - verdict records its own version and the task's content hash in `provenance.config`
//!   (`verdictVersion`, `taskHash`); `provenance` keeps exactly the seed's three keys.

use crate::timestamp::Timestamp;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A task that evaluates one capability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AtomicTask {
    /// The task's unique id.
    pub id: String,
    /// A human name.
    pub name: String,
    /// The capability type (`"intent"`, `"dialogue"`, or a runner kind such as `"function"`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The task's input; its shape is the module's.
    pub input: Value,
    /// The expected output, for evaluators.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub expected: Option<Value>,
    /// Extra context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// Tags, priority and timeout.
    pub metadata: TaskMetadata,
    /// Module-specific fields (rule 1: nowhere else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
}

impl AtomicTask {
    /// The top-level field names of the contract, in the seed's order.
    pub const FIELDS: [&'static str; 8] = [
        "id",
        "name",
        "type",
        "input",
        "expected",
        "context",
        "metadata",
        "extensions",
    ];

    /// The top-level keys of a raw task that the contract does not know (they are ignored;
    /// rule 1 says module fields belong in `extensions`). Empty when `raw` is not an object.
    pub fn unknown_fields(raw: &Value) -> Vec<String> {
        raw.as_object()
            .map(|obj| {
                obj.keys()
                    .filter(|k| !Self::FIELDS.contains(&k.as_str()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The timeout in milliseconds, if the task sets one.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.metadata.timeout
    }
}

/// An AtomicTask's metadata.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TaskMetadata {
    /// Tags for grouping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Priority (any number).
    #[serde(
        default,
        serialize_with = "js_number::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub priority: Option<f64>,
    /// Timeout in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// A task that chains atomic tasks, passing data between steps by `input_map`.
///
/// See [`ScenarioTask::validate`] and [`ScenarioTask::plan`] (in `scenario.rs`) for the rules of
/// `input_map`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioTask {
    /// The scenario's unique id.
    pub id: String,
    /// A human name.
    pub name: String,
    /// What the scenario exercises.
    pub description: String,
    /// The steps, run in order.
    pub steps: Vec<AtomicTask>,
    /// For each step (by id, or by unique name), the values injected into its input; written
    /// in key order.
    #[serde(default)]
    pub input_map: BTreeMap<String, Vec<InputMapping>>,
    /// Free-form metadata.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

/// One data flow into a step's input: `from` a source, `to` a place in the step's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InputMapping {
    /// `step:<step>.output[.<path>]` or `input:<path>`.
    pub from: String,
    /// `input[.<path>]`: where in the step's input the value goes.
    pub to: String,
}

/// Whether a run was of an atomic or a scenario task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskType {
    /// An AtomicTask.
    Atomic,
    /// A ScenarioTask.
    Scenario,
}

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Not started.
    Pending,
    /// Started, not finished.
    Running,
    /// Finished with an output.
    Completed,
    /// Finished with an error.
    Failed,
}

/// The full record of one execution of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    /// The run's unique id.
    pub id: String,
    /// The task's id.
    pub task_id: String,
    /// `atomic` or `scenario`.
    pub task_type: TaskType,
    /// Where the run is.
    pub status: RunStatus,
    /// The output, when there is one.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub output: Option<Value>,
    /// Why the run failed (rule 3: with the step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    /// Cost figures.
    pub metrics: RunMetrics,
    /// Every key step of the run (rule 2).
    pub trace: Vec<TraceEvent>,
    /// One summary per step, for scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<StepSummary>>,
    /// When the run started.
    pub started_at: Timestamp,
    /// When the run ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
    /// What produced the run, for reproducibility.
    pub provenance: Provenance,
}

/// Why a run failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunError {
    /// What went wrong.
    pub message: String,
    /// The step that failed (scenarios, and rule 3 for any step-like context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// A stack trace, when the failing code gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

impl RunError {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        RunError {
            message: message.into(),
            step: None,
            stack: None,
        }
    }

    /// This error, attributed to a step.
    pub fn at_step(mut self, step: impl Into<String>) -> Self {
        self.step = Some(step.into());
        self
    }
}

/// A run's cost figures.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct RunMetrics {
    /// Wall time in milliseconds.
    #[serde(serialize_with = "js_number::plain")]
    pub latency: f64,
    /// Tokens used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// Cost in US dollars.
    #[serde(
        default,
        serialize_with = "js_number::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub cost: Option<f64>,
}

/// What produced a run: the runner and the configuration it ran with.
///
/// The wire has exactly the seed's three keys. verdict writes its own version in
/// `config.verdictVersion` and the task's content hash in `config.taskHash`
/// ([`Provenance::VERDICT_VERSION`], [`Provenance::TASK_HASH`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// The runner's id.
    pub runner_id: String,
    /// The runner's version.
    pub runner_version: String,
    /// The configuration the runner ran with, plus verdict's own keys.
    #[serde(default)]
    pub config: Map<String, Value>,
}

impl Provenance {
    /// The `config` key holding verdict's version.
    pub const VERDICT_VERSION: &'static str = "verdictVersion";
    /// The `config` key holding the task's content hash.
    pub const TASK_HASH: &'static str = "taskHash";

    /// A provenance with this runner and configuration.
    pub fn new(
        runner_id: impl Into<String>,
        runner_version: impl Into<String>,
        config: Map<String, Value>,
    ) -> Self {
        Provenance {
            runner_id: runner_id.into(),
            runner_version: runner_version.into(),
            config,
        }
    }

    /// Records verdict's version and the task's content hash in `config`.
    pub fn with_verdict(
        mut self,
        verdict_version: impl Into<String>,
        task_hash: impl Into<String>,
    ) -> Self {
        self.config.insert(
            Self::VERDICT_VERSION.into(),
            Value::String(verdict_version.into()),
        );
        self.config
            .insert(Self::TASK_HASH.into(), Value::String(task_hash.into()));
        self
    }

    /// verdict's version, if recorded.
    pub fn verdict_version(&self) -> Option<&str> {
        self.config.get(Self::VERDICT_VERSION)?.as_str()
    }

    /// The task's content hash, if recorded.
    pub fn task_hash(&self) -> Option<&str> {
        self.config.get(Self::TASK_HASH)?.as_str()
    }
}

/// The severity of a trace event.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TraceLevel {
    /// Detail.
    Debug,
    /// A key step.
    Info,
    /// Something odd.
    Warn,
    /// A failure.
    Error,
}

/// One event of a run's trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceEvent {
    /// When it happened.
    pub timestamp: Timestamp,
    /// How severe it is.
    pub level: TraceLevel,
    /// The step it belongs to (scenarios).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The event's name (`"started"`, `"llm_call"`, `"completed"`).
    pub event: String,
    /// Event data.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
}

impl TraceEvent {
    /// An event at this time, without step or data.
    pub fn new(timestamp: Timestamp, level: TraceLevel, event: impl Into<String>) -> Self {
        TraceEvent {
            timestamp,
            level,
            step: None,
            event: event.into(),
            data: None,
        }
    }

    /// This event, with data.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// This event, attributed to a step.
    pub fn at_step(mut self, step: impl Into<String>) -> Self {
        self.step = Some(step.into());
        self
    }
}

/// How a scenario step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// It ran and produced an output.
    Completed,
    /// It ran and failed.
    Failed,
    /// It did not run (an earlier step failed).
    Skipped,
}

/// The summary of one scenario step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepSummary {
    /// The step's id.
    pub step_id: String,
    /// The step's name.
    pub step_name: String,
    /// How it ended.
    pub status: StepStatus,
    /// Wall time in milliseconds.
    #[serde(serialize_with = "js_number::plain")]
    pub latency: f64,
    /// Its output.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub output: Option<Value>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One metric's value for one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreRecord {
    /// The score's unique id.
    pub id: String,
    /// The run it scores.
    pub run_id: String,
    /// The metric (`"accuracy"`, `"latency"`).
    pub metric: String,
    /// The value.
    pub value: ScoreValue,
    /// What is scored: the final output, the whole run, or one step.
    pub target: ScoreTarget,
    /// Why the value is what it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The evaluator that produced it.
    pub evaluator_id: String,
    /// When it was produced.
    pub created_at: Timestamp,
}

/// A metric value: a number, a boolean or a string.
///
/// JSON has no NaN or infinity: a non-finite number is written as `null`, which does not read
/// back; evaluators must not produce one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ScoreValue {
    /// A boolean (pass/fail).
    Bool(bool),
    /// A number (written without `.0` when whole).
    Number(#[serde(serialize_with = "js_number::plain")] f64),
    /// A label.
    Text(String),
}

impl From<bool> for ScoreValue {
    fn from(v: bool) -> Self {
        ScoreValue::Bool(v)
    }
}

impl From<f64> for ScoreValue {
    fn from(v: f64) -> Self {
        ScoreValue::Number(v)
    }
}

impl From<String> for ScoreValue {
    fn from(v: String) -> Self {
        ScoreValue::Text(v)
    }
}

impl From<&str> for ScoreValue {
    fn from(v: &str) -> Self {
        ScoreValue::Text(v.to_owned())
    }
}

/// What a score is about: `"final"`, `"global"` or `"step:<id>"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ScoreTarget {
    /// The final output.
    Final,
    /// The whole process.
    Global,
    /// One step, by id.
    Step(String),
}

impl ScoreTarget {
    /// The wire string.
    pub fn as_wire(&self) -> Cow<'_, str> {
        match self {
            ScoreTarget::Final => "final".into(),
            ScoreTarget::Global => "global".into(),
            ScoreTarget::Step(id) => format!("step:{id}").into(),
        }
    }
}

impl fmt::Display for ScoreTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_wire())
    }
}

/// A score target string that is none of `"final"`, `"global"`, `"step:<id>"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown score target {0:?}, expected \"final\", \"global\" or \"step:<id>\"")]
pub struct ScoreTargetParseError(pub String);

impl FromStr for ScoreTarget {
    type Err = ScoreTargetParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "final" => Ok(ScoreTarget::Final),
            "global" => Ok(ScoreTarget::Global),
            _ => match s.strip_prefix("step:") {
                Some(id) if !id.is_empty() => Ok(ScoreTarget::Step(id.to_owned())),
                _ => Err(ScoreTargetParseError(s.to_owned())),
            },
        }
    }
}

string_wire!(ScoreTarget, {
    "pattern": "^(final|global|step:.+)$",
    "description": "\"final\" (the final output), \"global\" (the whole process) or \"step:<id>\" (one step)."
});

/// Why a score is what it is.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// An explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// Relevant snippets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippets: Option<Vec<String>>,
    /// Alignment data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<Map<String, Value>>,
}

/// Deserialises a present field as `Some`, keeping an explicit `null` as `Some(Value::Null)`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Numbers written as JavaScript writes them: whole values without a fraction.
mod js_number {
    use serde::Serializer;

    /// 2^53: beyond it, whole floats are written as floats.
    const SAFE: f64 = 9_007_199_254_740_992.0;

    pub(super) fn plain<S: Serializer>(v: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if v.fract() == 0.0 && v.abs() < SAFE {
            #[allow(clippy::cast_possible_truncation)]
            let whole = *v as i64;
            serializer.serialize_i64(whole)
        } else {
            serializer.serialize_f64(*v)
        }
    }

    pub(super) fn option<S: Serializer>(v: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => plain(v, serializer),
            None => serializer.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn score_target_reads_the_three_forms() {
        assert_eq!("final".parse::<ScoreTarget>().unwrap(), ScoreTarget::Final);
        assert_eq!(
            "global".parse::<ScoreTarget>().unwrap(),
            ScoreTarget::Global
        );
        assert_eq!(
            "step:step-2".parse::<ScoreTarget>().unwrap(),
            ScoreTarget::Step("step-2".into())
        );
        assert_eq!(
            serde_json::to_value(ScoreTarget::Step("a:b".into())).unwrap(),
            json!("step:a:b")
        );
        for bad in ["step:", "Final", "", "steps:x"] {
            assert_eq!(
                bad.parse::<ScoreTarget>().unwrap_err().to_string(),
                format!(
                    "unknown score target {bad:?}, expected \"final\", \"global\" or \"step:<id>\""
                )
            );
        }
    }

    #[test]
    fn score_value_keeps_its_json_kind() {
        for v in [
            json!(0.95),
            json!(234),
            json!(true),
            json!("good"),
            json!(-3),
        ] {
            let parsed: ScoreValue = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&parsed).unwrap(), v);
        }
        assert_eq!(
            serde_json::from_value::<ScoreValue>(json!(234)).unwrap(),
            ScoreValue::Number(234.0)
        );
    }

    #[test]
    fn explicit_null_output_is_kept() {
        let step: StepSummary = serde_json::from_value(json!({
            "stepId": "s", "stepName": "n", "status": "skipped", "latency": 0, "output": null
        }))
        .unwrap();
        assert_eq!(step.output, Some(Value::Null));
        assert_eq!(serde_json::to_value(&step).unwrap()["output"], Value::Null);
        let step: StepSummary = serde_json::from_value(json!({
            "stepId": "s", "stepName": "n", "status": "skipped", "latency": 1.5
        }))
        .unwrap();
        assert_eq!(step.output, None);
        assert!(serde_json::to_value(&step).unwrap().get("output").is_none());
    }

    #[test]
    fn unknown_task_fields_are_ignored_and_named() {
        let raw = json!({
            "id": "t", "name": "n", "type": "intent", "input": "x", "metadata": {},
            "intentSpecificField": "value"
        });
        let task: AtomicTask = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(AtomicTask::unknown_fields(&raw), ["intentSpecificField"]);
        assert!(
            serde_json::to_value(&task)
                .unwrap()
                .get("intentSpecificField")
                .is_none()
        );
    }

    #[test]
    fn provenance_keeps_verdict_fields_in_config() {
        let p = Provenance::new("function", "0.1.0", Map::new()).with_verdict("0.1.0", "blake3:ab");
        assert_eq!(p.verdict_version(), Some("0.1.0"));
        assert_eq!(p.task_hash(), Some("blake3:ab"));
        let wire = serde_json::to_value(&p).unwrap();
        let keys: Vec<_> = wire.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["runnerId", "runnerVersion", "config"]);
        assert_eq!(wire["config"]["taskHash"], "blake3:ab");
    }
}
