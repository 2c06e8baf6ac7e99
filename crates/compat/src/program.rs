//! One program run as other sandboxes run one: its sources compiled (once for identical
//! sources, across calls), then run once in a fresh box with stdin, files in and files out.
//! Every run goes through the judge's executor. A compile holds one of the judge's run slots (a
//! core: compiles have wall-clock timeouts and share the machine with submissions and batches);
//! a run holds one of the runner's own permits, more than the cores: the APIs served here time
//! their runs by the wall clock, so a looping program is stopped at its timeout whatever it
//! shares, and it must not hold a core's only place in line meanwhile (docs/compat.md).

use crate::CompatError;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use verdict_contracts::{Asset, JudgeStatus, Language, SourceCode};
use verdict_scheduler::Judge;
use verdict_scripts::{
    BoxFile, Build, CancelToken, CompileLimits, CompileOutcome, CompileRequest, ExitKind,
    RunLimits, RunRequest, classify_run, read_capture,
};

/// One program to compile and run.
#[derive(Debug, Clone)]
pub struct ProgramRequest {
    /// Who asks (an operator's category): builds are cached per owner.
    pub owner: String,
    /// The language.
    pub language: Language,
    /// The source files; the first is the main file.
    pub sources: Vec<(String, Vec<u8>)>,
    /// Files placed in the run's box before it starts (relative paths).
    pub files: Vec<(String, Vec<u8>)>,
    /// Standard input.
    pub stdin: Vec<u8>,
    /// Arguments after the language's run command.
    pub args: Vec<String>,
    /// The compiler's limits.
    pub compile: CompileLimits,
    /// The run's limits.
    pub run: RunLimits,
    /// Box files read back after the run (relative paths).
    pub fetch: Vec<String>,
    /// Whether an interpreted language's syntax check runs as its compile step (Jobe's way:
    /// a Python syntax error is its compile error); SandboxFusion, Piston and Judge0 run the
    /// source directly (the error is the run's).
    pub check_syntax: bool,
    /// Compiler arguments after the profile's own (`{extra}`); when there are any, the
    /// profile's `-w` and `-O2` are dropped: the request's arguments decide warnings and
    /// optimisation, so `-Wall -Werror` mean what they say (Jobe's `compileargs`).
    pub compile_args: Vec<String>,
    /// Arguments between an interpreter and the main file in the run command (Jobe's
    /// `interpreterargs`); nothing for a compiled program's binary.
    pub interpreter_args: Vec<String>,
    /// Files beside the sources at compile time, not compiled themselves (headers, a Java
    /// class the main one uses); the build carries them into every run's box.
    pub compile_files: Vec<(String, Vec<u8>)>,
}

/// How a compile or a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepEnd {
    /// It exited (with any code) within its limits.
    Exited,
    /// Out of CPU or wall time.
    TimeLimit,
    /// Out of memory.
    MemoryLimit,
    /// Wrote more than its output limit.
    OutputLimit,
    /// Killed by a signal (not a limit).
    Signaled,
    /// Stopped for starting too many processes, or by the seccomp filter.
    Forbidden,
}

