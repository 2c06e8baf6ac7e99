//! The code that runs between fork and exec: the private root a zygote enters, the init of an
//! rlimit-only box, and the program's last steps.
//!
//! Invariant: nothing here allocates, locks or touches Rust's runtime; every input is prepared
//! by the parent before the fork ([`Plan`], [`Exec`], [`RootPlan`]) and every step is a plain
//! system call. Failures are reported as fixed-size records on a close-on-exec pipe.

use crate::seccomp::Insn;
use crate::sys;
use std::ffi::CString;
use std::os::fd::{OwnedFd, RawFd};

/// A record on the status pipe, written by an init or a program's last steps and read by the
/// zygote or the supervisor: `[kind, stage, value]` as native-endian u32/u32/i32. Its one
/// encoding and decoding live here; encoding allocates nothing (it runs between fork and exec).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StatusRecord {
    /// [`MSG_SETUP_FAILED`], [`MSG_EXEC_FAILED`] or [`MSG_EXITED`].
    pub kind: u32,
    /// The failed stage (an index of [`STAGES`] or a mount base plus an index).
    pub stage: u32,
    /// errno of a failure, or the wait status of [`MSG_EXITED`].
    pub value: i32,
}

impl StatusRecord {
    /// Size of an encoded record.
    pub(crate) const LEN: usize = 12;

    /// The record's bytes.
    pub(crate) fn encode(&self) -> [u8; Self::LEN] {
        let mut buf = [0u8; Self::LEN];
        buf[0..4].copy_from_slice(&self.kind.to_ne_bytes());
        buf[4..8].copy_from_slice(&self.stage.to_ne_bytes());
        buf[8..12].copy_from_slice(&self.value.to_ne_bytes());
        buf
    }

    /// Reads a record from its bytes.
    pub(crate) fn decode(buf: &[u8; Self::LEN]) -> StatusRecord {
        let word = |i: usize| [buf[i], buf[i + 1], buf[i + 2], buf[i + 3]];
        StatusRecord {
            kind: u32::from_ne_bytes(word(0)),
            stage: u32::from_ne_bytes(word(4)),
            value: i32::from_ne_bytes(word(8)),
        }
    }

    /// Every whole record of `bytes` (a trailing partial record is ignored).
    pub(crate) fn decode_all(bytes: &[u8]) -> impl Iterator<Item = StatusRecord> + '_ {
        bytes
            .chunks_exact(Self::LEN)
            .filter_map(|c| c.try_into().ok())
            .map(StatusRecord::decode)
    }
}
/// The box's init or zygote failed to set up (`stage`, errno).
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
    "mount the box's /tmp",
    "map the box's user namespace",
];
const ST_PRCTL: u32 = 0;
const ST_PRIVATE: u32 = 1;
const ST_BIND_ROOT: u32 = 2;
const ST_ROOT_RO: u32 = 3;
const ST_PIVOT: u32 = 4;
const ST_DETACH: u32 = 5;
pub(crate) const ST_CHDIR: u32 = 6;
pub(crate) const ST_FORK: u32 = 7;
const ST_CGROUP: u32 = 8;
pub(crate) const ST_STDIO: u32 = 9;
const ST_RLIMIT: u32 = 10;
const ST_IDS: u32 = 11;
const ST_NNP: u32 = 12;
pub(crate) const ST_SECCOMP: u32 = 13;
/// The execve stage (its errno becomes [`crate::SandboxError::Exec`]).
pub(crate) const ST_EXEC: u32 = 14;
pub(crate) const ST_NETNS: u32 = 15;
pub(crate) const ST_TMP: u32 = 16;
const ST_USERNS: u32 = 17;
/// Stage numbers from here on are the zygote's root operations (`RootPlan::ops`).
pub(crate) const STAGE_MOUNT_BASE: u32 = 100;
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

/// Stage numbers from here on are a run's mounts (see [`RunMount`]).
pub(crate) const STAGE_RUN_MOUNT_BASE: u32 = 1000;

