//! `judge package DIR`: a problem package's reference submissions as Submissions (JSON Lines);
//! `judge package verify DIR`: judge each one and check it gets the verdict its directory
//! claims, run the input validators on every input, and report the time-limit margins
//! (docs/packages.md). Exit 1 on any disagreement.

use super::config::{ConfigArgs, print_json};
use anyhow::Context;
use indicatif::ProgressBar;
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
    /// Judge one submission that is not in the package (a contestant's file) on its test cases.
    Judge(JudgeArgs),
}

/// Arguments of `judge package judge`.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// The package directory.
    pub dir: PathBuf,
    /// The submission: a source file, or a directory of files (as under `submissions/`).
    pub submission: PathBuf,
    /// Its language (`cpp`, `python3`, ...; default: told by the file's extension).
    #[arg(long)]
    pub language: Option<String>,
    /// The time limit in ms (default: the package's, else derived from its accepted references
    /// as `verify` derives it).
    #[arg(long)]
    pub time_limit: Option<u64>,
    /// Print the result as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar (it is shown only on a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
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
    /// Treat warnings (a time-limit margin that does not hold) as errors: exit 1 on them too.
    #[arg(long, short = 'e')]
    pub werror: bool,
    /// No progress bar (it is shown only on a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn load(dir: &Path) -> anyhow::Result<Problem> {
    polygon::load_any(dir).with_context(|| format!("cannot read the package {}", dir.display()))
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.verify {
        Some(Action::Verify(v)) => return verify(v),
        Some(Action::Judge(j)) => return judge_submission(j),
        None => {}
    }
    let dir = args
        .dir
        .context("judge package DIR, judge package verify DIR, or judge package judge DIR FILE")?;
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
    /// The slowest test's CPU time (ms).
    max_time_ms: u64,
    /// The CPU time limit of each test in this run (ms).
    time_limit_ms: u64,
    /// The wall-clock limit of each test in this run (ms): 2 x the CPU limit + 1 s.
    wall_limit_ms: u64,
    /// Which limit stopped a time_limit_exceeded run (`cpu` or `wall`); the CPU time a killed
    /// run was charged can read low, the limit it went over is what it took at least.
    limit_hit: Option<&'static str>,
    /// Judged while the time limit was derived, at that pass's limit (not the derived one).
    judged_while_deriving: bool,
    /// The first test case that did not pass (`secret/01`).
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
    /// What makes the package wrong, as problemtools' errors: a reference whose verdict is not
    /// its directory's, an input its validator rejects.
    errors: Vec<String>,
    /// What deserves a look, as problemtools' warnings: a time-limit margin that does not hold
    /// (a run sensitive to the time limit). Errors only with `--werror`.
    warnings: Vec<String>,
    /// No error (and, with `--werror`, no warning): the exit status is 0.
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
    // One step per run: the references (twice for those the limit is derived from when the
    // package gives none) and each input validator.
    let given = args.time_limit.or(problem.time_limit_ms);
    let bounds = reference_bounds(&problem);
    let steps =
        problem.submissions.len() + problem.input_validators.len() + deriving_runs(given, &bounds);
    let progress = super::progress::bar(steps as u64, args.quiet);
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
    let Derived {
        limit_ms: time_limit_ms,
        mut first_pass,
        lower_bounds: derived_from,
    } = match given {
        Some(t) => Derived::unjudged(t, problem.submissions.len()),
        None => {
            progress.set_message("deriving the time limit");
            derive_time_limit(&problem, &bounds, &judgeable, &judge_one, &progress)?
        }
    };
    let tle_judged_at_ms = (time_limit_ms as f64 * problem.time_limit_to_tle).ceil() as u64;
    let mut rows = Vec::new();
    let mut slowest_lower = 0;
    let mut fastest_tle: Option<u64> = None;
    let mut tle_ok = true;
    for (i, r) in problem.submissions.iter().enumerate() {
        progress.set_message(r.name.clone());
        progress.inc(1);
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
                    wall_limit_ms: wall_limit_ms(time_limit_ms),
                    limit_hit: None,
                    judged_while_deriving: false,
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
        let mut agrees = grade::agrees_for(&problem, r.expected, &g) && unmet.is_empty();
        let times = timing::bound_times(&problem, &bounds[i], &results);
        let lower = derived_from[i]
            .or_else(|| timing::lower_bound_ms(&problem, &bounds[i], &results, g.verdict));
        if let Some(ms) = lower {
            slowest_lower = slowest_lower.max(ms);
        }
        let mut note = String::new();
        if upper {
            if times.upper_timed_out {
                // Stopped at its CPU limit, it took at least the limit (a killed run's
                // charged CPU time can read low).
                let ms = match limit_hit(&results) {
                    Some("cpu") => times.upper_ms.unwrap_or(0).max(tl),
                    _ => times.upper_ms.unwrap_or(0),
                };
                fastest_tle = Some(fastest_tle.map_or(ms, |f| f.min(ms)));
            } else {
                tle_ok = false;
                note = format!(
                    "not over {}x the time limit ({tl} ms)",
                    problem.time_limit_to_tle
                );
                // Over the limit itself, it gets its verdict at the limit: what fails is the
                // margin, a warning (problemtools: "sensitive to time limit").
                if times.upper_ms.is_some_and(|ms| ms > time_limit_ms) {
                    agrees = unmet.is_empty();
                }
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
            wall_limit_ms: wall_limit_ms(if reused { DERIVING_MS } else { tl }),
            limit_hit: limit_hit(&results),
            judged_while_deriving: reused,
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
            progress.set_message(s.sub_id.clone());
            progress.inc(1);
            runtime.block_on(validators.judge(s))
        })?
    };
    progress.finish_and_clear();
    let errors = verify_errors(&rows, &input_validation);
    let mut warnings = Vec::new();
    if !ac_ok {
        warnings.push(format!(
            "the time limit, {time_limit_ms} ms, is under {}x the slowest accepted run ({slowest_lower} ms CPU)",
            problem.ac_to_time_limit
        ));
    }
    for row in rows
        .iter()
        .filter(|r| r.agrees && r.note.starts_with("not over"))
    {
        warnings.push(format!(
            "{} is sensitive to the time limit: {}",
            row.submission, row.note
        ));
    }
    let agrees = errors.is_empty() && (!args.werror || warnings.is_empty());
    let report = VerifyReport {
        problem: problem.short_name.clone(),
        format: problem.format.clone(),
        time_limit_ms,
        time_limit_derived: given.is_none(),
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
        errors,
        warnings,
        agrees,
    };
    print_report(&report, args.json, print_table)?;
    drop(judge);
    drop(runtime);
    Ok(super::judged_exit(report.agrees))
}

