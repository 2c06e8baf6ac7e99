//! A zygote per box slot: a helper made once, inside the box's namespaces and private root,
//! that starts each run's program from there.
//!
//! Making a box from scratch costs more than the program it runs: copying the supervisor's
//! address space, new pid/mount/ipc/uts namespaces, a dozen mounts, `pivot_root`, detaching
//! the host's tree, and tearing it all down again at the end. A slot's runs never overlap, so
//! its zygote does that once and then serves one run at a time:
//!
//! 1. The parent writes the run's order (program, argv, envp, rlimits, ids, mounts) into an
//!    [`Arena`], memory shared with the zygote at the same address in both, and sends one
//!    message carrying the descriptors: stdio, the run cgroup's `cgroup.procs`, and one
//!    detached mount tree per directory to attach (`open_tree(OPEN_TREE_CLONE)` of the box dir
//!    and the spec's mounts, made in the host's namespace, attributes already set).
//! 2. The zygote attaches the trees (`move_mount`: `/box` and the spec's mounts) and starts the
//!    program posix_spawn-style ([`child::spawn_program`]), which takes its cgroup, limits and
//!    identity.
//! 3. When the program ends, the zygote (pid 1 of the pid namespace) kills every process left
//!    (`kill(-1, SIGKILL)`: setsid daemons included), reaps them all and answers with a
//!    [`Reply`]: the wait status and the rusage of what it reaped.
//! 4. Then, off the supervisor's path, it readies the next run: unmounts the run's mounts,
//!    unshares a fresh IPC namespace (SysV objects outlive their processes) and mounts a fresh
//!    tmpfs on `/tmp`. Every run starts with both fresh, as in a new box.
//!
//! On a time limit the supervisor kills the zygote itself (pid 1: the kernel kills the whole
//! namespace at once) and the slot makes a new one for its next run. If the supervisor dies,
//! the zygote's socket reads end-of-file and it kills everything and exits.
//!
//! The zygote is a fork of a multithreaded process: like the other children it allocates
//! nothing and only makes system calls on data prepared before the fork or in the arena.

use crate::SandboxError;
use crate::child::{self, Exec, MountOp, RootPlan, StatusRecord};
use crate::seccomp::Insn;
use crate::sys;
use std::ffi::{CStr, CString};
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Most mounts one run may ask for (the box, the spec's mounts and their mount points under
/// `/tmp`).
pub(crate) const MAX_MOUNTS: usize = 64;
/// Most rlimits one run sets.
const MAX_RLIMITS: usize = 12;
/// Size of each slot's arena: the order, argv and envp must fit (execve's own limit is lower
/// under the default 8 MiB stack).
const ARENA_LEN: usize = 16 << 20;
/// The zygote's first reply: its root is ready.
const MSG_READY: u32 = 4;
/// The zygote's socket, once it has moved it.
const SOCK_FD: RawFd = 3;
/// `/proc/sys/kernel/ns_last_pid` of the zygote's pid namespace, once it has opened it.
const LAST_PID_FD: RawFd = 4;

/// One mount of a run, made by the zygote in order and undone when the run ends.
#[derive(Debug)]
pub(crate) enum RunMount {
    /// Attach a detached tree (attributes already set) at `target`.
    Attach { tree: OwnedFd, target: CString },
    /// Make the directory `path` (mode 0755) if missing: a mount point inside `/tmp`.
    Mkdir { path: CString },
}

impl RunMount {
    /// A short description for error messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            RunMount::Attach { target, .. } => format!("attach {}", target.to_string_lossy()),
            RunMount::Mkdir { path } => format!("mkdir {}", path.to_string_lossy()),
        }
    }
}

