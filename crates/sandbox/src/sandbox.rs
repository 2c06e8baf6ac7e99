//! The sandbox: start-up probing, one run (prepare, clone, watch, measure, clean up).

use crate::boxfs::{self, create_output_beneath, open_beneath, open_box, split_box_path};
use crate::cgroup::{self, Hierarchy, RunCgroup};
use crate::child::{self, Exec, MountOp, Plan, RootPlan};
use crate::classify::{Facts, classify};
use crate::seccomp::{self, Insn};
use crate::sys;
use crate::zygote::{self, Arena, Order, RunMount, Zygote};
use crate::{
    IsolationLevel, LimitHit, SandboxConfig, SandboxError, SandboxOutcome, SandboxSpec, StdioSpec,
};
use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Where the box directory appears inside the private root (the program's working directory).
pub const BOX_PATH: &str = "/box";

/// The `PATH` of every box.
pub const BOX_ENV_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

const NS_FLAGS: u64 = (libc::CLONE_NEWPID
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS) as u64;

/// Runs untrusted commands isolated, limited and measured; `Send + Sync`, one per process.
#[derive(Debug)]
pub struct Sandbox {
    config: SandboxConfig,
    level: IsolationLevel,
    hierarchy: Option<Hierarchy>,
    /// The stack of the program's last steps before execve (shared: see [`child::ChildStack`]).
    stack: Option<child::ChildStack>,
    /// CPUs this process may use (read once: it costs a dozen system calls).
    ncpu: u64,
    root: bool,
    skeleton: CString,
    /// The mounts of every box's private root (a zygote makes them once).
    root_ops: Vec<MountOp>,
    /// The options of every box's `/tmp` tmpfs.
    tmp_options: CString,
    filter: Vec<Insn>,
    slots: Mutex<Vec<bool>>,
    slot_freed: Condvar,
    locks: Vec<File>,
    netns: Option<crate::netns::NetnsPool>,
    /// What each slot keeps between its runs (locked while a run holds the slot).
    slot_state: Vec<Mutex<SlotState>>,
    cgroups: Option<cgroup::CgroupPool>,
}

/// What a slot keeps between its runs (full isolation only).
#[derive(Debug, Default)]
struct SlotState {
    /// Its network namespace, taken from the pool on the slot's first run.
    netns: Option<OwnedFd>,
    /// The memory its orders go through.
    arena: Option<Arena>,
    /// Its zygote, made on first use and again after a box was killed.
    zygote: Option<Zygote>,
}

/// A box slot (uid and lock) held for one run.
struct Slot<'a> {
    sandbox: &'a Sandbox,
    index: usize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(lock) = self.sandbox.locks.get(self.index) {
            // SAFETY: flock on a descriptor we own.
            unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_UN) };
        }
        let mut busy = self.sandbox.slots.lock().unwrap_or_else(|e| e.into_inner());
        busy[self.index] = false;
        self.sandbox.slot_freed.notify_one();
    }
}

fn cstring(bytes: &[u8], what: &Path) -> Result<CString, SandboxError> {
    CString::new(bytes).map_err(|_| SandboxError::BadPath {
        path: what.to_owned(),
        reason: "contains a NUL byte".into(),
    })
}

fn io_err(op: &'static str, path: &Path, source: std::io::Error) -> SandboxError {
    SandboxError::Io {
        op,
        path: path.to_owned(),
        source,
    }
}

/// Probes whether this process can make pid/mount/net/ipc/uts namespaces.
fn probe_namespaces() -> Result<(), String> {
    let mut args = sys::CloneArgs {
        flags: NS_FLAGS,
        exit_signal: libc::SIGCHLD as u64,
        ..Default::default()
    };
    // SAFETY: the child only calls _exit.
    let pid = unsafe { sys::clone3(&mut args) };
    if pid == 0 {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(0) };
    }
    if pid < 0 {
        return Err(format!(
            "clone3 with namespaces: {}",
            std::io::Error::last_os_error()
        ));
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    unsafe { libc::waitpid(pid as libc::pid_t, &mut status, libc::__WALL) };
    Ok(())
}

