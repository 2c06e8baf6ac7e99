//! What the lab tests share: the test kit's judge (one per test binary) and helpers.

pub use verdict_testkit::{judge, repo_root, runtime};
