//! A fake executor for unit tests: each run leaves the stdout, stderr and box files it was
//! given, and the command lines it was asked to run are recorded.

use super::{CancelToken, CompileRequest, Executor, ExitKind, IsolationLevel, RunOutcome};
use crate::ScriptError;
use crate::judge::compile::{Build, CompileOutcome};
use crate::judge::run::{RunOutput, RunRequest, command_line};
use std::path::Path;
use std::sync::Mutex;

/// What one faked run leaves behind.
#[derive(Debug, Clone)]
pub struct FakeRun {
    /// How it ended.
    pub outcome: RunOutcome,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
    /// Files it wrote into its box (relative name, content).
    pub box_files: Vec<(String, Vec<u8>)>,
}

impl FakeRun {
    /// A run that exited with `code` after 5 ms, printing `stdout`.
    pub fn exited(code: i32, stdout: &str) -> FakeRun {
        FakeRun {
            outcome: RunOutcome {
                exit: ExitKind::Exited(code),
                cpu_time_ms: 5,
                wall_time_ms: 5,
                peak_memory_kb: 1024,
                output_bytes: stdout.len() as u64,
                limit_hit: None,
                isolation: IsolationLevel::RlimitOnly,
                cpu_wait_ms: None,
                rlimits_clamped: Vec::new(),
                ended: None,
                evidence: None,
            },
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            box_files: Vec::new(),
        }
    }
}

/// Replays scripted runs in order and records every command line it was asked to run.
#[derive(Debug, Default)]
pub struct FakeExecutor {
    runs: Mutex<Vec<FakeRun>>,
    /// The command lines run so far, in order.
    pub commands: Mutex<Vec<Vec<String>>>,
}

impl FakeExecutor {
    /// An executor that answers the next runs with `runs`, in order.
    pub fn new(mut runs: Vec<FakeRun>) -> FakeExecutor {
        runs.reverse();
        FakeExecutor {
            runs: Mutex::new(runs),
            commands: Mutex::default(),
        }
    }
}

impl Executor for FakeExecutor {
    fn run(
        &self,
        _cancel: &CancelToken,
        request: &RunRequest<'_>,
        run_dir: &Path,
    ) -> Result<RunOutput, ScriptError> {
        if let Ok(mut commands) = self.commands.lock() {
            commands.push(command_line(request));
        }
        let next = self.runs.lock().ok().and_then(|mut runs| runs.pop());
        let Some(run) = next else {
            return Err(ScriptError::Toolchain(
                "the fake executor ran out of runs".into(),
            ));
        };
        let box_dir = run_dir.join("box");
        std::fs::create_dir_all(&box_dir).map_err(|e| ScriptError::io("create", &box_dir, e))?;
        for (name, content) in &run.box_files {
            let path = crate::join_inside(&box_dir, name)?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| ScriptError::io("create", parent, e))?;
            }
            std::fs::write(&path, content).map_err(|e| ScriptError::io("write", &path, e))?;
        }
        let (stdout, stderr) = (run_dir.join("stdout"), run_dir.join("stderr"));
        std::fs::write(&stdout, &run.stdout).map_err(|e| ScriptError::io("write", &stdout, e))?;
        std::fs::write(&stderr, &run.stderr).map_err(|e| ScriptError::io("write", &stderr, e))?;
        Ok(RunOutput {
            outcome: run.outcome,
            box_dir,
            stdout,
            stderr,
        })
    }

    fn compile(
        &self,
        _cancel: &CancelToken,
        request: &CompileRequest<'_>,
    ) -> Result<CompileOutcome, ScriptError> {
        std::fs::create_dir_all(request.build_dir)
            .map_err(|e| ScriptError::io("create", request.build_dir, e))?;
        Ok(CompileOutcome::Built {
            build: Build {
                dir: request.build_dir.to_owned(),
                language: request.language,
                profile: request.profile.clone(),
                vars: crate::source_vars(request.source, &request.profile),
            },
            log: String::new(),
        })
    }
}
