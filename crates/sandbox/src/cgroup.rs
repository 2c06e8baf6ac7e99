//! Small cgroup v1 and v2 layer: detection, one fresh cgroup per run, limits, readings, removal.
//!
//! v1 (`memory`, `pids`, `cpuacct` hierarchies): `memory.limit_in_bytes` and
//! `memory.memsw.limit_in_bytes` (no swap), `pids.max`, `cpuacct.usage`,
//! `memory.max_usage_in_bytes` (peak), `memory.oom_control` (`oom_kill` counter), `pids.events`.
//! v2 (one hierarchy with `memory` and `pids` enabled): `memory.max`, `memory.swap.max` 0,
//! `pids.max`, `cpu.stat` (`usage_usec`), `memory.peak`, `memory.events` (`oom_kill`),
//! `pids.events`, `cgroup.kill`.

use crate::SandboxError;
use std::fs::{self, File, OpenOptions};
use std::io::ErrorKind;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;

/// The cgroup hierarchy found at start-up.
#[derive(Debug, Clone)]
pub(crate) enum Hierarchy {
    /// v1: the parent directories made under each controller.
    V1 {
        memory: PathBuf,
        pids: PathBuf,
        cpuacct: PathBuf,
        memsw: bool,
    },
    /// v2: the parent directory (controllers enabled for its children).
    V2 { parent: PathBuf },
}

fn is_cgroup2(path: &Path) -> bool {
    nix::sys::statfs::statfs(path)
        .map(|s| s.filesystem_type().0 == CGROUP2_SUPER_MAGIC)
        .unwrap_or(false)
}

fn write_file(path: &Path, value: &str) -> Result<(), SandboxError> {
    fs::write(path, value).map_err(|source| SandboxError::Cgroup {
        path: path.to_owned(),
        source,
    })
}

fn mkdir(path: &Path) -> Result<(), SandboxError> {
    match fs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(SandboxError::Cgroup {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Whether a v2 `cgroup.controllers` line lists both `memory` and `pids`.
pub(crate) fn v2_has_controllers(controllers: &str) -> bool {
    let names: Vec<&str> = controllers.split_whitespace().collect();
    names.contains(&"memory") && names.contains(&"pids")
}

/// Detects a usable hierarchy under `mount` (normally `/sys/fs/cgroup`) and makes `name` in it.
pub(crate) fn detect(mount: &Path, name: &str) -> Result<Hierarchy, String> {
    if is_cgroup2(mount) {
        let controllers = fs::read_to_string(mount.join("cgroup.controllers"))
            .map_err(|e| format!("cgroup2 at {}: {e}", mount.display()))?;
        if !v2_has_controllers(&controllers) {
            return Err(format!(
                "cgroup2 at {} lacks the memory and pids controllers",
                mount.display()
            ));
        }
        let parent = mount.join(name);
        let enable = |dir: &Path| {
            write_file(&dir.join("cgroup.subtree_control"), "+memory +pids")
                .map_err(|e| e.to_string())
        };
        enable(mount)?;
        mkdir(&parent).map_err(|e| e.to_string())?;
        enable(&parent)?;
        return Ok(Hierarchy::V2 { parent });
    }
    let ctl = |c: &str, probe: &str| -> Result<PathBuf, String> {
        let dir = mount.join(c);
        if !dir.join(probe).exists() {
            return Err(format!("no cgroup v1 {c} controller at {}", dir.display()));
        }
        let parent = dir.join(name);
        mkdir(&parent).map_err(|e| e.to_string())?;
        Ok(parent)
    };
    let memory = ctl("memory", "memory.limit_in_bytes")?;
    let pids = ctl("pids", "cgroup.procs")?;
    let cpuacct = ctl("cpuacct", "cpuacct.usage")?;
    if !pids.join("pids.max").exists() {
        return Err("cgroup v1 pids hierarchy has no pids.max".into());
    }
    let memsw = memory.join("memory.memsw.limit_in_bytes").exists();
    Ok(Hierarchy::V1 {
        memory,
        pids,
        cpuacct,
        memsw,
    })
}

/// The owner pid encoded in a run cgroup's name (`<pid>-<slot>-<n>`).
pub(crate) fn owner_pid(name: &str) -> Option<i32> {
    let mut parts = name.split('-');
    let pid = parts.next()?.parse().ok()?;
    parts.next()?.parse::<u64>().ok()?;
    parts.next()?.parse::<u64>().ok()?;
    Some(pid)
}

/// Removes run cgroups left by processes that died mid-run (killing what is left in them).
pub(crate) fn sweep_stale(h: &Hierarchy) {
    let parents = match h {
        Hierarchy::V1 {
            memory,
            pids,
            cpuacct,
            ..
        } => vec![memory.clone(), pids.clone(), cpuacct.clone()],
        Hierarchy::V2 { parent } => vec![parent.clone()],
    };
    for parent in parents {
        let Ok(rd) = fs::read_dir(&parent) else {
            continue;
        };
        for entry in rd.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(owner_pid) else {
                continue;
            };
            if Path::new(&format!("/proc/{pid}")).exists() {
                continue;
            }
            let dir = entry.path();
            if let Ok(text) = fs::read_to_string(dir.join("cgroup.procs")) {
                for p in text.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                    // SAFETY: kill has no memory-safety preconditions.
                    unsafe { libc::kill(p, libc::SIGKILL) };
                }
            }
            if fs::remove_dir(&dir).is_ok() {
                tracing::info!(cgroup = %dir.display(), "removed a stale run cgroup");
            }
        }
    }
}

/// Readings of a finished run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Readings {
    pub cpu_ns: u64,
    pub peak_bytes: u64,
    pub oom_kills: u64,
    pub pids_max_events: u64,
}

