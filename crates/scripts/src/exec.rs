//! The executor: the one interface through which the judge's steps and the Task Oracle run a
//! command (go-judge's envexec: copy in, run, collect). The sandbox is the executor in
//! production; unit tests give task logic a fake that writes the outputs a real run would have
//! left. Callers above the scheduler hold a `&dyn Executor` (`Judge::executor`), never the
//! sandbox itself.

use crate::ScriptError;
use crate::interactive::{InteractiveOutput, InteractiveRequest, run_interactive};
use crate::judge::compile::{Build, CompileLimits, CompileOutcome, compile};
use crate::judge::disk::{DiskReserve, check_room};
use crate::judge::files::BoxFile;
use crate::judge::run::{RunOutput, RunRequest, run_program};
use crate::language::LanguageProfile;
use std::path::Path;
use std::sync::Arc;
use verdict_contracts::{Language, SourceCode};
use verdict_sandbox::{
    IsolationLevel, Sandbox, SandboxError, SandboxOutcome, SandboxSpec, WarmPython,
};

/// One compilation: a program's sources placed in `build_dir` and its profile's compile step.
#[derive(Debug, Clone)]
pub struct CompileRequest<'a> {
    /// The language.
    pub language: Language,
    /// How it is compiled and run.
    pub profile: Arc<LanguageProfile>,
    /// The program's sources (names, entry point, `compile_command`).
    pub source: &'a SourceCode,
    /// The files placed in the build directory (sources and assist files on the host).
    pub files: &'a [BoxFile],
    /// Where the build goes (created).
    pub build_dir: &'a Path,
    /// The compiler's limits.
    pub limits: &'a CompileLimits,
}

/// Runs the judge's commands: copies the files in, runs, collects the outcome and outputs.
pub trait Executor: Send + Sync + std::fmt::Debug {
    /// Runs a built program once in a fresh box under `run_dir` (created; the caller removes it).
    fn run(&self, request: &RunRequest<'_>, run_dir: &Path) -> Result<RunOutput, ScriptError>;
    /// Compiles (or syntax-checks) a program into its build directory.
    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompileOutcome, ScriptError>;
    /// Runs a program and its interactor side by side, wired crosswise
    /// ([`crate::interactive::run_interactive`]); an executor that cannot says so.
    fn run_interactive(
        &self,
        request: &InteractiveRequest<'_>,
        run_dir: &Path,
    ) -> Result<InteractiveOutput, ScriptError> {
        let _ = (request, run_dir);
        Err(ScriptError::Toolchain(
            "this executor cannot run interactive tests".into(),
        ))
    }

    /// Runs one command exactly as `spec` describes, in its box (the Task Oracle's cases, whose
    /// stdin, box files and captures it arranges itself); an executor that cannot says so.
    fn run_spec(&self, spec: &SandboxSpec) -> Result<SandboxOutcome, SandboxError> {
        Err(SandboxError::Setup {
            stage: format!("run {}", spec.program.display()),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this executor cannot run sandbox specs",
            ),
        })
    }

    /// Whether [`Executor::run_warm_python`] serves from warm interpreters (else it runs cold).
    fn has_warm_interpreters(&self) -> bool {
        false
    }

    /// Runs `spec` as `warm`'s python script in a warm interpreter of the slot, where there is
    /// one; by default as [`Executor::run_spec`] does.
    fn run_warm_python(
        &self,
        warm: &WarmPython,
        spec: &SandboxSpec,
    ) -> Result<SandboxOutcome, SandboxError> {
        let _ = warm;
        self.run_spec(spec)
    }

    /// A directory of the judge's own state, root's alone, where compiled helpers are kept
    /// across processes (the oracle's harness bytecode); `None`: keep them in memory only.
    fn state_dir(&self) -> Option<&Path> {
        None
    }

    /// Starts the boxes of `slots` run slots ahead of the first run (a run makes any still
    /// missing itself); by default nothing to do.
    fn warm(&self, slots: usize) -> Result<(), SandboxError> {
        let _ = slots;
        Ok(())
    }

    /// How isolated the runs are and what this host lacks for more (for a health check);
    /// `None` when the executor is not a sandbox.
    fn isolation(&self) -> Option<(IsolationLevel, &[String])> {
        None
    }

    /// Removes a run's box directory when its run is done (what the run's own uid left in it
    /// included, never following a link out of it).
    fn remove_box(&self, box_dir: &Path) {
        let _ = verdict_sandbox::remove_box_dir(box_dir);
    }

