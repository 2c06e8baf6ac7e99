//! cgroup v1: a run's directory in each of the `memory`, `pids` and `cpuacct` hierarchies: a
//! fresh `memory` one per run ([`Memory`]), and the slot's `pids` and `cpuacct` ones, kept
//! across its runs ([`Counters`]).
//!
//! Limits: `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes` (no swap, where the kernel
//! has it), `pids.max`. Readings: `cpuacct.usage`, `memory.max_usage_in_bytes` (peak),
//! `memory.oom_control` (`oom_kill` counter), `pids.events`. v1 has no `cgroup.kill`: every
//! pid listed in `cgroup.procs` is killed.

use super::{
    OnDemand, Readings, keyed_value, made_new, mkdir, open_rw, open_w, read_small, read_stat,
    write_open,
};
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

/// A run's `memory` cgroup, made fresh for every run (see [`super::Fresh`]), with its control
/// files opened ahead of time (those read only sometimes on first use).
#[derive(Debug)]
pub(crate) struct Memory {
    dir: PathBuf,
    tasks: File,
    /// `memory.max_usage_in_bytes`, `memory.oom_control` (`None` where the kernel lacks the
    /// file: the reading is then 0).
    peak: Option<File>,
    oom: Option<File>,
    /// `memory.usage_in_bytes` (current usage) and `memory.stat` (its `total_cache`: page cache
    /// and tmpfs pages), read to tell the program's own memory from the files it wrote (only
    /// when the peak could include file pages, or the supervisor holds its own memory limit).
    usage: OnDemand,
    stat: OnDemand,
    /// `memory.limit_in_bytes`, `memory.memsw.limit_in_bytes` (if the kernel has it) (`None`
    /// where missing: writing that limit then fails).
    limit: Option<File>,
    memsw_limit: Option<File>,
}

impl Memory {
    /// Makes the run's `memory` cgroup `name` (the caller removes it on failure: see
    /// [`Self::dir_of`]).
    pub(crate) fn create(h: &Hierarchy, name: &str) -> Result<Memory, SandboxError> {
        let dir = Self::dir_of(h, name);
        mkdir(&dir)?;
        Ok(Memory {
            tasks: open_w(dir.join("tasks"))?,
            peak: File::open(dir.join("memory.max_usage_in_bytes")).ok(),
            oom: File::open(dir.join("memory.oom_control")).ok(),
            usage: OnDemand::new("memory.usage_in_bytes"),
            stat: OnDemand::new("memory.stat"),
            limit: open_w(dir.join("memory.limit_in_bytes")).ok(),
            memsw_limit: if h.memsw {
                open_w(dir.join("memory.memsw.limit_in_bytes")).ok()
            } else {
                None
            },
            dir,
        })
    }

    /// The directory a run's `memory` cgroup `name` has under `h`.
    pub(crate) fn dir_of(h: &Hierarchy, name: &str) -> PathBuf {
        h.memory.join(name)
    }

    /// The file listing the cgroup's threads.
    pub(crate) fn threads_file(&self) -> PathBuf {
        self.dir.join("tasks")
    }

    /// Closes the control files and returns the directory (to remove).
    pub(crate) fn into_dir(self) -> PathBuf {
        self.dir
    }
}

/// A slot's `pids` and `cpuacct` cgroups, kept open across the slot's runs: made once and
/// used again by the slot's next run when the last one ended cleanly (its zygote reaped every
/// process of it before answering, so no process is left in them). A one-shot sandbox leaves
/// them so at its end, named [`super::kept_name`], and the next one-shot process that takes
/// its instance over (see [`crate::instance`]) uses them again. Their counters are reset
/// before each run: `cpuacct.usage` is written 0, and `pids.events`' `max` (which only grows)
/// is read before the run and reported as a difference. `pids.max` is written when it changes.
///
/// Neither counts anything a run leaves behind once its processes are gone, unlike the
/// `memory` cgroup, whose page cache and kernel objects stay charged after the run: that one
/// is made fresh for every run.
#[derive(Debug)]
pub(crate) struct Counters {
    /// `pids`, `cpuacct` (empty once handed over for removal).
    dirs: Vec<PathBuf>,
    /// `tasks` of each.
    tasks: [File; 2],
    /// `cpuacct.usage`, read and reset.
    cpu: File,
    pids_events: Option<File>,
    pids_max: Option<File>,
    /// The value last written to `pids.max` (`None`: never written).
    pids_limit: Option<u32>,
    /// `pids.events`' `max` when this run started.
    events_base: u64,
}

