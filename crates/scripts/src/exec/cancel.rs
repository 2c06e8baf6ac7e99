//! Stopping runs from outside: a [`CancelToken`] passed to every run of the seam (go-judge's
//! context). Cancelling kills every run given it at once, running or to come, as on a limit but
//! with none named.

/// A cancel switch for runs; clones share it.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(verdict_sandbox::Cancel);

impl CancelToken {
    /// A token not cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: every run given this token, running or to come, is killed at once.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// A guard that cancels this token when dropped (the caller of the runs went away); a
    /// no-op once they ended.
    pub fn cancel_on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }

    /// The sandbox's switch under it, for the specs of the runs a call starts: how the
    /// adapter hands a call's token to the sandbox (`sandbox.rs`).
    pub(crate) fn sandbox_cancel(&self) -> verdict_sandbox::Cancel {
        self.0.clone()
    }
}

/// Cancels its token when dropped ([`CancelToken::cancel_on_drop`]).
#[derive(Debug)]
#[must_use = "the token is cancelled when the guard is dropped"]
pub struct CancelOnDrop(CancelToken);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_on_drop_guard_cancels_its_token_when_the_caller_goes_away() {
        let token = CancelToken::new();
        let guard = token.cancel_on_drop();
        assert!(!token.is_cancelled());
        drop(guard);
        assert!(token.is_cancelled());
    }
}
