//! What the host offers, probed once: cgroups, namespaces, and from them the executor; and the
//! skeleton of every box's private root.

use crate::cgroup::{self, CgroupPool, Hierarchy, Kept};
use crate::child::{MountOp, RootPlan};
use crate::error::cstring;
use crate::instance::{Instance, Owned};
use crate::netns::NetnsPool;
use crate::rootless::Privilege;
use crate::seccomp::Filters;
use crate::zygote::{Arena, Boot, Net, Zygote};
use crate::{IsolationLevel, SandboxConfig, SandboxError, sys};
use std::ffi::{CString, OsStr};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub(super) const NS_FLAGS: u64 = (libc::CLONE_NEWPID
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS) as u64;

/// How runs are executed, decided once from what the host offers.
#[derive(Debug)]
pub(super) enum Executor {
    /// Full isolation: each slot's zygote (namespaces, private root) starts the program in the
    /// run's cgroups (see [`crate::cgroup::RunCgroup`]).
    Zygote(Box<Zygotes>),
    /// Namespaces without a cgroup (rootless, no delegated cgroup-v2 subtree): a subreaper
    /// init per run, cloned into fresh namespaces, enters the private root as a zygote does;
    /// accounting and limits as [`Executor::RlimitOnly`].
    Namespaced(Box<Namespaced>),
    /// Neither namespaces nor a cgroup (or not root): a subreaper init per run, rlimits,
    /// `RLIMIT_NPROC` per box uid and `wait4` rusage.
    RlimitOnly,
}

impl Executor {
    /// Whether a run sees the private root (the box at [`super::BOX_PATH`]), not the host's.
    pub(super) fn boxed(&self) -> bool {
        !matches!(self, Executor::RlimitOnly)
    }
}

/// What the namespaces-without-a-cgroup executor keeps for the sandbox's lifetime.
#[derive(Debug)]
pub(super) struct Namespaced {
    /// Every box's private root.
    pub skeleton: Skeleton,
    /// The options of every box's `/tmp` tmpfs.
    pub tmp_options: CString,
    /// Network namespaces made ahead of time: making one is most of a run's cost here.
    pub netns: Option<NetnsPool>,
    /// Each slot's network namespace, taken from the pool on its first run and kept, as a
    /// zygote's slot keeps its own (the slot's runs never overlap).
    pub slot_netns: Vec<Mutex<Option<OwnedFd>>>,
    /// The `uid_map` and `gid_map` lines of a box's own user namespace (this process's ids).
    pub id_maps: [CString; 2],
}

/// The `uid_map` and `gid_map` lines that map this process's own ids into a box's user
/// namespace unchanged.
pub(super) fn own_id_maps() -> [CString; 2] {
    // SAFETY: geteuid and getegid have no preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    // (Digits and spaces: never a NUL.)
    [uid, gid].map(|id| CString::new(format!("{id} {id} 1\n")).unwrap_or_default())
}

/// The options of every box's `/tmp` tmpfs.
fn tmp_options(config: &SandboxConfig) -> Result<CString, SandboxError> {
    CString::new(format!("size={},nr_inodes=4096,mode=1777", config.tmp_size))
        .map_err(|_| SandboxError::Nul("tmp".into()))
}

/// What full isolation keeps for the sandbox's lifetime.
#[derive(Debug)]
pub(super) struct Zygotes {
    /// What each slot keeps between its runs (locked while a run holds the slot). Dropped
    /// first: the zygotes die before the cgroup pool removes what is left.
    pub slots: Vec<Mutex<SlotState>>,
    /// Network namespaces made ahead of time (one per slot, on its first run).
    pub netns: Option<NetnsPool>,
    /// Every box's private root.
    pub skeleton: Skeleton,
    /// The options of every box's `/tmp` tmpfs.
    pub tmp_options: CString,
    /// The hierarchy, for a run that finds no cgroup ready.
    pub hierarchy: Hierarchy,
    /// The instance name run cgroups carry.
    pub instance: String,
    /// Makes run cgroups ahead of time and removes used ones.
    pub cgroups: CgroupPool,
    /// One-shot: zygotes serve one order and are let go (see [`SandboxConfig::one_shot`]).
    pub one_shot: bool,
    /// One-shot: each order brings its uid slot's pinned network namespace (root: boxes have
    /// uids of their own); else each zygote makes a fresh one (in a user namespace the
    /// pinning thread could not go back to the host's).
    pub pinned_netns: bool,
    /// In a user namespace of its own (see [`crate::rootless`]).
    pub rootless: bool,
    /// One-shot: the zygote started with the sandbox for its first run, with its arena.
    pub first: Mutex<Option<(Arena, Zygote)>>,
    /// One-shot: zygotes let go and not reaped yet.
    pub let_go: Mutex<Vec<libc::pid_t>>,
}

