//! cgroup v2: one directory per run in the unified hierarchy, with the `memory` and `pids`
//! controllers enabled for the parent's children. Started in a non-root cgroup (systemd's
//! `Delegate=yes`, a container's cgroup namespace), the supervisor uses only that cgroup: it
//! moves the cgroup's processes into a leaf and makes the parent of the run cgroups beside it.
//!
//! Limits: `memory.max`, `memory.swap.max` 0, `pids.max`. Readings: `cpu.stat`
//! (`usage_usec`), `memory.peak`, `memory.events` (`oom_kill`), `pids.events`. Killing:
//! `cgroup.kill`.

use super::{
    OnDemand, Readings, keyed_value, mkdir, open_r, open_w, read_small, read_stat, write_file,
    write_open,
};
use crate::SandboxError;
use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;

/// The parent directory of the run cgroups (controllers enabled for its children).
#[derive(Debug, Clone)]
pub(crate) struct Hierarchy {
    pub parent: PathBuf,
}

/// Whether `path` is a cgroup2 mount.
pub(crate) fn is_cgroup2(path: &Path) -> bool {
    nix::sys::statfs::statfs(path)
        .map(|s| s.filesystem_type().0 == CGROUP2_SUPER_MAGIC)
        .unwrap_or(false)
}

/// The controllers the sandbox needs.
const NEEDED: [&str; 2] = ["memory", "pids"];

/// Which of `memory` and `pids` a `cgroup.controllers` line lacks.
fn missing_controllers(controllers: &str) -> Vec<&'static str> {
    let names: Vec<&str> = controllers.split_whitespace().collect();
    NEEDED.into_iter().filter(|c| !names.contains(c)).collect()
}

/// The leaf a supervisor started in a non-root cgroup moves that cgroup's processes into, so
/// that the cgroup may enable controllers for its children ("no internal processes").
pub(crate) const SUPERVISOR_LEAF: &str = "verdict-supervisor";

/// The cgroup (relative to the mount) that is this process's to use, from the `0::/path` line
/// of `/proc/self/cgroup`: the one it was started in (the leaf's parent once it has moved into
/// [`SUPERVISOR_LEAF`]). `None` when there is no v2 line.
fn delegated_base(proc_self_cgroup: &str) -> Option<PathBuf> {
    let path = proc_self_cgroup
        .lines()
        .find_map(|l| l.strip_prefix("0::"))?
        .trim();
    let path = Path::new(path.strip_prefix('/').unwrap_or(path));
    Some(if path.file_name() == Some(SUPERVISOR_LEAF.as_ref()) {
        path.parent().unwrap_or(Path::new("")).to_owned()
    } else {
        path.to_owned()
    })
}

/// Moves every process of `base` into its [`SUPERVISOR_LEAF`] (made if needed).
fn move_into_leaf(base: &Path) -> Result<(), String> {
    let leaf = base.join(SUPERVISOR_LEAF);
    mkdir(&leaf).map_err(|e| e.to_string())?;
    let procs = base.join("cgroup.procs");
    // A process may fork meanwhile: its child lands in `base` too, so read until it is empty.
    for _ in 0..100 {
        let text = fs::read_to_string(&procs).map_err(|e| format!("{}: {e}", procs.display()))?;
        if text.trim().is_empty() {
            return Ok(());
        }
        for pid in text.lines() {
            match fs::write(leaf.join("cgroup.procs"), pid.trim()) {
                Ok(()) => {}
                // Exited meanwhile.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
                Err(e) => {
                    return Err(format!(
                        "cannot move process {} from {} into {}: {e}",
                        pid.trim(),
                        base.display(),
                        leaf.display()
                    ));
                }
            }
        }
    }
    Err(format!("{} never emptied", procs.display()))
}

