//! amazon-science's MBXP (mxeval, `data/mbxp/mb<lang>p_release_v*.jsonl`): `task_id`
//! (`MBJP/1`, `MBCPP/1`, `MBGP/1`, `MBJSP/1`, `MBPP/1`, ...), `language`, `prompt`, `test`,
//! `entry_point`, `description`, `canonical_solution` (often null). The program is `prompt +
//! completion + test` as mxeval's `check_correctness_<lang>` writes it (Python's adds
//! `check(entry_point)`), judged by [`crate::program::assemble_mbxp`] (docs/datasets.md, "MBXP").

use crate::format::Fields;
use crate::problem::{
    Limits, MbxpTest, Problem, ProgramKind, ProgramTests, Tests, UnsupportedTests,
};
use crate::{Error, Format};
use verdict_contracts::judge::Language;

/// verdict's language for an MBXP `language` field, when verdict has one.
fn language_of(name: &str) -> Option<Language> {
    match name.to_ascii_lowercase().as_str() {
        "java" => Some(Language::Java),
        "cpp" | "c++" => Some(Language::Cpp),
        "javascript" | "js" => Some(Language::Js),
        "go" => Some(Language::Go),
        "python" => Some(Language::Python3),
        "ruby" => Some(Language::Ruby),
        "kotlin" => Some(Language::Kotlin),
        "perl" => Some(Language::Perl),
        "scala" => Some(Language::Scala),
        "swift" => Some(Language::Swift),
        "csharp" | "c#" => Some(Language::Csharp),
        _ => None,
    }
}

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("task_id")?;
    let language_name = r.str("language")?;
    let test = MbxpTest {
        prompt: r.str("prompt")?.to_string(),
        test: r.str("test")?.to_string(),
        entry_point: r.str("entry_point")?.to_string(),
    };
    let tests = match language_of(language_name) {
        Some(language) => Tests::Program(ProgramTests {
            language,
            kind: ProgramKind::Mbxp(test),
        }),
        None => Tests::Unsupported(UnsupportedTests {
            reason: format!(
                "language: verdict has no language profile for MBXP's {language_name:?} (crates/scripts/languages.toml)"
            ),
            cases: 1,
        }),
    };
    Ok(Problem {
        task_id,
        format: Format::Mbxp,
        prompt: None,
        tests,
        limits: Limits::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonl::parse_records;
    use std::path::Path;

    // MBGP/5 as published in mbgp_release_v1.2.jsonl (the comparison helper shortened).
    const MBGP_5: &str = r#"{"task_id": "MBGP/5", "prompt": "package main\n\nimport (\n\t\"encoding/json\"\n\t\"reflect\"\n)\n// Code should be written in Go/Golang\nfunc count_ways (n int) int {\n", "test": "\n\nfunc main() {\n}", "language": "go", "description": "Write a function ...", "entry_point": "count_ways", "canonical_solution": null}"#;

    #[test]
    fn an_mbxp_record_is_told_by_its_language_field_and_read_in_that_language() {
        let records = parse_records(Path::new("mbgp.jsonl"), MBGP_5).expect("parses");
        assert_eq!(Format::detect(&records[0]), Some(Format::Mbxp));
        let problem = Format::Mbxp
            .read(Path::new("mbgp.jsonl"), 0, &records[0])
            .expect("reads");
        assert_eq!(problem.task_id, "MBGP/5");
        assert_eq!(problem.language(), Language::Go);
    }

    #[test]
    fn an_mbxp_language_verdict_lacks_is_read_as_unsupported() {
        let record = MBGP_5.replace(r#""language": "go""#, r#""language": "php""#);
        let records = parse_records(Path::new("m.jsonl"), &record).expect("parses");
        let problem = Format::Mbxp
            .read(Path::new("m.jsonl"), 0, &records[0])
            .expect("reads");
        assert!(matches!(problem.tests, Tests::Unsupported(_)));
    }
}