impl Zygotes {
    /// What a zygote of these is made with (`arena`: its slot's).
    pub(super) fn boot<'a>(
        &'a self,
        netns: Option<&OwnedFd>,
        arena: &'a Arena,
        stack_top: usize,
        filters: &'a Filters,
    ) -> Boot<'a> {
        Boot {
            root: self.skeleton.root_plan(self.rootless),
            net: match (self.one_shot, netns) {
                (true, _) if self.pinned_netns => Net::PerOrder,
                (true, _) => Net::Fresh,
                (false, Some(fd)) => Net::Enter(fd.as_raw_fd()),
                (false, None) => Net::Fresh,
            },
            arena,
            tmp_options: &self.tmp_options,
            stack_top,
            // A one-shot zygote serves one program: loading the policy once gains nothing.
            filter: match self.one_shot {
                true => &filters.whole,
                false => &filters.run,
            },
            zygote_filter: (!self.one_shot).then_some(&filters.zygote[..]),
            template: None,
            one_shot: self.one_shot,
        }
    }
}

impl Drop for Zygotes {
    /// One-shot: the slots' kept cgroups (empty) are left for the next one-shot process of the
    /// instance, which takes them over with its name (see [`crate::instance`]).
    fn drop(&mut self) {
        if !self.one_shot {
            return;
        }
        for slot in &self.slots {
            let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(kept) = slot.cgroups.take() {
                kept.leave();
            }
        }
    }
}

/// What a slot keeps between its runs.
#[derive(Debug, Default)]
pub(super) struct SlotState {
    /// Its network namespace, taken from the pool on the slot's first run.
    pub netns: Option<OwnedFd>,
    /// The memory its orders go through.
    pub arena: Option<Arena>,
    /// Its zygote, made on first use and again after a box was killed.
    pub zygote: Option<Zygote>,
    /// Its warm interpreter and the key of its template (see [`crate::warm`]), made on the
    /// first warm run and again for another template.
    pub warm: Option<(u64, Zygote)>,
    /// Its kept cgroups (v1 `pids` and `cpuacct`), made on its first run and again after a
    /// run that did not end cleanly (dropped after the zygote: empty by then).
    pub cgroups: Option<Kept>,
}

/// The host, as probed.
pub(super) struct Probed {
    pub level: IsolationLevel,
    pub executor: Executor,
    /// Whether boxes get a uid of their own (root, or a user namespace with subordinate ids
    /// mapped for them).
    pub box_uids: bool,
    /// Whether slots lock their uid across processes (root or a user namespace).
    pub lock_slots: bool,
    /// What this host lacks for full isolation (empty when nothing).
    pub lacks: Vec<String>,
    /// This sandbox's claim on host state.
    pub instance: Instance,
}

