//! The rules of a ScenarioTask's `input_map`, and its resolved form for the lab engine.
//!
//! - A key of `input_map` names the step that receives the values: a step id, or a step name
//!   that exactly one step has (ids win over names). Two keys naming the same step are an error.
//! - `from` is `step:<step>.output[<path>]` (the output of an earlier step; `step:<step>` alone is
//!   its whole output) or `input:<path>` (the scenario run's input, given to the lab engine when
//!   the scenario starts; `input:` alone is all of it). `<step>` is resolved like a key, and the
//!   word `previous` names the step just before, unless a step has that id or name.
//! - A step may read only from steps before it: itself or a later step is an error.
//! - `to` is `input` or `input.<path>` / `input[<n>]...`: where in the step's input the value goes.
//! - Paths are [`DataPath`]s: `a.b[0].c`.

use crate::data_path::{DataPath, DataPathError};
use crate::lab::{InputMapping, ScenarioTask};
use std::collections::HashMap;
use std::fmt;

/// One problem in a ScenarioTask, naming the field (`input_map["step-2"][0].from`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct LabValidationError {
    /// The field at fault.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl LabValidationError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        LabValidationError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// Where a mapping reads from, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapSource {
    /// `step:<step>.output<path>`: a step's output (the step as written: id, name or `previous`).
    Step {
        /// The step reference as written.
        step: String,
        /// The path inside the step's output.
        path: DataPath,
    },
    /// `input:<path>`: the scenario run's input.
    Input {
        /// The path inside the scenario's input.
        path: DataPath,
    },
}

impl MapSource {
    /// Parses a `from` string.
    pub fn parse(from: &str) -> Result<Self, String> {
        if let Some(rest) = from.strip_prefix("input:") {
            let path = DataPath::parse(rest).map_err(path_message)?;
            return Ok(MapSource::Input { path });
        }
        let Some(rest) = from.strip_prefix("step:") else {
            return Err(format!(
                "{from:?} must start with \"step:\" or \"input:\" (e.g. \"step:step-1.output.intent\")"
            ));
        };
        let (step, path) = match find_output(rest) {
            Some(at) => (&rest[..at], &rest[at + ".output".len()..]),
            None if rest.contains('.') || rest.contains('[') => {
                return Err(format!(
                    "{from:?} must read a step's output: \"step:<step>.output[.<path>]\""
                ));
            }
            None => (rest, ""),
        };
        if step.is_empty() {
            return Err(format!("{from:?} names no step"));
        }
        let path = match path.strip_prefix('.') {
            Some(p) => DataPath::parse(p),
            None => DataPath::parse(path),
        }
        .map_err(path_message)?;
        Ok(MapSource::Step {
            step: step.to_owned(),
            path,
        })
    }
}

impl fmt::Display for MapSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapSource::Input { path } => write!(f, "input:{path}"),
            MapSource::Step { step, path } if path.is_root() => write!(f, "step:{step}.output"),
            MapSource::Step { step, path } => match path.segments().first() {
                Some(crate::data_path::PathSegment::Index(_)) => {
                    write!(f, "step:{step}.output{path}")
                }
                _ => write!(f, "step:{step}.output.{path}"),
            },
        }
    }
}

/// The byte offset of the first `.output` that ends the step reference (followed by the end,
/// `.` or `[`).
fn find_output(rest: &str) -> Option<usize> {
    rest.match_indices(".output").map(|(i, _)| i).find(|&i| {
        matches!(
            rest.as_bytes().get(i + ".output".len()),
            None | Some(b'.') | Some(b'[')
        )
    })
}

/// Parses a `to` string: `input`, `input.<path>` or `input[<n>]...`; indexes are at most
/// [`crate::data_path::MAX_WRITE_INDEX`] (a write pads the array up to its index).
pub fn parse_target(to: &str) -> Result<DataPath, String> {
    let path = parse_target_path(to)?;
    path.check_writable().map_err(path_message)?;
    Ok(path)
}

fn parse_target_path(to: &str) -> Result<DataPath, String> {
    let Some(rest) = to.strip_prefix("input") else {
        return Err(format!(
            "{to:?} must start with \"input\" (e.g. \"input.intent\")"
        ));
    };
    match rest.as_bytes().first() {
        None => Ok(DataPath::root()),
        Some(b'.') => DataPath::parse(&rest[1..]).map_err(path_message),
        Some(b'[') => DataPath::parse(rest).map_err(path_message),
        Some(_) => Err(format!(
            "{to:?} must start with \"input\" (e.g. \"input.intent\")"
        )),
    }
}

fn path_message(e: DataPathError) -> String {
    e.to_string()
}

