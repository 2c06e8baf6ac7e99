//! `judge lab TASKS.json|TASKS.jsonl`: run Agent Lab tasks with their runners, score them, and
//! append RunRecords and ScoreRecords as JSON Lines as each task completes.

use super::config::{ConfigArgs, read_input};
use anyhow::{Context, bail};
use indicatif::ProgressBar;
use serde_json::Value;
use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use verdict_contracts::RunStatus;
use verdict_lab::batch::{self, BatchEvent, DoneHashes, RecordWriter, Resume, Summary};
use verdict_lab::{
    CommandRunner, HttpRunner, JUDGED_TYPES, Lab, LabConfig, LabOutcome, Registry, TaskEntry,
    parse_tasks,
};
use verdict_oracle::OracleOptions;
use verdict_scheduler::Judge;

/// Arguments of `judge lab`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The tasks: a JSON array, one task, or JSON Lines; `-` for standard input.
    pub tasks: String,
    /// Append the RunRecords here (JSON Lines); default: standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Append the ScoreRecords here (JSON Lines).
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// How many tasks run at once (at least 1).
    #[arg(long, default_value = "4")]
    pub concurrency: NonZeroUsize,
    /// Skip the tasks whose RunRecord is already in --out (same content hash).
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// With --resume: run again the tasks whose records in --out are all failed runs (only a
    /// completed run counts as done).
    #[arg(long, requires = "resume")]
    pub retry_failed: bool,
    /// Lab configuration (TOML): runners per task type, evaluators, subset number rules.
    #[arg(long)]
    pub lab_config: Option<PathBuf>,
    /// The agent program for every task type without a runner (the `command` runner), split on
    /// white space: `--agent "python3 agent.py"`.
    #[arg(long)]
    pub agent: Option<String>,
    /// The agent endpoint for every task type without a runner (the `http` runner).
    #[arg(long, conflicts_with = "agent")]
    pub agent_url: Option<String>,
    /// Timeout in ms of tasks without `metadata.timeout` (--agent, --agent-url).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// The judge's configuration (for `function`, `script`, `cli` and `programming` tasks).
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `judge lab`: exit 0 when every run completed, 1 when some failed, 2 on bad input.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.tasks)?;
    let entries = parse_tasks(&text).map_err(|errors| {
        anyhow::anyhow!(
            "invalid tasks in {}:\n  {}",
            args.tasks,
            errors.join("\n  ")
        )
    })?;
    let registry = registry(&args, &entries)?;
    let lab = Lab::new(registry);
    let problems: Vec<String> = entries
        .iter()
        .filter_map(|e| lab.check(&e.task).err().map(|es| (e, es)))
        .flat_map(|(e, es)| es.into_iter().map(move |m| format!("{}: {m}", e.origin)))
        .collect();
    if !problems.is_empty() {
        let hint = if problems.iter().any(|p| p.contains("no runner for type")) {
            "\nGive the lab its runners: --agent \"python3 agent.py\" (one program for every type), \
             --agent-url URL (an HTTP agent), or --lab-config lab.toml ([runners.<type>]; see \
             examples/lab/lab.toml)."
        } else {
            ""
        };
        bail!(
            "cannot run {}:\n  {}{hint}",
            args.tasks,
            problems.join("\n  ")
        );
    }

    let resume = if args.retry_failed {
        Resume::RetryFailed
    } else {
        Resume::AnyRecord
    };
    let found = match (&args.out, args.resume) {
        (Some(path), true) => batch::done_hashes(path, resume)?,
        _ => DoneHashes::default(),
    };
    let (todo, skipped) = batch::split_done(entries, &found.done);
    let retried: Vec<&str> = todo
        .iter()
        .filter(|e| found.retry.contains(&e.hash))
        .map(|e| e.task.id())
        .collect();
    let mut runs_out = match &args.out {
        Some(path) => RecordWriter::append(path)?,
        None => RecordWriter::to_writer(Box::new(std::io::stdout()), "standard output"),
    };
    let mut scores_out = match &args.scores {
        Some(path) => Some(RecordWriter::append(path)?),
        None => None,
    };

    let progress = super::progress::bar(todo.len() as u64, args.quiet);
    if !skipped.is_empty() {
        let ids: Vec<&str> = skipped.iter().map(|e| e.task.id()).collect();
        note(
            &progress,
            &format!(
                "resume: skipping {} done task(s): {}",
                skipped.len(),
                ids.join(", ")
            ),
        );
    }
    if !retried.is_empty() {
        note(
            &progress,
            &format!(
                "resume: running {} failed task(s) again: {}",
                retried.len(),
                retried.join(", ")
            ),
        );
    }
    let retried = retried.len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut summary = Summary::default();
    let mut written = 0usize;
    let batch = batch::run_batch(&lab, todo, args.concurrency, |event| {
        match event {
            BatchEvent::Done(entry, outcome) => {
                record(
                    &entry,
                    &outcome,
                    &mut runs_out,
                    scores_out.as_mut(),
                    &progress,
                )?;
                written += 1;
                summary.add(entry.task.kind(), &outcome.run, &outcome.scores);
            }
            BatchEvent::Lost(e) => {
                note(&progress, &format!("judge lab: a task was lost: {e}"));
                summary.add_lost();
            }
        }
        progress.inc(1);
        anyhow::Ok(())
    });
    let stopped_by = runtime.block_on(until_signal(batch))?;
    progress.finish_and_clear();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(summary.table(skipped.len(), retried).as_bytes());
    if let Some((signal, killed)) = stopped_by {
        // Every record was written and flushed as its task finished; the runs still going are
        // lost, and their agents (whole process trees) killed.
        let target = args
            .out
            .as_ref()
            .map_or_else(|| "standard output".to_owned(), |p| p.display().to_string());
        let _ = writeln!(
            err,
            "judge lab: stopped by {}: {killed} running agent(s) killed with their processes; \
             {written} finished record(s) kept in {target}; run again with --resume to run the rest",
            signal.name()
        );
        // Oracle and programming runs may still hold a blocking thread: do not wait for them.
        runtime.shutdown_background();
        return Ok(ExitCode::from(signal.exit_code()));
    }
    Ok(super::judged_exit(summary.all_completed()))
}

