//! Judge0 CE's API (v1.13.1, `judge0/judge0`): its submissions with their fields, defaults,
//! checks and messages (`app/models/submission.rb`), its statuses and its ids of languages,
//! the way its worker turns a run into a status (`app/jobs/isolate_job.rb`: signals to
//! Runtime Error kinds, `expected_output` compared line by line without trailing
//! whitespace), and its replies (`fields`, `base64_encoded` as Ruby's `encode64` writes it).
//! The server keeps the [`Record`]s and routes the calls (docs/compat.md).

pub mod languages;
mod outcome;
pub mod reply;
pub mod request;
pub mod statuses;
mod zip;

pub use languages::{Judge0Language, languages};
pub use outcome::{RunSummary, judge0_strip, program_request, summarize};
pub use reply::{
    DEFAULT_FIELDS, FIELDS, NOT_UTF8_MESSAGE, NotUtf8, encode64, parse_fields, render,
};
pub use request::{FieldErrors, parse_submission};
pub use statuses::Status;
pub use zip::extract as extract_zip;

use serde::{Deserialize, Serialize};

/// The Judge0 version this API answers as (`GET /about`): the `judge0` SDK picks its table
/// of language ids by it.
pub const VERSION: &str = "1.13.1";

/// A Judge0 server's configured defaults and most (its `judge0.conf` settings, named as
/// `GET /config_info` names them); what verdict cannot do is off and refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Judge0Limits {
    /// `cpu_time_limit`'s default, in seconds.
    pub cpu_time_limit: f64,
    /// `cpu_time_limit`'s most.
    pub max_cpu_time_limit: f64,
    /// `cpu_extra_time`'s default: CPU time past the limit before the run is killed (a run
    /// over the limit is still Time Limit Exceeded).
    pub cpu_extra_time: f64,
    /// `cpu_extra_time`'s most.
    pub max_cpu_extra_time: f64,
    /// `wall_time_limit`'s default, in seconds.
    pub wall_time_limit: f64,
    /// `wall_time_limit`'s most.
    pub max_wall_time_limit: f64,
    /// `memory_limit`'s default, in KB.
    pub memory_limit: u64,
    /// `memory_limit`'s most.
    pub max_memory_limit: u64,
    /// `stack_limit`'s default, in KB.
    pub stack_limit: u64,
    /// `stack_limit`'s most.
    pub max_stack_limit: u64,
    /// `max_processes_and_or_threads`'s default.
    pub max_processes_and_or_threads: u64,
    /// `max_processes_and_or_threads`'s most.
    pub max_max_processes_and_or_threads: u64,
    /// `max_file_size`'s default, in KB (each of stdout and stderr, and every file written).
    pub max_file_size: u64,
    /// `max_file_size`'s most.
    pub max_max_file_size: u64,
    /// `number_of_runs`'s default.
    pub number_of_runs: u64,
    /// `number_of_runs`'s most.
    pub max_number_of_runs: u64,
    /// Submissions in one batch at most.
    pub max_submission_batch_size: usize,
    /// Submissions waiting or running at once at most (`503 queue is full` beyond).
    pub max_queue_size: usize,
    /// Largest `additional_files` archive, extracted, in KB.
    pub max_extract_size: u64,
    /// `redirect_stderr_to_stdout`'s default.
    pub redirect_stderr_to_stdout: bool,
}

impl Default for Judge0Limits {
    fn default() -> Self {
        Judge0Limits {
            cpu_time_limit: 5.0,
            max_cpu_time_limit: 15.0,
            cpu_extra_time: 1.0,
            max_cpu_extra_time: 5.0,
            wall_time_limit: 10.0,
            max_wall_time_limit: 20.0,
            memory_limit: 128_000,
            max_memory_limit: 512_000,
            stack_limit: 64_000,
            max_stack_limit: 128_000,
            max_processes_and_or_threads: 60,
            max_max_processes_and_or_threads: 120,
            max_file_size: 1024,
            max_max_file_size: 4096,
            number_of_runs: 1,
            max_number_of_runs: 20,
            max_submission_batch_size: 20,
            max_queue_size: 100,
            max_extract_size: 10_240,
            redirect_stderr_to_stdout: false,
        }
    }
}

/// What a server lets its callers do beyond the limits (Judge0's `ENABLE_*` switches).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Judge0Switches {
    /// `DELETE /submissions/{token}` is allowed.
    pub enable_submission_delete: bool,
    /// `callback_url` is accepted (its deliveries follow the SSRF rules of remote assets).
    pub enable_callbacks: bool,
    /// How often a callback is tried.
    pub callbacks_max_tries: u32,
    /// One callback try's timeout, in seconds.
    pub callbacks_timeout: f64,
}

