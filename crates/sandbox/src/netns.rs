//! Network namespaces without making one on a run's path: a small pool of fresh, empty ones
//! made ahead of time by a background thread (a long-lived sandbox), or one pinned per uid
//! slot ([`pinned`], a one-shot sandbox).
//!
//! Creating a network namespace is the most expensive part of starting a box (about 1 ms here,
//! more under load). The filler thread `unshare(CLONE_NEWNET)`s itself repeatedly and keeps a
//! descriptor of each new namespace; a uid slot takes one on its first run (each is used by
//! exactly one slot, whose runs never overlap) and the slot's zygote `setns`es into it. When
//! the pool is empty the zygote is cloned with `CLONE_NEWNET` instead.

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// How many namespaces are kept ready.
const TARGET: usize = 4;

#[derive(Debug, Default)]
struct Shared {
    ready: Mutex<Vec<OwnedFd>>,
    wake: Condvar,
    stop: AtomicBool,
}

/// The pool; dropping it stops the filler thread.
#[derive(Debug)]
pub(crate) struct NetnsPool {
    shared: Arc<Shared>,
}

fn make_netns() -> std::io::Result<OwnedFd> {
    // SAFETY: unshare affects only this (dedicated) thread's network namespace.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the path is a NUL-terminated literal.
    let fd = unsafe {
        libc::open(
            c"/proc/thread-self/ns/net".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd was just opened and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl NetnsPool {
    /// Starts the filler thread; `None` if namespaces cannot be made from a thread here.
    pub(crate) fn start() -> Option<NetnsPool> {
        let shared = Arc::new(Shared::default());
        let (tx, rx) = std::sync::mpsc::channel();
        let s = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("verdict-netns".into())
            .spawn(move || {
                let first = make_netns();
                let ok = first.is_ok();
                if let Ok(fd) = first {
                    s.ready.lock().unwrap_or_else(|e| e.into_inner()).push(fd);
                }
                let _ = tx.send(ok);
                if !ok {
                    return;
                }
                let mut ready = s.ready.lock().unwrap_or_else(|e| e.into_inner());
                while !s.stop.load(Ordering::Relaxed) {
                    if ready.len() >= TARGET {
                        ready = s.wake.wait(ready).unwrap_or_else(|e| e.into_inner());
                        continue;
                    }
                    drop(ready);
                    let made = make_netns();
                    ready = s.ready.lock().unwrap_or_else(|e| e.into_inner());
                    match made {
                        Ok(fd) => ready.push(fd),
                        Err(e) => {
                            tracing::warn!(error = %e, "cannot make a network namespace; pool stops");
                            return;
                        }
                    }
                }
            })
            .ok()?;
        match rx.recv() {
            Ok(true) => Some(NetnsPool { shared }),
            _ => None,
        }
    }

    /// Takes a fresh namespace if one is ready (never blocks).
    pub(crate) fn take(&self) -> Option<OwnedFd> {
        let fd = self
            .shared
            .ready
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        self.shared.wake.notify_one();
        fd
    }
}

impl Drop for NetnsPool {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.wake.notify_one();
    }
}

/// `ioctl` request: the type (`CLONE_NEW*`) of a namespace file.
const NS_GET_NSTYPE: libc::c_ulong = 0xb703;

/// Whether `f` is a network namespace other than this thread's own (the host's).
fn is_other_netns(f: &File) -> bool {
    // SAFETY: an ioctl without arguments on a descriptor we own.
    let kind = unsafe { libc::ioctl(f.as_raw_fd(), NS_GET_NSTYPE as _) };
    if kind != libc::CLONE_NEWNET {
        return false;
    }
    let ours = std::fs::metadata("/proc/thread-self/ns/net");
    match (f.metadata(), ours) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) != (b.dev(), b.ino()),
        _ => false,
    }
}

/// The network namespace of the uid slot `uid` for one-shot sandboxes, pinned at
/// `<dir>/uid-<uid>` (a bind mount of its nsfs file, as `ip netns` pins them), made and pinned
/// on the slot's first one-shot run since boot. The caller holds the slot (its `flock`), so
/// one run at a time uses it, as a zygote's runs share its slot's namespace: every process of
/// a run is dead before the slot is free again, and an unprivileged box can neither configure
/// the namespace (its loopback stays down) nor leave a socket in it. Making a namespace (and
/// the kernel's tearing it down afterwards) is the largest cost a one-shot run would pay.
/// Where it cannot be pinned (a read-only state dir, no right to mount), a fresh one serves the
/// run alone, with a warning.
pub(crate) fn pinned(dir: &Path, uid: u32) -> std::io::Result<OwnedFd> {
    let path = dir.join(format!("uid-{uid}"));
    if let Ok(f) = File::open(&path)
        && is_other_netns(&f)
    {
        return Ok(f.into());
    }
    // A fresh one, pinned where the state dir allows it (a stale pin, from a mount namespace
    // that is gone, is mounted over); else it serves this run alone.
    let mount_point = std::fs::create_dir_all(dir)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
        })
        .and_then(|_| {
            std::ffi::CString::new(path.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))
        });
    let back = File::open("/proc/thread-self/ns/net")?;
    // SAFETY: unshare affects only this thread's network namespace; it is set back below
    // before this function returns.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let fresh = File::open("/proc/thread-self/ns/net");
    let pin = mount_point.and_then(|dst| {
        // SAFETY: NUL-terminated paths; a bind mount of this thread's namespace file.
        let r = unsafe {
            libc::mount(
                c"/proc/thread-self/ns/net".as_ptr(),
                dst.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            )
        };
        match r {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    });
    // SAFETY: back to the namespace this thread was in (a descriptor we own).
    if unsafe { libc::setns(back.as_raw_fd(), libc::CLONE_NEWNET) } < 0 {
        // This thread must not go on in another namespace than the process's.
        std::process::abort();
    }
    let fresh = fresh?;
    if let Err(e) = pin {
        tracing::warn!(path = %path.display(), error = %e, "cannot pin a network namespace; this run's serves it alone");
    }
    if !is_other_netns(&fresh) {
        return Err(std::io::Error::other(format!(
            "the namespace made for {} is not one of its own",
            path.display()
        )));
    }
    Ok(fresh.into())
}
