//! cgroup v2: one directory per run in the unified hierarchy, with the `memory` and `pids`
//! controllers enabled for the parent's children.
//!
//! Limits: `memory.max`, `memory.swap.max` 0, `pids.max`. Readings: `cpu.stat`
//! (`usage_usec`), `memory.peak`, `memory.events` (`oom_kill`), `pids.events`. Killing:
//! `cgroup.kill`.

use super::{
    Readings, keyed_value, mkdir, open_r, open_w, read_small, read_stat, write_file, write_open,
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

/// Whether a v2 `cgroup.controllers` line lists both `memory` and `pids`.
pub(crate) fn has_controllers(controllers: &str) -> bool {
    let names: Vec<&str> = controllers.split_whitespace().collect();
    names.contains(&"memory") && names.contains(&"pids")
}

/// Checks the controllers at `mount` (a cgroup2 mount), makes `name` and enables `memory` and
/// `pids` for its children.
pub(crate) fn detect(mount: &Path, name: &str) -> Result<Hierarchy, String> {
    let controllers = fs::read_to_string(mount.join("cgroup.controllers"))
        .map_err(|e| format!("cgroup2 at {}: {e}", mount.display()))?;
    if !has_controllers(&controllers) {
        return Err(format!(
            "cgroup2 at {} lacks the memory and pids controllers",
            mount.display()
        ));
    }
    let parent = mount.join(name);
    let enable = |dir: &Path| {
        write_file(&dir.join("cgroup.subtree_control"), "+memory +pids").map_err(|e| e.to_string())
    };
    enable(mount)?;
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

/// One run's directory, with its control files opened ahead of time.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    dirs: [PathBuf; 1],
    procs: Vec<File>,
    cpu: File,
    /// `memory.peak`, `memory.events`, `pids.events` (`None` where the kernel lacks the file:
    /// the reading is then 0).
    peak: Option<File>,
    /// `memory.current` (current usage) and `memory.stat` (its `file`: page cache and tmpfs pages),
    /// read to tell the program's own memory from the files it wrote.
    usage: Option<File>,
    stat: Option<File>,
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
            usage: File::open(dir.join("memory.current")).ok(),
            stat: File::open(dir.join("memory.stat")).ok(),
            events: File::open(dir.join("memory.events")).ok(),
            pids_events: File::open(dir.join("pids.events")).ok(),
            limit: open_w(dir.join("memory.max")).ok(),
            swap_limit: open_w(dir.join("memory.swap.max")).ok(),
            pids_max: open_w(dir.join("pids.max")).ok(),
            procs: vec![open_w(dir.join("cgroup.procs"))?],
            dirs: [dir],
        })
    }

    /// The directory a run cgroup `name` has under `h`.
    pub(crate) fn dirs_of(h: &Hierarchy, name: &str) -> [PathBuf; 1] {
        [h.parent.join(name)]
    }

    /// Sets the limits of this fresh cgroup (no swap).
    pub(crate) fn set_limits(
        &self,
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

    /// Closes the opened `cgroup.procs` file (before removal).
    pub(crate) fn close_procs(&mut self) {
        self.procs.clear();
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
        read_small(&self.usage).trim().parse().unwrap_or(0)
    }

    /// File pages charged now (page cache of what was read or written, tmpfs pages), in bytes.
    pub(crate) fn file_bytes(&self) -> u64 {
        keyed_value(&read_stat(&self.stat), "file").unwrap_or(0)
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
        assert!(has_controllers(
            "cpuset cpu io memory hugetlb pids rdma misc\n"
        ));
        assert!(!has_controllers("cpuset cpu io\n"));
        assert!(!has_controllers(""));
    }
}
