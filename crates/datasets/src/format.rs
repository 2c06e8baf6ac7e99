//! The dataset formats `judge eval` reads, how each is recognised, and the field helpers every
//! reader shares.

use crate::Error;
use crate::jsonl::{Record, kind};
use serde_json::Value;
use std::path::Path;

/// Declares [`Format`] with each variant's name written once, in the order
/// [`Format::detect`] tries them: `ALL` (its length counted by the compiler) and `as_str`
/// come from that one list.
macro_rules! formats {
    ($( $(#[$meta:meta])* $variant:ident = $name:literal ),+ $(,)?) => {
        /// A published dataset format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $( $(#[$meta])* $variant, )+
        }

        impl Format {
            /// Every format, in the order [`Format::detect`] tries them.
            pub const ALL: [Format; [$( $name ),+].len()] = [$( Format::$variant ),+];

            /// The name used on the command line and in reports.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Format::$variant => $name, )+
                }
            }
        }
    };
}

formats! {
    /// PrimeIntellect's and open-r1's `verification_info` (`language`, `test_cases`).
    VerificationInfo = "verification-info",
    /// LiveCodeBench's code generation: `question_id, public_test_cases, private_test_cases, metadata`.
    LiveCodeBench = "livecodebench",
    /// APPS and TACO: `input_output` (`inputs`, `outputs`, optional `fn_name`).
    Apps = "apps",
    /// DeepMind's CodeContests: `public_tests, private_tests, generated_tests, time_limit, memory_limit_bytes`.
    CodeContests = "codecontests",
    /// THUDM's HumanEval-X: `task_id` (`CPP/0`, `Go/0`, ...), `prompt, declaration, canonical_solution, test, example_test`.
    HumanEvalX = "humaneval-x",
    /// nuprl's MultiPL-E: `name, language, prompt, tests, stop_tokens, doctests, original`.
    MultiPle = "multipl-e",
    /// amazon-science's MBXP (mxeval): `task_id` (`MBJP/1`), `language, prompt, test, entry_point, description`.
    Mbxp = "mbxp",
    /// EvalPlus's HumanEval+: HumanEval's fields, `test` holding the plus inputs and results.
    HumanEvalPlus = "humaneval-plus",
    /// OpenAI's HumanEval: `task_id, prompt, canonical_solution, test, entry_point`.
    HumanEval = "humaneval",
    /// EvalPlus's MBPP+: `task_id, prompt, entry_point, canonical_solution, assertion, base_input, plus_input, atol`.
    MbppPlus = "mbpp-plus",
    /// Google's MBPP: `task_id, text (or prompt), code, test_list, test_setup_code, challenge_test_list`.
    Mbpp = "mbpp",
}

impl Format {
    /// The format named `name`, or one of its [`Format::aliases`].
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == name || f.aliases().contains(&name))
    }

    /// Other names the command line takes for this format (`taco` is `apps`).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Apps => &["taco"],
            Format::MultiPle => &["multiple"],
            _ => &[],
        }
    }

    /// Tells the format from the fields of a record: the fields only that format has.
    pub fn detect(record: &Record) -> Option<Format> {
        let has = |k: &str| record.fields.contains_key(k);
        Format::ALL.into_iter().find(|f| match f {
            Format::VerificationInfo => has("verification_info"),
            Format::LiveCodeBench => has("question_id") && has("public_test_cases"),
            Format::Apps => has("input_output"),
            Format::CodeContests => has("public_tests"),
            Format::HumanEvalX => {
                has("declaration") && has("prompt") && has("test") && !has("entry_point")
            }
            Format::MultiPle => has("stop_tokens") && has("prompt") && has("tests"),
            Format::Mbxp => has("language") && has("entry_point") && has("prompt") && has("test"),
            Format::HumanEvalPlus => {
                has("entry_point") && has("test") && (has("plus_input") || has("base_input"))
            }
            Format::HumanEval => has("entry_point") && has("prompt") && has("test"),
            Format::MbppPlus => has("assertion") && has("entry_point"),
            Format::Mbpp => has("test_list"),
        })
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The id used in messages before the reader knows the record's id field.
pub(crate) fn record_label(record: &Record, index: usize) -> String {
    for key in ["task_id", "question_id", "problem_id", "name"] {
        match record.fields.get(key) {
            Some(Value::String(s)) => return s.clone(),
            Some(Value::Number(n)) => return n.to_string(),
            _ => {}
        }
    }
    format!("#{index}")
}

/// A record being read, with what error messages need to name it.
pub(crate) struct Fields<'a> {
    pub path: &'a Path,
    pub index: usize,
    pub record: &'a Record,
    pub id: String,
}

impl Fields<'_> {
    /// An error naming this record and `field`.
    pub fn error(&self, field: &str, message: impl Into<String>) -> Error {
        Error::Record {
            path: self.path.to_path_buf(),
            line: self.record.line,
            record: self.id.clone(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// The field's value, or an error when it is missing.
    pub fn get(&self, field: &str) -> Result<&Value, Error> {
        self.record
            .fields
            .get(field)
            .ok_or_else(|| self.error(field, "missing"))
    }

    /// A string field.
    pub fn str(&self, field: &str) -> Result<&str, Error> {
        match self.get(field)? {
            Value::String(s) => Ok(s),
            other => Err(self.error(field, format!("expected a string, found {}", kind(other)))),
        }
    }

    /// A string field that may be absent or null.
    pub fn opt_str(&self, field: &str) -> Result<Option<&str>, Error> {
        match self.record.fields.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => {
                Err(self.error(field, format!("expected a string, found {}", kind(other))))
            }
        }
    }

    /// A list of strings that may be absent or null (empty then).
    pub fn str_list(&self, field: &str) -> Result<Vec<&str>, Error> {
        match self.record.fields.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str().ok_or_else(|| {
                        self.error(
                            &format!("{field}[{i}]"),
                            format!("expected a string, found {}", kind(v)),
                        )
                    })
                })
                .collect(),
            Some(other) => {
                Err(self.error(field, format!("expected a list, found {}", kind(other))))
            }
        }
    }

    /// An id field: a string, or an integer written in decimal.
    pub fn id_field(&self, field: &str) -> Result<String, Error> {
        match self.get(field)? {
            Value::String(s) => Ok(s.clone()),
            Value::Number(n) if n.is_u64() || n.is_i64() => Ok(n.to_string()),
            other => Err(self.error(
                field,
                format!("expected a string or an integer, found {}", kind(other)),
            )),
        }
    }

    /// A field holding JSON, either as the value itself or as a string of JSON text (the
    /// Hugging Face exports store `input_output`, `public_test_cases`, `verification_info` so).
    pub fn json_or_text(&self, field: &str) -> Result<Value, Error> {
        match self.get(field)? {
            Value::String(text) => serde_json::from_str(text)
                .map_err(|e| self.error(field, format!("not JSON text: {e}"))),
            other => Ok(other.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_and_alias_is_in_docs_datasets_md_table() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/datasets.md");
        let doc = std::fs::read_to_string(&path).expect("docs/datasets.md");
        for format in Format::ALL {
            let row = format!("| `{}`", format.as_str());
            assert!(doc.contains(&row), "docs/datasets.md has no row {row}");
            for alias in format.aliases() {
                assert!(
                    doc.contains(&format!("(`{alias}`)")),
                    "alias {alias} not in its row"
                );
            }
            assert_eq!(Format::from_name(format.as_str()), Some(format));
        }
    }
}
