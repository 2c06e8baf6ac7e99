//! Run cgroups made ahead of time and removed afterwards by a background thread.

use super::{Fresh, Hierarchy, Removal, run_name};
use std::fs::File;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// How many fresh run cgroups the pool keeps ready.
pub(crate) const READY: usize = 2;

/// How many finished runs' leftovers may wait for the thread.
const BACKLOG: usize = 8;

/// Fresh run cgroups made ahead of time, and used ones removed afterwards, by a background
/// thread: neither the `mkdir`s nor the `rmdir`s are on the run's critical path.
///
/// What the pool makes is the part of a run's cgroups that must be fresh ([`Fresh`]): every
/// run gets a memory cgroup (on v2 a whole cgroup) that no process ever joined before, so its
/// peak and OOM counter are the run's alone and no page cache or kernel object another run
/// left is charged to it; it is removed after the run. On v1 the `pids` and `cpuacct`
/// cgroups are a slot's, kept across its runs (made once, empty between runs, counters reset:
/// see [`super::v1::Counters`]); they come here for removal only after a run that did not
/// end cleanly.
#[derive(Debug)]
pub(crate) struct CgroupPool {
    shared: Arc<PoolShared>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct PoolShared {
    state: Mutex<PoolState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct PoolState {
    ready: Vec<Fresh>,
    /// Descriptors whose closing does work (a dead box's mount namespace) to close first.
    drops: Vec<File>,
    used: Vec<Removal>,
    stop: bool,
    /// Making a cgroup failed: runs make their own (and report the error).
    broken: bool,
}

impl PoolShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self, h: &Hierarchy, instance: &str) {
        let mut st = self.lock();
        loop {
            if !st.drops.is_empty() {
                let drops = std::mem::take(&mut st.drops);
                drop(st);
                drop(drops);
                st = self.lock();
                continue;
            }
            if let Some(cg) = st.used.pop() {
                drop(st);
                remove_logged(cg);
                st = self.lock();
                continue;
            }
            if st.stop {
                let ready = std::mem::take(&mut st.ready);
                drop(st);
                ready
                    .into_iter()
                    .map(Fresh::into_removal)
                    .for_each(remove_logged);
                return;
            }
            if st.ready.len() < READY && !st.broken {
                drop(st);
                let made = Fresh::create(h, &run_name(instance));
                st = self.lock();
                match made {
                    Ok(cg) => st.ready.push(cg),
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot make a run cgroup ahead of time");
                        st.broken = true;
                    }
                }
                continue;
            }
            st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn remove_logged(cg: Removal) {
    if let Err(e) = cg.remove() {
        tracing::warn!(error = %e, "cannot remove a run cgroup");
    }
}

impl CgroupPool {
    /// Starts the background thread, which names run cgroups after `instance`.
    pub(crate) fn start(h: Hierarchy, instance: String) -> CgroupPool {
        let shared = Arc::new(PoolShared::default());
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("verdict-cgroups".into())
            .spawn(move || s.work(&h, &instance))
            .ok();
        CgroupPool { shared, thread }
    }

    /// No thread: runs make their cgroups and [`CgroupPool::retire`] removes them on the spot
    /// (a one-shot sandbox, whose only run would leave the thread nothing to do ahead of time).
    pub(crate) fn inline() -> CgroupPool {
        CgroupPool {
            shared: Arc::default(),
            thread: None,
        }
    }

    /// A fresh cgroup (no limits yet) if one is ready; never blocks.
    pub(crate) fn take(&self) -> Option<Fresh> {
        self.thread.as_ref()?;
        let mut st = self.shared.lock();
        let cg = st.ready.pop();
        self.shared.wake.notify_one();
        cg
    }

    /// Hands over a finished run's leftovers: a descriptor to close (a mount namespace whose
    /// unmounting happens then), then its cgroup to remove (stragglers killed if it is busy).
    pub(crate) fn retire(&self, close: Option<File>, cg: Option<Removal>) {
        if self.thread.is_none() {
            drop(close);
            if let Some(cg) = cg {
                remove_logged(cg);
            }
            return;
        }
        let mut st = self.shared.lock();
        if st.drops.len() + st.used.len() >= BACKLOG {
            // The thread is behind (starved of CPU): do this run's share here rather than let
            // dead boxes' mounts and cgroups pile up.
            drop(st);
            drop(close);
            if let Some(cg) = cg {
                remove_logged(cg);
            }
            return;
        }
        st.drops.extend(close);
        st.used.extend(cg);
        drop(st);
        self.shared.wake.notify_one();
    }
}

impl Drop for CgroupPool {
    /// Removes every used and ready cgroup before returning.
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
