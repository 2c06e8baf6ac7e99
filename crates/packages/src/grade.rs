//! A judged Submission back into the package's terms: the verdict and score of the format's
//! default grader over the test groups (first or worst error, `accept_score` /
//! `reject_score`, sum / avg / min / max, `range`, `on_reject`, `accept_if_any_accepted`,
//! `always_accept`, `ignore_sample`), a test case's score from its output validator when it
//! wrote one (`score.txt`, `score_multiplier.txt`: docs/packages.md, "Validator scores").

use crate::problem::{
    Aggregation, Expected, Group, GroupScoring, Item, Kind, Problem, ScoreAggregation, Settings,
    SpecScoring,
};
use verdict_contracts::{JudgeStatus, JudgeTaskResult, ValidatorScore};

/// The package format's verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// AC.
    Accepted,
    /// WA (presentation errors and partial marks of a test included).
    WrongAnswer,
    /// RTE (a crash, a non-zero exit, a memory or output limit).
    RunTimeError,
    /// TLE.
    TimeLimitExceeded,
    /// CE.
    CompileError,
    /// JE: the judge or the validator failed.
    JudgeError,
}

impl Verdict {
    /// The format's abbreviation.
    pub fn short(self) -> &'static str {
        match self {
            Verdict::Accepted => "AC",
            Verdict::WrongAnswer => "WA",
            Verdict::RunTimeError => "RTE",
            Verdict::TimeLimitExceeded => "TLE",
            Verdict::CompileError => "CE",
            Verdict::JudgeError => "JE",
        }
    }

    /// The verdict of a verdict status.
    pub fn of(status: JudgeStatus) -> Verdict {
        match status {
            JudgeStatus::Accepted => Verdict::Accepted,
            JudgeStatus::WrongAnswer
            | JudgeStatus::PresentationError
            | JudgeStatus::PartialCorrect => Verdict::WrongAnswer,
            JudgeStatus::TimeLimitExceeded => Verdict::TimeLimitExceeded,
            JudgeStatus::RuntimeError
            | JudgeStatus::SegmentationFault
            | JudgeStatus::FloatingPointError
            | JudgeStatus::MemoryLimitExceeded
            | JudgeStatus::OutputLimitExceeded => Verdict::RunTimeError,
            JudgeStatus::CompilationError => Verdict::CompileError,
            _ => Verdict::JudgeError,
        }
    }
}

/// A graded submission.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    /// The verdict.
    pub verdict: Verdict,
    /// The score (scoring problems).
    pub score: f64,
    /// The slowest test's CPU time, ms.
    pub max_time_ms: u64,
    /// The first failing test case, if any (`secret/03`).
    pub first_failure: Option<String>,
    /// The scores of `secret` and its test data groups (2025-09 scoring problems), by name.
    pub group_scores: Vec<(String, f64)>,
}

/// Grades a report whose results are the compile task (none for an answer set) then one per
/// test case, in `problem.data.cases()` order.
pub fn grade(problem: &Problem, results: &[JudgeTaskResult]) -> Graded {
    let (compile, tests) = crate::plan::split_results(problem, results);
    let max_time_ms = tests.iter().map(|r| r.run_time).max().unwrap_or(0);
    if let Some(compile) = compile
        && compile.status != JudgeStatus::Accepted
    {
        return Graded {
            verdict: Verdict::of(compile.status),
            score: 0.0,
            max_time_ms,
            first_failure: None,
            group_scores: Vec::new(),
        };
    }
    let names: Vec<&str> = problem
        .data
        .cases()
        .iter()
        .map(|(c, _)| c.name.as_str())
        .collect();
    let mut next = 0;
    let rules = Rules::of(problem, tests);
    let mut group_scores = Vec::new();
    let (verdict, score) = match &problem.spec_scoring {
        Some(spec) => grade_spec(problem, spec, tests, &mut group_scores),
        None => group(&problem.data, tests, &mut next, true, &rules),
    };
    let first_failure = tests
        .iter()
        .position(|r| r.status != JudgeStatus::Accepted)
        .and_then(|i| names.get(i).map(|n| (*n).to_owned()));
    Graded {
        verdict,
        score,
        max_time_ms,
        first_failure,
        group_scores,
    }
}