/// Where a resolved mapping reads from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedSource {
    /// The output of the step at this index of `steps` (always an earlier step).
    Step {
        /// Index into `steps`.
        index: usize,
        /// The path inside its output.
        path: DataPath,
    },
    /// The scenario run's input.
    Input {
        /// The path inside it.
        path: DataPath,
    },
}

/// One checked mapping: read `source`, write at `to` in the step's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedMapping {
    /// Where the value comes from.
    pub source: ResolvedSource,
    /// Where in the receiving step's input it goes.
    pub to: DataPath,
}

/// A checked `input_map`: for each step (by index in `steps`), its mappings in written order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScenarioPlan {
    /// `inputs[i]` are the mappings into step `i`'s input.
    pub inputs: Vec<Vec<ResolvedMapping>>,
}

/// How a step reference resolved.
enum StepRef {
    Found(usize),
    Unknown,
    Ambiguous(Vec<usize>),
}

struct StepIndex<'a> {
    by_id: HashMap<&'a str, usize>,
    by_name: HashMap<&'a str, Vec<usize>>,
}

impl<'a> StepIndex<'a> {
    fn new(task: &'a ScenarioTask) -> Self {
        let mut by_id = HashMap::new();
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, step) in task.steps.iter().enumerate() {
            by_id.entry(step.id.as_str()).or_insert(i);
            by_name.entry(step.name.as_str()).or_default().push(i);
        }
        StepIndex { by_id, by_name }
    }

    fn resolve(&self, reference: &str) -> StepRef {
        if let Some(&i) = self.by_id.get(reference) {
            return StepRef::Found(i);
        }
        match self.by_name.get(reference).map(Vec::as_slice) {
            Some([i]) => StepRef::Found(*i),
            Some(many) => StepRef::Ambiguous(many.to_vec()),
            None => StepRef::Unknown,
        }
    }
}

fn list_steps(indices: &[usize]) -> String {
    indices
        .iter()
        .map(|i| format!("steps[{i}]"))
        .collect::<Vec<_>>()
        .join(" and ")
}

impl ScenarioTask {
    /// Checks the steps and `input_map`; every problem is reported, each naming its field.
    pub fn validate(&self) -> Result<(), Vec<LabValidationError>> {
        self.plan().map(|_| ())
    }

