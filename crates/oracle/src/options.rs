//! How the oracle runs a suite: limits, defaults and the interpreters.

use std::path::PathBuf;
use std::time::Instant;
use verdict_contracts::Language;
use verdict_scripts::Limits;

/// Options of [`crate::run_suite`]; [`OracleOptions::default`] suits most embedders.
#[derive(Debug, Clone)]
pub struct OracleOptions {
    /// Per-case time limit in ms when the suite gives no `timeout_ms`.
    pub default_timeout_ms: u64,
    /// Limits of every sandboxed run besides time (memory, output, processes, open files, stack).
    pub limits: Limits,
    /// Time allowed for an interpreter to start and load the deliverable, in ms, on top of the cases' time.
    pub startup_ms: u64,
    /// Function deliverables: how many cases one interpreter runs before a fresh one takes over
    /// (`usize::MAX`: one interpreter per suite; `1`: one process per case).
    pub max_cases_per_interpreter: usize,
    /// Script and cli deliverables: how many cases run at once (default: the number of CPUs).
    pub parallelism: usize,
    /// At most this many bytes of stdout, stderr and each produced file are read back.
    pub max_capture_bytes: u64,
    /// At most this many produced files (besides the named ones) are reported for a script or cli case.
    pub max_produced_files: usize,
    /// Where the oracle makes its temporary directories (the system's temp dir when `None`).
    pub work_dir: Option<PathBuf>,
    /// The interpreters, by language.
    pub interpreters: Interpreters,
    /// Stop at the first case that does not pass (batches' binary rewards): the cases after it
    /// are not run and are reported as [`NOT_RUN`] errors. The judge decides, from outside
    /// the box: a function harness told to stop ends after its first timed-out case; a script
    /// or cli suite runs its cases one at a time.
    pub stop_at_first_failure: bool,
    /// Stop after the first case that timed out (a looping candidate costs one time limit,
    /// not one per case): the cases after it are [`NOT_RUN`] errors. Other failures do not
    /// stop (partial credit); `judge eval` and dataset batches set it.
    pub stop_after_timeout: bool,
    /// No case starts after this instant, and a function suite's interpreter is stopped at it;
    /// the cases left are reported as [`NOT_RUN`] errors.
    pub deadline: Option<Instant>,
}

/// The message of a case the oracle did not run (an earlier failure with
/// `stop_at_first_failure`, or the deadline).
pub const NOT_RUN: &str = "not run: the suite was stopped before this case";

impl Default for OracleOptions {
    fn default() -> Self {
        OracleOptions {
            default_timeout_ms: 5_000,
            limits: Limits {
                cpu_time_ms: None,
                wall_time_ms: None,
                memory_kb: Some(512 * 1024),
                output_bytes: Some(64 << 20),
                processes: Some(64),
                open_files: Some(256),
                stack_kb: None,
            },
            startup_ms: 10_000,
            max_cases_per_interpreter: usize::MAX,
            parallelism: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_capture_bytes: 1 << 20,
            max_produced_files: 32,
            work_dir: None,
            interpreters: Interpreters::default(),
            stop_at_first_failure: false,
            stop_after_timeout: false,
            deadline: None,
        }
    }
}

/// The command (program and leading arguments) that runs a file of each supported language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interpreters {
    /// `python3`: default `python3 -s -B`: the site module as people run Python (`exit()`,
    /// Debian's packages), no user site directory, no `.pyc` files left in the box.
    pub python3: Vec<String>,
    /// `js`: default `node`.
    pub js: Vec<String>,
    /// `bash`: default `bash`.
    pub bash: Vec<String>,
}

impl Default for Interpreters {
    fn default() -> Self {
        Interpreters {
            python3: vec!["python3".into(), "-s".into(), "-B".into()],
            js: vec!["node".into()],
            bash: vec!["bash".into()],
        }
    }
}

impl Interpreters {
    /// The command for `language`, if the oracle runs that language.
    pub fn command(&self, language: Language) -> Option<&[String]> {
        let cmd = match language {
            Language::Python3 => &self.python3,
            Language::Js => &self.js,
            Language::Bash => &self.bash,
            _ => return None,
        };
        (!cmd.is_empty()).then_some(cmd.as_slice())
    }
}
