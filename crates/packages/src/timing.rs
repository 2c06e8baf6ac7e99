//! Which runs bound the time limit (2025-09 "Timelimit inference"), and the limit they give.
//!
//! Every rule that applies to a reference on a test case (its directory's default rule and the
//! rules of `submissions.yaml` whose globs match both) may make that case's run a bound:
//! - **lower**: a rule whose `permitted` leaves out `TLE` (`accepted`, `wrong_answer`,
//!   `run_time_error` by default), or `use_for_time_limit: lower`. The limit must be at least
//!   the slowest such run times `ac_to_time_limit`.
//! - **upper**: a rule whose `required` is exactly `[TLE]` (`time_limit_exceeded` by default),
//!   or `use_for_time_limit: upper`. Such a reference must time out on one of those cases when
//!   judged at the limit times `time_limit_to_tle`.
//!
//! `use_for_time_limit: false` takes its rule out of both. Legacy packages (and Polygon's, whose
//! limit is the setter's) keep their own rule: the accepted references bound it from below and
//! the time-limit-exceeded ones from above.

use crate::problem::{Expected, Problem, Reference, Requirement, TimeLimitUse};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};

/// The test cases (in `problem.data.cases()` order) on which a reference's runs bound the time
/// limit from below and from above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// The cases whose run time must stay under the limit over `ac_to_time_limit`.
    pub lower: Vec<bool>,
    /// The cases of which one must time out at the limit times `time_limit_to_tle`.
    pub upper: Vec<bool>,
}

impl Bounds {
    /// Whether some case bounds the limit from below.
    pub fn any_lower(&self) -> bool {
        self.lower.iter().any(|&b| b)
    }

    /// Whether some case bounds the limit from above.
    pub fn any_upper(&self) -> bool {
        self.upper.iter().any(|&b| b)
    }

    /// Whether every case bounds it from below and none from above: a run judged to derive the
    /// limit is then the reference's whole judgement.
    pub fn only_lower(&self) -> bool {
        self.lower.iter().all(|&b| b) && !self.any_upper()
    }
}

/// How `rule` bounds the limit: (lower, upper).
fn roles(
    permitted: Option<&[String]>,
    required: Option<&[String]>,
    used: Option<TimeLimitUse>,
) -> (bool, bool) {
    match used {
        Some(TimeLimitUse::Not) => (false, false),
        Some(TimeLimitUse::Lower) => (true, false),
        Some(TimeLimitUse::Upper) => (false, true),
        None => (
            permitted.is_some_and(|p| !p.iter().any(|v| v == "TLE")),
            required.is_some_and(|r| !r.is_empty() && r.iter().all(|v| v == "TLE")),
        ),
    }
}

/// Whether `problem` keeps the legacy rule (legacy and Polygon packages): its accepted
/// references, when accepted, bound the limit from below and its time_limit_exceeded ones from
/// above.
pub fn legacy_rule(problem: &Problem) -> bool {
    matches!(problem.format.as_str(), "legacy" | "polygon")
}

/// Where `reference`'s runs bound the time limit of `problem`.
pub fn bounds(problem: &Problem, reference: &Reference) -> Bounds {
    let cases = problem.data.cases();
    let mut out = Bounds {
        lower: vec![false; cases.len()],
        upper: vec![false; cases.len()],
    };
    if legacy_rule(problem) {
        let (lower, upper) = match reference.expected {
            // problemtools derives a legacy limit from `accepted` alone: a
            // `partially_accepted` reference may be far slower (docs/packages.md).
            Expected::Accepted => (true, false),
            Expected::TimeLimitExceeded => (false, true),
            _ => (false, false),
        };
        out.lower.fill(lower);
        out.upper.fill(upper);
        return out;
    }
    let words = |w: &[&str]| w.iter().map(|v| (*v).to_owned()).collect::<Vec<String>>();
    // The directory's own rule, unless submissions.yaml replaced it (the reference is then
    // held to that rule, which is among its requirements, as a custom directory's).
    let directory = (reference.expected != Expected::Custom).then(|| {
        let (permitted, required) = reference.expected.default_rule();
        (permitted.map(words), required.map(words))
    });
    let mut apply = |cases_glob: Option<&str>, (lower, upper): (bool, bool)| {
        for (i, (case, _)) in cases.iter().enumerate() {
            if cases_glob.is_none_or(|g| crate::kattis::expectations::matches(g, &case.name)) {
                out.lower[i] |= lower;
                out.upper[i] |= upper;
            }
        }
    };
    if let Some((permitted, required)) = &directory {
        apply(None, roles(permitted.as_deref(), required.as_deref(), None));
    }
    for Requirement {
        cases,
        permitted,
        required,
        use_for_time_limit,
        ..
    } in &reference.requirements
    {
        apply(
            cases.as_deref(),
            roles(
                permitted.as_deref(),
                required.as_deref(),
                *use_for_time_limit,
            ),
        );
    }
    out
}

