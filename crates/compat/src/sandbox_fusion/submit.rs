//! SandboxFusion's `POST /submit` in its `provided_data` form: a completion sent with its
//! tests, here one record of a dataset verdict reads (docs/compat.md). The record is judged as
//! a dataset batch of one candidate (`judge eval`'s readers and runs); the answer is
//! SandboxFusion's `EvalResult`, one `EvalTestCase` per test, verdict's `CandidateResult` under
//! `extra.verdict`.

use super::{CommandRunResult, CommandRunStatus, RunCodeResponse, RunStatus, StepVerdict};
use crate::fastapi::Detail;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use verdict_contracts::batch::{CandidateResult, DatasetProblem};
use verdict_contracts::oracle::OracleCaseStatus;

/// A `/submit` request as verdict takes it: the dataset problem and the completion.
#[derive(Debug, Clone, PartialEq)]
pub struct SubmitRequest {
    /// SandboxFusion's `id`, echoed.
    pub id: Value,
    /// The completion, as the model wrote it.
    pub completion: String,
    /// The record and its format.
    pub problem: DatasetProblem,
    /// `config.run_timeout` in seconds, when given: each test's time limit.
    pub run_timeout: Option<f64>,
}

/// Reads SandboxFusion's `SubmitRequest` (`dataset`, `id`, `completion`, `config`): the record
/// is `config.provided_data` (an object); its format is `config.extra.format`, else `dataset`
/// when it names a format (`humaneval`, `apps`, `ground-truth`, ...), else told from the
/// record's fields by the dataset reader. Every error as FastAPI names it.
pub fn parse_submit(body: &[u8], formats: &[&str]) -> Result<SubmitRequest, Vec<Detail>> {
    let value: Value = serde_json::from_slice(body).map_err(|e| vec![Detail::json_invalid(&e)])?;
    let Value::Object(fields) = &value else {
        return Err(vec![Detail::not_object(&value)]);
    };
    let mut errors = Vec::new();
    let dataset = required_string(&value, "dataset", &mut errors);
    let id = match fields.get("id") {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        Some(v) => {
            errors.push(Detail::string("id", v));
            Value::Null
        }
        None => {
            errors.push(Detail::missing("id", &value));
            Value::Null
        }
    };
    let completion = required_string(&value, "completion", &mut errors);
    let empty = Map::new();
    let config = match fields.get("config") {
        Some(Value::Object(config)) => config,
        Some(v) => {
            errors.push(Detail::dict("config", v));
            &empty
        }
        None => {
            errors.push(Detail::missing("config", &value));
            &empty
        }
    };
    let record = match config.get("provided_data") {
        Some(record @ Value::Object(_)) => Some(record.clone()),
        Some(Value::Null) | None if errors.is_empty() => {
            errors.push(Detail::value_error(
                &["config", "provided_data"],
                "verdict judges a submission against the tests sent with it: give the dataset record as provided_data",
                &Value::Null,
            ));
            None
        }
        Some(Value::Array(_)) => {
            errors.push(Detail::value_error(
                &["config", "provided_data"],
                "one record (an object), not a list",
                config.get("provided_data").unwrap_or(&Value::Null),
            ));
            None
        }
        Some(v) => {
            errors.push(Detail::dict("config.provided_data", v));
            None
        }
        None => None,
    };
    let named = config
        .get("extra")
        .and_then(|extra| extra.get("format"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let format = named.or_else(|| formats.contains(&dataset.as_str()).then(|| dataset.clone()));
    let run_timeout = match config.get("run_timeout") {
        None | Some(Value::Null) => None,
        Some(v) => match crate::fastapi::float(v) {
            Some(n) if n.is_finite() && n > 0.0 => Some(n),
            _ => {
                errors.push(Detail::float("config.run_timeout", v));
                None
            }
        },
    };
    match (errors.is_empty(), record) {
        (true, Some(record)) => Ok(SubmitRequest {
            id,
            completion,
            problem: DatasetProblem { format, record },
            run_timeout,
        }),
        _ => Err(errors),
    }
}

/// The string field `name` of the object `value`, or `""` with FastAPI's error for it.
fn required_string(value: &Value, name: &str, errors: &mut Vec<Detail>) -> String {
    match value.get(name) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            errors.push(Detail::string(name, v));
            String::new()
        }
        None => {
            errors.push(Detail::missing(name, value));
            String::new()
        }
    }
}

