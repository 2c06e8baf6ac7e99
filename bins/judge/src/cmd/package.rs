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
    CheckScript, CompareScript, DependsCond, JudgeStatus, JudgeTask, Program, RunScript, Submission,
};
use verdict_packages::grade::{self, Graded, Verdict};
use verdict_packages::{Expected, Problem, kattis, plan};
use verdict_scheduler::Judge;

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
    /// The time limit in ms (default: the package's, else derived from the accepted runs).
    #[arg(long)]
    pub time_limit: Option<u64>,
    /// Print the result as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn load(dir: &Path) -> anyhow::Result<Problem> {
    kattis::load(dir).with_context(|| format!("cannot read the package {}", dir.display()))
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

/// One reference submission's row.
#[derive(Debug, Serialize)]
struct Row {
    submission: String,
    expected: &'static str,
    verdict: String,
    score: Option<f64>,
    max_time_ms: u64,
    time_limit_ms: u64,
    first_failure: Option<String>,
    agrees: bool,
    note: String,
}

/// One input validator on one input.
#[derive(Debug, Serialize)]
struct InputCheck {
    validator: String,
    case: String,
    valid: bool,
    note: String,
}

/// The whole self-check.
#[derive(Debug, Serialize)]
struct VerifyReport {
    problem: String,
    format: String,
    time_limit_ms: u64,
    time_limit_derived: bool,
    slowest_accepted_ms: u64,
    ac_margin_ok: bool,
    tle_margin_ok: bool,
    submissions: Vec<Row>,
    input_validation: Vec<InputCheck>,
    agrees: bool,
}

