//! The result of a comparison: a verdict and a short message for the user.

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
pub(crate) fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        let _ = write!(out, "{}", c.escape_debug());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