/// Prints `report` on stdout: as JSON with `--json`, else as the table `table` makes.
fn print_report<T: Serialize>(report: &T, json: bool, table: fn(&T)) -> anyhow::Result<()> {
    if json {
        print_json(report, true)
    } else {
        table(report);
        Ok(())
    }
}

/// One test case of a judged submission.
#[derive(Debug, Serialize)]
struct CaseRow {
    /// The package's name for it (`secret/01`).
    case: String,
    /// The package's verdict of the case (AC, WA, TLE, RTE, ...), `-` when not run.
    verdict: String,
    /// The judge's status (`Accepted`, `Wrong Answer`, `Dependency Not Satisfied`, ...).
    status: String,
    /// Its CPU time (ms).
    cpu_ms: u64,
    /// `cpu` or `wall` when a limit stopped it.
    limit_hit: Option<&'static str>,
    /// The first line of its log (the validator's message, the limit it went over).
    message: String,
}

/// `judge package judge`'s result.
#[derive(Debug, Serialize)]
struct SubmissionReport {
    problem: String,
    format: String,
    submission: String,
    language: String,
    /// The CPU limit of each test (ms).
    time_limit_ms: u64,
    /// The wall-clock limit of each test (ms).
    wall_limit_ms: u64,
    time_limit_derived: bool,
    /// The package's verdict (AC, WA, TLE, RTE, CE, JE).
    verdict: String,
    score: Option<f64>,
    /// The slowest test's CPU time (ms).
    max_time_ms: u64,
    /// The first test case that did not pass.
    first_failure: Option<String>,
    /// Why it did not compile, when it did not.
    compile_error: Option<String>,
    cases: Vec<CaseRow>,
}