/// Finds the cgroup this process may use under `mount` (a cgroup2 mount): the root, or the
/// non-root cgroup it was started in (systemd's `Delegate=yes`, a container's cgroup
/// namespace), whose processes it then moves into [`SUPERVISOR_LEAF`]. Checks that `memory`
/// and `pids` are delegated there (saying which are missing and how to delegate them), makes
/// `name` in it and enables both controllers for its children. Nothing outside that cgroup is
/// written.
pub(crate) fn detect(mount: &Path, name: &str) -> Result<Hierarchy, String> {
    let own =
        fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("/proc/self/cgroup: {e}"))?;
    let rel = delegated_base(&own)
        .ok_or_else(|| format!("/proc/self/cgroup has no cgroup2 line: {own:?}"))?;
    let base = mount.join(&rel);
    let controllers = fs::read_to_string(base.join("cgroup.controllers"))
        .map_err(|e| format!("cgroup2 at {}: {e}", base.display()))?;
    let missing = missing_controllers(&controllers);
    if !missing.is_empty() {
        return Err(format!(
            "cgroup2: the {} controller(s) are not delegated to {} (it has: {:?}); with systemd \
             set Delegate=yes on the unit, in a container delegate them to its cgroup \
             (docs/sandbox.md, deploy/)",
            missing.join(" and "),
            base.display(),
            controllers.trim()
        ));
    }
    // Only the real root cgroup (which has no `cgroup.type`) may hold processes and enable
    // controllers for its children; a cgroup namespace's root is not the real root.
    if base.join("cgroup.type").exists() {
        move_into_leaf(&base)?;
    }
    let parent = base.join(name);
    let enable = |dir: &Path| {
        write_file(&dir.join("cgroup.subtree_control"), "+memory +pids").map_err(|e| e.to_string())
    };
    enable(&base)?;
    mkdir(&parent).map_err(|e| e.to_string())?;
    enable(&parent)?;
    Ok(Hierarchy { parent })
}

impl Hierarchy {
    /// The parent directory (one: the hierarchy is unified).
    pub(crate) fn parents(&self) -> Vec<PathBuf> {
        vec![self.parent.clone()]
    }
}

/// One run's directory, with its control files opened ahead of time (those read only
/// sometimes on first use).
#[derive(Debug)]
pub(crate) struct RunCgroup {
    dirs: [PathBuf; 1],
    procs: Vec<File>,
    cpu: File,
    /// `memory.peak`, `memory.events`, `pids.events` (`None` where the kernel lacks the file:
    /// the reading is then 0).
    peak: Option<File>,
    /// `memory.current` (current usage) and `memory.stat` (its `file`: page cache and tmpfs
    /// pages), read to tell the program's own memory from the files it wrote (only when the
    /// peak could include file pages, or the supervisor holds its own memory limit).
    usage: OnDemand,
    stat: OnDemand,
    events: Option<File>,
    pids_events: Option<File>,
    /// `memory.max`, `memory.swap.max`, `pids.max` (`None` where missing: writing that limit
    /// then fails).
    limit: Option<File>,
    swap_limit: Option<File>,
    pids_max: Option<File>,
}

impl RunCgroup {
    /// Makes the run's directory (the caller removes it on failure: see [`Self::dirs_of`]).
    pub(crate) fn create(h: &Hierarchy, name: &str) -> Result<RunCgroup, SandboxError> {
        let [dir] = Self::dirs_of(h, name);
        mkdir(&dir)?;
        Ok(RunCgroup {
            cpu: open_r(dir.join("cpu.stat"))?,
            peak: File::open(dir.join("memory.peak")).ok(),
            usage: OnDemand::new("memory.current"),
            stat: OnDemand::new("memory.stat"),
            events: File::open(dir.join("memory.events")).ok(),
            pids_events: File::open(dir.join("pids.events")).ok(),
            limit: open_w(dir.join("memory.max")).ok(),
            swap_limit: open_w(dir.join("memory.swap.max")).ok(),
            pids_max: open_w(dir.join("pids.max")).ok(),
            procs: vec![open_w(dir.join("cgroup.procs"))?],
            dirs: [dir],
        })
    }

    /// The file listing the cgroup's threads.
    pub(crate) fn threads_file(&self) -> PathBuf {
        self.dirs[0].join("cgroup.threads")
    }