/// How many test cases a group holds (to skip them).
fn count(g: &Group) -> usize {
    g.cases().len()
}

/// What decides how a validator's score counts: the problem's kind and format; and the
/// groups that are scored only when others passed (`Problem::requires`), with the verdict of
/// the first rejected test case of each group.
struct Rules {
    kind: Kind,
    v2025: bool,
    /// The checker speaks testlib (Polygon): the points it gives (`points X`) are the test's
    /// score, as Polygon counts them.
    testlib_points: bool,
    requires: Vec<(String, Vec<String>)>,
    /// Each group's first rejected test case's verdict, `None` when all were accepted.
    failed: Vec<(String, Option<Verdict>)>,
}

impl Rules {
    fn of(problem: &Problem, tests: &[JudgeTaskResult]) -> Rules {
        let mut failed = Vec::new();
        if !problem.requires.is_empty() {
            let mut next = 0;
            first_failures(&problem.data, tests, &mut next, &mut failed);
        }
        Rules {
            kind: problem.kind,
            v2025: problem.format == "2025-09",
            testlib_points: problem.validator_protocol
                == verdict_contracts::CompareProtocol::Testlib,
            requires: problem.requires.clone(),
            failed,
        }
    }

    /// The verdict of a group's first unmet requirement, if one is unmet.
    fn unmet(&self, group: &str) -> Option<Verdict> {
        self.requires
            .iter()
            .filter(|(g, _)| g == group)
            .flat_map(|(_, names)| names)
            .find_map(|n| {
                self.failed
                    .iter()
                    .find(|(g, _)| g == n)
                    .and_then(|(_, v)| *v)
            })
    }
}

/// Each group's first rejected test case's verdict (`None`: all accepted), by name.
fn first_failures(
    g: &Group,
    tests: &[JudgeTaskResult],
    next: &mut usize,
    out: &mut Vec<(String, Option<Verdict>)>,
) -> Option<Verdict> {
    let mut first = None;
    for item in &g.items {
        let v = match item {
            Item::Case(_) => {
                let v = Verdict::of(
                    tests
                        .get(*next)
                        .map_or(JudgeStatus::SystemError, |r| r.status),
                );
                *next += 1;
                (v != Verdict::Accepted).then_some(v)
            }
            Item::Group(sub) => first_failures(sub, tests, next, out),
        };
        first = first.or(v);
    }
    out.push((g.name.clone(), first));
    first
}

/// A test case's verdict and score: a rejection scores `reject_score`; an acceptance its
/// validator's score when it wrote one (`score.txt` the score itself, `score_multiplier.txt`
/// times `accept_score`), else `accept_score`. A judge error, as the format says, when a
/// validator scores a test of a problem that is not scoring, exceeds a 2025-09 test's maximum
/// (`accept_score`), or writes no `score.txt` for a legacy `validation: custom score` problem;
/// a 2025-09 sample's score is ignored.
fn case_score(
    result: Option<&JudgeTaskResult>,
    s: &Settings,
    sample: bool,
    rules: &Rules,
) -> (Verdict, f64) {
    let status = result.map_or(JudgeStatus::SystemError, |r| r.status);
    let v = Verdict::of(status);
    let written = result.and_then(|r| r.validator_score);
    // A testlib checker's points are the test's score, a partial mark included; full marks
    // (its `accept_score`) or more are accepted (docs/packages.md, "Polygon").
    if let (true, true, Some(ValidatorScore::Score(points))) = (
        rules.testlib_points,
        matches!(status, JudgeStatus::Accepted | JudgeStatus::PartialCorrect),
        written,
    ) {
        let full = points + 1e-9 >= s.accept_score;
        return (
            if full {
                Verdict::Accepted
            } else {
                Verdict::WrongAnswer
            },
            points,
        );
    }
    if v != Verdict::Accepted {
        return (v, s.reject_score);
    }
    match written {
        _ if sample && rules.v2025 => (v, s.accept_score),
        Some(_) if !rules.kind.scoring && !rules.kind.custom_score => {
            (Verdict::JudgeError, s.reject_score)
        }
        Some(ValidatorScore::Score(x)) if rules.v2025 && x > s.accept_score + 1e-9 => {
            (Verdict::JudgeError, s.reject_score)
        }
        Some(ValidatorScore::Score(x)) => (v, x),
        Some(ValidatorScore::Multiplier(m)) => (v, m * s.accept_score),
        None if rules.kind.custom_score => (Verdict::JudgeError, s.reject_score),
        None => (v, s.accept_score),
    }
}

