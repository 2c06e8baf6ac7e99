//! Compiling a program (or syntax-checking an interpreted one) in the sandbox.

use super::files::{BoxFile, cut_text, open_up_dirs, place_files, read_capture, seal_tree};
use crate::ScriptError;
use crate::entry::{MainClassRule, scala_main_object};
use crate::exec::cancel::CancelToken;
use crate::language::{LanguageProfile, TemplateVars, class_name_of};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use verdict_contracts::{Language, SourceCode};
use verdict_sandbox::{ExitKind, LimitHit, Sandbox, SandboxLimits, SandboxSpec, StdioSpec};

/// The most of a compiler's output kept in `error_log`.
pub const COMPILE_LOG_MAX: usize = 16 * 1024;

/// Limits for compilers (their own, not the task's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileLimits {
    /// CPU time in milliseconds.
    pub cpu_time_ms: u64,
    /// Wall time in milliseconds.
    pub wall_time_ms: u64,
    /// Resident memory in KiB.
    pub memory_kb: u64,
    /// Bytes the compiler may write (objects, binaries, messages).
    pub output_bytes: u64,
    /// Processes and threads.
    pub processes: u32,
}

impl Default for CompileLimits {
    fn default() -> Self {
        CompileLimits {
            cpu_time_ms: 10_000,
            wall_time_ms: 30_000,
            memory_kb: 2 * 1024 * 1024,
            output_bytes: 256 * 1024 * 1024,
            processes: 64,
        }
    }
}

/// A compiled (or checked) program, ready to run in fresh boxes.
#[derive(Debug, Clone)]
pub struct Build {
    /// The host directory holding the build (copied into each run box).
    pub dir: PathBuf,
    /// The language.
    pub language: Language,
    /// Its profile.
    pub profile: Arc<LanguageProfile>,
    /// The template values fixed at compile time (main file, class, ...).
    pub vars: TemplateVars,
}

/// What a compile step gave.
#[derive(Debug, Clone)]
pub enum CompileOutcome {
    /// The program is built.
    Built {
        /// The build.
        build: Build,
        /// The compiler's messages (warnings), bounded.
        log: String,
    },
    /// The program did not compile; the log says why.
    Failed {
        /// The compiler's messages and the reason, bounded.
        log: String,
    },
}

/// The template values of a source program: its files, main file and main class.
pub fn source_vars(source: &SourceCode, profile: &LanguageProfile) -> TemplateVars {
    let names: Vec<String> = source.source_files.iter().map(|a| a.name.clone()).collect();
    let first = names.first().cloned().unwrap_or_default();
    let (main, main_class) = match (&source.entry_point, profile.entry_is_file) {
        (Some(entry), true) => (entry.clone(), class_name_of(entry)),
        (Some(entry), false) => (first.clone(), entry.clone()),
        (None, _) => (first.clone(), main_class_of(source, profile, &first)),
    };
    let sources = match &profile.sources_glob {
        Some(suffix) => names
            .into_iter()
            .filter(|n| n.ends_with(suffix.as_str()))
            .collect(),
        None => names,
    };
    TemplateVars {
        sources,
        main,
        main_class,
        entry_given: source.entry_point.is_some(),
        extra: source.compile_command.clone().unwrap_or_default(),
        memory_mb: None,
        heap_mb: profile.default_heap_mb,
    }
}

/// The main class of a program whose request names no `entry_point`, by its profile's rule:
/// the first file's path, or the Scala object with `main` in the sources' texts (sources
/// given by URL or path are not read here: the first file's path then).
fn main_class_of(source: &SourceCode, profile: &LanguageProfile, first: &str) -> String {
    match profile.main_class {
        MainClassRule::FirstFile => class_name_of(first),
        MainClassRule::ScalaObject => {
            let texts: Vec<(&str, &str)> = source
                .source_files
                .iter()
                .filter_map(|a| Some((a.name.as_str(), a.text.as_deref()?)))
                .collect();
            scala_main_object(&texts).unwrap_or_else(|| class_name_of(first))
        }
    }
}

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

