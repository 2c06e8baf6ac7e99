//! Integration tests of verdict-oracle: real interpreters in real boxes.
//!
//! Tests that need the sandbox print `skipped: <reason>` when it cannot be set up, unless
//! `VERDICT_REQUIRE_SANDBOX=1`, under which they fail instead.

mod oracle;
