//! Many tasks at once, as `judge lab` runs them: [`run_batch`] runs a batch over a bounded number
//! of slots and hands each finished task to the caller at once; [`done_hashes`] and
//! [`split_done`] implement `--resume` (with `--retry-failed`: [`Resume`]); [`RecordWriter`]
//! appends records as JSON Lines; [`Summary`] counts runs and aggregates scores into the table
//! printed at the end.

use crate::engine::{Lab, LabOutcome};
use crate::tasks::TaskEntry;
use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use verdict_contracts::{RunRecord, RunStatus, ScoreRecord, ScoreValue};

/// Why a batch could not read or write its records.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// A records file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A records file could not be opened for appending.
    #[error("cannot open {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A record could not be written.
    #[error("cannot write a record to {target}: {source}")]
    Write {
        /// The file, or `standard output`.
        target: String,
        /// Why.
        source: io::Error,
    },
}

/// What [`run_batch`] hands over as tasks finish.
#[derive(Debug)]
pub enum BatchEvent {
    /// A task finished (completed or failed): its entry and its outcome.
    Done(Box<TaskEntry>, Box<LabOutcome>),
    /// A task was lost: the engine itself panicked (runners' panics are failed runs, not this).
    Lost(String),
}

/// Runs `entries` on `lab`, at most `concurrency` at once, and calls `on_event` with each task as
/// soon as it finishes (in the order they finish). An error from `on_event` stops the batch
/// (the tasks still running are cancelled) and is returned.
pub async fn run_batch<E>(
    lab: &Lab,
    entries: Vec<TaskEntry>,
    concurrency: NonZeroUsize,
    mut on_event: impl FnMut(BatchEvent) -> Result<(), E>,
) -> Result<(), E> {
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency.get()));
    let mut set = tokio::task::JoinSet::new();
    for entry in entries {
        let lab = lab.clone();
        let permits = permits.clone();
        set.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let outcome = lab.run_entry(&entry).await;
            (entry, outcome)
        });
    }
    while let Some(joined) = set.join_next().await {
        let event = match joined {
            Ok((entry, outcome)) => BatchEvent::Done(Box::new(entry), Box::new(outcome)),
            Err(e) => BatchEvent::Lost(e.to_string()),
        };
        on_event(event)?;
    }
    Ok(())
}

/// Which RunRecords already in `--out` mark their task as done for `--resume`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Resume {
    /// Every whole record, whatever its status (`--resume`).
    #[default]
    AnyRecord,
    /// Only a record whose run completed (`status: "completed"`); a task whose records are all
    /// runs that did not complete (`failed`: the agent timed out, crashed, wrote no JSON, a step
    /// failed; or a `pending` / `running` record another tool wrote) runs again
    /// (`--resume --retry-failed`). A completed run that scored badly is not retried: its scores
    /// are its result.
    RetryFailed,
}

/// The task hashes (`provenance.config.taskHash`) found in a records file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DoneHashes {
    /// The tasks done: skipped by `--resume`.
    pub done: HashSet<String>,
    /// The tasks whose records are all failed runs, run again under [`Resume::RetryFailed`]
    /// (always empty under [`Resume::AnyRecord`]).
    pub retry: HashSet<String>,
}

/// The tasks already in `path` (a RunRecords file, as `--out` writes it), done or to retry as
/// `resume` says; none when it does not exist. A line that is not a whole record (cut short by a
/// crash) is not counted: its task runs again.
pub fn done_hashes(path: &Path, resume: Resume) -> Result<DoneHashes, BatchError> {
    let read_error = |source| BatchError::Read {
        path: path.to_owned(),
        source,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(DoneHashes::default()),
        Err(e) => return Err(read_error(e)),
    };
    let mut hashes = DoneHashes::default();
    for line in BufReader::new(file).lines() {
        let line = line.map_err(read_error)?;
        let Ok(run) = serde_json::from_str::<RunRecord>(&line) else {
            continue;
        };
        let Some(hash) = run.provenance.task_hash() else {
            continue;
        };
        if resume == Resume::AnyRecord || run.status == RunStatus::Completed {
            hashes.retry.remove(hash);
            hashes.done.insert(hash.to_owned());
        } else if !hashes.done.contains(hash) {
            hashes.retry.insert(hash.to_owned());
        }
    }
    Ok(hashes)
}

/// Splits `entries` into those to run and those whose hash is in `done` (skipped).
pub fn split_done(
    entries: Vec<TaskEntry>,
    done: &HashSet<String>,
) -> (Vec<TaskEntry>, Vec<TaskEntry>) {
    entries.into_iter().partition(|e| !done.contains(&e.hash))
}

/// Appends records as JSON Lines, one `write` per record, flushed at once.
pub struct RecordWriter {
    out: Box<dyn Write + Send>,
    target: String,
}

impl std::fmt::Debug for RecordWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordWriter")
            .field("target", &self.target)
            .finish()
    }
}

