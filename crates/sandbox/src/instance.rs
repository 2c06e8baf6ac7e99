//! Host state that belongs to one sandbox instance (design #23).
//!
//! Every [`crate::Sandbox`] claims a name unique on the host (`i` and 16 random hex digits) and
//! holds an exclusive `flock` on `<state_dir>/instances/<name>.lock` for its whole life. What it
//! leaves on the host carries that name: its run cgroups (`<name>-<n>` under a cgroup parent)
//! and the work roots it hands out ([`Instance::work_root`]: `<base>/<name>`). Each place is
//! listed in `<name>.owned` before anything is made there, so that a later instance knows
//! where to look whatever its own configuration (another cgroup name, another work dir).
//! Whether an instance is alive
//! is decided by its lock alone, never by looking for a pid in `/proc`: a process in another
//! pid namespace (a container, `unshare --pid`) sees other pids or none, but the same lock.
//!
//! At start an instance removes what belongs to dead instances: for each lock file nobody
//! holds, it kills and removes that instance's run cgroups, removes its work roots, then its
//! registry files (the lock file last, so that a sweep that dies half-way leaves the rest to
//! the next). What belongs to a live instance is never touched; neither is a run cgroup whose
//! name has no lock file (another state dir's, say). Only a work root whose name has no lock
//! file is removed (a reboot empties `/run`, not the work dir): every instance of a host must
//! therefore share one state dir, the default `/run/verdict`, which also holds the uid slots'
//! locks.
//!
//! A root one-shot sandbox (`judge sandbox`: one run per process) takes over the registry files
//! of a dead instance that left nothing, name and all, and leaves its own when it ends, for the
//! next one: making and removing two files per process cost ~0.3 ms on an ext4 state dir (the
//! removals' inode evictions). "Left nothing" is: no `.owned` file (it listed no place, so
//! made nothing), or a lock file whose first byte says clean (`c`, written by its drop only
//! after it removed everything it made but its v1 `pids` and `cpuacct` cgroups, which it
//! leaves empty under their kept name for the taker to use again: two `mkdir`s and two
//! `rmdir`s fewer per process, see `cgroup::kept_name`; `.owned` then lists places where
//! nothing else of it is left, and is kept, its lines not written again). The taker marks the
//! lock dirty (`d`) before anything else, so its own crash is swept, never taken over. The
//! claim holds as a fresh one does: the lock is an `flock`, kept only if the path still names
//! the locked file. Any other instance treats left files as a dead instance's (sweeping its
//! places finds at most those empty counters) and removes them.

use crate::SandboxError;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where an instance makes things named after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owned {
    /// A cgroup parent: run cgroups `<parent>/<name>-<n>`.
    Cgroup,
    /// A work base: the work root `<base>/<name>`.
    Work,
}

impl Owned {
    fn tag(self) -> &'static str {
        match self {
            Owned::Cgroup => "cgroup",
            Owned::Work => "work",
        }
    }
}

/// The places listed in the `.owned` file at `list`.
fn owned(list: &Path) -> Vec<(Owned, PathBuf)> {
    let text = fs::read(list).unwrap_or_default();
    text.split(|&b| b == b'\n')
        .filter_map(|line| {
            let at = line.iter().position(|&b| b == b' ')?;
            let kind = match &line[..at] {
                b"cgroup" => Owned::Cgroup,
                b"work" => Owned::Work,
                _ => return None,
            };
            Some((kind, PathBuf::from(OsStr::from_bytes(&line[at + 1..]))))
        })
        .collect()
}

/// Removes what the instance `name` made in the places of its `.owned` file.
fn remove_owned(list: &Path, name: &str) {
    for (kind, dir) in owned(list) {
        match kind {
            Owned::Cgroup => {
                crate::cgroup::sweep_instance(&dir, name);
            }
            Owned::Work => remove_tree(&dir.join(name)),
        }
    }
}