/// The cgroup(s) of one run.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    v2: bool,
    memsw: bool,
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of every hierarchy, opened for the child to write `0` into.
    procs: Vec<File>,
    /// `cpuacct.usage` (v1) or `cpu.stat` (v2), kept open for polling.
    cpu: File,
    /// Opened ahead of time: peak memory, OOM events (`memory.max_usage_in_bytes`,
    /// `memory.oom_control` on v1; `memory.peak`, `memory.events` on v2) and `pids.events`.
    /// (`None` where the kernel lacks the file: the reading is then 0, as before.)
    reads: [Option<File>; 3],
    /// Opened ahead of time: the memory limit, the swap limit (v1 `memory.memsw.limit_in_bytes`
    /// if the kernel has it; v2 `memory.swap.max`) and `pids.max`. (`None` where the kernel
    /// lacks the file: writing that limit then fails, as it did by path.)
    writes: [Option<File>; 3],
}

/// Which control file each of `RunCgroup::writes` is (v1, v2), for error messages.
const WRITES: [(&str, &str); 3] = [
    ("memory.limit_in_bytes", "memory.max"),
    ("memory.memsw.limit_in_bytes", "memory.swap.max"),
    ("pids.max", "pids.max"),
];

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

impl RunCgroup {
    /// Makes the cgroup `name` under `h` with no limits yet (nothing is left on failure).
    pub(crate) fn create(h: &Hierarchy, name: &str) -> Result<RunCgroup, SandboxError> {
        let made = Self::create_inner(h, name);
        if made.is_err() {
            let dirs = match h {
                Hierarchy::V1 {
                    memory,
                    pids,
                    cpuacct,
                    ..
                } => vec![memory.join(name), pids.join(name), cpuacct.join(name)],
                Hierarchy::V2 { parent } => vec![parent.join(name)],
            };
            for d in dirs {
                let _ = fs::remove_dir(d);
            }
        }
        made
    }

    fn create_inner(h: &Hierarchy, name: &str) -> Result<RunCgroup, SandboxError> {
        let open_w = |p: PathBuf| {
            OpenOptions::new()
                .write(true)
                .open(&p)
                .map_err(|source| SandboxError::Cgroup { path: p, source })
        };
        let open_r =
            |p: PathBuf| File::open(&p).map_err(|source| SandboxError::Cgroup { path: p, source });
        match h {
            Hierarchy::V1 {
                memory,
                pids: pids_dir,
                cpuacct,
                memsw,
            } => {
                let dirs = vec![memory.join(name), pids_dir.join(name), cpuacct.join(name)];
                let mut made = Vec::new();
                for d in &dirs {
                    mkdir(d)?;
                    made.push(d.clone());
                }
                let mut procs = Vec::new();
                for d in &dirs {
                    procs.push(open_w(d.join("cgroup.procs"))?);
                }
                Ok(RunCgroup {
                    v2: false,
                    memsw: *memsw,
                    cpu: open_r(dirs[2].join("cpuacct.usage"))?,
                    reads: [
                        File::open(dirs[0].join("memory.max_usage_in_bytes")).ok(),
                        File::open(dirs[0].join("memory.oom_control")).ok(),
                        File::open(dirs[1].join("pids.events")).ok(),
                    ],
                    writes: [
                        open_w(dirs[0].join(WRITES[0].0)).ok(),
                        if *memsw {
                            open_w(dirs[0].join(WRITES[1].0)).ok()
                        } else {
                            None
                        },
                        open_w(dirs[1].join(WRITES[2].0)).ok(),
                    ],
                    dirs: made,
                    procs,
                })
            }
            Hierarchy::V2 { parent } => {
                let dir = parent.join(name);
                mkdir(&dir)?;
                Ok(RunCgroup {
                    v2: true,
                    memsw: false,
                    cpu: open_r(dir.join("cpu.stat"))?,
                    reads: [
                        File::open(dir.join("memory.peak")).ok(),
                        File::open(dir.join("memory.events")).ok(),
                        File::open(dir.join("pids.events")).ok(),
                    ],
                    writes: [
                        open_w(dir.join(WRITES[0].1)).ok(),
                        open_w(dir.join(WRITES[1].1)).ok(),
                        open_w(dir.join(WRITES[2].1)).ok(),
                    ],
                    procs: vec![open_w(dir.join("cgroup.procs"))?],
                    dirs: vec![dir],
                })
            }
        }
    }