fn verify(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let problem = load(&args.dir)?;
    let config = args.config.load()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    let judge_one = |s: Submission| runtime.block_on(judge.judge(s));

    // The time limit: given, the package's, or the slowest accepted run times the multiplier,
    // rounded up to whole seconds (the format's rule), judged first with a generous limit.
    let accepted = |e: Expected| matches!(e, Expected::Accepted | Expected::PartiallyAccepted);
    let mut derived = false;
    let time_limit_ms = match args.time_limit.or(problem.time_limit_ms) {
        Some(t) => t,
        None => {
            derived = true;
            let mut slowest = 0;
            for r in problem.submissions.iter().filter(|r| accepted(r.expected)) {
                if let Ok(program) = &r.program {
                    let s = plan::submission(&problem, program, &r.name, 10_000)?;
                    let g = grade::grade(&problem, &judge_one(s).results);
                    slowest = slowest.max(g.max_time_ms);
                }
            }
            let exact = slowest as f64 * problem.ac_to_time_limit;
            ((exact / 1000.0).ceil().max(1.0) * 1000.0) as u64
        }
    };
    let max_score = grade::max_score(&problem);
    let mut rows = Vec::new();
    let mut slowest_accepted = 0;
    let mut tle_margin_ok = true;
    for r in &problem.submissions {
        let program = match &r.program {
            Ok(p) => p,
            Err(reason) => {
                rows.push(Row {
                    submission: r.name.clone(),
                    expected: r.expected.dir(),
                    verdict: "-".into(),
                    score: None,
                    max_time_ms: 0,
                    time_limit_ms,
                    first_failure: None,
                    agrees: true,
                    note: format!("skipped: {reason}"),
                });
                continue;
            }
        };
        // A time-limit-exceeded submission must still be over the limit times the margin.
        let tl = if r.expected == Expected::TimeLimitExceeded {
            (time_limit_ms as f64 * problem.time_limit_to_tle).ceil() as u64
        } else {
            time_limit_ms
        };
        let report = judge_one(plan::submission(&problem, program, &r.name, tl)?);
        let g: Graded = grade::grade(&problem, &report.results);
        let agrees = grade::agrees(r.expected, &g, problem.kind.scoring, max_score);
        let mut note = String::new();
        if accepted(r.expected) && g.verdict == Verdict::Accepted {
            slowest_accepted = slowest_accepted.max(g.max_time_ms);
        }
        if r.expected == Expected::TimeLimitExceeded && g.verdict != Verdict::TimeLimitExceeded {
            tle_margin_ok = false;
            note = format!(
                "not over {:.1}x the time limit ({tl} ms)",
                problem.time_limit_to_tle
            );
        }
        if !agrees && note.is_empty() {
            note = first_log(&report.results);
        }
        rows.push(Row {
            submission: r.name.clone(),
            expected: r.expected.dir(),
            verdict: g.verdict.short().into(),
            score: problem.kind.scoring.then_some(g.score),
            max_time_ms: g.max_time_ms,
            time_limit_ms: tl,
            first_failure: g.first_failure.clone(),
            agrees,
            note,
        });
    }
    let ac_margin_ok = (slowest_accepted as f64) * problem.ac_to_time_limit <= time_limit_ms as f64;
    let input_validation = validate_inputs(&problem, &judge_one)?;
    let agrees = rows.iter().all(|r| r.agrees)
        && input_validation.iter().all(|c| c.valid)
        && ac_margin_ok
        && tle_margin_ok;
    let report = VerifyReport {
        problem: problem.short_name.clone(),
        format: problem.format.clone(),
        time_limit_ms,
        time_limit_derived: derived,
        slowest_accepted_ms: slowest_accepted,
        ac_margin_ok,
        tle_margin_ok,
        submissions: rows,
        input_validation,
        agrees,
    };
    if args.json {
        print_json(&report, true)?;
    } else {
        print_table(&report, &problem);
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
    judge_one: &dyn Fn(Submission) -> verdict_contracts::JudgeReport,
) -> anyhow::Result<Vec<InputCheck>> {
    let mut out = Vec::new();
    let cases = problem.data.cases();
    for (name, validator) in &problem.input_validators {
        let mut s = plan::submission(
            problem,
            validator,
            &format!("input-validator {name}"),
            10_000,
        )?;
        for (task, (_, settings)) in s.judge_tasks.iter_mut().skip(1).zip(&cases) {
            *task = JudgeTask {
                check_script: CheckScript::Standard,
                run_script: Some(RunScript::Standard),
                compare_script: Some(CompareScript::DiffIgnSpace),
                depends_cond: Some(DependsCond::Accepted),
                run_args: Some(settings.input_validator_flags.clone()),
                validator_flags: None,
                memory_limit: Some(2 * 1024 * 1024),
                ..task.clone()
            };
        }
        s.compare = None;
        s.compare_protocol = None;
        let report = judge_one(s);
        for (i, (case, _)) in cases.iter().enumerate() {
            let r = report.results.get(i + 1);
            let valid = r.is_some_and(|r| {
                r.status == JudgeStatus::RuntimeError
                    && r.error_log.starts_with("exited with code 42")
            });
            out.push(InputCheck {
                validator: name.clone(),
                case: case.name.clone(),
                valid,
                note: match (valid, r) {
                    (true, _) => String::new(),
                    (false, Some(r)) => format!(
                        "{}: {}",
                        r.status.as_str(),
                        r.error_log.lines().next().unwrap_or_default()
                    ),
                    (false, None) => "not run".into(),
                },
            });
        }
    }
    Ok(out)
}

#[allow(clippy::print_stdout)]
fn print_table(r: &VerifyReport, problem: &Problem) {
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
        "{:<48} {:<20} {:<7} {:>9} {:>8}  ok",
        "submission", "expected", "verdict", "score", "time ms"
    );
    for row in &r.submissions {
        println!(
            "{:<48} {:<20} {:<7} {:>9} {:>8}  {}{}",
            row.submission,
            row.expected,
            row.verdict,
            row.score.map_or("-".into(), |s| format!("{s}")),
            row.max_time_ms,
            if row.agrees { "yes" } else { "NO" },
            if row.note.is_empty() {
                String::new()
            } else {
                format!("  ({})", row.note)
            }
        );
    }
    let invalid: Vec<&InputCheck> = r.input_validation.iter().filter(|c| !c.valid).collect();
    println!(
        "input validators: {} checks, {} rejected{}",
        r.input_validation.len(),
        invalid.len(),
        invalid
            .iter()
            .map(|c| format!("\n  {} on {}: {}", c.validator, c.case, c.note))
            .collect::<String>()
    );
    println!(
        "margins: slowest accepted {} ms x {} {} limit {} ms; time_limit_exceeded at {}x the limit: {}",
        r.slowest_accepted_ms,
        problem.ac_to_time_limit,
        if r.ac_margin_ok { "<=" } else { ">" },
        r.time_limit_ms,
        problem.time_limit_to_tle,
        if r.tle_margin_ok {
            "all over"
        } else {
            "NOT all over"
        }
    );
    println!("{}", if r.agrees { "verified" } else { "DISAGREEMENT" });
}

/// Whether a program is judged in a language (for tests).
#[allow(dead_code)]
fn language(p: &Program) -> &'static str {
    p.source().language.as_str()
}
