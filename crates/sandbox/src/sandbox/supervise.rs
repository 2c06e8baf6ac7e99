//! Supervising a run: handing the prepared run to its executor (the slot's zygote, or an
//! rlimit-only init), watching CPU and wall time until it ends, killing it on a limit, and
//! collecting what it cost.

use super::prepare::{Prepared, run_mounts};
use super::probe::{NS_FLAGS, Namespaced, SlotState, Zygotes};
use crate::cgroup::{Fresh, Readings, RunCgroup};
use crate::child::{self, Exec, Plan, StatusRecord};
use crate::error::cstring;
use crate::seccomp::Filters;
use crate::warm::WarmPython;
use crate::zygote::{self, Arena, Order, Zygote};
use crate::{LimitHit, SandboxConfig, SandboxError, SandboxSpec, sys};
use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, Instant};

/// The most memory a run's cgroup allows beyond its limit for file pages (tmpfs box dirs).
const MAX_HEADROOM: u64 = 1 << 30;

/// How often the supervisor checks the program's own memory when the cgroup allows more.
const MEMORY_POLL: Duration = Duration::from_millis(5);

/// What every run's supervision shares (fixed at start-up).
pub(super) struct Supervisor<'a> {
    pub config: &'a SandboxConfig,
    /// The top of the stack of the program's last steps (0: plain fork).
    pub stack_top: usize,
    pub filters: &'a Filters,
    /// CPUs this process may use.
    pub ncpu: u64,
}

/// What the supervisor saw.
pub(super) struct RawRun {
    /// Wait status of the main program (None: killed with the box, or never reported).
    pub status: Option<i32>,
    pub killed_for: Option<LimitHit>,
    pub wall: Duration,
    /// user+sys of everything reaped (wait4), in ms.
    pub rusage_cpu_ms: u64,
    /// The largest ru_maxrss reaped, in KiB.
    pub rusage_maxrss_kb: u64,
    /// The run cgroup's readings (full isolation).
    pub readings: Option<Readings>,
    /// Memory the cgroup allowed beyond the memory limit for file pages, in bytes.
    pub headroom: u64,
    /// How long its threads had waited for a CPU when a wall limit killed it, in ns (see
    /// [`RunCgroup::cpu_wait_ns`]).
    pub cpu_wait_ns: Option<u64>,
    /// When the program ended (its exit as its zygote saw it, else when the supervisor saw
    /// the end or killed the box).
    pub ended: Instant,
}

/// The limits the supervisor enforces itself.
#[derive(Clone, Copy)]
pub(super) struct Watch<'a> {
    pub cg: Option<&'a RunCgroup>,
    wall_ms: u64,
    cpu_limit_ms: Option<u64>,
    /// The limit of the program's own memory in bytes, when the cgroup's is higher (headroom
    /// for file pages): the supervisor enforces it.
    own_memory_limit: Option<u64>,
    /// The spec's stop pipe: readable or hung up, the box is killed.
    stop: Option<RawFd>,
    /// The spec's cancel switch: cancelled, the box is killed.
    cancel: Option<&'a crate::Cancel>,
}