/// What a judged run says of the bounds: the slowest run of a lower case, and of the upper
/// cases their slowest run and whether one of them timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoundTimes {
    /// The slowest run (CPU ms) of a case that bounds the limit from below, if one ran.
    pub lower_ms: Option<u64>,
    /// The slowest run (CPU ms) of a case that bounds it from above, if one ran.
    pub upper_ms: Option<u64>,
    /// One of the upper cases timed out.
    pub upper_timed_out: bool,
}

/// The bound times of one judged run (`results` as [`crate::grade::grade`] reads them).
pub fn bound_times(problem: &Problem, bounds: &Bounds, results: &[JudgeTaskResult]) -> BoundTimes {
    let (_, tests) = crate::plan::split_results(problem, results);
    let mut out = BoundTimes::default();
    for (i, r) in tests.iter().enumerate() {
        // A test not run (skipped after a rejection, compile failed) measured nothing.
        if matches!(
            r.status,
            JudgeStatus::DependencyNotSatisfied | JudgeStatus::Pending | JudgeStatus::Running
        ) {
            continue;
        }
        let ms = r.run_time;
        if bounds.lower.get(i) == Some(&true) {
            out.lower_ms = Some(out.lower_ms.map_or(ms, |m| m.max(ms)));
        }
        if bounds.upper.get(i) == Some(&true) {
            out.upper_ms = Some(out.upper_ms.map_or(ms, |m| m.max(ms)));
            out.upper_timed_out |= r.status == JudgeStatus::TimeLimitExceeded;
        }
    }
    out
}

/// The slowest run of `results` that bounds the limit from below, graded `verdict`: any such
/// run, except in a legacy package, where an accepted reference counts only when accepted.
pub fn lower_bound_ms(
    problem: &Problem,
    bounds: &Bounds,
    results: &[JudgeTaskResult],
    verdict: crate::grade::Verdict,
) -> Option<u64> {
    if legacy_rule(problem) && verdict != crate::grade::Verdict::Accepted {
        return None;
    }
    bound_times(problem, bounds, results).lower_ms
}

