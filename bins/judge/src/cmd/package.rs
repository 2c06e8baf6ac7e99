//! `judge package DIR`: a problem package's reference submissions as Submissions (JSON Lines);
//! `judge package verify DIR`: judge each one and check it gets the verdict its directory
//! claims, run the input validators on every input, and report the time-limit margins
//! (docs/packages.md). Exit 1 on any disagreement.

use super::config::{ConfigArgs, print_json};
use anyhow::Context;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use verdict_contracts::{
    CheckScript, CompareScript, DependsCond, JudgeStatus, JudgeTask, JudgeTaskResult, Program,
    RunScript, Submission,
};
use verdict_packages::grade::{self, Graded};
use verdict_packages::timing::{self, Bounds};
use verdict_packages::{Problem, Reference, plan, polygon};
use verdict_scheduler::Judge;
use verdict_scripts::LanguageProfiles;

/// Arguments of `judge package`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub verify: Option<Action>,
    /// The package directory (prints one Submission per reference submission, JSON Lines).
    pub dir: Option<PathBuf>,
    /// The time limit in ms, when the package gives none.
    #[arg(long)]
    pub time_limit: Option<u64>,
}

/// What to do with the package.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Judge every reference submission, run the input validators, check the time-limit margins.
    Verify(VerifyArgs),
}

