//! Box slots: slot `i` runs as uid/gid `uid_base + i`, held by one run at a time in this process
//! (a flag) and across processes (`flock` on `<state_dir>/locks/uid-N`).

use crate::{SandboxConfig, SandboxError};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// The slots of one sandbox.
#[derive(Debug)]
pub(super) struct Slots {
    busy: Mutex<Vec<bool>>,
    freed: Condvar,
    /// One lock file per slot (root only: without root every box runs as this process's uid).
    locks: Vec<File>,
}

/// A slot held for one run; dropping it frees the slot.
pub(super) struct Slot<'a> {
    slots: &'a Slots,
    /// The slot's index (its uid is `uid_base + index`).
    pub index: usize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Some(lock) = self.slots.locks.get(self.index) {
            // SAFETY: flock on a descriptor we own.
            unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_UN) };
        }
        let mut busy = self.slots.busy.lock().unwrap_or_else(|e| e.into_inner());
        busy[self.index] = false;
        self.slots.freed.notify_one();
    }
}

impl Slots {
    /// `config.max_boxes` slots; with `root`, each with its lock file.
    pub(super) fn new(config: &SandboxConfig, root: bool) -> Result<Slots, SandboxError> {
        let lock_dir = config.state_dir.join("locks");
        let mut locks = Vec::new();
        if root {
            std::fs::create_dir_all(&lock_dir)
                .map_err(|e| SandboxError::io("create dir", &lock_dir, e))?;
            for i in 0..config.max_boxes {
                let uid = config.uid_base + i;
                let p = lock_dir.join(format!("uid-{uid}"));
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&p)
                    .map_err(|e| SandboxError::io("open lock", &p, e))?;
                locks.push(f);
            }
        }
        Ok(Slots {
            busy: Mutex::new(vec![false; config.max_boxes.max(1) as usize]),
            freed: Condvar::new(),
            locks,
        })
    }

    /// Waits for a slot free here and in every other process.
    pub(super) fn acquire(&self) -> Slot<'_> {
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            for i in 0..busy.len() {
                if busy[i] {
                    continue;
                }
                let free = match self.locks.get(i) {
                    Some(f) => {
                        // SAFETY: flock on a descriptor we own.
                        let r =
                            unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
                        r == 0
                    }
                    None => true,
                };
                if free {
                    busy[i] = true;
                    return Slot {
                        slots: self,
                        index: i,
                    };
                }
            }
            // Every slot is in use here or by another process: wait a little.
            busy = self
                .freed
                .wait_timeout(busy, Duration::from_millis(5))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
