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
//! # Kattis / ICPC output-validator protocol
//!
//! Called as `validator <input> <answer> <feedback_dir> [flags...]` with the program's output
//! on its standard input (the problem package format's output validators). Exit code 42 is
//! Accepted, 43 Wrong Answer; `judgemessage.txt` in the feedback dir becomes the message (and
//! `judgeerror.txt` the reason of a failure). An accepting validator of a scoring problem may
//! write the test's score: `score.txt` (a finite number `>= 0`) or, from 2025-09 on,
//! `score_multiplier.txt` (a fraction of the test's maximum in `[0, 1]`); it becomes the
//! outcome's `validator_score` (and is shown in the message). Both files, a malformed one, or
//! one written with exit 43 is Compare Error (the format calls each a judge error). Any other
//! exit, a signal or a limit is Compare Error. An interactive validator (`run_script: "interactive"`) is called the same way, with
//! the program on its stdin and stdout.
//!
//! In all three protocols a fraction of full marks is Accepted, zero is Wrong Answer
//! ([`CompareVerdict::from_fraction`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::verdict::{CompareOutcome, CompareVerdict, REPORT_LIMIT, truncate};
use verdict_contracts::ValidatorScore;

/// How a custom comparator is called and how its result is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ComparatorProtocol {
    /// judge-system 4.0: directories in, exit codes 42/43/44/54, `score.txt` and `report.txt`.
    #[default]
    JudgeSystem,
    /// testlib checkers: files in, exit codes 0/1/2/3/7 and a `points X` message.
    Testlib,
    /// Kattis / ICPC output validators: input, answer and feedback dir as arguments, the
    /// program's output on stdin, exit codes 42/43, `judgemessage.txt`.
    Kattis,
}

impl ComparatorProtocol {
    /// The wire name (`"judge-system"`, `"testlib"`, `"kattis"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ComparatorProtocol::JudgeSystem => "judge-system",
            ComparatorProtocol::Testlib => "testlib",
            ComparatorProtocol::Kattis => "kattis",
        }
    }

    /// The files of its feedback directory a comparator's verdict is read from, which the
    /// judge collects for [`interpret_judge_system`] / [`interpret_kattis`] (none for testlib,
    /// whose message is what it prints).
    pub fn feedback_files(self) -> &'static [&'static str] {
        match self {
            ComparatorProtocol::JudgeSystem => &["score.txt", "report.txt"],
            ComparatorProtocol::Testlib => &[],
            ComparatorProtocol::Kattis => &[
                "judgemessage.txt",
                "judgeerror.txt",
                "score.txt",
                "score_multiplier.txt",
            ],
        }
    }

    /// The exit codes of an interactor of this protocol that reject the program (Kattis 43,
    /// testlib 1 and 2): a program still running when its interactor ends with one is judged
    /// already. None for judge-system, whose interactors are called as Kattis ones.
    pub fn rejecting_exits(self) -> &'static [i32] {
        match self {
            ComparatorProtocol::Kattis => &[43],
            ComparatorProtocol::Testlib => &[1, 2],
            ComparatorProtocol::JudgeSystem => &[],
        }
    }
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

/// The protocol of a comparator whose request names none: testlib when any source
/// `#include`s `testlib.h` (decision 6), else judge-system, the contract's.
///
/// Never Kattis: a comparator that ships a header named `validate.h` (problemtools') or
/// `validation.h` (BAPCtools') is not a Kattis validator for that. The Kattis
/// protocol is used when the request says so (`compare_protocol`), which verdict does itself
/// when it builds the request from a package.
pub fn detect_protocol<N: AsRef<str>, T: AsRef<str>>(
    source_files: &[(N, T)],
) -> ComparatorProtocol {
    let includes = |header: &str| {
        source_files
            .iter()
            .any(|(_, text)| text.as_ref().lines().any(|l| includes_header(l, header)))
    };
    if includes("testlib.h") {
        ComparatorProtocol::Testlib
    } else {
        ComparatorProtocol::JudgeSystem
    }
}

