//! A sample's result as Agent Lab records, so `judge eval --html` writes the same report as
//! `judge view`: one atomic RunRecord per sample (its code as output, the tests in its trace)
//! and ScoreRecords `passed` (bool) and `tests_passed` (the fraction).

use crate::{Sample, SampleResult, SampleStatus};
use serde_json::{Map, Value, json};
use verdict_contracts::lab::{
    Evidence, Provenance, RunError, RunMetrics, RunRecord, RunStatus, ScoreRecord, ScoreTarget,
    ScoreValue, TaskType, TraceEvent, TraceLevel,
};
use verdict_contracts::oracle::OracleCaseStatus;
use verdict_contracts::timestamp::Timestamp;

/// The runner id the records name.
pub const RUNNER_ID: &str = "judge-eval";

/// The RunRecord and ScoreRecords of one judged sample; `program` is the code that was judged.
pub fn lab_records(
    sample: &Sample,
    program: &str,
    result: &SampleResult,
    started_at: Timestamp,
    completed_at: Timestamp,
    dataset: &str,
) -> (RunRecord, Vec<ScoreRecord>) {
    let run_id = format!("{}@{}", sample.task_id, sample.line);
    let latency: u64 = result.tests.iter().map(|t| t.time_ms).sum();
    let trace = result
        .tests
        .iter()
        .map(|t| TraceEvent {
            timestamp: completed_at,
            level: match t.status {
                OracleCaseStatus::Passed => TraceLevel::Info,
                OracleCaseStatus::InvalidTestFormat => TraceLevel::Warn,
                _ => TraceLevel::Error,
            },
            step: Some(t.name.clone()),
            event: format!("test {}", t.status.as_str()),
            data: Some(json!({"message": t.message, "time_ms": t.time_ms})),
        })
        .collect();
    let mut config = Map::new();
    config.insert("dataset".into(), Value::String(dataset.to_string()));
    let infra = result.status == SampleStatus::InfraError;
    let run = RunRecord {
        id: run_id.clone(),
        task_id: sample.task_id.clone(),
        task_type: TaskType::Atomic,
        status: if infra {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        },
        output: (!infra).then(|| json!({"code": program, "result": result.result})),
        error: result
            .infra_error
            .as_ref()
            .map(|e| RunError::new(format!("infra_error: {}", e.message))),
        metrics: RunMetrics {
            latency: latency as f64,
            tokens: None,
            cost: None,
        },
        trace,
        steps: None,
        started_at,
        completed_at: Some(completed_at),
        provenance: Provenance::new(RUNNER_ID, env!("CARGO_PKG_VERSION"), config),
    };
    if infra {
        return (run, Vec::new());
    }
    let score = |metric: &str, value: ScoreValue| ScoreRecord {
        id: format!("{run_id}/{metric}"),
        run_id: run_id.clone(),
        metric: metric.to_string(),
        value,
        target: ScoreTarget::Final,
        evidence: Some(Evidence {
            explanation: Some(result.result.clone()),
            snippets: None,
            alignment: None,
        }),
        evaluator_id: RUNNER_ID.to_string(),
        created_at: completed_at,
    };
    let fraction = if result.tests_total == 0 {
        0.0
    } else {
        result.tests_passed as f64 / result.tests_total as f64
    };
    let scores = vec![
        score("passed", ScoreValue::Bool(result.passed)),
        score("tests_passed", ScoreValue::Number(fraction)),
    ];
    (run, scores)
}
