//! Where a process's time goes: named phase marks, recorded only when switched on
//! (`judge sandbox --timings`), so that a run's breakdown can be printed without a profiler.
//!
//! A mark records the end of a phase; a phase lasts from the previous mark (or from
//! [`enable`]) to its own. Off, [`mark`] is one relaxed atomic load.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
static MARKS: Mutex<Vec<(&'static str, u64)>> = Mutex::new(Vec::new());

/// One phase: its name, when it ended and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Phase {
    /// What the process did in it.
    pub name: &'static str,
    /// When it ended: `CLOCK_MONOTONIC` in nanoseconds (comparable across processes).
    pub end_ns: u64,
    /// How long it took, in nanoseconds.
    pub duration_ns: u64,
}

/// `CLOCK_MONOTONIC` now, in nanoseconds (the clock [`Phase::end_ns`] is read from).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the live timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn marks() -> std::sync::MutexGuard<'static, Vec<(&'static str, u64)>> {
    MARKS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts recording in this process: the first phase starts now (returned, as
/// [`monotonic_ns`]).
pub fn enable() -> u64 {
    let mut m = marks();
    let now = monotonic_ns();
    m.clear();
    m.push(("", now));
    ON.store(true, Ordering::Relaxed);
    now
}

/// Ends the phase `name` now (nothing when recording is off).
pub fn mark(name: &'static str) {
    if ON.load(Ordering::Relaxed) {
        let now = monotonic_ns();
        marks().push((name, now));
    }
}

/// The phases recorded so far, in order (empty when recording is off).
pub fn phases() -> Vec<Phase> {
    marks()
        .windows(2)
        .map(|w| Phase {
            name: w[1].0,
            end_ns: w[1].1,
            duration_ns: w[1].1.saturating_sub(w[0].1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_run_from_one_mark_to_the_next() {
        enable();
        mark("a");
        mark("b");
        let p = phases();
        // Other tests of this binary may mark too (recording is process-wide).
        let a = p.iter().position(|p| p.name == "a").expect("a");
        let b = p.iter().position(|p| p.name == "b").expect("b");
        assert!(a < b);
        assert!(p[a].end_ns <= p[b].end_ns && p[b].end_ns <= monotonic_ns());
        assert_eq!(p[b].end_ns - p[b - 1].end_ns, p[b].duration_ns);
    }
}
