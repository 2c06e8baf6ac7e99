//! The result of a comparison: a verdict and a short message for the user, and the same in the
//! judge contract's terms (status, score, log).

use std::fmt::Write as _;
use verdict_contracts::{JudgeStatus, Score, ValidatorScore};

/// Upper bound, in bytes, of [`CompareOutcome::message`].
pub const MESSAGE_LIMIT: usize = 1024;

/// Upper bound, in bytes, of [`CompareOutcome::report`].
pub const REPORT_LIMIT: usize = 64 * 1024;

/// What a comparator decided about one output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareVerdict {
    /// The output is correct.
    Accepted,
    /// The output is correct except for its layout (white space, blank lines).
    PresentationError,
    /// The output is wrong.
    WrongAnswer,
    /// The output earned `numerator / denominator` of the marks (0 < numerator < denominator).
    PartialCorrect {
        /// Marks earned.
        numerator: u64,
        /// Marks available (never zero).
        denominator: u64,
    },
    /// The comparator itself failed (bad exit, crash, limit, malformed feedback).
    CompareError,
}

impl CompareVerdict {
    /// A fraction of the marks as a verdict: full marks Accepted, zero Wrong Answer, else Partial Correct.
    ///
    /// Returns `None` when `denominator` is zero or `numerator > denominator`.
    pub fn from_fraction(numerator: u64, denominator: u64) -> Option<Self> {
        if denominator == 0 || numerator > denominator {
            None
        } else if numerator == denominator {
            Some(Self::Accepted)
        } else if numerator == 0 {
            Some(Self::WrongAnswer)
        } else {
            Some(Self::PartialCorrect {
                numerator,
                denominator,
            })
        }
    }

    /// The judge contract's status (its string is the contract's, spelled once by serde).
    pub fn status(&self) -> JudgeStatus {
        match self {
            Self::Accepted => JudgeStatus::Accepted,
            Self::PresentationError => JudgeStatus::PresentationError,
            Self::WrongAnswer => JudgeStatus::WrongAnswer,
            Self::PartialCorrect { .. } => JudgeStatus::PartialCorrect,
            Self::CompareError => JudgeStatus::CompareError,
        }
    }

    /// The judge contract's score: full marks, `n/d` for partial marks (zero when the
    /// fraction does not fit the contract's 32-bit numbers), else zero.
    pub fn score(&self) -> Score {
        match self {
            Self::Accepted => Score::FULL,
            Self::PartialCorrect {
                numerator,
                denominator,
            } => u32::try_from(*numerator)
                .ok()
                .zip(u32::try_from(*denominator).ok())
                .and_then(|(n, d)| Score::new(n, d))
                .unwrap_or(Score::ZERO),
            _ => Score::ZERO,
        }
    }
}

/// A verdict with short human feedback and, for custom comparators, their report.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOutcome {
    /// The decision.
    pub verdict: CompareVerdict,
    /// Short feedback (first difference, comparator message or failure reason), at most [`MESSAGE_LIMIT`] bytes.
    pub message: String,
    /// A custom comparator's report (`report.txt`), at most [`REPORT_LIMIT`] bytes.
    pub report: Option<String>,
    /// The score a Kattis validator wrote for an accepted test (`score.txt`,
    /// `score_multiplier.txt`).
    pub validator_score: Option<ValidatorScore>,
}

impl CompareOutcome {
    /// An outcome with a message (truncated to [`MESSAGE_LIMIT`]) and no report.
    pub fn new(verdict: CompareVerdict, message: impl Into<String>) -> Self {
        Self {
            verdict,
            message: truncate(message.into(), MESSAGE_LIMIT),
            report: None,
            validator_score: None,
        }
    }

    /// A Compare Error outcome with the reason as its message.
    pub fn compare_error(reason: impl Into<String>) -> Self {
        Self::new(CompareVerdict::CompareError, reason)
    }

    /// A Compare Error with the end of what the failed program wrote on stderr after its
    /// reason (`stderr_tail`, the last bytes of it; `cut` when it had more), within
    /// [`MESSAGE_LIMIT`]: a crash says why last (a Python traceback's `NameError: ...`).
    /// Any other outcome, or an empty stderr, is left as it is.
    pub fn with_stderr_tail(mut self, stderr_tail: &[u8], cut: bool) -> Self {
        if self.verdict != CompareVerdict::CompareError {
            return self;
        }
        let text = String::from_utf8_lossy(stderr_tail);
        let text = text.trim();
        if text.is_empty() {
            return self;
        }
        let head = self.message.trim_end().trim_end_matches(':').trim_end();
        let label = "\nstderr:\n";
        let room = MESSAGE_LIMIT.saturating_sub(head.len() + label.len() + "...".len());
        let mut start = text.len().saturating_sub(room);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        let dots = if start > 0 || cut { "..." } else { "" };
        self.message = truncate(
            format!("{head}{label}{dots}{}", &text[start..]),
            MESSAGE_LIMIT,
        );
        self
    }
}