/// `judge package judge DIR FILE`: one submission on the package's test cases, graded as the
/// package grades its references; exit 0 accepted, 1 any other verdict, 2 bad input.
fn judge_submission(args: JudgeArgs) -> anyhow::Result<ExitCode> {
    let problem = load(&args.dir)?;
    let program = verdict_packages::kattis::submission_program(
        &args.dir,
        &args.submission,
        args.language.as_deref(),
    )
    .map_err(|reason| anyhow::anyhow!("cannot judge {}: {reason}", args.submission.display()))?;
    let config = args.config.load_for_judging()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    let judge_one = |s: Submission| runtime.block_on(judge.judge(s));
    let judgeable = |r: &Reference| r.program.clone();
    let given = args.time_limit.or(problem.time_limit_ms);
    let bounds = reference_bounds(&problem);
    let progress = super::progress::bar(deriving_runs(given, &bounds) as u64 + 1, args.quiet);
    let time_limit_ms = match given {
        Some(t) => t,
        None => {
            progress.set_message("deriving the time limit from the package's references");
            derive_time_limit(&problem, &bounds, &judgeable, &judge_one, &progress)?.limit_ms
        }
    };
    let name = args.submission.display().to_string();
    progress.set_message(name.clone());
    let mut s = plan::submission(&problem, &program, &name, time_limit_ms)?;
    plan::lazy(&problem, &mut s);
    let results = judge_one(s).results;
    progress.inc(1);
    progress.finish_and_clear();
    let g = grade::grade(&problem, &results);
    let (compile, tests) = plan::split_results(&problem, &results);
    let first_line =
        |r: &JudgeTaskResult| r.error_log.lines().next().unwrap_or_default().to_owned();
    let cases = problem
        .data
        .cases()
        .iter()
        .zip(tests)
        .map(|((case, _), r)| {
            let run = !matches!(
                r.status,
                JudgeStatus::DependencyNotSatisfied | JudgeStatus::Pending | JudgeStatus::Running
            );
            CaseRow {
                case: case.name.clone(),
                verdict: if run {
                    grade::Verdict::of(r.status).short().into()
                } else {
                    "-".into()
                },
                status: r.status.as_str().into(),
                cpu_ms: r.run_time,
                limit_hit: limit_hit(std::slice::from_ref(r)),
                message: first_line(r),
            }
        })
        .collect();
    let report = SubmissionReport {
        problem: problem.short_name.clone(),
        format: problem.format.clone(),
        submission: name,
        language: if plan::is_answers(&problem, &program) {
            ANSWERS.into()
        } else {
            program.source().language.as_str().into()
        },
        time_limit_ms,
        wall_limit_ms: wall_limit_ms(time_limit_ms),
        time_limit_derived: given.is_none(),
        verdict: g.verdict.short().into(),
        score: problem.kind.scoring.then_some(g.score),
        max_time_ms: g.max_time_ms,
        first_failure: g.first_failure.clone(),
        compile_error: compile
            .filter(|c| c.status != JudgeStatus::Accepted)
            .map(|c| c.error_log.clone()),
        cases,
    };
    print_report(&report, args.json, print_submission_table)?;
    drop(judge);
    drop(runtime);
    Ok(super::judged_exit(g.verdict == grade::Verdict::Accepted))
}

/// The table of `judge package judge`.
#[allow(clippy::print_stdout)]
fn print_submission_table(r: &SubmissionReport) {
    println!(
        "{} ({}): {} ({}) at {} ms CPU per test ({}; wall clock {} ms)",
        r.problem,
        r.format,
        r.submission,
        r.language,
        r.time_limit_ms,
        if r.time_limit_derived {
            "derived from the package's accepted references"
        } else {
            "the package's or --time-limit"
        },
        r.wall_limit_ms
    );
    if let Some(log) = &r.compile_error {
        println!("did not compile:\n{log}");
    }
    let case_w = r
        .cases
        .iter()
        .map(|c| c.case.chars().count())
        .chain([9])
        .max()
        .unwrap_or(9);
    println!(
        "{:<case_w$}  {:<7} {:>8}  message",
        "test case", "verdict", "CPU ms"
    );
    for c in &r.cases {
        let (cpu, message) = if c.verdict == "-" {
            (
                "-".into(),
                "not run: an earlier test case decided the verdict".into(),
            )
        } else {
            (
                cpu_cell(c.cpu_ms, r.time_limit_ms, c.limit_hit),
                c.message.clone(),
            )
        };
        println!(
            "{:<case_w$}  {:<7} {:>8}  {message}",
            c.case, c.verdict, cpu
        );
    }
    println!(
        "verdict: {}{}{}",
        r.verdict,
        r.score.map_or(String::new(), |s| format!(", score {s}")),
        r.first_failure.as_ref().map_or(String::new(), |f| format!(
            " (first failing test case: {f})"
        ))
    );
}

/// What a reference judged while the limit is derived leaves: its grade and results (kept when
/// every test of it bounds the limit from below), by reference.
type FirstPass = Vec<Option<(Graded, Vec<JudgeTaskResult>)>>;

