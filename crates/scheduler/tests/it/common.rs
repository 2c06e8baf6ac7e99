//! What the pipeline tests share: the test kit's judges (one per test binary, or one of a
//! test's own) and helpers.

pub use verdict_testkit::{judge, judge_with, repo_root, runtime};