impl Counters {
    /// Makes a slot's `pids` and `cpuacct` cgroups `name`, or takes them as an earlier
    /// one-shot process of the instance left them ([`super::kept_name`]): reset, and checked
    /// to be empty (were a process in one, both are killed, removed and made anew). Removed
    /// on failure.
    pub(crate) fn create(h: &Hierarchy, name: &str) -> Result<Counters, SandboxError> {
        let dirs = vec![h.pids.join(name), h.cpuacct.join(name)];
        let (mut counters, made) = Self::open(dirs.clone())?;
        if made {
            return Ok(counters);
        }
        let busy = dirs
            .iter()
            .any(|d| fs::read(d.join("cgroup.procs")).map_or(true, |procs| !procs.is_empty()));
        if busy {
            tracing::warn!(cgroup = %dirs[0].display(), "a kept cgroup was not empty: made anew");
            drop(counters.into_dirs());
            for d in &dirs {
                super::remove_killing(d).map_err(|source| SandboxError::Cgroup {
                    path: d.clone(),
                    source,
                })?;
            }
            return Self::open(dirs).map(|(c, _)| c);
        }
        counters.reset()?;
        Ok(counters)
    }

    /// Makes the cgroups `dirs` (or takes them as they are) and opens their control files;
    /// whether both were made. On failure removes them.
    fn open(dirs: Vec<PathBuf>) -> Result<(Counters, bool), SandboxError> {
        let made = (|| {
            let mut made = true;
            for d in &dirs {
                made &= made_new(d)?;
            }
            let [pids, cpuacct] = [&dirs[0], &dirs[1]];
            // The program joins through `tasks`, not `cgroup.procs`: it is a single thread then
            // (a vfork child before exec), so moving that thread moves the whole process, and a
            // thread writing `0` (itself) into `tasks` skips the global lock that a process
            // move takes for writing, whose first taker in a while waits a whole RCU grace
            // period (5-15 ms on a busy host: the largest cost of a one-shot run). Kernels
            // without that shortcut (before 6.0) take the lock either way.
            Ok::<_, SandboxError>((
                [open_w(pids.join("tasks"))?, open_w(cpuacct.join("tasks"))?],
                open_rw(cpuacct.join("cpuacct.usage"))?,
                File::open(pids.join("pids.events")).ok(),
                open_w(pids.join("pids.max")).ok(),
                made,
            ))
        })();
        match made {
            Ok((tasks, cpu, pids_events, pids_max, made)) => Ok((
                Counters {
                    dirs,
                    tasks,
                    cpu,
                    pids_events,
                    pids_max,
                    pids_limit: None,
                    events_base: 0,
                },
                made,
            )),
            Err(e) => {
                for d in &dirs {
                    let _ = fs::remove_dir(d);
                }
                Err(e)
            }
        }
    }

    /// Readies these cgroups, used by an earlier run of the slot and empty since, for the
    /// next: zero CPU time, and the `pids.events` count to subtract.
    pub(crate) fn reset(&mut self) -> Result<(), SandboxError> {
        self.cpu
            .write_at(b"0", 0)
            .map_err(|source| SandboxError::Cgroup {
                path: self.dirs[1].join("cpuacct.usage"),
                source,
            })?;
        self.events_base = self.pids_events_now();
        Ok(())
    }

    fn pids_events_now(&self) -> u64 {
        keyed_value(&read_small(&self.pids_events), "max").unwrap_or(0)
    }

    /// Hands the directories over for removal (the descriptors close with `self`).
    pub(crate) fn into_dirs(mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.dirs)
    }

    /// Leaves the directories (empty) where they are, for the next one-shot process of the
    /// instance ([`super::kept_name`]).
    pub(crate) fn leave(self) {
        drop(self.into_dirs());
    }
}