/// This process's claim on host state: a unique name and the lock that says it is alive.
#[derive(Debug)]
pub struct Instance {
    name: String,
    registry: PathBuf,
    /// The places listed in its `.owned` file (what its drop removes; the file is for the
    /// instances that sweep after a crash).
    owned: Mutex<Vec<(Owned, PathBuf)>>,
    /// One-shot: the lock file is left for the next one-shot instance to take over.
    leave_lock: bool,
    /// The lines its `.owned` file holds (taken over from a clean instance: that one's; they
    /// are not written again).
    listed: Mutex<Vec<u8>>,
    /// The open lock file, `flock`ed exclusively until drop.
    _lock: File,
}

/// Whether `name` has the form of an instance name.
pub(crate) fn is_instance_name(name: &str) -> bool {
    name.len() == 17 && name.starts_with('i') && name[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn random_name() -> Result<String, SandboxError> {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into the live buffer.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n != bytes.len() as isize {
        return Err(SandboxError::Setup {
            stage: "getrandom for the instance name".into(),
            source: std::io::Error::last_os_error(),
        });
    }
    Ok(format!("i{:016x}", u64::from_ne_bytes(bytes)))
}

/// The registry dir `registry`, made (opening a lock file in it failed with `open_err`);
/// without root, where it cannot be made, this uid's in the temp dir.
fn make_registry(
    registry: PathBuf,
    root: bool,
    open_err: std::io::Error,
) -> Result<PathBuf, SandboxError> {
    if open_err.kind() != std::io::ErrorKind::NotFound && root {
        return Err(SandboxError::io("create lock", &registry, open_err));
    }
    match fs::create_dir_all(&registry) {
        Ok(()) if open_err.kind() == std::io::ErrorKind::NotFound => Ok(registry),
        Err(e) if root => Err(SandboxError::io("create dir", &registry, e)),
        _ => {
            // SAFETY: getuid has no preconditions.
            let uid = unsafe { libc::getuid() };
            let registry = std::env::temp_dir().join(format!("verdict-{uid}-instances"));
            fs::create_dir_all(&registry)
                .map_err(|e| SandboxError::io("create dir", &registry, e))?;
            Ok(registry)
        }
    }
}

fn try_lock(f: &File) -> bool {
    // SAFETY: flock on a descriptor we own.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

impl Instance {
    /// Claims a fresh name in `<state_dir>/instances` and locks it. Without root, where the
    /// state dir may not be writable, a registry of this uid's in the temp dir serves. The
    /// registry dir is made only when the lock file cannot be made for want of it (a one-shot
    /// process pays no `mkdir` and `stat` for a dir that is there).
    ///
    /// First, one pass over the registry removes what dead instances left; with `one_shot`, the
    /// lock file (and name) of a dead instance that left nothing is taken over instead of making
    /// one, and this instance's is left in place when it ends (see the module doc).
    pub(crate) fn claim(
        state_dir: &Path,
        root: bool,
        one_shot: bool,
    ) -> Result<Instance, SandboxError> {
        let mut registry = state_dir.join("instances");
        // Taken over only as root: another uid could lock a root instance's file (it is
        // readable) but not list places beside it.
        if let Some(instance) = sweep_dead(&registry, one_shot && root) {
            return Ok(instance);
        }
        let mut made = false;
        loop {
            let name = random_name()?;
            let path = registry.join(format!("{name}.lock"));
            let lock = match OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_CLOEXEC)
                .open(&path)
            {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) if !made => {
                    made = true;
                    registry = make_registry(registry, root, e)?;
                    continue;
                }
                Err(e) => return Err(SandboxError::io("create lock", &path, e)),
            };
            if !try_lock(&lock) {
                continue;
            }
            if still_named(&lock, &path) {
                return Ok(Instance {
                    name,
                    registry,
                    owned: Mutex::default(),
                    leave_lock: one_shot && root,
                    listed: Mutex::default(),
                    _lock: lock,
                });
            }
        }
    }

    /// Records that this instance makes things named after it in each of `places` (before it
    /// does): one `write` of the `.owned` file for all of them.
    pub(crate) fn register(&self, places: &[(Owned, &Path)]) -> Result<(), SandboxError> {
        let list = self.registry.join(format!("{}.owned", self.name));
        let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
        let mut line = Vec::new();
        for (kind, dir) in places {
            let mut l = kind.tag().as_bytes().to_vec();
            l.push(b' ');
            l.extend_from_slice(dir.as_os_str().as_bytes());
            // Listed already (taken over with the file): not written again.
            if !listed
                .split(|&b| b == b'\n')
                .any(|have| have == l.as_slice())
            {
                line.extend_from_slice(&l);
                line.push(b'\n');
            }
        }
        // Remembered before the write: a failed write may still have written part of it, and
        // dropping the instance then looks in every place it may have listed.
        self.owned_places()
            .extend(places.iter().map(|(k, d)| (*k, d.to_path_buf())));
        if line.is_empty() {
            return Ok(());
        }
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(&list)
            .map_err(|e| SandboxError::io("open", &list, e))?;
        f.write_all(&line)
            .map_err(|e| SandboxError::io("write", &list, e))?;
        listed.extend_from_slice(&line);
        Ok(())
    }

    fn owned_places(&self) -> std::sync::MutexGuard<'_, Vec<(Owned, PathBuf)>> {
        self.owned.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The instance's name (unique on the host while it lives).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A directory of this instance under `base` (`<base>/<name>`, made), for work that must
    /// not outlive it: a later instance removes it if this one dies without doing so. Also
    /// removes the directories under `base` of instances that are dead.
    pub fn work_root(&self, base: &Path) -> Result<PathBuf, SandboxError> {
        fs::create_dir_all(base).map_err(|e| SandboxError::io("create dir", base, e))?;
        let base = fs::canonicalize(base).map_err(|e| SandboxError::io("resolve", base, e))?;
        self.register(&[(Owned::Work, &base)])?;
        self.sweep_dir(&base);
        let dir = base.join(&self.name);
        fs::create_dir_all(&dir).map_err(|e| SandboxError::io("create dir", &dir, e))?;
        Ok(dir)
    }

    /// Removes the instance directories under `base` whose owner is dead: its lock file is
    /// free, or gone (removed by a sweep after the owner died; a live owner keeps it).
    fn sweep_dir(&self, base: &Path) {
        let Ok(rd) = fs::read_dir(base) else { return };
        for entry in rd.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str().filter(|n| is_instance_name(n)) else {
                continue;
            };
            if name == self.name {
                continue;
            }
            let lock = self.registry.join(format!("{name}.lock"));
            let dead = match File::open(&lock) {
                Ok(f) => try_lock(&f),
                Err(e) => e.kind() == std::io::ErrorKind::NotFound,
            };
            if dead {
                remove_tree(&entry.path());
            }
        }
    }
}