/// Clones the directory `dir` (any descriptor of it) as a detached mount tree with `attrs`
/// (`MOUNT_ATTR_*`) set recursively, ready for [`RunMount::Attach`].
pub(crate) fn detached_tree(dir: RawFd, attrs: u64) -> std::io::Result<OwnedFd> {
    let tree = sys::open_tree_clone(dir)?;
    if attrs != 0 {
        // SAFETY: an empty NUL-terminated path names the tree's descriptor itself.
        if unsafe { sys::mount_setattr_recursive(tree.as_raw_fd(), c"".as_ptr(), attrs) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(tree)
}

/// A run as the parent prepared it (borrowed).
#[derive(Debug)]
pub(crate) struct Order<'a> {
    pub program: &'a CStr,
    pub argv: &'a [CString],
    pub envp: &'a [CString],
    pub ids: Option<(u32, u32)>,
    pub rlimits: &'a [(libc::__rlimit_resource_t, libc::rlimit)],
    pub stdio: [RawFd; 3],
    pub cgroup_procs: &'a [RawFd],
    pub mounts: &'a [RunMount],
    /// The network namespace to run in (for a zygote made with [`Net::PerOrder`]).
    pub netns: Option<RawFd>,
}

const OP_ATTACH: u32 = 1;
const OP_MKDIR: u32 = 2;

/// A mount in the arena: `fd` indexes the descriptors passed with the order.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct WireMount {
    kind: u32,
    fd: u32,
    path: *const libc::c_char,
}

/// The order as it lies at the start of the arena. Every pointer points into the arena.
/// Passed descriptors: `[0, 3)` stdio, then `n_cgroup` `cgroup.procs`, then the trees, then
/// the network namespace (if any: `netns` is its index, else `NO_NETNS`).
#[repr(C)]
#[derive(Debug)]
struct WireOrder {
    program: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    ids: [u32; 2],
    has_ids: u32,
    n_cgroup: u32,
    n_rlimits: u32,
    rlimits: [(libc::__rlimit_resource_t, libc::rlimit); MAX_RLIMITS],
    n_mounts: u32,
    mounts: [WireMount; MAX_MOUNTS],
    netns: u32,
}

/// [`WireOrder::netns`] when the order brings no network namespace.
const NO_NETNS: u32 = u32::MAX;

/// What the zygote answers (plain bytes on the socket).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Reply {
    /// `child::MSG_EXITED`, `MSG_EXEC_FAILED`, `MSG_SETUP_FAILED` or `MSG_READY`.
    pub kind: u32,
    pub stage: u32,
    pub errno: i32,
    /// The program's wait status (`MSG_EXITED`).
    pub status: i32,
    /// user and system time of everything reaped, in microseconds.
    pub utime_us: u64,
    pub stime_us: u64,
    /// The largest ru_maxrss of what was reaped, in KiB.
    pub maxrss_kb: u64,
}

impl Reply {
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: Reply is repr(C) plain old data without padding (4 x u32/i32, 3 x u64).
        unsafe {
            std::slice::from_raw_parts(
                (self as *const Reply).cast::<u8>(),
                std::mem::size_of::<Reply>(),
            )
        }
    }

    fn add_rusage(&mut self, ru: &libc::rusage) {
        let us = |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000 + t.tv_usec.max(0) as u64;
        self.utime_us += us(ru.ru_utime);
        self.stime_us += us(ru.ru_stime);
        self.maxrss_kb = self.maxrss_kb.max(ru.ru_maxrss.max(0) as u64);
    }
}

/// Memory shared with a slot's zygotes, at the same address in the parent and in them.
#[derive(Debug)]
pub(crate) struct Arena {
    base: usize,
    len: usize,
}

/// Appends to an arena.
struct ArenaWriter<'a> {
    arena: &'a Arena,
    used: usize,
}

