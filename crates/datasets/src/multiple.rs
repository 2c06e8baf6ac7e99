//! nuprl's MultiPL-E: one record per problem and language, `name` (`HumanEval_0_has_close_elements`),
//! `language` (`cpp`, `js`, `java`, `rs`, `go_test.go`, `py`, ...), `prompt`, `tests`,
//! `stop_tokens`, `doctests`, `original`: the Hugging Face dataset's rows and the problem part
//! of its generation files (`<name>.json.gz`, which also hold `completions`). The program is
//! `prompt + completion + "\n" + tests`, the completion cut at its first stop token, run as
//! MultiPL-E's `evaluation/src/eval_<lang>.py` runs it ([`crate::program::assemble_multiple`],
//! docs/datasets.md, "MultiPL-E").

use crate::format::Fields;
use crate::problem::{MultiPleTest, Problem, ProgramKind, Tests};
use crate::{Error, Format};
use verdict_contracts::judge::Language;

/// verdict's language for a MultiPL-E `language` (its file extension), when verdict has one.
pub(crate) fn language_of(name: &str) -> Option<Language> {
    match name {
        "cpp" => Some(Language::Cpp),
        "js" | "javascript" => Some(Language::Js),
        "java" => Some(Language::Java),
        "rs" | "rust" => Some(Language::Rust),
        "go" | "go_test.go" => Some(Language::Go),
        "py" | "python" | "notypes.py" => Some(Language::Python3),
        "rb" | "ruby" => Some(Language::Ruby),
        "lua" => Some(Language::Lua),
        "pl" | "perl" => Some(Language::Perl),
        "sh" | "bash" => Some(Language::Bash),
        "r" => Some(Language::R),
        "scala" => Some(Language::Scala),
        "kt" | "kotlin" => Some(Language::Kotlin),
        "pas" => Some(Language::Pas),
        "php" => Some(Language::Php),
        "m" | "matlab" => Some(Language::Octave),
        "ts" | "typescript" => Some(Language::Typescript),
        "swift" => Some(Language::Swift),
        "cs" | "csharp" => Some(Language::Csharp),
        "hs" => Some(Language::Haskell),
        "fs" => Some(Language::Fsharp),
        "ada" | "adb" => Some(Language::Ada),
        _ => None,
    }
}

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("name")?;
    let language_name = r.str("language")?;
    let test = MultiPleTest {
        prompt: r.str("prompt")?.to_string(),
        tests: r.str("tests")?.to_string(),
        stop_tokens: r
            .str_list("stop_tokens")?
            .into_iter()
            .map(str::to_string)
            .collect(),
    };
    let tests = Tests::in_language(
        language_of(language_name),
        language_name,
        "MultiPL-E",
        ProgramKind::MultiPle(test),
    );
    Ok(Problem::new(task_id, Format::MultiPle, tests))
}

#[cfg(test)]
mod tests {
    use super::*;

    // HumanEval_53_add in MultiPL-E's C++ (the shape of the Hugging Face rows).
    const CPP_53: &str = r##"{"name": "HumanEval_53_add", "language": "cpp", "prompt": "#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\nlong add(long x, long y) {\n", "doctests": "transform", "original": "/tmp/HumanEval_53_add.py", "prompt_terminology": "reworded", "tests": "}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n}\n", "stop_tokens": ["\n}"]}"##;

    #[test]
    fn a_multiple_row_is_told_by_its_fields_and_its_language_by_the_language_field() {
        let problem = Format::MultiPle.read_detected(0, CPP_53);
        assert_eq!(problem.task_id, "HumanEval_53_add");
        let Tests::Program(tests) = problem.tests else {
            panic!("not a program: {problem:?}")
        };
        assert_eq!(tests.language, Language::Cpp);
        let ProgramKind::MultiPle(test) = tests.kind else {
            panic!("not MultiPL-E")
        };
        assert_eq!(test.stop_tokens, ["\n}"]);
    }

    // HumanEval_53_add in MultiPL-E's Lua, Ruby, Scala and Kotlin (the Hugging Face rows' shape,
    // the docstrings shortened).
    const LUA_53: &str = r##"{"name": "HumanEval_53_add", "language": "lua", "prompt": "-- Add two numbers x and y\nlocal function add(x, y)\n", "doctests": "transform", "original": "/tmp/HumanEval_53_add.py", "prompt_terminology": "reworded", "tests": "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n    lu.assertEquals(candidate(0, 1), 1)\nend\n\nos.exit(lu.LuaUnit.run())", "stop_tokens": ["\nlocal", "\nfunction", "\n--", "\n\n"]}"##;
    const RB_53: &str = r##"{"name": "HumanEval_53_add", "language": "rb", "prompt": "# Add two numbers x and y\ndef add(x, y)\n", "doctests": "transform", "original": "/tmp/HumanEval_53_add.py", "prompt_terminology": "reworded", "tests": "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    candidate = method(:add)\n    assert_equal(1, candidate.call(0, 1))\n  end\nend\n", "stop_tokens": ["\nclass", "\ndef", "\n#", "\n\n"]}"##;
    const SCALA_53: &str = r##"{"name": "HumanEval_53_add", "language": "scala", "prompt": "import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Add two numbers x and y\n    def add(x : Long, y : Long) : Long = {\n", "doctests": "transform", "original": "/tmp/HumanEval_53_add.py", "prompt_terminology": "reworded", "tests": "    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n    }\n\n}\n", "stop_tokens": ["\n    }\n"]}"##;
    const KT_53: &str = r##"{"name": "HumanEval_53_add", "language": "kt", "prompt": "// Add two numbers x and y\nfun add(x: Int, y: Int): Int {\n", "doctests": "transform", "original": "/tmp/HumanEval_53_add.py", "prompt_terminology": "reworded", "tests": "fun main() {\n  assert(add(0, 1) == 1);\n}\n", "stop_tokens": ["\nfun ", "\n/*", "\n//", "\nclass"]}"##;

    #[test]
    fn multiples_lua_ruby_scala_and_kotlin_rows_are_read_in_their_languages() {
        for (row, language) in [
            (LUA_53, Language::Lua),
            (RB_53, Language::Ruby),
            (SCALA_53, Language::Scala),
            (KT_53, Language::Kotlin),
        ] {
            let problem = Format::MultiPle.read_detected(0, row);
            let Tests::Program(tests) = problem.tests else {
                panic!("not a program: {problem:?}")
            };
            assert_eq!(tests.language, language);
            assert!(matches!(tests.kind, ProgramKind::MultiPle(_)));
        }
    }

    #[test]
    fn a_language_verdict_has_no_profile_for_is_read_as_unsupported() {
        let record = CPP_53.replace(r#""language": "cpp""#, r#""language": "rkt""#);
        let problem = Format::MultiPle.read_at(0, &record).expect("reads");
        assert!(matches!(problem.tests, Tests::Unsupported(ref u) if u.reason.contains("\"rkt\"")));
    }
}