/// The box's `/dev`, made once in the skeleton (root-owned 0755, read-only in the box): the
/// `null`, `zero`, `full`, `random` and `urandom` nodes and the `fd`, `stdin`, `stdout`,
/// `stderr` links. The skeleton's mount is the only one of the box without `nodev`; the box
/// can create nothing on it (read-only, and its uid has no `CAP_MKNOD`), so these nodes are
/// the only devices it can open.
fn make_dev(dev: &Path) -> Result<(), SandboxError> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    for (name, minor) in [
        ("null", 3),
        ("zero", 5),
        ("full", 7),
        ("random", 8),
        ("urandom", 9),
    ] {
        let p = dev.join(name);
        let want = libc::makedev(1, minor);
        let is_node = |p: &Path| {
            p.symlink_metadata().is_ok_and(|m| {
                use std::os::unix::fs::MetadataExt;
                m.file_type().is_char_device() && m.rdev() == want
            })
        };
        if !is_node(&p) {
            let _ = std::fs::remove_file(&p);
            let c = cstring(p.as_os_str().as_bytes(), &p)?;
            // SAFETY: mknod with a NUL-terminated path.
            if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, want) } < 0 {
                // Another process sharing the state dir may have just made it.
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EEXIST) || !is_node(&p) {
                    return Err(io_err("mknod", &p, e));
                }
            }
        }
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o666))
            .map_err(|e| io_err("chmod", &p, e))?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        let p = dev.join(name);
        if std::fs::read_link(&p).is_ok_and(|t| t == Path::new(target)) {
            continue;
        }
        let _ = std::fs::remove_file(&p);
        if let Err(e) = std::os::unix::fs::symlink(target, &p) {
            // Another process sharing the state dir may have just made it.
            if !std::fs::read_link(&p).is_ok_and(|t| t == Path::new(target)) {
                return Err(io_err("make symlink", &p, e));
            }
        }
    }
    std::fs::set_permissions(dev, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| io_err("chmod", dev, e))
}

fn mkdir_p(path: &Path) -> Result<(), SandboxError> {
    std::fs::create_dir_all(path).map_err(|e| io_err("create dir", path, e))
}

/// Makes `dir` (an absolute host path) exist in the skeleton root.
fn skeleton_mountpoint(skeleton: &Path, dir: &Path) -> Result<PathBuf, SandboxError> {
    let rel = dir.strip_prefix("/").map_err(|_| SandboxError::BadPath {
        path: dir.to_owned(),
        reason: "mounts must be absolute paths".into(),
    })?;
    if rel
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(SandboxError::BadPath {
            path: dir.to_owned(),
            reason: "mounts must be normalised (no `..`, not `/`)".into(),
        });
    }
    let target = skeleton.join(rel);
    if target.symlink_metadata().is_err() {
        mkdir_p(&target)?;
    }
    Ok(target)
}

impl Sandbox {
    /// Probes cgroups (v2, then v1) and namespaces once, prepares the skeleton root and the
    /// seccomp filter, and logs what it found.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, SandboxError> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let mut reasons = Vec::new();
        let mut hierarchy = None;
        let mut namespaces = false;
        if root {
            match cgroup::detect(&config.cgroup_mount, &config.cgroup_name) {
                Ok(h) => {
                    cgroup::sweep_stale(&h);
                    hierarchy = Some(h);
                }
                Err(e) => reasons.push(e),
            }
            match probe_namespaces() {
                Ok(()) => namespaces = true,
                Err(e) => reasons.push(e),
            }
        } else {
            reasons.push("not running as root".to_string());
        }
        let level = match (&hierarchy, namespaces) {
            (Some(Hierarchy::V1 { .. }), true) => IsolationLevel::FullCgroupV1,
            (Some(Hierarchy::V2 { .. }), true) => IsolationLevel::FullCgroupV2,
            _ => IsolationLevel::RlimitOnly,
        };
        if level == IsolationLevel::RlimitOnly {
            if config.require_isolation {
                return Err(SandboxError::IsolationUnavailable(reasons.join("; ")));
            }
            tracing::warn!(reasons = %reasons.join("; "), "sandbox falls back to rlimits only");
        } else {
            tracing::info!(?level, ?hierarchy, "sandbox isolation");
        }

        let skeleton_path = config.state_dir.join("root");
        let mut root_ops = Vec::new();
        if namespaces {
            mkdir_p(&skeleton_path)?;
            for d in ["box", "proc", "dev", "tmp"] {
                mkdir_p(&skeleton_path.join(d))?;
            }
            make_dev(&skeleton_path.join("dev"))?;
            for dir in &config.toolchain_dirs {
                let Ok(meta) = dir.symlink_metadata() else {
                    continue;
                };
                if meta.file_type().is_symlink() {
                    let target =
                        std::fs::read_link(dir).map_err(|e| io_err("read link", dir, e))?;
                    let rel = dir.strip_prefix("/").unwrap_or(dir);
                    let at = skeleton_path.join(rel);
                    if at.symlink_metadata().is_err() {
                        if let Some(p) = at.parent() {
                            mkdir_p(p)?;
                        }
                        std::os::unix::fs::symlink(&target, &at)
                            .map_err(|e| io_err("make symlink", &at, e))?;
                    }
                    continue;
                }
                let at = skeleton_mountpoint(&skeleton_path, dir)?;
                root_ops.push(MountOp::Bind {
                    src: cstring(dir.as_os_str().as_bytes(), dir)?,
                    dst: cstring(at.as_os_str().as_bytes(), &at)?,
                    attrs: sys::MOUNT_ATTR_RDONLY | sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV,
                });
            }
        }
        if namespaces {
            let proc = skeleton_path.join("proc");
            root_ops.push(MountOp::Proc {
                dst: cstring(proc.as_os_str().as_bytes(), &proc)?,
            });
        }
        let skeleton = cstring(skeleton_path.as_os_str().as_bytes(), &skeleton_path)?;