/// Compiles `request.source` into its `build_dir` (created) with its `files` (sources and assist
/// files) placed in it; `cancel` kills the compiler at once.
pub fn compile(
    sandbox: &Sandbox,
    cancel: &CancelToken,
    request: &CompileRequest<'_>,
) -> Result<CompileOutcome, ScriptError> {
    let CompileRequest {
        language,
        source,
        files,
        build_dir,
        limits,
        ..
    } = *request;
    let profile = request.profile.clone();
    let placing = crate::timing::phase("compile.box");
    std::fs::create_dir_all(build_dir).map_err(|e| ScriptError::io("create", build_dir, e))?;
    place_files(build_dir, files)?;
    open_up_dirs(build_dir)?;
    let vars = source_vars(source, &profile);
    let Some(template) = profile.compile_template() else {
        let build = Build {
            dir: build_dir.to_owned(),
            language,
            profile,
            vars,
        };
        return built(build, String::new());
    };
    let argv = vars.expand(template);
    // The compiler's output goes beside the box, never into it (the compiler could plant links
    // there), in a directory removed on every path out of this function.
    let parent = build_dir.parent().unwrap_or(build_dir);
    let logs = tempfile::Builder::new()
        .prefix(".compile-logs-")
        .tempdir_in(parent)
        .map_err(|e| ScriptError::io("create logs dir in", parent, e))?;
    let (out_path, err_path) = (logs.path().join("stdout"), logs.path().join("stderr"));
    let spec = SandboxSpec {
        program: PathBuf::from(&argv[0]),
        args: argv[1..].iter().map(Into::into).collect(),
        env: profile.env.clone().into_iter().collect(),
        box_dir: build_dir.to_owned(),
        stdin: StdioSpec::Null,
        stdout: StdioSpec::File(out_path.clone()),
        stderr: StdioSpec::File(err_path.clone()),
        limits: SandboxLimits {
            cpu_time_ms: Some(limits.cpu_time_ms),
            wall_time_ms: Some(limits.wall_time_ms),
            memory_kb: Some(limits.memory_kb),
            output_bytes: Some(limits.output_bytes),
            processes: Some(limits.processes + profile.extra_processes),
            open_files: Some(512),
            stack_kb: None,
        },
        read_only_mounts: profile.mounts.iter().map(PathBuf::from).collect(),
        writable_mounts: Vec::new(),
        stop: None,
        cancel: None,
    };
    placing.end();
    let running = crate::timing::phase("compile.sandbox");
    let outcome = sandbox.run(&cancel.applied_to(spec))?;
    running.end();
    let _sealing = crate::timing::phase("compile.seal");
    // The compiler's stdout then its stderr; a cut says how much of both was left out.
    let out = read_capture(&out_path, COMPILE_LOG_MAX as u64 + 1)?;
    let err = read_capture(&err_path, COMPILE_LOG_MAX as u64 + 1)?;
    let mut raw = out.bytes;
    raw.extend(&err.bytes);
    let mut log = cut_text(&raw, out.total + err.total, COMPILE_LOG_MAX);
    for prefix in [
        format!("{}/", build_dir.display()),
        format!("{}/", verdict_sandbox::BOX_PATH),
    ] {
        log = log.replace(&prefix, "");
    }
    // A compiler's child (cc1plus) can be stopped by the per-process CPU backstop before the
    // sandbox's own poll sees the limit: judge by the CPU time measured.
    // GCC's driver names that backstop's signal in its log ("CPU time limit exceeded signal
    // terminated program cc1plus"): the same limit, whatever CPU time the reading caught.
    let over_time = outcome.cpu_time_ms >= limits.cpu_time_ms
        || log.contains("CPU time limit exceeded signal terminated program");
    // A limit that stopped the compiler, named with its value; it leads the log (what the
    // killed compiler printed, "Killed signal terminated program cc1plus", follows).
    let limit = match (outcome.limit_hit, outcome.exit) {
        (Some(LimitHit::CpuTime), _) => Some(format!("CPU time limit ({} ms)", limits.cpu_time_ms)),
        (Some(LimitHit::WallTime), _) => {
            Some(format!("wall time limit ({} ms)", limits.wall_time_ms))
        }
        (_, ExitKind::Exited(code)) if code != 0 && over_time => {
            Some(format!("CPU time limit ({} ms)", limits.cpu_time_ms))
        }
        (Some(LimitHit::Memory), _) => Some(format!("memory limit ({} KB)", limits.memory_kb)),
        (Some(LimitHit::Output), _) => {
            Some(format!("output limit ({} bytes)", limits.output_bytes))
        }
        (Some(LimitHit::Processes), _) => Some(format!(
            "process limit ({})",
            limits.processes + profile.extra_processes
        )),
        _ => None,
    };
    if let Some(limit) = limit {
        let reason = format!("the compiler exceeded its {limit}");
        let log = if log.trim().is_empty() {
            reason
        } else {
            format!("{reason}\n{log}")
        };
        return Ok(CompileOutcome::Failed { log });
    }
    let failure = match outcome.exit {
        ExitKind::Exited(0) => None,
        ExitKind::Exited(code) if log.trim().is_empty() => {
            Some(format!("the compiler exited with code {code}"))
        }
        ExitKind::Exited(_) => Some(String::new()),
        ExitKind::Signaled(sig) => Some(format!("the compiler was killed by signal {sig}")),
    };
    if let Some(reason) = failure {
        let hints = crate::language::CompileHint::notes_for(&profile.compile_hints, &log);
        if !reason.is_empty() {
            log = if log.trim().is_empty() {
                reason
            } else {
                format!("{log}\n{reason}")
            };
        }
        log.push_str(&hints);
        return Ok(CompileOutcome::Failed { log });
    }
    if let Some(required) = &profile.required_output
        && !build_dir.join(required).is_file()
    {
        log.push_str(&format!("\nthe build did not produce `{required}`"));
        return Ok(CompileOutcome::Failed {
            log: log.trim_start().to_owned(),
        });
    }
    let build = Build {
        dir: build_dir.to_owned(),
        language,
        profile,
        vars,
    };
    built(build, log)
}