/// One step of building the private root.
#[derive(Debug, Clone)]
pub(crate) enum MountOp {
    /// Bind `src` onto `dst` (recursively), then set `attrs` (`MOUNT_ATTR_*`) recursively.
    Bind {
        src: CString,
        dst: CString,
        attrs: u64,
    },
    /// Mount a procfs of the box's pid namespace with `hidepid=2`: a box sees its own
    /// processes only, not the zygote (pid 1, root), whose command line is the supervisor's.
    Proc { dst: CString },
}

impl MountOp {
    /// A short description for error messages.
    pub(crate) fn describe(&self) -> String {
        let s = |c: &CString| c.to_string_lossy().into_owned();
        match self {
            MountOp::Bind { src, dst, .. } => format!("bind {} on {}", s(src), s(dst)),
            MountOp::Proc { dst } => format!("mount proc on {}", s(dst)),
        }
    }
}

/// The private root a zygote builds once: a skeleton directory and the mounts made on it.
#[derive(Debug)]
pub(crate) struct RootPlan<'a> {
    pub skeleton: CString,
    pub ops: &'a [MountOp],
    pub hostname: CString,
    /// In a user namespace: the skeleton's read-only remount keeps the `nodev`, `noexec` and
    /// `nosuid` its file system has (the kernel locks them; the devices are bind mounts).
    pub keep_flags: bool,
}

/// The program's last steps before execve, prepared before the fork (borrowed, so that a
/// zygote can build one from its order without allocating).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exec<'a> {
    pub cgroup_procs: &'a [RawFd],
    pub stdio: [RawFd; 3],
    pub program: *const libc::c_char,
    /// NULL-terminated.
    pub argv: *const *const libc::c_char,
    /// NULL-terminated.
    pub envp: *const *const libc::c_char,
    pub ids: Option<(u32, u32)>,
    pub rlimits: &'a [(libc::__rlimit_resource_t, libc::rlimit)],
    pub filter: Option<&'a [Insn]>,
    /// The signals set back to their default action before execve, which resets only caught
    /// ones: every signal an ignored disposition could be inherited from ([`EVERY_SIGNAL`]
    /// from a fork of the host process; only `SIGPIPE` from a zygote, which sets every other
    /// one to its default when it starts).
    pub reset_signals: &'a [libc::c_int],
    /// Where a failure is reported (a [`StatusRecord`]).
    pub status_fd: RawFd,
}

/// Every signal whose disposition can be set (1-31 but `SIGKILL` and `SIGSTOP`).
pub(crate) const EVERY_SIGNAL: [libc::c_int; 29] = [
    1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 25, 26, 27, 28,
    29, 30, 31,
];

/// What an rlimit-only box's init needs, prepared before the fork.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub exec: Exec<'a>,
    pub cwd: CString,
    /// The top of a stack for the program's last steps (see [`ChildStack`]); 0: plain fork.
    pub stack_top: usize,
    /// Cloned into fresh namespaces: the private root it enters before the program starts.
    pub boxed: Option<Boxed<'a>>,
}

/// The private root an init cloned into fresh namespaces enters (as a zygote does once), with
/// its run's mounts.
#[derive(Debug)]
pub(crate) struct Boxed<'a> {
    pub root: RootPlan<'a>,
    /// The options of the box's `/tmp` tmpfs.
    pub tmp_options: &'a std::ffi::CStr,
    /// The box at `/box` and the spec's mounts, attached in order after `/tmp` is mounted.
    pub mounts: &'a [RunMount],
    /// The slot's network namespace to enter (-1: the init was cloned into a fresh one).
    pub netns: RawFd,
    /// In a user namespace of its own too, entered once its root is built (the box's process
    /// count is then its own): the lines the init writes to its `uid_map` and `gid_map` (its
    /// own ids, unchanged).
    pub own_user_ns: Option<[&'a std::ffi::CStr; 2]>,
}

