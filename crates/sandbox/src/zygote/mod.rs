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
//!
//! The parts: [`wire`] (the order in the arena, the reply), this module (the supervisor's
//! handle on a zygote) and [`inbox`] (the zygote's own code, in the box).

mod inbox;
mod wire;

pub(crate) use wire::{Arena, MAX_MOUNTS, MSG_READY, Order, Reply, describe_stage};

use crate::SandboxError;
use crate::child::{MountOp, RootPlan};
use crate::seccomp::Insn;
use crate::sys;
use std::ffi::CStr;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

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
    /// A program to become once the root is ready, in place of the order loop (a warm
    /// interpreter's template: see [`crate::warm`]); it answers on descriptor 3 itself.
    pub template: Option<TemplateExec<'a>>,
    /// Serve one order, then exit (a one-shot sandbox): nothing is readied for a next run and
    /// its mount namespace is not held (it is unmounted in the zygote's own exit, which nobody
    /// waits for: see [`Zygote::let_go`]).
    pub one_shot: bool,
}

/// What a zygote becomes when it is a template (prepared before the fork).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TemplateExec<'a> {
    pub program: &'a CStr,
    /// NULL-terminated.
    pub argv: &'a [*const libc::c_char],
    /// NULL-terminated.
    pub envp: &'a [*const libc::c_char],
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
            unsafe { inbox::zygote_main(boot, theirs.as_raw_fd(), ours.as_raw_fd()) };
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
        self.send_message(b"run", fds)
    }

    /// Sends one message with descriptors (a template's order is its message).
    pub(crate) fn send_message(&self, message: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
        if sys::send_fds(self.sock.as_raw_fd(), message, fds) < 0 {
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
