//! Jobe's file cache (`PUT /files/{id}`, `HEAD /files/{id}`, a run's `file_list`): files by
//! the id the client chose (CodeRunner: the MD5 of the contents), one directory per category
//! so one tenant never reads another's, on disk under the server's data dir. A cache, as
//! Jobe's is: beyond its size the least recently used files go, and a client that finds one
//! gone (a run answered 404) puts it again.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// Why the cache failed (the disk).
#[derive(Debug, thiserror::Error)]
#[error("the file cache at {path}: {source}")]
pub struct CacheError {
    path: PathBuf,
    source: std::io::Error,
}

/// The cache: a directory, a byte budget.
#[derive(Debug)]
pub struct FileCache {
    root: PathBuf,
    max_bytes: u64,
    writing: Mutex<()>,
}

/// Whether `id` is a file id Jobe takes (its route's `(:alphanum)`).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Whether `category` may name a directory (else it is hashed).
fn dir_name(category: &str) -> String {
    if !category.is_empty()
        && category.len() <= 64
        && category
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        category.to_string()
    } else {
        blake3::hash(category.as_bytes()).to_hex()[..32].to_string()
    }
}

impl FileCache {
    /// A cache in `root` (created) holding at most `max_bytes`.
    pub fn open(root: &Path, max_bytes: u64) -> Result<FileCache, CacheError> {
        std::fs::create_dir_all(root).map_err(|source| CacheError {
            path: root.to_owned(),
            source,
        })?;
        Ok(FileCache {
            root: root.to_owned(),
            max_bytes,
            writing: Mutex::new(()),
        })
    }

    fn path(&self, category: &str, id: &str) -> PathBuf {
        self.root.join(dir_name(category)).join(id)
    }

    /// Whether the cache holds `id` for `category`.
    pub fn contains(&self, category: &str, id: &str) -> bool {
        valid_id(id) && self.path(category, id).is_file()
    }

    /// The contents of `id`, if the cache holds it (its use time is updated).
    pub fn get(&self, category: &str, id: &str) -> Option<Vec<u8>> {
        if !valid_id(id) {
            return None;
        }
        let path = self.path(category, id);
        let bytes = std::fs::read(&path).ok()?;
        if let Ok(file) = std::fs::File::options().append(true).open(&path) {
            let _ = file.set_modified(SystemTime::now());
        }
        Some(bytes)
    }

    /// Stores `bytes` as `id` (replacing it), then trims the cache to its budget.
    pub fn put(&self, category: &str, id: &str, bytes: &[u8]) -> Result<(), CacheError> {
        let path = self.path(category, id);
        let dir = path.parent().unwrap_or(&self.root).to_owned();
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| CacheError { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let _guard = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let mut temp = tempfile::NamedTempFile::new_in(&dir).map_err(io(&dir))?;
        std::io::Write::write_all(&mut temp, bytes).map_err(io(temp.path()))?;
        temp.persist(&path).map_err(|e| CacheError {
            path: path.clone(),
            source: e.error,
        })?;
        self.trim(&path);
        Ok(())
    }

    /// Removes the least recently used files until the cache is within its budget (`keep`
    /// stays).
    fn trim(&self, keep: &Path) {
        let mut files = Vec::new();
        let mut total = 0u64;
        let Ok(dirs) = std::fs::read_dir(&self.root) else {
            return;
        };
        for dir in dirs.flatten() {
            let Ok(entries) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(meta) = entry.metadata() else { continue };
                if !meta.is_file() {
                    continue;
                }
                total += meta.len();
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                files.push((used, meta.len(), entry.path()));
            }
        }
        if total <= self.max_bytes {
            return;
        }
        files.sort();
        for (_, len, path) in files {
            if total <= self.max_bytes {
                break;
            }
            if path != keep && std::fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_kept_per_category_and_the_least_recently_used_go_first() {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = FileCache::open(dir.path(), 10).expect("open");
        cache.put("course", "abcdefgh1", b"12345").expect("put");
        assert!(cache.contains("course", "abcdefgh1"));
        assert!(
            !cache.contains("other", "abcdefgh1"),
            "another category's file"
        );
        assert_eq!(
            cache.get("course", "abcdefgh1").as_deref(),
            Some(&b"12345"[..])
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache.put("course", "abcdefgh2", b"12345").expect("put");
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache.put("course", "abcdefgh3", b"12345").expect("put");
        assert!(!cache.contains("course", "abcdefgh1"), "the oldest went");
        assert!(cache.contains("course", "abcdefgh3"));
        assert!(!cache.contains("course", "../x"));
    }
}
