//! verdict-queue's integration tests, against a real RabbitMQ node they start themselves (one
//! node shared by the tests of this binary; each test uses its own exchange and queue names).

// Tests say `skipped: <reason>` on stdout when RabbitMQ is not installed.
#![allow(clippy::print_stdout)]

mod common;
mod frontend;
mod lanes;
mod reconnect;
mod worker;
