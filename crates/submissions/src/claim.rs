//! Accepting under a deadline ([`AcceptClaim`]): an accept whose commit to disk outlives its
//! caller's deadline (a stalled or frozen data disk) is answered "not accepted", and the commit
//! that ends later is taken back, so the answer and the outcome agree (issue 29.10).

use std::sync::atomic::Ordering;

/// Who decides an accept whose commit outlived its caller's deadline: the accepting task once
/// the commit is done ([`AcceptClaim::commit`]), or the caller at its deadline
/// ([`AcceptClaim::abandon`]); whichever comes first wins, so the answer and the outcome agree.
#[derive(Debug)]
pub struct AcceptClaim {
    state: std::sync::atomic::AtomicU8,
    started: std::time::Instant,
}

impl Default for AcceptClaim {
    fn default() -> Self {
        AcceptClaim {
            state: std::sync::atomic::AtomicU8::new(Self::PENDING),
            started: std::time::Instant::now(),
        }
    }
}

impl AcceptClaim {
    const PENDING: u8 = 0;
    const COMMITTED: u8 = 1;
    const ABANDONED: u8 = 2;

    /// The commit is done: whether the accept stands (the caller had not given up).
    pub fn commit(&self) -> bool {
        self.state
            .compare_exchange(
                Self::PENDING,
                Self::COMMITTED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// The caller's deadline passed: whether it gave up (the commit was not done yet).
    pub fn abandon(&self) -> bool {
        self.state
            .compare_exchange(
                Self::PENDING,
                Self::ABANDONED,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// How long the accept has waited, in ms.
    pub fn waited_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