        let lock_dir = config.state_dir.join("locks");
        let mut locks = Vec::new();
        if root {
            mkdir_p(&lock_dir)?;
            for i in 0..config.max_boxes {
                let uid = config.uid_base + i;
                let p = lock_dir.join(format!("uid-{uid}"));
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&p)
                    .map_err(|e| io_err("open lock", &p, e))?;
                locks.push(f);
            }
        }
        let cgroups = match (&hierarchy, level) {
            (_, IsolationLevel::RlimitOnly) | (None, _) => None,
            (Some(h), _) => Some(cgroup::CgroupPool::start(h.clone())),
        };
        let config_boxes = config.max_boxes.max(1) as usize;
        let tmp_options =
            CString::new(format!("size={},nr_inodes=4096,mode=1777", config.tmp_size))
                .map_err(|_| SandboxError::Nul("tmp".into()))?;
        Ok(Sandbox {
            stack: child::ChildStack::new(),
            ncpu: std::thread::available_parallelism().map_or(1, |n| n.get()) as u64,
            slots: Mutex::new(vec![false; config_boxes]),
            slot_freed: Condvar::new(),
            config,
            level,
            hierarchy,
            root,
            skeleton,
            root_ops,
            tmp_options,
            filter: seccomp::build_filter(),
            locks,
            netns: if level == IsolationLevel::RlimitOnly {
                None
            } else {
                crate::netns::NetnsPool::start()
            },
            slot_state: (0..config_boxes).map(|_| Mutex::default()).collect(),
            cgroups,
        })
    }

    /// The isolation every run of this sandbox gets.
    pub fn isolation(&self) -> IsolationLevel {
        self.level
    }

    /// The configuration this sandbox was made with.
    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    fn acquire(&self) -> Slot<'_> {
        let mut busy = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            for i in 0..busy.len() {
                if busy[i] {
                    continue;
                }
                let free = match self.locks.get(i) {
                    Some(f) => {
                        // SAFETY: flock on a descriptor we own.
                        let r =
                            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
                        r == 0
                    }
                    None => true,
                };
                if free {
                    busy[i] = true;
                    return Slot {
                        sandbox: self,
                        index: i,
                    };
                }
            }
            // Every slot is in use here or by another process: wait a little.
            busy = self
                .slot_freed
                .wait_timeout(busy, Duration::from_millis(5))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Runs one command to completion (blocking) and reports what happened and what it cost.
    ///
    /// A limit hit is `Ok` with [`SandboxOutcome::limit_hit`] set; `Err` means the command could
    /// not be run at all (bad spec, missing program, setup failure).
    pub fn run(&self, spec: &SandboxSpec) -> Result<SandboxOutcome, SandboxError> {
        let slot = self.acquire();
        let ids = self.root.then(|| {
            let id = self.config.uid_base + slot.index as u32;
            (id, id)
        });
        let full = self.level != IsolationLevel::RlimitOnly;

        // The box directory.
        if !spec.box_dir.is_absolute() {
            return Err(SandboxError::BadPath {
                path: spec.box_dir.clone(),
                reason: "the box dir must be absolute".into(),
            });
        }
        let box_fd = open_box(&spec.box_dir)?;
        if let Some((uid, gid)) = ids {
            nix::unistd::fchown(&box_fd, Some(uid.into()), Some(gid.into()))
                .map_err(|e| io_err("chown box dir", &spec.box_dir, e.into()))?;
        }

        // Standard streams, opened here so the program never names a host path.
        let stdin = self.open_stdio(spec, &spec.stdin, &box_fd, false)?;
        let stdout = self.open_stdio(spec, &spec.stdout, &box_fd, true)?;
        let stderr = match (&spec.stdout, &spec.stderr) {
            (StdioSpec::File(a), StdioSpec::File(b)) if a == b => {
                stdout.try_clone().map_err(|e| io_err("dup", a, e))?
            }
            _ => self.open_stdio(spec, &spec.stderr, &box_fd, true)?,
        };

        let limits = &spec.limits;
        let output_cap = limits.output_bytes.unwrap_or(self.config.global_output_cap);
        let processes = limits.processes.unwrap_or(self.config.default_processes);
        let wall_ms = limits
            .wall_time_ms
            .unwrap_or_else(|| match limits.cpu_time_ms {
                Some(c) => 2 * c + 1000,
                None => self.config.default_wall_time_ms,
            });

        // Program, argv, envp.
        let program = self.resolve_program(spec, &box_fd, full)?;
        let argv0 = spec.program.as_os_str().as_bytes();
        let mut argv_store = vec![
            CString::new(argv0)
                .map_err(|_| SandboxError::Nul(spec.program.display().to_string()))?,
        ];
        for a in &spec.args {
            argv_store.push(
                CString::new(a.as_bytes())
                    .map_err(|_| SandboxError::Nul(a.to_string_lossy().into_owned()))?,
            );
        }
        let home = if full {
            BOX_PATH.to_string()
        } else {
            spec.box_dir.display().to_string()
        };
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), BOX_ENV_PATH.into()),
            ("HOME".into(), home),
            ("LANG".into(), "C.UTF-8".into()),
            ("ONLINE_JUDGE".into(), "1".into()),
        ];
        for (k, v) in &spec.env {
            if k.is_empty() || k.contains('=') {
                return Err(SandboxError::Nul(format!("bad environment name {k:?}")));
            }
            env.retain(|(ek, _)| ek != k);
            env.push((k.clone(), v.clone()));
        }
        let env_store = env
            .iter()
            .map(|(k, v)| {
                CString::new(format!("{k}={v}")).map_err(|_| SandboxError::Nul(k.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?;

        // rlimits (never RLIMIT_AS: managed runtimes reserve far more address space than RSS).
        let lim = |v: u64| libc::rlimit {
            rlim_cur: v,
            rlim_max: v,
        };
        let mut rlimits = vec![
            (libc::RLIMIT_CORE, lim(0)),
            (libc::RLIMIT_FSIZE, lim(output_cap.saturating_add(1))),
            (
                libc::RLIMIT_NOFILE,
                lim(u64::from(
                    limits.open_files.unwrap_or(self.config.default_open_files),
                )),
            ),
            (
                libc::RLIMIT_STACK,
                lim(limits
                    .stack_kb
                    .map_or(libc::RLIM_INFINITY, |k| k.saturating_mul(1024))),
            ),
            (libc::RLIMIT_MEMLOCK, lim(64 << 10)),
            (libc::RLIMIT_MSGQUEUE, lim(0)),
        ];
        if let Some(cpu) = limits.cpu_time_ms {
            let secs = cpu.div_ceil(1000) + 1;
            rlimits.push((
                libc::RLIMIT_CPU,
                libc::rlimit {
                    rlim_cur: secs,
                    rlim_max: secs + 1,
                },
            ));
        }
        if !full && ids.is_some() {
            rlimits.push((libc::RLIMIT_NPROC, lim(u64::from(processes))));
        }

        // The cgroup of this run.
        let cg = match (&self.hierarchy, full) {
            (Some(h), true) => {
                let cg = match self.cgroups.as_ref().and_then(cgroup::CgroupPool::take) {
                    Some(cg) => cg,
                    None => RunCgroup::create(h, &cgroup::run_name())?,
                };
                let memory = limits.memory_kb.map(|k| k.saturating_mul(1024));
                if let Err(e) = cg.set_limits(memory, processes) {
                    self.retire(cg);
                    return Err(e);
                }
                Some(cg)
            }
            _ => None,
        };
        let result = self.run_in(
            spec,
            RunParts {
                slot: slot.index,
                watch: WatchParts {
                    ids,
                    full,
                    cg: cg.as_ref(),
                    wall_ms,
                    cpu_limit_ms: limits.cpu_time_ms,
                },
                box_fd: &box_fd,
                stdio: [stdin.as_raw_fd(), stdout.as_raw_fd(), stderr.as_raw_fd()],
                program,
                argv: &argv_store,
                envp: &env_store,
                rlimits,
            },
        );
        let out_bytes = [&stdout, &stderr]
            .iter()
            .map(|f| {
                f.metadata()
                    .map(|m| if m.file_type().is_file() { m.len() } else { 0 })
                    .unwrap_or(0)
            })
            .collect::<Vec<_>>();
        let same = matches!((&spec.stdout, &spec.stderr), (StdioSpec::File(a), StdioSpec::File(b)) if a == b);
        let output_bytes = if same {
            out_bytes[0]
        } else {
            out_bytes[0] + out_bytes[1]
        };
        let readings = cg.as_ref().map(RunCgroup::readings);
        let mut result = result;
        let mount_ns = result.as_mut().ok().and_then(|r| r.mount_ns.take());
        match &self.cgroups {
            // Every process of the box is dead (its zygote reaped them all, or it was killed
            // with its pid namespace): a killed box's mount namespace is unmounted and the
            // cgroup removed in the background (killing stragglers if it is still busy), in
            // that order.
            Some(pool) => pool.retire(mount_ns, cg),
            None => {
                drop(mount_ns);
                if let Some(cg) = cg {
                    self.retire(cg);
                }
            }
        }
        let raw = result?;
        Ok(classify(&Facts {
            status: raw.status,
            killed_for: raw.killed_for,
            wall_ms: raw.wall.as_millis() as u64,
            rusage_cpu_ms: raw.rusage_cpu_ms,
            rusage_maxrss_kb: raw.rusage_maxrss_kb,
            readings,
            output_bytes,
            output_cap,
            cpu_limit_ms: limits.cpu_time_ms,
            wall_limit_ms: wall_ms,
            memory_limit_kb: limits.memory_kb,
            isolation: Some(self.level),
        }))
    }

    fn open_stdio(
        &self,
        spec: &SandboxSpec,
        s: &StdioSpec,
        box_fd: &OwnedFd,
        write: bool,
    ) -> Result<File, SandboxError> {
        let path = match s {
            StdioSpec::Null => {
                let f = std::fs::OpenOptions::new()
                    .read(!write)
                    .write(write)
                    .open("/dev/null")
                    .map_err(|e| io_err("open", Path::new("/dev/null"), e))?;
                return Ok(f);
            }
            StdioSpec::File(p) => p,
        };
        let (full, rel) = split_box_path(&spec.box_dir, path);
        let fd = match (rel, write) {
            (Some(rel), true) => {
                boxfs::check_relative(&rel)?;
                create_output_beneath(box_fd.as_raw_fd(), &rel)
                    .map_err(|e| io_err("create output", &full, e))?
            }
            (Some(rel), false) => {
                boxfs::check_relative(&rel)?;
                let fd = open_beneath(
                    box_fd.as_raw_fd(),
                    &rel,
                    libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY,
                    0,
                )
                .map_err(|e| io_err("open input", &full, e))?;
                let f = File::from(fd);
                let meta = f.metadata().map_err(|e| io_err("stat input", &full, e))?;
                if !meta.file_type().is_file() {
                    return Err(SandboxError::BadPath {
                        path: full,
                        reason: "stdin must be a regular file".into(),
                    });
                }
                // Back to blocking reads for the program.
                // SAFETY: fcntl on a descriptor we own.
                unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETFL, 0) };
                return Ok(f);
            }
            (None, write) => {
                let mut o = std::fs::OpenOptions::new();
                if write {
                    o.write(true).create(true).truncate(true);
                } else {
                    o.read(true);
                }
                use std::os::unix::fs::OpenOptionsExt;
                o.custom_flags(libc::O_NOFOLLOW | libc::O_NOCTTY);
                return o.open(&full).map_err(|e| {
                    io_err(if write { "create output" } else { "open input" }, &full, e)
                });
            }
        };
        Ok(File::from(fd))
    }

    /// The program path as execve must see it.
    fn resolve_program(
        &self,
        spec: &SandboxSpec,
        box_fd: &OwnedFd,
        full: bool,
    ) -> Result<CString, SandboxError> {
        let p = &spec.program;
        let bytes = p.as_os_str().as_bytes();
        let not_found = || SandboxError::ProgramNotFound(p.clone());
        if bytes.is_empty() {
            return Err(not_found());
        }
        if !bytes.contains(&b'/') {
            for dir in BOX_ENV_PATH.split(':') {
                let cand = Path::new(dir).join(p);
                if is_executable_file(&cand) {
                    return cstring(cand.as_os_str().as_bytes(), &cand);
                }
            }
            return Err(not_found());
        }
        let (host, rel) = split_box_path(&spec.box_dir, p);
        if rel.is_some() {
            // Inside the box: check without following planted symlinks.
            let rel = rel.unwrap_or_default();
            boxfs::check_relative(&rel).map_err(|_| not_found())?;
            let fd =
                open_beneath(box_fd.as_raw_fd(), &rel, libc::O_PATH, 0).map_err(|_| not_found())?;
            let meta = File::from(fd).metadata().map_err(|_| not_found())?;
            if !meta.file_type().is_file() {
                return Err(not_found());
            }
            let inside: OsString = if full {
                let mut s = OsString::from(BOX_PATH);
                s.push("/");
                s.push(rel.as_os_str());
                s
            } else {
                host.into_os_string()
            };
            return cstring(inside.as_bytes(), p);
        }
        if !host.exists() {
            return Err(not_found());
        }
        if full && !self.visible(&host, spec) {
            return Err(SandboxError::BadPath {
                path: host,
                reason: "not inside the box, a toolchain dir or a mount of the spec".into(),
            });
        }
        cstring(host.as_os_str().as_bytes(), p)
    }

    fn visible(&self, host: &Path, spec: &SandboxSpec) -> bool {
        self.config
            .toolchain_dirs
            .iter()
            .chain(spec.read_only_mounts.iter())
            .chain(spec.writable_mounts.iter())
            .any(|d| host.starts_with(d))
    }
}

fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What the supervisor needs to watch and kill a box.
#[derive(Clone, Copy)]
struct WatchParts<'a> {
    ids: Option<(u32, u32)>,
    full: bool,
    cg: Option<&'a RunCgroup>,
    wall_ms: u64,
    cpu_limit_ms: Option<u64>,
}

/// What the run needs besides the spec.
struct RunParts<'a> {
    slot: usize,
    watch: WatchParts<'a>,
    box_fd: &'a OwnedFd,
    stdio: [RawFd; 3],
    program: CString,
    argv: &'a [CString],
    envp: &'a [CString],
    rlimits: Vec<(libc::__rlimit_resource_t, libc::rlimit)>,
}

/// What the supervisor saw.
struct RawRun {
    status: Option<i32>,
    killed_for: Option<LimitHit>,
    wall: Duration,
    /// user+sys of everything reaped (wait4), in ms.
    rusage_cpu_ms: u64,
    /// The largest ru_maxrss reaped, in KiB.
    rusage_maxrss_kb: u64,
    /// A killed box's mount namespace, held so that its unmounting happens when this is
    /// dropped (in the background) rather than in its init's exit, which the supervisor waits
    /// for.
    mount_ns: Option<File>,
}

impl Sandbox {
    fn retire(&self, cg: RunCgroup) {
        match &self.cgroups {
            Some(pool) => pool.retire(None, Some(cg)),
            None => {
                cg.kill_all();
                if let Err(e) = cg.remove() {
                    tracing::warn!(error = %e, "cannot remove a run cgroup");
                }
            }
        }
    }

