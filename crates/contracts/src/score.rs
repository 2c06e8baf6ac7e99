//! A judge score: a fraction written `"n/d"` on the wire (design #13).

use std::fmt;
use std::str::FromStr;

/// A score `numerator/denominator`, kept unreduced (`"7/10"`, gtest's `"18/20"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Score {
    /// Points earned.
    pub numerator: u32,
    /// Points possible; never zero.
    pub denominator: u32,
}

impl Score {
    /// Full marks, `"1/1"`.
    pub const FULL: Score = Score {
        numerator: 1,
        denominator: 1,
    };
    /// No marks, `"0/1"`.
    pub const ZERO: Score = Score {
        numerator: 0,
        denominator: 1,
    };

    /// A score, or `None` when the denominator is zero or the numerator exceeds it.
    pub fn new(numerator: u32, denominator: u32) -> Option<Score> {
        (denominator > 0 && numerator <= denominator).then_some(Score {
            numerator,
            denominator,
        })
    }
    /// Whether this is full marks.
    pub fn is_full(self) -> bool {
        self.numerator == self.denominator
    }
    /// Whether this is zero.
    pub fn is_zero(self) -> bool {
        self.numerator == 0
    }
    /// The score as a number in 0..=1.
    pub fn as_f64(self) -> f64 {
        f64::from(self.numerator) / f64::from(self.denominator)
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.numerator, self.denominator)
    }
}

/// Why a score string did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("score must be \"n/d\" with 0 <= n <= d and d > 0, got {0:?}")]
pub struct ScoreParseError(pub String);

impl FromStr for Score {
    type Err = ScoreParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ScoreParseError(s.to_owned());
        let (n, d) = s.split_once('/').ok_or_else(err)?;
        let n = n.trim().parse().map_err(|_| err())?;
        let d = d.trim().parse().map_err(|_| err())?;
        Score::new(n, d).ok_or_else(err)
    }
}

string_wire!(Score, {
    "pattern": "^[0-9]+/[0-9]+$",
    "description": "A fraction \"numerator/denominator\": \"1/1\" accepted, \"0/1\" failed, gtest \"passed/total\", deductions in tenths."
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_round_trips_as_a_string() {
        let s: Score = serde_json::from_str("\"7/10\"").unwrap();
        assert_eq!(s, Score::new(7, 10).unwrap());
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"7/10\"");
    }

    #[test]
    fn score_rejects_bad_fractions() {
        for bad in ["1/0", "2/1", "x/1", "1", "-1/2", ""] {
            assert!(bad.parse::<Score>().is_err(), "{bad}");
        }
    }
}