/// The state byte at the start of a one-shot instance's lock file: [`CLEAN`] when it ended
/// having removed everything it made (its `.owned` then lists places where nothing of it is
/// left), [`DIRTY`] while it lives (an empty lock file is dirty too).
const CLEAN: u8 = b'c';
/// See [`CLEAN`].
const DIRTY: u8 = b'd';

/// Writes the state byte of the lock file `lock`; whether it was written.
fn set_state(lock: &File, state: u8) -> bool {
    // SAFETY: pwrite of one byte from a live local into a descriptor we own.
    unsafe { libc::pwrite(lock.as_raw_fd(), (&raw const state).cast(), 1, 0) == 1 }
}

/// What a dead instance (its lock `lock`, held by us) left listed, if it left nothing else:
/// no `.owned` file at `list` (it listed no place, so made nothing), or a lock marked
/// [`CLEAN`] (its `.owned` lines then, which are not written again). `None`: it may have left
/// something, and is swept.
fn left_clean(lock: &File, list: &Path) -> Option<Vec<u8>> {
    let mut state = 0u8;
    // SAFETY: pread of one byte into a live local from a descriptor we own.
    let n = unsafe { libc::pread(lock.as_raw_fd(), (&raw mut state).cast(), 1, 0) };
    match fs::read(list) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Vec::new()),
        Ok(text) if n == 1 && state == CLEAN => Some(text),
        _ => None,
    }
}