    /// The mounts a zygote makes for this run: the box at `/box` and the spec's mounts at
    /// their own paths (its `/tmp` is fresh already).
    fn run_mounts(&self, spec: &SandboxSpec, box_fd: RawFd) -> Result<Vec<RunMount>, SandboxError> {
        let sk = Path::new(OsStr::from_bytes(self.skeleton.as_bytes()));
        let c = |p: &Path| cstring(p.as_os_str().as_bytes(), p);
        let tree = |fd: RawFd, attrs: u64, path: &Path| {
            zygote::detached_tree(fd, attrs).map_err(|e| io_err("clone the mount", path, e))
        };
        let rw = sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV;
        let ro = rw | sys::MOUNT_ATTR_RDONLY;
        let mut mounts = vec![RunMount::Attach {
            tree: tree(box_fd, rw, &spec.box_dir)?,
            target: CString::from(c"/box"),
        }];
        for (dirs, attrs) in [(&spec.read_only_mounts, ro), (&spec.writable_mounts, rw)] {
            for d in dirs {
                let dir = File::open(d)
                    .ok()
                    .filter(|f| f.metadata().is_ok_and(|m| m.is_dir()))
                    .ok_or_else(|| SandboxError::BadPath {
                        path: d.clone(),
                        reason: "a mount must be an existing directory".into(),
                    })?;
                if attrs == ro && self.config.toolchain_dirs.iter().any(|t| d.starts_with(t)) {
                    continue; // already visible read-only
                }
                let target = if let Ok(under) = d.strip_prefix("/tmp") {
                    // Inside the box's own /tmp (a tmpfs): make the mount point there.
                    boxfs::check_relative(under)?;
                    let mut p = PathBuf::from("/tmp");
                    for comp in under.components() {
                        p.push(comp);
                        mounts.push(RunMount::Mkdir { path: c(&p)? });
                    }
                    p
                } else {
                    skeleton_mountpoint(sk, d)?;
                    d.clone()
                };
                mounts.push(RunMount::Attach {
                    tree: tree(dir.as_raw_fd(), attrs, d)?,
                    target: c(&target)?,
                });
            }
        }
        if mounts.len() > zygote::MAX_MOUNTS {
            return Err(SandboxError::BadPath {
                path: spec.box_dir.clone(),
                reason: format!("more than {} mounts in one run", zygote::MAX_MOUNTS),
            });
        }
        Ok(mounts)
    }

