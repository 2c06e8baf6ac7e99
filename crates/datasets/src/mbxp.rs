//! amazon-science's MBXP (mxeval, `data/mbxp/mb<lang>p_release_v*.jsonl`): `task_id`
//! (`MBJP/1`, `MBCPP/1`, `MBGP/1`, `MBJSP/1`, `MBPP/1`, ...), `language`, `prompt`, `test`,
//! `entry_point`, `description`, `canonical_solution` (often null). The program is `prompt +
//! completion + test` as mxeval's `check_correctness_<lang>` writes it (Python's adds
//! `check(entry_point)`), judged by [`crate::program::assemble_mbxp`] (docs/datasets.md, "MBXP").

use crate::format::Fields;
use crate::problem::{MbxpTest, Problem, ProgramKind, Tests};
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
        "php" => Some(Language::Php),
        "typescript" | "ts" => Some(Language::Typescript),
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
    let tests = Tests::in_language(
        language_of(language_name),
        language_name,
        "MBXP",
        ProgramKind::Mbxp(test),
    );
    Ok(Problem::new(task_id, Format::Mbxp, tests))
}

#[cfg(test)]
mod tests {
    use super::*;

    // MBGP/5 as published in mbgp_release_v1.2.jsonl (the comparison helper shortened).
    const MBGP_5: &str = r#"{"task_id": "MBGP/5", "prompt": "package main\n\nimport (\n\t\"encoding/json\"\n\t\"reflect\"\n)\n// Code should be written in Go/Golang\nfunc count_ways (n int) int {\n", "test": "\n\nfunc main() {\n}", "language": "go", "description": "Write a function ...", "entry_point": "count_ways", "canonical_solution": null}"#;

    #[test]
    fn an_mbxp_record_is_told_by_its_language_field_and_read_in_that_language() {
        let problem = Format::Mbxp.read_detected(0, MBGP_5);
        assert_eq!(problem.task_id, "MBGP/5");
        assert_eq!(problem.language(), Language::Go);
    }

    // MBRBP/3, MBKP/3, MBPLP/3 and MBSCP/3 as published (mb<lang>p_release_v1*.jsonl, the
    // prompts' comments and the tests shortened).
    const RUBY_3: &str = r#"{"task_id": "MBRBP/3", "prompt": "\n##\n# You are an expert Ruby programmer, and here is your task.\n# # Write a Ruby function to identify non-prime numbers.\ndef is_not_prime(n)", "entry_point": "is_not_prime", "test": "\n\narg00 = 2\nx0 = is_not_prime(arg00)\nv0 = false\nif x0 != v0\n    raise StandardError, \"Error at test case 1\"\nend\n\n", "description": "Write a Ruby function to identify non-prime numbers.", "language": "ruby", "canonical_solution": "  return n > n%10\n\nend\n"}"#;
    const KOTLIN_3: &str = r#"{"task_id": "MBKP/3", "prompt": "/**\n * Write a Kotlin function to identify non-prime numbers.\n */\nfun isNotPrime(n : Int) : Boolean {\n", "entry_point": "isNotPrime", "test": "\nfun main() {\n    var arg00 : Int = 2\n    var x0 : Boolean = isNotPrime(arg00);\n    var v0 : Boolean = false;\n    if (x0 != v0) {\n        throw Exception(\"Exception -- test case 0 did not pass. x0 = \" + x0)\n    }\n}\n", "description": "Write a Kotlin function to identify non-prime numbers.", "language": "kotlin", "canonical_solution": "    return n > 2\n}"}"#;
    const PERL_3: &str = r#"{"task_id": "MBPLP/3", "prompt": "\n# Write a Perl function to identify non-prime numbers.\nsub is_not_prime\n{\n  my ($n) = @_;\n", "entry_point": "is_not_prime", "test": "\n\nuse Data::Compare;\n\nmy $arg00 = 2;\nmy $x0 = is_not_prime($arg00);\nmy $v0 = 0;\nunless(Compare($x0, $v0)) {\n    die \"Exception -- test case 0 did not pass.\";\n}\n", "description": "Write a Perl function to identify non-prime numbers.", "language": "perl", "canonical_solution": null}"#;
    const SCALA_3: &str = r#"{"task_id": "MBSCP/3", "prompt": "object Main extends App {\n    /**\n     * Write a Scala function to identify non-prime numbers.\n     */\n    def isNotPrime(n : Int) : Boolean = {\n", "entry_point": "isNotPrime", "test": "\n\n    var arg00 : Int = 2\n    var x0 : Boolean = isNotPrime(arg00)\n    var v0 : Boolean = false\n    assert(x0 == v0, \"Exception -- test case 0 did not pass. x0 = \" + x0)\n\n\n}\n", "description": "Write a Scala function to identify non-prime numbers.", "language": "scala", "canonical_solution": null}"#;

    #[test]
    fn mbxps_ruby_kotlin_perl_and_scala_records_are_read_in_their_languages() {
        for (record, language) in [
            (RUBY_3, Language::Ruby),
            (KOTLIN_3, Language::Kotlin),
            (PERL_3, Language::Perl),
            (SCALA_3, Language::Scala),
        ] {
            let problem = Format::Mbxp.read_detected(0, record);
            assert_eq!(problem.language(), language, "{record}");
            assert!(
                matches!(problem.tests, Tests::Program(ref t) if matches!(t.kind, ProgramKind::Mbxp(_)))
            );
        }
    }

    #[test]
    fn an_mbxp_language_verdict_lacks_is_read_as_unsupported() {
        let record = MBGP_5.replace(r#""language": "go""#, r#""language": "dart""#);
        let problem = Format::Mbxp.read_at(0, &record).expect("reads");
        assert!(matches!(problem.tests, Tests::Unsupported(_)));
    }
}
