//! MBPP (`google-research/mbpp`'s `mbpp.jsonl` and `sanitized-mbpp.json`) and EvalPlus's MBPP+
//! (`MbppPlus.jsonl`).
//!
//! MBPP: `task_id, text (sanitized: prompt), code, test_list, test_setup_code (sanitized:
//! test_imports), challenge_test_list`. The program is the candidate, then the setup code, then
//! the asserts of `test_list`, as the MBPP paper evaluates; `challenge_test_list` is not run.
//! MBPP+: `task_id, prompt, entry_point, canonical_solution, assertion, base_input, plus_input,
//! atol`. As EvalPlus evaluates it, the tests are `base_input` then `plus_input`, each an args
//! list whose expected value is what `canonical_solution` returns for it: the reference runs in
//! the box first ([`crate::resolve_reference`]), and the candidate's values are compared with
//! its outside the box, within `atol` (1e-6 for floats when it is 0).

use crate::cases::called_names;
use crate::format::Fields;
use crate::humaneval::is_identifier;
use crate::jsonl::kind;
use crate::problem::{AssertionTests, Case, InvalidCase, Limits, Problem, ReferenceTests, Tests};
use crate::{Error, Format};
use serde_json::Value;
use verdict_contracts::oracle::FloatTolerance;

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("task_id")?;
    let asserts = r.str_list("test_list")?;
    if asserts.is_empty() {
        return Err(r.error("test_list", "no asserts"));
    }
    let mut setup = r.opt_str("test_setup_code")?.unwrap_or("").to_string();
    for import in r.str_list("test_imports")? {
        setup.push('\n');
        setup.push_str(import);
    }
    let test = asserts.join("\n");
    Ok(Problem {
        task_id,
        format: Format::Mbpp,
        prompt: None,
        tests: Tests::Assertion(AssertionTests {
            setup,
            guarded: called_names(&test),
            test,
            check_entry_point: None,
        }),
        limits: Limits::default(),
    })
}

pub(crate) fn read_plus(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("task_id")?;
    let entry_point = r.str("entry_point")?;
    if !is_identifier(entry_point) {
        return Err(r.error(
            "entry_point",
            format!("{entry_point:?} is not a Python name"),
        ));
    }
    let reference = r.str("canonical_solution")?.to_string();
    let atol = match r.record.fields.get("atol") {
        None | Some(Value::Null) => 0.0,
        Some(v) => v
            .as_f64()
            .filter(|a| a.is_finite() && *a >= 0.0)
            .ok_or_else(|| r.error("atol", "expected a number >= 0"))?,
    };
    let mut cases = Vec::new();
    for field in ["base_input", "plus_input"] {
        let inputs = match r.record.fields.get(field) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(inputs)) => inputs,
            Some(other) => {
                return Err(r.error(field, format!("expected a list, found {}", kind(other))));
            }
        };
        for (i, input) in inputs.iter().enumerate() {
            let name = format!("{field}[{i}]");
            let body = match input {
                Value::Array(_) if crate::jsonl::nonfinite_at(input).is_some() => {
                    Err(InvalidCase::new(
                        name.clone(),
                        "holds NaN or Infinity (Python's json writes them, JSON has no such \
                         number): the call cannot be made as the dataset means it",
                    ))
                }
                Value::Array(args) => Ok(args.clone()),
                other => Err(InvalidCase::new(
                    name.clone(),
                    format!(
                        "a function call's input must be an args list, found {}",
                        kind(other)
                    ),
                )),
            };
            cases.push(Case { name, body });
        }
    }
    if cases.is_empty() {
        return Err(r.error("base_input", "no inputs"));
    }
    Ok(Problem {
        task_id,
        format: Format::MbppPlus,
        prompt: None,
        tests: Tests::Reference(ReferenceTests {
            fn_name: entry_point.to_string(),
            reference,
            // EvalPlus: exact, or within `atol`; floats within 1e-6 when `atol` is 0.
            tolerance: FloatTolerance {
                abs: if atol > 0.0 { atol } else { 1e-6 },
                rel: 0.0,
            },
            cases,
        }),
        limits: Limits::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // MBPP task 11 as published in mbpp.jsonl (code shortened).
    const RECORD: &str = r#"{"text": "Write a python function to remove first and last occurrence of a given character from the string.", "code": "def remove_Occ(s,ch): \r\n    return s", "task_id": 11, "test_setup_code": "", "test_list": ["assert remove_Occ(\"hello\",\"l\") == \"heo\"", "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"", "assert remove_Occ(\"PHP\",\"P\") == \"H\""], "challenge_test_list": ["assert remove_Occ(\"hellolloll\",\"l\") == \"helollol\""]}"#;

    #[test]
    fn an_mbpp_record_runs_its_asserts_and_guards_the_called_function() {
        let problem = Format::Mbpp.read_detected(0, RECORD);
        assert_eq!(problem.task_id, "11");
        let Tests::Assertion(tests) = problem.tests else {
            panic!("not an assertion test")
        };
        assert_eq!(tests.test.lines().count(), 3);
        assert!(
            !tests.test.contains("hellolloll"),
            "challenge tests are not run"
        );
        assert_eq!(tests.guarded, ["remove_Occ"]);
    }

    #[test]
    fn sanitized_mbpp_test_imports_become_setup() {
        let text = r#"[{"source_file": "x", "task_id": 2, "prompt": "p", "code": "c", "test_imports": ["import math"], "test_list": ["assert f(1) == 1"]}]"#;
        let problem = Format::Mbpp.read_at(0, text).unwrap();
        let Tests::Assertion(tests) = problem.tests else {
            panic!("not an assertion test")
        };
        assert_eq!(tests.setup.trim(), "import math");
    }

    #[test]
    fn an_mbpp_plus_record_tests_its_inputs_against_the_reference() {
        let text = r#"{"task_id": "Mbpp/2", "prompt": "\"\"\"\nWrite a function to find the shared elements.\n\"\"\"\n", "entry_point": "similar_elements", "canonical_solution": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))\n", "assertion": "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))", "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]]], "plus_input": [[[1], [1]], 7], "atol": 0, "contract": ""}"#;
        let problem = Format::MbppPlus.read_detected(0, text);
        let Tests::Reference(tests) = problem.tests else {
            panic!("not reference tests")
        };
        assert_eq!(tests.fn_name, "similar_elements");
        let names: Vec<_> = tests.cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["base_input[0]", "plus_input[0]", "plus_input[1]"]);
        assert!(tests.cases[2].body.is_err(), "7 is not an args list");
        assert_eq!(tests.tolerance.abs, 1e-6);
    }

    #[test]
    fn an_mbpp_record_without_asserts_is_refused() {
        let err = Format::Mbpp
            .read_at(
                0,
                r#"{"task_id": 3, "text": "t", "code": "", "test_list": []}"#,
            )
            .unwrap_err();
        assert!(
            err.to_string().contains("record 3: field test_list"),
            "{err}"
        );
    }
}
