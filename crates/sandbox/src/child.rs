//! The code that runs between fork and exec: the box's init and the program's last steps.
//!
//! Invariant: nothing here allocates, locks or touches Rust's runtime; every input is prepared
//! by the parent before the fork ([`Plan`]) and every step is a plain system call. Failures are
//! reported to the parent as fixed-size records on a close-on-exec pipe.

use crate::seccomp::Insn;
use crate::sys;
use std::ffi::CString;
use std::os::fd::RawFd;

/// A record on the status pipe: `[kind, stage, value]` as native-endian u32/i32.
pub(crate) const MSG_LEN: usize = 12;
/// The box's init failed to set up (`stage`, errno).
pub(crate) const MSG_SETUP_FAILED: u32 = 1;
/// The program's last steps or execve failed (`stage`, errno).
pub(crate) const MSG_EXEC_FAILED: u32 = 2;
/// The main program ended (`value` is the wait status).
pub(crate) const MSG_EXITED: u32 = 3;

/// Fixed stages; mount operations use `STAGE_MOUNT_BASE + index`.
pub(crate) const STAGES: &[&str] = &[
    "prctl",
    "make mounts private",
    "bind the root",
    "remount the root read-only",
    "pivot_root",
    "detach the old root",
    "chdir to the box",
    "fork the program",
    "join the cgroup",
    "set up stdio",
    "setrlimit",
    "drop privileges",
    "no_new_privs",
    "load seccomp",
    "execve",
    "join the network namespace",
];
const ST_PRCTL: u32 = 0;
const ST_PRIVATE: u32 = 1;
const ST_BIND_ROOT: u32 = 2;
const ST_ROOT_RO: u32 = 3;
const ST_PIVOT: u32 = 4;
const ST_DETACH: u32 = 5;
const ST_CHDIR: u32 = 6;
const ST_FORK: u32 = 7;
const ST_CGROUP: u32 = 8;
const ST_STDIO: u32 = 9;
const ST_RLIMIT: u32 = 10;
const ST_IDS: u32 = 11;
const ST_NNP: u32 = 12;
const ST_SECCOMP: u32 = 13;
/// The execve stage (its errno becomes [`crate::SandboxError::Exec`]).
pub(crate) const ST_EXEC: u32 = 14;
const ST_NETNS: u32 = 15;
/// Stage numbers from here on are mount operations.
pub(crate) const STAGE_MOUNT_BASE: u32 = 100;

/// One step of building the private root.
#[derive(Debug, Clone)]
pub(crate) enum MountOp {
    /// Bind `src` onto `dst` (recursively), then set `attrs` (`MOUNT_ATTR_*`) recursively.
    Bind {
        src: CString,
        dst: CString,
        attrs: u64,
    },
    /// Mount a fresh procfs (of the box's pid namespace).
    Proc { dst: CString },
    /// Mount a tmpfs with these options.
    /// A tmpfs (`nosuid`, `nodev`).
    Tmpfs { dst: CString, data: CString },
    /// Make a directory (mode 0755) if missing, e.g. a mount point inside the box's `/tmp`.
    Mkdir { path: CString },
}

impl MountOp {
    /// A short description for error messages.
    pub(crate) fn describe(&self) -> String {
        let s = |c: &CString| c.to_string_lossy().into_owned();
        match self {
            MountOp::Bind { src, dst, .. } => format!("bind {} on {}", s(src), s(dst)),
            MountOp::Proc { dst } => format!("mount proc on {}", s(dst)),
            MountOp::Tmpfs { dst, .. } => format!("mount tmpfs on {}", s(dst)),
            MountOp::Mkdir { path } => format!("mkdir {}", s(path)),
        }
    }
}

/// The private root: a skeleton directory and the mounts made on it.
#[derive(Debug)]
pub(crate) struct RootPlan<'a> {
    pub skeleton: CString,
    pub static_ops: &'a [MountOp],
    pub run_ops: Vec<MountOp>,
    pub hostname: CString,
}

