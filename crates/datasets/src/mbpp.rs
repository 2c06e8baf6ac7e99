//! MBPP (`google-research/mbpp`'s `mbpp.jsonl` and `sanitized-mbpp.json`) and EvalPlus's MBPP+
//! (`MbppPlus.jsonl`).
//!
//! MBPP: `task_id, text (sanitized: prompt), code, test_list, test_setup_code (sanitized:
//! test_imports), challenge_test_list`. The program is the candidate, then the setup code, then
//! the asserts of `test_list`, as the MBPP paper evaluates; `challenge_test_list` is not run.
//! MBPP+: `task_id, prompt, entry_point, canonical_solution, assertion, base_input, plus_input,
//! atol`; its `assertion` (the original asserts) runs the same way. Its `plus_input` carries no
//! expected results (EvalPlus computes them by running `canonical_solution`) and is not run yet.

use crate::cases::called_names;
use crate::format::Fields;
use crate::problem::{AssertionTests, Limits, Problem, Tests};
use crate::{Error, Format};

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
    let test = r.str("assertion")?.to_string();
    let entry_point = r.str("entry_point")?;
    let mut guarded = vec![entry_point.to_string()];
    guarded.extend(called_names(&test).into_iter().filter(|n| n != entry_point));
    Ok(Problem {
        task_id,
        format: Format::MbppPlus,
        prompt: None,
        tests: Tests::Assertion(AssertionTests {
            setup: String::new(),
            test,
            check_entry_point: None,
            guarded,
        }),
        limits: Limits::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl::parse_records;
    use std::path::Path;

    // MBPP task 11 as published in mbpp.jsonl (code shortened).
    const RECORD: &str = r#"{"text": "Write a python function to remove first and last occurrence of a given character from the string.", "code": "def remove_Occ(s,ch): \r\n    return s", "task_id": 11, "test_setup_code": "", "test_list": ["assert remove_Occ(\"hello\",\"l\") == \"heo\"", "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"", "assert remove_Occ(\"PHP\",\"P\") == \"H\""], "challenge_test_list": ["assert remove_Occ(\"hellolloll\",\"l\") == \"helollol\""]}"#;

    #[test]
    fn an_mbpp_record_runs_its_asserts_and_guards_the_called_function() {
        let records = parse_records(Path::new("mbpp.jsonl"), RECORD).unwrap();
        let format = Format::detect(&records[0]).unwrap();
        assert_eq!(format, Format::Mbpp);
        let problem = format
            .read(Path::new("mbpp.jsonl"), 0, &records[0])
            .unwrap();
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
        let records = parse_records(Path::new("sanitized-mbpp.json"), text).unwrap();
        let problem = Format::Mbpp
            .read(Path::new("sanitized-mbpp.json"), 0, &records[0])
            .unwrap();
        let Tests::Assertion(tests) = problem.tests else {
            panic!("not an assertion test")
        };
        assert_eq!(tests.setup.trim(), "import math");
    }

    #[test]
    fn an_mbpp_plus_record_runs_its_assertion() {
        let text = r#"{"task_id": "Mbpp/2", "prompt": "\"\"\"\nWrite a function to find the shared elements.\n\"\"\"\n", "entry_point": "similar_elements", "canonical_solution": "def similar_elements(a, b):\n    return tuple(set(a) & set(b))\n", "assertion": "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))", "base_input": [[[3, 4, 5, 6], [5, 7, 4, 10]]], "plus_input": [[[1], [1]]], "atol": 0, "contract": ""}"#;
        let records = parse_records(Path::new("MbppPlus.jsonl"), text).unwrap();
        let format = Format::detect(&records[0]).unwrap();
        assert_eq!(format, Format::MbppPlus);
        let problem = format
            .read(Path::new("MbppPlus.jsonl"), 0, &records[0])
            .unwrap();
        let Tests::Assertion(tests) = problem.tests else {
            panic!("not an assertion test")
        };
        assert_eq!(tests.guarded, ["similar_elements", "set"]);
    }

    #[test]
    fn an_mbpp_record_without_asserts_is_refused() {
        let records = parse_records(
            Path::new("m"),
            r#"{"task_id": 3, "text": "t", "code": "", "test_list": []}"#,
        )
        .unwrap();
        let err = Format::Mbpp
            .read(Path::new("m"), 0, &records[0])
            .unwrap_err();
        assert!(
            err.to_string().contains("record 3: field test_list"),
            "{err}"
        );
    }
}
