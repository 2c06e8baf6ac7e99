//! Integration tests of the judge pipeline: real submissions judged in the real sandbox.

// Tests say `skipped: <reason>` on stdout when the host cannot sandbox.
#![allow(clippy::print_stdout)]

mod batch;
mod cache;
mod common;
mod examples;
mod fidelity;
mod host_faults;
mod hostile_interactor;
mod instance;
mod interactive;
mod logs;
mod multipass;
mod remote;
mod special;
mod streaming;
mod test_dirs;