    fn run_in(&self, spec: &SandboxSpec, parts: RunParts<'_>) -> Result<RawRun, SandboxError> {
        if parts.watch.full {
            self.run_zygote(spec, parts)
        } else {
            self.run_init(spec, parts)
        }
    }

    /// Full isolation: the slot's zygote runs the program.
    fn run_zygote(&self, spec: &SandboxSpec, parts: RunParts<'_>) -> Result<RawRun, SandboxError> {
        let w = parts.watch;
        let mounts = self.run_mounts(spec, parts.box_fd.as_raw_fd())?;
        let cgroup_procs = w.cg.map(RunCgroup::procs_fds).unwrap_or_default();
        let order = Order {
            program: &parts.program,
            argv: parts.argv,
            envp: parts.envp,
            ids: w.ids,
            rlimits: &parts.rlimits,
            stdio: parts.stdio,
            cgroup_procs: &cgroup_procs,
            mounts: &mounts,
        };
        let mut slot = self.slot_state[parts.slot]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let SlotState {
            netns,
            arena,
            zygote,
        } = &mut *slot;
        let arena = match arena {
            Some(arena) => arena,
            empty => empty.insert(Arena::new().map_err(|source| SandboxError::Setup {
                stage: "map the zygote's arena".into(),
                source,
            })?),
        };
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
        // A zygote may have died since the slot's last run (killed from outside): one retry
        // with a new one.
        let mut start = Instant::now();
        for attempt in 0..2 {
            if zygote.is_none() {
                *zygote = Some(self.start_zygote(netns, arena)?);
            }
            let Some(z) = zygote.as_ref() else { break };
            start = Instant::now();
            match z.send(&fds) {
                Ok(()) => break,
                Err(source) if attempt == 1 => {
                    return Err(SandboxError::Setup {
                        stage: "send the order to the zygote".into(),
                        source,
                    });
                }
                Err(_) => self.retire_zygote(zygote.take()),
            }
        }
        drop(fds);
        let z = zygote.as_ref().ok_or_else(|| SandboxError::Setup {
            stage: "start the zygote".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        })?;
        let (killed_for, killed_at) = self.watch(z.pid(), z.sock(), &w, start);
        let reply = match killed_for {
            Some(_) => None,
            None => Some(z.recv()),
        };
        let wall = killed_at.unwrap_or_else(Instant::now).duration_since(start);
        let mut mount_ns = None;
        let reply = match reply {
            Some(Ok(r)) => Some(r),
            Some(Err(source)) => {
                self.retire_zygote(zygote.take());
                return Err(SandboxError::Setup {
                    stage: "wait for the zygote".into(),
                    source,
                });
            }
            None => {
                // Killed: the zygote died with its box (wait for it: the box is dead then).
                mount_ns = zygote.take().and_then(Zygote::kill);
                None
            }
        };
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
                    stage: zygote::describe_stage(r.stage, &self.root_ops, &mounts),
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
            mount_ns,
        })
    }

    /// Starts a slot's zygote (taking the slot's network namespace on its first use).
    fn start_zygote(
        &self,
        netns: &mut Option<OwnedFd>,
        arena: &Arena,
    ) -> Result<Zygote, SandboxError> {
        if netns.is_none() {
            *netns = self.netns.as_ref().and_then(crate::netns::NetnsPool::take);
        }
        Zygote::start(&zygote::Boot {
            root: RootPlan {
                skeleton: self.skeleton.clone(),
                ops: &self.root_ops,
                hostname: c"box".to_owned(),
            },
            netns: netns.as_ref().map(AsRawFd::as_raw_fd),
            arena,
            tmp_options: &self.tmp_options,
            stack_top: self.stack.as_ref().map_or(0, child::ChildStack::top),
            filter: &self.filter,
        })
    }

    /// Ends a zygote (killing whatever it runs) and unmounts its namespace in the background.
    fn retire_zygote(&self, z: Option<Zygote>) {
        let ns = z.and_then(Zygote::kill);
        match &self.cgroups {
            Some(pool) => pool.retire(ns, None),
            None => drop(ns),
        }
    }

    /// rlimit-only: a plain child (a subreaper init) runs the program.
    fn run_init(&self, spec: &SandboxSpec, parts: RunParts<'_>) -> Result<RawRun, SandboxError> {
        let w = parts.watch;
        let cwd = cstring(spec.box_dir.as_os_str().as_bytes(), &spec.box_dir)?;
        let pointers = |list: &[CString]| {
            let mut v: Vec<*const libc::c_char> = list.iter().map(|c| c.as_ptr()).collect();
            v.push(std::ptr::null());
            v
        };
        let (argv, envp) = (pointers(parts.argv), pointers(parts.envp));
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
                stdio: parts.stdio,
                program: parts.program.as_ptr(),
                argv: argv.as_ptr(),
                envp: envp.as_ptr(),
                ids: w.ids,
                rlimits: &parts.rlimits,
                filter: Some(&self.filter),
                status_fd: wr.as_raw_fd(),
            },
            cwd,
            stack_top: self.stack.as_ref().map_or(0, child::ChildStack::top),
        };
        let mut pidfd: RawFd = -1;
        let mut args = sys::CloneArgs {
            flags: sys::CLONE_PIDFD,
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
        let pid = pid as libc::pid_t;
        // SAFETY: clone3 stored a fresh pidfd owned by nobody else.
        let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
        let (killed_for, killed_at) = self.watch(pid, pidfd.as_raw_fd(), &w, start);
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
        let wall = killed_at.unwrap_or_else(Instant::now).duration_since(start);
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
        for rec in buf.chunks_exact(child::MSG_LEN) {
            let kind = u32::from_ne_bytes([rec[0], rec[1], rec[2], rec[3]]);
            let stage = u32::from_ne_bytes([rec[4], rec[5], rec[6], rec[7]]);
            let value = i32::from_ne_bytes([rec[8], rec[9], rec[10], rec[11]]);
            match kind {
                child::MSG_EXITED => main_status = Some(value),
                child::MSG_EXEC_FAILED if stage == child::ST_EXEC => {
                    return Err(SandboxError::Exec {
                        program: spec.program.clone(),
                        source: std::io::Error::from_raw_os_error(value),
                    });
                }
                _ => {
                    return Err(SandboxError::Setup {
                        stage: zygote::describe_stage(stage, &[], &[]),
                        source: std::io::Error::from_raw_os_error(value),
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
            mount_ns: None,
        })
    }

    /// Watches the box until `done` (its init's pidfd or its zygote's socket) is readable;
    /// kills it (`pid`, its init or zygote) on a CPU or wall limit.
    fn watch(
        &self,
        pid: libc::pid_t,
        done: RawFd,
        parts: &WatchParts<'_>,
        start: Instant,
    ) -> (Option<LimitHit>, Option<Instant>) {
        let wall_limit = Duration::from_millis(parts.wall_ms);
        let cpu_limit_ns = parts.cpu_limit_ms.map(|ms| ms * 1_000_000);
        let ncpu = self.ncpu.max(1);
        loop {
            let elapsed = start.elapsed();
            let mut timeout = wall_limit.saturating_sub(elapsed);
            if let (Some(limit), Some(cg)) = (cpu_limit_ns, parts.cg) {
                let used = cg.cpu_ns();
                if used >= limit {
                    let at = Instant::now();
                    self.kill_box(pid, parts);
                    return (Some(LimitHit::CpuTime), Some(at));
                }
                // The box cannot burn more than ncpu CPU-seconds per second.
                let safe = Duration::from_nanos((limit - used) / ncpu);
                timeout =
                    timeout.min(safe.clamp(Duration::from_millis(1), Duration::from_millis(100)));
            }
            if elapsed >= wall_limit {
                let at = Instant::now();
                self.kill_box(pid, parts);
                return (Some(LimitHit::WallTime), Some(at));
            }
            let mut pfd = libc::pollfd {
                fd: done,
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = timeout.as_micros().div_ceil(1000).clamp(1, 100) as i32;
            // SAFETY: polling one valid pollfd.
            let r = unsafe { libc::poll(&mut pfd, 1, ms) };
            if r > 0 {
                return (None, None);
            }
        }
    }

    fn kill_box(&self, pid: libc::pid_t, parts: &WatchParts<'_>) {
        if let (false, Some((uid, gid))) = (parts.full, parts.ids) {
            kill_uid(uid, gid);
        }
        // SAFETY: kill has no memory-safety preconditions; pid is our unreaped child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        if let Some(cg) = parts.cg {
            cg.kill_all();
        }
    }
}

/// Kills every process of `uid` (rlimit-only boxes) from a short-lived child.
fn kill_uid(uid: u32, gid: u32) {
    // SAFETY: the child only calls setresgid/setresuid/kill/_exit.
    let pid = unsafe { sys::raw_fork() };
    if pid == 0 {
        // SAFETY: plain system calls in a fork child that exits.
        unsafe {
            if sys::set_ids(uid, gid, false) == 0 {
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