/// The limit derived from the slowest lower-bound run: the smallest whole multiple of the
/// resolution at least `slowest_ms * ac_to_time_limit` (one resolution at least).
pub fn derived_limit_ms(problem: &Problem, slowest_ms: u64) -> u64 {
    let resolution = problem.time_resolution_ms.max(1);
    let exact = slowest_ms as f64 * problem.ac_to_time_limit;
    let steps = (exact / resolution as f64 - 1e-9).ceil().max(1.0) as u64;
    steps * resolution
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::{Case, Group, Item, Kind, Settings};
    use std::path::PathBuf;

    fn problem(format: &str) -> Problem {
        let case = |name: &str| {
            Item::Case(Case {
                name: name.into(),
                input: PathBuf::new(),
                answer: None,
                config: Default::default(),
            })
        };
        Problem {
            dir: PathBuf::new(),
            short_name: "p".into(),
            format: format.into(),
            kind: Kind::default(),
            time_limit_ms: None,
            ac_to_time_limit: 2.0,
            time_limit_to_tle: 1.5,
            time_resolution_ms: 1000,
            memory_mib: 2048,
            output_mib: 8,
            validation_passes: 2,
            data: Group {
                name: String::new(),
                settings: Settings::default(),
                items: vec![case("sample/1"), case("secret/a"), case("secret/b")],
            },
            output_validator: None,
            validator_protocol: verdict_contracts::CompareProtocol::Kattis,
            input_valid_exit: 42,
            input_validators: Vec::new(),
            submissions: Vec::new(),
            spec_scoring: None,
            requires: Vec::new(),
        }
    }

    fn reference(expected: Expected, requirements: Vec<Requirement>) -> Reference {
        Reference {
            name: format!("{}/x.py", expected.dir()),
            expected,
            program: Err("not needed".into()),
            requirements,
        }
    }

    fn rule(cases: Option<&str>, used: Option<TimeLimitUse>) -> Requirement {
        Requirement {
            source: "r".into(),
            cases: cases.map(str::to_owned),
            permitted: None,
            required: None,
            score: None,
            message: None,
            replaces_directory: false,
            use_for_time_limit: used,
        }
    }

    #[test]
    fn default_directories_bound_the_limit_as_the_2025_09_table_says() {
        let p = problem("2025-09");
        let all = vec![true; 3];
        let none = vec![false; 3];
        for (expected, lower, upper) in [
            (Expected::Accepted, &all, &none),
            (Expected::WrongAnswer, &all, &none),
            (Expected::RunTimeError, &all, &none),
            (Expected::TimeLimitExceeded, &none, &all),
            (Expected::Rejected, &none, &none),
        ] {
            let b = bounds(&p, &reference(expected, Vec::new()));
            assert_eq!((&b.lower, &b.upper), (lower, upper), "{expected:?}");
        }
        // Legacy: the accepted references alone from below.
        let legacy = problem("legacy");
        let b = bounds(&legacy, &reference(Expected::WrongAnswer, Vec::new()));
        assert!(!b.any_lower());
    }

    #[test]
    fn a_legacy_partially_accepted_reference_does_not_set_the_derived_limit() {
        let legacy = problem("legacy");
        let b = bounds(&legacy, &reference(Expected::PartiallyAccepted, Vec::new()));
        assert!(!b.any_lower() && !b.any_upper());
        let b = bounds(&legacy, &reference(Expected::Accepted, Vec::new()));
        assert!(b.any_lower());
    }

    #[test]
    fn use_for_time_limit_opts_a_rule_out_or_in_on_its_cases() {
        let p = problem("2025-09");
        // A custom directory: lower on the samples, upper on the secret cases (BAPCtools' tle).
        let r = reference(
            Expected::Custom,
            vec![
                rule(Some("sample"), Some(TimeLimitUse::Lower)),
                rule(Some("secret"), Some(TimeLimitUse::Upper)),
            ],
        );
        let b = bounds(&p, &r);
        assert_eq!(b.lower, vec![true, false, false]);
        assert_eq!(b.upper, vec![false, true, true]);
        // The directory's rule replaced with `use_for_time_limit: false`: no bound at all.
        let mut off = rule(None, Some(TimeLimitUse::Not));
        off.permitted = Some(vec!["AC".into(), "WA".into()]);
        off.replaces_directory = true;
        let b = bounds(&p, &reference(Expected::Custom, vec![off]));
        assert!(!b.any_lower() && !b.any_upper());
        // `required: [TLE, RTE]` is no upper bound; `required: [TLE]` is.
        let mut either = rule(None, None);
        either.required = Some(vec!["TLE".into(), "RTE".into()]);
        assert!(!bounds(&p, &reference(Expected::Custom, vec![either])).any_upper());
    }

    #[test]
    fn a_derived_limit_is_a_whole_multiple_of_the_resolution() {
        let mut p = problem("2025-09");
        assert_eq!(derived_limit_ms(&p, 0), 1000);
        assert_eq!(derived_limit_ms(&p, 500), 1000);
        assert_eq!(derived_limit_ms(&p, 501), 2000);
        p.time_resolution_ms = 100;
        assert_eq!(derived_limit_ms(&p, 501), 1100);
        assert_eq!(derived_limit_ms(&p, 350), 700);
    }
}