/// The time limit and what deriving it left, by reference.
struct Derived {
    /// The time limit in ms.
    limit_ms: u64,
    /// The runs that need no second one.
    first_pass: FirstPass,
    /// The lower bound each reference gave when the limit was derived from it: the margin is
    /// checked against that run, not a second one that may be a few ms slower.
    lower_bounds: Vec<Option<u64>>,
}

impl Derived {
    /// A limit no reference was judged for (`references` of them): given, or not derived yet.
    fn unjudged(limit_ms: u64, references: usize) -> Self {
        Derived {
            limit_ms,
            first_pass: vec![None; references],
            lower_bounds: vec![None; references],
        }
    }
}

/// The bounds each reference's tests give the time limit, in the package's order.
fn reference_bounds(problem: &Problem) -> Vec<Bounds> {
    problem
        .submissions
        .iter()
        .map(|r| timing::bounds(problem, r))
        .collect()
}

/// How many references are judged to derive the time limit: none when it is `given`, else
/// each that bounds it from below.
fn deriving_runs(given: Option<u64>, bounds: &[Bounds]) -> usize {
    match given {
        Some(_) => 0,
        None => bounds.iter().filter(|b| b.any_lower()).count(),
    }
}

/// The time limit when the package gives none: the slowest run that bounds it from below times
/// the multiplier, rounded up to a whole multiple of the resolution (the format's rule). Each
/// reference that bounds it from below is judged at [`DERIVING_MS`], a step of `progress`.
fn derive_time_limit(
    problem: &Problem,
    bounds: &[Bounds],
    judgeable: &dyn Fn(&Reference) -> Result<Program, String>,
    judge_one: &dyn Fn(Submission) -> verdict_contracts::JudgeReport,
    progress: &ProgressBar,
) -> anyhow::Result<Derived> {
    let mut derived = Derived::unjudged(0, problem.submissions.len());
    let mut slowest = 0;
    for (i, r) in problem.submissions.iter().enumerate() {
        if !bounds[i].any_lower() {
            continue;
        }
        let Ok(program) = judgeable(r) else {
            continue;
        };
        let mut s = plan::submission(problem, &program, &r.name, DERIVING_MS)?;
        // Tests that bound nothing are not needed here: cut short (judged again).
        if !bounds[i].only_lower() {
            plan::time_limits(problem, &mut s, |case| {
                if bounds[i].lower[case] {
                    DERIVING_MS
                } else {
                    1
                }
            });
        }
        progress.inc(1);
        let results = judge_one(s).results;
        let g = grade::grade(problem, &results);
        let lower = timing::lower_bound_ms(problem, &bounds[i], &results, g.verdict);
        slowest = slowest.max(lower.unwrap_or(0));
        derived.lower_bounds[i] = lower;
        if bounds[i].only_lower() {
            derived.first_pass[i] = Some((g, results));
        }
    }
    derived.limit_ms = timing::derived_limit_ms(problem, slowest);
    Ok(derived)
}

/// The wall-clock limit of a test whose CPU limit is `cpu_ms` (the judge's rule: 2 x + 1 s).
fn wall_limit_ms(cpu_ms: u64) -> u64 {
    verdict_scripts::RunLimits::new(cpu_ms, None, None, None).wall_ms
}

