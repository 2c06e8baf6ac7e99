//! Integration tests of the `judge` binary: real submissions through `judge run`.

mod batch;
mod common;
mod doctor;
mod eval;
mod eval_kill;
mod lab;
mod lab_stop;
mod languages;
mod linking;
mod oracle;
mod package;
mod readme;
mod rootless;
mod run;
mod sandbox;
mod view;
