//! Stopping runs from outside: a [`CancelToken`] handed to the runs it guards (go-judge's
//! context). Cancelling kills every run under it at once, running or to come, as on a limit
//! but with none named.

/// A cancel switch for runs; clones share it.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(pub(super) verdict_sandbox::Cancel);

impl CancelToken {
    /// A token not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: every run under this token, running or to come, is killed at once.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Guards the runs this thread starts until the returned guard is dropped (the one that
    /// guarded them before, if any, is put back).
    pub fn guard(&self) -> CancelGuard {
        CancelGuard {
            _scope: self.0.enter(),
        }
    }

    /// The token guarding the runs this thread starts, to hand to a thread of its own.
    pub fn current() -> Option<CancelToken> {
        verdict_sandbox::Cancel::current().map(CancelToken)
    }
}

/// While alive, the runs its thread starts are under its token ([`CancelToken::guard`]).
#[derive(Debug)]
#[must_use = "the token guards runs only while the guard is alive"]
pub struct CancelGuard {
    _scope: verdict_sandbox::CancelScope,
}