    /// Sets the limits of this (fresh, never used) cgroup.
    pub(crate) fn set_limits(
        &self,
        memory_bytes: Option<u64>,
        pids: u32,
    ) -> Result<(), SandboxError> {
        if let Some(b) = memory_bytes {
            let b = b.to_string();
            self.write(0, &b)?;
            if self.v2 {
                self.write(1, "0")?;
            } else if self.memsw {
                self.write(1, &b)?;
            }
        }
        self.write(2, &pids.to_string())
    }

    fn write(&self, i: usize, value: &str) -> Result<(), SandboxError> {
        use std::io::Write;
        let name = if self.v2 { WRITES[i].1 } else { WRITES[i].0 };
        let dir = if self.v2 || i < 2 {
            &self.dirs[0]
        } else {
            &self.dirs[1]
        };
        let err = |source| SandboxError::Cgroup {
            path: dir.join(name),
            source,
        };
        let f = self.writes[i]
            .as_ref()
            .ok_or_else(|| err(ErrorKind::NotFound.into()))?;
        (&*f).write_all(value.as_bytes()).map_err(err)
    }

    /// Reads one of `reads` (small files) from its start.
    fn read(&self, i: usize) -> String {
        let mut buf = [0u8; 512];
        let n = self.reads[i]
            .as_ref()
            .map_or(0, |f| f.read_at(&mut buf, 0).unwrap_or(0));
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    /// Raw fds of the `cgroup.procs` files, for the child.
    pub(crate) fn procs_fds(&self) -> Vec<RawFd> {
        self.procs.iter().map(AsRawFd::as_raw_fd).collect()
    }

    /// CPU time used so far, in nanoseconds.
    pub(crate) fn cpu_ns(&self) -> u64 {
        let mut buf = [0u8; 512];
        let n = self.cpu.read_at(&mut buf, 0).unwrap_or(0);
        let text = std::str::from_utf8(&buf[..n]).unwrap_or("");
        if self.v2 {
            keyed_value(text, "usage_usec").unwrap_or(0) * 1000
        } else {
            text.trim().parse().unwrap_or(0)
        }
    }

    /// Reads peak memory, OOM kills and pids-limit events.
    pub(crate) fn readings(&self) -> Readings {
        let cpu_ns = self.cpu_ns();
        Readings {
            cpu_ns,
            peak_bytes: self.read(0).trim().parse().unwrap_or(0),
            oom_kills: keyed_value(&self.read(1), "oom_kill").unwrap_or(0),
            pids_max_events: keyed_value(&self.read(2), "max").unwrap_or(0),
        }
    }

    /// Kills every process in the cgroup (`cgroup.kill` on v2, SIGKILL to each pid on v1).
    pub(crate) fn kill_all(&self) {
        if self.v2 {
            let _ = fs::write(self.dirs[0].join("cgroup.kill"), "1");
            return;
        }
        for d in &self.dirs {
            if let Ok(text) = fs::read_to_string(d.join("cgroup.procs")) {
                for pid in text.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                    // SAFETY: kill has no memory-safety preconditions.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
            }
        }
    }

    /// Removes the cgroup directories, killing stragglers first if a directory is busy.
    pub(crate) fn remove(mut self) -> Result<(), SandboxError> {
        self.procs.clear();
        let mut last = Ok(());
        for d in self.dirs.clone() {
            let mut tries = 0;
            loop {
                match fs::remove_dir(&d) {
                    Ok(()) => break,
                    Err(e) if e.kind() == ErrorKind::NotFound => break,
                    Err(e) if tries < 50 => {
                        let _ = e;
                        tries += 1;
                        self.kill_all();
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    Err(source) => {
                        last = Err(SandboxError::Cgroup {
                            path: d.clone(),
                            source,
                        });
                        break;
                    }
                }
            }
        }
        last
    }
}

/// How many fresh run cgroups the pool keeps ready.
pub(crate) const READY: usize = 2;

/// How many finished runs' leftovers may wait for the thread.
const BACKLOG: usize = 8;

/// A name for a new run cgroup, unique in this process: `<pid>-0-<n>` (see [`owner_pid`]).
pub(crate) fn run_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{}-0-{n}", std::process::id())
}

/// Fresh run cgroups made ahead of time, and used ones removed afterwards, by a background
/// thread. Every run still gets a cgroup of its own that no process ever joined before (fresh
/// counters, no charge left by another run) and that is removed after it, but neither the
/// `mkdir`s nor the `rmdir`s are on the run's critical path.
#[derive(Debug)]
pub(crate) struct CgroupPool {
    shared: Arc<PoolShared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct PoolShared {
    state: Mutex<PoolState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct PoolState {
    ready: Vec<RunCgroup>,
    /// Descriptors whose closing does work (a dead box's mount namespace) to close first.
    drops: Vec<File>,
    used: Vec<RunCgroup>,
    stop: bool,
    /// Making a cgroup failed: runs make their own (and report the error).
    broken: bool,
}

impl PoolShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self, h: &Hierarchy) {
        let mut st = self.lock();
        loop {
            if !st.drops.is_empty() {
                let drops = std::mem::take(&mut st.drops);
                drop(st);
                drop(drops);
                st = self.lock();
                continue;
            }
            if let Some(cg) = st.used.pop() {
                drop(st);
                remove_logged(cg);
                st = self.lock();
                continue;
            }
            if st.stop {
                let ready = std::mem::take(&mut st.ready);
                drop(st);
                ready.into_iter().for_each(remove_logged);
                return;
            }
            if st.ready.len() < READY && !st.broken {
                drop(st);
                let made = RunCgroup::create(h, &run_name());
                st = self.lock();
                match made {
                    Ok(cg) => st.ready.push(cg),
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot make a run cgroup ahead of time");
                        st.broken = true;
                    }
                }
                continue;
            }
            st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn remove_logged(cg: RunCgroup) {
    if let Err(e) = cg.remove() {
        tracing::warn!(error = %e, "cannot remove a run cgroup");
    }
}

impl CgroupPool {
    /// Starts the background thread.
    pub(crate) fn start(h: Hierarchy) -> CgroupPool {
        let shared = Arc::new(PoolShared::default());
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("verdict-cgroups".into())
            .spawn(move || s.work(&h))
            .ok();
        CgroupPool { shared, thread }
    }