/// A stack for the program's last steps before execve, mapped once by the parent.
///
/// The init or zygote starts the program posix_spawn-style, `clone(CLONE_VM | CLONE_VFORK)`
/// on this stack: no copy of the address space (page tables and copy-on-write faults cost more
/// the bigger the supervisor is), and the spawner sleeps until the program has exec'd or died,
/// so the memory they share (this stack, the plan, errno) has one user at a time. The mapping
/// is private: each init or zygote has its own copy of it, and the parent never touches it, so
/// concurrent runs share one mapping.
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
    // SAFETY: arg is the spawner's `&Exec`, alive and unchanged while the spawner sleeps
    // (vfork) until this process execs or exits; program_main never returns.
    unsafe { program_main(&*(arg as *const Exec<'_>)) }
}

fn report(fd: RawFd, kind: u32, stage: u32, value: i32) {
    let rec = StatusRecord { kind, stage, value };
    sys::write_all_raw(fd, &rec.encode());
}

fn fail(status_fd: RawFd, kind: u32, stage: u32) -> ! {
    report(status_fd, kind, stage, sys::errno());
    // SAFETY: _exit is async-signal-safe and never returns.
    unsafe { libc::_exit(127) }
}

fn check(status_fd: RawFd, r: libc::c_long, kind: u32, stage: u32) {
    if r < 0 {
        fail(status_fd, kind, stage);
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
                let r = sys::mount_setattr_recursive(libc::AT_FDCWD, dst.as_ptr(), *attrs);
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
                c"hidepid=2".as_ptr().cast(),
            ) as libc::c_long,
        }
    }
}

/// Mounts a tmpfs (`nosuid`, `nodev`) with `data` as options on `dst`.
///
/// # Safety
/// Both pointers must be NUL-terminated strings.
pub(crate) unsafe fn mount_tmpfs(
    dst: *const libc::c_char,
    data: *const libc::c_char,
) -> libc::c_long {
    // SAFETY: NUL-terminated strings (caller) and literals.
    unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            dst,
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            data.cast(),
        ) as libc::c_long
    }
}

/// mkdir (mode 0755) that accepts an existing entry.
///
/// # Safety
/// `path` must be a NUL-terminated string.
pub(crate) unsafe fn mkdir_existing_ok(path: *const libc::c_char) -> libc::c_long {
    // SAFETY: NUL-terminated string (caller).
    let r = unsafe { libc::mkdir(path, 0o755) };
    if r < 0 && sys::errno() == libc::EEXIST {
        0
    } else {
        r as libc::c_long
    }
}

/// Builds the private root and enters it: private propagation, the skeleton bound onto itself,
/// every op, the skeleton remounted read-only, `pivot_root`, the host's tree detached.
/// Returns the failed stage (`STAGE_MOUNT_BASE + i` for `root.ops[i]`) and errno.
///
/// # Safety
/// Only in a single-threaded child in a fresh mount namespace (plain system calls on the
/// plan's NUL-terminated strings).
pub(crate) unsafe fn enter_root(root: &RootPlan<'_>) -> Result<(), (u32, i32)> {
    let null = std::ptr::null::<libc::c_char>();
    let step = |r: libc::c_long, stage: u32| {
        if r < 0 {
            Err((stage, sys::errno()))
        } else {
            Ok(())
        }
    };
    // SAFETY: plain system calls on NUL-terminated strings (caller).
    unsafe {
        libc::umask(0);
        let r = libc::mount(
            null,
            c"/".as_ptr(),
            null,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        );
        step(r as _, ST_PRIVATE)?;
        let sk = root.skeleton.as_ptr();
        let r = libc::mount(sk, sk, null, libc::MS_BIND, std::ptr::null());
        step(r as _, ST_BIND_ROOT)?;
        for (i, op) in root.ops.iter().enumerate() {
            step(do_op(op), STAGE_MOUNT_BASE + i as u32)?;
        }
        // Not `nodev`: the box's /dev nodes live in the skeleton (see `make_dev`).
        let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID;
        let mut st: libc::statvfs = std::mem::zeroed();
        // (glibc's statvfs is statfs and its flags: no allocation, no lock.)
        if root.keep_flags && libc::statvfs(sk, &mut st) == 0 {
            for (has, keep) in [
                (libc::ST_NODEV, libc::MS_NODEV),
                (libc::ST_NOEXEC, libc::MS_NOEXEC),
            ] {
                if st.f_flag & has != 0 {
                    flags |= keep;
                }
            }
        }
        step(
            libc::mount(null, sk, null, flags, std::ptr::null()) as _,
            ST_ROOT_RO,
        )?;
        step(libc::chdir(sk) as _, ST_PIVOT)?;
        let r = libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr());
        step(r, ST_PIVOT)?;
        step(
            libc::umount2(c".".as_ptr(), libc::MNT_DETACH) as _,
            ST_DETACH,
        )?;
        step(libc::chdir(c"/".as_ptr()) as _, ST_CHDIR)?;
        let h = root.hostname.as_bytes();
        libc::sethostname(h.as_ptr().cast(), h.len());
        libc::umask(0o022);
    }
    Ok(())
}