/// Probes cgroups (v2, then v1) and namespaces once, prepares the skeleton root, and logs what
/// it found; refuses to fall back to rlimits only when the config requires isolation. A
/// one-shot sandbox probes namespaces by starting its first zygote (with `stack_top` and
/// `filters`, as every zygote).
pub(super) fn probe(
    config: &SandboxConfig,
    stack_top: usize,
    filters: &Filters,
) -> Result<Probed, SandboxError> {
    let privilege = crate::rootless::privilege();
    let root = privilege == Privilege::Root;
    // A user namespace of its own: what root does, less device nodes and the host's network
    // namespace, and a uid per box only where subordinate ids are mapped (docs/sandbox.md).
    let rootless = matches!(privilege, Privilege::UserNamespace { .. });
    let box_uids = privilege.box_uids(config.uid_base, config.max_boxes.max(1));
    // What dead instances left is removed first (never what a live one holds, in whatever pid
    // namespace).
    let instance = Instance::claim(&config.state_dir, root, config.one_shot)?;
    crate::timings::mark("instance lock");
    let mut reasons = Vec::new();
    let mut hierarchy = None;
    let mut namespaces = false;
    if privilege.namespaces() {
        match cgroup::detect(&config.cgroup_mount, &config.cgroup_name) {
            Ok(Hierarchy::V1(_)) if rootless => reasons.push(
                "without root the sandbox needs a delegated cgroup-v2 subtree; this host mounts cgroup v1 (judge doctor)".into(),
            ),
            Ok(h) => hierarchy = Some(h),
            Err(e) => reasons.push(e),
        }
        // One-shot with a cgroup: the first zygote's clone3 below is the probe.
        match config.one_shot && hierarchy.is_some() {
            true => namespaces = true,
            false => match probe_namespaces() {
                Ok(()) => namespaces = true,
                Err(e) => reasons.push(e),
            },
        }
        crate::timings::mark("probe");
    } else {
        reasons.push(
            "not running as root, nor in a user namespace of its own (judge doctor)".to_string(),
        );
    }
    // This instance's own run cgroups are announced before any is made.
    if let Some(h) = &hierarchy {
        let parents = h.parents();
        let places: Vec<_> = parents
            .iter()
            .map(|p| (Owned::Cgroup, p.as_path()))
            .collect();
        instance.register(&places)?;
    }
    crate::timings::mark("instance sweep");
    let zygotes = match hierarchy {
        Some(hierarchy) if namespaces => {
            let boxes = config.max_boxes.max(1) as usize;
            let z = Zygotes {
                skeleton: Skeleton::build(config, rootless)?,
                tmp_options: tmp_options(config)?,
                cgroups: match config.one_shot {
                    true => CgroupPool::inline(),
                    false => CgroupPool::start(hierarchy.clone(), instance.name().to_string()),
                },
                hierarchy,
                instance: instance.name().to_string(),
                netns: match config.one_shot {
                    true => None,
                    false => NetnsPool::start(),
                },
                slots: (0..boxes).map(|_| Mutex::default()).collect(),
                one_shot: config.one_shot,
                pinned_netns: box_uids && !rootless,
                rootless,
                first: Mutex::default(),
                let_go: Mutex::default(),
            };
            match z.one_shot {
                true => match start_first(&z, stack_top, filters) {
                    Ok(()) => Some(z),
                    Err(e) => {
                        reasons.push(format!("the first zygote: {e}"));
                        None
                    }
                },
                false => Some(z),
            }
        }
        _ => None,
    };
    // Rootless without a cgroup: the namespaces still (never under `require_isolation`, which
    // asks for the cgroup's accounting and limits too).
    let namespaced = match (
        &zygotes,
        rootless && namespaces && !config.require_isolation,
    ) {
        (None, true) => Some(Namespaced {
            skeleton: Skeleton::build(config, rootless)?,
            tmp_options: tmp_options(config)?,
            netns: match config.one_shot {
                true => None,
                false => NetnsPool::start(),
            },
            slot_netns: (0..config.max_boxes.max(1))
                .map(|_| Mutex::default())
                .collect(),
            id_maps: own_id_maps(),
        }),
        _ => None,
    };
    let level = match zygotes.as_ref().map(|z| &z.hierarchy) {
        Some(Hierarchy::V2(_)) if rootless && box_uids => IsolationLevel::RootlessCgroupV2,
        Some(Hierarchy::V2(_)) if rootless => IsolationLevel::RootlessCgroupV2OneUid,
        Some(Hierarchy::V1(_)) => IsolationLevel::FullCgroupV1,
        Some(Hierarchy::V2(_)) => IsolationLevel::FullCgroupV2,
        None if namespaced.is_some() => IsolationLevel::RootlessNamespaces,
        None => IsolationLevel::RlimitOnly,
    };
    let one_uid = level == IsolationLevel::RootlessNamespaces && !box_uids;
    if level == IsolationLevel::RootlessCgroupV2OneUid || one_uid {
        reasons.push(format!(
            "every box runs as the one uid mapped (no subordinate ids mapped for boxes from uid {} \
             on): {}",
            config.uid_base,
            crate::rootless::box_ids_advice()
        ));
    }
    let executor = match (zygotes, namespaced) {
        (Some(z), _) => {
            tracing::info!(?level, hierarchy = ?z.hierarchy, "sandbox isolation");
            Executor::Zygote(Box::new(z))
        }
        (None, Some(n)) => {
            tracing::warn!(reasons = %reasons.join("; "), "sandbox isolates by namespaces without a cgroup: limits and accounting by rlimits only");
            Executor::Namespaced(Box::new(n))
        }
        (None, None) => {
            if config.require_isolation {
                return Err(SandboxError::IsolationUnavailable(reasons.join("; ")));
            }
            tracing::warn!(reasons = %reasons.join("; "), "sandbox falls back to rlimits only");
            Executor::RlimitOnly
        }
    };
    crate::timings::mark("skeleton and pools");
    Ok(Probed {
        level,
        executor,
        box_uids,
        lock_slots: privilege.namespaces(),
        lacks: reasons,
        instance,
    })
}

