//! `judge lab TASKS.json|TASKS.jsonl`: run Agent Lab tasks with their runners, score them, and
//! append RunRecords and ScoreRecords as JSON Lines as each task completes.

use super::config::{ConfigArgs, read_input};
use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use verdict_contracts::{RunRecord, RunStatus, ScoreRecord, ScoreValue};
use verdict_scheduler::lab::{
    CommandRunner, HttpRunner, LabConfig, LabOutcome, TaskEntry, parse_tasks,
};
use verdict_scheduler::{Judge, Lab, Registry};
use verdict_scripts::oracle::OracleOptions;

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
    /// How many tasks run at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Skip the tasks whose RunRecord is already in --out (same content hash).
    #[arg(long, requires = "out")]
    pub resume: bool,
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
        bail!("cannot run {}:\n  {}", args.tasks, problems.join("\n  "));
    }

    let done = match (&args.out, args.resume) {
        (Some(path), true) => done_hashes(path)?,
        _ => HashSet::new(),
    };
    let (todo, skipped): (Vec<TaskEntry>, Vec<TaskEntry>) =
        entries.into_iter().partition(|e| !done.contains(&e.hash));
    let mut runs_out = Output::open(args.out.as_deref())?;
    let mut scores_out = match &args.scores {
        Some(path) => Some(Output::open(Some(path))?),
        None => None,
    };

    let progress = progress_bar(todo.len() as u64, args.quiet);
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut summary = Summary::default();
    runtime.block_on(async {
        let permits = Arc::new(tokio::sync::Semaphore::new(args.concurrency.max(1)));
        let mut set = tokio::task::JoinSet::new();
        for entry in todo {
            let lab = lab.clone();
            let permits = permits.clone();
            set.spawn(async move {
                let _permit = permits.acquire_owned().await;
                let outcome = lab.run_entry(&entry).await;
                (entry, outcome)
            });
        }
        while let Some(joined) = set.join_next().await {
            let (entry, outcome) = match joined {
                Ok(done) => done,
                Err(e) => {
                    note(&progress, &format!("judge lab: a task was lost: {e}"));
                    summary.lost += 1;
                    continue;
                }
            };
            record(
                &entry,
                &outcome,
                &mut runs_out,
                scores_out.as_mut(),
                &progress,
                &mut summary,
            )?;
            progress.inc(1);
        }
        anyhow::Ok(())
    })?;
    progress.finish_and_clear();
    runs_out.flush()?;
    if let Some(s) = scores_out.as_mut() {
        s.flush()?;
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(summary.table(skipped.len()).as_bytes());
    Ok(if summary.failed == 0 && summary.lost == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The runners: the judge's for the judged types the tasks use, the lab config's, the fallback agent.
fn registry(args: &Args, entries: &[TaskEntry]) -> anyhow::Result<Registry> {
    let mut registry = Registry::new();
    let judged = entries
        .iter()
        .flat_map(|e| e.task.atomic_tasks())
        .any(|t| verdict_scheduler::lab::JUDGED_TYPES.contains(&t.kind.as_str()));
    if judged {
        let judge = Judge::new(args.config.load()?)
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

/// The task hashes of the RunRecords already in `path` (none when it does not exist).
fn done_hashes(path: &Path) -> anyhow::Result<HashSet<String>> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut done = HashSet::new();
    for line in BufReader::new(file).lines() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        // A line cut short by a crash is not a record: its task runs again.
        if let Ok(run) = serde_json::from_str::<RunRecord>(&line)
            && let Some(hash) = run.provenance.task_hash()
        {
            done.insert(hash.to_owned());
        }
    }
    Ok(done)
}

/// Where records go: a file opened for appending, or standard output.
enum Output {
    File(File),
    Stdout,
}

impl Output {
    fn open(path: Option<&Path>) -> anyhow::Result<Output> {
        let Some(path) = path else {
            return Ok(Output::Stdout);
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        // After a crash mid-line, start the next record on a line of its own.
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1))?;
            file.read_exact(&mut last)?;
            if last[0] != b'\n' {
                file.write_all(b"\n")?;
            }
        }
        Ok(Output::File(file))
    }

    fn line<T: serde::Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        let mut text = serde_json::to_string(value)?;
        text.push('\n');
        match self {
            Output::File(f) => f.write_all(text.as_bytes())?,
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes())?;
                out.flush()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        match self {
            Output::File(f) => f.flush()?,
            Output::Stdout => std::io::stdout().flush()?,
        }
        Ok(())
    }
}

