//! The special tests (design #8-#10, #13, docs/special-tests.md): what a memory test, a
//! Google Test task and a static test run and what their results mean. The scheduler's tasks
//! only fetch the build and the data and hand the run to an [`Executor`](crate::Executor).

pub mod gtest;
pub mod static_analysis;
pub mod valgrind;

use crate::exec::{BOX_PATH, IsolationLevel, RunOutcome};
use std::path::{Path, PathBuf};
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Language, Score, SourceCode};

/// Source names a C or C++ compiler takes as translation units.
const UNIT_SUFFIXES: [&str; 6] = [".c", ".cc", ".cpp", ".cxx", ".c++", ".C"];
/// Header names of C and C++.
const HEADER_SUFFIXES: [&str; 9] = [
    ".h", ".hh", ".hpp", ".hxx", ".h++", ".H", ".inl", ".ipp", ".tpp",
];

/// Whether a file name is a C or C++ translation unit (not a header).
pub fn is_unit(name: &str) -> bool {
    UNIT_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// The names of `source`'s C or C++ translation units, in order (its headers left out).
pub fn translation_units(source: &SourceCode) -> Vec<String> {
    source
        .source_files
        .iter()
        .map(|a| a.name.clone())
        .filter(|n| is_unit(n))
        .collect()
}

/// Whether a file name is C or C++ source or header.
pub fn is_c_family(name: &str) -> bool {
    is_unit(name) || HEADER_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// `Some(System Error)` when the submission is neither C nor C++ (`what`: "memory tests").
pub fn c_or_cpp_only(language: Language, what: &str) -> Option<JudgeTaskResult> {
    (!matches!(language, Language::C | Language::Cpp)).then(|| {
        JudgeTaskResult::with_status(
            JudgeStatus::SystemError,
            format!("{what} support c and cpp (the submission is {language})"),
        )
    })
}

/// Status for a deduction score (design #13): full Accepted, above zero Partial Correct, zero
/// Wrong Answer.
pub fn deduction_status(score: Score) -> JudgeStatus {
    if score.numerator == 0 {
        JudgeStatus::WrongAnswer
    } else if score.numerator >= score.denominator {
        JudgeStatus::Accepted
    } else {
        JudgeStatus::PartialCorrect
    }
}

/// The directory tools saw as the box: `/box` under full isolation, else the host directory.
pub fn path_in_reports(outcome: &RunOutcome, box_dir: &Path) -> PathBuf {
    match outcome.isolation {
        IsolationLevel::RlimitOnly => box_dir.to_owned(),
        _ => PathBuf::from(BOX_PATH),
    }
}

/// A tool's report file in the box, as text: `Ok(None)` when it does not exist, `Err` with
/// the reason when it is not a readable regular file (a planted symlink) or too large.
pub fn read_box_text(box_dir: &Path, name: &str, max: u64) -> Result<Option<String>, String> {
    match verdict_sandbox::read_box_file(box_dir, Path::new(name), max) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(verdict_sandbox::SandboxError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(err) => Err(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deduction_scores_map_to_statuses() {
        assert_eq!(deduction_status(Score::FULL), JudgeStatus::Accepted);
        assert_eq!(deduction_status(Score::ZERO), JudgeStatus::WrongAnswer);
        let eight = Score::new(8, 10).expect("score");
        assert_eq!(deduction_status(eight), JudgeStatus::PartialCorrect);
    }

    #[test]
    fn units_and_headers_are_told_apart() {
        assert!(is_unit("employee.cpp") && is_unit("main.c") && is_unit("x.cc"));
        assert!(!is_unit("employee.hpp") && !is_unit("x.h") && !is_unit("notes.txt"));
        assert!(is_c_family("employee.hpp") && !is_c_family("notes.txt"));
    }

    #[test]
    fn only_c_and_cpp_are_supported() {
        assert!(c_or_cpp_only(Language::Cpp, "memory tests").is_none());
        let refused = c_or_cpp_only(Language::Python3, "memory tests").expect("refused");
        assert_eq!(
            refused.error_log,
            "memory tests support c and cpp (the submission is python3)"
        );
    }
}
