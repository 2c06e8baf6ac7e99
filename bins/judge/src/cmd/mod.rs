//! One module per subcommand.

pub mod batch;
pub mod config;
pub mod doctor;
pub mod eval;
pub mod lab;
pub mod languages;
pub mod oracle;
pub mod package;
pub mod progress;
pub mod run;
pub mod sandbox;
pub mod schema;
pub mod view;

/// Prints an error with its chain of causes on stderr.
#[allow(clippy::print_stderr)]
pub fn report_error(err: &anyhow::Error) {
    eprintln!("judge: error: {err:#}");
}