/// Starts a one-shot sandbox's first zygote (the namespace probe): it builds the box's root
/// while the caller prepares the run.
fn start_first(z: &Zygotes, stack_top: usize, filters: &Filters) -> Result<(), SandboxError> {
    let arena = Arena::new().map_err(|source| SandboxError::Setup {
        stage: "map the zygote's arena".into(),
        source,
    })?;
    let zygote = Zygote::spawn(&z.boot(None, &arena, stack_top, filters))?;
    *z.first.lock().unwrap_or_else(|e| e.into_inner()) = Some((arena, zygote));
    Ok(())
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

/// The skeleton of every box's private root: a directory under the state dir with a mount
/// point per toolchain dir, and the mounts a zygote makes on it once.
#[derive(Debug)]
pub(super) struct Skeleton {
    /// The skeleton directory.
    pub path: CString,
    /// The mounts of every box's private root.
    pub ops: Vec<MountOp>,
}

impl Skeleton {
    /// The private root a box enters on this skeleton (`rootless`: in a user namespace).
    pub(super) fn root_plan(&self, rootless: bool) -> RootPlan<'_> {
        RootPlan {
            skeleton: self.path.clone(),
            ops: &self.ops,
            hostname: c"box".to_owned(),
            keep_flags: rootless,
        }
    }

    /// Makes the skeleton directory (with `/dev`) and plans the toolchain binds and `/proc`;
    /// when the skeleton's mark says an earlier build checked it all and nothing changed
    /// since, takes the plan from the mark (see `skeleton.rs`).
    /// `rootless`: in a user namespace, which may not make device nodes: the box's devices are
    /// the host's, bound onto empty files.
    fn build(config: &SandboxConfig, rootless: bool) -> Result<Skeleton, SandboxError> {
        let skeleton_path = config.state_dir.join("root");
        let dirs = &config.toolchain_dirs;
        let clock = super::skeleton::clock();
        let before = super::skeleton::identity(&skeleton_path, dirs);
        if let Some(binds) = before
            .as_ref()
            .and_then(|id| super::skeleton::check(&skeleton_path, id))
        {
            return Skeleton::planned(&skeleton_path, &binds, rootless);
        }
        mkdir_p(&skeleton_path)?;
        for d in ["box", "proc", "dev", "tmp"] {
            mkdir_p(&skeleton_path.join(d))?;
        }
        owned_dir(&skeleton_path)?;
        owned_dir(&skeleton_path.join("dev"))?;
        make_dev(&skeleton_path.join("dev"), rootless)?;
        let mut binds = Vec::new();
        for dir in dirs {
            let Ok(meta) = dir.symlink_metadata() else {
                continue;
            };
            if meta.file_type().is_symlink() {
                let target =
                    std::fs::read_link(dir).map_err(|e| SandboxError::io("read link", dir, e))?;
                let rel = dir.strip_prefix("/").unwrap_or(dir);
                let at = skeleton_path.join(rel);
                if at.symlink_metadata().is_err() {
                    if let Some(p) = at.parent() {
                        mkdir_p(p)?;
                    }
                    std::os::unix::fs::symlink(&target, &at)
                        .map_err(|e| SandboxError::io("make symlink", &at, e))?;
                }
                continue;
            }
            skeleton_mountpoint(&skeleton_path, dir)?;
            binds.push(dir.clone());
        }
        if let (Some(before), Some(after)) =
            (before, super::skeleton::identity(&skeleton_path, dirs))
        {
            super::skeleton::record(&skeleton_path, clock, &before, &after, &binds);
        }
        Skeleton::planned(&skeleton_path, &binds, rootless)
    }

    /// The skeleton at `skeleton_path` with its mounts: `binds` (host dirs, read-only at the
    /// same path), `/proc`, and (`rootless`) the host's device nodes on the skeleton's files.
    fn planned(
        skeleton_path: &Path,
        binds: &[PathBuf],
        rootless: bool,
    ) -> Result<Skeleton, SandboxError> {
        let mut ops = Vec::new();
        for name in DEVICES.iter().map(|d| d.0).filter(|_| rootless) {
            let (src, dst) = (
                Path::new("/dev").join(name),
                skeleton_path.join("dev").join(name),
            );
            ops.push(MountOp::Bind {
                src: cstring(src.as_os_str().as_bytes(), &src)?,
                dst: cstring(dst.as_os_str().as_bytes(), &dst)?,
                attrs: sys::MOUNT_ATTR_RDONLY | sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NOEXEC,
            });
        }
        for dir in binds {
            let rel = dir.strip_prefix("/").unwrap_or(dir);
            let at = skeleton_path.join(rel);
            ops.push(MountOp::Bind {
                src: cstring(dir.as_os_str().as_bytes(), dir)?,
                dst: cstring(at.as_os_str().as_bytes(), &at)?,
                attrs: sys::MOUNT_ATTR_RDONLY | sys::MOUNT_ATTR_NOSUID | sys::MOUNT_ATTR_NODEV,
            });
        }
        let proc = skeleton_path.join("proc");
        ops.push(MountOp::Proc {
            dst: cstring(proc.as_os_str().as_bytes(), &proc)?,
        });
        Ok(Skeleton {
            path: cstring(skeleton_path.as_os_str().as_bytes(), skeleton_path)?,
            ops,
        })
    }

    /// The skeleton directory as a path.
    pub(super) fn dir(&self) -> &Path {
        Path::new(OsStr::from_bytes(self.path.as_bytes()))
    }
}

