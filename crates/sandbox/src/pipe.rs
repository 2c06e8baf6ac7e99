//! Pipes as standard streams: what lets two boxes talk (a program and its interactor).
//!
//! A [`PipeEnd`] is one end of a pipe (or any descriptor) given to a run as its stdin, stdout or
//! stderr ([`crate::StdioSpec::Pipe`]). The run *takes* it: the supervisor hands it to the box's
//! zygote with the order (as it hands the stdio files it opened) and closes its own copy as soon
//! as the order is sent, so that the box's processes hold the only copies on that side. When
//! the program exits (and its zygote has reaped the box) the other side reads end-of-file or
//! gets `EPIPE`/`SIGPIPE`, exactly as between two processes of a shell pipeline. Nothing else
//! changes for the run: its limits, its measurements, and its zygote (which never allocates
//! between fork and exec: a descriptor is passed like any other).

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};

/// One end of a pipe for a run's standard stream; taken (once) by the run it is given to.
#[derive(Debug, Clone)]
pub struct PipeEnd(Arc<Mutex<Option<OwnedFd>>>);

impl PipeEnd {
    /// Wraps a descriptor (a pipe end, opened close-on-exec) for one run.
    pub fn new(fd: OwnedFd) -> PipeEnd {
        PipeEnd(Arc::new(Mutex::new(Some(fd))))
    }

    /// The descriptor, for the side that keeps it (`None`: a run took it already).
    pub fn into_fd(self) -> Option<OwnedFd> {
        self.take()
    }

    /// Takes the descriptor out (`None`: a run took it already).
    pub(crate) fn take(&self) -> Option<OwnedFd> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// The descriptor, still held here (`None`: a run took it).
    pub(crate) fn raw(&self) -> Option<std::os::fd::RawFd> {
        use std::os::fd::AsRawFd;
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|fd| fd.as_raw_fd())
    }

    /// Whether `self` and `other` are the same end (one descriptor for stdout and stderr).
    pub(crate) fn same(&self, other: &PipeEnd) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A new pipe, both ends close-on-exec: `(read end, write end)`.
pub fn pipe() -> std::io::Result<(PipeEnd, PipeEnd)> {
    let (r, w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    Ok((PipeEnd::new(r), PipeEnd::new(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_end_is_taken_once_and_clones_share_it() {
        let (r, w) = pipe().expect("pipe");
        let again = r.clone();
        assert!(r.same(&again) && !r.same(&w));
        assert!(again.take().is_some());
        assert!(r.take().is_none(), "a clone's take empties every clone");
    }
}
