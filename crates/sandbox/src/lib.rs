//! verdict-sandbox: runs one untrusted command isolated, limited and measured.
//!
//! TODO front page (being written).

pub mod bench;
mod boxfs;
mod cgroup;
mod child;
mod classify;
mod config;
mod error;
mod outcome;
mod sandbox;
mod seccomp;
mod spec;
mod sys;

pub use boxfs::{open_box_file, read_box_file, remove_box_dir};
pub use config::SandboxConfig;
pub use error::SandboxError;
pub use outcome::{ExitKind, IsolationLevel, LimitHit, SandboxOutcome};
pub use sandbox::{BOX_ENV_PATH, BOX_PATH, Sandbox};
pub use spec::{SandboxLimits, SandboxSpec, StdioSpec};