impl ArenaWriter<'_> {
    fn reserve(&mut self, bytes: usize, align: usize) -> std::io::Result<*mut u8> {
        let at = self.used.next_multiple_of(align);
        let end = at
            .checked_add(bytes)
            .filter(|&e| e <= self.arena.len)
            .ok_or_else(|| std::io::Error::from_raw_os_error(libc::E2BIG))?;
        self.used = end;
        Ok((self.arena.base + at) as *mut u8)
    }

    fn string(&mut self, s: &CStr) -> std::io::Result<*const libc::c_char> {
        let bytes = s.to_bytes_with_nul();
        let p = self.reserve(bytes.len(), 1)?;
        // SAFETY: `reserve` returned room for `bytes.len()` bytes inside the mapping, which
        // no one else uses while the slot is held.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        Ok(p as *const libc::c_char)
    }

    /// Copies the strings and a NULL-terminated array of pointers to them.
    fn strings(&mut self, list: &[CString]) -> std::io::Result<*const *const libc::c_char> {
        let array = self.reserve(
            (list.len() + 1) * std::mem::size_of::<usize>(),
            std::mem::align_of::<usize>(),
        )? as *mut *const libc::c_char;
        for (i, s) in list.iter().enumerate() {
            let p = self.string(s)?;
            // SAFETY: the array has room for list.len() + 1 pointers.
            unsafe { array.add(i).write(p) };
        }
        // SAFETY: as above: the terminating slot.
        unsafe { array.add(list.len()).write(std::ptr::null()) };
        Ok(array as *const *const libc::c_char)
    }
}