/// The comparison's status, score and log.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareSummary {
    /// Accepted, Partial Correct, Presentation Error, Wrong Answer or Compare Error.
    pub status: JudgeStatus,
    /// The score.
    pub score: Score,
    /// Feedback for `error_log`.
    pub log: String,
    /// The score a Kattis validator wrote for an accepted test.
    pub validator_score: Option<ValidatorScore>,
}

impl CompareSummary {
    /// A Compare Error with its reason.
    pub fn compare_error(log: impl Into<String>) -> Self {
        CompareSummary {
            status: JudgeStatus::CompareError,
            score: Score::ZERO,
            log: log.into(),
            validator_score: None,
        }
    }
}

impl From<CompareOutcome> for CompareSummary {
    fn from(outcome: CompareOutcome) -> Self {
        let (status, score) = (outcome.verdict.status(), outcome.verdict.score());
        let mut log = outcome.message;
        if let Some(report) = outcome.report {
            if !log.is_empty() {
                log.push('\n');
            }
            log.push_str(&report);
        }
        CompareSummary {
            status,
            score,
            log,
            validator_score: outcome.validator_score,
        }
    }
}

/// Cuts `text` to at most `limit` bytes on a character boundary, marking the cut with `…`.
pub(crate) fn truncate(mut text: String, limit: usize) -> String {
    if text.len() <= limit {
        return text;
    }
    let marker = "…";
    let mut cut = limit.saturating_sub(marker.len());
    while cut > 0 && !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(marker);
    text
}

/// Renders bytes for a message: lossy UTF-8 with control characters and quotes escaped.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        let _ = write!(out, "{}", c.escape_debug());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a validator or checker that crashed was reported as `validator exited
    /// with unexpected code 1 (expected 42 or 43): ` and nothing after the colon.
    #[test]
    fn a_failed_comparators_message_ends_with_its_stderr() {
        let traceback = b"Traceback (most recent call last):\n  File \"v.py\", line 3\nNameError: name 'x' is not defined\n";
        let failed = CompareOutcome::compare_error(
            "validator exited with unexpected code 1 (expected 42 or 43): ",
        )
        .with_stderr_tail(traceback, false);
        assert!(
            failed.message.starts_with(
                "validator exited with unexpected code 1 (expected 42 or 43)\nstderr:\nTraceback"
            ),
            "{}",
            failed.message
        );
        assert!(
            failed
                .message
                .ends_with("NameError: name 'x' is not defined")
        );
        // A long stderr keeps its end, within the limit; other outcomes are untouched.
        let long = format!("{}\nValueError: last", "é".repeat(2000));
        let cut = CompareOutcome::compare_error("comparator was killed by signal 6")
            .with_stderr_tail(long.as_bytes(), true);
        assert!(cut.message.len() <= MESSAGE_LIMIT, "{}", cut.message.len());
        assert!(cut.message.ends_with("ValueError: last"), "{}", cut.message);
        assert!(cut.message.contains("\nstderr:\n..."), "{}", cut.message);
        let wrong = CompareOutcome::new(CompareVerdict::WrongAnswer, "differs");
        assert_eq!(wrong.clone().with_stderr_tail(b"noise", false), wrong);
        let quiet = CompareOutcome::compare_error("comparator exited with unexpected code 1");
        assert_eq!(quiet.clone().with_stderr_tail(b" \n", false), quiet);
    }

    #[test]
    fn from_fraction_maps_full_zero_and_partial_marks() {
        assert_eq!(
            CompareVerdict::from_fraction(3, 3),
            Some(CompareVerdict::Accepted)
        );
        assert_eq!(
            CompareVerdict::from_fraction(0, 3),
            Some(CompareVerdict::WrongAnswer)
        );
        assert_eq!(
            CompareVerdict::from_fraction(1, 3),
            Some(CompareVerdict::PartialCorrect {
                numerator: 1,
                denominator: 3
            })
        );
        assert_eq!(CompareVerdict::from_fraction(1, 0), None);
        assert_eq!(CompareVerdict::from_fraction(4, 3), None);
    }

    #[test]
    fn status_and_score_strings_follow_the_contract() {
        assert_eq!(CompareVerdict::Accepted.score().to_string(), "1/1");
        assert_eq!(CompareVerdict::WrongAnswer.score().to_string(), "0/1");
        assert_eq!(CompareVerdict::CompareError.score().to_string(), "0/1");
        let partial = CompareVerdict::PartialCorrect {
            numerator: 2,
            denominator: 5,
        };
        assert_eq!(partial.score().to_string(), "2/5");
        assert_eq!(partial.status().as_str(), "Partial Correct");
        assert_eq!(
            CompareVerdict::PresentationError.status().as_str(),
            "Presentation Error"
        );
        assert_eq!(
            CompareVerdict::CompareError.status().as_str(),
            "Compare Error"
        );
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        let text = "é".repeat(600);
        let cut = truncate(text, MESSAGE_LIMIT);
        assert!(cut.len() <= MESSAGE_LIMIT);
        assert!(cut.ends_with('…'));
        assert_eq!(truncate("short".to_owned(), 10), "short");
    }

    #[test]
    fn escape_bytes_handles_invalid_utf8_and_controls() {
        assert_eq!(escape_bytes(b"a\tb\0\"\xff"), "a\\tb\\0\\\"\u{fffd}");
    }
}