/// Starts the program (running [`program_main`]) and returns its pid, or -1 with errno set.
///
/// With a stack (`stack_top != 0`) this is posix_spawn-style, `clone(CLONE_VM | CLONE_VFORK)`:
/// the caller sleeps until the program has exec'd or died, so `exec` (which the program reads
/// in the caller's memory) has one user at a time. Without one it is a plain raw fork.
///
/// # Safety
/// Only in a single-threaded child (an init or a zygote); `stack_top` is 0 or the top of a
/// [`ChildStack`] nothing else uses.
pub(crate) unsafe fn spawn_program(exec: &Exec<'_>, stack_top: usize) -> libc::c_long {
    // SAFETY: see the function's contract; the glibc clone wrapper only issues the system call
    // and runs program_entry on the given stack (as posix_spawn does); it takes no lock.
    unsafe {
        if stack_top != 0 {
            return libc::clone(
                program_entry,
                stack_top as *mut libc::c_void,
                libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
                exec as *const Exec<'_> as *mut libc::c_void,
            ) as libc::c_long;
        }
        let pid = sys::raw_fork();
        if pid == 0 {
            program_main(exec);
        }
        pid
    }
}

/// Loads `filter` on the calling thread (`seccomp(SECCOMP_SET_MODE_FILTER)`); it needs
/// `no_new_privs` or `CAP_SYS_ADMIN`.
///
/// # Safety
/// A plain system call on `filter`, which must outlive it (the kernel copies it).
pub(crate) unsafe fn load_filter(filter: &[Insn]) -> libc::c_long {
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr() as *mut Insn,
    };
    // SAFETY: see the function's contract.
    unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            1, /* SECCOMP_SET_MODE_FILTER */
            0,
            &prog,
        )
    }
}