fn group(
    g: &Group,
    tests: &[JudgeTaskResult],
    next: &mut usize,
    root: bool,
    rules: &Rules,
) -> (Verdict, f64) {
    let s = &g.settings;
    // A group whose requirement failed scores nothing (Polygon's group dependencies): its
    // verdict is the failed requirement's.
    if let Some(v) = rules.unmet(&g.name) {
        *next += count(g);
        return (v, 0.0);
    }
    let mut children: Vec<(Verdict, f64)> = Vec::new();
    let mut stopped = false;
    for item in &g.items {
        match item {
            Item::Group(sub) if root && s.ignore_sample && sub.name == "sample" => {
                *next += count(sub);
            }
            Item::Group(sub) if stopped => *next += count(sub),
            Item::Case(_) if stopped => *next += 1,
            Item::Group(sub) => {
                let r = group(sub, tests, next, false, rules);
                stopped = s.break_on_reject && r.0 != Verdict::Accepted;
                children.push(r);
            }
            Item::Case(_) => {
                let sample = g.name == "sample" || g.name.starts_with("sample/");
                let (v, score) = case_score(tests.get(*next), s, sample, rules);
                *next += 1;
                stopped = s.break_on_reject && v != Verdict::Accepted;
                children.push((v, score));
            }
        }
    }
    let failing = children
        .iter()
        .map(|c| c.0)
        .filter(|v| *v != Verdict::Accepted);
    let mut verdict = if s.worst_error {
        failing.max().unwrap_or(Verdict::Accepted)
    } else {
        children
            .iter()
            .map(|c| c.0)
            .find(|v| *v != Verdict::Accepted)
            .unwrap_or(Verdict::Accepted)
    };
    if s.always_accept
        || (s.accept_if_any_accepted && children.iter().any(|c| c.0 == Verdict::Accepted))
    {
        verdict = Verdict::Accepted;
    }
    let scores: Vec<f64> = children.iter().map(|c| c.1).collect();
    let mut score = match (s.aggregation, scores.is_empty()) {
        (_, true) => 0.0,
        (Aggregation::Sum, _) => scores.iter().sum(),
        (Aggregation::Avg, _) => scores.iter().sum::<f64>() / scores.len() as f64,
        (Aggregation::Min, _) => scores.iter().copied().fold(f64::INFINITY, f64::min),
        (Aggregation::Max, _) => scores.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    };
    if let Some((lo, hi)) = s.range {
        score = score.clamp(lo, hi);
    }
    (verdict, score)
}

