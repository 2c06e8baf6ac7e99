//! Batches on disk (design #22 for batches): `<dir>/<key>.request.json` holds the id, the
//! category and the request text, written and synced before the client hears `202`;
//! `<key>.report.json` holds the report once the batch ended. At start, a request without a
//! report is judged again; one with a report is served from it. `<key>` is a hash of the id
//! (a client-chosen id never becomes a path).

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
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

/// Keeps a batch's end.
pub(crate) fn save_report(dir: &Path, id: &str, ended: &Ended) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(ended).map_err(std::io::Error::other)?;
    write_durably(&report_path(dir, id), &bytes)
}

/// Every batch kept in `dir`, with its end when it has one (unreadable files are skipped with
/// a warning: they cannot be judged again).
pub(crate) fn load(dir: &Path) -> std::io::Result<Vec<(Saved, Option<Ended>)>> {
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
        let ended = std::fs::read(report_path(dir, &saved.id))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        found.push((saved, ended));
    }
    Ok(found)
}