    /// A fresh cgroup (no limits yet) if one is ready; never blocks.
    pub(crate) fn take(&self) -> Option<RunCgroup> {
        self.thread.as_ref()?;
        let mut st = self.shared.lock();
        let cg = st.ready.pop();
        self.shared.wake.notify_one();
        cg
    }

    /// Hands over a finished run's leftovers: a descriptor to close (a mount namespace whose
    /// unmounting happens then), then its cgroup to remove (stragglers killed if it is busy).
    pub(crate) fn retire(&self, close: Option<File>, cg: Option<RunCgroup>) {
        if self.thread.is_none() {
            drop(close);
            if let Some(cg) = cg {
                remove_logged(cg);
            }
            return;
        }
        let mut st = self.shared.lock();
        if st.drops.len() + st.used.len() >= BACKLOG {
            // The thread is behind (starved of CPU): do this run's share here rather than let
            // dead boxes' mounts and cgroups pile up.
            drop(st);
            drop(close);
            if let Some(cg) = cg {
                remove_logged(cg);
            }
            return;
        }
        st.drops.extend(close);
        st.used.extend(cg);
        drop(st);
        self.shared.wake.notify_one();
    }
}

impl Drop for CgroupPool {
    /// Removes every used and ready cgroup before returning.
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn owner_pid_reads_run_cgroup_names_only() {
        assert_eq!(owner_pid("30474-1-3"), Some(30474));
        assert_eq!(owner_pid("process_api"), None);
        assert_eq!(owner_pid("12-x-3"), None);
        assert_eq!(owner_pid("12-1"), None);
    }

    #[test]
    fn v2_controller_detection_needs_memory_and_pids() {
        assert!(v2_has_controllers(
            "cpuset cpu io memory hugetlb pids rdma misc\n"
        ));
        assert!(!v2_has_controllers("cpuset cpu io\n"));
        assert!(!v2_has_controllers(""));
    }
}
