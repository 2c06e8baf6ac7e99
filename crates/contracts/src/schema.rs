//! JSON Schemas (draft 2020-12) of the top-level wire types, as `judge schema` writes them into
//! `schemas/`. The schemas describe what verdict accepts (fields with defaults are optional).

use crate::batch::{BatchEvent, BatchReport, BatchRequest, BatchStatus};
use crate::judge::{JudgeReport, JudgeTaskResult, Submission};
use crate::lab::{AtomicTask, RunRecord, ScenarioTask, ScoreRecord, StepSummary, TraceEvent};
use crate::oracle::{OracleReport, TestCase, TestSuite};
use crate::reports::{GoogleTestReport, MemoryReport, StaticReport};
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

fn schema_for<T: JsonSchema>() -> Schema {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    // `$schema`, `title` and `description` first, so that a reader sees what the file is.
    let mut object = match schema.to_value() {
        Value::Object(object) => object,
        other => return Schema::try_from(other).unwrap_or_default(),
    };
    let mut ordered = Map::new();
    for key in ["$schema", "title", "description"] {
        if let Some(v) = object.remove(key) {
            ordered.insert(key.to_owned(), v);
        }
    }
    ordered.extend(object);
    Schema::from(ordered)
}

/// One schema per top-level wire type, named after the type, in a fixed order.
pub fn schemas() -> Vec<(&'static str, Schema)> {
    vec![
        ("Submission", schema_for::<Submission>()),
        ("JudgeReport", schema_for::<JudgeReport>()),
        ("JudgeTaskResult", schema_for::<JudgeTaskResult>()),
        ("GoogleTestReport", schema_for::<GoogleTestReport>()),
        ("StaticReport", schema_for::<StaticReport>()),
        ("MemoryReport", schema_for::<MemoryReport>()),
        ("TestSuite", schema_for::<TestSuite>()),
        ("TestCase", schema_for::<TestCase>()),
        ("OracleReport", schema_for::<OracleReport>()),
        ("BatchRequest", schema_for::<BatchRequest>()),
        ("BatchEvent", schema_for::<BatchEvent>()),
        ("BatchReport", schema_for::<BatchReport>()),
        ("BatchStatus", schema_for::<BatchStatus>()),
        ("AtomicTask", schema_for::<AtomicTask>()),
        ("ScenarioTask", schema_for::<ScenarioTask>()),
        ("RunRecord", schema_for::<RunRecord>()),
        ("TraceEvent", schema_for::<TraceEvent>()),
        ("StepSummary", schema_for::<StepSummary>()),
        ("ScoreRecord", schema_for::<ScoreRecord>()),
    ]
}

/// The files of `schemas/`: `<Name>.schema.json` and its text (pretty JSON, final newline).
///
/// ```
/// let files = verdict_contracts::schema_files();
/// let (name, text) = &files[0];
/// assert_eq!(name, "Submission.schema.json");
/// assert!(text.contains("\"$schema\": \"https://json-schema.org/draft/2020-12/schema\""));
/// assert!(text.ends_with("}\n"));
/// ```
pub fn schema_files() -> Vec<(String, String)> {
    schemas()
        .into_iter()
        .map(|(name, schema)| {
            let mut text = serde_json::to_string_pretty(schema.as_value())
                .expect("a JSON value always serialises");
            text.push('\n');
            (format!("{name}.schema.json"), text)
        })
        .collect()
}
