//! Who wins when a program and its interactor end: the rules for every race, as one pure
//! function over what each side did (docs/interactive.md gives them as a table).

use crate::judge::classify::RunFailure;
use verdict_compare::{CompareOutcome, CompareVerdict};
use verdict_contracts::{JudgeStatus, Score, ValidatorScore};

/// `SIGPIPE`: a write to a pipe nobody reads any more.
const SIGPIPE: i32 = 13;

/// Everything the rules look at.
#[derive(Debug, Clone)]
pub struct Ends {
    /// The program's failure as a lone run would be classified (limit, signal, exit code).
    pub program_failure: Option<RunFailure>,
    /// The signal that ended the program, if one did.
    pub program_signal: Option<i32>,
    /// The interactor's verdict from its exit and feedback (Compare Error when it failed).
    pub interactor: CompareOutcome,
    /// The signal that ended the interactor, if one did.
    pub interactor_signal: Option<i32>,
    /// Whether the interactor ended before the program did.
    pub interactor_first: bool,
    /// The program wrote more than its output limit.
    pub output_capped: bool,
    /// It did after the interactor had stopped reading (its output drained).
    pub output_capped_after_interactor: bool,
}

/// A decision: the status, its score and the reason for `error_log`.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The task's status.
    pub status: JudgeStatus,
    /// Its score.
    pub score: Score,
    /// Why, in a line or two.
    pub reason: String,
    /// The score a Kattis validator (or interactor) wrote for an accepted test.
    pub validator_score: Option<ValidatorScore>,
}

impl Decision {
    /// A decision of `status` for `reason`: full score when accepted, none otherwise.
    pub(crate) fn of(status: JudgeStatus, reason: impl Into<String>) -> Decision {
        Decision {
            status,
            score: if status == JudgeStatus::Accepted {
                Score::FULL
            } else {
                Score::ZERO
            },
            reason: reason.into(),
            validator_score: None,
        }
    }

    fn interactor(outcome: &CompareOutcome, why: &str) -> Decision {
        let mut reason = String::new();
        // A rejecting validator writes what it saw as it goes and its reason last, just before
        // it exits 43 (problemtools' `guess`: "I'm thinking of 500", ..., "Didn't get to
        // correct answer in 10 guesses"): that reason is the log's first line, where the
        // tables and the page read it (docs/interactive.md, "The log").
        if rejects(outcome.verdict)
            && let Some(last) = outcome.message.lines().rev().find(|l| !l.trim().is_empty())
            && outcome.message.trim() != last.trim()
        {
            reason.push_str(last.trim());
            reason.push('\n');
        }
        reason.push_str(why);
        if !outcome.message.is_empty() {
            reason.push_str(": ");
            reason.push_str(&outcome.message);
        }
        if let Some(report) = &outcome.report {
            reason.push('\n');
            reason.push_str(report);
        }
        Decision {
            status: outcome.verdict.status(),
            score: outcome.verdict.score(),
            reason,
            validator_score: outcome.validator_score,
        }
    }
}

/// Whether a verdict of the interactor rejects the program (a wrong or partial answer).
fn rejects(verdict: CompareVerdict) -> bool {
    !matches!(
        verdict,
        CompareVerdict::Accepted | CompareVerdict::CompareError
    )
}

