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
pub(crate) const MOUNT_ATTR_NOEXEC: u64 = 0x8;
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

/// `CLOCK_MONOTONIC` in nanoseconds (the clock `Instant` reads; safe after a fork: no
/// allocation).
pub(crate) fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the live timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec.max(0) as u64 * 1_000_000_000 + ts.tv_nsec.max(0) as u64
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

/// mount_setattr(2) with `AT_RECURSIVE` on `path` relative to `dirfd` (an empty path means
/// `dirfd` itself, e.g. a detached tree from [`open_tree_clone`]); returns 0 or -1 with errno.
///
/// # Safety
/// `path` must be a NUL-terminated string.
pub(crate) unsafe fn mount_setattr_recursive(
    dirfd: RawFd,
    path: *const libc::c_char,
    set: u64,
) -> libc::c_long {
    let attr = MountAttr {
        attr_set: set,
        ..MountAttr::default()
    };
    // SAFETY: path is NUL-terminated (caller), attr is a valid mount_attr of the size passed.
    unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dirfd,
            path,
            AT_RECURSIVE | libc::AT_EMPTY_PATH as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    }
}

/// open_tree(2) with `OPEN_TREE_CLONE | AT_RECURSIVE` of `dirfd` itself: a detached copy of
/// the mount tree at that directory (a recursive bind mount not attached anywhere yet), as a
/// close-on-exec descriptor that [`move_mount_to`] can attach in another mount namespace.
pub(crate) fn open_tree_clone(dirfd: RawFd) -> std::io::Result<std::os::fd::OwnedFd> {
    const OPEN_TREE_CLONE: libc::c_uint = 1;
    // SAFETY: an empty NUL-terminated path with AT_EMPTY_PATH names dirfd itself.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_open_tree,
            dirfd,
            c"".as_ptr(),
            OPEN_TREE_CLONE
                | libc::O_CLOEXEC as libc::c_uint
                | AT_RECURSIVE
                | libc::AT_EMPTY_PATH as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: open_tree returned a fresh descriptor owned by nobody else.
    Ok(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd as RawFd) })
}

/// move_mount(2) of the detached tree `tree` onto `to` (in the caller's mount namespace);
/// returns 0 or -1 with errno set.
///
/// # Safety
/// `to` must be a NUL-terminated string.
pub(crate) unsafe fn move_mount_to(tree: RawFd, to: *const libc::c_char) -> libc::c_long {
    const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
    // SAFETY: NUL-terminated paths (the empty literal and the caller's).
    unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            tree,
            c"".as_ptr(),
            libc::AT_FDCWD,
            to,
            MOVE_MOUNT_F_EMPTY_PATH,
        )
    }
}

/// pidfd_open(2); returns the descriptor or -1 with errno set.
pub(crate) fn pidfd_open(pid: libc::pid_t) -> libc::c_long {
    // SAFETY: a system call with integer arguments.
    unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) }
}

/// Room for the `SCM_RIGHTS` control message of [`send_fds`]/[`recv_fds`] (up to 96 fds).
pub(crate) const MAX_PASSED_FDS: usize = 96;
const CMSG_SPACE: usize = 16 + 4 * MAX_PASSED_FDS;

/// Sends `data` and `fds` (at most [`MAX_PASSED_FDS`]) as one message on a Unix socket;
/// returns the bytes sent or -1 with errno set. Never raises SIGPIPE.
pub(crate) fn send_fds(sock: RawFd, data: &[u8], fds: &[RawFd]) -> isize {
    if fds.len() > MAX_PASSED_FDS {
        // SAFETY: errno is this thread's.
        unsafe { *libc::__errno_location() = libc::EINVAL };
        return -1;
    }
    let mut control = [0u64; CMSG_SPACE / 8];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: msghdr is plain old data; all-zero is valid.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        let bytes = std::mem::size_of_val(fds) as u32;
        msg.msg_control = control.as_mut_ptr().cast();
        // SAFETY: CMSG_SPACE/CMSG_LEN are pure arithmetic.
        msg.msg_controllen = unsafe { libc::CMSG_SPACE(bytes) } as usize;
        // SAFETY: the control buffer is large enough (checked length above) and aligned for
        // cmsghdr; CMSG_FIRSTHDR/CMSG_DATA point inside it.
        unsafe {
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(bytes) as usize;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(c).cast(), fds.len());
        }
    }
    // SAFETY: msg describes live buffers.
    unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) }
}

/// Receives one message into `data` and its passed descriptors into `fds` (made
/// close-on-exec); returns (bytes, descriptors) or `Err(errno)`. Allocates nothing.
pub(crate) fn recv_fds(
    sock: RawFd,
    data: &mut [u8],
    fds: &mut [RawFd; MAX_PASSED_FDS],
) -> Result<(usize, usize), i32> {
    let mut control = [0u64; CMSG_SPACE / 8];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr().cast(),
        iov_len: data.len(),
    };
    // SAFETY: msghdr is plain old data; all-zero is valid.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = CMSG_SPACE;
    // SAFETY: msg describes live buffers.
    let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
    if n < 0 {
        return Err(errno());
    }
    let mut count = 0;
    // SAFETY: the kernel filled the control buffer; CMSG_* walk it within msg_controllen.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let data_len = (*c).cmsg_len - libc::CMSG_LEN(0) as usize;
                let k = (data_len / 4).min(MAX_PASSED_FDS - count);
                let src = libc::CMSG_DATA(c) as *const RawFd;
                for i in 0..k {
                    fds[count + i] = std::ptr::read_unaligned(src.add(i));
                }
                count += k;
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok((n as usize, count))
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

/// Clears every capability of the calling thread (effective, permitted, inheritable): after
/// [`set_ids`] in a user namespace whose 0 is not this process's uid, the kernel keeps them
/// (it clears them only on leaving uid 0), so a helper that signals as a box uid must drop
/// them itself (`crate::rootless`).
///
/// # Safety
/// A plain system call on local data.
pub(crate) unsafe fn drop_capabilities() -> libc::c_long {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    let header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let data = [
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
    ];
    // SAFETY: capset reads a header and two data records that live for the call.
    unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) }
}