impl Arena {
    /// Maps a fresh shared arena (pages are only allocated when written).
    pub(crate) fn new() -> std::io::Result<Arena> {
        // SAFETY: a fresh anonymous shared mapping; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                ARENA_LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Arena {
            base: p as usize,
            len: ARENA_LEN,
        })
    }

    /// Writes `order` for the slot's zygote; `E2BIG` if argv and envp do not fit, `EINVAL`
    /// for more than [`MAX_MOUNTS`] mounts or [`MAX_RLIMITS`] rlimits. The caller holds the
    /// slot, and the zygote reads the arena only while it serves this order.
    pub(crate) fn write(&mut self, order: &Order<'_>) -> std::io::Result<()> {
        if order.mounts.len() > MAX_MOUNTS || order.rlimits.len() > MAX_RLIMITS {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        let mut w = ArenaWriter {
            arena: self,
            used: std::mem::size_of::<WireOrder>(),
        };
        let program = w.string(order.program)?;
        let argv = w.strings(order.argv)?;
        let envp = w.strings(order.envp)?;
        let null = std::ptr::null::<libc::c_char>();
        let mut mounts = [WireMount {
            kind: 0,
            fd: 0,
            path: null,
        }; MAX_MOUNTS];
        let mut next_fd = 3 + order.cgroup_procs.len() as u32;
        for (m, wire) in order.mounts.iter().zip(mounts.iter_mut()) {
            *wire = match m {
                RunMount::Attach { target, .. } => {
                    next_fd += 1;
                    WireMount {
                        kind: OP_ATTACH,
                        fd: next_fd - 1,
                        path: w.string(target)?,
                    }
                }
                RunMount::Mkdir { path } => WireMount {
                    kind: OP_MKDIR,
                    fd: 0,
                    path: w.string(path)?,
                },
            };
        }
        let mut rlimits = [(
            0,
            libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            },
        ); MAX_RLIMITS];
        rlimits[..order.rlimits.len()].copy_from_slice(order.rlimits);
        let wire = WireOrder {
            program,
            argv,
            envp,
            ids: order.ids.map_or([0, 0], |(u, g)| [u, g]),
            has_ids: u32::from(order.ids.is_some()),
            n_cgroup: order.cgroup_procs.len() as u32,
            n_rlimits: order.rlimits.len() as u32,
            rlimits,
            n_mounts: order.mounts.len() as u32,
            mounts,
            netns: order.netns.map_or(NO_NETNS, |_| next_fd),
        };
        // SAFETY: the arena starts with room for a WireOrder (the writer began after it), is
        // page-aligned, and nobody reads it until the order is sent.
        unsafe { (self.base as *mut WireOrder).write(wire) };
        Ok(())
    }

    /// The descriptors to pass with `order`, in the order [`Arena::write`] numbered them.
    pub(crate) fn descriptors(order: &Order<'_>) -> Vec<RawFd> {
        let mut fds = order.stdio.to_vec();
        fds.extend_from_slice(order.cgroup_procs);
        fds.extend(order.mounts.iter().filter_map(|m| match m {
            RunMount::Attach { tree, .. } => Some(tree.as_raw_fd()),
            _ => None,
        }));
        fds.extend(order.netns);
        fds
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new` (zygotes have their own references).
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

/// Which network namespace a zygote's boxes get.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Net {
    /// A fresh one, made with the zygote.
    Fresh,
    /// This one (the slot's), entered when the zygote starts.
    Enter(RawFd),
    /// The one each order brings (a one-shot sandbox's, pinned per uid slot: see
    /// [`crate::netns::pinned`]); the zygote refuses an order without one.
    PerOrder,
}

/// What a zygote is made with (everything read only, prepared before the fork).
#[derive(Debug)]
pub(crate) struct Boot<'a> {
    pub root: RootPlan<'a>,
    pub net: Net,
    pub arena: &'a Arena,
    /// The options of each run's `/tmp` tmpfs.
    pub tmp_options: &'a CStr,
    pub stack_top: usize,
    /// The seccomp filter each program loads before its `execve`.
    pub filter: &'a [Insn],
    /// The one the zygote loads once its root is ready, for itself and every program it starts
    /// (the policy less the calls it makes between runs: [`crate::seccomp::Filters`]).
    pub zygote_filter: Option<&'a [Insn]>,
    /// Serve one order, then exit (a one-shot sandbox): nothing is readied for a next run and
    /// its mount namespace is not held (it is unmounted in the zygote's own exit, which nobody
    /// waits for: see [`Zygote::let_go`]).
    pub one_shot: bool,
}

/// A running zygote; dropping it kills it (and every process of its namespaces) and reaps it.
#[derive(Debug)]
pub(crate) struct Zygote {
    pid: libc::pid_t,
    sock: OwnedFd,
    /// Its mount namespace, held so that unmounting it happens when this is dropped (in the
    /// background), not in the zygote's exit.
    mount_ns: Option<File>,
    /// Whether its root is ready (its first reply was read).
    ready: bool,
    /// Killed without waiting for its exit (see [`Zygote::let_go`]).
    let_go: bool,
}

const NS_FLAGS: u64 =
    (libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS) as u64;

impl Zygote {
    /// Makes a zygote and waits until its root is ready.
    pub(crate) fn start(boot: &Boot<'_>) -> Result<Zygote, SandboxError> {
        let mut zygote = Zygote::spawn(boot)?;
        zygote.wait_ready(boot.root.ops)?;
        Ok(zygote)
    }

    /// Makes a zygote, which builds its root while the caller goes on; [`Zygote::wait_ready`]
    /// before the first order.
    pub(crate) fn spawn(boot: &Boot<'_>) -> Result<Zygote, SandboxError> {
        let setup = |stage: &str, source: std::io::Error| SandboxError::Setup {
            stage: stage.into(),
            source,
        };
        let mut pair = [0; 2];
        // SAFETY: socketpair writes two descriptors into the array.
        let r = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                pair.as_mut_ptr(),
            )
        };
        if r < 0 {
            return Err(setup("socketpair", std::io::Error::last_os_error()));
        }
        // SAFETY: both descriptors were just created and are owned here.
        let (ours, theirs) =
            unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
        let mut args = sys::CloneArgs {
            flags: NS_FLAGS
                | match boot.net {
                    Net::Fresh => libc::CLONE_NEWNET as u64,
                    Net::Enter(_) | Net::PerOrder => 0,
                },
            exit_signal: libc::SIGCHLD as u64,
            ..Default::default()
        };
        // SAFETY: the child runs only zygote_main, which uses nothing but system calls on the
        // prepared boot data and never returns.
        let pid = unsafe { sys::clone3(&mut args) };
        if pid == 0 {
            // SAFETY: we are the freshly cloned child.
            unsafe { zygote_main(boot, theirs.as_raw_fd(), ours.as_raw_fd()) };
        }
        if pid < 0 {
            return Err(setup("clone3", std::io::Error::last_os_error()));
        }
        drop(theirs);
        let pid = pid as libc::pid_t;
        Ok(Zygote {
            pid,
            sock: ours,
            mount_ns: match boot.one_shot {
                true => None,
                false => File::open(format!("/proc/{pid}/ns/mnt")).ok(),
            },
            ready: false,
            let_go: false,
        })
    }

    /// Waits until the zygote's root is ready (at once if it was already); `ops` are the root
    /// ops it was made with, to name a failed one.
    pub(crate) fn wait_ready(&mut self, ops: &[MountOp]) -> Result<(), SandboxError> {
        if self.ready {
            return Ok(());
        }
        let setup = |stage: &str, source: std::io::Error| SandboxError::Setup {
            stage: stage.into(),
            source,
        };
        let ready = self.recv().map_err(|e| setup("start the zygote", e))?;
        if ready.kind != MSG_READY {
            return Err(setup(
                &describe_stage(ready.stage, ops, &[]),
                std::io::Error::from_raw_os_error(ready.errno),
            ));
        }
        self.ready = true;
        Ok(())
    }

    /// The zygote's pid (pid 1 of the box's namespace; killing it kills the box).
    pub(crate) fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// The socket, readable when a reply is due or the zygote died.
    pub(crate) fn sock(&self) -> RawFd {
        self.sock.as_raw_fd()
    }

    /// Sends the order written in the arena with its descriptors.
    pub(crate) fn send(&self, fds: &[RawFd]) -> std::io::Result<()> {
        if sys::send_fds(self.sock.as_raw_fd(), b"run", fds) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Waits for the zygote's reply (end of file: it died).
    pub(crate) fn recv(&self) -> std::io::Result<Reply> {
        let mut reply = Reply::default();
        loop {
            // SAFETY: reading into a live Reply of the given size; Reply is plain old data.
            let n = unsafe {
                libc::recv(
                    self.sock.as_raw_fd(),
                    (&mut reply as *mut Reply).cast(),
                    std::mem::size_of::<Reply>(),
                    0,
                )
            };
            if n < 0 && sys::errno() == libc::EINTR {
                continue;
            }
            if n < 0 {
                return Err(std::io::Error::last_os_error());
            }
            if n as usize != std::mem::size_of::<Reply>() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    "the zygote died",
                ));
            }
            return Ok(reply);
        }
    }

    /// Kills the zygote and everything in its namespaces; returns its mount namespace for
    /// the caller to close (unmount) where it suits.
    pub(crate) fn kill(mut self) -> Option<File> {
        self.mount_ns.take()
    }

    /// Ends a zygote whose box is already dead (it answered) without waiting for its exit,
    /// in which the kernel tears down its namespaces (unmounting waits for an RCU grace
    /// period); returns its pid, for the caller to reap when it suits.
    pub(crate) fn let_go(mut self) -> libc::pid_t {
        self.let_go = true;
        self.pid
    }
}

/// Reaps the zygotes in `pids` that have exited (never blocks); keeps the others.
pub(crate) fn reap_let_go(pids: &mut Vec<libc::pid_t>) {
    pids.retain(|&pid| {
        let mut status = 0;
        // SAFETY: waitpid on our own child, without blocking.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG | libc::__WALL) };
        r == 0
    });
}

impl Drop for Zygote {
    fn drop(&mut self) {
        // SAFETY: kill and wait4 on our own unreaped child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            if self.let_go {
                return;
            }
            let mut status = 0;
            while libc::wait4(self.pid, &mut status, libc::__WALL, std::ptr::null_mut()) < 0
                && sys::errno() == libc::EINTR
            {}
        }
    }
}

/// Names a stage reported by a zygote: a fixed step, a root op, or a run's mount.
pub(crate) fn describe_stage(stage: u32, root_ops: &[MountOp], mounts: &[RunMount]) -> String {
    if stage >= child::STAGE_RUN_MOUNT_BASE {
        let i = (stage - child::STAGE_RUN_MOUNT_BASE) as usize;
        mounts
            .get(i)
            .map_or_else(|| format!("mount step {i}"), RunMount::describe)
    } else if stage >= child::STAGE_MOUNT_BASE {
        let i = (stage - child::STAGE_MOUNT_BASE) as usize;
        root_ops
            .get(i)
            .map_or_else(|| format!("root step {i}"), MountOp::describe)
    } else {
        child::STAGES
            .get(stage as usize)
            .map_or("unknown", |s| s)
            .to_string()
    }
}

fn send_reply(reply: &Reply) -> bool {
    sys::send_fds(SOCK_FD, reply.as_bytes(), &[]) >= 0
}

/// Kills every process of the namespace but this one and exits.
fn shut_down() -> ! {
    // SAFETY: plain system calls; this process is pid 1 of its namespace.
    unsafe {
        libc::kill(-1, libc::SIGKILL);
        libc::_exit(0)
    }
}

/// The zygote: enters its namespaces and root, then serves orders until the socket closes.
///
/// # Safety
/// Must be called only in a freshly cloned child, which it never returns from.
unsafe fn zygote_main(boot: &Boot<'_>, sock: RawFd, parent_end: RawFd) -> ! {
    // SAFETY: plain system calls on prepared data in a single-threaded fork child that never
    // returns.
    unsafe {
        libc::close(parent_end);
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        let fail = |stage: u32| -> ! {
            let reply = Reply {
                kind: child::MSG_SETUP_FAILED,
                stage,
                errno: sys::errno(),
                ..Reply::default()
            };
            sys::send_fds(sock, reply.as_bytes(), &[]);
            libc::_exit(1)
        };
        if let Net::Enter(fd) = boot.net
            && libc::setns(fd, libc::CLONE_NEWNET) < 0
        {
            fail(child::ST_NETNS);
        }
        if let Err((stage, errno)) = child::enter_root(&boot.root) {
            *libc::__errno_location() = errno;
            fail(stage);
        }
        if child::mount_tmpfs(c"/tmp".as_ptr(), boot.tmp_options.as_ptr()) < 0 {
            fail(child::ST_TMP);
        }
        // Descriptors: /dev/null on 0-2, the socket on 3, ns_last_pid on 4, the status pipe;
        // nothing else.
        let high = libc::fcntl(sock, libc::F_DUPFD_CLOEXEC, 10);
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if high < 0 || null < 0 {
            fail(child::ST_STDIO);
        }
        let last_pid = libc::open(
            c"/proc/sys/kernel/ns_last_pid".as_ptr(),
            libc::O_WRONLY | libc::O_CLOEXEC,
        );
        let last_pid_high = libc::fcntl(last_pid, libc::F_DUPFD_CLOEXEC, 10);
        for fd in 0..3 {
            libc::dup2(null, fd);
        }
        libc::dup2(high, SOCK_FD);
        if last_pid_high < 0 || libc::dup3(last_pid_high, LAST_PID_FD, libc::O_CLOEXEC) < 0 {
            // Without it pids just keep growing; nothing else may sit on this number.
            libc::close(LAST_PID_FD);
        }
        libc::syscall(libc::SYS_close_range, 5u32, u32::MAX, 0u32);
        let mut pipe = [0; 2];
        if libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) < 0 {
            fail(child::ST_STDIO);
        }
        libc::fcntl(pipe[0], libc::F_SETFL, libc::O_NONBLOCK);
        // From here on the zygote makes only the calls its filter leaves it (root in its
        // namespaces: no `no_new_privs` needed); every program it starts inherits the filter.
        if let Some(filter) = boot.zygote_filter
            && child::load_filter(filter) < 0
        {
            fail(child::ST_SECCOMP);
        }
        if !send_reply(&Reply {
            kind: MSG_READY,
            ..Reply::default()
        }) {
            shut_down();
        }
        loop {
            let mut cmd = [0u8; 8];
            let mut fds = [-1; sys::MAX_PASSED_FDS];
            let n = match sys::recv_fds(SOCK_FD, &mut cmd, &mut fds) {
                Ok((0, _)) => shut_down(),
                Ok((_, n)) => n,
                Err(libc::EINTR) => continue,
                Err(_) => shut_down(),
            };
            let passed = &fds[..n];
            let reply = serve(&*(boot.arena.base as *const WireOrder), passed, boot, pipe);
            for &fd in passed {
                libc::close(fd);
            }
            if !send_reply(&reply) || boot.one_shot {
                shut_down();
            }
            ready_next_run(boot);
        }
    }
}

/// Runs one order: mounts, the program, its end, cleaning up.
///
/// # Safety
/// Only in the zygote, with `order` written by [`Arena::write`] and `passed` its descriptors.
unsafe fn serve(order: &WireOrder, passed: &[RawFd], boot: &Boot<'_>, pipe: [RawFd; 2]) -> Reply {
    let mut reply = Reply::default();
    let mounts = order
        .mounts
        .get(..order.n_mounts as usize)
        .unwrap_or_default();
    let mut mounted = 0;
    let mut failed = None;
    // SAFETY: plain system calls on the order's NUL-terminated strings and arrays (all in the
    // arena, written by the parent before it sent the order) and on passed descriptors.
    unsafe {
        // The box's network namespace: the order's, or the zygote's own (never the host's: a
        // zygote that waits for one per order refuses an order without one).
        match passed.get(order.netns as usize) {
            Some(&fd) if order.netns != NO_NETNS => {
                failed = (libc::setns(fd, libc::CLONE_NEWNET) < 0)
                    .then(|| (child::ST_NETNS, sys::errno()));
            }
            _ if matches!(boot.net, Net::PerOrder) => {
                failed = Some((child::ST_NETNS, libc::EINVAL));
            }
            _ => {}
        }
        for (i, m) in mounts.iter().enumerate() {
            if failed.is_some() {
                break;
            }
            let r = match m.kind {
                OP_ATTACH => match passed.get(m.fd as usize) {
                    Some(&tree) => sys::move_mount_to(tree, m.path),
                    None => {
                        *libc::__errno_location() = libc::EBADF;
                        -1
                    }
                },
                _ => child::mkdir_existing_ok(m.path),
            };
            if r < 0 {
                failed = Some((child::STAGE_RUN_MOUNT_BASE + i as u32, sys::errno()));
                break;
            }
            mounted = i + 1;
        }
        if failed.is_none() && libc::chdir(c"/box".as_ptr()) < 0 {
            failed = Some((child::ST_CHDIR, sys::errno()));
        }
        let mut main = None;
        if failed.is_none() {
            let n_cgroup = order.n_cgroup as usize;
            let fd = |i: usize| passed.get(i).copied().unwrap_or(-1);
            let exec = Exec {
                cgroup_procs: passed.get(3..3 + n_cgroup).unwrap_or_default(),
                stdio: [fd(0), fd(1), fd(2)],
                program: order.program,
                argv: order.argv,
                envp: order.envp,
                ids: (order.has_ids != 0).then_some((order.ids[0], order.ids[1])),
                rlimits: order
                    .rlimits
                    .get(..order.n_rlimits as usize)
                    .unwrap_or_default(),
                filter: Some(boot.filter),
                // zygote_main set every signal to its default and ignores SIGPIPE alone.
                reset_signals: &[libc::SIGPIPE],
                status_fd: pipe[1],
            };
            // Every process of earlier runs is gone: the program is pid 2 again, as in a
            // fresh namespace, and learns nothing from its pid about earlier runs.
            libc::pwrite(LAST_PID_FD, b"1".as_ptr().cast(), 1, 0);
            let pid = child::spawn_program(&exec, boot.stack_top);
            if pid < 0 {
                failed = Some((child::ST_FORK, sys::errno()));
            } else {
                main = Some(pid as libc::pid_t);
            }
        }
        if let Some(pid) = main {
            // The program's last steps report a failure on the pipe before they exit; the
            // spawn returned only once it exec'd or died, so the record is there or never.
            let mut rec = [0u8; StatusRecord::LEN];
            let n = libc::read(pipe[0], rec.as_mut_ptr().cast(), rec.len());
            if n == StatusRecord::LEN as isize {
                let rec = StatusRecord::decode(&rec);
                reply.kind = rec.kind;
                reply.stage = rec.stage;
                reply.errno = rec.value;
            } else {
                wait_main(pid, &mut reply);
            }
        }
        if let Some((stage, errno)) = failed {
            reply.kind = child::MSG_SETUP_FAILED;
            reply.stage = stage;
            reply.errno = errno;
        }
        // The run is over: every process of it dies, then its mounts go.
        libc::kill(-1, libc::SIGKILL);
        loop {
            let mut status = 0;
            let mut ru: libc::rusage = std::mem::zeroed();
            let r = libc::wait4(-1, &mut status, libc::__WALL, &mut ru);
            if r > 0 {
                reply.add_rusage(&ru);
            } else if sys::errno() != libc::EINTR {
                break;
            }
        }
        // Mounts outside /box and /tmp go now: their paths are in the arena, which the
        // supervisor reuses once it has the reply. The rest goes in `ready_next_run`. A
        // one-shot zygote leaves them all to its exit (an unmount waits for an RCU grace
        // period, and nothing else will run here).
        libc::chdir(c"/".as_ptr());
        let keep = if boot.one_shot { mounted } else { 0 };
        for m in mounts[keep..mounted].iter().rev() {
            let path = CStr::from_ptr(m.path).to_bytes();
            if m.kind == OP_ATTACH && path != b"/box" && !path.starts_with(b"/tmp/") {
                libc::umount2(m.path, libc::MNT_DETACH);
            }
        }
    }
    reply
}

/// After a reply: unmounts the finished run's `/box` and `/tmp` (with every mount under it),
/// and gives the next run a fresh IPC namespace and a fresh `/tmp`. A zygote that cannot
/// exits; the supervisor then makes a new one.
fn ready_next_run(boot: &Boot<'_>) {
    // SAFETY: plain system calls on literals and the boot data's NUL-terminated options.
    unsafe {
        libc::umount2(c"/box".as_ptr(), libc::MNT_DETACH);
        libc::umount2(c"/tmp".as_ptr(), libc::MNT_DETACH);
        if libc::unshare(libc::CLONE_NEWIPC) < 0
            || child::mount_tmpfs(c"/tmp".as_ptr(), boot.tmp_options.as_ptr()) < 0
        {
            shut_down();
        }
    }
}

/// Waits for the program to end (or for the supervisor to vanish) and records its wait status
/// and rusage.
///
/// # Safety
/// Only in the zygote, with `pid` its unreaped child.
unsafe fn wait_main(pid: libc::pid_t, reply: &mut Reply) {
    // SAFETY: plain system calls on our own child and descriptors.
    unsafe {
        let pidfd = sys::pidfd_open(pid) as RawFd;
        if pidfd >= 0 {
            loop {
                let mut pfd = [
                    libc::pollfd {
                        fd: pidfd,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: SOCK_FD,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                let r = libc::poll(pfd.as_mut_ptr(), 2, -1);
                if r < 0 && sys::errno() == libc::EINTR {
                    continue;
                }
                if pfd[1].revents != 0 {
                    // The supervisor sends nothing during a run: it is gone.
                    shut_down();
                }
                if r < 0 || pfd[0].revents != 0 {
                    break;
                }
            }
            libc::close(pidfd);
        }
        let mut status = 0;
        let mut ru: libc::rusage = std::mem::zeroed();
        loop {
            let r = libc::wait4(pid, &mut status, libc::__WALL, &mut ru);
            if r == pid {
                reply.kind = child::MSG_EXITED;
                reply.status = status;
                reply.add_rusage(&ru);
                return;
            }
            if r < 0 && sys::errno() != libc::EINTR {
                return;
            }
        }
    }
}