    /// Empties a finished run's box directory back to what a fresh one is, for the next run:
    /// `Ok(false)` when it cannot be (the caller removes it).
    fn reset_box(&self, box_dir: &Path) -> Result<bool, SandboxError> {
        verdict_sandbox::reset_box_dir(box_dir)
    }
}

/// The sandbox as the executor: each compile and run starts only with the work disk's reserve
/// free, and a failed compile or any run that ends with the disk short of it is the host's
/// failure, not the program's (see [`crate::judge::disk`]).
impl Executor for Sandbox {
    fn run(&self, request: &RunRequest<'_>, run_dir: &Path) -> Result<RunOutput, ScriptError> {
        let reserve = DiskReserve::default();
        check_room(run_dir, &reserve, "before the run")?;
        let output = run_program(self, request, run_dir)?;
        // Any run: a program that ignores a failed write can still exit 0 with a short output.
        check_room(run_dir, &reserve, "after the run")?;
        Ok(output)
    }

    fn run_interactive(
        &self,
        request: &InteractiveRequest<'_>,
        run_dir: &Path,
    ) -> Result<InteractiveOutput, ScriptError> {
        run_interactive(self, request, run_dir)
    }

    fn run_spec(&self, spec: &SandboxSpec) -> Result<SandboxOutcome, SandboxError> {
        Sandbox::run(self, spec)
    }

    fn has_warm_interpreters(&self) -> bool {
        Sandbox::has_warm_interpreters(self)
    }

    fn run_warm_python(
        &self,
        warm: &WarmPython,
        spec: &SandboxSpec,
    ) -> Result<SandboxOutcome, SandboxError> {
        Sandbox::run_warm(self, warm, spec)
    }

    fn state_dir(&self) -> Option<&Path> {
        Some(&Sandbox::config(self).state_dir)
    }

    fn warm(&self, slots: usize) -> Result<(), SandboxError> {
        Sandbox::warm(self, slots).map(drop)
    }

    fn isolation(&self) -> Option<(IsolationLevel, &[String])> {
        Some((Sandbox::isolation(self), Sandbox::lacks(self)))
    }

    fn compile(&self, request: &CompileRequest<'_>) -> Result<CompileOutcome, ScriptError> {
        let reserve = DiskReserve::default();
        check_room(request.build_dir, &reserve, "before the compile")?;
        let outcome = compile(
            self,
            request.language,
            request.profile.clone(),
            request.source,
            request.files,
            request.build_dir,
            request.limits,
        )?;
        if matches!(outcome, CompileOutcome::Failed { .. }) {
            check_room(request.build_dir, &reserve, "when the compile failed")?;
        }
        Ok(outcome)
    }
}

/// A build whose program is a tool rather than the submission (an analyser, a checker): its
/// files in `dir`, run with `profile`'s run command and these template values.
pub fn tool_build(
    dir: &Path,
    language: Language,
    profile: LanguageProfile,
    vars: crate::TemplateVars,
) -> Build {
    Build {
        dir: dir.to_owned(),
        language,
        profile: Arc::new(profile),
        vars,
    }
}

/// A fake executor for unit tests: each run leaves the stdout, stderr and box files it was given.
#[cfg(any(test, feature = "fake-executor"))]
pub mod fake {
    use super::*;
    use crate::judge::run::command_line;
    use std::sync::Mutex;
    use verdict_sandbox::{ExitKind, IsolationLevel, SandboxOutcome};

    /// What one faked run leaves behind.
    #[derive(Debug, Clone)]
    pub struct FakeRun {
        /// How it ended.
        pub outcome: SandboxOutcome,
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
                outcome: SandboxOutcome {
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
        fn run(&self, request: &RunRequest<'_>, run_dir: &Path) -> Result<RunOutput, ScriptError> {
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
            std::fs::create_dir_all(&box_dir)
                .map_err(|e| ScriptError::io("create", &box_dir, e))?;
            for (name, content) in &run.box_files {
                let path = crate::join_inside(&box_dir, name)?;
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)
                        .map_err(|e| ScriptError::io("create", parent, e))?;
                }
                std::fs::write(&path, content).map_err(|e| ScriptError::io("write", &path, e))?;
            }
            let (stdout, stderr) = (run_dir.join("stdout"), run_dir.join("stderr"));
            std::fs::write(&stdout, &run.stdout)
                .map_err(|e| ScriptError::io("write", &stdout, e))?;
            std::fs::write(&stderr, &run.stderr)
                .map_err(|e| ScriptError::io("write", &stderr, e))?;
            Ok(RunOutput {
                outcome: run.outcome,
                box_dir,
                stdout,
                stderr,
            })
        }

        fn compile(&self, request: &CompileRequest<'_>) -> Result<CompileOutcome, ScriptError> {
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
}
