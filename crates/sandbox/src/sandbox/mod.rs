//! The sandbox: one run of an untrusted command, by role.
//!
//! - [`probe`]: what the host offers, probed once (cgroups, namespaces), the [`probe::Executor`]
//!   that follows from it, and the skeleton of every box's private root;
//! - [`slots`]: the uid slots runs hold;
//! - [`prepare`]: everything a run needs before anything starts (box, stdio, program, argv,
//!   envp, rlimits, a zygote's mounts);
//! - [`supervise`]: handing the run to its executor, watching and killing it, collecting its
//!   costs.
//!
//! This module composes them; the outcome is decided by [`crate::classify`].

mod prepare;
mod probe;
mod skeleton;
mod slots;
mod supervise;
mod warm_run;

pub use prepare::{BOX_ENV_PATH, BOX_PATH};

use crate::child::ChildStack;
use crate::classify::{Facts, classify};
use crate::instance::Instance;
use crate::seccomp::Filters;
use crate::warm::WarmPython;
use crate::{IsolationLevel, SandboxConfig, SandboxError, SandboxOutcome, SandboxSpec};
use prepare::Prepared;
use probe::Executor;
use slots::Slots;
use supervise::Supervisor;

/// Runs untrusted commands isolated, limited and measured; `Send + Sync`, one per process.
#[derive(Debug)]
pub struct Sandbox {
    config: SandboxConfig,
    level: IsolationLevel,
    executor: Executor,
    /// Whether each slot runs as a uid of its own (root, or subordinate ids mapped).
    box_uids: bool,
    /// What the host lacks for full isolation, as probed.
    lacks: Vec<String>,
    slots: Slots,
    /// The stack of the program's last steps before execve (shared: see [`ChildStack`]).
    stack: Option<ChildStack>,
    /// CPUs this process may run on (its boxes too).
    ncpu: u64,
    filters: Filters,
    /// This sandbox's claim on host state (dropped last: what it owns is gone by then).
    instance: Instance,
}