/// The 2025-09 grade ("Result aggregation"): a test case in a `sum` or `min` group scores its
/// validator's `score.txt`, its `score_multiplier.txt` times the case's maximum (a `min`
/// group's `max_score`, a `sum` group's `max_score / N`), else that maximum; a `pass-fail`
/// group scores its `max_score` when every case is accepted; a group scores 0, its cases not
/// accepted, when a group its `require_pass` names was not all accepted; `secret` aggregates its
/// groups (or scores as one when it has none). A judge error, as the specification lists: a
/// score in a `pass-fail` group, a multiplier or no `score.txt` in an unbounded one, a score
/// over its maximum, a group or `secret` over its `max_score`. The verdict is the first
/// rejected test case's (JE before all), the samples' included; their scores are ignored.
fn grade_spec(
    problem: &Problem,
    spec: &SpecScoring,
    tests: &[JudgeTaskResult],
    group_scores: &mut Vec<(String, f64)>,
) -> (Verdict, f64) {
    let cases = problem.data.cases();
    let under = |group: &str, name: &str| {
        name.strip_prefix(group)
            .is_some_and(|rest| rest.starts_with('/'))
    };
    let verdict_of =
        |i: usize| Verdict::of(tests.get(i).map_or(JudgeStatus::SystemError, |r| r.status));
    let indices = |group: &str| -> Vec<usize> {
        (0..cases.len())
            .filter(|&i| under(group, &cases[i].0.name))
            .collect()
    };
    // Accepted on every test case, none withheld (a withheld case is not accepted).
    let passed = |group: &str, skipped: &[bool]| {
        indices(group)
            .into_iter()
            .all(|i| !skipped[i] && verdict_of(i) == Verdict::Accepted)
    };
    let unmet = |group: &str, skipped: &[bool]| {
        problem
            .requires
            .iter()
            .filter(|(g, _)| g == group)
            .flat_map(|(_, names)| names)
            .any(|n| !passed(n, skipped))
    };
    let mut judge_error = false;
    let mut skipped = vec![false; cases.len()];
    // A group of test cases: its score (a judge error flagged). Groups are graded in order,
    // and `require_pass` names earlier ones only.
    let unit = |g: &GroupScoring, judge_error: &mut bool, skipped: &mut [bool]| -> f64 {
        let members = indices(&g.name);
        if unmet(&g.name, skipped) {
            for &i in &members {
                skipped[i] = true;
            }
            return 0.0;
        }
        let n = members.len().max(1) as f64;
        let case_max = match g.aggregation {
            ScoreAggregation::Sum => g.max_score.map(|m| m / n),
            ScoreAggregation::Min | ScoreAggregation::PassFail => g.max_score,
        };
        let mut scores = Vec::new();
        for &i in &members {
            if verdict_of(i) != Verdict::Accepted {
                scores.push(0.0);
                continue;
            }
            let written = tests.get(i).and_then(|r| r.validator_score);
            let score = match (g.aggregation, written, case_max) {
                (ScoreAggregation::PassFail, Some(_), _) => None,
                (_, None, Some(m)) => Some(m),
                (_, None, None) => None,
                (_, Some(ValidatorScore::Score(x)), Some(m)) if x > m + 1e-9 => None,
                (_, Some(ValidatorScore::Score(x)), _) => Some(x),
                (_, Some(ValidatorScore::Multiplier(k)), Some(m)) => Some(k * m),
                (_, Some(ValidatorScore::Multiplier(_)), None) => None,
            };
            match score {
                Some(x) => scores.push(x),
                None => {
                    *judge_error = true;
                    scores.push(0.0);
                }
            }
        }
        let all_accepted = members.iter().all(|&i| verdict_of(i) == Verdict::Accepted);
        let score = aggregate(g.aggregation, &scores, all_accepted, g.max_score);
        if g.max_score.is_some_and(|m| score > m + 1e-9) {
            *judge_error = true;
        }
        score
    };
    let score = if unmet("secret", &skipped) {
        for (i, (c, _)) in cases.iter().enumerate() {
            skipped[i] = under("secret", &c.name);
        }
        0.0
    } else if spec.groups.is_empty() {
        unit(&spec.secret, &mut judge_error, &mut skipped)
    } else {
        let mut scores = Vec::new();
        for g in &spec.groups {
            let score = unit(g, &mut judge_error, &mut skipped);
            group_scores.push((g.name.clone(), score));
            scores.push(score);
        }
        let all_accepted = passed("secret", &skipped);
        let score = aggregate(
            spec.secret.aggregation,
            &scores,
            all_accepted,
            spec.secret.max_score,
        );
        if spec.secret.max_score.is_some_and(|m| score > m + 1e-9) {
            judge_error = true;
        }
        score
    };
    group_scores.insert(0, ("secret".to_owned(), score));
    if judge_error {
        return (Verdict::JudgeError, 0.0);
    }
    let verdict = (0..cases.len())
        .filter(|&i| !skipped[i])
        .map(verdict_of)
        .find(|v| *v != Verdict::Accepted)
        .unwrap_or(Verdict::Accepted);
    (verdict, score)
}

