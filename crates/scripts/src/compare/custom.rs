//! Custom comparators: building their command line and reading their verdict, as plain data.
//!
//! # judge-system 4.0 protocol (the default)
//!
//! Called as `compare <input_dir> <user_output_dir> <answer_dir> <feedback_dir>`. Exit code 42
//! is Accepted, 43 Wrong Answer, 44 Presentation Error, 54 Partial Correct with `score.txt` in the
//! feedback dir holding `numerator denominator` (two unsigned integers, `0 <= n <= d`, `d > 0`).
//! A `report.txt` in the feedback dir becomes the outcome's report. Any other exit code, a
//! signal, a limit hit, or a missing or malformed `score.txt` is Compare Error.
//!
//! # testlib protocol
//!
//! Called as `checker <input> <output> <answer> [<result>]`. Exit code 0 is Accepted, 1 Wrong
//! Answer, 2 Presentation Error, 3 Compare Error (the checker failed), 4 (`_dirt`, extra output)
//! and 8 (`_unexpected_eof`) Presentation Error, as testlib reports both as "wrong output format",
//! and 7 partial marks read from the `points X` message. `X` is either a fraction of full marks
//! in `[0, 1]`, mapped to thousandths (`0.5` is `1/2`, `0.333` is `333/1000`; a value strictly
//! between 0 and 1 never rounds to 0 or to full marks), or `N/D` with integers kept exactly.
//! Anything else is Compare Error.
//!
//! In both protocols a fraction of full marks is Accepted, zero is Wrong Answer
//! ([`CompareVerdict::from_fraction`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::verdict::{CompareOutcome, CompareVerdict, REPORT_LIMIT, truncate};

/// How a custom comparator is called and how its result is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComparatorProtocol {
    /// judge-system 4.0: directories in, exit codes 42/43/44/54, `score.txt` and `report.txt`.
    #[default]
    JudgeSystem,
    /// testlib checkers: files in, exit codes 0/1/2/3/7 and a `points X` message.
    Testlib,
}

/// How a comparator's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComparatorExit {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal.
    Signal(i32),
    /// The sandbox stopped it at a limit (named, e.g. `"time"`).
    LimitHit(String),
}

/// Picks testlib when any source `#include`s `testlib.h`, else judge-system.
pub fn detect_protocol<N: AsRef<str>, T: AsRef<str>>(source_files: &[(N, T)]) -> ComparatorProtocol {
    let includes_testlib = source_files
        .iter()
        .any(|(_, text)| text.as_ref().lines().any(includes_testlib_h));
    if includes_testlib {
        ComparatorProtocol::Testlib
    } else {
        ComparatorProtocol::JudgeSystem
    }
}

/// Whether a source line is `#include "testlib.h"` or `#include <testlib.h>` (any path, spacing).
fn includes_testlib_h(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('#') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix("include") else {
        return false;
    };
    let rest = rest.trim_start();
    let (close, rest) = match rest.chars().next() {
        Some('"') => ('"', &rest[1..]),
        Some('<') => ('>', &rest[1..]),
        _ => return false,
    };
    let Some(end) = rest.find(close) else {
        return false;
    };
    let header = &rest[..end];
    header.rsplit(['/', '\\']).next() == Some("testlib.h")
}

/// Paths given to a judge-system comparator (all directories, as seen inside the sandbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeSystemPaths {
    /// Directory holding the test's input files.
    pub input_dir: PathBuf,
    /// Directory holding the program's output files.
    pub user_output_dir: PathBuf,
    /// Directory holding the expected answer files.
    pub answer_dir: PathBuf,
    /// Empty directory where the comparator writes `score.txt` and `report.txt`.
    pub feedback_dir: PathBuf,
}

/// Paths given to a testlib checker (all files, as seen inside the sandbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestlibPaths {
    /// The test's input.
    pub input_file: PathBuf,
    /// The program's output.
    pub output_file: PathBuf,
    /// The expected answer.
    pub answer_file: PathBuf,
    /// Where the checker writes its result message, if wanted.
    pub result_file: Option<PathBuf>,
}

/// The full argv (program first) for a judge-system comparator.
pub fn judge_system_argv(program: &Path, paths: &JudgeSystemPaths) -> Vec<OsString> {
    vec![
        program.into(),
        paths.input_dir.clone().into(),
        paths.user_output_dir.clone().into(),
        paths.answer_dir.clone().into(),
        paths.feedback_dir.clone().into(),
    ]
}

/// The full argv (program first) for a testlib checker.
pub fn testlib_argv(program: &Path, paths: &TestlibPaths) -> Vec<OsString> {
    let mut argv = vec![
        program.into(),
        paths.input_file.clone().into(),
        paths.output_file.clone().into(),
        paths.answer_file.clone().into(),
    ];
    if let Some(result) = &paths.result_file {
        argv.push(result.clone().into());
    }
    argv
}