/// The box's device nodes: name and minor number (major 1, mode 0666).
const DEVICES: &[(&str, u32)] = &[
    ("null", 3),
    ("zero", 5),
    ("full", 7),
    ("random", 8),
    ("urandom", 9),
];

/// The box's `/dev`, made once in the skeleton (root-owned 0755, read-only in the box): the
/// `null`, `zero`, `full`, `random` and `urandom` nodes and the `fd`, `stdin`, `stdout`,
/// `stderr` links. The skeleton's mount is the only one of the box without `nodev`; the box
/// can create nothing on it (read-only, and its uid has no `CAP_MKNOD`), so these nodes are
/// the only devices it can open.
///
/// `rootless`: empty files instead, on which each zygote binds the host's nodes (a user
/// namespace may not make device nodes).
fn make_dev(dev: &Path, rootless: bool) -> Result<(), SandboxError> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    // Made by an earlier sandbox: checked, not changed (each start pays an `lstat` a node).
    for &(name, minor) in DEVICES {
        let p = dev.join(name);
        if rootless {
            if !p.symlink_metadata().is_ok_and(|m| m.file_type().is_file()) {
                let _ = std::fs::remove_file(&p);
                std::fs::File::create(&p).map_err(|e| SandboxError::io("create", &p, e))?;
            }
            continue;
        }
        let want = libc::makedev(1, minor);
        let node = |p: &Path| {
            p.symlink_metadata()
                .ok()
                .filter(|m| m.file_type().is_char_device() && m.rdev() == want)
        };
        let is_node = |p: &Path| node(p).is_some();
        match node(&p) {
            Some(m) if m.mode() & 0o7777 == 0o666 => continue,
            Some(_) => {}
            None => {
                let _ = std::fs::remove_file(&p);
                let c = cstring(p.as_os_str().as_bytes(), &p)?;
                // SAFETY: mknod with a NUL-terminated path.
                if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, want) } < 0 {
                    // Another process sharing the state dir may have just made it.
                    let e = std::io::Error::last_os_error();
                    if e.raw_os_error() != Some(libc::EEXIST) || !is_node(&p) {
                        return Err(SandboxError::io("mknod", &p, e));
                    }
                }
            }
        }
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o666))
            .map_err(|e| SandboxError::io("chmod", &p, e))?;
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
                return Err(SandboxError::io("make symlink", &p, e));
            }
        }
    }
    // The dir's own owner and mode: `owned_dir`.
    Ok(())
}

/// Checks that `dir` is a directory (not a link to one) of this uid that nobody else may
/// write to, making it so (`chown`, `chmod 0755`) when it is not: the skeleton's top and its
/// `/dev` hold what every box sees as `/` and its devices.
fn owned_dir(dir: &Path) -> Result<(), SandboxError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let m = dir
        .symlink_metadata()
        .map_err(|e| SandboxError::io("stat", dir, e))?;
    if !m.file_type().is_dir() {
        return Err(SandboxError::BadPath {
            path: dir.to_owned(),
            reason: "the skeleton's dirs must be directories, not links".into(),
        });
    }
    // SAFETY: geteuid and getegid have no preconditions.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if m.uid() != uid || m.gid() != gid {
        std::os::unix::fs::lchown(dir, Some(uid), Some(gid))
            .map_err(|e| SandboxError::io("chown", dir, e))?;
    }
    if m.mode() & 0o7777 != 0o755 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| SandboxError::io("chmod", dir, e))?;
    }
    Ok(())
}

fn mkdir_p(path: &Path) -> Result<(), SandboxError> {
    std::fs::create_dir_all(path).map_err(|e| SandboxError::io("create dir", path, e))
}

/// Makes `dir` (an absolute host path) exist in the skeleton root.
pub(super) fn skeleton_mountpoint(skeleton: &Path, dir: &Path) -> Result<PathBuf, SandboxError> {
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
