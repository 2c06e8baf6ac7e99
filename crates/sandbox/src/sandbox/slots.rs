//! Box slots: slot `i` runs as uid/gid `uid_base + i`, held by one run at a time in this process
//! (a flag) and across processes (`flock` on `<state_dir>/locks/uid-N`, opened on first use).

use crate::{SandboxConfig, SandboxError};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// The slots of one sandbox.
#[derive(Debug)]
pub(super) struct Slots {
    state: Mutex<Vec<SlotState>>,
    freed: Condvar,
    /// Where the lock files are (root only: without root every box runs as this process's
    /// uid).
    lock_dir: Option<PathBuf>,
    uid_base: u32,
}

#[derive(Debug, Default)]
struct SlotState {
    busy: bool,
    /// The slot's lock file, opened the first time the slot is tried.
    lock: Option<File>,
}

/// A slot held for one run; dropping it frees the slot.
pub(super) struct Slot<'a> {
    slots: &'a Slots,
    /// The slot's index (its uid is `uid_base + index`).
    pub index: usize,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut state = self.slots.lock();
        if let Some(lock) = &state[self.index].lock {
            // SAFETY: flock on a descriptor we own.
            unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_UN) };
        }
        state[self.index].busy = false;
        self.slots.freed.notify_one();
    }
}

/// Opens (making it) the lock file `p` in `dir`, making `dir` if it is missing.
fn open_lock(dir: &Path, p: &Path) -> Result<File, SandboxError> {
    let open = || {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(p)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| SandboxError::io("create dir", dir, e))?;
            open()
        }
        r => r,
    }
    .map_err(|e| SandboxError::io("open lock", p, e))
}

impl Slots {
    /// `config.max_boxes` slots; with `root`, each with its lock file (made when the slot is
    /// first tried, and the directory only when it is missing then).
    pub(super) fn new(config: &SandboxConfig, root: bool) -> Result<Slots, SandboxError> {
        let lock_dir = root.then(|| config.state_dir.join("locks"));
        Ok(Slots {
            state: Mutex::new(
                (0..config.max_boxes.max(1))
                    .map(|_| SlotState::default())
                    .collect(),
            ),
            freed: Condvar::new(),
            lock_dir,
            uid_base: config.uid_base,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<SlotState>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a slot free here and in every other process.
    pub(super) fn acquire(&self) -> Result<Slot<'_>, SandboxError> {
        let mut state = self.lock();
        loop {
            for (i, slot) in state.iter_mut().enumerate() {
                if slot.busy {
                    continue;
                }
                let free = match &self.lock_dir {
                    Some(dir) => {
                        let lock = match &mut slot.lock {
                            Some(f) => f,
                            empty => {
                                let p = dir.join(format!("uid-{}", self.uid_base + i as u32));
                                empty.insert(open_lock(dir, &p)?)
                            }
                        };
                        // SAFETY: flock on a descriptor we own.
                        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
                    }
                    None => true,
                };
                if free {
                    slot.busy = true;
                    return Ok(Slot {
                        slots: self,
                        index: i,
                    });
                }
            }
            // Every slot is in use here or by another process: wait a little.
            state = self
                .freed
                .wait_timeout(state, Duration::from_millis(5))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
