//! `judge view RUNS.jsonl [--scores SCORES.jsonl] [-o report.html]`: writes the Agent Lab viewer
//! as one self-contained HTML file (the records embedded, no external request), to open from
//! disk or mail. Lines that are not a RunRecord (or ScoreRecord) are skipped with a warning on
//! stderr and a note in the report: a line cut short by a crash must not hide the others.

use anyhow::{Context as _, bail};
use serde_json::Value;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use verdict_contracts::{RunRecord, ScoreRecord};
use verdict_web::{LabData, lab_report_html};

/// Arguments of `judge view`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// RunRecords, one JSON object per line (`judge lab --out`); `-` reads stdin.
    pub runs: PathBuf,
    /// ScoreRecords, one per line (`judge lab --scores`).
    #[arg(long, value_name = "FILE")]
    pub scores: Option<PathBuf>,
    /// Where to write the HTML file (stdout when absent).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The report's title (default: the runs file's name).
    #[arg(long)]
    pub title: Option<String>,
}

/// Runs `judge view`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut notes = Vec::new();
    let (runs, runs_lines) = read_records::<RunRecord>(&args.runs, "RunRecord", &mut notes)?;
    let scores = match &args.scores {
        Some(path) => {
            let (scores, lines) = read_records::<ScoreRecord>(path, "ScoreRecord", &mut notes)?;
            refuse_swapped::<RunRecord>(path, "--scores", "ScoreRecord", &scores, &lines)?;
            scores
        }
        None => Vec::new(),
    };
    refuse_swapped::<ScoreRecord>(&args.runs, "RUNS", "RunRecord", &runs, &runs_lines)?;
    for note in &notes {
        tracing::warn!("{note}");
    }
    let title = args.title.unwrap_or_else(|| {
        args.runs.file_name().map_or_else(
            || "Agent Lab runs".into(),
            |n| n.to_string_lossy().into_owned(),
        )
    });
    let html = lab_report_html(&LabData {
        title,
        runs,
        scores,
        notes,
    });
    match &args.out {
        Some(path) => std::fs::write(path, html)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout()
            .lock()
            .write_all(html.as_bytes())
            .context("cannot write to stdout")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a file of which no line is the wanted record while it has lines: the two files given
/// the wrong way round (said so), or another file altogether (a tasks file): an empty report
/// would look like "no runs".
fn refuse_swapped<Other: serde::de::DeserializeOwned>(
    path: &Path,
    role: &str,
    kind: &str,
    records: &[Value],
    skipped: &[Value],
) -> anyhow::Result<()> {
    if !records.is_empty() || skipped.is_empty() {
        return Ok(());
    }
    if skipped.iter().any(|v| Other::deserialize(v).is_ok()) {
        let other = if kind == "RunRecord" {
            "ScoreRecords"
        } else {
            "RunRecords"
        };
        bail!(
            "{} ({role}) holds {other}, not a single {kind}: the runs file comes first and the \
             scores go after --scores (judge view RUNS.jsonl --scores SCORES.jsonl)",
            path.display()
        );
    }
    bail!(
        "{} ({role}) holds no {kind} in its {} JSON lines (is it the tasks file? judge view \
         takes what `judge lab --out` and `--scores` wrote: judge view RUNS.jsonl --scores \
         SCORES.jsonl)",
        path.display(),
        skipped.len()
    )
}

/// The lines of `path` that are `T`, as read (their JSON, unchanged), and the JSON lines that
/// are not; a note per line skipped.
fn read_records<T: serde::de::DeserializeOwned>(
    path: &Path,
    kind: &str,
    notes: &mut Vec<String>,
) -> anyhow::Result<(Vec<Value>, Vec<Value>)> {
    let mut text = String::new();
    if path == Path::new("-") {
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read stdin")?;
    } else {
        text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
    }
    let mut records = Vec::new();
    let mut others = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let place = format!("{}:{}", path.display(), number + 1);
        let value: Value = match serde_json::from_str(line) {
            Ok(value) => value,
            Err(err) => {
                notes.push(format!("{place}: skipped, not JSON ({err})"));
                continue;
            }
        };
        if let Err(err) = T::deserialize(&value) {
            notes.push(format!("{place}: skipped, not a {kind} ({err})"));
            others.push(value);
            continue;
        }
        records.push(value);
    }
    Ok((records, others))
}
