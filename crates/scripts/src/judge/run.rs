//! Running a built program once, in a fresh box, on one test's input.

use super::compile::Build;
use super::files::{BoxFile, join_inside, link_tree, open_up_dirs, place_files};
use crate::ScriptError;
use crate::exec::cancel::CancelToken;
use crate::exec::outcome::RunOutcome;
use crate::exec::spec::{Limits, ProcessSpec, Stream, WarmScript};
use crate::language::heap_mb_for;
use std::path::{Path, PathBuf};
use verdict_sandbox::{Sandbox, SandboxSpec};

/// The limits of a test run, in the contract's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RunLimits {
    /// CPU time in milliseconds (`time_limit`).
    pub time_ms: u64,
    /// Wall time in milliseconds (design #1: 2 x time + 1 s, see [`RunLimits::new`]).
    pub wall_ms: u64,
    /// Memory in KB (`memory_limit`), if set.
    pub memory_kb: Option<u64>,
    /// Output in KB (`file_limit`), if set.
    pub output_kb: Option<u64>,
    /// Processes and threads (`proc_limit`), if set.
    pub processes: Option<u64>,
}

impl RunLimits {
    /// Limits with the wall clock of design #1: 2 x the CPU time + 1 s, so a program that
    /// sleeps or blocks is still stopped.
    pub fn new(
        time_ms: u64,
        memory_kb: Option<u64>,
        output_kb: Option<u64>,
        processes: Option<u64>,
    ) -> RunLimits {
        RunLimits {
            time_ms,
            wall_ms: time_ms.saturating_mul(2).saturating_add(1000),
            memory_kb,
            output_kb,
            processes,
        }
    }
}

/// One run of a built program.
#[derive(Debug, Clone)]
pub struct RunRequest<'a> {
    /// The program.
    pub build: &'a Build,
    /// Arguments appended to the profile's run command.
    pub args: &'a [String],
    /// A host file fed as standard input.
    pub stdin: Option<&'a Path>,
    /// Input files placed into the box.
    pub files: &'a [BoxFile],
    /// Empty directories made in the box (e.g. a comparator's `feedback/`).
    pub empty_dirs: &'a [&'a str],
    /// The limits.
    pub limits: RunLimits,
}

impl<'a> RunRequest<'a> {
    /// A run of `build` under `limits` with no arguments, no standard input and no files.
    pub fn new(build: &'a Build, limits: RunLimits) -> Self {
        RunRequest {
            build,
            args: &[],
            stdin: None,
            files: &[],
            empty_dirs: &[],
            limits,
        }
    }
}

/// A finished run: its outcome and where its outputs are.
#[derive(Debug)]
pub struct RunOutput {
    /// What happened and what it cost.
    pub outcome: RunOutcome,
    /// The box the program ran in (its written files are there).
    pub box_dir: PathBuf,
    /// The captured standard output.
    pub stdout: PathBuf,
    /// The captured standard error.
    pub stderr: PathBuf,
}

impl RunOutput {
    /// What the program produced, for its comparison.
    pub fn produced(&self) -> ProducedOutput<'_> {
        ProducedOutput {
            stdout: &self.stdout,
            box_dir: &self.box_dir,
        }
    }
}

/// What a test's comparison reads: the output compared with `testdata.out` and the directory
/// where the other expected files are looked for. A program's standard output and its box, or
/// a submitted answer file and the directory it was written to (`run_script: "answer"`).
#[derive(Debug, Clone, Copy)]
pub struct ProducedOutput<'a> {
    /// Compared with the expected `testdata.out`.
    pub stdout: &'a Path,
    /// Where the other expected files' counterparts are (by the same relative name).
    pub box_dir: &'a Path,
}

/// The command a run executes in its box: the profile's run command expanded for this build
/// and these limits, then the request's arguments.
pub fn command_line(request: &RunRequest<'_>) -> Vec<String> {
    let profile = &request.build.profile;
    let mut vars = request.build.vars.clone();
    vars.memory_mb = request.limits.memory_kb.map(|kb| kb / 1024);
    vars.heap_mb = heap_mb_for(request.limits.memory_kb, profile.default_heap_mb);
    let mut argv = vars.expand(profile.run_command(&vars));
    argv.extend(request.args.iter().cloned());
    argv
}

/// Runs the program in a fresh box under `run_dir` (created; the caller removes it).
pub fn run_program(
    sandbox: &Sandbox,
    cancel: &CancelToken,
    request: &RunRequest<'_>,
    run_dir: &Path,
) -> Result<RunOutput, ScriptError> {
    let (spec, paths) = prepare_box(request, run_dir)?;
    let running = crate::timing::phase("run.sandbox");
    let outcome = sandbox.run(&cancel.applied_to(SandboxSpec::from(spec)))?;
    running.end();
    Ok(paths.with(outcome.into()))
}