impl Sandbox {
    /// Probes cgroups (v2, then v1) and namespaces once, prepares the skeleton root and the
    /// seccomp filter, and logs what it found.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, SandboxError> {
        let stack = ChildStack::new();
        let filters = Filters::new();
        let probed = probe::probe(&config, stack.as_ref().map_or(0, ChildStack::top), &filters)?;
        let sandbox = Sandbox {
            slots: Slots::new(&config, probed.lock_slots)?,
            stack,
            ncpu: affinity_cpus(),
            filters,
            level: probed.level,
            executor: probed.executor,
            box_uids: probed.box_uids,
            lacks: probed.lacks,
            instance: probed.instance,
            config,
        };
        crate::timings::mark("slots and filter");
        Ok(sandbox)
    }

    /// The isolation every run of this sandbox gets.
    pub fn isolation(&self) -> IsolationLevel {
        self.level
    }

    /// What this host lacks for full isolation, one reason each (empty when nothing): why
    /// [`Sandbox::isolation`] is what it is.
    pub fn lacks(&self) -> &[String] {
        &self.lacks
    }

    /// This sandbox's claim on host state: its name, and work roots no other instance removes
    /// while it lives.
    pub fn instance(&self) -> &Instance {
        &self.instance
    }

    /// The configuration this sandbox was made with.
    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// Starts the zygotes of the first `slots` slots that have none yet (blocking; a judge
    /// calls it off its path at start-up, so that its first runs find their boxes made) and
    /// returns how many it started. Nothing to do for a one-shot or rlimit-only sandbox.
    pub fn warm(&self, slots: usize) -> Result<usize, SandboxError> {
        let Executor::Zygote(z) = &self.executor else {
            return Ok(0);
        };
        if z.one_shot {
            return Ok(0);
        }
        let supervisor = Supervisor {
            config: &self.config,
            stack_top: self.stack.as_ref().map_or(0, ChildStack::top),
            filters: &self.filters,
            ncpu: self.ncpu,
        };
        let mut started = 0;
        for slot in 0..slots.min(z.slots.len()) {
            started += usize::from(supervisor.warm_zygote(z, slot)?);
        }
        Ok(started)
    }

    /// Runs one command to completion (blocking) and reports what happened and what it cost.
    ///
    /// A limit hit is `Ok` with [`SandboxOutcome::limit_hit`] set; `Err` means the command could
    /// not be run at all (bad spec, missing program, setup failure).
    pub fn run(&self, spec: &SandboxSpec) -> Result<SandboxOutcome, SandboxError> {
        self.run_served(spec, None)
    }

    /// Whether [`Sandbox::run_warm`] serves runs from a warm interpreter here: full isolation
    /// as root (not in a user namespace of its own: there the template's `execve` would drop
    /// the capabilities its child needs to make the run's namespaces), with long-lived zygotes
    /// and a uid per box (which the template's child takes as a program does). Otherwise it
    /// runs them cold.
    pub fn has_warm_interpreters(&self) -> bool {
        self.box_uids && matches!(&self.executor, Executor::Zygote(z) if !z.one_shot && !z.rootless)
    }

    /// Runs `spec`, a cold run of `warm`'s script (see [`WarmPython`]), from the slot's warm
    /// interpreter for it when this sandbox has them ([`Sandbox::has_warm_interpreters`]) and
    /// as it is otherwise: the same box, limits and outcome, without the interpreter's start.
    pub fn run_warm(
        &self,
        warm: &WarmPython,
        spec: &SandboxSpec,
    ) -> Result<SandboxOutcome, SandboxError> {
        match warm.script_args(&spec.args) {
            Some(args) if self.has_warm_interpreters() => self.run_served(spec, Some((warm, args))),
            _ => self.run(spec),
        }
    }

    fn run_served(
        &self,
        spec: &SandboxSpec,
        warm: Option<(&WarmPython, &[std::ffi::OsString])>,
    ) -> Result<SandboxOutcome, SandboxError> {
        let slot = self.slots.acquire()?;
        crate::timings::mark("slot lock");
        let ids = self.box_uids.then(|| {
            let id = self.config.uid_base + slot.index as u32;
            (id, id)
        });
        let prep = Prepared::new(&self.config, &self.executor, spec, ids)?;
        crate::timings::mark("box prep");
        let supervisor = Supervisor {
            config: &self.config,
            stack_top: self.stack.as_ref().map_or(0, ChildStack::top),
            filters: &self.filters,
            ncpu: self.ncpu,
        };
        let since = crate::boxfs::file_clock_now();
        // Files the caller placed in this same tick of the coarse file clock carry `since` as
        // their time: this walk tells them from what the program writes (docs/sandbox.md).
        let placed = crate::boxfs::scan_placed(&prep.box_fd, since);
        let result = match &self.executor {
            Executor::Zygote(z) => supervisor.run_zygote(z, slot.index, spec, &prep, warm),
            Executor::Namespaced(n) => supervisor.run_init(spec, &prep, Some((n, slot.index))),
            Executor::RlimitOnly => supervisor.run_init(spec, &prep, None),
        };
        let output_bytes = prep.output_bytes(spec);
        let mut raw = result?;
        crate::timings::mark("readings and cleanup");
        // One walk of the box dir for what the program wrote. A file that reached the output cap
        // is an output limit even when the program ignored SIGXFSZ and went on after EFBIG (a
        // killed box is classified by its kill). On a tmpfs box dir, what it wrote is charged to
        // its cgroup as file pages; `memory.stat` is read only when the peak passes ru_maxrss,
        // and ru_maxrss itself can hold the pages of a written file (seen when a fresh zygote
        // serves the run), so the written files are taken from the peak and never keep the
        // ru_maxrss floor up (design #24).
        let count_written = prep.box_on_tmpfs && raw.readings.is_some();
        let written = if raw.killed_for.is_none() || count_written {
            crate::boxfs::scan_written(&prep.box_fd, prep.output_cap, since, &placed)
        } else {
            crate::boxfs::Written::default()
        };
        if count_written
            && written.bytes > 0
            && let Some(r) = raw.readings.as_mut()
        {
            r.file_bytes = r.file_bytes.max(written.bytes);
            raw.rusage_maxrss_kb = raw.rusage_maxrss_kb.saturating_sub(written.bytes / 1024);
        }
        let capped_file = match raw.killed_for {
            None => written.capped,
            Some(_) => None,
        };
        crate::timings::mark("box scan");
        let limits = &spec.limits;
        let outcome = classify(&Facts {
            status: raw.status,
            killed_for: raw.killed_for,
            wall_ms: raw.wall.as_millis() as u64,
            rusage_cpu_ms: raw.rusage_cpu_ms,
            rusage_maxrss_kb: raw.rusage_maxrss_kb,
            readings: raw.readings,
            output_bytes,
            output_cap: prep.output_cap,
            capped_file,
            cpu_limit_ms: limits.cpu_time_ms,
            wall_limit_ms: prep.wall_ms,
            memory_limit_kb: limits.memory_kb,
            memory_headroom_kb: raw.headroom / 1024,
            isolation: Some(self.level),
            ended: Some(raw.ended),
            cpu_wait_ns: raw.cpu_wait_ns,
        });
        Ok(SandboxOutcome {
            rlimits_clamped: prep.rlimits_clamped,
            ..outcome
        })
    }
}

/// How many CPUs this process may run on, from its affinity mask (one system call; never
/// fewer than the CPUs a box can burn at once, which is what the supervisor's polling needs:
/// a CPU quota only makes it poll a little more often than it must).
fn affinity_cpus() -> u64 {
    // SAFETY: cpu_set_t is plain old data; sched_getaffinity writes at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            libc::CPU_COUNT(&set).max(1) as u64
        } else {
            1
        }
    }
}