    /// The directory a run cgroup `name` has under `h`.
    pub(crate) fn dirs_of(h: &Hierarchy, name: &str) -> [PathBuf; 1] {
        [h.parent.join(name)]
    }

    /// Sets the limits of this fresh cgroup (no swap).
    pub(crate) fn set_limits(
        &mut self,
        memory_bytes: Option<u64>,
        pids: u32,
    ) -> Result<(), SandboxError> {
        let [dir] = &self.dirs;
        if let Some(b) = memory_bytes {
            write_open(&self.limit, &dir.join("memory.max"), &b.to_string())?;
            write_open(&self.swap_limit, &dir.join("memory.swap.max"), "0")?;
        }
        write_open(&self.pids_max, &dir.join("pids.max"), &pids.to_string())
    }

    /// The directory.
    pub(crate) fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The opened `cgroup.procs` file.
    pub(crate) fn procs(&self) -> &[File] {
        &self.procs
    }

    /// CPU time used so far, in nanoseconds.
    pub(crate) fn cpu_ns(&self) -> u64 {
        let mut buf = [0u8; 512];
        let n = self.cpu.read_at(&mut buf, 0).unwrap_or(0);
        let text = std::str::from_utf8(&buf[..n]).unwrap_or("");
        keyed_value(text, "usage_usec").unwrap_or(0) * 1000
    }

    /// Memory charged now, in bytes.
    pub(crate) fn usage_bytes(&self) -> u64 {
        read_small(self.usage.get(&self.dirs[0]))
            .trim()
            .parse()
            .unwrap_or(0)
    }

    /// File pages charged now (page cache of what was read or written, tmpfs pages), in bytes.
    pub(crate) fn file_bytes(&self) -> u64 {
        keyed_value(&read_stat(self.stat.get(&self.dirs[0])), "file").unwrap_or(0)
    }

    /// Peak memory, OOM kills and pids-limit events.
    pub(crate) fn readings(&self) -> Readings {
        Readings {
            cpu_ns: self.cpu_ns(),
            peak_bytes: read_small(&self.peak).trim().parse().unwrap_or(0),
            oom_kills: keyed_value(&read_small(&self.events), "oom_kill").unwrap_or(0),
            pids_max_events: keyed_value(&read_small(&self.pids_events), "max").unwrap_or(0),
            file_bytes: 0,
        }
    }

    /// Kills every process in the cgroup at once (`cgroup.kill`).
    pub(crate) fn kill_all(&self) {
        let _ = fs::write(self.dirs[0].join("cgroup.kill"), "1");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_detection_needs_memory_and_pids() {
        assert!(missing_controllers("cpuset cpu io memory hugetlb pids rdma misc\n").is_empty());
        assert_eq!(missing_controllers("cpuset cpu io\n"), ["memory", "pids"]);
        assert_eq!(missing_controllers(""), ["memory", "pids"]);
        assert_eq!(missing_controllers("cpu io memory\n"), ["pids"]);
        assert_eq!(missing_controllers("cpu"), ["memory", "pids"]);
    }

    #[test]
    fn the_delegated_base_is_the_starting_cgroup_or_the_leafs_parent() {
        let base = |s: &str| delegated_base(s).map(|p| p.display().to_string());
        assert_eq!(base("0::/\n").as_deref(), Some(""));
        assert_eq!(
            base("0::/system.slice/judge-server.service\n").as_deref(),
            Some("system.slice/judge-server.service")
        );
        assert_eq!(
            base("0::/system.slice/judge-server.service/verdict-supervisor\n").as_deref(),
            Some("system.slice/judge-server.service")
        );
        assert_eq!(base("0::/verdict-supervisor\n").as_deref(), Some(""));
        // A hybrid host lists v1 hierarchies first.
        assert_eq!(
            base("12:pids:/x\n1:name=systemd:/y\n0::/y\n").as_deref(),
            Some("y")
        );
        assert_eq!(base("12:pids:/x\n"), None);
    }
}