/// The rules, first match wins:
/// 1. the program wrote past its output limit to the interactor: Output Limit Exceeded;
/// 2. the interactor ended first with a rejection (wrong answer, presentation error, partial
///    marks): that verdict, whatever the program did afterwards (end-of-file, a crash, a
///    limit, output past its limit);
///
/// (a program that writes past its output limit after an accepting interactor stopped
/// reading: Output Limit Exceeded);
/// 3. the program hit its CPU, memory or output limit: that limit; its wall limit: Compare
///    Error when the interactor failed too (it was stalling the exchange), else Time Limit
///    Exceeded (the program was waiting: idle), also when the interactor's failure is a
///    `SIGPIPE` after the program ended (it was blocked writing to a program that did not
///    read, and was cut off when the program was stopped);
/// 4. the interactor died of `SIGPIPE` after the program had ended (it was still writing to
///    a program that left): the program's run-time failure if it had one, else Wrong Answer;
///    any other failure of the interactor (crash, limit, an exit code its dialect does not
///    have, testlib's 3): Compare Error;
/// 5. a run-time failure of the program (signal, non-zero exit): that failure's status (its
///    output is never cut off by the relay: what it writes after the interactor left is
///    drained, as problemtools and BAPCtools do, so a `SIGPIPE` is its own doing);
/// 6. the interactor's verdict.
pub fn decide(ends: &Ends) -> Decision {
    if ends.output_capped {
        return Decision::of(
            JudgeStatus::OutputLimitExceeded,
            "the program sent the interactor more than its output limit",
        );
    }
    let verdict = ends.interactor.verdict;
    // The interactor died of SIGPIPE after the program had ended: it was writing to a program
    // that left, which is not its own failure (rules 3 and 4).
    let cut_off = ends.interactor_signal == Some(SIGPIPE) && !ends.interactor_first;
    if ends.interactor_first && rejects(verdict) {
        return Decision::interactor(&ends.interactor, "the interactor ended first");
    }
    if ends.output_capped_after_interactor {
        return Decision::of(
            JudgeStatus::OutputLimitExceeded,
            "the program went on writing past its output limit after the interactor had finished",
        );
    }
    if let Some(failure) = &ends.program_failure {
        let limit = matches!(
            failure.status,
            JudgeStatus::TimeLimitExceeded
                | JudgeStatus::MemoryLimitExceeded
                | JudgeStatus::OutputLimitExceeded
        );
        let idle = failure.status == JudgeStatus::TimeLimitExceeded
            && failure.reason.starts_with("wall time");
        if limit && idle && verdict == CompareVerdict::CompareError && !cut_off {
            return Decision::interactor(
                &ends.interactor,
                "the program waited until its wall limit and the interactor failed",
            );
        }
        if limit {
            return Decision::of(failure.status, failure.reason.clone());
        }
    }
    if verdict == CompareVerdict::CompareError {
        if cut_off {
            if let Some(failure) = &ends.program_failure {
                return Decision::of(failure.status, failure.reason.clone());
            }
            return Decision::of(
                JudgeStatus::WrongAnswer,
                "the program ended while the interactor was still writing to it",
            );
        }
        return Decision::interactor(&ends.interactor, "the interactor failed");
    }
    if let Some(failure) = &ends.program_failure {
        return Decision::of(failure.status, failure.reason.clone());
    }
    Decision::interactor(&ends.interactor, "interactor")
}

#[cfg(test)]
mod tests {
    use super::*;
    use JudgeStatus::*;

    fn failure(status: JudgeStatus, reason: &str) -> Option<RunFailure> {
        Some(RunFailure {
            status,
            reason: reason.into(),
        })
    }

    fn ends(
        program_failure: Option<RunFailure>,
        signal: Option<i32>,
        interactor: CompareVerdict,
        interactor_first: bool,
    ) -> Ends {
        Ends {
            program_failure,
            program_signal: signal,
            interactor: CompareOutcome::new(interactor, "msg"),
            interactor_signal: None,
            interactor_first,
            output_capped: false,
            output_capped_after_interactor: false,
        }
    }

    const WA: CompareVerdict = CompareVerdict::WrongAnswer;
    const AC: CompareVerdict = CompareVerdict::Accepted;
    const CE: CompareVerdict = CompareVerdict::CompareError;

    #[test]
    fn the_interactors_rejection_first_wins_over_whatever_the_program_did_after() {
        let rte = failure(RuntimeError, "killed by SIGPIPE");
        assert_eq!(
            decide(&ends(rte.clone(), Some(13), WA, true)).status,
            WrongAnswer
        );
        let tle = failure(TimeLimitExceeded, "CPU time over 1000 ms");
        assert_eq!(decide(&ends(tle, None, WA, true)).status, WrongAnswer);
        let partial = CompareVerdict::PartialCorrect {
            numerator: 1,
            denominator: 2,
        };
        let d = decide(&ends(rte, Some(13), partial, true));
        assert_eq!(
            (d.status, d.score.to_string()),
            (PartialCorrect, "1/2".into())
        );
    }

    #[test]
    fn a_rejecting_interactors_reason_is_the_first_line_of_the_log() {
        let mut e = ends(None, None, WA, true);
        e.interactor = CompareOutcome::new(
            WA,
            "I'm thinking of 500\nGuess 1 is 1\nDidn't get to correct answer in 10 guesses\n",
        );
        let d = decide(&e);
        assert_eq!(d.status, WrongAnswer);
        let mut lines = d.reason.lines();
        assert_eq!(
            lines.next(),
            Some("Didn't get to correct answer in 10 guesses")
        );
        assert_eq!(
            lines.next(),
            Some("the interactor ended first: I'm thinking of 500")
        );
        // One line: as it was.
        e.interactor = CompareOutcome::new(WA, "Guess 3 is out of range: 0");
        assert_eq!(
            decide(&e).reason,
            "the interactor ended first: Guess 3 is out of range: 0"
        );
        // An accepting interactor's messages are not a reason.
        e.interactor = CompareOutcome::new(AC, "I'm thinking of 500\nGuess 1 is 500");
        e.interactor_first = false;
        assert!(decide(&e).reason.starts_with("interactor: I'm thinking"));
    }