impl Supervisor<'_> {
    /// Full isolation: the slot's zygote runs the program in the run's cgroups (see
    /// [`RunCgroup`]), whose fresh part is retired (removed in the background) afterwards,
    /// whatever happened; the slot keeps the rest when the run ended cleanly.
    pub(super) fn run_zygote(
        &self,
        z: &Zygotes,
        slot: usize,
        spec: &SandboxSpec,
        prep: &Prepared,
        warm: Option<(&WarmPython, &[std::ffi::OsString])>,
    ) -> Result<RawRun, SandboxError> {
        let fresh = match z.cgroups.take() {
            Some(f) => f,
            None => Fresh::create(&z.hierarchy, &crate::cgroup::run_name(&z.instance))?,
        };
        let kept = self.slot_state(z, slot).cgroups.take();
        let mut cg = RunCgroup::assemble(fresh, kept, &z.hierarchy, &z.instance, z.one_shot)?;
        // A box dir on tmpfs: what the program writes there is memory charged to its cgroup
        // that no reclaim can free, so the cgroup gets room for one output file beyond the
        // limit, and the supervisor holds the program's own memory to the limit (design #24).
        let memory = spec.limits.memory_kb.map(|k| k.saturating_mul(1024));
        let headroom = match memory {
            Some(_) if prep.box_on_tmpfs => prep.output_cap.min(MAX_HEADROOM),
            _ => 0,
        };
        if let Err(e) = cg.set_limits(memory.map(|m| m.saturating_add(headroom)), prep.processes) {
            z.cgroups.retire(None, Some(cg.finish(false).0));
            return Err(e);
        }
        crate::timings::mark("cgroup setup");
        let mut mount_ns = None;
        let mut answered = false;
        let w = Watch {
            cg: Some(&cg),
            wall_ms: prep.wall_ms,
            cpu_limit_ms: spec.limits.cpu_time_ms,
            own_memory_limit: memory.filter(|_| headroom > 0),
            stop: spec.stop.as_ref().and_then(|p| p.raw()),
            cancel: spec.cancel.as_ref(),
        };
        let result = match warm {
            Some((warm, args)) => {
                self.serve_warm(z, slot, spec, prep, &w, (warm, args), &mut answered)
            }
            None => self.serve(z, slot, spec, prep, &w, &mut mount_ns, &mut answered),
        };
        let mut readings = cg.readings();
        // A peak above the largest process's RSS may hold file pages (page cache of what it
        // wrote, tmpfs files): `classify` takes those still charged away from it.
        let maxrss_kb = result.as_ref().map_or(0, |r| r.rusage_maxrss_kb);
        if readings.peak_bytes / 1024 > maxrss_kb {
            readings.file_bytes = cg.file_bytes();
        }
        // Every process of the box is dead (its zygote reaped them all, or it was killed with
        // its pid namespace): a killed box's mount namespace is unmounted and the cgroup
        // removed in the background (killing stragglers if it is still busy), in that order.
        // A zygote that answered had reaped every process of the run first: the slot keeps
        // what it may reuse.
        let (removal, kept) = cg.finish(answered);
        if kept.is_some() {
            self.slot_state(z, slot).cgroups = kept;
        }
        z.cgroups.retire(mount_ns, Some(removal));
        let mut raw = result?;
        raw.readings = Some(readings);
        raw.headroom = headroom;
        Ok(raw)
    }

    /// The state slot `slot` keeps between runs (locked).
    pub(super) fn slot_state<'z>(
        &self,
        z: &'z Zygotes,
        slot: usize,
    ) -> std::sync::MutexGuard<'z, SlotState> {
        z.slots[slot].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What a run served by a slot's zygote or warm interpreter is given: its run cgroup, the
    /// box's mounts and the cgroup's process files.
    pub(super) fn slot_run_parts<'w>(
        &self,
        z: &Zygotes,
        spec: &SandboxSpec,
        prep: &Prepared,
        w: &Watch<'w>,
    ) -> Result<(&'w RunCgroup, Vec<child::RunMount>, Vec<RawFd>), SandboxError> {
        let cg = w.cg.ok_or_else(|| SandboxError::Setup {
            stage: "the run cgroup".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        })?;
        let mounts = run_mounts(self.config, z.skeleton.dir(), spec, prep.box_fd.as_raw_fd())?;
        Ok((cg, mounts, cg.procs_fds()))
    }

    /// Hands the order to the slot's zygote (making one if needed) and waits for its answer
    /// (`answered` is set once it is read: the zygote had killed and reaped every process of
    /// the run). A killed box's mount namespace is left in `mount_ns`, to be unmounted off
    /// this path.
    #[allow(clippy::too_many_arguments)]
    fn serve(
        &self,
        z: &Zygotes,
        slot: usize,
        spec: &SandboxSpec,
        prep: &Prepared,
        w: &Watch<'_>,
        mount_ns: &mut Option<File>,
        answered: &mut bool,
    ) -> Result<RawRun, SandboxError> {
        let (cg, mounts, cgroup_procs) = self.slot_run_parts(z, spec, prep, w)?;
        // One-shot: the slot's pinned network namespace (held with the slot).
        let pinned_netns = match (z.one_shot && z.pinned_netns, prep.ids) {
            (true, Some((uid, _))) => Some(
                crate::netns::pinned(&self.config.state_dir.join("netns"), uid).map_err(
                    |source| SandboxError::Setup {
                        stage: "the slot's network namespace".into(),
                        source,
                    },
                )?,
            ),
            _ => None,
        };
        crate::timings::mark("box mounts");
        let order = Order {
            program: &prep.program,
            argv: &prep.argv,
            envp: &prep.envp,
            ids: prep.ids,
            rlimits: &prep.rlimits,
            stdio: prep.stdio_fds(),
            cgroup_procs: &cgroup_procs,
            mounts: &mounts,
            netns: pinned_netns.as_ref().map(AsRawFd::as_raw_fd),
        };
        let mut state = self.slot_state(z, slot);
        let SlotState {
            netns,
            arena,
            zygote,
            ..
        } = &mut *state;
        if zygote.is_none()
            && let Some((a, zy)) = z.first.lock().unwrap_or_else(|e| e.into_inner()).take()
        {
            // One-shot: the zygote started with the sandbox serves any slot (it has a network
            // namespace of its own), with the arena it was made with.
            *arena = Some(a);
            *zygote = Some(zy);
        }
        let arena = slot_arena(arena)?;
        arena
            .write(&order)
            .map_err(|source| match source.raw_os_error() {
                Some(libc::E2BIG) => SandboxError::Exec {
                    program: spec.program.clone(),
                    source,
                },
                _ => SandboxError::Setup {
                    stage: "write the order".into(),
                    source,
                },
            })?;
        let fds = Arena::descriptors(&order);
        crate::timings::mark("order");
        // A zygote may have died since the slot's last run (killed from outside): one retry
        // with a new one.
        let mut start = Instant::now();
        for attempt in 0..2 {
            if zygote.is_none() {
                *zygote = Some(self.start_zygote(z, netns, arena)?);
                crate::timings::mark("zygote start");
            }
            let Some(zy) = zygote.as_mut() else { break };
            if let Err(e) = zy.wait_ready(&z.skeleton.ops) {
                *zygote = None;
                return Err(e);
            }
            crate::timings::mark("zygote ready");
            start = Instant::now();
            match zy.send(&fds) {
                Ok(()) => break,
                Err(source) if attempt == 1 => {
                    return Err(SandboxError::Setup {
                        stage: "send the order to the zygote".into(),
                        source,
                    });
                }
                Err(_) => retire_zygote(z, zygote.take()),
            }
        }
        drop(fds);
        prep.release_pipes();
        let zy = zygote.as_ref().ok_or_else(|| SandboxError::Setup {
            stage: "start the zygote".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        })?;
        let (killed_for, killed_at, cpu_wait_ns) = self.watch(zy.sock(), w, start, || {
            // SAFETY: kill has no memory-safety preconditions; the zygote is our unreaped child.
            unsafe { libc::kill(zy.pid(), libc::SIGKILL) };
            cg.kill_all();
        });
        // Killed (on a limit, or stopped by the caller): the zygote died with its box.
        let reply = match killed_at {
            Some(_) => None,
            None => Some(zy.recv()),
        };
        crate::timings::mark("run");
        let seen = Instant::now();
        let wall = killed_at.unwrap_or(seen).duration_since(start);
        let reply = match reply {
            Some(Ok(r)) => {
                *answered = true;
                Some(r)
            }
            Some(Err(source)) => {
                retire_zygote(z, zygote.take());
                return Err(SandboxError::Setup {
                    stage: "wait for the zygote".into(),
                    source,
                });
            }
            None => {
                // Killed: the zygote died with its box (wait for it: the box is dead then).
                *mount_ns = zygote.take().and_then(Zygote::kill);
                None
            }
        };
        if z.one_shot
            && let Some(zy) = zygote.take()
        {
            // It has answered (its box is dead) or was killed: it exits on its own, unwaited.
            let mut let_go = z.let_go.lock().unwrap_or_else(|e| e.into_inner());
            crate::zygote::reap_let_go(&mut let_go);
            let_go.push(zy.let_go());
        }
        let status = match reply {
            None => None,
            Some(r) if r.kind == child::MSG_EXITED => Some(r.status),
            Some(r) if r.kind == child::MSG_EXEC_FAILED && r.stage == child::ST_EXEC => {
                return Err(SandboxError::Exec {
                    program: spec.program.clone(),
                    source: std::io::Error::from_raw_os_error(r.errno),
                });
            }
            Some(r) => {
                return Err(SandboxError::Setup {
                    stage: zygote::describe_stage(r.stage, &z.skeleton.ops, &mounts),
                    source: std::io::Error::from_raw_os_error(r.errno),
                });
            }
        };
        Ok(RawRun {
            status,
            killed_for,
            wall,
            rusage_cpu_ms: reply.map_or(0, |r| (r.utime_us + r.stime_us) / 1000),
            rusage_maxrss_kb: reply.map_or(0, |r| r.maxrss_kb),
            readings: None,
            headroom: 0,
            cpu_wait_ns,
            ended: match (killed_at, reply) {
                (Some(at), _) => at,
                (None, Some(r)) => instant_of(r.ended_ns, seen),
                (None, None) => seen,
            },
        })
    }

    /// Starts slot `slot`'s zygote if it has none (its first run then only waits for it to be
    /// ready); whether it started one.
    pub(super) fn warm_zygote(&self, z: &Zygotes, slot: usize) -> Result<bool, SandboxError> {
        let Some(state) = z.slots.get(slot) else {
            return Ok(false);
        };
        let mut state = state.lock().unwrap_or_else(|e| e.into_inner());
        let SlotState {
            netns,
            arena,
            zygote,
            ..
        } = &mut *state;
        if zygote.is_some() {
            return Ok(false);
        }
        let arena = slot_arena(arena)?;
        *zygote = Some(self.start_zygote(z, netns, arena)?);
        Ok(true)
    }

    /// Starts a slot's zygote (taking the slot's network namespace on its first use).
    fn start_zygote(
        &self,
        z: &Zygotes,
        netns: &mut Option<OwnedFd>,
        arena: &Arena,
    ) -> Result<Zygote, SandboxError> {
        if netns.is_none() {
            *netns = z.netns.as_ref().and_then(crate::netns::NetnsPool::take);
        }
        Zygote::start(&z.boot(netns.as_ref(), arena, self.stack_top, self.filters))
    }

    /// rlimit-only: a plain child (a subreaper init) runs the program; with `namespaced`, the
    /// init is cloned into fresh namespaces and enters the private root first.
    pub(super) fn run_init(
        &self,
        spec: &SandboxSpec,
        prep: &Prepared,
        namespaced: Option<(&Namespaced, usize)>,
    ) -> Result<RawRun, SandboxError> {
        // The slot's network namespace (held with the slot), taken from the pool on its first
        // run; none ready: the init is cloned into a fresh one.
        let mut slot_netns = namespaced.map(|(n, slot)| {
            let mut kept = n.slot_netns[slot % n.slot_netns.len()]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if kept.is_none() {
                *kept = n.netns.as_ref().and_then(crate::netns::NetnsPool::take);
            }
            kept
        });
        let netns = slot_netns
            .as_mut()
            .and_then(|kept| kept.as_ref().map(AsRawFd::as_raw_fd))
            .unwrap_or(-1);
        let namespaced = namespaced.map(|(n, _)| n);
        let mounts = match namespaced {
            Some(n) => run_mounts(self.config, n.skeleton.dir(), spec, prep.box_fd.as_raw_fd())?,
            None => Vec::new(),
        };
        // Every box the one uid: a user namespace of the box's own, so that `RLIMIT_NPROC`
        // counts the box's processes alone (the kernel counts them per user namespace and uid),
        // not the judge's and every other box's too.
        let own_maps = match (namespaced, prep.ids) {
            (Some(n), None) => Some(&n.id_maps),
            _ => None,
        };
        let cwd = match namespaced {
            Some(_) => CString::from(c"/box"),
            None => cstring(spec.box_dir.as_os_str().as_bytes(), &spec.box_dir)?,
        };
        let pointers = |list: &[CString]| {
            let mut v: Vec<*const libc::c_char> = list.iter().map(|c| c.as_ptr()).collect();
            v.push(std::ptr::null());
            v
        };
        let (argv, envp) = (pointers(&prep.argv), pointers(&prep.envp));
        let mut pipe = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array.
        if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(SandboxError::Setup {
                stage: "pipe".into(),
                source: std::io::Error::last_os_error(),
            });
        }
        // SAFETY: both descriptors were just created and are owned here.
        let (rd, wr) = unsafe { (OwnedFd::from_raw_fd(pipe[0]), OwnedFd::from_raw_fd(pipe[1])) };
        let plan = Plan {
            exec: Exec {
                cgroup_procs: &[],
                stdio: prep.stdio_fds(),
                program: prep.program.as_ptr(),
                argv: argv.as_ptr(),
                envp: envp.as_ptr(),
                ids: prep.ids,
                rlimits: &prep.rlimits,
                filter: Some(&self.filters.whole),
                reset_signals: &child::EVERY_SIGNAL,
                status_fd: wr.as_raw_fd(),
            },
            cwd,
            stack_top: self.stack_top,
            boxed: namespaced.map(|n| child::Boxed {
                root: n.skeleton.root_plan(true),
                tmp_options: &n.tmp_options,
                mounts: &mounts,
                netns,
                own_user_ns: own_maps.map(|[u, g]| [u.as_c_str(), g.as_c_str()]),
            }),
        };
        let mut pidfd: RawFd = -1;
        let ns_flags = match (namespaced, netns) {
            (Some(_), -1) => NS_FLAGS,
            (Some(_), _) => NS_FLAGS & !(libc::CLONE_NEWNET as u64),
            (None, _) => 0,
        };
        let mut args = sys::CloneArgs {
            flags: sys::CLONE_PIDFD | ns_flags,
            pidfd: &mut pidfd as *mut RawFd as u64,
            exit_signal: libc::SIGCHLD as u64,
            ..Default::default()
        };
        let start = Instant::now();
        // SAFETY: the child runs only child::init_main, which uses nothing but system calls on
        // the prepared plan and never returns.
        let pid = unsafe { sys::clone3(&mut args) };
        if pid == 0 {
            // SAFETY: we are the freshly cloned child.
            unsafe { child::init_main(&plan) };
        }
        if pid < 0 {
            return Err(SandboxError::Setup {
                stage: "clone3".into(),
                source: std::io::Error::last_os_error(),
            });
        }
        drop(wr);
        prep.release_pipes();
        let pid = pid as libc::pid_t;
        // SAFETY: clone3 stored a fresh pidfd owned by nobody else.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
        let w = Watch {
            cg: None,
            wall_ms: prep.wall_ms,
            cpu_limit_ms: spec.limits.cpu_time_ms,
            own_memory_limit: None,
            stop: spec.stop.as_ref().and_then(|p| p.raw()),
            cancel: spec.cancel.as_ref(),
        };
        let (killed_for, killed_at, cpu_wait_ns) = self.watch(pidfd.as_raw_fd(), &w, start, || {
            if namespaced.is_some() {
                // The init kills its namespace and reaps it (their CPU time counted); an init
                // that is not done within the grace dies, and its namespace with it.
                // SAFETY: kill and poll on our own unreaped child and its live pidfd.
                unsafe {
                    libc::kill(pid, libc::SIGUSR1);
                    let mut done = libc::pollfd {
                        fd: pidfd.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    libc::poll(&mut done, 1, NAMESPACE_KILL_GRACE_MS);
                }
            }
            if let (None, Some((uid, gid))) = (namespaced, prep.ids) {
                kill_uid(uid, gid);
            }
            // SAFETY: kill has no memory-safety preconditions; pid is our unreaped child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        });
        // SAFETY: rusage is plain old data.
        let mut rusage: libc::rusage = unsafe { std::mem::zeroed() };
        let mut status = 0;
        loop {
            // SAFETY: waiting for our own child with valid out-pointers.
            let r = unsafe { libc::wait4(pid, &mut status, libc::__WALL, &mut rusage) };
            if r >= 0 || sys::errno() != libc::EINTR {
                break;
            }
        }
        // A killed box is stopped when SIGKILL is sent; its teardown is not the program's time.
        let ended = killed_at.unwrap_or_else(Instant::now);
        let wall = ended.duration_since(start);
        // Read the status records (the writers are gone: the box is dead).
        let mut buf = Vec::new();
        let mut chunk = [0u8; 256];
        loop {
            // SAFETY: reading into a live stack buffer of the given size.
            let n = unsafe { libc::read(rd.as_raw_fd(), chunk.as_mut_ptr().cast(), chunk.len()) };
            if n <= 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n as usize]);
        }
        let mut main_status = None;
        for rec in StatusRecord::decode_all(&buf) {
            match rec.kind {
                child::MSG_EXITED => main_status = Some(rec.value),
                child::MSG_EXEC_FAILED if rec.stage == child::ST_EXEC => {
                    return Err(SandboxError::Exec {
                        program: spec.program.clone(),
                        source: std::io::Error::from_raw_os_error(rec.value),
                    });
                }
                _ => {
                    let ops = namespaced.map_or(&[][..], |n| &n.skeleton.ops[..]);
                    return Err(SandboxError::Setup {
                        stage: zygote::describe_stage(rec.stage, ops, &mounts),
                        source: std::io::Error::from_raw_os_error(rec.value),
                    });
                }
            }
        }
        drop(plan);
        let tv = |t: libc::timeval| t.tv_sec as u64 * 1000 + t.tv_usec as u64 / 1000;
        Ok(RawRun {
            status: main_status,
            killed_for,
            wall,
            rusage_cpu_ms: tv(rusage.ru_utime) + tv(rusage.ru_stime),
            rusage_maxrss_kb: rusage.ru_maxrss.max(0) as u64,
            readings: None,
            headroom: 0,
            cpu_wait_ns,
            ended,
        })
    }

    /// Watches the box until `done` (its init's pidfd or its zygote's socket) is readable;
    /// calls `kill` on a CPU or wall limit, on the spec's stop pipe or on its
    /// [`crate::Cancel`]. Gives the limit, when it killed, and at a wall limit how long the
    /// box's threads had waited for a CPU (read just before the kill).
    pub(super) fn watch(
        &self,
        done: RawFd,
        w: &Watch<'_>,
        start: Instant,
        kill: impl Fn(),
    ) -> (Option<LimitHit>, Option<Instant>, Option<u64>) {
        let wall_limit = Duration::from_millis(w.wall_ms);
        // The run's switch (a cancelled submission): polled as the stop pipe is.
        let cancel = w.cancel.and_then(crate::Cancel::fd);
        let cpu_limit_ns = w.cpu_limit_ms.map(|ms| ms * 1_000_000);
        let ncpu = self.ncpu.max(1);
        loop {
            let elapsed = start.elapsed();
            let mut timeout = wall_limit.saturating_sub(elapsed);
            if let (Some(limit), Some(cg)) = (cpu_limit_ns, w.cg) {
                let used = cg.cpu_ns();
                if used >= limit {
                    let at = Instant::now();
                    kill();
                    return (Some(LimitHit::CpuTime), Some(at), None);
                }
                // The box cannot burn more than ncpu CPU-seconds per second.
                let safe = Duration::from_nanos((limit - used) / ncpu);
                timeout =
                    timeout.min(safe.clamp(Duration::from_millis(1), Duration::from_millis(100)));
            }
            if let (Some(limit), Some(cg)) = (w.own_memory_limit, w.cg) {
                // Over the limit only with its file pages counted: check its own memory.
                let usage = cg.usage_bytes();
                if usage > limit && usage.saturating_sub(cg.file_bytes()) > limit {
                    let at = Instant::now();
                    kill();
                    return (Some(LimitHit::Memory), Some(at), None);
                }
                timeout = timeout.min(MEMORY_POLL);
            }
            if elapsed >= wall_limit {
                let at = Instant::now();
                let cpu_wait_ns = w.cg.and_then(RunCgroup::cpu_wait_ns);
                kill();
                return (Some(LimitHit::WallTime), Some(at), cpu_wait_ns);
            }
            let mut pfds = [
                libc::pollfd {
                    fd: done,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    // A negative descriptor is ignored by poll.
                    fd: w.stop.unwrap_or(-1),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: cancel.unwrap_or(-1),
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            let ms = timeout.as_micros().div_ceil(1000).clamp(1, 100) as i32;
            // SAFETY: polling three pollfds of a live array (the last two may be ignored).
            let r = unsafe { libc::poll(pfds.as_mut_ptr(), 3, ms) };
            if r > 0 && pfds[0].revents != 0 {
                return (None, None, None);
            }
            if r > 0 && (pfds[1].revents != 0 || pfds[2].revents != 0) {
                // Stopped by the caller or cancelled: killed as on a limit, with none named.
                let at = Instant::now();
                kill();
                return (None, Some(at), None);
            }
        }
    }
}

/// Whether `fd` becomes readable (or hung up) within `ms`.
pub(super) fn readable_within(fd: RawFd, ms: libc::c_int) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let deadline = Instant::now() + Duration::from_millis(ms as u64);
    loop {
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_millis() as libc::c_int;
        // SAFETY: polling one live pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, left) };
        if r > 0 {
            return true;
        }
        if r == 0 || sys::errno() != libc::EINTR {
            return false;
        }
    }
}

