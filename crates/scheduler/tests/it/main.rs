//! Integration tests of the judge pipeline: real submissions judged in the real sandbox.

mod common;
mod examples;
mod lab;
mod special;
mod streaming;
