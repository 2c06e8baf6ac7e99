//! The zygote's wire protocol: a run's order as the supervisor lays it out in the shared
//! [`Arena`] (pointers valid at the same address in both), the descriptors passed with it, and
//! the [`Reply`] that comes back on the socket.

use crate::child::{self, MountOp, RunMount};
use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, RawFd};

/// Most mounts one run may ask for (the box, the spec's mounts and their mount points under
/// `/tmp`).
pub(crate) const MAX_MOUNTS: usize = 64;
/// Most rlimits one run sets.
const MAX_RLIMITS: usize = 12;
/// Size of each slot's arena: the order, argv and envp must fit (execve's own limit is lower
/// under the default 8 MiB stack).
const ARENA_LEN: usize = 16 << 20;
/// The zygote's first reply: its root is ready.
pub(crate) const MSG_READY: u32 = 4;

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

/// A mount op of the arena: attach a passed tree.
pub(super) const OP_ATTACH: u32 = 1;
/// A mount op of the arena: make a mount point.
const OP_MKDIR: u32 = 2;

/// A mount in the arena: `fd` indexes the descriptors passed with the order.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(super) struct WireMount {
    pub kind: u32,
    pub fd: u32,
    pub path: *const libc::c_char,
}

/// The order as it lies at the start of the arena. Every pointer points into the arena.
/// Passed descriptors: `[0, 3)` stdio, then `n_cgroup` `cgroup.procs`, then the trees, then
/// the network namespace (if any: `netns` is its index, else `NO_NETNS`).
#[repr(C)]
#[derive(Debug)]
pub(super) struct WireOrder {
    pub program: *const libc::c_char,
    pub argv: *const *const libc::c_char,
    pub envp: *const *const libc::c_char,
    pub ids: [u32; 2],
    pub has_ids: u32,
    pub n_cgroup: u32,
    pub n_rlimits: u32,
    pub rlimits: [(libc::__rlimit_resource_t, libc::rlimit); MAX_RLIMITS],
    pub n_mounts: u32,
    pub mounts: [WireMount; MAX_MOUNTS],
    pub netns: u32,
}

/// [`WireOrder::netns`] when the order brings no network namespace.
pub(super) const NO_NETNS: u32 = u32::MAX;

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
    /// `CLOCK_MONOTONIC` when the zygote saw the program end, in ns (0: not seen). Read before
    /// the zygote closes the run's descriptors, so it comes before anything another box
    /// sees of that end (a pipe closing).
    pub ended_ns: u64,
}

impl Reply {
    /// The reply as the bytes sent on the socket.
    pub(super) fn as_bytes(&self) -> &[u8] {
        // SAFETY: Reply is repr(C) plain old data without padding (4 x u32/i32, 4 x u64).
        unsafe {
            std::slice::from_raw_parts(
                (self as *const Reply).cast::<u8>(),
                std::mem::size_of::<Reply>(),
            )
        }
    }

    /// Adds a reaped process's times and peak memory.
    pub(super) fn add_rusage(&mut self, ru: &libc::rusage) {
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
    /// Where the arena starts, the same address in the supervisor and its zygotes.
    pub(super) fn base(&self) -> usize {
        self.base
    }

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