/// A 2025-09 aggregation of scores: `pass-fail` is the maximum when all were accepted.
fn aggregate(how: ScoreAggregation, scores: &[f64], all_accepted: bool, max: Option<f64>) -> f64 {
    match how {
        ScoreAggregation::PassFail if all_accepted => max.unwrap_or(0.0),
        ScoreAggregation::PassFail => 0.0,
        ScoreAggregation::Sum => scores.iter().sum(),
        ScoreAggregation::Min if scores.is_empty() => 0.0,
        ScoreAggregation::Min => scores.iter().copied().fold(f64::INFINITY, f64::min),
    }
}

/// Whether a graded submission of `problem` is what its directory claims: [`agrees`] with
/// the problem's full score; for a 2025-09 scoring problem (its [`Problem::spec_scoring`], or
/// a 2025-09 package graded by the older keys, as the specification's own `scoring` example
/// is) that specification's directories: `accepted` every test case accepted,
/// `partially_accepted` a score strictly between 0 and the full score (any positive one when
/// unbounded), neither a compile nor a judge error.
pub fn agrees_for(problem: &Problem, expected: Expected, graded: &Graded) -> bool {
    let max = max_score(problem);
    let v2025 = problem.spec_scoring.is_some() || problem.format == "2025-09";
    if !v2025 || !problem.kind.scoring {
        return agrees(expected, graded, problem.kind.scoring, max);
    }
    let v = graded.verdict;
    match expected {
        Expected::Accepted => v == Verdict::Accepted,
        Expected::PartiallyAccepted => {
            !matches!(v, Verdict::CompileError | Verdict::JudgeError)
                && graded.score > 1e-9
                && graded.score < max - 1e-9
        }
        other => agrees(other, graded, true, max),
    }
}

/// Whether a graded submission is what its directory claims (`max_score`: the problem's full
/// score, for scoring problems).
pub fn agrees(expected: Expected, graded: &Graded, scoring: bool, max_score: f64) -> bool {
    let v = graded.verdict;
    match expected {
        Expected::Accepted => {
            v == Verdict::Accepted && (!scoring || (graded.score - max_score).abs() < 1e-9)
        }
        Expected::PartiallyAccepted => {
            v == Verdict::Accepted && graded.score > 1e-9 && graded.score < max_score - 1e-9
        }
        Expected::WrongAnswer => v == Verdict::WrongAnswer,
        Expected::TimeLimitExceeded => v == Verdict::TimeLimitExceeded,
        Expected::RunTimeError => v == Verdict::RunTimeError,
        Expected::SlowAccepted => matches!(v, Verdict::Accepted | Verdict::TimeLimitExceeded),
        Expected::Rejected => !matches!(v, Verdict::Accepted | Verdict::JudgeError),
        // Its `submissions.yaml` rules decide (`unmet_requirements`); a judge error never agrees.
        Expected::Custom => v != Verdict::JudgeError,
    }
}

