//! `judge run FILE|-`: judge one Submission and print its JudgeReport (JSON), or a table for
//! people (`--format table`). Either way, when standard error is a terminal, the outcome comes on
//! one line there ("Wrong Answer on test 3 (task 4) · score 2/4"). For people, tasks and tests
//! count from 1 (the JSON's indices, the contract's, count from 0): docs/judge.md, "Numbering".

use super::config::{ConfigArgs, print_json, read_input};
use anyhow::Context;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::process::ExitCode;
use verdict_contracts::{
    CheckScript, JudgeReport, JudgeStatus, JudgeTask, RequestError, RunScript, Submission,
    parse_submission,
};
use verdict_scheduler::Judge;

/// How `judge run` prints the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// The JudgeReport as JSON (the contract).
    #[default]
    Json,
    /// One line per task for people, the outcome on top.
    Table,
}

/// Arguments of `judge run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Submission JSON file, or `-` for standard input.
    pub file: String,
    /// Pretty-print the report.
    #[arg(long)]
    pub pretty: bool,
    /// `json` (the JudgeReport) or `table` (for people).
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// With `--format table`: only the tasks that failed (and the outcome).
    #[arg(long)]
    pub failures_only: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Judges the submission; an invalid request is a report with a message (exit 0), unreadable input exit 2.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.file)?;
    let submission = match parse_submission(&text) {
        Ok(submission) => submission,
        Err(RequestError::Invalid(invalid)) => {
            let report = invalid.into_report();
            print_report(&report, &Labels::default(), &args)?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(err) => {
            return Err(
                anyhow::Error::new(err).context(format!("{} is not a Submission", args.file))
            );
        }
    };
    let config = args.config.load_for_judging()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    let labels = Labels::of(&submission);
    let report = runtime.block_on(judge.judge(submission));
    print_report(&report, &labels, &args)?;
    let exiting = verdict_scripts::timing::phase("judge.drop");
    drop(judge);
    exiting.end();
    let exiting = verdict_scripts::timing::phase("runtime.drop");
    drop(runtime);
    exiting.end();
    Ok(ExitCode::SUCCESS)
}

/// What the table needs of the Submission to name its tasks: the plan, and the tests' own
/// names where `test_data` gives them (a package's `secret/01`).
#[derive(Debug, Default)]
struct Labels {
    tasks: Vec<JudgeTask>,
    test_names: Vec<Option<String>>,
}

impl Labels {
    fn of(submission: &Submission) -> Labels {
        Labels {
            tasks: submission.judge_tasks.clone(),
            test_names: submission
                .test_data
                .iter()
                .map(|d| d.name.clone())
                .collect(),
        }
    }

    /// What task `i` does, a named test with its name ("test 2 (secret/01)").
    fn kind(&self, i: usize) -> String {
        let task = self.tasks.get(i);
        let name = task
            .filter(|t| t.check_script != CheckScript::Compile && !t.is_random)
            .and_then(JudgeTask::testcase)
            .and_then(|t| self.test_names.get(t))
            .and_then(Option::as_deref);
        match name {
            Some(name) => format!("{} ({name})", kind(task)),
            None => kind(task),
        }
    }
}

fn print_report(report: &JudgeReport, labels: &Labels, args: &Args) -> anyhow::Result<()> {
    match args.format {
        Format::Json => {
            print_json(report, args.pretty)?;
            if std::io::stderr().is_terminal() {
                let _ = writeln!(std::io::stderr().lock(), "{}", headline(report, labels));
            }
        }
        Format::Table => {
            std::io::stdout()
                .lock()
                .write_all(table(report, labels, args.failures_only).as_bytes())
                .context("cannot write to stdout")?;
        }
    }
    Ok(())
}

/// Whether a status is a failure to show (not accepted, skipped or unfinished).
fn is_failure(status: JudgeStatus) -> bool {
    !status.is_in_progress()
        && !matches!(
            status,
            JudgeStatus::Accepted
                | JudgeStatus::DependencyNotSatisfied
                | JudgeStatus::OutOfContestTime
        )
}

/// What a task does, from its scripts (as the page says it).
fn kind(task: Option<&JudgeTask>) -> String {
    let Some(task) = task else {
        return "task".into();
    };
    match (task.check_script, task.run_script) {
        (CheckScript::Compile, _) => "compile".into(),
        (CheckScript::Static, _) => "static".into(),
        (_, Some(RunScript::Gtest)) => "gtest".into(),
        (_, Some(RunScript::Valgrind)) => "valgrind".into(),
        _ if task.is_random => "random test".into(),
        _ => task
            .testcase()
            .map_or_else(|| "test".into(), |i| format!("test {}", i + 1)),
    }
}