impl Judge0Limits {
    /// `GET /config_info`: Judge0's keys, with what verdict does not offer turned off
    /// (networking, per-process limits, maintenance).
    pub fn config_info(&self, switches: &Judge0Switches) -> serde_json::Value {
        serde_json::json!({
            "maintenance_mode": false,
            "enable_wait_result": true,
            "enable_compiler_options": true,
            "allowed_languages_for_compile_options": [],
            "enable_command_line_arguments": true,
            "enable_submission_delete": switches.enable_submission_delete,
            "enable_callbacks": switches.enable_callbacks,
            "callbacks_max_tries": switches.callbacks_max_tries,
            "callbacks_timeout": switches.callbacks_timeout,
            "enable_additional_files": true,
            "max_queue_size": self.max_queue_size,
            "cpu_time_limit": self.cpu_time_limit,
            "max_cpu_time_limit": self.max_cpu_time_limit,
            "cpu_extra_time": self.cpu_extra_time,
            "max_cpu_extra_time": self.max_cpu_extra_time,
            "wall_time_limit": self.wall_time_limit,
            "max_wall_time_limit": self.max_wall_time_limit,
            "memory_limit": self.memory_limit,
            "max_memory_limit": self.max_memory_limit,
            "stack_limit": self.stack_limit,
            "max_stack_limit": self.max_stack_limit,
            "max_processes_and_or_threads": self.max_processes_and_or_threads,
            "max_max_processes_and_or_threads": self.max_max_processes_and_or_threads,
            "enable_per_process_and_thread_time_limit": false,
            "allow_enable_per_process_and_thread_time_limit": false,
            "enable_per_process_and_thread_memory_limit": false,
            "allow_enable_per_process_and_thread_memory_limit": false,
            "max_file_size": self.max_file_size,
            "max_max_file_size": self.max_max_file_size,
            "number_of_runs": self.number_of_runs,
            "max_number_of_runs": self.max_number_of_runs,
            "redirect_stderr_to_stdout": self.redirect_stderr_to_stdout,
            "max_extract_size": self.max_extract_size,
            "enable_batched_submissions": true,
            "max_submission_batch_size": self.max_submission_batch_size,
            "submission_cache_duration": 0.0,
            "use_docs_as_homepage": false,
            "allow_enable_network": false,
            "enable_network": false,
        })
    }
}

/// One submission as kept: what was asked (with Judge0's defaults filled in) and, once it
/// ran, what came of it. Byte fields are stored as base64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Judge0's token (a random UUID).
    pub token: String,
    /// Judge0's language id.
    pub language_id: u16,
    /// The source.
    #[serde(with = "bytes64")]
    pub source_code: Option<Vec<u8>>,
    /// Standard input.
    #[serde(with = "bytes64")]
    pub stdin: Option<Vec<u8>>,
    /// What stdout should be (compared as Judge0 compares).
    #[serde(with = "bytes64")]
    pub expected_output: Option<Vec<u8>>,
    /// Compiler options.
    pub compiler_options: Option<String>,
    /// Arguments of the run.
    pub command_line_arguments: Option<String>,
    /// Runs of the program (times and memory averaged).
    pub number_of_runs: u64,
    /// CPU seconds.
    pub cpu_time_limit: f64,
    /// CPU seconds past the limit before the kill.
    pub cpu_extra_time: f64,
    /// Wall seconds.
    pub wall_time_limit: f64,
    /// KB.
    pub memory_limit: u64,
    /// KB.
    pub stack_limit: u64,
    /// Processes and threads.
    pub max_processes_and_or_threads: u64,
    /// Always `false` here.
    pub enable_per_process_and_thread_time_limit: bool,
    /// Always `false` here.
    pub enable_per_process_and_thread_memory_limit: bool,
    /// KB.
    pub max_file_size: u64,
    /// stderr appended to stdout.
    pub redirect_stderr_to_stdout: bool,
    /// Where the result is PUT when done.
    pub callback_url: Option<String>,
    /// A zip of files placed beside the program.
    #[serde(with = "bytes64")]
    pub additional_files: Option<Vec<u8>>,
    /// Always `false` here.
    pub enable_network: bool,
    /// The status id.
    pub status_id: u8,
    /// What its last run gave.
    #[serde(flatten)]
    pub result: RunResult,
    /// When it was accepted (ms since the epoch).
    pub created_at_ms: i64,
    /// When it was queued.
    pub queued_at_ms: Option<i64>,
    /// When a worker started it.
    pub started_at_ms: Option<i64>,
    /// When it finished.
    pub finished_at_ms: Option<i64>,
    /// When it last changed.
    pub updated_at_ms: i64,
    /// The host that queued it.
    pub queue_host: Option<String>,
    /// The host that ran it.
    pub execution_host: Option<String>,
}

/// What a run gave, as a Judge0 submission shows it (a [`Record`]'s and a [`RunSummary`]'s).
/// Byte fields are stored as base64.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunResult {
    /// The run's stdout (`null` when empty).
    #[serde(with = "bytes64")]
    pub stdout: Option<Vec<u8>>,
    /// The run's stderr (`null` when empty).
    #[serde(with = "bytes64")]
    pub stderr: Option<Vec<u8>>,
    /// The compiler's output (`null` when empty).
    #[serde(with = "bytes64")]
    pub compile_output: Option<Vec<u8>>,
    /// isolate's message (`Exited with error status 1`).
    pub message: Option<String>,
    /// Exit code (`0` when a signal or a limit ended the run, as isolate leaves it).
    pub exit_code: Option<i32>,
    /// The signal that ended the run.
    pub exit_signal: Option<i32>,
    /// CPU seconds used.
    pub time: Option<f64>,
    /// Wall seconds used.
    pub wall_time: Option<f64>,
    /// Peak memory, KB.
    pub memory: Option<u64>,
}

impl Record {
    /// Its status.
    pub fn status(&self) -> Status {
        Status::by_id(self.status_id).unwrap_or(statuses::INTERNAL_ERROR)
    }
}

/// Serde for optional bytes as standard base64 text.
mod bytes64 {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(bytes) => {
                s.serialize_some(&base64::engine::general_purpose::STANDARD.encode(bytes))
            }
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            base64::engine::general_purpose::STANDARD
                .decode(t)
                .map_err(serde::de::Error::custom)
        })
        .transpose()
    }
}