/// What one compile or run gave.
#[derive(Debug, Clone)]
pub struct StepOutcome {
    /// How it ended.
    pub end: StepEnd,
    /// The judge's status for it (`Accepted` when it exited 0 within its limits).
    pub status: JudgeStatus,
    /// Why, when it did not end well.
    pub reason: Option<String>,
    /// Its exit code, or `128 + signal` when a signal ended it.
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// CPU time in ms.
    pub cpu_time_ms: u64,
    /// Wall time in ms.
    pub wall_time_ms: u64,
    /// Peak memory in KiB.
    pub memory_kb: u64,
    /// Standard output (the compiler's messages for a compile).
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

/// A program's compile (absent for a language with no compile step) and run (absent when the
/// compile failed), and the files fetched after the run.
#[derive(Debug, Clone)]
pub struct ProgramOutcome {
    /// The compile step, when the language has one.
    pub compile: Option<StepOutcome>,
    /// The run, when the program was built.
    pub run: Option<StepOutcome>,
    /// The fetched files that existed after the run, by requested path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Whether the build came from an earlier identical call.
    pub build_reused: bool,
}

/// Runs programs with a judge, compiling identical sources once.
#[derive(Debug, Clone)]
pub struct ProgramRunner {
    judge: Judge,
    root: PathBuf,
    builds: Arc<Mutex<BuildCache>>,
    slot_wait: Duration,
    runs: Arc<tokio::sync::Semaphore>,
}

/// What a compile gave, shared by every call with the same sources.
#[derive(Debug)]
enum Compiled {
    Built {
        build: Box<Build>,
        compile: Option<StepOutcome>,
        _dir: BuildDir,
    },
    Failed(StepOutcome),
}

/// A build directory, removed when the last call using it is done.
#[derive(Debug)]
struct BuildDir {
    judge: Judge,
    path: PathBuf,
}

impl Drop for BuildDir {
    fn drop(&mut self) {
        self.judge.executor().remove_box(&self.path);
    }
}

/// Why a build is missing: the judge is stopping, or the host failed it.
#[derive(Debug, Clone)]
enum BuildFailure {
    ShuttingDown,
    Host(String),
}

/// A build in the making or made: the first call makes it, identical calls wait for it without
/// holding a slot; a call cancelled while making it leaves it for the next.
type Slot = Arc<tokio::sync::OnceCell<Result<Arc<Compiled>, BuildFailure>>>;

/// Builds by content address, the least recently used dropped beyond a capacity.
#[derive(Debug)]
struct BuildCache {
    capacity: usize,
    slots: HashMap<String, Slot>,
    order: VecDeque<String>,
}

impl BuildCache {
    fn slot(&mut self, key: &str) -> (Slot, bool) {
        if let Some(slot) = self.slots.get(key).cloned() {
            self.order.retain(|k| k != key);
            self.order.push_back(key.to_string());
            return (slot, true);
        }
        let slot: Slot = Arc::new(tokio::sync::OnceCell::new());
        self.slots.insert(key.to_string(), slot.clone());
        self.order.push_back(key.to_string());
        while self.slots.len() > self.capacity {
            match self.order.pop_front() {
                Some(old) => {
                    self.slots.remove(&old);
                }
                None => break,
            }
        }
        (slot, false)
    }

    fn forget(&mut self, key: &str) {
        self.slots.remove(key);
        self.order.retain(|k| k != key);
    }
}

/// How many builds a runner keeps by default.
pub const DEFAULT_BUILDS_KEPT: usize = 256;

/// How many runs share one of the judge's slots by default ([`ProgramRunner::new`]).
pub const DEFAULT_RUNS_PER_SLOT: usize = 4;

/// The most runs at once by default, whatever the judge's parallelism (the sandbox has 64
/// boxes, shared with submissions and batches).
const MOST_RUNS: usize = 32;

impl ProgramRunner {
    /// A runner over `judge` keeping at most `builds` builds (under the judge's work root) and
    /// waiting at most `slot_wait` for a run slot before answering [`CompatError::Busy`].
    ///
    /// Runs (not compiles) go [`DEFAULT_RUNS_PER_SLOT`] to a judge slot, at most 32 at once
    /// ([`ProgramRunner::with_parallel_runs`] to choose).
    pub fn new(judge: Judge, builds: usize, slot_wait: Duration) -> Self {
        let root = judge.work_root().join("compat-builds");
        let runs = (judge.config().parallelism.max(1) * DEFAULT_RUNS_PER_SLOT).min(MOST_RUNS);
        ProgramRunner {
            judge,
            root,
            builds: Arc::new(Mutex::new(BuildCache {
                capacity: builds.max(1),
                slots: HashMap::new(),
                order: VecDeque::new(),
            })),
            slot_wait,
            runs: Arc::new(tokio::sync::Semaphore::new(runs)),
        }
    }

    /// The same runner with at most `runs` programs running at once (at least 1).
    pub fn with_parallel_runs(mut self, runs: usize) -> Self {
        self.runs = Arc::new(tokio::sync::Semaphore::new(runs.max(1)));
        self
    }

    /// The judge underneath.
    pub fn judge(&self) -> &Judge {
        &self.judge
    }

    /// Whether the judge has a toolchain for `language` on this host.
    pub fn can_run(&self, language: Language) -> bool {
        self.judge
            .profiles()
            .get(language)
            .is_some_and(|p| verdict_scripts::missing_programs(p).is_empty())
    }