/// The init of an rlimit-only box: a subreaper that starts the program, reaps everything,
/// reports the program's wait status, and kills the box uid's processes. Cloned into fresh
/// namespaces ([`Plan::boxed`]), it is the pid namespace's init: it first enters the private
/// root and attaches the run's mounts, and kills every process of its namespace at the end.
///
/// # Safety
/// Must be called only in a freshly forked child, which it never returns from.
pub(crate) unsafe fn init_main(plan: &Plan<'_>) -> ! {
    let fd = plan.exec.status_fd;
    // SAFETY: plain system calls on prepared, NUL-terminated data; this process is a
    // single-threaded fork child that exits at the end of this function.
    unsafe {
        check(
            fd,
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) as _,
            MSG_SETUP_FAILED,
            ST_PRCTL,
        );
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        if let Some(boxed) = &plan.boxed {
            enter_box(fd, boxed);
            // The supervisor's kill on a limit (see `kill_namespace`).
            libc::signal(
                libc::SIGUSR1,
                kill_namespace as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
        libc::umask(0o022);
        check(
            fd,
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) as _,
            MSG_SETUP_FAILED,
            ST_PRCTL,
        );
        check(
            fd,
            libc::chdir(plan.cwd.as_ptr()) as _,
            MSG_SETUP_FAILED,
            ST_CHDIR,
        );
        let pid = spawn_program(&plan.exec, plan.stack_top);
        check(fd, pid, MSG_SETUP_FAILED, ST_FORK);
        for fd in plan.exec.stdio {
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
                report(fd, MSG_EXITED, 0, status);
                main_status = Some(status);
                kill_box(plan, main);
            } else if r < 0 {
                if sys::errno() == libc::EINTR {
                    continue;
                }
                break;
            } else if r == 0 {
                // Stragglers: kill again and wait a little.
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

/// An init in fresh namespaces: the private root, a fresh `/tmp`, the run's mounts; reports
/// the failed stage and exits on a failure.
///
/// # Safety
/// Only in the freshly cloned init, in its own mount namespace.
unsafe fn enter_box(fd: RawFd, boxed: &Boxed<'_>) {
    // SAFETY: plain system calls on the plan's NUL-terminated strings and live descriptors.
    unsafe {
        if boxed.netns >= 0 {
            check(
                fd,
                libc::setns(boxed.netns, libc::CLONE_NEWNET) as _,
                MSG_SETUP_FAILED,
                ST_NETNS,
            );
        }
        if let Err((stage, errno)) = enter_root(&boxed.root) {
            report(fd, MSG_SETUP_FAILED, stage, errno);
            libc::_exit(127);
        }
        check(
            fd,
            mount_tmpfs(c"/tmp".as_ptr(), boxed.tmp_options.as_ptr()),
            MSG_SETUP_FAILED,
            ST_TMP,
        );
        for (i, m) in boxed.mounts.iter().enumerate() {
            let r = match m {
                RunMount::Attach { tree, target } => {
                    sys::move_mount_to(std::os::fd::AsRawFd::as_raw_fd(tree), target.as_ptr())
                }
                RunMount::Mkdir { path } => mkdir_existing_ok(path.as_ptr()),
            };
            check(fd, r, MSG_SETUP_FAILED, STAGE_RUN_MOUNT_BASE + i as u32);
        }
        // Last: in the new user namespace the init has no capability over the others.
        if let Some(maps) = boxed.own_user_ns {
            check(
                fd,
                libc::unshare(libc::CLONE_NEWUSER) as _,
                MSG_SETUP_FAILED,
                ST_USERNS,
            );
            map_own_ids(fd, maps);
        }
    }
}

/// Maps the init's own uid and gid into its fresh user namespace (`maps`: the `uid_map` and
/// `gid_map` lines), as an unprivileged process may (one line, its own ids, `setgroups`
/// denied). Its program, not uid 0 there, has no capability in it. Dumpable meanwhile,
/// so that its `/proc/self` files are its own to write, then not again: the box's program never
/// sees the init (`hidepid=2` hides a process it may not ptrace).
///
/// # Safety
/// Only in the init, just after it entered its fresh user namespace.
unsafe fn map_own_ids(fd: RawFd, maps: [&std::ffi::CStr; 2]) {
    // SAFETY: plain system calls on literals.
    unsafe {
        check(
            fd,
            libc::prctl(libc::PR_SET_DUMPABLE, 1) as _,
            MSG_SETUP_FAILED,
            ST_PRCTL,
        );
        for (file, line) in [
            (c"/proc/self/setgroups", &b"deny"[..]),
            (c"/proc/self/uid_map", maps[0].to_bytes()),
            (c"/proc/self/gid_map", maps[1].to_bytes()),
        ] {
            let f = libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            check(fd, f as _, MSG_SETUP_FAILED, ST_USERNS);
            if !sys::write_all_raw(f, line) {
                fail(fd, MSG_SETUP_FAILED, ST_USERNS);
            }
            libc::close(f);
        }
        check(
            fd,
            libc::prctl(libc::PR_SET_DUMPABLE, 0) as _,
            MSG_SETUP_FAILED,
            ST_PRCTL,
        );
    }
}

/// An init in fresh namespaces, told by the supervisor (`SIGUSR1`, which a pid namespace's
/// init receives from outside only with a handler): kills every other process of its
/// namespace, then reaps them, so that their CPU time is in the init's rusage. Killing the init
/// itself would kill them too, but nobody would count what they used.
extern "C" fn kill_namespace(_: libc::c_int) {
    // SAFETY: kill is async-signal-safe; as pid 1 of the namespace, `kill(-1)` spares the init.
    unsafe { libc::kill(-1, libc::SIGKILL) };
}

/// rlimit-only: kills every process of the box uid (or the main process group without one);
/// in fresh namespaces, every process of the pid namespace but the init.
fn kill_box(plan: &Plan<'_>, main: libc::pid_t) {
    // SAFETY: plain system calls in a single-threaded fork child; the killer child only makes
    // the raw set-id system calls, capset, kill and _exit.
    unsafe {
        if plan.boxed.is_some() {
            // The init is pid 1 of the namespace: `kill(-1)` spares it alone.
            libc::kill(-1, libc::SIGKILL);
            return;
        }
        libc::kill(-main, libc::SIGKILL);
        if let Some((uid, gid)) = plan.exec.ids {
            let pid = sys::raw_fork();
            if pid == 0 {
                // (Capabilities dropped too: in a user namespace the uid change keeps them.)
                if sys::set_ids(uid, gid, false) == 0 && sys::drop_capabilities() == 0 {
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
unsafe fn program_main(exec: &Exec<'_>) -> ! {
    const X: u32 = MSG_EXEC_FAILED;
    let fd = exec.status_fd;
    // SAFETY: plain system calls on prepared data in a single-threaded fork child that execs or
    // exits at the end of this function.
    unsafe {
        for &cg in exec.cgroup_procs {
            if !sys::write_all_raw(cg, b"0") {
                fail(fd, X, ST_CGROUP);
            }
        }
        libc::setsid();
        let mut high = [0; 3];
        for (i, &s) in exec.stdio.iter().enumerate() {
            high[i] = libc::fcntl(s, libc::F_DUPFD_CLOEXEC, 10);
            check(fd, high[i] as _, X, ST_STDIO);
        }
        for (i, &h) in high.iter().enumerate() {
            check(fd, libc::dup2(h, i as i32) as _, X, ST_STDIO);
        }
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            4u32, /* CLOSE_RANGE_CLOEXEC */
        );
        for &sig in exec.reset_signals {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        for (res, lim) in exec.rlimits {
            check(fd, libc::setrlimit(*res, lim) as _, X, ST_RLIMIT);
        }
        if let Some((uid, gid)) = exec.ids {
            // Raw system calls: glibc's wrappers would wait for threads this child lacks.
            check(fd, sys::set_ids(uid, gid, true), X, ST_IDS);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        }
        check(
            fd,
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) as _,
            X,
            ST_NNP,
        );
        if let Some(filter) = exec.filter {
            check(fd, load_filter(filter), X, ST_SECCOMP);
        }
        libc::execve(exec.program, exec.argv, exec.envp);
        fail(fd, X, ST_EXEC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signal_is_each_settable_signal_once() {
        let want: Vec<libc::c_int> = (1..32)
            .filter(|&s| s != libc::SIGKILL && s != libc::SIGSTOP)
            .collect();
        assert_eq!(EVERY_SIGNAL.to_vec(), want);
    }

    #[test]
    fn status_records_decode_what_they_encode() {
        let recs = [
            StatusRecord {
                kind: MSG_EXEC_FAILED,
                stage: ST_EXEC,
                value: libc::ENOENT,
            },
            StatusRecord {
                kind: MSG_EXITED,
                stage: 0,
                value: -1,
            },
        ];
        let mut bytes: Vec<u8> = recs.iter().flat_map(StatusRecord::encode).collect();
        bytes.push(7); // a torn record is ignored
        assert_eq!(StatusRecord::decode_all(&bytes).collect::<Vec<_>>(), recs);
    }
}
