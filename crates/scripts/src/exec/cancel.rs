//! Stopping runs from outside: a [`CancelToken`] passed to every run of the seam (go-judge's
//! context). Cancelling kills every run given it at once, running or to come, as on a limit but
//! with none named.

use verdict_sandbox::SandboxSpec;

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

    /// `spec`, killed at once when this token is cancelled: how the adapter hands a call's
    /// token to every run it starts (`sandbox.rs`, `judge/`, `interactive/pair.rs`).
    pub(crate) fn applied_to(&self, spec: SandboxSpec) -> SandboxSpec {
        SandboxSpec {
            cancel: Some(self.0.clone()),
            ..spec
        }
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
