//! DeepMind's CodeContests (`deepmind/code_contests`, one JSON object per problem):
//! `name, public_tests, private_tests, generated_tests` (each `{input: [...], output: [...]}`),
//! `time_limit` (`{seconds, nanos}` or null) and `memory_limit_bytes` (0 when unknown). Every
//! test of the three lists runs, public first, as AlphaCode's evaluation does.

use crate::cases::stdio_case;
use crate::format::Fields;
use crate::jsonl::kind;
use crate::problem::{Case, InvalidCase, Limits, Problem, StdioCase, StdioTests, Tests};
use crate::{Error, Format};
use serde_json::Value;

const LISTS: [&str; 3] = ["public_tests", "private_tests", "generated_tests"];

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("name")?;
    let mut cases = Vec::new();
    for list in LISTS {
        match r.record.fields.get(list) {
            None | Some(Value::Null) => {}
            Some(tests) => cases.extend(list_cases(list, tests)),
        }
    }
    let time_ms = match r.record.fields.get("time_limit") {
        None | Some(Value::Null) => None,
        Some(limit) => {
            let part = |key: &str| match limit.get(key) {
                None | Some(Value::Null) => Ok(0),
                Some(v) => v.as_u64().ok_or_else(|| {
                    r.error(
                        &format!("time_limit.{key}"),
                        format!("expected a count, found {}", kind(v)),
                    )
                }),
            };
            let ms = part("seconds")? * 1000 + part("nanos")? / 1_000_000;
            (ms > 0).then_some(ms)
        }
    };
    let memory_bytes = match r.record.fields.get("memory_limit_bytes") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            r.error(
                "memory_limit_bytes",
                format!("expected a count, found {}", kind(v)),
            )
        })?)
        .filter(|&b| b > 0),
    };
    Ok(Problem {
        task_id,
        format: Format::CodeContests,
        prompt: None,
        tests: Tests::Stdio(StdioTests { cases }),
        limits: Limits {
            time_ms,
            memory_bytes,
        },
    })
}

fn list_cases(list: &str, tests: &Value) -> Vec<Case<StdioCase>> {
    let (Some(Value::Array(inputs)), Some(Value::Array(outputs))) =
        (tests.get("input"), tests.get("output"))
    else {
        return vec![Case {
            name: list.to_string(),
            body: Err(InvalidCase::new(
                list,
                "expected lists `input` and `output`",
            )),
        }];
    };
    if inputs.len() != outputs.len() {
        return vec![Case {
            name: list.to_string(),
            body: Err(InvalidCase::new(
                format!("{list}.output"),
                format!("{} inputs but {} outputs", inputs.len(), outputs.len()),
            )),
        }];
    }
    inputs
        .iter()
        .zip(outputs)
        .enumerate()
        .map(|(i, (input, output))| {
            let (fi, fo) = (format!("{list}.input[{i}]"), format!("{list}.output[{i}]"));
            let mut case = stdio_case(fi.clone(), (&fi, input), (&fo, output));
            case.name = format!("{list}[{i}]");
            case
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn all_three_lists_run_with_the_problems_limits() {
        let text = json!({
            "name": "1548_C. The Three Little Pigs", "description": "...", "source": 2,
            "difficulty": 9,
            "public_tests": {"input": ["2 3\n1\n5\n6\n"], "output": ["9\n297\n1\n"]},
            "private_tests": {"input": ["1 1\n1\n"], "output": ["3\n"]},
            "generated_tests": {"input": [], "output": []},
            "solutions": {"language": [], "solution": []},
            "time_limit": {"seconds": 4, "nanos": 500000000},
            "memory_limit_bytes": 512000000,
            "cf_contest_id": 1548, "cf_index": "C", "cf_points": 0.0, "cf_rating": 2500
        })
        .to_string();
        let problem = Format::CodeContests.read_detected(0, &text);
        assert_eq!(problem.limits.time_ms, Some(4500));
        assert_eq!(problem.limits.memory_bytes, Some(512_000_000));
        let Tests::Stdio(tests) = problem.tests else {
            panic!("not stdio")
        };
        let names: Vec<_> = tests.cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["public_tests[0]", "private_tests[0]"]);
    }

    #[test]
    fn unequal_lists_are_invalid_naming_the_list() {
        let text = json!({"name": "x", "public_tests": {"input": ["1"], "output": []}}).to_string();
        let problem = Format::CodeContests.read_at(0, &text).unwrap();
        let Tests::Stdio(tests) = problem.tests else {
            panic!("not stdio")
        };
        assert_eq!(
            tests.cases[0].body.as_ref().unwrap_err().field,
            "public_tests.output"
        );
    }
}