    /// Compiles (or reuses the build of identical sources) and runs one program. `Err` only
    /// when the judge could not do its job (busy, host failure, no toolchain); whatever the
    /// program did is an `Ok` outcome.
    pub async fn run(&self, request: ProgramRequest) -> Result<ProgramOutcome, CompatError> {
        let profile = self
            .judge
            .profiles()
            .get(request.language)
            .ok_or(CompatError::Language(request.language))?;
        let missing = verdict_scripts::missing_programs(profile);
        if !missing.is_empty() {
            return Err(CompatError::Toolchain(
                verdict_scripts::not_installed_message(request.language, profile, &missing),
            ));
        }
        // One wait covers the compile's slot and the run's permit: a call is answered (Busy)
        // within `slot_wait` of its arrival, whatever it waited for.
        let deadline = tokio::time::Instant::now() + self.slot_wait;
        let key = build_key(&request);
        let (build_slot, found) = self.lock().slot(&key);
        let make = || async {
            let Some(slot) = self.judge.run_slot().await else {
                return Err(BuildFailure::ShuttingDown);
            };
            let (this, request, key) = (self.clone(), request.clone(), key.clone());
            let made = tokio::task::spawn_blocking(move || this.compile(&request, &key))
                .await
                .map_err(|e| BuildFailure::Host(format!("the compile panicked: {e}")))?
                .map_err(BuildFailure::Host);
            drop(slot);
            made.map(Arc::new)
        };
        let compiled = match tokio::time::timeout_at(deadline, build_slot.get_or_init(make)).await {
            Ok(Ok(compiled)) => compiled.clone(),
            Ok(Err(failure)) => {
                self.lock().forget(&key);
                return Err(match failure {
                    BuildFailure::ShuttingDown => CompatError::ShuttingDown,
                    BuildFailure::Host(message) => CompatError::Host(message.clone()),
                });
            }
            Err(_) => return Err(CompatError::Busy(self.slot_wait)),
        };
        let (build, compile) = match &*compiled {
            Compiled::Failed(step) => {
                return Ok(ProgramOutcome {
                    compile: Some(step.clone()),
                    run: None,
                    files: BTreeMap::new(),
                    build_reused: found,
                });
            }
            Compiled::Built { compile, .. } => (compiled.clone(), compile.clone()),
        };
        let permit =
            match tokio::time::timeout_at(deadline, self.runs.clone().acquire_owned()).await {
                Ok(Ok(permit)) => permit,
                Ok(Err(_)) => return Err(CompatError::ShuttingDown),
                Err(_) => return Err(CompatError::Busy(self.slot_wait)),
            };
        let this = self.clone();
        // The caller gone (its request dropped), the run's box is killed at once.
        let cancel = CancelToken::new();
        let _stop_with_caller = cancel.cancel_on_drop();
        let (run, files) = tokio::task::spawn_blocking(move || {
            let Compiled::Built { build, .. } = &*build else {
                return Err(CompatError::Host("the build was not made".into()));
            };
            this.run_built(&cancel, build, &request)
        })
        .await
        .map_err(|e| CompatError::Host(format!("the run panicked: {e}")))??;
        drop(permit);
        Ok(ProgramOutcome {
            compile,
            run: Some(run),
            files,
            build_reused: found,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BuildCache> {
        self.builds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Compiles `request`'s sources into a build directory of their own.
    fn compile(&self, request: &ProgramRequest, key: &str) -> Result<Compiled, String> {
        let host = |what: &str, e: &dyn std::fmt::Display| format!("cannot {what}: {e}");
        let profile = self
            .judge
            .profiles()
            .get(request.language)
            .ok_or_else(|| format!("no profile for {}", request.language))?;
        let mut profile = profile.clone();
        if !request.check_syntax {
            profile.check = None;
        }
        if !request.compile_args.is_empty()
            && let Some(compile) = profile.compile.as_mut()
        {
            compile.retain(|arg| !is_warning_or_optimisation_flag(arg));
        }
        if !request.interpreter_args.is_empty() {
            insert_interpreter_args(&mut profile.run, &request.interpreter_args);
        }
        let has_step = profile.compile_template().is_some();
        std::fs::create_dir_all(&self.root).map_err(|e| host("create the builds dir", &e))?;
        let work = tempfile::Builder::new()
            .prefix(&format!("{}-", &key[..16]))
            .tempdir_in(&self.root)
            .map_err(|e| host("create a build dir", &e))?;
        let sources_dir = work.path().join("src");
        std::fs::create_dir_all(&sources_dir).map_err(|e| host("create the sources dir", &e))?;
        let mut files = Vec::new();
        let mut assets = Vec::new();
        // The sources (each an asset of the build), then the files only the compile reads.
        let sources = request.sources.iter().map(|file| (file, true));
        let compile_files = request.compile_files.iter().map(|file| (file, false));
        for ((name, bytes), is_source) in sources.chain(compile_files) {
            let path =
                verdict_scripts::join_inside(&sources_dir, name).map_err(|e| e.to_string())?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| host("create a sources dir", &e))?;
            }
            let what = if is_source {
                "write a source"
            } else {
                "write a file"
            };
            std::fs::write(&path, bytes).map_err(|e| host(what, &e))?;
            files.push(BoxFile {
                name: name.clone(),
                source: path,
            });
            if is_source {
                assets.push(Asset::text(name.clone(), String::new()));
            }
        }
        let source = SourceCode {
            language: request.language,
            entry_point: None,
            source_files: assets,
            assist_files: Vec::new(),
            compile_command: (!request.compile_args.is_empty())
                .then(|| request.compile_args.clone()),
        };
        // The build dir outlives `work` (kept by the cache until evicted and unused).
        let build_dir = self.root.join(format!("{key}-{}", unique()));
        let started = Instant::now();
        // A build is shared by every call of the same sources: no one caller's leaving stops it.
        let outcome = self
            .judge
            .executor()
            .compile(
                &CancelToken::new(),
                &CompileRequest {
                    language: request.language,
                    profile: Arc::new(profile),
                    source: &source,
                    files: &files,
                    build_dir: &build_dir,
                    limits: &request.compile,
                },
            )
            .map_err(|e| e.to_string())?;
        let wall_time_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let dir = BuildDir {
            judge: self.judge.clone(),
            path: build_dir,
        };
        let step = |status: JudgeStatus, end: StepEnd, log: String, code: i32| StepOutcome {
            end,
            status,
            reason: None,
            exit_code: Some(code),
            signal: None,
            cpu_time_ms: 0,
            wall_time_ms,
            memory_kb: 0,
            stdout: Vec::new(),
            stderr: log.into_bytes(),
        };
        Ok(match outcome {
            CompileOutcome::Built { build, log } => Compiled::Built {
                build: Box::new(build),
                compile: has_step.then(|| step(JudgeStatus::Accepted, StepEnd::Exited, log, 0)),
                _dir: dir,
            },
            CompileOutcome::Failed { log } => {
                let end = if log.starts_with("the compiler exceeded its CPU time limit")
                    || log.starts_with("the compiler exceeded its wall time limit")
                {
                    StepEnd::TimeLimit
                } else {
                    StepEnd::Exited
                };
                let code = if end == StepEnd::TimeLimit { -1 } else { 1 };
                let mut failed = step(JudgeStatus::CompilationError, end, log, code);
                if end == StepEnd::TimeLimit {
                    failed.exit_code = None;
                }
                Compiled::Failed(failed)
            }
        })
    }

    /// Runs a built program once in a fresh box.
    fn run_built(
        &self,
        cancel: &CancelToken,
        build: &Build,
        request: &ProgramRequest,
    ) -> Result<(StepOutcome, BTreeMap<String, Vec<u8>>), CompatError> {
        let host = |what: &str, e: &dyn std::fmt::Display| {
            CompatError::Host(format!("cannot {what}: {e}"))
        };
        std::fs::create_dir_all(&self.root).map_err(|e| host("create the runs dir", &e))?;
        let run_dir = tempfile::Builder::new()
            .prefix("run-")
            .tempdir_in(&self.root)
            .map_err(|e| host("create a run dir", &e))?;
        let inputs = run_dir.path().join("in");
        std::fs::create_dir_all(&inputs).map_err(|e| host("create the inputs dir", &e))?;
        let stdin = inputs.join("stdin");
        std::fs::write(&stdin, &request.stdin).map_err(|e| host("write stdin", &e))?;
        let mut files = Vec::new();
        for (i, (name, bytes)) in request.files.iter().enumerate() {
            let path = inputs.join(format!("file-{i}"));
            std::fs::write(&path, bytes).map_err(|e| host("write a file", &e))?;
            files.push(BoxFile {
                name: name.clone(),
                source: path,
            });
        }
        let run_request = RunRequest {
            build,
            args: &request.args,
            stdin: Some(&stdin),
            files: &files,
            empty_dirs: &[],
            limits: request.run,
        };
        let executor = self.judge.executor();
        let box_run_dir = run_dir.path().join("run");
        // A python program is served by the slot's warm interpreter where the sandbox has one
        // (docs/compat.md): the interpreter's start is paid once per slot, not once per call.
        // Interpreter arguments (`-c ...`, `-O`) change what the interpreter runs: cold then.
        let may_warm = request.interpreter_args.is_empty();
        let output =
            verdict_scripts::run_once(executor, cancel, &run_request, &box_run_dir, may_warm)
                .map_err(|e| CompatError::Host(e.to_string()))?;
        let cap = request
            .run
            .output_kb
            .unwrap_or(64 * 1024)
            .saturating_mul(1024);
        let stdout = read_capture(&output.stdout, cap)
            .map_err(|e| CompatError::Host(e.to_string()))?
            .bytes;
        let stderr = read_capture(&output.stderr, cap)
            .map_err(|e| CompatError::Host(e.to_string()))?
            .bytes;
        let tail = String::from_utf8_lossy(&stderr[stderr.len().saturating_sub(4096)..]);
        let failure = classify_run(
            &output.outcome,
            &request.run,
            &tail,
            &build.profile.memory_error_patterns,
        );
        let (exit_code, signal) = match output.outcome.exit {
            ExitKind::Exited(code) => (Some(code), None),
            ExitKind::Signaled(sig) => (Some(128 + sig), Some(sig)),
        };
        let (status, reason) = match &failure {
            Some(f) => (f.status, Some(f.reason.clone())),
            None => (JudgeStatus::Accepted, None),
        };
        let end = match status {
            JudgeStatus::TimeLimitExceeded => StepEnd::TimeLimit,
            JudgeStatus::MemoryLimitExceeded => StepEnd::MemoryLimit,
            JudgeStatus::OutputLimitExceeded => StepEnd::OutputLimit,
            _ if signal.is_some() => StepEnd::Signaled,
            JudgeStatus::RuntimeError | JudgeStatus::Accepted => StepEnd::Exited,
            _ => StepEnd::Forbidden,
        };
        let mut fetched = BTreeMap::new();
        for name in &request.fetch {
            let Ok(path) = verdict_scripts::join_inside(&output.box_dir, name) else {
                continue;
            };
            if let Ok(meta) = std::fs::symlink_metadata(&path)
                && meta.is_file()
                && meta.len() <= cap
                && let Ok(bytes) = std::fs::read(&path)
            {
                fetched.insert(name.clone(), bytes);
            }
        }
        executor.remove_box(&output.box_dir);
        let step = StepOutcome {
            end,
            status,
            reason,
            exit_code,
            signal,
            cpu_time_ms: output.outcome.cpu_time_ms,
            wall_time_ms: output.outcome.wall_time_ms,
            memory_kb: output.outcome.peak_memory_kb,
            stdout,
            stderr,
        };
        Ok((step, fetched))
    }
}

/// `-w`, `-O`, `-O2`, `-Os`, ...: what a profile chooses and a request's own compiler
/// arguments decide instead.
fn is_warning_or_optimisation_flag(arg: &str) -> bool {
    arg == "-w" || (arg.starts_with("-O") && arg.len() <= 3)
}

/// Puts `args` before the main file (`{main}`, `{main_class}`) of an interpreter's run
/// command; a command that runs a built binary (`./main`) is left as it is.
fn insert_interpreter_args(run: &mut Vec<String>, args: &[String]) {
    if run.first().is_some_and(|program| program.starts_with("./")) {
        return;
    }
    let at = run
        .iter()
        .position(|arg| arg.contains("{main}") || arg.contains("{main_class}"))
        .unwrap_or(run.len());
    run.splice(at..at, args.iter().cloned());
}

/// A build's content address: everything the compile reads.
fn build_key(request: &ProgramRequest) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"verdict-compat-build-v1\0");
    hasher.update(request.owner.as_bytes());
    hasher.update(b"\0");
    hasher.update(request.language.as_str().as_bytes());
    hasher.update(&[u8::from(request.check_syntax)]);
    let limits = &request.compile;
    for n in [
        limits.cpu_time_ms,
        limits.wall_time_ms,
        limits.memory_kb,
        limits.output_bytes,
        u64::from(limits.processes),
    ] {
        hasher.update(&n.to_le_bytes());
    }
    for files in [&request.sources, &request.compile_files] {
        hasher.update(&(files.len() as u64).to_le_bytes());
        for (name, bytes) in files {
            hasher.update(&(name.len() as u64).to_le_bytes());
            hasher.update(name.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
    }
    for list in [&request.compile_args, &request.interpreter_args] {
        hasher.update(&(list.len() as u64).to_le_bytes());
        for arg in list {
            hasher.update(&(arg.len() as u64).to_le_bytes());
            hasher.update(arg.as_bytes());
        }
    }
    hasher.finalize().to_hex().to_string()
}

/// A name no other build of this process has.
fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A path inside a box: relative, no `..`, not empty.
pub fn is_box_path(name: &str) -> bool {
    verdict_scripts::join_inside(Path::new("/"), name).is_ok()
}

#[cfg(test)]
impl StepOutcome {
    /// A step that ended `end` with `exit_code` and `signal`, in 1 ms and 1 KiB, writing
    /// nothing: what tests change a field or two of.
    pub(crate) fn ended(end: StepEnd, exit_code: Option<i32>, signal: Option<i32>) -> StepOutcome {
        StepOutcome {
            end,
            status: JudgeStatus::Accepted,
            reason: None,
            exit_code,
            signal,
            cpu_time_ms: 1,
            wall_time_ms: 1,
            memory_kb: 1,
            stdout: Vec::new(),
            stderr: Vec::new(),
        }
    }
}

#[cfg(test)]
impl ProgramOutcome {
    /// A program without a compile step whose run gave `run`, fetching no files.
    pub(crate) fn ran(run: StepOutcome) -> ProgramOutcome {
        ProgramOutcome {
            compile: None,
            run: Some(run),
            files: BTreeMap::new(),
            build_reused: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(source: &str) -> ProgramRequest {
        ProgramRequest {
            owner: "default".into(),
            language: Language::Cpp,
            sources: vec![("main.cpp".into(), source.as_bytes().to_vec())],
            files: Vec::new(),
            stdin: b"1 2\n".to_vec(),
            args: Vec::new(),
            compile: CompileLimits::default(),
            run: RunLimits::new(1000, None, None, None),
            fetch: Vec::new(),
            check_syntax: false,
            compile_args: Vec::new(),
            interpreter_args: Vec::new(),
            compile_files: Vec::new(),
        }
    }

    #[test]
    fn a_builds_address_covers_sources_owner_and_compile_limits_never_stdin() {
        let a = request("int main(){}");
        let mut other_stdin = a.clone();
        other_stdin.stdin = b"3 4\n".to_vec();
        assert_eq!(build_key(&a), build_key(&other_stdin));
        let mut other_source = a.clone();
        other_source.sources[0].1 = b"int main(){return 1;}".to_vec();
        assert_ne!(build_key(&a), build_key(&other_source));
        let mut other_owner = a.clone();
        other_owner.owner = "course".into();
        assert_ne!(build_key(&a), build_key(&other_owner));
        let mut other_limits = a.clone();
        other_limits.compile.cpu_time_ms = 1;
        assert_ne!(build_key(&a), build_key(&other_limits));
        let mut other_args = a.clone();
        other_args.compile_args = vec!["-Wall".into()];
        assert_ne!(build_key(&a), build_key(&other_args));
        let mut other_interpreter = a.clone();
        other_interpreter.interpreter_args = vec!["-Wall".into()];
        assert_ne!(build_key(&other_args), build_key(&other_interpreter));
        let mut a_file = a.clone();
        a_file.compile_files = vec![("x.h".into(), b"int x;".to_vec())];
        let mut a_source = a.clone();
        a_source.sources.push(("x.h".into(), b"int x;".to_vec()));
        assert_ne!(build_key(&a_file), build_key(&a_source));
    }

    #[test]
    fn interpreter_args_go_before_the_main_file_and_never_into_a_binarys_command() {
        let mut python: Vec<String> = ["python3", "-S", "{main}"].map(String::from).to_vec();
        insert_interpreter_args(&mut python, &["-BE".into()]);
        assert_eq!(python, ["python3", "-S", "-BE", "{main}"]);
        let mut binary: Vec<String> = vec!["./main".into()];
        insert_interpreter_args(&mut binary, &["-BE".into()]);
        assert_eq!(binary, ["./main"]);
    }

    #[test]
    fn the_build_cache_keeps_the_most_recently_used() {
        let mut cache = BuildCache {
            capacity: 2,
            slots: HashMap::new(),
            order: VecDeque::new(),
        };
        assert!(!cache.slot("a").1);
        assert!(!cache.slot("b").1);
        assert!(cache.slot("a").1, "a used again");
        assert!(!cache.slot("c").1);
        assert!(cache.slot("a").1, "a kept");
        assert!(!cache.slot("b").1, "b evicted");
    }

    #[test]
    fn box_paths_are_relative_without_parent_steps() {
        assert!(is_box_path("data/in.txt"));
        assert!(!is_box_path("../etc/passwd"));
        assert!(!is_box_path(""));
    }
}