/// Everything the children need, prepared before the fork.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub root: Option<RootPlan<'a>>,
    pub cwd: CString,
    pub cgroup_procs: Vec<RawFd>,
    pub stdio: [RawFd; 3],
    pub program: CString,
    pub argv: Vec<*const libc::c_char>,
    pub envp: Vec<*const libc::c_char>,
    pub ids: Option<(u32, u32)>,
    pub rlimits: Vec<(libc::__rlimit_resource_t, libc::rlimit)>,
    /// A fresh network namespace to join (else the clone made one, or there is none).
    pub netns: Option<RawFd>,
    pub filter: Option<&'a [Insn]>,
    pub status_fd: RawFd,
    /// Not pid 1 of a namespace: become a subreaper and kill the box uid's processes at the end.
    pub rlimit_only: bool,
    /// The top of a stack for the program's last steps (see [`ChildStack`]); 0: plain fork.
    pub stack_top: usize,
}

/// A stack for the program's last steps before execve, mapped once by the parent.
///
/// The init starts the program posix_spawn-style, `clone(CLONE_VM | CLONE_VFORK)` on this
/// stack: no copy of the address space (page tables and copy-on-write faults cost more the
/// bigger the supervisor is), and the init sleeps until the program has exec'd or died, so
/// the memory they share (this stack, the plan, errno) has one user at a time. The mapping is
/// private: each init has its own copy of it, and the parent never touches it, so concurrent
/// runs share one mapping.
#[derive(Debug)]
pub(crate) struct ChildStack {
    base: usize,
    len: usize,
}

impl ChildStack {
    const SIZE: usize = 256 << 10;
    const GUARD: usize = 4096;

    /// Maps the stack (with a guard page below it); `None` if mmap fails.
    pub(crate) fn new() -> Option<ChildStack> {
        let len = Self::SIZE + Self::GUARD;
        // SAFETY: a fresh anonymous private mapping; no existing memory is affected.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        // SAFETY: the lowest page of the mapping just made becomes the guard.
        unsafe { libc::mprotect(p, Self::GUARD, libc::PROT_NONE) };
        Some(ChildStack {
            base: p as usize,
            len,
        })
    }

    /// The initial stack pointer (the stack grows down), 16-byte aligned.
    pub(crate) fn top(&self) -> usize {
        (self.base + self.len) & !15
    }
}