/// A problem's full score: the score of a submission accepted on every test case (the root's
/// `range` and every group's aggregation applied: an all-or-nothing group counts once). A
/// validator that scores tests may give more where nothing bounds it (legacy and 2023-07 have
/// no maximum per test): the root's `range`, when set, is then the bound that counts. A
/// 2025-09 scoring problem's is `secret`'s `max_score` (infinite when unbounded).
pub fn max_score(problem: &Problem) -> f64 {
    if let Some(spec) = &problem.spec_scoring {
        return spec.secret.max_score.unwrap_or(f64::INFINITY);
    }
    let all =
        vec![JudgeTaskResult::with_status(JudgeStatus::Accepted, ""); problem.data.cases().len()];
    let mut next = 0;
    let rules = Rules {
        kind: Kind {
            custom_score: false,
            ..problem.kind
        },
        v2025: false,
        testlib_points: false,
        requires: Vec::new(),
        failed: Vec::new(),
    };
    group(&problem.data, &all, &mut next, true, &rules).1
}

/// Each requirement of `submissions/submissions.yaml` on `reference` that its graded run
/// (`results`: the compile task, if any, then one per test case as for [`grade`]) does not meet, in
/// words; empty when all hold. `permitted` and `required` read each test case's verdict (`AC`,
/// `WA`, `TLE`, `RTE`; a compile error or a test not run is none of them), `score` the
/// submission's score or, scoped, its group's (`secret` or a 2025-09 test data group).
pub fn unmet_requirements(
    problem: &Problem,
    reference: &crate::Reference,
    graded: &Graded,
    results: &[JudgeTaskResult],
) -> Vec<String> {
    let (compile, tests) = crate::plan::split_results(problem, results);
    let compiled = compile.is_none_or(|r| r.status == JudgeStatus::Accepted);
    let cases = problem.data.cases();
    let mut out = Vec::new();
    for req in &reference.requirements {
        let verdicts: Vec<(&str, &str)> = cases
            .iter()
            .enumerate()
            .filter(|(_, (c, _))| {
                req.cases
                    .as_deref()
                    .is_none_or(|g| crate::kattis::expectations::matches(g, &c.name))
            })
            .map(|(i, (c, _))| {
                let v = match tests.get(i) {
                    Some(r) if compiled => Verdict::of(r.status).short(),
                    _ if !compiled => "CE",
                    _ => "-",
                };
                (c.name.as_str(), v)
            })
            .collect();
        if let Some(permitted) = &req.permitted
            && let Some((case, v)) = verdicts
                .iter()
                .find(|(_, v)| !permitted.iter().any(|p| p == v))
        {
            out.push(format!(
                "{}: permitted [{}], {case} got {v}",
                req.source,
                permitted.join(", ")
            ));
        }
        if let Some(required) = &req.required
            && !verdicts
                .iter()
                .any(|(_, v)| required.iter().any(|r| r == v))
        {
            out.push(format!(
                "{}: required one of [{}] on {} test cases, none got it",
                req.source,
                required.join(", "),
                verdicts.len()
            ));
        }
        if let Some(message) = &req.message {
            let said = cases.iter().enumerate().any(|(i, (c, _))| {
                req.cases
                    .as_deref()
                    .is_none_or(|g| crate::kattis::expectations::matches(g, &c.name))
                    && compiled
                    && tests
                        .get(i)
                        .is_some_and(|r| r.error_log.contains(message.as_str()))
            });
            if !said {
                out.push(format!(
                    "{}: message {message:?} is in the validator's message of no test case",
                    req.source
                ));
            }
        }
        if let Some((lo, hi)) = req.score {
            let got = match &req.cases {
                None => Some(graded.score),
                Some(g) => graded
                    .group_scores
                    .iter()
                    .find(|(name, _)| name == g)
                    .map(|(_, s)| *s),
            };
            match got {
                Some(x) if x >= lo - 1e-9 && x <= hi + 1e-9 => {}
                Some(x) => out.push(format!(
                    "{}: score {x}, expected {}",
                    req.source,
                    if lo == hi {
                        format!("{lo}")
                    } else {
                        format!("in [{lo}, {hi}]")
                    }
                )),
                None => out.push(format!(
                    "{}: no score for that group (only secret and 2025-09 test data groups have one)",
                    req.source
                )),
            }
        }
    }
    out
}
