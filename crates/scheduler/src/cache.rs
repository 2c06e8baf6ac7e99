//! The per-problem cache (design #14).
//!
//! Each problem (`category`, `prob_id`) has at most one current version, keyed by `updated_at`,
//! in `cache_dir/<problem key>/<updated_at>/`. Items in it (compiled standard, random and
//! compare programs, materialised test data) are filled once, atomically (a temporary directory
//! renamed into place), under a per-problem lock. A newer `updated_at` replaces the entry; the
//! old version's directory is removed only when the last submission using it lets it go, so
//! submissions of the old version finish safely. A submission that arrives with an *older*
//! `updated_at` than the cached one gets a private directory, removed after it. The total size
//! is bounded: least recently used problems are evicted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The per-problem cache.
#[derive(Debug)]
pub struct ProblemCache {
    dir: PathBuf,
    max_bytes: u64,
    state: Mutex<CacheState>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// How the cache has served its items (compiled programs, test data) since start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Items found ready.
    pub hits: u64,
    /// Items filled (compiled or materialised).
    pub misses: u64,
    /// The size of the current entries in bytes.
    pub bytes: u64,
}

#[derive(Debug, Default)]
struct CacheState {
    problems: HashMap<String, ProblemEntry>,
    clock: u64,
}

#[derive(Debug)]
struct ProblemEntry {
    version: i64,
    dir: Arc<VersionDir>,
    lock: Arc<Mutex<()>>,
    last_used: u64,
    /// The items' size: what this process filled, plus the items an earlier process left
    /// once measured.
    bytes: u64,
    /// The items an earlier process left in the version dir, not measured yet: only when
    /// another problem could be evicted for this one (a process with one problem, a cold
    /// `judge run`, never walks its data), and off the cache's lock.
    unmeasured: Vec<std::ffi::OsString>,
}

/// One version directory; removed on drop once replaced or evicted.
#[derive(Debug)]
struct VersionDir {
    path: PathBuf,
    stale: AtomicBool,
}