/// Where a prepared run's outputs will be.
#[derive(Debug, Clone)]
pub(crate) struct RunPaths {
    pub box_dir: PathBuf,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

impl RunPaths {
    /// The finished run.
    pub(crate) fn with(self, outcome: RunOutcome) -> RunOutput {
        RunOutput {
            outcome,
            box_dir: self.box_dir,
            stdout: self.stdout,
            stderr: self.stderr,
        }
    }
}

/// Makes the run's box under `run_dir` (the build linked in, the files placed) and its spec:
/// stdin from the request's file, stdout and stderr into `run_dir/stdout` and `run_dir/stderr`.
pub(crate) fn prepare_box(
    request: &RunRequest<'_>,
    run_dir: &Path,
) -> Result<(ProcessSpec, RunPaths), ScriptError> {
    let _placing = crate::timing::phase("run.box");
    let box_dir = run_dir.join("box");
    link_tree(&request.build.dir, &box_dir)?;
    place_files(&box_dir, request.files)?;
    for dir in request.empty_dirs {
        let path = join_inside(&box_dir, dir)?;
        std::fs::create_dir_all(&path).map_err(|e| ScriptError::io("create", &path, e))?;
    }
    open_up_dirs(&box_dir)?;
    let (stdout, stderr) = (run_dir.join("stdout"), run_dir.join("stderr"));
    let profile = &request.build.profile;
    let argv = command_line(request);
    let spec = ProcessSpec {
        program: PathBuf::from(&argv[0]),
        args: argv[1..].iter().map(Into::into).collect(),
        env: profile
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        box_dir: box_dir.clone(),
        stdin: request
            .stdin
            .map_or(Stream::Null, |p| Stream::File(p.to_owned())),
        stdout: Stream::File(stdout.clone()),
        stderr: Stream::File(stderr.clone()),
        limits: box_limits(&request.limits, profile.extra_processes),
        read_only_mounts: profile.mounts.iter().map(PathBuf::from).collect(),
        writable_mounts: Vec::new(),
    };
    Ok((
        spec,
        RunPaths {
            box_dir,
            stdout,
            stderr,
        },
    ))
}

/// The box's limits for a test run: CPU = time limit, wall per design #1, memory and output as given.
pub fn box_limits(limits: &RunLimits, extra_processes: u32) -> Limits {
    Limits {
        cpu_time_ms: Some(limits.time_ms),
        wall_time_ms: Some(limits.wall_ms),
        memory_kb: limits.memory_kb,
        output_bytes: limits.output_kb.map(|kb| kb.saturating_mul(1024)),
        processes: limits.processes.map(|p| {
            u32::try_from(p)
                .unwrap_or(u32::MAX)
                .saturating_add(extra_processes)
        }),
        open_files: Some(256),
        stack_kb: None,
    }
}

/// The script a warm interpreter runs a python program through (`run_python_warm`): it runs
/// the program's main file as `__main__`, with the program's `sys.argv` and its own directory
/// first on `sys.path`, and reports an uncaught exception as a cold interpreter does (its
/// traceback without this script's frame, exit code 1).
pub const PYTHON_WARM_RUNNER: &str = r#"import sys
def _verdict_run():
    import os
    main = sys.argv[1]
    del sys.argv[0]
    sys.path[0] = os.path.dirname(os.path.abspath(main))
    scope = {"__name__": "__main__", "__file__": main, "__builtins__": __builtins__,
             "__doc__": None, "__package__": None, "__spec__": None, "__loader__": None}
    try:
        with open(main, "rb") as f:
            code = compile(f.read(), main, "exec")
        exec(code, scope)
    except SystemExit:
        raise
    except BaseException as error:
        import traceback
        tb = error.__traceback__
        traceback.print_exception(type(error), error, tb.tb_next if tb else None)
        sys.exit(1)
_verdict_run()
"#;

/// Where [`PYTHON_WARM_RUNNER`] is placed in the box.
pub const PYTHON_WARM_RUNNER_PATH: &str = ".verdict/run.py";

/// The warm interpreter a python build's runs are served from: the profile's interpreter and
/// flags (those before `{main}` in its run command), running [`PYTHON_WARM_RUNNER`].
pub fn python_warm(build: &Build) -> Option<WarmScript> {
    let run = &build.profile.run;
    let main_at = run.iter().position(|a| a == "{main}")?;
    Some(WarmScript {
        flags: run.get(1..main_at)?.iter().map(Into::into).collect(),
        script_path: PYTHON_WARM_RUNNER_PATH.to_string(),
        script: PYTHON_WARM_RUNNER.to_string(),
        preload: Vec::new(),
    })
}
