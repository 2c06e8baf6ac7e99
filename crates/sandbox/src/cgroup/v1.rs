//! cgroup v1: one directory per run in each of the `memory`, `pids` and `cpuacct` hierarchies.
//!
//! Limits: `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes` (no swap, where the kernel
//! has it), `pids.max`. Readings: `cpuacct.usage`, `memory.max_usage_in_bytes` (peak),
//! `memory.oom_control` (`oom_kill` counter), `pids.events`. v1 has no `cgroup.kill`: every
//! pid listed in `cgroup.procs` is killed.

use super::{Readings, keyed_value, mkdir, open_r, open_w, read_small, read_stat, write_open};
use crate::SandboxError;
use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The parent directories made under each controller.
#[derive(Debug, Clone)]
pub(crate) struct Hierarchy {
    pub memory: PathBuf,
    pub pids: PathBuf,
    pub cpuacct: PathBuf,
    /// Whether the kernel has `memory.memsw.*` (swap accounting).
    pub memsw: bool,
}

/// Finds the `memory`, `pids` and `cpuacct` controllers under `mount` and makes `name` in each.
pub(crate) fn detect(mount: &Path, name: &str) -> Result<Hierarchy, String> {
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
    Ok(Hierarchy {
        memory,
        pids,
        cpuacct,
        memsw,
    })
}

impl Hierarchy {
    /// The parent directories, one per controller.
    pub(crate) fn parents(&self) -> Vec<PathBuf> {
        vec![self.memory.clone(), self.pids.clone(), self.cpuacct.clone()]
    }
}

/// One run's directories, with their control files opened ahead of time.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    /// `memory`, `pids`, `cpuacct`, in that order.
    dirs: [PathBuf; 3],
    procs: Vec<File>,
    cpu: File,
    /// `memory.max_usage_in_bytes`, `memory.oom_control`, `pids.events` (`None` where the
    /// kernel lacks the file: the reading is then 0).
    peak: Option<File>,
    /// `memory.usage_in_bytes` (current usage) and `memory.stat` (its `total_cache`: page cache and tmpfs pages),
    /// read to tell the program's own memory from the files it wrote.
    usage: Option<File>,
    stat: Option<File>,
    oom: Option<File>,
    pids_events: Option<File>,
    /// `memory.limit_in_bytes`, `memory.memsw.limit_in_bytes` (if the kernel has it),
    /// `pids.max` (`None` where missing: writing that limit then fails).
    limit: Option<File>,
    memsw_limit: Option<File>,
    pids_max: Option<File>,
}

impl RunCgroup {
    /// Makes the run's directories (the caller removes them on failure: see [`Self::dirs_of`]).
    pub(crate) fn create(h: &Hierarchy, name: &str) -> Result<RunCgroup, SandboxError> {
        let dirs = Self::dirs_of(h, name);
        for d in &dirs {
            mkdir(d)?;
        }
        // The program joins through `tasks`, not `cgroup.procs`: it is a single thread then
        // (a vfork child before exec), so moving that thread moves the whole process, and a
        // thread writing `0` (itself) into `tasks` skips the global lock that a process move
        // takes for writing, whose first taker in a while waits a whole RCU grace period
        // (5-15 ms on a busy host: the largest cost of a one-shot run). Kernels without that
        // shortcut (before 6.0) take the lock either way.
        let mut procs = Vec::new();
        for d in &dirs {
            procs.push(open_w(d.join("tasks"))?);
        }
        let [mem, pids, cpuacct] = &dirs;
        Ok(RunCgroup {
            cpu: open_r(cpuacct.join("cpuacct.usage"))?,
            peak: File::open(mem.join("memory.max_usage_in_bytes")).ok(),
            usage: File::open(mem.join("memory.usage_in_bytes")).ok(),
            stat: File::open(mem.join("memory.stat")).ok(),
            oom: File::open(mem.join("memory.oom_control")).ok(),
            pids_events: File::open(pids.join("pids.events")).ok(),
            limit: open_w(mem.join("memory.limit_in_bytes")).ok(),
            memsw_limit: if h.memsw {
                open_w(mem.join("memory.memsw.limit_in_bytes")).ok()
            } else {
                None
            },
            pids_max: open_w(pids.join("pids.max")).ok(),
            procs,
            dirs,
        })
    }

    /// The directories a run cgroup `name` has under `h`.
    pub(crate) fn dirs_of(h: &Hierarchy, name: &str) -> [PathBuf; 3] {
        [h.memory.join(name), h.pids.join(name), h.cpuacct.join(name)]
    }

    /// Sets the limits of this fresh cgroup.
    pub(crate) fn set_limits(
        &self,
        memory_bytes: Option<u64>,
        pids: u32,
    ) -> Result<(), SandboxError> {
        let [mem, pids_dir, _] = &self.dirs;
        if let Some(b) = memory_bytes {
            let b = b.to_string();
            write_open(&self.limit, &mem.join("memory.limit_in_bytes"), &b)?;
            if self.memsw_limit.is_some() {
                write_open(
                    &self.memsw_limit,
                    &mem.join("memory.memsw.limit_in_bytes"),
                    &b,
                )?;
            }
        }
        write_open(
            &self.pids_max,
            &pids_dir.join("pids.max"),
            &pids.to_string(),
        )
    }

    /// The directories (`memory`, `pids`, `cpuacct`).
    pub(crate) fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The opened `tasks` files the program joins through.
    pub(crate) fn procs(&self) -> &[File] {
        &self.procs
    }

    /// Closes the opened `tasks` files (before removal).
    pub(crate) fn close_procs(&mut self) {
        self.procs.clear();
    }

    /// CPU time used so far, in nanoseconds.
    pub(crate) fn cpu_ns(&self) -> u64 {
        let mut buf = [0u8; 64];
        let n = self.cpu.read_at(&mut buf, 0).unwrap_or(0);
        std::str::from_utf8(&buf[..n])
            .unwrap_or("")
            .trim()
            .parse()
            .unwrap_or(0)
    }

    /// Memory charged now, in bytes.
    pub(crate) fn usage_bytes(&self) -> u64 {
        read_small(&self.usage).trim().parse().unwrap_or(0)
    }

    /// File pages charged now (page cache of what was read or written, tmpfs pages), in bytes.
    pub(crate) fn file_bytes(&self) -> u64 {
        keyed_value(&read_stat(&self.stat), "total_cache").unwrap_or(0)
    }

    /// Peak memory, OOM kills and pids-limit events.
    pub(crate) fn readings(&self) -> Readings {
        Readings {
            cpu_ns: self.cpu_ns(),
            peak_bytes: read_small(&self.peak).trim().parse().unwrap_or(0),
            oom_kills: keyed_value(&read_small(&self.oom), "oom_kill").unwrap_or(0),
            pids_max_events: keyed_value(&read_small(&self.pids_events), "max").unwrap_or(0),
            file_bytes: 0,
        }
    }

    /// SIGKILLs every pid listed in any of the run's hierarchies.
    pub(crate) fn kill_all(&self) {
        for d in &self.dirs {
            if let Ok(text) = fs::read_to_string(d.join("cgroup.procs")) {
                super::kill_pids(&text);
            }
        }
    }
}