impl Drop for VersionDir {
    fn drop(&mut self) {
        if self.stale.load(Ordering::Acquire) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A submission's hold on one problem version of the cache.
#[derive(Debug, Clone)]
pub struct ProblemHandle {
    dir: Arc<VersionDir>,
    lock: Arc<Mutex<()>>,
    key: String,
}

impl ProblemCache {
    /// Opens (creating) the cache directory.
    pub fn open(dir: &Path, max_bytes: u64) -> std::io::Result<ProblemCache> {
        std::fs::create_dir_all(dir)?;
        Ok(ProblemCache {
            dir: dir.to_owned(),
            max_bytes,
            state: Mutex::new(CacheState::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    fn state(&self) -> MutexGuard<'_, CacheState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The cache key of a problem: a short hash of its category and id.
    pub fn key(category: &str, prob_id: &str) -> String {
        let hash = blake3::hash(format!("{category}\0{prob_id}").as_bytes());
        hash.to_hex()[..24].to_owned()
    }

    /// The name of the cache item `label` holding what is made from `content` (a problem
    /// program, a test datum): the label and a BLAKE3 hash of the content's JSON. The entry is
    /// still refreshed by `updated_at` (the contract's rule); the hash is insurance, so content
    /// a platform changed without a newer `updated_at` gets its own item instead of the old one.
    pub fn content_item(label: &str, content: &impl serde::Serialize) -> String {
        let mut hasher = blake3::Hasher::new();
        // Serialising plain wire types into a hasher cannot fail; if it did, the item would be
        // keyed by the label alone, as before.
        let _ = serde_json::to_writer(HashWriter(&mut hasher), content);
        format!("{label}-{}", &hasher.finalize().to_hex()[..32])
    }

    /// A hold on the problem's version `updated_at`, creating or replacing the entry as needed.
    pub fn problem(
        &self,
        category: &str,
        prob_id: &str,
        updated_at: i64,
    ) -> std::io::Result<ProblemHandle> {
        let key = Self::key(category, prob_id);
        let mut state = self.state();
        state.clock += 1;
        let now = state.clock;
        if let Some(entry) = state.problems.get_mut(&key) {
            if entry.version == updated_at {
                entry.last_used = now;
                return Ok(ProblemHandle {
                    dir: entry.dir.clone(),
                    lock: entry.lock.clone(),
                    key,
                });
            }
            if entry.version > updated_at {
                let path = self
                    .dir
                    .join(&key)
                    .join(format!("old-{updated_at}-{}", uuid::Uuid::now_v7()));
                std::fs::create_dir_all(&path)?;
                let dir = Arc::new(VersionDir {
                    path,
                    stale: AtomicBool::new(true),
                });
                return Ok(ProblemHandle {
                    dir,
                    lock: Arc::new(Mutex::new(())),
                    key,
                });
            }
        }
        let problem_dir = self.dir.join(&key);
        let path = problem_dir.join(updated_at.to_string());
        std::fs::create_dir_all(&path)?;
        let in_use = state.problems.get(&key).map(|e| e.dir.path.clone());
        remove_other_versions(&problem_dir, &path, in_use.as_deref());
        let unmeasured = std::fs::read_dir(&path)?
            .flatten()
            .map(|e| e.file_name())
            .collect();
        let dir = Arc::new(VersionDir {
            path,
            stale: AtomicBool::new(false),
        });
        let lock = Arc::new(Mutex::new(()));
        let entry = ProblemEntry {
            version: updated_at,
            dir: dir.clone(),
            lock: lock.clone(),
            last_used: now,
            bytes: 0,
            unmeasured,
        };
        if let Some(old) = state.problems.insert(key.clone(), entry) {
            old.dir.stale.store(true, Ordering::Release);
        }
        drop(state);
        // A second problem makes the first evictable: what earlier processes left is
        // measured now, once, rather than checked for on every item's use.
        self.measure_on_disk();
        Ok(ProblemHandle { dir, lock, key })
    }

    /// The path of `item` in the problem's version, filled by `fill` (into a fresh directory) the first time.
    pub fn get_or_fill<E>(
        &self,
        handle: &ProblemHandle,
        item: &str,
        fill: impl FnOnce(&Path) -> Result<(), E>,
    ) -> Result<PathBuf, E>
    where
        E: From<std::io::Error>,
    {
        let target = handle.dir.path.join(item);
        let _guard = handle
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if target.is_dir() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            self.touch(handle, 0);
            return Ok(target);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let temp = handle
            .dir
            .path
            .join(format!(".tmp-{item}-{}", uuid::Uuid::now_v7()));
        std::fs::create_dir_all(&temp).map_err(|e| with_path("create", &temp, e))?;
        if let Err(err) = fill(&temp) {
            let _ = std::fs::remove_dir_all(&temp);
            return Err(err);
        }
        if let Err(err) = std::fs::rename(&temp, &target) {
            // Another process sharing the cache dir (design #23) filled the same item
            // meanwhile: its entry is as good as ours (both made from the same content), so
            // ours goes and its is used; the in-process lock cannot see the other process.
            let _ = std::fs::remove_dir_all(&temp);
            if target.is_dir() {
                self.touch(handle, 0);
                return Ok(target);
            }
            return Err(with_path("rename", &temp, err).into());
        }
        self.touch(handle, dir_size(&target));
        Ok(target)
    }

    /// Marks a problem used and adds `bytes` to its size, then evicts over the bound.
    fn touch(&self, handle: &ProblemHandle, bytes: u64) {
        let mut state = self.state();
        state.clock += 1;
        let now = state.clock;
        if let Some(entry) = state.problems.get_mut(&handle.key)
            && Arc::ptr_eq(&entry.dir, &handle.dir)
        {
            entry.last_used = now;
            entry.bytes += bytes;
        }
        let mut total: u64 = state.problems.values().map(|e| e.bytes).sum();
        while total > self.max_bytes {
            let victim = state
                .problems
                .iter()
                .filter(|(key, _)| **key != handle.key)
                .min_by_key(|(_, e)| e.last_used)
                .map(|(key, _)| key.clone());
            let Some(victim) = victim else { break };
            if let Some(entry) = state.problems.remove(&victim) {
                entry.dir.stale.store(true, Ordering::Release);
                total = total.saturating_sub(entry.bytes);
            }
        }
    }

    /// Measures the items earlier processes left, once there is more than one problem (only
    /// then can one be evicted for another). Each list is taken under the lock, so it is
    /// counted once; the walks run without it. Items this process fills have other names
    /// (an item is filled only when absent), so nothing is counted twice.
    fn measure_on_disk(&self) {
        let unmeasured: Vec<(Arc<VersionDir>, Vec<std::ffi::OsString>)> = {
            let mut state = self.state();
            if state.problems.len() < 2 {
                return;
            }
            state
                .problems
                .values_mut()
                .filter(|e| !e.unmeasured.is_empty())
                .map(|e| (e.dir.clone(), std::mem::take(&mut e.unmeasured)))
                .collect()
        };
        for (dir, items) in unmeasured {
            let bytes: u64 = items.iter().map(|i| dir_size(&dir.path.join(i))).sum();
            let mut state = self.state();
            if let Some(entry) = state
                .problems
                .values_mut()
                .find(|e| Arc::ptr_eq(&e.dir, &dir))
            {
                entry.bytes += bytes;
            }
        }
    }

    /// Hits, misses and size since start-up.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes: self.size_bytes(),
        }
    }

    /// The total size of the current entries, in bytes.
    pub fn size_bytes(&self) -> u64 {
        self.state().problems.values().map(|e| e.bytes).sum()
    }
}

impl ProblemHandle {
    /// The version directory (for tests and diagnostics).
    pub fn path(&self) -> &Path {
        &self.dir.path
    }
}

/// Feeds serialised bytes straight into a hasher (no intermediate string).
struct HashWriter<'a>(&'a mut blake3::Hasher);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An I/O error that says what was done to which path.
fn with_path(action: &str, path: &Path, err: std::io::Error) -> std::io::Error {
    std::io::Error::new(
        err.kind(),
        format!("cannot {action} {}: {err}", path.display()),
    )
}

/// Removes version directories of a problem left by an earlier process (not `keep`, not `in_use`).
fn remove_other_versions(problem_dir: &Path, keep: &Path, in_use: Option<&Path>) {
    let Ok(entries) = std::fs::read_dir(problem_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let leftover = name
            .to_string_lossy()
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-');
        if path != keep && Some(path.as_path()) != in_use && leftover {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// The size of a directory tree in bytes (links not followed).
fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.file_type() {
            Ok(t) if t.is_dir() => dir_size(&entry.path()),
            Ok(t) if t.is_file() => entry.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill_with(bytes: usize) -> impl FnOnce(&Path) -> std::io::Result<()> {
        move |dir| std::fs::write(dir.join("f"), vec![b'x'; bytes])
    }

    #[test]
    fn an_item_is_filled_once_per_version() {
        let root = tempfile::tempdir().unwrap();
        let cache = ProblemCache::open(root.path(), 1 << 30).unwrap();
        let handle = cache.problem("c", "p", 1).unwrap();
        let mut calls = 0;
        for _ in 0..3 {
            let path = cache
                .get_or_fill(&handle, "standard", |dir| {
                    calls += 1;
                    fill_with(10)(dir)
                })
                .unwrap();
            assert!(path.join("f").is_file());
        }
        assert_eq!(calls, 1);
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses), (2, 1));
        assert_eq!(stats.bytes, 10);
    }

    #[test]
    fn a_newer_version_replaces_the_old_after_its_users_finish() {
        let root = tempfile::tempdir().unwrap();
        let cache = ProblemCache::open(root.path(), 1 << 30).unwrap();
        let old = cache.problem("c", "p", 1).unwrap();
        let old_item = cache.get_or_fill(&old, "standard", fill_with(10)).unwrap();
        let new = cache.problem("c", "p", 2).unwrap();
        assert_ne!(old.path(), new.path());
        assert!(old_item.is_dir(), "a running submission keeps its version");
        drop(old);
        assert!(
            !old_item.exists(),
            "the replaced version goes with its last user"
        );
        let again = cache.problem("c", "p", 2).unwrap();
        assert_eq!(again.path(), new.path());
    }

    #[test]
    fn an_older_request_gets_a_private_directory() {
        let root = tempfile::tempdir().unwrap();
        let cache = ProblemCache::open(root.path(), 1 << 30).unwrap();
        let current = cache.problem("c", "p", 5).unwrap();
        let older = cache.problem("c", "p", 4).unwrap();
        assert_ne!(current.path(), older.path());
        let private = older.path().to_owned();
        drop(older);
        assert!(!private.exists());
        assert!(current.path().exists());
    }

    #[test]
    fn the_least_recently_used_problem_is_evicted_over_the_bound() {
        let root = tempfile::tempdir().unwrap();
        let cache = ProblemCache::open(root.path(), 150).unwrap();
        let a = cache.problem("c", "a", 1).unwrap();
        cache.get_or_fill(&a, "x", fill_with(100)).unwrap();
        let a_path = a.path().to_owned();
        drop(a);
        let b = cache.problem("c", "b", 1).unwrap();
        cache.get_or_fill(&b, "x", fill_with(100)).unwrap();
        assert!(!a_path.exists(), "a was least recently used");
        assert!(cache.size_bytes() <= 150);
    }

    #[test]
    fn items_left_by_an_earlier_process_are_measured_only_when_another_problem_comes() {
        let root = tempfile::tempdir().unwrap();
        {
            let earlier = ProblemCache::open(root.path(), u64::MAX).unwrap();
            let a = earlier.problem("c", "a", 1).unwrap();
            earlier.get_or_fill(&a, "x", fill_with(100)).unwrap();
        }
        let cache = ProblemCache::open(root.path(), 150).unwrap();
        let a = cache.problem("c", "a", 1).unwrap();
        cache.get_or_fill(&a, "y", fill_with(10)).unwrap();
        assert_eq!(
            cache.size_bytes(),
            10,
            "alone, what an earlier process left is not walked"
        );
        let a_path = a.path().to_owned();
        drop(a);
        let b = cache.problem("c", "b", 1).unwrap();
        cache.get_or_fill(&b, "x", fill_with(100)).unwrap();
        assert!(
            !a_path.exists(),
            "a (110 bytes, least recently used) was evicted"
        );
        assert_eq!(cache.size_bytes(), 100);
    }

    #[test]
    fn content_items_differ_with_the_content_only() {
        let a = ProblemCache::content_item("standard", &serde_json::json!({"text": "a"}));
        let b = ProblemCache::content_item("standard", &serde_json::json!({"text": "b"}));
        assert_ne!(a, b);
        assert!(a.starts_with("standard-"), "{a}");
        assert_eq!(
            a,
            ProblemCache::content_item("standard", &serde_json::json!({"text": "a"}))
        );
    }

    #[test]
    fn an_item_another_process_filled_meanwhile_is_reused_not_an_error() {
        // Two caches on one directory are two processes: neither sees the other's lock.
        let root = tempfile::tempdir().unwrap();
        let (one, two) = (
            ProblemCache::open(root.path(), 1 << 30).unwrap(),
            ProblemCache::open(root.path(), 1 << 30).unwrap(),
        );
        let (h1, h2) = (
            one.problem("c", "p", 1).unwrap(),
            two.problem("c", "p", 1).unwrap(),
        );
        let both_filling = std::sync::Barrier::new(2);
        let fill = |cache: &ProblemCache, handle: &ProblemHandle, byte: u8| {
            cache.get_or_fill(handle, "compare", |dir| {
                std::fs::write(dir.join("f"), [byte])?;
                both_filling.wait();
                Ok::<_, std::io::Error>(())
            })
        };
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| fill(&one, &h1, b'a'));
            let b = s.spawn(|| fill(&two, &h2, b'b'));
            (a.join().unwrap(), b.join().unwrap())
        });
        let (a, b) = (a.expect("first filler"), b.expect("second filler"));
        assert_eq!(a, b, "both use the one item in place");
        assert_eq!(std::fs::read(a.join("f")).unwrap().len(), 1);
        let names: Vec<_> = std::fs::read_dir(h1.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["compare"], "no temporary directory is left behind");
    }

    #[test]
    fn a_failed_fill_leaves_nothing_behind() {
        let root = tempfile::tempdir().unwrap();
        let cache = ProblemCache::open(root.path(), 1 << 30).unwrap();
        let handle = cache.problem("c", "p", 1).unwrap();
        let err = cache.get_or_fill(&handle, "x", |_| Err(std::io::Error::other("boom")));
        assert!(err.is_err());
        let left: Vec<_> = std::fs::read_dir(handle.path()).unwrap().collect();
        assert!(left.is_empty());
    }
}