/// `build`, sealed: later runs share it through hard links, so no box may change it.
fn built(build: Build, log: String) -> Result<CompileOutcome, ScriptError> {
    seal_tree(&build.dir)?;
    Ok(CompileOutcome::Built { build, log })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LanguageProfiles;
    use verdict_contracts::Asset;

    fn scala(files: &[(&str, &str)], entry_point: Option<&str>) -> TemplateVars {
        let profiles = LanguageProfiles::builtin().unwrap();
        let source = SourceCode {
            language: Language::Scala,
            entry_point: entry_point.map(String::from),
            source_files: files.iter().map(|(n, t)| Asset::text(*n, *t)).collect(),
            assist_files: Vec::new(),
            compile_command: None,
        };
        source_vars(&source, profiles.get(Language::Scala).unwrap())
    }

    /// Scala's `object Main extends App` in `main.scala` was run as class `main`
    /// ("Could not find or load main class main").
    #[test]
    fn scala_runs_its_main_object_whatever_the_files_name() {
        let app = "object Main extends App {\n  println(io.StdIn.readLine())\n}\n";
        assert_eq!(scala(&[("main.scala", app)], None).main_class, "Main");
        // Without a main object, the first file's path as before; an entry_point decides.
        let none = "object Helper { def f = 1 }\n";
        assert_eq!(scala(&[("Helper.scala", none)], None).main_class, "Helper");
        assert_eq!(
            scala(&[("main.scala", app)], Some("Other")).main_class,
            "Other"
        );
    }
}