/// Whether a source line includes `header` (`"..."` or `<...>`, any path, any spacing).
fn includes_header(line: &str, header_name: &str) -> bool {
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
    header.rsplit(['/', '\\']).next() == Some(header_name)
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
    let file = |name| feedback_file(ComparatorProtocol::JudgeSystem, feedback_files, name);
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

/// The contents of feedback file `name`, one of the files `protocol` collects
/// ([`ComparatorProtocol::feedback_files`]: a file read here but not collected would never
/// arrive, which the debug assertion makes a failing test).
fn feedback_file<'a, N: AsRef<str>, C: AsRef<[u8]>>(
    protocol: ComparatorProtocol,
    feedback_files: &'a [(N, C)],
    name: &str,
) -> Option<&'a [u8]> {
    debug_assert!(
        protocol.feedback_files().contains(&name),
        "{name} is read but not in {protocol:?}'s feedback_files"
    );
    feedback_files
        .iter()
        .find(|(n, _)| n.as_ref() == name)
        .map(|(_, c)| c.as_ref())
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
        let shown = crate::verdict::escape_bytes(&bytes[..bytes.len().min(64)]);
        format!(
            "malformed score.txt \"{shown}\" (expected \"numerator denominator\" with 0 <= numerator <= denominator, denominator > 0)"
        )
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
            Ok((verdict, points)) => {
                let mut outcome = CompareOutcome::new(verdict, message);
                outcome.validator_score = Some(ValidatorScore::Score(points));
                outcome
            }
            Err(reason) => CompareOutcome::compare_error(reason),
        },
        other => CompareOutcome::compare_error(format!(
            "checker exited with unexpected code {other}: {message}"
        )),
    }
}

/// The outcome of a Kattis / ICPC output validator from its exit and its feedback dir files
/// `(name, contents)`: `judgemessage.txt`, `judgeerror.txt`, `score.txt`.
pub fn interpret_kattis<N: AsRef<str>, C: AsRef<[u8]>>(
    exit: &ComparatorExit,
    feedback_files: &[(N, C)],
) -> CompareOutcome {
    let text = |name| {
        feedback_file(ComparatorProtocol::Kattis, feedback_files, name)
            .map(|c| String::from_utf8_lossy(c).trim().to_owned())
            .filter(|t| !t.is_empty())
    };
    let message = text("judgemessage.txt").unwrap_or_default();
    let code = match exit_code(exit) {
        Ok(code) => code,
        Err(mut outcome) => {
            if let Some(error) = text("judgeerror.txt") {
                outcome.message = format!("{}: {error}", outcome.message);
            }
            return outcome;
        }
    };
    let verdict = match code {
        42 => CompareVerdict::Accepted,
        43 => CompareVerdict::WrongAnswer,
        other => {
            let why = text("judgeerror.txt").unwrap_or(message);
            return CompareOutcome::compare_error(format!(
                "validator exited with unexpected code {other} (expected 42 or 43): {why}"
            ));
        }
    };
    let validator_score = match kattis_score(feedback_files, verdict) {
        Ok(score) => score,
        Err(why) => return CompareOutcome::compare_error(why),
    };
    let message = match text("score.txt").or_else(|| text("score_multiplier.txt")) {
        Some(score) if message.is_empty() => format!("score {score}"),
        Some(score) => format!("{message}\nscore {score}"),
        None => message,
    };
    let mut outcome = CompareOutcome::new(verdict, message);
    outcome.validator_score = validator_score;
    outcome
}

/// The score a Kattis validator wrote (`score.txt` or `score_multiplier.txt`), or why it is a
/// judge error: both files, a malformed one, or one beside a rejection.
fn kattis_score<N: AsRef<str>, C: AsRef<[u8]>>(
    feedback_files: &[(N, C)],
    verdict: CompareVerdict,
) -> Result<Option<ValidatorScore>, String> {
    let file = |name| {
        feedback_file(ComparatorProtocol::Kattis, feedback_files, name)
            .map(|c| String::from_utf8_lossy(c).trim().to_owned())
    };
    let (score, multiplier) = (file("score.txt"), file("score_multiplier.txt"));
    let written = match (&score, &multiplier) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(
                "the validator wrote both score.txt and score_multiplier.txt (at most one)".into(),
            );
        }
        (Some(_), None) => "score.txt",
        (None, Some(_)) => "score_multiplier.txt",
    };
    if verdict != CompareVerdict::Accepted {
        return Err(format!(
            "the validator rejected the test (exit 43) and wrote {written} (a score is for an accepted test)"
        ));
    }
    let text = score.or(multiplier).unwrap_or_default();
    let value = text
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0);
    match (written, value) {
        ("score.txt", Some(v)) => Ok(Some(ValidatorScore::Score(v))),
        (_, Some(v)) if v <= 1.0 => Ok(Some(ValidatorScore::Multiplier(v))),
        ("score.txt", _) => Err(format!(
            "malformed score.txt \"{}\" (expected one finite number >= 0)",
            truncate(text, 64)
        )),
        _ => Err(format!(
            "malformed score_multiplier.txt \"{}\" (expected one number in [0, 1])",
            truncate(text, 64)
        )),
    }
}

