//! The zygote itself, in the box: enters the box's namespaces and private root once, then
//! serves one order at a time (attach the mounts, start the program, kill and reap everything
//! when it ends, answer) and readies a fresh `/tmp` and IPC namespace for the next.
//!
//! It is a fork of a multithreaded process: it allocates nothing and only makes system calls
//! on data prepared before the fork or in the arena.

use super::wire::{MSG_READY, NO_NETNS, OP_ATTACH, Reply, WireOrder};
use super::{Boot, Net};
use crate::child::{self, Exec, StatusRecord};
use crate::sys;
use std::ffi::CStr;
use std::os::fd::RawFd;

/// The zygote's socket, once it has moved it.
const SOCK_FD: RawFd = 3;
/// `/proc/sys/kernel/ns_last_pid` of the zygote's pid namespace, once it has opened it.
const LAST_PID_FD: RawFd = 4;

/// Sends `reply` to the supervisor; false if it is gone.
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
pub(super) unsafe fn zygote_main(boot: &Boot<'_>, sock: RawFd, parent_end: RawFd) -> ! {
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
        if let Some(t) = &boot.template {
            // The template answers on SOCK_FD (kept open: dup2 leaves it inheritable) once
            // it is ready itself.
            libc::execve(t.program.as_ptr(), t.argv.as_ptr(), t.envp.as_ptr());
            send_reply(&Reply {
                kind: child::MSG_SETUP_FAILED,
                stage: child::ST_EXEC,
                errno: sys::errno(),
                ..Reply::default()
            });
            libc::_exit(1);
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
            let passed = &mut fds[..n];
            let reply = serve(
                &*(boot.arena.base() as *const WireOrder),
                passed,
                boot,
                pipe,
            );
            for &fd in passed.iter() {
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
unsafe fn serve(
    order: &WireOrder,
    passed: &mut [RawFd],
    boot: &Boot<'_>,
    pipe: [RawFd; 2],
) -> Reply {
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
            // The program has its stdio (the spawn returned once it exec'd or died): the
            // zygote's copies go now, so that a pipe the program closes is closed (the other
            // side sees end-of-file or EPIPE while the program still runs).
            for fd in passed.iter_mut().take(3) {
                libc::close(*fd);
                *fd = -1;
            }
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
        reply.ended_ns = sys::monotonic_ns();
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
