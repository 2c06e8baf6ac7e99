//! HumanEval (`openai/human-eval`'s `HumanEval.jsonl.gz`) and EvalPlus's HumanEval+
//! (`HumanEvalPlus.jsonl`): `task_id, prompt, canonical_solution, test, entry_point`.
//!
//! human-eval runs `prompt + completion + "\n" + test + "\n" + "check(entry_point)"`;
//! HumanEval+'s `test` defines the same `check(candidate)` over its base and plus inputs and
//! their expected results (`assertion(candidate(*inp), exp, atol)`, which imports numpy), so
//! both run as one assertion script.

use crate::format::Fields;
use crate::problem::{AssertionTests, Limits, Problem, Tests};
use crate::{Error, Format};

pub(crate) fn read(format: Format, r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("task_id")?;
    let prompt = r.str("prompt")?.to_string();
    let test = r.str("test")?.to_string();
    let entry_point = r.str("entry_point")?;
    if !is_identifier(entry_point) {
        return Err(r.error(
            "entry_point",
            format!("{entry_point:?} is not a Python name"),
        ));
    }
    Ok(Problem {
        task_id,
        format,
        prompt: Some(prompt),
        tests: Tests::Assertion(AssertionTests {
            setup: String::new(),
            test,
            check_entry_point: Some(entry_point.to_string()),
            guarded: vec![entry_point.to_string()],
        }),
        limits: Limits::default(),
    })
}

/// Whether `name` is an ASCII Python identifier.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl::parse_records;
    use std::path::Path;

    // HumanEval/53 as published (prompt shortened).
    const RECORD: &str = r#"{"task_id": "HumanEval/53", "prompt": "\n\ndef add(x: int, y: int):\n    \"\"\"Add two numbers x and y\n    >>> add(2, 3)\n    5\n    \"\"\"\n", "entry_point": "add", "canonical_solution": "    return x + y\n", "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import random\n\n    assert candidate(0, 1) == 1\n    assert candidate(1, 0) == 1\n"}"#;

    #[test]
    fn a_humaneval_record_becomes_an_assertion_script_with_check() {
        let problem = Format::HumanEval.read_detected(0, RECORD);
        assert_eq!(problem.task_id, "HumanEval/53");
        assert!(problem.prompt.unwrap().contains("def add(x: int, y: int):"));
        let Tests::Assertion(tests) = problem.tests else {
            panic!("not an assertion test")
        };
        assert_eq!(tests.check_entry_point.as_deref(), Some("add"));
        assert!(tests.test.contains("assert candidate(0, 1) == 1"));
    }

    #[test]
    fn an_evalplus_record_is_told_apart_by_its_inputs() {
        let record = RECORD.replace(
            r#""entry_point""#,
            r#""base_input": [[0, 1]], "plus_input": [[5, 7]], "atol": 0, "contract": "", "entry_point""#,
        );
        let records = parse_records(Path::new("p"), &record).unwrap();
        assert_eq!(Format::detect(&records[0]), Some(Format::HumanEvalPlus));
    }

    #[test]
    fn an_entry_point_that_is_not_a_name_is_refused_naming_the_field() {
        let record = RECORD.replace(r#""entry_point": "add""#, r#""entry_point": "add)""#);
        let err = Format::HumanEval.read_at(0, &record).unwrap_err();
        assert!(err.to_string().contains("field entry_point"), "{err}");
    }
}
