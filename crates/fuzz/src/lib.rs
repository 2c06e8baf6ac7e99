//! verdict-fuzz: every parser a user's bytes reach, fuzzed for a fixed budget.
//!
//! Two kinds of input feed each [`Target`]: **structured** values generated from the wire
//! type's JSON Schema ([`SchemaGenerator`], mostly valid so they reach validation, now and then
//! broken on purpose), and **mutations** of a corpus of real examples (the repository's
//! `examples/` and the report fixtures made by the real tools). Each input runs under
//! `catch_unwind` with [`TrackingAlloc`] measuring the largest single allocation: a panic, or
//! an allocation beyond [`alloc_bound`] of the input's size (a number in the input asking for
//! gigabytes), is a finding.
//!
//! The integration tests run every target for a short budget (`VERDICT_FUZZ_INPUTS`, default
//! 1500 per target) and keep each finding as a named regression test; the `verdict-fuzz`
//! binary runs longer (see docs/fuzzing.md).
//!
//! ```
//! use verdict_fuzz::{Budget, fuzz, target};
//! let stats = fuzz(target("data-path").unwrap(), Budget { inputs: 50, time: std::time::Duration::from_secs(5) }, 1);
//! assert_eq!(stats.inputs, 50);
//! ```

mod alloc;
mod engine;
mod generate;
mod mutate;
mod rng;
mod targets;

pub use alloc::{HARD_CAP, TrackingAlloc, largest, reset_largest};
pub use engine::{
    ALLOC_BASE, ALLOC_PER_BYTE, Budget, Finding, Stats, alloc_bound, check_one, fuzz, quiet_panics,
};
pub use generate::SchemaGenerator;
pub use mutate::mutate;
pub use rng::Rng;
pub use targets::{TARGETS, Target, repo_root, target};
