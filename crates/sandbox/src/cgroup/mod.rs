//! The cgroup layer: detection, a run's cgroups (fresh, or a slot's kept ones), limits,
//! readings, removal.
//!
//! One interface ([`Hierarchy`], [`RunCgroup`]) over the two kernels' layouts, each in its own
//! module as youki's `libcgroups` splits them: [`v1`] (a directory per controller:
//! `memory`, `pids`, `cpuacct`) and [`v2`] (one unified directory). The rest of the sandbox
//! never asks which one it has; [`pool`] makes run cgroups ahead of time and removes used ones
//! off the runs' path.

mod pool;
pub(crate) mod v1;
pub(crate) mod v2;

pub(crate) use pool::CgroupPool;

use crate::SandboxError;
use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The cgroup hierarchy found at start-up.
#[derive(Debug, Clone)]
pub(crate) enum Hierarchy {
    /// v1: a parent directory under each controller.
    V1(v1::Hierarchy),
    /// v2: one parent directory in the unified hierarchy.
    V2(v2::Hierarchy),
}

/// Detects a usable hierarchy under `mount` (normally `/sys/fs/cgroup`, v2 first) and makes
/// `name` in it.
pub(crate) fn detect(mount: &Path, name: &str) -> Result<Hierarchy, String> {
    if v2::is_cgroup2(mount) {
        v2::detect(mount, name).map(Hierarchy::V2)
    } else {
        v1::detect(mount, name).map(Hierarchy::V1)
    }
}

impl Hierarchy {
    /// The directories run cgroups are made in (one per v1 controller, one for v2).
    pub(crate) fn parents(&self) -> Vec<PathBuf> {
        match self {
            Hierarchy::V1(h) => h.parents(),
            Hierarchy::V2(h) => h.parents(),
        }
    }
}

