//! Thin wrappers over the raw system calls the sandbox needs that libc does not wrap.
//!
//! Everything here is a plain system call: safe to call between fork and exec.

use std::os::fd::RawFd;

/// `struct clone_args` of clone3(2).
#[repr(C)]
#[derive(Debug, Default)]
pub(crate) struct CloneArgs {
    pub flags: u64,
    pub pidfd: u64,
    pub child_tid: u64,
    pub parent_tid: u64,
    pub exit_signal: u64,
    pub stack: u64,
    pub stack_size: u64,
    pub tls: u64,
    pub set_tid: u64,
    pub set_tid_size: u64,
    pub cgroup: u64,
}

/// `CLONE_PIDFD`: return a pidfd of the child.
pub(crate) const CLONE_PIDFD: u64 = 0x1000;

/// `struct mount_attr` of mount_setattr(2).
#[repr(C)]
#[derive(Debug, Default)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

pub(crate) const MOUNT_ATTR_RDONLY: u64 = 0x1;
pub(crate) const MOUNT_ATTR_NOSUID: u64 = 0x2;
pub(crate) const MOUNT_ATTR_NODEV: u64 = 0x4;
const AT_RECURSIVE: libc::c_uint = 0x8000;

pub(crate) const RESOLVE_NO_XDEV: u64 = 0x01;
pub(crate) const RESOLVE_NO_MAGICLINKS: u64 = 0x02;
pub(crate) const RESOLVE_NO_SYMLINKS: u64 = 0x04;
pub(crate) const RESOLVE_BENEATH: u64 = 0x08;

/// Reads the calling thread's errno.
pub(crate) fn errno() -> i32 {
    // SAFETY: __errno_location always returns a valid pointer to this thread's errno.
    unsafe { *libc::__errno_location() }
}

/// clone3(2) without a new stack: fork-like, returns 0 in the child.
///
/// # Safety
/// The child must only run async-signal-safe code (no allocation, no locks) until it execs or exits.
pub(crate) unsafe fn clone3(args: &mut CloneArgs) -> libc::c_long {
    // SAFETY: args points to a valid, initialised clone_args of the size passed; the caller upholds
    // the post-fork restrictions.
    unsafe {
        libc::syscall(
            libc::SYS_clone3,
            args as *mut CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    }
}

/// A raw fork (clone with SIGCHLD) that runs no atfork handlers (glibc's take malloc locks).
///
/// # Safety
/// Same restrictions as [`clone3`].
pub(crate) unsafe fn raw_fork() -> libc::c_long {
    // SAFETY: clone with only SIGCHLD and no stack behaves as fork; the caller upholds the
    // post-fork restrictions.
    unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::SIGCHLD as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        )
    }
}

/// mount_setattr(2) with `AT_RECURSIVE` on `path`; returns 0 or -1 with errno set.
///
/// # Safety
/// `path` must be a NUL-terminated string.
pub(crate) unsafe fn mount_setattr_recursive(path: *const libc::c_char, set: u64) -> libc::c_long {
    let attr = MountAttr {
        attr_set: set,
        ..MountAttr::default()
    };
    // SAFETY: path is NUL-terminated (caller), attr is a valid mount_attr of the size passed.
    unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path,
            AT_RECURSIVE,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    }
}

/// openat2(2); returns the fd or -1 with errno set.
///
/// # Safety
/// `path` must be a NUL-terminated string.
pub(crate) unsafe fn openat2(
    dirfd: RawFd,
    path: *const libc::c_char,
    flags: i32,
    mode: u32,
    resolve: u64,
) -> libc::c_long {
    // SAFETY: open_how is plain old data; all-zero is a valid value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.mode = u64::from(mode);
    how.resolve = resolve;
    // SAFETY: path is NUL-terminated (caller), how is a valid open_how of the size passed.
    unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dirfd,
            path,
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    }
}

/// Writes all of `buf` to `fd` (retrying on EINTR); async-signal-safe.
pub(crate) fn write_all_raw(fd: RawFd, buf: &[u8]) -> bool {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length describe the unwritten tail of a live slice.
        let n = unsafe { libc::write(fd, buf[done..].as_ptr().cast(), buf.len() - done) };
        if n < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return false;
        }
        done += n as usize;
    }
    true
}

/// Sets the real, effective and saved user and group ids and drops supplementary groups with
/// raw system calls, returning 0 or -1.
///
/// glibc's `setgroups`/`setresgid`/`setresuid` broadcast the change to every thread it knows of
/// (nptl's setxid protocol) and wait on a futex for their answers. A child made by a raw
/// `clone` of a multithreaded process still has the parent's thread list, whose threads do not
/// exist in the child: the wrappers would wait forever. The system calls change only the
/// calling thread, which is all there is.
///
/// # Safety
/// Plain system calls; safe to call between fork and exec.
pub(crate) unsafe fn set_ids(uid: u32, gid: u32, drop_groups: bool) -> libc::c_long {
    // SAFETY: system calls with plain integer arguments and a null list of zero groups.
    unsafe {
        if drop_groups
            && libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) != 0
        {
            return -1;
        }
        if libc::syscall(libc::SYS_setresgid, gid, gid, gid) != 0 {
            return -1;
        }
        libc::syscall(libc::SYS_setresuid, uid, uid, uid)
    }
}
