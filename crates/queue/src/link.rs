//! The state of the link to the broker, shared with `/v1/health`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the process is connected to the broker, and the last error if not.
#[derive(Debug, Default)]
pub struct Link {
    connected: AtomicBool,
    last_error: Mutex<Option<String>>,
}

/// A snapshot of [`Link`] for a health answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LinkStatus {
    /// Connected, with the exchanges and queues declared.
    pub connected: bool,
    /// Why the last connection attempt failed or the connection was lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl Link {
    /// Connected and ready.
    pub fn up(&self) {
        self.connected.store(true, Ordering::Release);
        *self.lock() = None;
    }

    /// Disconnected because of `error`.
    pub fn down(&self, error: &str) {
        self.connected.store(false, Ordering::Release);
        *self.lock() = Some(error.to_owned());
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.connected.load(Ordering::Acquire)
    }

    /// The state for `/v1/health`.
    pub fn status(&self) -> LinkStatus {
        LinkStatus {
            connected: self.is_up(),
            last_error: self.lock().clone(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.last_error.lock().unwrap_or_else(|p| p.into_inner())
    }
}