impl RecordWriter {
    /// Opens `path` for appending (creating it). When the file ends in a line cut short by a
    /// crash, the next record starts on a line of its own.
    pub fn append(path: &Path) -> Result<RecordWriter, BatchError> {
        let open_error = |source| BatchError::Open {
            path: path.to_owned(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(open_error)?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1)).map_err(open_error)?;
            file.read_exact(&mut last).map_err(open_error)?;
            if last[0] != b'\n' {
                file.write_all(b"\n").map_err(open_error)?;
            }
        }
        Ok(RecordWriter {
            out: Box::new(file),
            target: path.display().to_string(),
        })
    }

    /// Writes to `out` (standard output, say), naming it `target` in errors.
    pub fn to_writer(out: Box<dyn Write + Send>, target: impl Into<String>) -> RecordWriter {
        RecordWriter {
            out,
            target: target.into(),
        }
    }

    /// Writes `value` as one JSON line and flushes it.
    pub fn line<T: serde::Serialize>(&mut self, value: &T) -> Result<(), BatchError> {
        let mut text = serde_json::to_string(value).map_err(|e| self.error(e.into()))?;
        text.push('\n');
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| self.error(e))
    }

    fn error(&self, source: io::Error) -> BatchError {
        BatchError::Write {
            target: self.target.clone(),
            source,
        }
    }
}

/// Counts per task type and score aggregates per (type, metric, target kind).
#[derive(Debug, Default)]
pub struct Summary {
    runs: BTreeMap<String, RunCounts>,
    metrics: BTreeMap<(String, String, String), Aggregate>,
    failed: usize,
    lost: usize,
}

#[derive(Debug, Default)]
struct RunCounts {
    runs: usize,
    completed: usize,
    failed: usize,
}

#[derive(Debug, Default)]
struct Aggregate {
    n: usize,
    sum: f64,
    trues: usize,
    bools: usize,
}

impl Summary {
    /// Counts a finished run of a task of type `kind` (`"scenario"` for scenarios) and its scores.
    pub fn add(&mut self, kind: &str, run: &RunRecord, scores: &[ScoreRecord]) {
        let row = self.runs.entry(kind.to_owned()).or_default();
        row.runs += 1;
        if run.status == RunStatus::Completed {
            row.completed += 1;
        } else {
            row.failed += 1;
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

    /// Counts a lost task ([`BatchEvent::Lost`]).
    pub fn add_lost(&mut self) {
        self.lost += 1;
    }

    /// How many runs failed.
    pub fn failed(&self) -> usize {
        self.failed
    }

    /// How many tasks were lost.
    pub fn lost(&self) -> usize {
        self.lost
    }

    /// Whether every task ran and completed.
    pub fn all_completed(&self) -> bool {
        self.failed == 0 && self.lost == 0
    }

    /// The table: runs per type (runs, completed, failed), then per type × metric × target the
    /// rate of `true` for booleans and the mean of numbers; the tasks `skipped` by `--resume` and
    /// the failed ones `retried` by `--retry-failed` are noted.
    pub fn table(&self, skipped: usize, retried: usize) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "{:<16} {:>6} {:>10} {:>7}\n",
            "type", "runs", "completed", "failed"
        ));
        for (kind, c) in &self.runs {
            out.push_str(&format!(
                "{kind:<16} {:>6} {:>10} {:>7}\n",
                c.runs, c.completed, c.failed
            ));
        }
        if skipped > 0 {
            out.push_str(&format!("({skipped} task(s) skipped by --resume)\n"));
        }
        if retried > 0 {
            out.push_str(&format!(
                "({retried} failed task(s) run again by --retry-failed)\n"
            ));
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

/// A mean as the table shows it: 3 decimals, or 4 significant digits below 1.
fn number(x: f64) -> String {
    if x == 0.0 || x.abs() >= 1.0 {
        format!("{x:.3}")
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).clamp(3, 9) as usize;
        format!("{x:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_keep_small_numbers_readable() {
        assert_eq!(number(0.0), "0.000");
        assert_eq!(number(12.5), "12.500");
        assert_eq!(number(0.000123456), "0.0001235");
    }

    fn record(hash: &str, status: &str) -> String {
        serde_json::json!({
            "id": format!("run-{hash}-{status}"), "taskId": hash, "taskType": "atomic",
            "status": status, "metrics": {"latency": 1.0}, "trace": [],
            "startedAt": "2026-01-01T00:00:00Z",
            "provenance": {"runnerId": "command", "runnerVersion": "1",
                           "config": {"taskHash": hash}},
        })
        .to_string()
    }

    #[test]
    fn retry_failed_counts_only_completed_runs_as_done() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        let lines = [
            record("ok", "completed"),
            record("bad", "failed"),
            // Retried once and completed: done.
            record("again", "failed"),
            record("again", "completed"),
            // A later failure does not undo an earlier completed run.
            record("kept", "completed"),
            record("kept", "failed"),
            record("odd", "running"),
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let set = |hashes: &[&str]| hashes.iter().map(|h| (*h).to_owned()).collect();
        let all = done_hashes(&path, Resume::AnyRecord).unwrap();
        assert_eq!(all.done, set(&["ok", "bad", "again", "kept", "odd"]));
        assert!(all.retry.is_empty());
        let retry = done_hashes(&path, Resume::RetryFailed).unwrap();
        assert_eq!(retry.done, set(&["ok", "again", "kept"]));
        assert_eq!(retry.retry, set(&["bad", "odd"]));
    }

    #[test]
    fn writer_starts_a_new_line_after_a_cut_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.jsonl");
        std::fs::write(&path, "{\"cut\":").unwrap();
        let mut w = RecordWriter::append(&path).unwrap();
        w.line(&serde_json::json!({"a": 1})).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"cut\":\n{\"a\":1}\n"
        );
        assert_eq!(
            done_hashes(&path, Resume::AnyRecord).unwrap(),
            DoneHashes::default()
        );
        assert_eq!(
            done_hashes(&dir.path().join("none"), Resume::RetryFailed).unwrap(),
            DoneHashes::default()
        );
    }
}
