//! verdict-scripts: language profiles and the judge's compile/run/compare steps (the Task
//! Oracle is `verdict-oracle`, built on them). Every step runs user code through `verdict-sandbox`; this crate decides
//! what to run and what its outcome means, the scheduler decides when.

pub mod entry;
mod error;
pub mod exec;
pub mod generate;
pub mod interactive;
pub mod judge;
pub mod language;
pub mod multipass;
pub mod timing;
pub mod toolchain;

pub use entry::{MainClassRule, scala_main_object};
pub use error::ScriptError;
pub use exec::{
    BOX_PATH, CancelOnDrop, CancelToken, CompileRequest, ExecError, Executor, ExitKind,
    IsolationLevel, LimitHit, Limits, ProcessSpec, RunOutcome, Stream, WarmScript, read_box_file,
    run_once, run_python_warm, tool_build,
};
pub use generate::{Generated, generate, shell_join};
pub use judge::classify::{RunFailure, classify_run, signal_name, starved_by_host};
pub use judge::compile::{Build, CompileLimits, CompileOutcome, compile, source_vars};
pub use judge::disk::{DiskReserve, DiskRoom, check_room};
pub use judge::files::{
    BoxFile, Capture, TestFiles, cut_text, join_inside, log_text, read_capped, read_capture,
};
pub use judge::run::{
    ProducedOutput, RunLimits, RunOutput, RunRequest, box_limits, command_line, python_warm,
    run_program,
};
pub use language::{LanguageProfile, LanguageProfiles, TemplateVars};
pub use toolchain::{ToolchainStatus, missing_programs, not_installed_message, probe, probe_all};

pub mod compare;

pub mod special;