/// The instant a box's process reported as its end (`CLOCK_MONOTONIC` ns; 0: not seen, then
/// `seen`).
pub(super) fn instant_of(ended_ns: u64, seen: Instant) -> Instant {
    if ended_ns == 0 {
        return seen;
    }
    let ago = sys::monotonic_ns().saturating_sub(ended_ns);
    Instant::now()
        .checked_sub(Duration::from_nanos(ago))
        .unwrap_or(seen)
}

/// A slot's arena, mapped on its first use.
pub(super) fn slot_arena(arena: &mut Option<Arena>) -> Result<&mut Arena, SandboxError> {
    match arena {
        Some(arena) => Ok(arena),
        empty => Ok(
            empty.insert(Arena::new().map_err(|source| SandboxError::Setup {
                stage: "map the zygote's arena".into(),
                source,
            })?),
        ),
    }
}

/// Ends a zygote (killing whatever it runs) and unmounts its namespace in the background.
pub(super) fn retire_zygote(z: &Zygotes, zygote: Option<Zygote>) {
    z.cgroups.retire(zygote.and_then(Zygote::kill), None);
}

/// How long an init in fresh namespaces has to kill and reap its namespace before it is killed.
const NAMESPACE_KILL_GRACE_MS: libc::c_int = 200;

/// Kills every process of `uid` (rlimit-only boxes) from a short-lived child.
fn kill_uid(uid: u32, gid: u32) {
    // SAFETY: the child only calls setresgid/setresuid/capset/kill/_exit.
    let pid = unsafe { sys::raw_fork() };
    if pid == 0 {
        // SAFETY: plain system calls in a fork child that exits.
        unsafe {
            // (In a user namespace the uid change keeps the capabilities, and with them
            // `CAP_KILL` over every process of the namespace: dropped first.)
            if sys::set_ids(uid, gid, false) == 0 && sys::drop_capabilities() == 0 {
                libc::kill(-1, libc::SIGKILL);
            }
            libc::_exit(0);
        }
    }
    if pid > 0 {
        let mut st = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid as libc::pid_t, &mut st, libc::__WALL) };
    }
}
