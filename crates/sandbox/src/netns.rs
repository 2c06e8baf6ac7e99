//! A small pool of fresh, empty network namespaces made ahead of time by a background thread.
//!
//! Creating a network namespace is the most expensive part of starting a box (about 1 ms here,
//! more under load). The filler thread `unshare(CLONE_NEWNET)`s itself repeatedly and keeps a
//! descriptor of each new namespace; a uid slot takes one on its first run (each is used by
//! exactly one slot, whose runs never overlap) and the slot's zygote `setns`es into it. When
//! the pool is empty the zygote is cloned with `CLONE_NEWNET` instead.

use std::os::fd::{FromRawFd, OwnedFd};
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
