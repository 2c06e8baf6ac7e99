//! verdict-sandbox: runs one untrusted command isolated, limited and measured (being built).

mod outcome;
mod spec;

pub use outcome::{ExitKind, IsolationLevel, LimitHit, SandboxOutcome};
pub use spec::{SandboxLimits, SandboxSpec, StdioSpec};
