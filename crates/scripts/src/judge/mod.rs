//! The programming judge's steps: place files in a box, compile, run, classify.

pub mod classify;
pub mod compile;
pub mod disk;
pub mod files;
pub mod run;