impl Drop for Counters {
    /// A slot's kept cgroups go with the sandbox (they are empty: see [`Counters`]).
    fn drop(&mut self) {
        for d in &self.dirs {
            if let Err(e) = fs::remove_dir(d) {
                tracing::warn!(cgroup = %d.display(), error = %e, "cannot remove a slot's cgroup");
            }
        }
    }
}

/// One run's cgroups: a fresh `memory` cgroup and the slot's `pids` and `cpuacct` ones.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    pub memory: Memory,
    pub counters: Counters,
}

impl RunCgroup {
    /// Sets the limits (`pids.max` only when it differs from what the kept cgroup has).
    pub(crate) fn set_limits(
        &mut self,
        memory_bytes: Option<u64>,
        pids: u32,
    ) -> Result<(), SandboxError> {
        let mem = &self.memory;
        if let Some(b) = memory_bytes {
            let b = b.to_string();
            write_open(&mem.limit, &mem.dir.join("memory.limit_in_bytes"), &b)?;
            if mem.memsw_limit.is_some() {
                write_open(
                    &mem.memsw_limit,
                    &mem.dir.join("memory.memsw.limit_in_bytes"),
                    &b,
                )?;
            }
        }
        let c = &mut self.counters;
        if c.pids_limit != Some(pids) {
            c.pids_limit = None;
            write_open(&c.pids_max, &c.dirs[0].join("pids.max"), &pids.to_string())?;
            c.pids_limit = Some(pids);
        }
        Ok(())
    }

    /// Every directory (`memory`, `pids`, `cpuacct`).
    pub(crate) fn dirs(&self) -> Vec<PathBuf> {
        let mut d = vec![self.memory.dir.clone()];
        d.extend(self.counters.dirs.iter().cloned());
        d
    }

    /// The opened `tasks` files the program joins through.
    pub(crate) fn tasks(&self) -> [&File; 3] {
        let [p, c] = &self.counters.tasks;
        [&self.memory.tasks, p, c]
    }

    /// CPU time used so far, in nanoseconds.
    pub(crate) fn cpu_ns(&self) -> u64 {
        let mut buf = [0u8; 64];
        let n = self.counters.cpu.read_at(&mut buf, 0).unwrap_or(0);
        std::str::from_utf8(&buf[..n])
            .unwrap_or("")
            .trim()
            .parse()
            .unwrap_or(0)
    }

    /// Memory charged now, in bytes.
    pub(crate) fn usage_bytes(&self) -> u64 {
        read_small(self.memory.usage.get(&self.memory.dir))
            .trim()
            .parse()
            .unwrap_or(0)
    }

    /// File pages charged now (page cache of what was read or written, tmpfs pages), in bytes.
    pub(crate) fn file_bytes(&self) -> u64 {
        keyed_value(
            &read_stat(self.memory.stat.get(&self.memory.dir)),
            "total_cache",
        )
        .unwrap_or(0)
    }

    /// Peak memory, OOM kills and pids-limit events (those of this run only).
    pub(crate) fn readings(&self) -> Readings {
        Readings {
            cpu_ns: self.cpu_ns(),
            peak_bytes: read_small(&self.memory.peak).trim().parse().unwrap_or(0),
            oom_kills: keyed_value(&read_small(&self.memory.oom), "oom_kill").unwrap_or(0),
            pids_max_events: self
                .counters
                .pids_events_now()
                .saturating_sub(self.counters.events_base),
            file_bytes: 0,
        }
    }

    /// SIGKILLs every pid listed in any of the run's hierarchies.
    pub(crate) fn kill_all(&self) {
        for d in self.dirs() {
            kill_listed(&d);
        }
    }
}

/// SIGKILLs every pid listed in the cgroup `dir`.
pub(crate) fn kill_listed(dir: &Path) {
    if let Ok(text) = fs::read_to_string(dir.join("cgroup.procs")) {
        super::kill_pids(&text);
    }
}