/// SandboxFusion's `EvalResult` for a judged candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalResult {
    /// The request's `id`.
    pub id: Value,
    /// Whether every test passed.
    pub accepted: bool,
    /// The program judged (the code taken from the completion).
    pub extracted_code: String,
    /// The program as run.
    pub full_code: Option<String>,
    /// SandboxFusion's test code: none here (the tests are the record's).
    pub test_code: Option<String>,
    /// One entry per test.
    pub tests: Vec<EvalTestCase>,
    /// How the code was found in the completion.
    pub extracted_type: Option<&'static str>,
    /// `{"verdict": CandidateResult}`.
    pub extra: Value,
}

/// One test of an [`EvalResult`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalTestCase {
    /// Whether the test passed.
    pub passed: bool,
    /// The test's run, as a `/run_code` answer.
    pub exec_info: RunCodeResponse,
    /// The test's name, status and message.
    pub test_info: Value,
}

/// The `EvalResult` of `result` (a dataset batch's one candidate) for `request`; `program` is
/// the code taken from the completion.
pub fn eval_result(request: &SubmitRequest, program: &str, result: &CandidateResult) -> EvalResult {
    let tests = result
        .cases
        .iter()
        .flatten()
        .map(|case| {
            let passed = case.status == OracleCaseStatus::Passed;
            let timed_out = case.status == OracleCaseStatus::Timeout;
            let run = CommandRunResult {
                status: if timed_out {
                    CommandRunStatus::TimeLimitExceeded
                } else {
                    CommandRunStatus::Finished
                },
                execution_time: Some(case.time_ms as f64 / 1000.0),
                return_code: (!timed_out).then_some(i32::from(!passed)),
                stdout: Some(String::new()),
                stderr: Some(case.message.clone().unwrap_or_default()),
                verdict: StepVerdict {
                    status: case.status.as_str().to_string(),
                    reason: case.message.clone(),
                    cpu_time_ms: 0,
                    wall_time_ms: case.time_ms,
                    memory_kb: 0,
                    build_reused: None,
                },
            };
            EvalTestCase {
                passed,
                exec_info: RunCodeResponse {
                    status: if passed {
                        RunStatus::Success
                    } else {
                        RunStatus::Failed
                    },
                    message: String::new(),
                    compile_result: None,
                    run_result: Some(run),
                    executor_pod_name: None,
                    files: BTreeMap::new(),
                    infra_error: None,
                },
                test_info: json!({"name": case.name, "status": case.status.as_str(),
                                  "message": case.message}),
            }
        })
        .collect();
    let fenced = request.completion.contains("```") || request.completion.contains("~~~");
    EvalResult {
        id: request.id.clone(),
        accepted: result.passed && result.infra_error.is_none(),
        extracted_code: program.to_string(),
        full_code: Some(program.to_string()),
        test_code: None,
        tests,
        extracted_type: Some(if fenced { "fenced" } else { "heuristic" }),
        extra: json!({"verdict": result}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: &[&str] = &["humaneval", "apps", "ground-truth"];

    #[test]
    fn provided_data_is_the_record_and_the_format_comes_from_extra_then_dataset() {
        let body = json!({"dataset": "humaneval", "id": 0, "completion": "x",
            "config": {"provided_data": {"task_id": "a"}, "run_timeout": 3}});
        let request = parse_submit(body.to_string().as_bytes(), FORMATS).expect("read");
        assert_eq!(request.problem.format.as_deref(), Some("humaneval"));
        assert_eq!(request.run_timeout, Some(3.0));
        let body = json!({"dataset": "my_rl_set", "id": "q1", "completion": "x",
            "config": {"provided_data": {"inputs": [], "outputs": []},
                       "extra": {"format": "ground-truth"}}});
        let request = parse_submit(body.to_string().as_bytes(), FORMATS).expect("read");
        assert_eq!(request.problem.format.as_deref(), Some("ground-truth"));
        let body = json!({"dataset": "my_rl_set", "id": 1, "completion": "x",
            "config": {"provided_data": {"input_output": "{}"}}});
        let request = parse_submit(body.to_string().as_bytes(), FORMATS).expect("read");
        assert_eq!(
            request.problem.format, None,
            "told from the fields by the reader"
        );
    }

    #[test]
    fn a_submit_without_provided_data_or_with_bad_fields_is_refused_naming_them() {
        let body = json!({"dataset": "humaneval", "id": 0, "completion": "x", "config": {}});
        let errors = parse_submit(body.to_string().as_bytes(), FORMATS).expect_err("refused");
        assert_eq!(
            errors[0].loc,
            [json!("body"), json!("config"), json!("provided_data")]
        );
        let errors = parse_submit(b"{\"id\": []}", FORMATS).expect_err("refused");
        let locs: Vec<Value> = errors.iter().map(|d| json!(d.loc)).collect();
        for field in ["dataset", "id", "completion", "config"] {
            assert!(locs.contains(&json!(["body", field])), "{field}: {locs:?}");
        }
    }
}