fn record(
    entry: &TaskEntry,
    outcome: &LabOutcome,
    runs: &mut Output,
    scores: Option<&mut Output>,
    progress: &ProgressBar,
    summary: &mut Summary,
) -> anyhow::Result<()> {
    runs.line(&outcome.run)
        .context("cannot write a run record")?;
    if let Some(out) = scores {
        for score in &outcome.scores {
            out.line(score).context("cannot write a score record")?;
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
    summary.add(entry.task.kind(), &outcome.run, &outcome.scores);
    progress.set_message(entry.task.id().to_owned());
    Ok(())
}

/// A message on stderr that does not tear the progress bar.
fn note(progress: &ProgressBar, message: &str) {
    progress.suspend(|| {
        let _ = writeln!(std::io::stderr().lock(), "{message}");
    });
}

fn progress_bar(len: u64, quiet: bool) -> ProgressBar {
    let hidden =
        quiet || !std::io::stderr().is_terminal() || std::env::var_os("NO_COLOR").is_some();
    if hidden {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
    {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// Counts per task type and aggregates per (type, metric, target kind).
#[derive(Default)]
struct Summary {
    runs: BTreeMap<String, (usize, usize, usize)>,
    metrics: BTreeMap<(String, String, String), Aggregate>,
    failed: usize,
    lost: usize,
}

#[derive(Default)]
struct Aggregate {
    n: usize,
    sum: f64,
    trues: usize,
    bools: usize,
}

impl Summary {
    fn add(&mut self, kind: &str, run: &RunRecord, scores: &[ScoreRecord]) {
        let row = self.runs.entry(kind.to_owned()).or_default();
        row.0 += 1;
        if run.status == RunStatus::Completed {
            row.1 += 1;
        } else {
            row.2 += 1;
            self.failed += 1;
        }
        for s in scores {
            let target = s.target.to_string();
            let target = if target.starts_with("step:") {
                "step".to_owned()
            } else {
                target
            };
            let agg = self
                .metrics
                .entry((kind.to_owned(), s.metric.clone(), target))
                .or_default();
            match &s.value {
                ScoreValue::Number(v) => {
                    agg.n += 1;
                    agg.sum += v;
                }
                ScoreValue::Bool(b) => {
                    agg.bools += 1;
                    agg.trues += usize::from(*b);
                }
                ScoreValue::Text(_) => {}
            }
        }
    }

    fn table(&self, skipped: usize) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "{:<16} {:>6} {:>10} {:>7}\n",
            "type", "runs", "completed", "failed"
        ));
        for (kind, (n, ok, failed)) in &self.runs {
            out.push_str(&format!("{kind:<16} {n:>6} {ok:>10} {failed:>7}\n"));
        }
        if skipped > 0 {
            out.push_str(&format!("({skipped} task(s) skipped by --resume)\n"));
        }
        if !self.metrics.is_empty() {
            out.push_str(&format!(
                "\n{:<16} {:<18} {:<7} {:>5} {:>12}\n",
                "type", "metric", "target", "n", "mean"
            ));
            for ((kind, metric, target), a) in &self.metrics {
                if a.bools > 0 {
                    let rate = 100.0 * a.trues as f64 / a.bools as f64;
                    out.push_str(&format!(
                        "{kind:<16} {metric:<18} {target:<7} {:>5} {:>11.1}%\n",
                        a.bools, rate
                    ));
                }
                if a.n > 0 {
                    let mean = number(a.sum / a.n as f64);
                    out.push_str(&format!(
                        "{kind:<16} {metric:<18} {target:<7} {:>5} {mean:>12}\n",
                        a.n
                    ));
                }
            }
        }
        out
    }
}

/// A mean as a table shows it: 3 decimals, or 4 significant digits below 1.
fn number(x: f64) -> String {
    if x == 0.0 || x.abs() >= 1.0 {
        format!("{x:.3}")
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).clamp(3, 9) as usize;
        format!("{x:.digits$}")
    }
}
