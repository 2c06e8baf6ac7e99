//! An allocator that remembers the largest single request made on the current thread, so a
//! fuzz run can tell an allocation proportional to the input's size from one proportional to a
//! number written in it (`[100000000]` asking for gigabytes).
//!
//! The binary or test that fuzzes installs it: `#[global_allocator] static A: TrackingAlloc =
//! TrackingAlloc;`. Requests above [`HARD_CAP`] are refused (the process then aborts with
//! "memory allocation failed", which fails the run loudly instead of swapping the machine).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// No single request above this is ever granted while fuzzing (2 GiB).
pub const HARD_CAP: usize = 2 << 30;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, recording the largest request per thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct TrackingAlloc;

fn record(size: usize) {
    // `try_with`: during thread teardown the slot may be gone; then nothing is recorded.
    let _ = LARGEST.try_with(|largest| {
        if size > largest.get() {
            largest.set(size);
        }
    });
}

// SAFETY: every method forwards to `System` with the caller's layout unchanged; the only extra
// work is a const-initialised thread-local `Cell` update, which never allocates.
unsafe impl GlobalAlloc for TrackingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        if layout.size() > HARD_CAP {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        if layout.size() > HARD_CAP {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        if new_size > HARD_CAP {
            return std::ptr::null_mut();
        }
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Forgets the largest request seen on this thread (call before each input).
pub fn reset_largest() {
    LARGEST.with(|largest| largest.set(0));
}

/// The largest single request on this thread since [`reset_largest`] (0 when the tracking
/// allocator is not installed).
pub fn largest() -> usize {
    LARGEST.with(Cell::get)
}