/// Arguments of `judge package verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The package directory.
    pub dir: PathBuf,
    /// The time limit in ms (default: the package's, else derived from the runs that bound it).
    #[arg(long)]
    pub time_limit: Option<u64>,
    /// Print the result as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn load(dir: &Path) -> anyhow::Result<Problem> {
    polygon::load_any(dir).with_context(|| format!("cannot read the package {}", dir.display()))
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(Action::Verify(v)) = args.verify {
        return verify(v);
    }
    let dir = args
        .dir
        .context("judge package DIR, or judge package verify DIR")?;
    let problem = load(&dir)?;
    let tl = args.time_limit.or(problem.time_limit_ms).with_context(|| {
        format!(
            "{}: the package sets no time limit (limits.time_limit); pass --time-limit MS, or run `judge package verify`, which derives it",
            dir.join("problem.yaml").display()
        )
    })?;
    for reference in &problem.submissions {
        match &reference.program {
            Ok(program) => {
                let s = plan::submission(&problem, program, &reference.name, tl)?;
                print_json(&s, false)?;
            }
            Err(reason) => tracing::warn!("{}: skipped: {reason}", reference.name),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The `language` of a row whose reference is a submit-answer problem's answer files.
const ANSWERS: &str = "answers";

/// One reference submission's row.
#[derive(Debug, Serialize)]
struct Row {
    submission: String,
    /// The program's language, when verdict knows it; `answers` for a submit-answer
    /// problem's answer files.
    language: Option<&'static str>,
    /// The directory under `submissions/` (its claim: a default one, or the package's own).
    expected: String,
    /// The package's verdict (AC, WA, TLE, RTE, CE, JE), `-` when skipped.
    verdict: String,
    score: Option<f64>,
    max_time_ms: u64,
    time_limit_ms: u64,
    first_failure: Option<String>,
    /// Not judged here (a language verdict does not judge, a toolchain not installed).
    skipped: bool,
    agrees: bool,
    note: String,
}

/// One input validator on one input.
#[derive(Debug, Serialize)]
struct InputCheck {
    validator: String,
    case: String,
    valid: bool,
    /// Not run (a checktestdata or viva script, a toolchain not installed): `case` is `*`.
    skipped: bool,
    note: String,
}

/// The format's time-limit margins, checked (the runs that bound the limit: see
/// `verdict_packages::timing`; legacy packages: the accepted and time_limit_exceeded ones).
#[derive(Debug, Serialize)]
struct Margins {
    /// The limit is at least this times the slowest run that bounds it from below.
    ac_to_time_limit: f64,
    /// That slowest run (CPU ms): of an accepted reference, or any run that bounds the limit
    /// from below (2025-09: a rule that does not permit TLE, or `use_for_time_limit: lower`).
    slowest_accepted_ms: u64,
    /// `slowest_accepted_ms * ac_to_time_limit <= time_limit_ms`.
    ac_ok: bool,
    /// A reference that bounds the limit from above must still time out at this times the limit.
    time_limit_to_tle: f64,
    /// The limit they were judged at.
    tle_judged_at_ms: u64,
    /// The fastest such reference's slowest bounding test (CPU ms), if any.
    fastest_tle_ms: Option<u64>,
    /// Every reference that bounds the limit from above timed out at `tle_judged_at_ms`.
    tle_ok: bool,
}

/// The whole self-check.
#[derive(Debug, Serialize)]
struct VerifyReport {
    problem: String,
    format: String,
    time_limit_ms: u64,
    time_limit_derived: bool,
    margins: Margins,
    submissions: Vec<Row>,
    input_validation: Vec<InputCheck>,
    agrees: bool,
}

/// The time limit accepted runs are first judged at when the package gives none.
const DERIVING_MS: u64 = 10_000;

fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let problem = load(&args.dir)?;
    let config = args.config.load_for_judging()?;
    let profiles = LanguageProfiles::from_toml(
        verdict_scripts::language::BUILTIN_PROFILES,
        config.languages.as_ref(),
    )?;
    // Why a program cannot be judged on this host (its toolchain is not installed), if so.
    let not_here = |program: &Program| -> Option<String> {
        let language = program.source().language;
        let profile = profiles.get(language)?;
        let missing = verdict_scripts::missing_programs(profile);
        (!missing.is_empty())
            .then(|| verdict_scripts::not_installed_message(language, profile, &missing))
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    // The input validators are the problem's own programs, judged here as submissions: they
    // compile under the limits of the problem's programs, not a submission's (a testlib
    // validator takes ~8 s of CPU at -O2).
    let mut validator_config = config.clone();
    let problem_limits = config.compile.problem_limits();
    validator_config.compile.time_ms = problem_limits.cpu_time_ms;
    validator_config.compile.wall_ms = problem_limits.wall_time_ms;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    let judge_one = |s: Submission| runtime.block_on(judge.judge(s));
    let judgeable = |r: &Reference| -> Result<Program, String> {
        let program = r.program.clone()?;
        match not_here(&program) {
            Some(reason) => Err(reason),
            None => Ok(program),
        }
    };

    // The time limit: given, the package's, or the slowest run that bounds it from below times
    // the multiplier, rounded up to a whole multiple of the resolution (the format's rule). A
    // reference whose every test bounds it from below is graded from that run (the margin then
    // holds by construction, as in problemtools); the others are judged again below.
    let bounds: Vec<Bounds> = problem
        .submissions
        .iter()
        .map(|r| timing::bounds(&problem, r))
        .collect();
    let mut first_pass: Vec<Option<(Graded, Vec<JudgeTaskResult>)>> =
        vec![None; problem.submissions.len()];
    // The lower bound each reference gave when the limit was derived from it: the margin is
    // checked against that run, not a second one that may be a few ms slower.
    let mut derived_from: Vec<Option<u64>> = vec![None; problem.submissions.len()];
    let mut derived = false;
    let time_limit_ms = match args.time_limit.or(problem.time_limit_ms) {
        Some(t) => t,
        None => {
            derived = true;
            let mut slowest = 0;
            for (i, r) in problem.submissions.iter().enumerate() {
                if !bounds[i].any_lower() {
                    continue;
                }
                if let Ok(program) = judgeable(r) {
                    let mut s = plan::submission(&problem, &program, &r.name, DERIVING_MS)?;
                    // Tests that bound nothing are not needed here: cut short (judged again).
                    if !bounds[i].only_lower() {
                        plan::time_limits(&problem, &mut s, |case| {
                            if bounds[i].lower[case] {
                                DERIVING_MS
                            } else {
                                1
                            }
                        });
                    }
                    let results = judge_one(s).results;
                    let g = grade::grade(&problem, &results);
                    let lower = timing::lower_bound_ms(&problem, &bounds[i], &results, g.verdict);
                    slowest = slowest.max(lower.unwrap_or(0));
                    derived_from[i] = lower;
                    if bounds[i].only_lower() {
                        first_pass[i] = Some((g, results));
                    }
                }
            }
            timing::derived_limit_ms(&problem, slowest)
        }
    };
    let tle_judged_at_ms = (time_limit_ms as f64 * problem.time_limit_to_tle).ceil() as u64;
    let mut rows = Vec::new();
    let mut slowest_lower = 0;
    let mut fastest_tle: Option<u64> = None;
    let mut tle_ok = true;
    for (i, r) in problem.submissions.iter().enumerate() {
        let program = match judgeable(r) {
            Ok(p) => p,
            Err(reason) => {
                rows.push(Row {
                    submission: r.name.clone(),
                    language: r
                        .program
                        .as_ref()
                        .ok()
                        .map(|p| p.source().language.as_str()),
                    expected: r.directory().to_owned(),
                    verdict: "-".into(),
                    score: None,
                    max_time_ms: 0,
                    time_limit_ms,
                    first_failure: None,
                    skipped: true,
                    agrees: true,
                    note: format!("skipped: {reason}"),
                });
                continue;
            }
        };
        // A reference that bounds the limit from above must still be over it times the margin.
        let upper = bounds[i].any_upper();
        let tl = if upper {
            tle_judged_at_ms
        } else {
            time_limit_ms
        };
        let reused = first_pass[i].is_some();
        let (g, results) = match first_pass[i].take() {
            Some(done) => done,
            None => {
                let mut s = plan::submission(&problem, &program, &r.name, tl)?;
                // submissions.yaml's permitted / required read every test case's verdict.
                if !r.requirements.iter().any(|q| q.reads_every_case()) {
                    plan::lazy(&problem, &mut s);
                }
                let results = judge_one(s).results;
                (grade::grade(&problem, &results), results)
            }
        };
        let unmet = grade::unmet_requirements(&problem, r, &g, &results);
        let agrees = grade::agrees_for(&problem, r.expected, &g) && unmet.is_empty();
        let times = timing::bound_times(&problem, &bounds[i], &results);
        let lower = derived_from[i]
            .or_else(|| timing::lower_bound_ms(&problem, &bounds[i], &results, g.verdict));
        if let Some(ms) = lower {
            slowest_lower = slowest_lower.max(ms);
        }
        let mut note = String::new();
        if upper {
            if times.upper_timed_out {
                let ms = times.upper_ms.unwrap_or(0);
                fastest_tle = Some(fastest_tle.map_or(ms, |f| f.min(ms)));
            } else {
                tle_ok = false;
                note = format!(
                    "not over {}x the time limit ({tl} ms)",
                    problem.time_limit_to_tle
                );
            }
        }
        if !unmet.is_empty() {
            note = unmet.join("; ");
        } else if !agrees && note.is_empty() {
            note = first_log(&results);
        }
        rows.push(Row {
            submission: r.name.clone(),
            language: Some(if plan::is_answers(&problem, &program) {
                ANSWERS
            } else {
                program.source().language.as_str()
            }),
            expected: r.directory().to_owned(),
            verdict: g.verdict.short().into(),
            score: problem.kind.scoring.then_some(g.score),
            max_time_ms: g.max_time_ms,
            time_limit_ms: if reused { DERIVING_MS } else { tl },
            first_failure: g.first_failure.clone(),
            skipped: false,
            agrees,
            note,
        });
    }
    let ac_ok = (slowest_lower as f64) * problem.ac_to_time_limit <= time_limit_ms as f64;
    let input_validation = if problem.input_validators.is_empty() {
        Vec::new()
    } else {
        let validators = Judge::new(validator_config).context("cannot set up the judge")?;
        validate_inputs(&problem, &not_here, &|s| {
            runtime.block_on(validators.judge(s))
        })?
    };
    let agrees = rows.iter().all(|r| r.agrees)
        && input_validation.iter().all(|c| c.valid || c.skipped)
        && ac_ok
        && tle_ok;
    let report = VerifyReport {
        problem: problem.short_name.clone(),
        format: problem.format.clone(),
        time_limit_ms,
        time_limit_derived: derived,
        margins: Margins {
            ac_to_time_limit: problem.ac_to_time_limit,
            slowest_accepted_ms: slowest_lower,
            ac_ok,
            time_limit_to_tle: problem.time_limit_to_tle,
            tle_judged_at_ms,
            fastest_tle_ms: fastest_tle,
            tle_ok,
        },
        submissions: rows,
        input_validation,
        agrees,
    };
    if args.json {
        print_json(&report, true)?;
    } else {
        print_table(&report);
    }
    drop(judge);
    drop(runtime);
    Ok(if report.agrees {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The first failing test's log, one line.
fn first_log(results: &[verdict_contracts::JudgeTaskResult]) -> String {
    results
        .iter()
        .find(|r| r.status != JudgeStatus::Accepted)
        .map(|r| {
            let line = r.error_log.lines().next().unwrap_or_default();
            format!("{}: {}", r.status.as_str(), line)
        })
        .unwrap_or_default()
}

/// Each input validator on every input: a valid input makes it exit 42.
fn validate_inputs(
    problem: &Problem,
    not_here: &dyn Fn(&Program) -> Option<String>,
    judge_one: &dyn Fn(Submission) -> verdict_contracts::JudgeReport,
) -> anyhow::Result<Vec<InputCheck>> {
    let mut out = Vec::new();
    let cases = problem.data.cases();
    for (name, validator) in &problem.input_validators {
        let skip = match validator {
            Ok(v) => not_here(v),
            Err(reason) => Some(reason.clone()),
        };
        let (Ok(validator), None) = (validator, &skip) else {
            out.push(InputCheck {
                validator: name.clone(),
                case: "*".into(),
                valid: false,
                skipped: true,
                note: format!("skipped: {}", skip.unwrap_or_default()),
            });
            continue;
        };
        let mut s = plan::submission(
            problem,
            validator,
            &format!("input-validator {name}"),
            10_000,
        )?;
        for (task, (case, settings)) in s.judge_tasks.iter_mut().skip(1).zip(&cases) {
            *task = JudgeTask {
                check_script: CheckScript::Standard,
                run_script: Some(RunScript::Standard),
                compare_script: Some(CompareScript::DiffIgnSpace),
                depends_cond: Some(DependsCond::Accepted),
                run_args: Some(case.input_validator_args(settings, name)),
                validator_flags: None,
                passes: None,
                answer_file: None,
                memory_limit: Some(2 * 1024 * 1024),
                ..task.clone()
            };
        }
        s.compare = None;
        s.compare_protocol = None;
        for datum in &mut s.test_data {
            datum.outputs = vec![verdict_contracts::Asset::text(
                verdict_contracts::STDOUT_ASSET,
                "",
            )];
        }
        let report = judge_one(s);
        // A validator that did not compile says why (the limit it hit, the compiler's error),
        // not only that each input's task was skipped.
        let not_compiled = report
            .results
            .first()
            .filter(|r| r.status != JudgeStatus::Accepted)
            .map(|r| {
                format!(
                    "the input validator did not compile: {}: {}",
                    r.status.as_str(),
                    r.error_log.lines().next().unwrap_or_default()
                )
            });
        for (i, (case, _)) in cases.iter().enumerate() {
            let r = report.results.get(i + 1);
            // Valid: exit 42 (Kattis; a non-zero exit is a run-time error with its code) or
            // exit 0 with nothing on stdout (testlib; the expected output is empty).
            let valid = r.is_some_and(|r| match problem.input_valid_exit {
                0 => r.status == JudgeStatus::Accepted,
                code => {
                    r.status == JudgeStatus::RuntimeError
                        && r.error_log.starts_with(&format!("exited with code {code}"))
                }
            });
            out.push(InputCheck {
                validator: name.clone(),
                case: case.name.clone(),
                valid,
                skipped: false,
                note: match (valid, r) {
                    (true, _) => String::new(),
                    (false, _) if not_compiled.is_some() => {
                        not_compiled.clone().unwrap_or_default()
                    }
                    (false, Some(r)) => {
                        let mut note = format!(
                            "{}: {}",
                            r.status.as_str(),
                            r.error_log.lines().next().unwrap_or_default()
                        );
                        // What the validator said (testlib writes it to stderr): the reason.
                        if let Some(said) = validator_message(&r.error_log) {
                            note.push_str(": ");
                            note.push_str(&said);
                        }
                        note
                    }
                    (false, None) => "not run".into(),
                },
            });
        }
    }
    Ok(out)
}

/// The first lines of what a failing validator wrote to stderr, from its task's `error_log`
/// (`exited with code 3\nstderr:\n...`), at most 300 characters.
fn validator_message(error_log: &str) -> Option<String> {
    let (_, stderr) = error_log.split_once("\nstderr:\n")?;
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(3)
        .collect();
    let said = lines.join(" / ");
    (!said.is_empty()).then(|| said.chars().take(300).collect())
}

#[allow(clippy::print_stdout)]
fn print_table(r: &VerifyReport) {
    println!(
        "{} ({}): time limit {} ms{}, {} reference submissions",
        r.problem,
        r.format,
        r.time_limit_ms,
        if r.time_limit_derived {
            " (derived)"
        } else {
            ""
        },
        r.submissions.len()
    );
    println!(
        "{:<48} {:<20} {:<7} {:>9} {:>8} {:>8}  ok",
        "submission", "expected", "verdict", "score", "time ms", "limit"
    );
    for row in &r.submissions {
        println!(
            "{:<48} {:<20} {:<7} {:>9} {:>8} {:>8}  {}{}",
            row.submission,
            row.expected,
            row.verdict,
            row.score.map_or("-".into(), |s| format!("{s}")),
            row.max_time_ms,
            row.time_limit_ms,
            match (row.skipped, row.agrees) {
                (true, _) => "-",
                (false, true) => "yes",
                (false, false) => "NO",
            },
            if row.note.is_empty() {
                String::new()
            } else {
                format!("  ({})", row.note)
            }
        );
    }
    let rejected = r
        .input_validation
        .iter()
        .filter(|c| !c.valid && !c.skipped)
        .count();
    println!(
        "input validators: {} checks, {} rejected{}",
        r.input_validation.iter().filter(|c| !c.skipped).count(),
        rejected,
        r.input_validation
            .iter()
            .filter(|c| !c.valid)
            .map(|c| format!("\n  {} on {}: {}", c.validator, c.case, c.note))
            .collect::<String>()
    );
    let m = &r.margins;
    println!("margin                 rule                                        measured   ok");
    println!(
        "time limit             >= {}x slowest bounding run ({} ms) = {:<8} {:>6} ms   {}",
        m.ac_to_time_limit,
        m.slowest_accepted_ms,
        format!(
            "{:.0} ms",
            m.slowest_accepted_ms as f64 * m.ac_to_time_limit
        ),
        r.time_limit_ms,
        if m.ac_ok { "yes" } else { "NO" }
    );
    println!(
        "time_limit_exceeded    time out at {}x the limit = {:<14} {:>9}   {}",
        m.time_limit_to_tle,
        format!("{} ms", m.tle_judged_at_ms),
        m.fastest_tle_ms.map_or("-".into(), |t| format!("{t} ms")),
        if m.tle_ok { "yes" } else { "NO" }
    );
    println!("{}", if r.agrees { "verified" } else { "DISAGREEMENT" });
}

#[cfg(test)]
mod validator_message_tests {
    use super::validator_message;

    #[test]
    fn a_failing_validators_stderr_is_its_reason() {
        assert_eq!(
            validator_message("exited with code 3\nstderr:\nFAIL Expected EOLN (test, line 1)\n"),
            Some("FAIL Expected EOLN (test, line 1)".into())
        );
        assert_eq!(validator_message("exited with code 3"), None);
        assert_eq!(validator_message("exited with code 3\nstderr:\n\n"), None);
    }
}