impl Drop for ChildStack {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`, which nothing else references
        // (children have their own copies).
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

extern "C" fn program_entry(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: arg is the init's `&Plan`, alive and unchanged while the init sleeps (vfork)
    // until this process execs or exits; program_main never returns.
    unsafe { program_main(&*(arg as *const Plan<'_>)) }
}

fn report(fd: RawFd, kind: u32, stage: u32, value: i32) {
    let mut buf = [0u8; MSG_LEN];
    buf[0..4].copy_from_slice(&kind.to_ne_bytes());
    buf[4..8].copy_from_slice(&stage.to_ne_bytes());
    buf[8..12].copy_from_slice(&value.to_ne_bytes());
    sys::write_all_raw(fd, &buf);
}

fn fail(plan: &Plan<'_>, kind: u32, stage: u32) -> ! {
    report(plan.status_fd, kind, stage, sys::errno());
    // SAFETY: _exit is async-signal-safe and never returns.
    unsafe { libc::_exit(127) }
}

fn check(plan: &Plan<'_>, r: libc::c_long, kind: u32, stage: u32) {
    if r < 0 {
        fail(plan, kind, stage);
    }
}

fn do_op(op: &MountOp) -> libc::c_long {
    let null = std::ptr::null::<libc::c_char>();
    // SAFETY: every pointer is a NUL-terminated CString owned by the plan, or null where the
    // call accepts null.
    unsafe {
        match op {
            MountOp::Bind { src, dst, attrs } => {
                let r = libc::mount(
                    src.as_ptr(),
                    dst.as_ptr(),
                    null,
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                );
                if r < 0 || *attrs == 0 {
                    return r as libc::c_long;
                }
                let r = sys::mount_setattr_recursive(dst.as_ptr(), *attrs);
                if r < 0 && sys::errno() == libc::ENOSYS {
                    let mut flags = libc::MS_BIND | libc::MS_REMOUNT;
                    if attrs & sys::MOUNT_ATTR_RDONLY != 0 {
                        flags |= libc::MS_RDONLY;
                    }
                    if attrs & sys::MOUNT_ATTR_NOSUID != 0 {
                        flags |= libc::MS_NOSUID;
                    }
                    if attrs & sys::MOUNT_ATTR_NODEV != 0 {
                        flags |= libc::MS_NODEV;
                    }
                    return libc::mount(null, dst.as_ptr(), null, flags, std::ptr::null())
                        as libc::c_long;
                }
                r
            }
            MountOp::Proc { dst } => libc::mount(
                c"proc".as_ptr(),
                dst.as_ptr(),
                c"proc".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            ) as libc::c_long,
            MountOp::Tmpfs { dst, data } => libc::mount(
                c"tmpfs".as_ptr(),
                dst.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                data.as_ptr().cast(),
            ) as libc::c_long,
            MountOp::Mkdir { path } => {
                let r = libc::mkdir(path.as_ptr(), 0o755);
                if r < 0 && sys::errno() == libc::EEXIST {
                    0
                } else {
                    r as libc::c_long
                }
            }
        }
    }
}

/// The box's init: builds the private root, forks the program, reaps, reports, exits.
///
/// # Safety
/// Must be called only in a freshly forked child, which it never returns from.
pub(crate) unsafe fn init_main(plan: &Plan<'_>) -> ! {
    let null = std::ptr::null::<libc::c_char>();
    // SAFETY: plain system calls on prepared, NUL-terminated data (see each comment in do_op);
    // this process is a single-threaded fork child that exits at the end of this function.
    unsafe {
        check(
            plan,
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) as _,
            MSG_SETUP_FAILED,
            ST_PRCTL,
        );
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        libc::umask(0o022);
        if plan.rlimit_only {
            check(
                plan,
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) as _,
                MSG_SETUP_FAILED,
                ST_PRCTL,
            );
        }
        if let Some(fd) = plan.netns {
            check(
                plan,
                libc::setns(fd, libc::CLONE_NEWNET) as _,
                MSG_SETUP_FAILED,
                ST_NETNS,
            );
            libc::close(fd);
        }
        if let Some(root) = &plan.root {
            libc::umask(0);
            let r = libc::mount(
                null,
                c"/".as_ptr(),
                null,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            );
            check(plan, r as _, MSG_SETUP_FAILED, ST_PRIVATE);
            let sk = root.skeleton.as_ptr();
            let r = libc::mount(sk, sk, null, libc::MS_BIND, std::ptr::null());
            check(plan, r as _, MSG_SETUP_FAILED, ST_BIND_ROOT);
            let all = root.static_ops.iter().chain(root.run_ops.iter());
            for (i, op) in all.enumerate() {
                check(
                    plan,
                    do_op(op),
                    MSG_SETUP_FAILED,
                    STAGE_MOUNT_BASE + i as u32,
                );
            }
            // Not `nodev`: the box's /dev nodes live in the skeleton (see `make_dev`).
            let flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID;
            check(
                plan,
                libc::mount(null, sk, null, flags, std::ptr::null()) as _,
                MSG_SETUP_FAILED,
                ST_ROOT_RO,
            );
            check(plan, libc::chdir(sk) as _, MSG_SETUP_FAILED, ST_PIVOT);
            let r = libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr());
            check(plan, r, MSG_SETUP_FAILED, ST_PIVOT);
            check(
                plan,
                libc::umount2(c".".as_ptr(), libc::MNT_DETACH) as _,
                MSG_SETUP_FAILED,
                ST_DETACH,
            );
            let h = root.hostname.as_bytes();
            libc::sethostname(h.as_ptr().cast(), h.len());
            libc::umask(0o022);
        }
        check(
            plan,
            libc::chdir(plan.cwd.as_ptr()) as _,
            MSG_SETUP_FAILED,
            ST_CHDIR,
        );
        let pid = if plan.stack_top != 0 {
            // The glibc clone wrapper only issues the system call and runs program_entry on
            // the given stack (as posix_spawn does); it takes no lock.
            libc::clone(
                program_entry,
                plan.stack_top as *mut libc::c_void,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                plan as *const Plan<'_> as *mut libc::c_void,
            ) as libc::c_long
        } else {
            let pid = sys::raw_fork();
            if pid == 0 {
                program_main(plan);
            }
            pid
        };
        check(plan, pid, MSG_SETUP_FAILED, ST_FORK);
        for fd in plan.stdio {
            libc::close(fd);
        }
        let main = pid as libc::pid_t;
        let mut main_status: Option<i32> = None;
        loop {
            let mut status = 0;
            let flags = if main_status.is_some() {
                libc::__WALL | libc::WNOHANG
            } else {
                libc::__WALL
            };
            let r = libc::waitpid(-1, &mut status, flags);
            if r == main {
                report(plan.status_fd, MSG_EXITED, 0, status);
                main_status = Some(status);
                if !plan.rlimit_only {
                    // pid 1 exiting kills every other process of the namespace.
                    break;
                }
                kill_box(plan, main);
            } else if r < 0 {
                if sys::errno() == libc::EINTR {
                    continue;
                }
                break;
            } else if r == 0 {
                // Stragglers of an rlimit-only box: kill again and wait a little.
                kill_box(plan, main);
                let ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 1_000_000,
                };
                libc::nanosleep(&ts, std::ptr::null_mut());
            }
        }
        libc::_exit(0)
    }
}

/// rlimit-only: kills every process of the box uid (or the main process group without one).
fn kill_box(plan: &Plan<'_>, main: libc::pid_t) {
    // SAFETY: plain system calls in a single-threaded fork child; the killer child only makes
    // the raw set-id system calls, kill and _exit.
    unsafe {
        libc::kill(-main, libc::SIGKILL);
        if let Some((uid, gid)) = plan.ids {
            let pid = sys::raw_fork();
            if pid == 0 {
                if sys::set_ids(uid, gid, false) == 0 {
                    libc::kill(-1, libc::SIGKILL);
                }
                libc::_exit(0);
            }
            if pid > 0 {
                let mut st = 0;
                libc::waitpid(pid as libc::pid_t, &mut st, libc::__WALL);
            }
        }
    }
}

/// The program's last steps: cgroup, stdio, limits, identity, no_new_privs, seccomp, execve.
///
/// # Safety
/// Must be called only in a freshly forked child, which it never returns from.
unsafe fn program_main(plan: &Plan<'_>) -> ! {
    const X: u32 = MSG_EXEC_FAILED;
    // SAFETY: plain system calls on prepared data in a single-threaded fork child that execs or
    // exits at the end of this function.
    unsafe {
        for &fd in &plan.cgroup_procs {
            if !sys::write_all_raw(fd, b"0") {
                fail(plan, X, ST_CGROUP);
            }
        }
        libc::setsid();
        let mut high = [0; 3];
        for (i, &fd) in plan.stdio.iter().enumerate() {
            high[i] = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
            check(plan, high[i] as _, X, ST_STDIO);
        }
        for (i, &fd) in high.iter().enumerate() {
            check(plan, libc::dup2(fd, i as i32) as _, X, ST_STDIO);
        }
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            4u32, /* CLOSE_RANGE_CLOEXEC */
        );
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        for (res, lim) in &plan.rlimits {
            check(plan, libc::setrlimit(*res, lim) as _, X, ST_RLIMIT);
        }
        if let Some((uid, gid)) = plan.ids {
            // Raw system calls: glibc's wrappers would wait for threads this child lacks.
            check(plan, sys::set_ids(uid, gid, true), X, ST_IDS);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
        check(
            plan,
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) as _,
            X,
            ST_NNP,
        );
        if let Some(filter) = plan.filter {
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_ptr() as *mut Insn,
            };
            let r = libc::syscall(
                libc::SYS_seccomp,
                1, /* SECCOMP_SET_MODE_FILTER */
                0,
                &prog,
            );
            check(plan, r, X, ST_SECCOMP);
        }
        libc::execve(
            plan.program.as_ptr(),
            plan.argv.as_ptr(),
            plan.envp.as_ptr(),
        );
        fail(plan, X, ST_EXEC)
    }
}
