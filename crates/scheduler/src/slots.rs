//! The judge's run slots (the bounded pool): a semaphore that also counts who holds a slot and
//! who waits for one, so that `/metrics` tells a task running in the sandbox from a task whose
//! dependencies are met but that waits for a slot.

use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::{AcquireError, Semaphore, SemaphorePermit};

/// How the run slots are used right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlotStats {
    /// How many slots there are (`parallelism`).
    pub slots: usize,
    /// Tasks (and batch candidates) holding a slot: at most `slots`.
    pub running: usize,
    /// Tasks ready to run (their dependencies met) waiting for a slot.
    pub waiting: usize,
}

/// A bounded pool of run slots that counts its holders and its waiters.
#[derive(Debug)]
pub struct Slots {
    semaphore: Semaphore,
    slots: usize,
    running: AtomicUsize,
    waiting: AtomicUsize,
}

/// A slot held: given back (and uncounted) when dropped.
#[derive(Debug)]
pub struct SlotPermit<'a> {
    _permit: SemaphorePermit<'a>,
    running: &'a AtomicUsize,
}

impl Drop for SlotPermit<'_> {
    fn drop(&mut self) {
        self.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts a waiter for as long as it waits (also when its future is dropped while waiting).
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Slots {
    /// `slots` slots (at least one).
    pub fn new(slots: usize) -> Self {
        let slots = slots.max(1);
        Slots {
            semaphore: Semaphore::new(slots),
            slots,
            running: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Waits for a slot: the task is counted as waiting until it gets one, then as running
    /// until the permit is dropped. Fails only if the pool was closed.
    pub async fn acquire(&self) -> Result<SlotPermit<'_>, AcquireError> {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let waiting = Waiting(&self.waiting);
        let permit = self.semaphore.acquire().await?;
        // "A task got its sandbox slot": counted running before it stops counting as waiting,
        // so a sample never misses it, and never above `slots` (the permit is held).
        self.running.fetch_add(1, Ordering::AcqRel);
        drop(waiting);
        Ok(SlotPermit {
            _permit: permit,
            running: &self.running,
        })
    }

    /// The slots, their holders and their waiters now.
    pub fn stats(&self) -> SlotStats {
        SlotStats {
            slots: self.slots,
            running: self.running.load(Ordering::Acquire).min(self.slots),
            waiting: self.waiting.load(Ordering::Acquire),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waiters_are_counted_apart_from_holders_and_holders_never_exceed_the_slots() {
        let slots = std::sync::Arc::new(Slots::new(2));
        let first = slots.acquire().await.expect("open");
        let second = slots.acquire().await.expect("open");
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move {
                let _permit = slots.acquire().await.expect("open");
            })
        };
        while slots.stats().waiting == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(
            slots.stats(),
            SlotStats {
                slots: 2,
                running: 2,
                waiting: 1
            }
        );
        drop(first);
        waiter.await.expect("the waiter ran");
        assert_eq!(
            slots.stats(),
            SlotStats {
                slots: 2,
                running: 1,
                waiting: 0
            }
        );
        drop(second);
        assert_eq!(slots.stats().running, 0);
    }

    #[tokio::test]
    async fn a_waiter_given_up_is_no_longer_counted() {
        let slots = std::sync::Arc::new(Slots::new(1));
        let _held = slots.acquire().await.expect("open");
        let waiter = {
            let slots = slots.clone();
            tokio::spawn(async move {
                let _permit = slots.acquire().await;
            })
        };
        while slots.stats().waiting == 0 {
            tokio::task::yield_now().await;
        }
        waiter.abort();
        assert!(waiter.await.is_err_and(|e| e.is_cancelled()));
        assert_eq!(slots.stats().waiting, 0);
        assert_eq!(slots.stats().running, 1);
    }
}
