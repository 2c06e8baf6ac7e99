//! A whole dataset: every record read by its format, keyed by task id.

use crate::jsonl::{Record, read_records};
use crate::problem::{Case, InvalidCase, Limits, StdioTests, Tests};
use crate::{Error, Format, Problem};
use std::collections::HashMap;
use std::path::Path;

/// The problems of one dataset file.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The format every record was read as.
    pub format: Format,
    /// The problems, in the file's order.
    pub problems: Vec<Problem>,
    index: HashMap<String, usize>,
}

impl Dataset {
    /// Reads `path` (JSON Lines, `.gz`, or a JSON array) as `format`, or as the format its first
    /// record's fields name when `format` is `None`.
    pub fn read(path: &Path, format: Option<Format>) -> Result<Dataset, Error> {
        let records = read_records(path)?;
        let format = match format {
            Some(f) => f,
            None => records.first().and_then(Format::detect).ok_or_else(|| Error::Format {
                path: path.to_path_buf(),
                message: "cannot tell the dataset's format from its first record; name it with --format"
                    .into(),
            })?,
        };
        let mut problems = Vec::with_capacity(records.len());
        let mut index = HashMap::with_capacity(records.len());
        for (i, record) in records.iter().enumerate() {
            let problem = match format.read(path, i, record) {
                Ok(problem) => unreadable_values(problem, record),
                // One record its reader cannot take is that problem's `invalid_test_format`;
                // the rest of the file is judged (a record without an id still stops it).
                Err(Error::Record {
                    record: id,
                    field,
                    message,
                    ..
                }) if !id.starts_with('#') => invalid_problem(format, id, &field, &message),
                Err(e) => return Err(e),
            };
            if index.insert(problem.task_id.clone(), i).is_some() {
                return Err(Error::Record {
                    path: path.to_path_buf(),
                    line: record.line,
                    record: problem.task_id,
                    field: "task_id".into(),
                    message: "appears twice in the dataset".into(),
                });
            }
            problems.push(problem);
        }
        Ok(Dataset {
            format,
            problems,
            index,
        })
    }

    /// The problem with this task id.
    pub fn get(&self, task_id: &str) -> Option<&Problem> {
        self.index.get(task_id).map(|&i| &self.problems[i])
    }
}

/// A problem every sample of which is `invalid_test_format`, naming `field`.
fn invalid_problem(format: Format, task_id: String, field: &str, message: &str) -> Problem {
    Problem {
        task_id,
        format,
        prompt: None,
        tests: Tests::Stdio(StdioTests {
            cases: vec![Case {
                name: field.to_string(),
                body: Err(InvalidCase::new(field, message)),
            }],
        }),
        limits: Limits::default(),
    }
}

/// `problem`, or an invalid one when its record holds a value JSON cannot carry (Python's
/// `NaN`/`Infinity`) that its reader did not mark itself (MBPP+ marks its inputs).
fn unreadable_values(problem: Problem, record: &Record) -> Problem {
    if problem.format == Format::MbppPlus {
        return problem;
    }
    let found = record
        .fields
        .iter()
        .find_map(|(k, v)| crate::jsonl::nonfinite_at(v).map(|p| format!("{k}{p}")));
    match found {
        Some(field) => invalid_problem(
            problem.format,
            problem.task_id,
            &field,
            "holds NaN or Infinity (Python's json writes them, JSON has no such number)",
        ),
        None => problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_its_reader_cannot_take_is_that_problems_invalid_test_format_and_the_rest_reads() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("MbppPlus.jsonl");
        let good = r#"{"task_id": "Mbpp/2", "prompt": "", "entry_point": "f", "canonical_solution": "def f(x):\n    return x\n", "assertion": "", "base_input": [[1]], "plus_input": [[Infinity]], "atol": 0}"#;
        let empty = r#"{"task_id": "Mbpp/793", "prompt": "", "entry_point": "g", "canonical_solution": "def g(x):\n    return x\n", "assertion": "", "base_input": [], "plus_input": {}, "atol": 0}"#;
        std::fs::write(&path, format!("{good}\n{empty}\n")).expect("write");
        let dataset = Dataset::read(&path, Some(Format::MbppPlus)).expect("the file reads whole");
        let Tests::Reference(tests) = &dataset.problems[0].tests else {
            panic!("{:?}", dataset.problems[0]);
        };
        assert!(tests.cases[0].body.is_ok());
        assert_eq!(
            tests.cases[1].body.as_ref().expect_err("invalid").field,
            "plus_input[0]"
        );
        let Tests::Stdio(tests) = &dataset.get("Mbpp/793").expect("kept").tests else {
            panic!("{:?}", dataset.problems[1]);
        };
        assert_eq!(
            tests.cases[0].body.as_ref().expect_err("invalid").field,
            "plus_input"
        );
    }
}
