//! Batches on disk (design #22 for batches): `<dir>/<key>.request.json` holds the id, the
//! category and the request text, written and synced before the client hears `202`;
//! `<key>.report.json` holds the report once the batch ended. At start, a request without a
//! report is judged again; one with a report is served from it. `<key>` is a hash of the id
//! (a client-chosen id never becomes a path).

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use verdict_contracts::batch::{BatchReport, BatchState};

/// What is kept of an accepted batch.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Saved {
    pub id: String,
    pub category: String,
    pub request: String,
}

/// A batch's report on disk and how it ended.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Ended {
    pub state: BatchState,
    pub report: BatchReport,
}

fn key(id: &str) -> String {
    blake3::hash(id.as_bytes()).to_hex()[..32].to_owned()
}

fn request_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.request.json", key(id)))
}

fn report_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.report.json", key(id)))
}

/// Writes `bytes` to `path` atomically and durably (a temporary file synced, renamed, the
/// directory synced).
fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    std::fs::File::open(dir)?.sync_all()
}

/// Keeps an accepted batch.
pub(crate) fn save_request(dir: &Path, saved: &Saved) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(saved).map_err(std::io::Error::other)?;
    write_durably(&request_path(dir, &saved.id), &bytes)
}

/// [`save_request`] on a blocking thread (an accept runs on the async threads), its failure
/// the batch's `Io` error naming `dir`.
pub(crate) async fn save_request_off_thread(
    dir: &Path,
    saved: Saved,
) -> Result<(), super::BatchError> {
    let owned = dir.to_owned();
    tokio::task::spawn_blocking(move || save_request(&owned, &saved))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
        .map_err(|source| super::BatchError::Io {
            path: dir.to_owned(),
            source,
        })
}

/// Keeps a batch's end.
pub(crate) fn save_report(dir: &Path, id: &str, ended: &Ended) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(ended).map_err(std::io::Error::other)?;
    write_durably(&report_path(dir, id), &bytes)
}

/// A batch read back: its request, and its end with when it ended, if it ended.
pub(crate) type Kept = (Saved, Option<(Ended, SystemTime)>);

/// Forgets a batch: its request and report files, and a front end's results and published
/// mark (a missing file is no error).
pub(crate) fn remove(dir: &Path, id: &str) -> std::io::Result<()> {
    for path in [
        request_path(dir, id),
        report_path(dir, id),
        results_path(dir, id),
        published_path(dir, id),
    ] {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Every batch kept in `dir`, with its end and when it ended (its report's time) when it has
/// one (unreadable files are skipped with a warning: they cannot be judged again).
pub(crate) fn load(dir: &Path) -> std::io::Result<Vec<Kept>> {
    let mut found = Vec::new();
    for item in std::fs::read_dir(dir)? {
        let path = item?.path();
        let is_request = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".request.json"));
        if !is_request {
            continue;
        }
        let saved: Saved = match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        {
            Ok(saved) => saved,
            Err(err) => {
                tracing::warn!(path = %path.display(), "skipping a batch that cannot be read: {err}");
                continue;
            }
        };
        let report = report_path(dir, &saved.id);
        let ended = std::fs::read(&report)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .map(|ended| {
                let at = std::fs::metadata(&report).and_then(|m| m.modified());
                (ended, at.unwrap_or_else(|_| SystemTime::now()))
            });
        found.push((saved, ended));
    }
    Ok(found)
}

fn results_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.results.ndjson", key(id)))
}

fn published_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.published", key(id)))
}

/// Appends one line (a result a front end consumed) to the batch's results, synced.
pub(crate) fn append_result(dir: &Path, id: &str, line: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(results_path(dir, id))?;
    let mut bytes = line.to_vec();
    bytes.push(b'\n');
    file.write_all(&bytes)?;
    file.sync_data()
}

/// The result lines kept for a batch (none when there are none).
pub(crate) fn load_results(dir: &Path, id: &str) -> Vec<Vec<u8>> {
    std::fs::read(results_path(dir, id))
        .map(|bytes| {
            bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect()
        })
        .unwrap_or_default()
}

/// Notes that every message of an accepted batch reached the broker.
pub(crate) fn mark_published(dir: &Path, id: &str) -> std::io::Result<()> {
    write_durably(&published_path(dir, id), b"")
}

/// Whether every message of the batch reached the broker.
pub(crate) fn is_published(dir: &Path, id: &str) -> bool {
    published_path(dir, id).exists()
}