    /// Checks the scenario and resolves `input_map` to step indices, for the lab engine.
    pub fn plan(&self) -> Result<ScenarioPlan, Vec<LabValidationError>> {
        let mut errors = Vec::new();
        if self.steps.is_empty() {
            errors.push(LabValidationError::new(
                "steps",
                "must hold at least one step",
            ));
        }
        let mut first_with_id: HashMap<&str, usize> = HashMap::new();
        for (i, step) in self.steps.iter().enumerate() {
            if step.id.is_empty() {
                errors.push(LabValidationError::new(
                    format!("steps[{i}].id"),
                    "must not be empty",
                ));
            } else if let Some(first) = first_with_id.insert(step.id.as_str(), i) {
                first_with_id.insert(step.id.as_str(), first);
                errors.push(LabValidationError::new(
                    format!("steps[{i}].id"),
                    format!("{:?} is already the id of steps[{first}]", step.id),
                ));
            }
        }
        let index = StepIndex::new(self);
        let mut plan = ScenarioPlan {
            inputs: vec![Vec::new(); self.steps.len()],
        };
        let mut key_of_step: HashMap<usize, &str> = HashMap::new();
        for (key, mappings) in &self.input_map {
            let at = format!("input_map[{key:?}]");
            let target = match index.resolve(key) {
                StepRef::Found(i) => i,
                StepRef::Unknown => {
                    errors.push(LabValidationError::new(
                        at,
                        format!("no step has the id or name {key:?}"),
                    ));
                    continue;
                }
                StepRef::Ambiguous(many) => {
                    errors.push(LabValidationError::new(
                        at,
                        format!(
                            "{key:?} is the name of {}; use a step id",
                            list_steps(&many)
                        ),
                    ));
                    continue;
                }
            };
            if let Some(other) = key_of_step.insert(target, key) {
                errors.push(LabValidationError::new(
                    at,
                    format!("names the same step as input_map[{other:?}]"),
                ));
                continue;
            }
            for (j, mapping) in mappings.iter().enumerate() {
                match self.resolve_mapping(&index, target, mapping) {
                    Ok(resolved) => plan.inputs[target].push(resolved),
                    Err(mut es) => {
                        for e in &mut es {
                            e.field = format!("{at}[{j}].{}", e.field);
                        }
                        errors.extend(es);
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(plan)
        } else {
            Err(errors)
        }
    }

    fn resolve_mapping(
        &self,
        index: &StepIndex<'_>,
        target: usize,
        mapping: &InputMapping,
    ) -> Result<ResolvedMapping, Vec<LabValidationError>> {
        let mut errors = Vec::new();
        let source = match MapSource::parse(&mapping.from) {
            Ok(MapSource::Input { path }) => Some(ResolvedSource::Input { path }),
            Ok(MapSource::Step { step, path }) => {
                match self.resolve_source_step(index, target, &step) {
                    Ok(i) => Some(ResolvedSource::Step { index: i, path }),
                    Err(message) => {
                        errors.push(LabValidationError::new("from", message));
                        None
                    }
                }
            }
            Err(message) => {
                errors.push(LabValidationError::new("from", message));
                None
            }
        };
        let to = parse_target(&mapping.to)
            .map_err(|message| errors.push(LabValidationError::new("to", message)))
            .ok();
        match (source, to) {
            (Some(source), Some(to)) => Ok(ResolvedMapping { source, to }),
            _ => Err(errors),
        }
    }

    fn resolve_source_step(
        &self,
        index: &StepIndex<'_>,
        target: usize,
        reference: &str,
    ) -> Result<usize, String> {
        let found = match index.resolve(reference) {
            StepRef::Found(i) => i,
            StepRef::Unknown if reference == "previous" => {
                return target.checked_sub(1).ok_or_else(|| {
                    "\"previous\" names no step: this is the first step".to_owned()
                });
            }
            StepRef::Unknown => return Err(format!("unknown step {reference:?}")),
            StepRef::Ambiguous(many) => {
                return Err(format!(
                    "{reference:?} is the name of {}; use a step id",
                    list_steps(&many)
                ));
            }
        };
        let receiver = &self.steps[target].id;
        if found == target {
            Err(format!("step {reference:?} cannot read its own output"))
        } else if found > target {
            Err(format!(
                "step {reference:?} (steps[{found}]) runs after step {receiver:?} (steps[{target}]); a step may read only from earlier steps"
            ))
        } else {
            Ok(found)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{AtomicTask, TaskMetadata};
    use serde_json::{Map, Value};
    use std::collections::BTreeMap;

    #[test]
    fn input_map_targets_with_huge_indexes_are_refused() {
        let err = parse_target("input.a[100000000]").unwrap_err();
        assert!(err.contains("100000000") && err.contains("65535"), "{err}");
        assert!(parse_target("input.a[3]").is_ok());
    }

    fn step(id: &str, name: &str) -> AtomicTask {
        AtomicTask {
            id: id.into(),
            name: name.into(),
            kind: "intent".into(),
            input: Value::Null,
            expected: None,
            context: None,
            metadata: TaskMetadata::default(),
            extensions: None,
        }
    }

    fn scenario(map: &[(&str, &[(&str, &str)])]) -> ScenarioTask {
        let input_map: BTreeMap<String, Vec<InputMapping>> = map
            .iter()
            .map(|(k, ms)| {
                let ms = ms
                    .iter()
                    .map(|(from, to)| InputMapping {
                        from: (*from).into(),
                        to: (*to).into(),
                    })
                    .collect();
                ((*k).to_owned(), ms)
            })
            .collect();
        ScenarioTask {
            id: "scenario-001".into(),
            name: "n".into(),
            description: "d".into(),
            steps: vec![
                step("step-1", "recognize_intent"),
                step("step-2", "manage_dialogue"),
                step("step-3", "store_memory"),
            ],
            input_map,
            metadata: Map::new(),
        }
    }

    fn messages(task: &ScenarioTask) -> Vec<String> {
        task.validate()
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn seed_scenario_resolves() {
        let task = scenario(&[
            ("step-2", &[("step:step-1.output.intent", "input.intent")]),
            (
                "step-3",
                &[("step:step-2.output.conversation", "input.conversation")],
            ),
        ]);
        let plan = task.plan().unwrap();
        assert!(plan.inputs[0].is_empty());
        assert_eq!(
            plan.inputs[1],
            [ResolvedMapping {
                source: ResolvedSource::Step {
                    index: 0,
                    path: "intent".parse().unwrap()
                },
                to: "intent".parse().unwrap(),
            }]
        );
        assert_eq!(plan.inputs[2].len(), 1);
    }

    #[test]
    fn keys_and_sources_may_be_unique_step_names_or_previous() {
        let task = scenario(&[
            (
                "manage_dialogue",
                &[("step:recognize_intent.output", "input")],
            ),
            (
                "step-3",
                &[
                    ("step:previous.output[0].x", "input[1]"),
                    ("input:user.id", "input.user"),
                ],
            ),
        ]);
        let plan = task.plan().unwrap();
        assert_eq!(
            plan.inputs[1][0].source,
            ResolvedSource::Step {
                index: 0,
                path: DataPath::root()
            }
        );
        assert_eq!(
            plan.inputs[2][0].source,
            ResolvedSource::Step {
                index: 1,
                path: "[0].x".parse().unwrap()
            }
        );
        assert_eq!(
            plan.inputs[2][1].source,
            ResolvedSource::Input {
                path: "user.id".parse().unwrap()
            }
        );
        assert!(
            scenario(&[("step-2", &[("step:step-1", "input.a")])])
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn input_map_key_must_name_a_step() {
        let task = scenario(&[("step-9", &[("input:a", "input.a")])]);
        assert_eq!(
            messages(&task),
            [r#"input_map["step-9"]: no step has the id or name "step-9""#]
        );
    }

    #[test]
    fn ambiguous_step_name_is_rejected() {
        let mut task = scenario(&[("twin", &[("input:a", "input.a")])]);
        task.steps[1].name = "twin".into();
        task.steps[2].name = "twin".into();
        assert_eq!(
            messages(&task),
            [r#"input_map["twin"]: "twin" is the name of steps[1] and steps[2]; use a step id"#]
        );
    }

    #[test]
    fn two_keys_for_one_step_are_rejected() {
        let task = scenario(&[
            ("step-2", &[("input:a", "input.a")]),
            ("manage_dialogue", &[("input:b", "input.b")]),
        ]);
        assert_eq!(
            messages(&task),
            [r#"input_map["step-2"]: names the same step as input_map["manage_dialogue"]"#]
        );
    }

    #[test]
    fn source_must_be_an_earlier_step() {
        let later = scenario(&[("step-2", &[("step:step-3.output.x", "input.x")])]);
        assert_eq!(
            messages(&later),
            [
                r#"input_map["step-2"][0].from: step "step-3" (steps[2]) runs after step "step-2" (steps[1]); a step may read only from earlier steps"#
            ]
        );
        let itself = scenario(&[("step-2", &[("step:step-2.output", "input")])]);
        assert_eq!(
            messages(&itself),
            [r#"input_map["step-2"][0].from: step "step-2" cannot read its own output"#]
        );
        let unknown = scenario(&[("step-2", &[("step:step-7.output", "input")])]);
        assert_eq!(
            messages(&unknown),
            [r#"input_map["step-2"][0].from: unknown step "step-7""#]
        );
        let first = scenario(&[("step-1", &[("step:previous.output", "input")])]);
        assert_eq!(
            messages(&first),
            [r#"input_map["step-1"][0].from: "previous" names no step: this is the first step"#]
        );
    }

    #[test]
    fn source_and_target_must_parse() {
        let task = scenario(&[(
            "step-2",
            &[
                ("output:step-1", "input.a"),
                ("step:step-1.input.x", "input.a"),
                ("step:step-1.output.a..b", "output.a"),
                ("step:.output", "input[x]"),
            ],
        )]);
        assert_eq!(
            messages(&task),
            [
                r#"input_map["step-2"][0].from: "output:step-1" must start with "step:" or "input:" (e.g. "step:step-1.output.intent")"#,
                r#"input_map["step-2"][1].from: "step:step-1.input.x" must read a step's output: "step:<step>.output[.<path>]""#,
                r#"input_map["step-2"][2].from: invalid path "a..b": empty key at byte 2"#,
                r#"input_map["step-2"][2].to: "output.a" must start with "input" (e.g. "input.intent")"#,
                r#"input_map["step-2"][3].from: "step:.output" names no step"#,
                r#"input_map["step-2"][3].to: invalid path "[x]": array index must be a decimal number at byte 1"#,
            ]
        );
    }

    #[test]
    fn step_ids_must_be_unique_and_present() {
        let mut task = scenario(&[]);
        task.steps[2].id = "step-1".into();
        task.steps[1].id = String::new();
        assert_eq!(
            messages(&task),
            [
                "steps[1].id: must not be empty",
                r#"steps[2].id: "step-1" is already the id of steps[0]"#,
            ]
        );
        task.steps.clear();
        assert_eq!(messages(&task), ["steps: must hold at least one step"]);
    }

    #[test]
    fn map_source_displays_as_written() {
        for text in [
            "step:step-1.output.intent",
            "step:a.output",
            "step:a.output[0].b",
            "input:x.y",
            "input:",
        ] {
            assert_eq!(MapSource::parse(text).unwrap().to_string(), text);
        }
    }
}