/// Which limit stopped the first test that timed out: `cpu` or `wall` (its log says).
fn limit_hit(results: &[JudgeTaskResult]) -> Option<&'static str> {
    let r = results
        .iter()
        .find(|r| r.status == JudgeStatus::TimeLimitExceeded)?;
    Some(if r.error_log.starts_with("wall time") {
        "wall"
    } else {
        "cpu"
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

/// A run's CPU time as the table shows it: a run stopped at its CPU limit took at least the
/// limit, whatever CPU time a killed process was charged (`> 4000`).
fn cpu_cell(ms: u64, limit_ms: u64, hit: Option<&str>) -> String {
    match hit {
        Some("cpu") if ms <= limit_ms => format!(">{limit_ms}"),
        _ => ms.to_string(),
    }
}

/// The CPU / wall limits of a run, as the table shows them.
fn limits_cell(cpu_ms: u64, wall_ms: u64) -> String {
    format!("{cpu_ms} / {wall_ms}")
}

/// The table of `judge package verify` (docs/packages.md, "Reading verify's table").
#[allow(clippy::print_stdout)]
fn print_table(r: &VerifyReport) {
    let base = if r.time_limit_derived {
        "derived from the slowest accepted run"
    } else {
        "the package's or --time-limit"
    };
    println!(
        "{} ({}): time limit {} ms CPU per test ({base}; wall clock {} ms), {} reference submissions",
        r.problem,
        r.format,
        r.time_limit_ms,
        wall_limit_ms(r.time_limit_ms),
        r.submissions.len()
    );
    let mut while_deriving = false;
    let mut cells: Vec<[String; 8]> = vec![[
        "submission".into(),
        "expected".into(),
        "verdict".into(),
        "score".into(),
        "CPU ms".into(),
        "limit CPU / wall ms".into(),
        "first failing".into(),
        "ok".into(),
    ]];
    for row in &r.submissions {
        let mut limits = limits_cell(row.time_limit_ms, row.wall_limit_ms);
        if row.judged_while_deriving {
            while_deriving = true;
            limits.push_str(" *");
        }
        let cpu = if row.skipped {
            "-".into()
        } else {
            cpu_cell(row.max_time_ms, row.time_limit_ms, row.limit_hit)
        };
        let failing = match (&row.first_failure, row.limit_hit) {
            (Some(case), Some("wall")) => format!("{case} (wall)"),
            (Some(case), _) => case.clone(),
            (None, _) => "-".into(),
        };
        let ok = match (row.skipped, row.agrees) {
            (true, _) => "-",
            (false, true) => "yes",
            (false, false) => "NO",
        };
        let ok = if row.note.is_empty() {
            ok.to_owned()
        } else {
            format!("{ok}  ({})", row.note)
        };
        cells.push([
            row.submission.clone(),
            row.expected.clone(),
            row.verdict.clone(),
            row.score.map_or("-".into(), |s| format!("{s}")),
            cpu,
            limits,
            failing,
            ok,
        ]);
    }
    let width = |i: usize| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..7).map(width).collect();
    for c in &cells {
        println!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:>w3$}  {:>w4$}  {:>w5$}  {:<w6$}  {}",
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            c[5],
            c[6],
            c[7],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4],
            w5 = w[5],
            w6 = w[6],
        );
    }
    if while_deriving {
        println!(
            "* judged once, while the time limit was derived, at {DERIVING_MS} ms CPU: that run is the one the limit was derived from"
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
    let yes = |ok: bool| if ok { "yes" } else { "no (a warning)" };
    println!("time-limit margins");
    println!(
        "  the limit, {} ms, is at least {}x the slowest accepted run ({} ms CPU x {} = {:.0} ms): {}",
        r.time_limit_ms,
        m.ac_to_time_limit,
        m.slowest_accepted_ms,
        m.ac_to_time_limit,
        m.slowest_accepted_ms as f64 * m.ac_to_time_limit,
        yes(m.ac_ok)
    );
    match m.fastest_tle_ms {
        None if m.tle_ok => println!(
            "  every time_limit_exceeded reference still times out at {}x the limit ({} ms): none to check",
            m.time_limit_to_tle, m.tle_judged_at_ms
        ),
        _ => println!(
            "  every time_limit_exceeded reference still times out at {}x the limit ({} ms): {}",
            m.time_limit_to_tle,
            m.tle_judged_at_ms,
            if m.tle_ok {
                format!("yes, each went over {} ms", m.tle_judged_at_ms)
            } else {
                "no (a warning: see the rows above)".into()
            }
        ),
    }
    for e in &r.errors {
        println!("error: {e}");
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
    let counted = |n: usize, what: &str| match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    };
    match (r.errors.len(), r.warnings.len()) {
        (0, 0) => println!("verified"),
        (0, w) if r.agrees => println!("verified, with {}", counted(w, "warning")),
        (e, w) => println!(
            "DISAGREEMENT: {}, {}{}",
            counted(e, "error"),
            counted(w, "warning"),
            if e == 0 { " (--werror)" } else { "" }
        ),
    }
}

/// The package's errors: each reference whose verdict is not its directory's, each input a
/// validator rejects.
fn verify_errors(rows: &[Row], inputs: &[InputCheck]) -> Vec<String> {
    let references = rows.iter().filter(|r| !r.agrees).map(|r| {
        let why = if r.note.is_empty() {
            String::new()
        } else {
            format!(": {}", r.note)
        };
        format!(
            "{} got {}, expected {}{why}",
            r.submission, r.verdict, r.expected
        )
    });
    let inputs = inputs
        .iter()
        .filter(|c| !c.valid && !c.skipped)
        .map(|c| format!("{} rejected {}: {}", c.validator, c.case, c.note));
    references.chain(inputs).collect()
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