/// A sweeper that found the lock file at `path` before we locked `lock` may have removed it:
/// a claim holds only if the path still names the locked file.
fn still_named(lock: &File, path: &Path) -> bool {
    match (lock.metadata(), fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
        _ => false,
    }
}

/// Removes what every dead instance of the registry left: its run cgroups (killing what runs
/// in them), its work roots, then its registry files. With `adopt`, the first dead instance
/// that left nothing (no `.owned`) is not removed but returned, taken over (its lock held).
fn sweep_dead(registry: &Path, adopt: bool) -> Option<Instance> {
    let rd = fs::read_dir(registry).ok()?;
    let mut adopted = None;
    for entry in rd.flatten() {
        let file = entry.file_name();
        let Some(name) = file
            .to_str()
            .and_then(|f| f.strip_suffix(".lock"))
            .filter(|n| is_instance_name(n))
        else {
            continue;
        };
        // Read-write when it may be taken over: its state byte is written then.
        let Ok(lock) = OpenOptions::new()
            .read(true)
            .write(adopt)
            .custom_flags(libc::O_CLOEXEC)
            .open(entry.path())
        else {
            continue;
        };
        if !try_lock(&lock) {
            continue; // alive
        }
        let list = registry.join(format!("{name}.owned"));
        if adopt
            && adopted.is_none()
            && still_named(&lock, &entry.path())
            && let Some(listed) = left_clean(&lock, &list)
            // Dirty from now on: a crash of this instance is swept, never taken over.
            && set_state(&lock, DIRTY)
        {
            adopted = Some(Instance {
                name: name.to_string(),
                registry: registry.to_owned(),
                owned: Mutex::default(),
                leave_lock: true,
                listed: Mutex::new(listed),
                _lock: lock,
            });
            continue;
        }
        remove_owned(&list, name);
        let _ = fs::remove_file(&list);
        // Last: while the lock file exists, a sweep that dies here leaves the rest to the
        // next one.
        let _ = fs::remove_file(entry.path());
        tracing::info!(instance = name, "removed what a dead instance left");
    }
    adopted
}

fn remove_tree(dir: &Path) {
    if let Err(e) = fs::remove_dir_all(dir)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(dir = %dir.display(), error = %e, "cannot remove a dead instance's dir");
    }
}

impl Drop for Instance {
    /// Removes what is left of this instance (its run cgroups are gone already: the sandbox
    /// drops its cgroup pool first; a one-shot one's kept counters stay) in the places it
    /// listed (remembered: the `.owned` file is not read back) and its registry files; the
    /// lock goes last.
    fn drop(&mut self) {
        let owned = std::mem::take(&mut *self.owned_places());
        let mut clean = true;
        for (kind, dir) in &owned {
            match kind {
                Owned::Cgroup => clean &= crate::cgroup::remove_own_runs(dir, &self.name),
                Owned::Work => {
                    let root = dir.join(&self.name);
                    remove_tree(&root);
                    clean &= root.symlink_metadata().is_err();
                }
            }
        }
        if self.leave_lock {
            // One-shot: the lock file and `.owned` stay for the next one-shot instance, which
            // takes them over only if marked clean (else any instance sweeps them).
            if clean {
                set_state(&self._lock, CLEAN);
            }
            return;
        }
        if !owned.is_empty() {
            let _ = fs::remove_file(self.registry.join(format!("{}.owned", self.name)));
        }
        let _ = fs::remove_file(self.registry.join(format!("{}.lock", self.name)));
        // `self._lock` closes (unlocks) after the file is gone.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_names_are_recognised() {
        assert!(is_instance_name("i0123456789abcdef"));
        assert!(!is_instance_name("i0123456789abcde"));
        assert!(!is_instance_name("30474-0-3"));
        assert!(!is_instance_name("x0123456789abcdef"));
        assert!(is_instance_name(&random_name().expect("name")));
    }
}