    #[test]
    fn the_program_ending_first_with_a_failure_is_that_failure() {
        let rte = failure(RuntimeError, "exit code 3");
        assert_eq!(decide(&ends(rte, None, WA, false)).status, RuntimeError);
        let seg = failure(SegmentationFault, "SIGSEGV");
        assert_eq!(
            decide(&ends(seg, Some(11), AC, false)).status,
            SegmentationFault
        );
        let mle = failure(MemoryLimitExceeded, "memory");
        assert_eq!(
            decide(&ends(mle, None, WA, false)).status,
            MemoryLimitExceeded
        );
    }

    #[test]
    fn limits_win_over_an_interactor_that_did_not_reject_first() {
        let tle = failure(TimeLimitExceeded, "CPU time over 1000 ms");
        assert_eq!(
            decide(&ends(tle.clone(), None, AC, true)).status,
            TimeLimitExceeded
        );
        assert_eq!(
            decide(&ends(tle, None, CE, false)).status,
            TimeLimitExceeded
        );
        let idle = failure(
            TimeLimitExceeded,
            "wall time over 3000 ms (the program was waiting)",
        );
        assert_eq!(
            decide(&ends(idle.clone(), None, WA, false)).status,
            TimeLimitExceeded
        );
        let stalled = decide(&ends(idle.clone(), None, CE, false));
        assert_eq!(stalled.status, CompareError, "{}", stalled.reason);
        // An interactor blocked writing to a program that never read, cut off by SIGPIPE when
        // the program was stopped at its wall limit, did not stall: the program did.
        let mut flooded = ends(idle, None, CE, false);
        flooded.interactor_signal = Some(13);
        assert_eq!(decide(&flooded).status, TimeLimitExceeded);
        // Its SIGPIPE before the program's end (it closed on itself) stays its failure.
        flooded.interactor_first = true;
        assert_eq!(decide(&flooded).status, CompareError);
    }

    #[test]
    fn a_failed_interactor_is_a_compare_error_and_a_programs_own_failure_after_acceptance_counts() {
        assert_eq!(decide(&ends(None, None, CE, true)).status, CompareError);
        let rte = failure(RuntimeError, "exit code 1");
        assert_eq!(
            decide(&ends(rte.clone(), None, CE, false)).status,
            CompareError
        );
        // After an accepting interactor ended, the program's own failure is its verdict.
        assert_eq!(decide(&ends(rte, None, AC, true)).status, RuntimeError);
        let pipe = failure(RuntimeError, "killed by signal 13 (SIGPIPE)");
        assert_eq!(
            decide(&ends(pipe, Some(13), AC, false)).status,
            RuntimeError
        );
    }

    #[test]
    fn an_interactor_cut_off_by_a_program_that_left_is_not_its_fault() {
        let mut left = ends(None, None, CE, false);
        left.interactor_signal = Some(13);
        assert_eq!(decide(&left).status, WrongAnswer);
        left.program_failure = failure(RuntimeError, "exit code 2");
        assert_eq!(decide(&left).status, RuntimeError);
        // SIGPIPE with the interactor first (it closed on itself) is its own failure.
        let mut own = ends(None, None, CE, true);
        own.interactor_signal = Some(13);
        assert_eq!(decide(&own).status, CompareError);
        let mut crashed = ends(None, None, CE, false);
        crashed.interactor_signal = Some(11);
        assert_eq!(decide(&crashed).status, CompareError);
    }

    #[test]
    fn otherwise_the_interactor_decides_and_a_flood_is_an_output_limit() {
        let d = decide(&ends(None, None, AC, false));
        assert_eq!((d.status, d.score), (Accepted, Score::FULL));
        assert_eq!(decide(&ends(None, None, WA, false)).status, WrongAnswer);
        let mut flood = ends(None, None, WA, true);
        flood.output_capped = true;
        assert_eq!(decide(&flood).status, OutputLimitExceeded);
        // Past the limit only after a rejecting interactor left: the rejection.
        let mut late = ends(None, None, WA, true);
        late.output_capped_after_interactor = true;
        assert_eq!(decide(&late).status, WrongAnswer);
        // After an accepting one: the output limit.
        late.interactor = CompareOutcome::new(AC, "found");
        assert_eq!(decide(&late).status, OutputLimitExceeded);
    }
}
