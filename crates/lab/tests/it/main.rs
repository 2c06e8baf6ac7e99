//! Integration tests of the Agent Lab: real agents, a loopback HTTP agent, and the oracle and
//! programming runners in the real sandbox.

// Tests say `skipped: <reason>` on stdout when the host cannot sandbox.
#![allow(clippy::print_stdout)]

mod agents;
mod common;
mod http;
mod runners;
mod sandboxed;
mod scenarios;
mod tree;