/// The outcome of a judge-system comparator from its exit and its feedback dir files `(name, contents)`.
pub fn interpret_judge_system<N: AsRef<str>, C: AsRef<[u8]>>(
    exit: &ComparatorExit,
    feedback_files: &[(N, C)],
) -> CompareOutcome {
    let file = |name: &str| {
        feedback_files
            .iter()
            .find(|(n, _)| n.as_ref() == name)
            .map(|(_, c)| c.as_ref())
    };
    let code = match exit_code(exit) {
        Ok(code) => code,
        Err(outcome) => return outcome,
    };
    let verdict = match code {
        42 => CompareVerdict::Accepted,
        43 => CompareVerdict::WrongAnswer,
        44 => CompareVerdict::PresentationError,
        54 => match file("score.txt").map(parse_score) {
            None => {
                return CompareOutcome::compare_error(
                    "comparator exited 54 (partial correct) without score.txt",
                );
            }
            Some(Err(reason)) => return CompareOutcome::compare_error(reason),
            Some(Ok(verdict)) => verdict,
        },
        other => {
            return CompareOutcome::compare_error(format!(
                "comparator exited with unexpected code {other} (expected 42, 43, 44 or 54)"
            ));
        }
    };
    let mut outcome = CompareOutcome::new(verdict, "");
    outcome.report = file("report.txt")
        .map(|bytes| truncate(String::from_utf8_lossy(bytes).into_owned(), REPORT_LIMIT));
    outcome
}

/// The exit code, or the Compare Error for a signal or a limit hit.
fn exit_code(exit: &ComparatorExit) -> Result<i32, CompareOutcome> {
    match exit {
        ComparatorExit::Code(code) => Ok(*code),
        ComparatorExit::Signal(signal) => Err(CompareOutcome::compare_error(format!(
            "comparator was killed by signal {signal}"
        ))),
        ComparatorExit::LimitHit(limit) => Err(CompareOutcome::compare_error(format!(
            "comparator exceeded its {limit} limit"
        ))),
    }
}

/// Parses `score.txt`: `numerator denominator`, `0 <= n <= d`, `d > 0`.
fn parse_score(bytes: &[u8]) -> Result<CompareVerdict, String> {
    let malformed = || {
        let shown = super::verdict::escape_bytes(&bytes[..bytes.len().min(64)]);
        format!("malformed score.txt \"{shown}\" (expected \"numerator denominator\" with 0 <= numerator <= denominator, denominator > 0)")
    };
    let text = std::str::from_utf8(bytes).map_err(|_| malformed())?;
    let mut fields = text.split_ascii_whitespace();
    let (Some(n), Some(d), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(malformed());
    };
    let (Ok(n), Ok(d)) = (n.parse::<u64>(), d.parse::<u64>()) else {
        return Err(malformed());
    };
    CompareVerdict::from_fraction(n, d).ok_or_else(malformed)
}

/// The outcome of a testlib checker from its exit and its message (stderr or result file).
pub fn interpret_testlib(exit: &ComparatorExit, message: &str) -> CompareOutcome {
    let code = match exit_code(exit) {
        Ok(code) => code,
        Err(outcome) => return outcome,
    };
    let message = message.trim();
    match code {
        0 => CompareOutcome::new(CompareVerdict::Accepted, message),
        1 => CompareOutcome::new(CompareVerdict::WrongAnswer, message),
        2 | 4 | 8 => CompareOutcome::new(CompareVerdict::PresentationError, message),
        3 => CompareOutcome::compare_error(format!("checker failed: {message}")),
        7 => match parse_points(message) {
            Ok(verdict) => CompareOutcome::new(verdict, message),
            Err(reason) => CompareOutcome::compare_error(reason),
        },
        other => CompareOutcome::compare_error(format!(
            "checker exited with unexpected code {other}: {message}"
        )),
    }
}

/// Denominator for testlib points given as a decimal fraction.
const POINTS_DENOMINATOR: u64 = 1000;

/// Reads `points X` (X in `[0, 1]`) or `points N/D` from a testlib message.
fn parse_points(message: &str) -> Result<CompareVerdict, String> {
    let value = message
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("points "))
        .and_then(|rest| rest.split_ascii_whitespace().next())
        .ok_or_else(|| format!("checker exited 7 (points) without a \"points X\" message: {message}"))?;
    let bad = || format!("checker gave invalid points \"{value}\" (expected X in [0, 1] or N/D)");
    if let Some((n, d)) = value.split_once('/') {
        if let (Ok(n), Ok(d)) = (n.parse::<u64>(), d.parse::<u64>()) {
            return CompareVerdict::from_fraction(n, d).ok_or_else(bad);
        }
        let (Ok(n), Ok(d)) = (n.parse::<f64>(), d.parse::<f64>()) else {
            return Err(bad());
        };
        if !(d > 0.0) {
            return Err(bad());
        }
        return ratio_verdict(n / d).ok_or_else(bad);
    }
    value.parse::<f64>().ok().and_then(ratio_verdict).ok_or_else(bad)
}

/// A ratio in `[0, 1]` as thousandths, reduced; strictly partial ratios stay strictly partial.
fn ratio_verdict(ratio: f64) -> Option<CompareVerdict> {
    if !(0.0..=1.0).contains(&ratio) {
        return None;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut n = (ratio * POINTS_DENOMINATOR as f64).round() as u64;
    if ratio > 0.0 && ratio < 1.0 {
        n = n.clamp(1, POINTS_DENOMINATOR - 1);
    }
    let g = gcd(n, POINTS_DENOMINATOR);
    CompareVerdict::from_fraction(n / g, POINTS_DENOMINATOR / g)
}

/// Greatest common divisor (`gcd(0, d) == d`).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