/// The outcome on one line: "Wrong Answer on test 1 (task 2) · score 1/2 · 2 tasks".
fn headline(report: &JudgeReport, labels: &Labels) -> String {
    let (mut num, mut den) = (0u64, 0u64);
    for r in &report.results {
        num += u64::from(r.score.numerator);
        den += u64::from(r.score.denominator);
    }
    let first = report.results.iter().position(|r| is_failure(r.status));
    let outcome = match first {
        _ if report.results.is_empty() => match &report.message {
            Some(message) => format!("Refused: {message}"),
            None => "No tasks".into(),
        },
        Some(i) => {
            let status = report.results[i].status;
            let task = labels.tasks.get(i);
            let compile = task.is_some_and(|t| t.check_script == CheckScript::Compile);
            if compile
                && matches!(
                    status,
                    JudgeStatus::CompilationError | JudgeStatus::ExecutableCompilationError
                )
            {
                status.to_string()
            } else {
                format!("{status} on {} (task {})", labels.kind(i), i + 1)
            }
        }
        None if report
            .results
            .iter()
            .all(|r| r.status == JudgeStatus::Accepted) =>
        {
            "Accepted".into()
        }
        None => "Nothing failed; some tasks were skipped".into(),
    };
    format!(
        "{outcome} · score {num}/{den} · {} tasks",
        report.results.len()
    )
}

/// Milliseconds for people; "-" where nothing was measured.
fn ms(value: u64, measured: bool) -> String {
    match (measured, value) {
        (false, _) => "-".into(),
        (true, v) if v >= 1000 => format!("{:.2} s", v as f64 / 1000.0),
        (true, v) => format!("{v} ms"),
    }
}

/// KiB for people; "-" where nothing was measured.
fn kib(value: u64, measured: bool) -> String {
    match (measured, value) {
        (false, _) => "-".into(),
        (true, v) if v >= 1024 * 1024 => format!("{:.1} GiB", v as f64 / 1048576.0),
        (true, v) if v >= 1024 => format!("{:.1} MiB", v as f64 / 1024.0),
        (true, v) => format!("{v} KiB"),
    }
}

/// The most failure messages the table shows in full (one line each).
const MESSAGES: usize = 20;

/// The report as a table: the outcome, then one row per task (only the failed ones with
/// `failures_only`), each failure's first log line.
fn table(report: &JudgeReport, labels: &Labels, failures_only: bool) -> String {
    let rows: Vec<[String; 6]> = report
        .results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let task = labels.tasks.get(i);
            let own_limits = task.is_some_and(|t| {
                matches!(t.check_script, CheckScript::Compile | CheckScript::Static)
            });
            let measured = !(own_limits && r.run_time == 0 && r.memory_used == 0);
            [
                (i + 1).to_string(),
                r.status.to_string(),
                labels.kind(i),
                r.score.to_string(),
                ms(r.run_time, measured),
                kib(r.memory_used, measured),
            ]
        })
        .collect();
    let head = ["task", "status", "kind", "score", "time", "memory"];
    let mut width = head.map(str::len);
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "{}", headline(report, labels));
    let line = |out: &mut String, cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, w)) in cells.iter().zip(width).enumerate() {
            let pad = w.saturating_sub(cell.chars().count());
            // Numbers to the right, words to the left.
            if i >= 3 {
                let _ = write!(text, "{}{cell}  ", " ".repeat(pad));
            } else {
                let _ = write!(text, "{cell}{}  ", " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", text.trim_end());
    };
    line(&mut out, &head);
    let mut shown = 0;
    let mut hidden = 0;
    let mut left_out = 0;
    for (row, r) in rows.iter().zip(&report.results) {
        if failures_only && !is_failure(r.status) {
            left_out += 1;
            continue;
        }
        line(&mut out, &row.each_ref().map(String::as_str));
        if is_failure(r.status) {
            match r.error_log.lines().find(|l| !l.trim().is_empty()) {
                Some(first) if shown < MESSAGES => {
                    shown += 1;
                    let first: String = first.chars().take(160).collect();
                    let _ = writeln!(out, "      {first}");
                }
                Some(_) => hidden += 1,
                None => {}
            }
        }
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "({hidden} more failure messages not shown: --format json has every one)"
        );
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "(tasks accepted or skipped, not shown with --failures-only: {left_out})"
        );
    }
    if let Some(message) = &report.message {
        let _ = writeln!(out, "message: {message}");
    }
    out
}