/// Whether `dir_name` is a run cgroup of the instance `instance` (`<instance>-<n>`).
fn is_run_of(dir_name: &str, instance: &str) -> bool {
    dir_name
        .strip_prefix(instance)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Kills what is left in the run cgroups of the instance `instance` under `parent` (a
/// cgroup parent dir of either version) and removes them; whether none is left.
pub(crate) fn sweep_instance(parent: &Path, instance: &str) -> bool {
    sweep_runs(parent, instance, None)
}

/// [`sweep_instance`], but for the run cgroup named `keep`.
fn sweep_runs(parent: &Path, instance: &str, keep: Option<&str>) -> bool {
    let rd = match fs::read_dir(parent) {
        Ok(rd) => rd,
        Err(e) => return e.kind() == ErrorKind::NotFound,
    };
    let mut all = true;
    for entry in rd.flatten() {
        if !entry
            .file_name()
            .to_str()
            .is_some_and(|n| is_run_of(n, instance) && Some(n) != keep)
        {
            continue;
        }
        let dir = entry.path();
        let removed = remove_killing(&dir).is_ok();
        if removed {
            tracing::info!(cgroup = %dir.display(), "removed a dead instance's run cgroup");
        }
        all &= removed;
    }
    all
}

/// The `n` of the next run cgroup name this process gives ([`run_name`]).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A name for a new run cgroup of the instance `instance`: `<instance>-<n>`, unique while
/// the instance lives (see [`crate::instance`]).
pub(crate) fn run_name(instance: &str) -> String {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{instance}-{n}")
}

/// The `n` of [`kept_name`], which [`run_name`] never gives.
const KEPT_N: u64 = u64::MAX;

/// The name of a one-shot instance's kept v1 `pids` and `cpuacct` cgroups: a run cgroup name
/// of the instance (swept with its others) that [`run_name`] never gives. A one-shot process
/// leaves them, empty, for the next one-shot process that takes the instance over (see
/// [`crate::instance`] and [`v1::Counters`]).
pub(crate) fn kept_name(instance: &str) -> String {
    format!("{instance}-{KEPT_N}")
}

/// Removes what is left of this process's instance `instance`'s run cgroups under `parent`.
/// When this process gave few names ([`run_name`]: a one-shot `judge sandbox` gives two), one
/// `rmdir` each, by name (most fail with ENOENT: each run removed its own), instead of listing
/// `parent` (a v1 cgroup dir lists its ~30 control files too); any other failure (a process
/// left in one) and it is [`sweep_instance`]d (killed, then removed). Every run cgroup of the
/// instance has such a name: the instance's name is its own (see [`crate::instance`]) and
/// every run cgroup name comes from [`run_name`]. A one-shot instance's kept counters
/// ([`kept_name`]) are not removed (by name or by listing).
///
/// Whether none is left.
pub(crate) fn remove_own_runs(parent: &Path, instance: &str) -> bool {
    let given = NEXT.load(Ordering::Relaxed);
    let sweep = || sweep_runs(parent, instance, Some(&kept_name(instance)));
    if given > 8 {
        return sweep();
    }
    for n in 0..given {
        match fs::remove_dir(parent.join(format!("{instance}-{n}"))) {
            Ok(()) => tracing::info!(cgroup = %parent.display(), n, "removed a run cgroup left"),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(_) => return sweep(),
        }
    }
    true
}

/// Readings of a finished run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Readings {
    pub cpu_ns: u64,
    pub peak_bytes: u64,
    pub oom_kills: u64,
    pub pids_max_events: u64,
    /// File pages still charged when the run ended (page cache of what it wrote or read,
    /// tmpfs pages); read only when the peak could include them (see `classify`).
    pub file_bytes: u64,
}

/// The part of a run's cgroups that every run gets fresh (made ahead of time by the pool):
/// on v1 the `memory` cgroup, on v2 the run's one directory.
#[derive(Debug)]
pub(crate) enum Fresh {
    /// The run's v1 `memory` cgroup.
    V1(v1::Memory),
    /// The run's v2 directory.
    V2(v2::RunCgroup),
}

/// What a slot keeps between its runs: on v1 its `pids` and `cpuacct` cgroups (see
/// [`v1::Counters`] for why that is sound).
pub(crate) type Kept = v1::Counters;

impl Fresh {
    /// Makes the fresh part of a run cgroup `name` under `h`, with no limits yet (nothing is
    /// left on failure).
    pub(crate) fn create(h: &Hierarchy, name: &str) -> Result<Fresh, SandboxError> {
        let (made, dir) = match h {
            Hierarchy::V1(h) => (
                v1::Memory::create(h, name).map(Fresh::V1),
                v1::Memory::dir_of(h, name),
            ),
            Hierarchy::V2(h) => {
                let [dir] = v2::RunCgroup::dirs_of(h, name);
                (v2::RunCgroup::create(h, name).map(Fresh::V2), dir)
            }
        };
        if made.is_err() {
            let _ = fs::remove_dir(dir);
        }
        made
    }

    fn into_removal(self) -> Removal {
        Removal {
            fresh: Some(self),
            dirs: Vec::new(),
        }
    }

    /// Closes the control files and returns the directories (to remove).
    fn into_dirs(self) -> Vec<PathBuf> {
        match self {
            Fresh::V1(m) => vec![m.into_dir()],
            Fresh::V2(cg) => cg.dirs().to_vec(),
        }
    }
}

/// Cgroup directories to remove, killing stragglers first if one is busy. A run's fresh
/// cgroup comes with its control files still open: they are closed where it is removed, off
/// the run's path (closing half a dozen kernfs files took ~19 us of every run here).
#[derive(Debug)]
pub(crate) struct Removal {
    fresh: Option<Fresh>,
    dirs: Vec<PathBuf>,
}

impl Removal {
    /// Closes the fresh cgroup's control files and removes the directories; the last error, if
    /// any.
    pub(crate) fn remove(self) -> Result<(), SandboxError> {
        let mut last = Ok(());
        let fresh = self.fresh.map(Fresh::into_dirs).unwrap_or_default();
        for d in fresh.into_iter().chain(self.dirs) {
            if let Err(source) = remove_killing(&d) {
                last = Err(SandboxError::Cgroup { path: d, source });
            }
        }
        last
    }
}

/// Removes the cgroup directory `dir` (gone already counts as removed), killing what is left
/// in it while it is busy: v2 writes `cgroup.kill`, v1 (which has none) kills each pid listed.
/// Up to 50 tries, 2 ms apart.
fn remove_killing(dir: &Path) -> std::io::Result<()> {
    let mut tries = 0;
    loop {
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) if tries >= 50 => return Err(e),
            Err(_) => {
                tries += 1;
                if fs::write(dir.join("cgroup.kill"), "1").is_err() {
                    v1::kill_listed(dir);
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// The cgroups of one run. On v2 one directory no process joined before. On v1 a `memory`
/// cgroup no process joined before, and the slot's `pids` and `cpuacct` cgroups, which only
/// the slot's earlier runs used and which hold no process when the run starts (see
/// [`v1::Counters`]).
#[derive(Debug)]
pub(crate) enum RunCgroup {
    /// A directory in each v1 controller.
    V1(v1::RunCgroup),
    /// One v2 directory.
    V2(v2::RunCgroup),
}

/// Dispatches a method call to the version's `RunCgroup`.
macro_rules! each {
    ($self:expr, $cg:ident => $e:expr) => {
        match $self {
            RunCgroup::V1($cg) => $e,
            RunCgroup::V2($cg) => $e,
        }
    };
}

impl RunCgroup {
    /// A run's cgroups: `fresh`, and on v1 the slot's `kept` counters (reset) or others named
    /// after `instance`: new ones, or for a `one_shot` sandbox those an earlier one-shot
    /// process of the instance left ([`kept_name`]). On failure nothing is left (the kept
    /// counters are removed).
    pub(crate) fn assemble(
        fresh: Fresh,
        kept: Option<Kept>,
        h: &Hierarchy,
        instance: &str,
        one_shot: bool,
    ) -> Result<RunCgroup, SandboxError> {
        match (fresh, h) {
            (Fresh::V1(memory), Hierarchy::V1(h)) => {
                let counters = match kept {
                    Some(mut c) => c.reset().map(|()| c),
                    None if one_shot => v1::Counters::create(h, &kept_name(instance)),
                    None => v1::Counters::create(h, &run_name(instance)),
                };
                match counters {
                    Ok(counters) => Ok(RunCgroup::V1(v1::RunCgroup { memory, counters })),
                    Err(e) => {
                        let _ = Fresh::V1(memory).into_removal().remove();
                        Err(e)
                    }
                }
            }
            (Fresh::V2(cg), _) => Ok(RunCgroup::V2(cg)),
            (fresh, _) => {
                let _ = fresh.into_removal().remove();
                Err(SandboxError::Setup {
                    stage: "the run cgroup".into(),
                    source: std::io::Error::from(ErrorKind::InvalidInput),
                })
            }
        }
    }

    /// Sets the limits of the run.
    pub(crate) fn set_limits(
        &mut self,
        memory_bytes: Option<u64>,
        pids: u32,
    ) -> Result<(), SandboxError> {
        each!(self, cg => cg.set_limits(memory_bytes, pids))
    }

    /// Raw fds of the files the program joins through (`tasks` on v1, `cgroup.procs` on v2),
    /// for it to write `0` into.
    pub(crate) fn procs_fds(&self) -> Vec<RawFd> {
        match self {
            RunCgroup::V1(cg) => cg.tasks().iter().map(|f| f.as_raw_fd()).collect(),
            RunCgroup::V2(cg) => cg.procs().iter().map(AsRawFd::as_raw_fd).collect(),
        }
    }

    /// CPU time used so far, in nanoseconds.
    pub(crate) fn cpu_ns(&self) -> u64 {
        each!(self, cg => cg.cpu_ns())
    }

    /// Memory charged now, in bytes.
    pub(crate) fn usage_bytes(&self) -> u64 {
        each!(self, cg => cg.usage_bytes())
    }

    /// File pages charged now (page cache and tmpfs pages), in bytes.
    pub(crate) fn file_bytes(&self) -> u64 {
        each!(self, cg => cg.file_bytes())
    }

    /// Reads peak memory, OOM kills and pids-limit events.
    pub(crate) fn readings(&self) -> Readings {
        each!(self, cg => cg.readings())
    }

    /// How long the run's threads have waited on a CPU run queue (runnable, not running), in
    /// ns: the sum of the second field of each live thread's `/proc/<tid>/schedstat`. `None`
    /// when no thread's could be read. A program that sleeps or blocks waits on no run queue;
    /// one kept off the CPUs by the host's other work does (docs/sandbox.md, Wall time).
    pub(crate) fn cpu_wait_ns(&self) -> Option<u64> {
        let threads = match self {
            RunCgroup::V1(cg) => cg.memory.threads_file(),
            RunCgroup::V2(cg) => cg.threads_file(),
        };
        let text = fs::read_to_string(threads).ok()?;
        let mut total = None;
        for tid in text.lines().filter_map(|l| l.trim().parse::<u32>().ok()) {
            let Ok(stat) = fs::read_to_string(format!("/proc/{tid}/schedstat")) else {
                continue;
            };
            if let Some(wait) = stat
                .split_whitespace()
                .nth(1)
                .and_then(|w| w.parse::<u64>().ok())
            {
                total = Some(total.unwrap_or(0u64).saturating_add(wait));
            }
        }
        total
    }

    /// Kills every process in the cgroup.
    pub(crate) fn kill_all(&self) {
        each!(self, cg => cg.kill_all())
    }

    /// Ends the run: what to remove, and (v1) the counters for the slot to keep when `clean`
    /// (the run's zygote answered, so it had killed and reaped every process of the run). A
    /// run that did not end cleanly (a killed box, whose processes may still be dying) has
    /// every one of its cgroups removed, and the slot makes new counters for its next run.
    pub(crate) fn finish(self, clean: bool) -> (Removal, Option<Kept>) {
        match self {
            RunCgroup::V1(v1::RunCgroup { memory, counters }) => {
                let mut removal = Fresh::V1(memory).into_removal();
                if clean {
                    (removal, Some(counters))
                } else {
                    removal.dirs.extend(counters.into_dirs());
                    (removal, None)
                }
            }
            RunCgroup::V2(cg) => (Fresh::V2(cg).into_removal(), None),
        }
    }
}

/// SIGKILLs every pid of a `cgroup.procs` text.
fn kill_pids(procs: &str) {
    for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

fn write_file(path: &Path, value: &str) -> Result<(), SandboxError> {
    fs::write(path, value).map_err(|source| SandboxError::Cgroup {
        path: path.to_owned(),
        source,
    })
}

/// Writes `value` to a control file opened ahead of time (`path` names it in errors; `None`:
/// the kernel lacks it).
fn write_open(f: &Option<File>, path: &Path, value: &str) -> Result<(), SandboxError> {
    use std::io::Write;
    let err = |source| SandboxError::Cgroup {
        path: path.to_owned(),
        source,
    };
    let f = f.as_ref().ok_or_else(|| err(ErrorKind::NotFound.into()))?;
    (&*f).write_all(value.as_bytes()).map_err(err)
}

/// A control file a run reads only sometimes (`memory.stat`, the current usage: see
/// `classify`), opened on its first read rather than ahead of time for every run.
#[derive(Debug)]
pub(crate) struct OnDemand {
    name: &'static str,
    file: OnceLock<Option<File>>,
}

impl OnDemand {
    /// The control file `name` (in the directory [`OnDemand::get`] is given), not opened yet.
    pub(crate) fn new(name: &'static str) -> OnDemand {
        OnDemand {
            name,
            file: OnceLock::new(),
        }
    }

    /// The file in `dir`, opened on the first call (`None`: the kernel lacks it).
    pub(crate) fn get(&self, dir: &Path) -> &Option<File> {
        self.file
            .get_or_init(|| File::open(dir.join(self.name)).ok())
    }
}

/// Reads `memory.stat` from its start (`None`: empty).
fn read_stat(f: &Option<File>) -> String {
    read_start::<4096>(f)
}

/// Reads a small opened control file from its start (`None`: empty).
fn read_small(f: &Option<File>) -> String {
    read_start::<512>(f)
}

/// Reads up to `N` bytes of an opened control file from its start, into a buffer on the
/// stack (`None`: empty).
fn read_start<const N: usize>(f: &Option<File>) -> String {
    let mut buf = [0u8; N];
    let n = f
        .as_ref()
        .map_or(0, |f| f.read_at(&mut buf, 0).unwrap_or(0));
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

fn open_w(p: PathBuf) -> Result<File, SandboxError> {
    OpenOptions::new()
        .write(true)
        .open(&p)
        .map_err(|source| SandboxError::Cgroup { path: p, source })
}

fn open_r(p: PathBuf) -> Result<File, SandboxError> {
    File::open(&p).map_err(|source| SandboxError::Cgroup { path: p, source })
}

fn open_rw(p: PathBuf) -> Result<File, SandboxError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .open(&p)
        .map_err(|source| SandboxError::Cgroup { path: p, source })
}

fn mkdir(path: &Path) -> Result<(), SandboxError> {
    made_new(path).map(drop)
}

/// Makes the directory `path`; whether it was made (`false`: it was there).
fn made_new(path: &Path) -> Result<bool, SandboxError> {
    match fs::create_dir(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(source) => Err(SandboxError::Cgroup {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Parses a `key value` line file (`memory.events`, `cpu.stat`, `pids.events`,
/// `memory.oom_control`) and returns the value of `key`.
pub(crate) fn keyed_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        if it.next() == Some(key) {
            it.next().and_then(|v| v.parse().ok())
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instances_own_run_cgroups_are_removed_by_the_names_given() {
        let parent = tempfile::tempdir().expect("parent");
        let instance = "i00000000000000aa";
        let given = [run_name(instance), run_name(instance)];
        for name in &given {
            fs::create_dir(parent.path().join(name)).expect("mkdir");
        }
        // A name this process never gave (another process's, were the name shared): by
        // name, it is not looked for; a listing would have removed it.
        let never = parent.path().join(format!("{instance}-{}", 1u64 << 40));
        fs::create_dir(&never).expect("mkdir");
        // Only this test gives names in the unit tests' process: few, so by name.
        assert!(NEXT.load(Ordering::Relaxed) <= 8);
        assert!(
            remove_own_runs(parent.path(), instance),
            "by name, all gone"
        );
        for name in &given {
            assert!(!parent.path().join(name).exists(), "{name} left");
        }
        assert!(never.exists(), "removed by listing, not by name");
    }

    #[test]
    fn an_instances_own_sweep_keeps_its_one_shot_counters_and_any_other_sweep_removes_them() {
        let parent = tempfile::tempdir().expect("parent");
        let instance = "i00000000000000bb";
        let [run, kept] = [format!("{instance}-3"), kept_name(instance)];
        for name in [&run, &kept] {
            fs::create_dir(parent.path().join(name)).expect("mkdir");
        }
        assert!(
            is_run_of(&kept, instance),
            "a kept name others' sweeps would miss"
        );
        assert!(sweep_runs(parent.path(), instance, Some(&kept)));
        assert!(!parent.path().join(&run).exists(), "{run} left");
        assert!(parent.path().join(&kept).exists(), "{kept} removed");
        assert!(sweep_instance(parent.path(), instance));
        assert!(!parent.path().join(&kept).exists(), "{kept} left");
    }

    #[test]
    fn keyed_value_parses_v2_and_v1_files() {
        let events = "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(keyed_value(events, "oom_kill"), Some(1));
        assert_eq!(keyed_value(events, "max"), Some(12));
        let stat = "usage_usec 501234\nuser_usec 500000\nsystem_usec 1234\n";
        assert_eq!(keyed_value(stat, "usage_usec"), Some(501_234));
        let oom = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(keyed_value(oom, "oom_kill"), Some(3));
        assert_eq!(keyed_value(oom, "missing"), None);
        assert_eq!(keyed_value("max 0\n", "max"), Some(0));
    }

    #[test]
    fn run_cgroups_are_told_apart_by_instance() {
        assert!(is_run_of("i0123456789abcdef-0", "i0123456789abcdef"));
        assert!(is_run_of("i0123456789abcdef-42", "i0123456789abcdef"));
        assert!(!is_run_of("i0123456789abcdef-", "i0123456789abcdef"));
        assert!(!is_run_of("i0123456789abcdef-4x", "i0123456789abcdef"));
        assert!(!is_run_of("i1123456789abcdef-4", "i0123456789abcdef"));
        assert!(!is_run_of("30474-0-3", "i0123456789abcdef"));
    }
}
