//! Integration tests of the `judge` binary: real submissions through `judge run`.

mod common;
mod languages;
mod run;
