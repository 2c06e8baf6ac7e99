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

/// The exit code of a command that judged: 0 when all it judged `passed`, else 1 (bad usage
/// or unreadable input, 2, comes from an error instead).
pub fn judged_exit(passed: bool) -> std::process::ExitCode {
    if passed {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    }
}