/// A signal that stops `judge lab`. Agents lead process groups of their own, so the terminal's
/// SIGINT (Ctrl-C) and SIGHUP (the terminal closed) reach only `judge lab`, which must pass
/// them on.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Hangup,
    Interrupt,
    Terminate,
}

impl Stop {
    fn name(self) -> &'static str {
        match self {
            Stop::Hangup => "SIGHUP",
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
        }
    }

    /// 128 + the signal number, as a shell reports a command killed by it.
    fn exit_code(self) -> u8 {
        match self {
            Stop::Hangup => 129,
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
        }
    }
}

/// Runs `batch` to its end, or until SIGINT, SIGTERM or SIGHUP: then every live agent tree is
/// killed (and no new agent starts) before the batch and its runs are dropped; returns the
/// signal and how many agents were running.
async fn until_signal(
    batch: impl std::future::Future<Output = anyhow::Result<()>>,
) -> anyhow::Result<Option<(Stop, usize)>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hangup = signal(SignalKind::hangup()).context("cannot handle SIGHUP")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let mut terminate = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    let mut batch = std::pin::pin!(batch);
    let stop = tokio::select! {
        done = &mut batch => return done.map(|()| None),
        _ = hangup.recv() => Stop::Hangup,
        _ = interrupt.recv() => Stop::Interrupt,
        _ = terminate.recv() => Stop::Terminate,
    };
    Ok(Some((stop, verdict_lab::kill_all_agents())))
}

/// The runners: the judge's for the judged types the tasks use, the lab config's, the fallback agent.
fn registry(args: &Args, entries: &[TaskEntry]) -> anyhow::Result<Registry> {
    let mut registry = Registry::new();
    let judged = entries
        .iter()
        .flat_map(|e| e.task.atomic_tasks())
        .any(|t| JUDGED_TYPES.contains(&t.kind.as_str()));
    if judged {
        let judge = Judge::new(args.config.load_for_judging()?)
            .context("cannot set up the judge for function, script, cli or programming tasks")?;
        registry = registry.with_judge(&judge, OracleOptions::default());
    }
    if let Some(path) = &args.lab_config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read lab config {}", path.display()))?;
        let config = LabConfig::from_toml(&text)
            .with_context(|| format!("invalid lab config {}", path.display()))?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        config
            .apply(&mut registry, base)
            .with_context(|| format!("invalid lab config {}", path.display()))?;
    }
    if let Some(agent) = &args.agent {
        let command: Vec<String> = agent.split_whitespace().map(str::to_owned).collect();
        let mut runner = CommandRunner::new("*", command).context("--agent")?;
        if let Some(ms) = args.timeout_ms {
            runner = runner.default_timeout_ms(ms);
        }
        registry.set_fallback(Arc::new(runner), Value::Null);
    }
    if let Some(url) = &args.agent_url {
        let mut runner = HttpRunner::new("*", url.clone()).context("--agent-url")?;
        if let Some(ms) = args.timeout_ms {
            runner = runner.default_timeout_ms(ms);
        }
        registry.set_fallback(Arc::new(runner), Value::Null);
    }
    Ok(registry)
}

/// Writes a finished task's records and tells of its failures on stderr.
fn record(
    entry: &TaskEntry,
    outcome: &LabOutcome,
    runs: &mut RecordWriter,
    scores: Option<&mut RecordWriter>,
    progress: &ProgressBar,
) -> anyhow::Result<()> {
    runs.line(&outcome.run)?;
    if let Some(out) = scores {
        for score in &outcome.scores {
            out.line(score)?;
        }
    }
    for f in &outcome.evaluator_failures {
        let who = f.evaluator_id.as_deref().unwrap_or("evaluators");
        note(
            progress,
            &format!("warning: {}: {who}: {}", entry.origin, f.message),
        );
    }
    if outcome.run.status == RunStatus::Failed {
        let error = outcome.run.error.as_ref();
        let message = error.map_or("failed", |e| e.message.as_str());
        let step = error
            .and_then(|e| e.step.as_deref())
            .map(|s| format!(" at step {s}"))
            .unwrap_or_default();
        note(
            progress,
            &format!("failed: {}{step}: {message}", entry.origin),
        );
    }
    progress.set_message(entry.task.id().to_owned());
    Ok(())
}

/// A message on stderr that does not tear the progress bar.
fn note(progress: &ProgressBar, message: &str) {
    progress.suspend(|| {
        let _ = writeln!(std::io::stderr().lock(), "{message}");
    });
}