/// Denominator for testlib points given as a decimal fraction.
const POINTS_DENOMINATOR: u64 = 1000;

/// Reads `points X` or `points N/D` from a testlib message: the verdict (`X` in `[0, 1]` and
/// `N/D` a fraction of the marks; `X` over 1 Polygon's points for the test, accepted) and the
/// points as given, which a package's grader counts as the test's score (Polygon's checkers
/// give a test's points themselves: docs/packages.md, "Polygon").
fn parse_points(message: &str) -> Result<(CompareVerdict, f64), String> {
    let value = message
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("points "))
        .and_then(|rest| rest.split_ascii_whitespace().next())
        .ok_or_else(|| {
            format!("checker exited 7 (points) without a \"points X\" message: {message}")
        })?;
    let bad =
        || format!("checker gave invalid points \"{value}\" (expected X >= 0, or N/D with N <= D)");
    if let Some((n, d)) = value.split_once('/') {
        if let (Ok(n), Ok(d)) = (n.parse::<u64>(), d.parse::<u64>()) {
            let verdict = CompareVerdict::from_fraction(n, d).ok_or_else(bad)?;
            return Ok((verdict, n as f64 / d as f64));
        }
        let (Ok(n), Ok(d)) = (n.parse::<f64>(), d.parse::<f64>()) else {
            return Err(bad());
        };
        if d.is_nan() || d <= 0.0 {
            return Err(bad());
        }
        return ratio_verdict(n / d).map(|v| (v, n / d)).ok_or_else(bad);
    }
    match value.parse::<f64>() {
        Ok(points) if points.is_finite() && points > 1.0 => Ok((CompareVerdict::Accepted, points)),
        Ok(points) => ratio_verdict(points).map(|v| (v, points)).ok_or_else(bad),
        Err(_) => Err(bad()),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use CompareVerdict::{Accepted, PresentationError, WrongAnswer};

    const NO_FILES: &[(&str, &[u8])] = &[];

    #[test]
    fn a_rejecting_exit_is_a_rejection_by_its_protocols_rules() {
        for protocol in [
            ComparatorProtocol::JudgeSystem,
            ComparatorProtocol::Testlib,
            ComparatorProtocol::Kattis,
        ] {
            for &code in protocol.rejecting_exits() {
                let exit = ComparatorExit::Code(code);
                let verdict = match protocol {
                    ComparatorProtocol::Testlib => interpret_testlib(&exit, "").verdict,
                    ComparatorProtocol::Kattis => interpret_kattis(&exit, NO_FILES).verdict,
                    ComparatorProtocol::JudgeSystem => {
                        interpret_judge_system(&exit, NO_FILES).verdict
                    }
                };
                assert!(
                    matches!(verdict, WrongAnswer | PresentationError),
                    "{protocol:?} exit {code}: {verdict:?}"
                );
            }
        }
    }

    #[test]
    fn each_feedback_file_a_protocol_collects_is_read() {
        // Each file alone, with contents its protocol accepts; one exit code or another reads it.
        let cases = [
            (ComparatorProtocol::JudgeSystem, [54, 42, 43], "1 2"),
            (ComparatorProtocol::Kattis, [42, 43, 1], "1"),
        ];
        for (protocol, codes, score) in cases {
            let interpret = |code, files: &[(&str, &[u8])]| {
                let exit = ComparatorExit::Code(code);
                match protocol {
                    ComparatorProtocol::Kattis => interpret_kattis(&exit, files),
                    _ => interpret_judge_system(&exit, files),
                }
            };
            for &name in protocol.feedback_files() {
                let text = if name.starts_with("score") {
                    score
                } else {
                    name
                };
                let alone: &[(&str, &[u8])] = &[(name, text.as_bytes())];
                assert!(
                    codes
                        .iter()
                        .any(|&code| interpret(code, alone) != interpret(code, NO_FILES)),
                    "{protocol:?}: {name} is collected but never read"
                );
            }
        }
        assert!(ComparatorProtocol::Testlib.feedback_files().is_empty());
    }

    fn js(code: i32, files: &[(&str, &[u8])]) -> CompareOutcome {
        interpret_judge_system(&ComparatorExit::Code(code), files)
    }

    #[test]
    fn judge_system_exit_codes_map_to_verdicts() {
        assert_eq!(js(42, NO_FILES).verdict, Accepted);
        assert_eq!(js(43, NO_FILES).verdict, WrongAnswer);
        assert_eq!(js(44, NO_FILES).verdict, PresentationError);
    }

    #[test]
    fn judge_system_partial_reads_score_txt() {
        let outcome = js(54, &[("score.txt", b"3 10\n")]);
        assert_eq!(
            outcome.verdict,
            CompareVerdict::PartialCorrect {
                numerator: 3,
                denominator: 10
            }
        );
        assert_eq!(outcome.verdict.score().to_string(), "3/10");
        assert_eq!(js(54, &[("score.txt", b"10 10")]).verdict, Accepted);
        assert_eq!(js(54, &[("score.txt", b"0 10")]).verdict, WrongAnswer);
    }

    #[test]
    fn judge_system_malformed_or_missing_score_is_a_compare_error() {
        for bad in [
            &b""[..],
            b"3",
            b"3/10",
            b"11 10",
            b"1 0",
            b"-1 10",
            b"1 2 3",
            b"1.5 3",
            b"\xff 2",
        ] {
            let outcome = js(54, &[("score.txt", bad)]);
            assert_eq!(outcome.verdict, CompareVerdict::CompareError, "{bad:?}");
            assert!(outcome.message.contains("score.txt"), "{}", outcome.message);
        }
        let missing = js(54, NO_FILES);
        assert_eq!(missing.verdict, CompareVerdict::CompareError);
        assert!(missing.message.contains("without score.txt"));
    }

    #[test]
    fn judge_system_report_txt_becomes_the_report() {
        let outcome = js(
            43,
            &[("report.txt", b"line 3: expected 4"), ("other", b"x")],
        );
        assert_eq!(outcome.report.as_deref(), Some("line 3: expected 4"));
        assert_eq!(js(42, NO_FILES).report, None);
        let huge = vec![b'x'; REPORT_LIMIT * 2];
        let outcome = js(42, &[("report.txt", &huge[..])]);
        assert!(outcome.report.is_some_and(|r| r.len() <= REPORT_LIMIT));
    }

    #[test]
    fn judge_system_other_exits_are_compare_errors() {
        for exit in [
            ComparatorExit::Code(0),
            ComparatorExit::Code(1),
            ComparatorExit::Code(-1),
            ComparatorExit::Signal(11),
            ComparatorExit::LimitHit("time".to_owned()),
        ] {
            let outcome = interpret_judge_system(&exit, NO_FILES);
            assert_eq!(outcome.verdict, CompareVerdict::CompareError, "{exit:?}");
            assert!(!outcome.message.is_empty());
        }
        let outcome = interpret_judge_system(&ComparatorExit::Signal(9), NO_FILES);
        assert_eq!(outcome.message, "comparator was killed by signal 9");
        let outcome = interpret_judge_system(&ComparatorExit::LimitHit("memory".into()), NO_FILES);
        assert_eq!(outcome.message, "comparator exceeded its memory limit");
    }

    fn tl(code: i32, message: &str) -> CompareOutcome {
        interpret_testlib(&ComparatorExit::Code(code), message)
    }

    #[test]
    fn testlib_exit_codes_map_to_verdicts() {
        assert_eq!(tl(0, "ok 3 numbers").verdict, Accepted);
        assert_eq!(tl(0, "ok 3 numbers").message, "ok 3 numbers");
        assert_eq!(tl(1, "wrong answer 1st differs").verdict, WrongAnswer);
        assert_eq!(tl(2, "wrong output format").verdict, PresentationError);
        assert_eq!(
            tl(4, "wrong output format Extra information").verdict,
            PresentationError
        );
        assert_eq!(
            tl(8, "wrong output format Unexpected end of file").verdict,
            PresentationError
        );
        let fail = tl(3, "FAIL answer file is empty");
        assert_eq!(fail.verdict, CompareVerdict::CompareError);
        assert_eq!(fail.message, "checker failed: FAIL answer file is empty");
        for code in [5, 6, 9, 42, -1] {
            assert_eq!(tl(code, "").verdict, CompareVerdict::CompareError, "{code}");
        }
        let crashed = interpret_testlib(&ComparatorExit::Signal(6), "");
        assert_eq!(crashed.verdict, CompareVerdict::CompareError);
    }

    #[test]
    fn testlib_points_map_to_fractions() {
        let partial = |numerator, denominator| CompareVerdict::PartialCorrect {
            numerator,
            denominator,
        };
        assert_eq!(tl(7, "points 0.5 half done").verdict, partial(1, 2));
        assert_eq!(tl(7, "points 0.333").verdict, partial(333, 1000));
        assert_eq!(tl(7, "points 0.25\n").verdict, partial(1, 4));
        assert_eq!(tl(7, "points 0.0001").verdict, partial(1, 1000));
        assert_eq!(tl(7, "points 0.9999").verdict, partial(999, 1000));
        assert_eq!(tl(7, "points 1").verdict, Accepted);
        assert_eq!(tl(7, "points 0").verdict, WrongAnswer);
        assert_eq!(tl(7, "points 3/7").verdict, partial(3, 7));
        assert_eq!(tl(7, "points 30.5/61").verdict, partial(1, 2));
        assert_eq!(tl(7, "checking...\npoints 0.5").verdict, partial(1, 2));
    }

    #[test]
    fn testlib_points_over_one_are_polygons_points_for_the_test() {
        let given = tl(7, "points 10.0 all of group 2");
        assert_eq!(given.verdict, Accepted);
        assert_eq!(given.validator_score, Some(ValidatorScore::Score(10.0)));
        // Every points message carries the points as given, for a package's grader.
        let half = tl(7, "points 0.5");
        assert_eq!(half.validator_score, Some(ValidatorScore::Score(0.5)));
        assert_eq!(
            tl(7, "points 3/4").validator_score,
            Some(ValidatorScore::Score(0.75))
        );
        assert_eq!(tl(0, "ok").validator_score, None);
    }

    #[test]
    fn testlib_bad_points_are_compare_errors() {
        for message in [
            "",
            "partially",
            "points",
            "points x",
            "points -0.5",
            "points NaN",
            "points inf",
            "points 8/7",
            "points 1/0",
            "points 1.0/0.0",
        ] {
            let outcome = tl(7, message);
            assert_eq!(outcome.verdict, CompareVerdict::CompareError, "{message:?}");
        }
    }

    #[test]
    fn detect_protocol_finds_testlib_includes() {
        let testlib = [
            "#include \"testlib.h\"",
            "#include <testlib.h>",
            "  #  include   \"../lib/testlib.h\"",
            "int x;\n#include<testlib.h>\nint main() {}",
        ];
        for text in testlib {
            assert_eq!(
                detect_protocol(&[("chk.cpp", "int y;"), ("check.cpp", text)]),
                ComparatorProtocol::Testlib,
                "{text}"
            );
        }
        let other = [
            "#include <stdio.h>",
            "// #include \"testlib.h\"",
            "#include \"mytestlib.h\"",
            "#include \"testlib.hpp\"",
            "#include \"testlib.h",
            "",
        ];
        for text in other {
            assert_eq!(
                detect_protocol(&[("compare.cpp", text)]),
                ComparatorProtocol::JudgeSystem,
                "{text}"
            );
        }
        assert_eq!(
            detect_protocol::<&str, &str>(&[]),
            ComparatorProtocol::JudgeSystem
        );
    }

    #[test]
    fn kattis_exit_codes_and_feedback_files_map_to_outcomes() {
        let k =
            |code, files: &[(&str, &[u8])]| interpret_kattis(&ComparatorExit::Code(code), files);
        assert_eq!(k(42, NO_FILES).verdict, Accepted);
        let wa = k(43, &[("judgemessage.txt", b"wrong guess 5\n")]);
        assert_eq!(wa.verdict, WrongAnswer);
        assert_eq!(wa.message, "wrong guess 5");
        let scored = k(42, &[("score.txt", b"17\n")]);
        assert_eq!(
            (scored.verdict, scored.message.as_str()),
            (Accepted, "score 17")
        );
        assert_eq!(scored.validator_score, Some(ValidatorScore::Score(17.0)));
        for code in [0, 1, 44, 54] {
            let bad = k(code, &[("judgeerror.txt", b"input file broken")]);
            assert_eq!(bad.verdict, CompareVerdict::CompareError, "{code}");
            assert!(bad.message.contains("input file broken"), "{}", bad.message);
        }
        let crashed = interpret_kattis(&ComparatorExit::Signal(11), NO_FILES);
        assert_eq!(crashed.verdict, CompareVerdict::CompareError);
    }

    #[test]
    fn kattis_validator_scores_are_read_and_their_misuse_is_a_compare_error() {
        let k =
            |code, files: &[(&str, &[u8])]| interpret_kattis(&ComparatorExit::Code(code), files);
        let half = k(42, &[("score_multiplier.txt", b"0.5\n")]);
        assert_eq!(
            (half.verdict, half.validator_score),
            (Accepted, Some(ValidatorScore::Multiplier(0.5)))
        );
        assert_eq!(
            k(42, &[("score.txt", b" 2.25 ")]).validator_score,
            Some(ValidatorScore::Score(2.25))
        );
        assert_eq!(k(42, NO_FILES).validator_score, None);
        let one = |name: &'static str, text: &'static str| vec![(name, text.as_bytes())];
        let both = vec![
            ("score.txt", &b"1"[..]),
            ("score_multiplier.txt", &b"1"[..]),
        ];
        for (code, files, why) in [
            (43, one("score.txt", "1"), "rejected"),
            (42, both, "both"),
            (42, one("score.txt", "-1"), "malformed score.txt"),
            (42, one("score.txt", ""), "malformed score.txt"),
            (42, one("score.txt", "1 2"), "malformed score.txt"),
            (42, one("score.txt", "inf"), "malformed score.txt"),
            (
                42,
                one("score_multiplier.txt", "1.5"),
                "malformed score_multiplier.txt",
            ),
        ] {
            let files = files.as_slice();
            let bad = k(code, files);
            assert_eq!(bad.verdict, CompareVerdict::CompareError, "{files:?}");
            assert!(bad.message.contains(why), "{files:?}: {}", bad.message);
            assert_eq!(bad.validator_score, None);
        }
    }

    /// a comparator shipping (and including) a header named `validate.h` was
    /// called as a Kattis validator; the request's protocol, else the contract's, decides.
    #[test]
    fn a_comparator_is_never_taken_for_a_kattis_validator_by_a_header_name() {
        for text in [
            "#include \"validate.h\"",
            "#include \"validation.h\"",
            "# include <../validate.h>",
        ] {
            let files = [("compare.cpp", text), ("validate.h", "int check();\n")];
            assert_eq!(
                detect_protocol(&files),
                ComparatorProtocol::JudgeSystem,
                "{text}"
            );
        }
        let both = [
            ("a.cpp", "#include \"validate.h\""),
            ("b.cpp", "#include \"testlib.h\""),
        ];
        assert_eq!(detect_protocol(&both), ComparatorProtocol::Testlib);
    }

    #[test]
    fn argv_builders_put_paths_in_protocol_order() {
        let js = judge_system_argv(
            Path::new("/box/compare"),
            &JudgeSystemPaths {
                input_dir: "/box/in".into(),
                user_output_dir: "/box/out".into(),
                answer_dir: "/box/ans".into(),
                feedback_dir: "/box/feedback".into(),
            },
        );
        assert_eq!(
            js,
            [
                "/box/compare",
                "/box/in",
                "/box/out",
                "/box/ans",
                "/box/feedback"
            ]
            .map(OsString::from)
        );
        let mut paths = TestlibPaths {
            input_file: "in.txt".into(),
            output_file: "out.txt".into(),
            answer_file: "ans.txt".into(),
            result_file: None,
        };
        let tl = testlib_argv(Path::new("./checker"), &paths);
        assert_eq!(
            tl,
            ["./checker", "in.txt", "out.txt", "ans.txt"].map(OsString::from)
        );
        paths.result_file = Some("result.txt".into());
        assert_eq!(testlib_argv(Path::new("./checker"), &paths).len(), 5);
    }

    #[test]
    fn protocol_names_are_kebab_case() {
        let json = serde_json::to_string(&ComparatorProtocol::JudgeSystem).ok();
        assert_eq!(json.as_deref(), Some("\"judge-system\""));
        let parsed: Option<ComparatorProtocol> = serde_json::from_str("\"testlib\"").ok();
        assert_eq!(parsed, Some(ComparatorProtocol::Testlib));
        for p in [
            ComparatorProtocol::JudgeSystem,
            ComparatorProtocol::Testlib,
            ComparatorProtocol::Kattis,
        ] {
            let json = serde_json::to_string(&p).ok();
            assert_eq!(json, Some(format!("\"{}\"", p.as_str())));
        }
    }
}
