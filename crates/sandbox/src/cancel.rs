//! Stopping runs from outside: a [`Cancel`] switch that kills, at once, every run given it
//! ([`crate::SandboxSpec::cancel`]), as on a limit but with none named.
//!
//! The switch is a pipe made on first use (so a switch that never guards a run costs no
//! descriptor) whose read end becomes readable when it is cancelled. A run's supervisor polls
//! it beside the box's end and its stop pipe: a run in progress is killed within one poll (a
//! few ms), and a run started after the cancel is killed as soon as it starts. Like every
//! other input of a run, it is passed in the run's spec: nothing reaches a run through the
//! thread it is started on.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::{Arc, Mutex};

/// A cancel switch for runs; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    cancelled: bool,
    /// `(read end, write end)`, made on first use.
    pipe: Option<(OwnedFd, OwnedFd)>,
}

impl Cancel {
    /// A switch not cancelled.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Cancels: every run under this switch, running or to come, is killed at once.
    pub fn cancel(&self) {
        let mut state = self.lock();
        if state.cancelled {
            return;
        }
        state.cancelled = true;
        if let Some((_, write)) = &state.pipe {
            wake(write);
        }
    }

    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.lock().cancelled
    }

    /// The descriptor a supervisor polls (readable once cancelled); `None` when the pipe cannot
    /// be made (no descriptor left): the run then ends at its own limits, as without a switch.
    pub(crate) fn fd(&self) -> Option<RawFd> {
        let mut state = self.lock();
        if state.pipe.is_none() {
            let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
                .inspect_err(|e| tracing::warn!("cannot make a run's cancel pipe: {e}"))
                .ok()?;
            if state.cancelled {
                wake(&write);
            }
            state.pipe = Some((read, write));
        }
        state.pipe.as_ref().map(|(read, _)| read.as_raw_fd())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Makes the read end readable (one byte in an empty pipe never blocks; never read).
fn wake(write: &OwnedFd) {
    let _ = nix::unistd::write(write, b"x");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readable(fd: RawFd) -> bool {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polling one live pollfd without waiting.
        unsafe { libc::poll(&mut pfd, 1, 0) == 1 }
    }

    #[test]
    fn a_switch_is_readable_once_cancelled_before_or_after_its_pipe_is_made() {
        let early = Cancel::new();
        let fd = early.fd().expect("pipe");
        assert!(!readable(fd));
        early.cancel();
        early.cancel();
        assert!(early.is_cancelled() && readable(fd));
        let late = Cancel::new();
        late.cancel();
        let fd = late.fd().expect("pipe");
        assert!(readable(fd), "made after the cancel: readable at once");
    }
}
