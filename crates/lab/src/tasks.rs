//! Reading task files, and the content hash of a task.
//!
//! A task file is a JSON array of tasks, one task, or JSON Lines (one task per line). A task
//! with a `steps` field is a ScenarioTask, any other an AtomicTask. A scenario's run input (what
//! `input:<path>` reads) is its `metadata.input`.

use serde_json::{Map, Value};
use verdict_contracts::{AtomicTask, ScenarioTask};

/// An atomic or a scenario task.
// A task is held once per run, never in bulk hot paths: no need to box the larger variant.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum LabTask {
    /// An AtomicTask.
    Atomic(AtomicTask),
    /// A ScenarioTask.
    Scenario(ScenarioTask),
}

impl LabTask {
    /// The task's id.
    pub fn id(&self) -> &str {
        match self {
            LabTask::Atomic(t) => &t.id,
            LabTask::Scenario(t) => &t.id,
        }
    }

    /// The task's `type` (an atomic task's) or `"scenario"`.
    pub fn kind(&self) -> &str {
        match self {
            LabTask::Atomic(t) => &t.kind,
            LabTask::Scenario(_) => "scenario",
        }
    }

    /// Reads one task from JSON, naming the field at fault.
    pub fn from_value(value: Value) -> Result<LabTask, String> {
        let Value::Object(obj) = &value else {
            return Err("must be a JSON object".into());
        };
        if obj.contains_key("steps") {
            let task: ScenarioTask =
                from_value_at(value).map_err(|e| format!("invalid ScenarioTask: {e}"))?;
            if let Err(errors) = task.validate() {
                let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
                return Err(all.join("; "));
            }
            Ok(LabTask::Scenario(task))
        } else {
            let task: AtomicTask =
                from_value_at(value).map_err(|e| format!("invalid AtomicTask: {e}"))?;
            Ok(LabTask::Atomic(task))
        }
    }

    /// The atomic tasks this task runs (itself, or a scenario's steps).
    pub fn atomic_tasks(&self) -> Vec<&AtomicTask> {
        match self {
            LabTask::Atomic(t) => vec![t],
            LabTask::Scenario(s) => s.steps.iter().collect(),
        }
    }

    fn to_value(&self) -> Value {
        match self {
            LabTask::Atomic(t) => serde_json::to_value(t),
            LabTask::Scenario(t) => serde_json::to_value(t),
        }
        .unwrap_or(Value::Null)
    }
}

/// Reads `value` as a `T`; an error names the field at fault (`metadata.timeout: invalid type:
/// string "5s", expected u64`).
fn from_value_at<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            inner.to_string()
        } else {
            format!("{path}: {inner}")
        }
    })
}

/// One task read from a file.
#[derive(Debug, Clone)]
pub struct TaskEntry {
    /// The task.
    pub task: LabTask,
    /// Its content hash ([`task_hash`]).
    pub hash: String,
    /// Top-level fields the contract does not know (ignored; rule 1 puts them in `extensions`).
    pub unknown_fields: Vec<String>,
    /// Where it was read: `tasks[2]` (line 3).
    pub origin: String,
}

/// The content hash of a task: `blake3:<hex>` of its canonical JSON (the task as the contract
/// reads it, object keys sorted), so formatting, key order and unknown fields do not change it.
pub fn task_hash(task: &LabTask) -> String {
    let canonical = canonical(&task.to_value());
    let text = serde_json::to_string(&canonical).unwrap_or_default();
    format!("blake3:{}", blake3::hash(text.as_bytes()).to_hex())
}

fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(obj) => {
            let mut keys: Vec<&String> = obj.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&obj[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// Reads a task file: a JSON array, one task, or JSON Lines. Every problem is reported, each
/// naming the task (`tasks[2] (line 3, id "task-001"): invalid AtomicTask: missing field
/// `name``); nothing is returned unless every task is valid.
pub fn parse_tasks(text: &str) -> Result<Vec<TaskEntry>, Vec<String>> {
    let mut values: Vec<(Value, usize)> = Vec::new();
    let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    if text.trim_start().starts_with('[') {
        match serde_json::from_str::<Vec<Value>>(text) {
            Ok(items) => values.extend(items.into_iter().map(|v| (v, 0))),
            Err(e) => return Err(vec![format!("tasks: not a JSON array of tasks: {e}")]),
        }
    } else {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        loop {
            let start = stream.byte_offset();
            let rest = &text[start..];
            let line = line_of(start + rest.len() - rest.trim_start().len());
            match stream.next() {
                None => break,
                Some(Ok(v)) => values.push((v, line)),
                Some(Err(e)) => {
                    return Err(vec![format!(
                        "tasks[{}] (line {line}): not JSON: {e}",
                        values.len()
                    )]);
                }
            }
        }
    }
    if values.is_empty() {
        return Err(vec!["tasks: the file holds no task".into()]);
    }
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for (i, (value, line)) in values.into_iter().enumerate() {
        let id = value
            .get("id")
            .and_then(Value::as_str)
            .map(|id| format!("id {id:?}"));
        let origin = match (line, &id) {
            (0, None) => format!("tasks[{i}]"),
            (0, Some(id)) => format!("tasks[{i}] ({id})"),
            (l, None) => format!("tasks[{i}] (line {l})"),
            (l, Some(id)) => format!("tasks[{i}] (line {l}, {id})"),
        };
        let unknown_fields = if value.get("steps").is_some() {
            Vec::new()
        } else {
            AtomicTask::unknown_fields(&value)
        };
        match LabTask::from_value(value) {
            Ok(task) => entries.push(TaskEntry {
                hash: task_hash(&task),
                task,
                unknown_fields,
                origin,
            }),
            Err(message) => errors.push(format!("{origin}: {message}")),
        }
    }
    if errors.is_empty() {
        errors.extend(duplicate_ids(&entries));
    }
    if errors.is_empty() {
        Ok(entries)
    } else {
        Err(errors)
    }
}

/// One error per task id used more than once, naming every task that uses it.
fn duplicate_ids(entries: &[TaskEntry]) -> Vec<String> {
    let mut by_id: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for e in entries {
        by_id.entry(e.task.id()).or_default().push(&e.origin);
    }
    by_id
        .into_iter()
        .filter(|(_, origins)| origins.len() > 1)
        .map(|(id, origins)| {
            format!(
                "tasks: duplicate task id {id:?} ({}); each task needs its own id",
                origins.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const INTENT: &str =
        r#"{"id":"task-001","name":"n","type":"intent","input":"x","metadata":{}}"#;

    #[test]
    fn reads_arrays_single_tasks_and_json_lines() {
        let second = INTENT.replace("task-001", "task-002");
        assert_eq!(
            parse_tasks(&format!("[{INTENT}, {second}]")).unwrap().len(),
            2
        );
        assert_eq!(parse_tasks(INTENT).unwrap().len(), 1);
        let lines = format!("{INTENT}\n\n{second}\n");
        let entries = parse_tasks(&lines).unwrap();
        assert_eq!(entries[1].origin, "tasks[1] (line 3, id \"task-002\")");
    }

    #[test]
    fn hash_ignores_formatting_and_key_order() {
        let a = parse_tasks(INTENT).unwrap();
        let b = parse_tasks(
            r#"{ "metadata": {}, "input": "x", "type": "intent", "name": "n", "id": "task-001", "other": 1 }"#,
        )
        .unwrap();
        assert_eq!(a[0].hash, b[0].hash);
        assert_eq!(b[0].unknown_fields, ["other"]);
        assert!(a[0].hash.starts_with("blake3:"));
        let c = parse_tasks(&INTENT.replace("\"x\"", "\"y\"")).unwrap();
        assert_ne!(a[0].hash, c[0].hash);
    }

    #[test]
    fn duplicate_task_ids_are_refused_naming_them() {
        let other = INTENT.replace("task-001", "task-002");
        let text = format!("{INTENT}\n{other}\n{INTENT}\n");
        assert_eq!(
            parse_tasks(&text).unwrap_err(),
            [
                "tasks: duplicate task id \"task-001\" (tasks[0] (line 1, id \"task-001\"), tasks[2] (line 3, id \"task-001\")); each task needs its own id"
            ]
        );
    }

    #[test]
    fn a_timeout_that_is_not_a_number_names_the_field() {
        let bad = INTENT.replace("\"metadata\":{}", "\"metadata\":{\"timeout\":\"5s\"}");
        let errors = parse_tasks(&bad).unwrap_err();
        assert!(
            errors[0].contains("invalid AtomicTask: metadata.timeout: invalid type: string \"5s\""),
            "{errors:?}"
        );
        let scenario = format!(
            r#"{{"id":"s","name":"n","description":"d","steps":[{bad}],"input_map":{{}}}}"#
        );
        let errors = parse_tasks(&scenario).unwrap_err();
        assert!(
            errors[0].contains("invalid ScenarioTask: steps[0].metadata.timeout: invalid type"),
            "{errors:?}"
        );
    }

    #[test]
    fn bad_tasks_are_named() {
        let text = format!(
            "{INTENT}\n{{\"id\":\"t2\",\"type\":\"intent\",\"input\":1,\"metadata\":{{}}}}\n"
        );
        let errors = parse_tasks(&text).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with(
                "tasks[1] (line 2, id \"t2\"): invalid AtomicTask: missing field `name`"
            ),
            "{errors:?}"
        );
        let errors = parse_tasks("{\"id\": ").unwrap_err();
        assert!(
            errors[0].starts_with("tasks[0] (line 1): not JSON"),
            "{errors:?}"
        );
        let scenario = r#"{"id":"s","name":"n","description":"d","steps":[{"id":"a","name":"a","type":"t","input":null,"metadata":{}}],
            "input_map":{"a":[{"from":"step:zz.output","to":"input.x"}]}}"#;
        let errors = parse_tasks(scenario).unwrap_err();
        assert!(
            errors[0].contains("input_map[\"a\"][0].from: unknown step \"zz\""),
            "{errors:?}"
        );
        assert_eq!(
            parse_tasks("  \n").unwrap_err(),
            ["tasks: the file holds no task"]
        );
    }
}
