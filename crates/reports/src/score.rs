//! Scores of the gtest, memory and static tasks (design #13, the contract's rules).
//!
//! Deduction scores are in tenths: full marks are written `"1/1"` and zero `"0/1"`,
//! as the contract writes `Accepted` and `Wrong Answer` scores, anything between as
//! `"n/10"`. A gtest score is always `"passed/total"` (`"20/20"` included), as the
//! contract says for Google Test.

use verdict_contracts::{GoogleTestReport, Score, StaticReport};

/// `passed/total` for a gtest report; `"0/1"` when it has no test case at all.
pub fn gtest_score(report: &GoogleTestReport) -> Score {
    Score::new(report.pass_cases, report.total_cases).unwrap_or(Score::ZERO)
}

/// 10% off per memcheck error, floored at zero: 0 errors `"1/1"`, 3 errors `"7/10"`,
/// 10 or more `"0/1"`.
pub fn memory_score(error_count: u32) -> Score {
    tenths(error_count)
}

/// 20% off per priority-1 finding and 10% per priority-2 finding, floored at zero;
/// priority 3 costs nothing.
pub fn static_score(report: &StaticReport) -> Score {
    let deduction = report
        .violation
        .iter()
        .map(|v| match v.priority {
            1 => 2u32,
            2 => 1,
            _ => 0,
        })
        .fold(0u32, u32::saturating_add);
    tenths(deduction)
}

fn tenths(deducted: u32) -> Score {
    match 10u32.saturating_sub(deducted) {
        10 => Score::FULL,
        0 => Score::ZERO,
        n => Score {
            numerator: n,
            denominator: 10,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_score_loses_a_tenth_per_error() {
        assert_eq!(memory_score(0).to_string(), "1/1");
        assert_eq!(memory_score(3).to_string(), "7/10");
        assert_eq!(memory_score(9).to_string(), "1/10");
        assert_eq!(memory_score(10).to_string(), "0/1");
        assert_eq!(memory_score(u32::MAX).to_string(), "0/1");
    }

    #[test]
    fn gtest_score_is_passed_over_total() {
        let r = GoogleTestReport {
            total_cases: 20,
            pass_cases: 1,
            error_cases: 18,
            disabled_cases: 1,
            report: vec![],
        };
        assert_eq!(gtest_score(&r).to_string(), "1/20");
        assert_eq!(gtest_score(&GoogleTestReport::default()).to_string(), "0/1");
    }
}
