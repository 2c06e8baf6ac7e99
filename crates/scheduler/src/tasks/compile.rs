//! The compile task: the submission (once per submission), then the problem's standard,
//! random and compare programs (once per problem version, cached; design #7 and #14).

use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use std::path::Path;
use std::sync::Arc;
use verdict_contracts::{CheckScript, JudgeStatus, JudgeTaskResult, Program, RunScript};
use verdict_scripts::{BoxFile, Build, CompileOutcome, source_vars};

/// The file in a cached build directory that holds a failed compile's log.
const FAILED_MARKER: &str = ".verdict-compile-error";

/// A program's build: ready, not compilable (with the compiler's log), or not buildable here.
#[derive(Debug, Clone)]
pub enum BuildResult {
    /// Built.
    Built(Build),
    /// The compiler refused it; the log says why.
    Failed(String),
    /// The judge could not build it (System Error); the reason says why.
    Broken(String),
}

impl BuildResult {
    /// The build, or the result of a task that needed it: `failed` with the compiler's log
    /// (introduced by `what` when given, e.g. "the random program"), or System Error.
    pub fn built(
        &self,
        failed: JudgeStatus,
        what: Option<&str>,
    ) -> Result<&Build, Box<JudgeTaskResult>> {
        let (status, log) = match self {
            BuildResult::Built(build) => return Ok(build),
            BuildResult::Failed(log) => match what {
                Some(what) => (failed, format!("{what} did not compile:\n{log}")),
                None => (failed, log.clone()),
            },
            BuildResult::Broken(reason) => (JudgeStatus::SystemError, reason.clone()),
        };
        Err(Box::new(JudgeTaskResult::with_status(status, log)))
    }
}

/// The submission's build, compiled on first use and shared by all its tasks (from the
/// problem's cache when `cache_submission_builds` is on).
pub fn submission_build(run: &SubmissionRun) -> &BuildResult {
    run.submission_build.get_or_init(|| {
        let program = &run.submission.submission;
        if run.shared.config.cache_submission_builds {
            return problem_build(run, &submission_build_key(run, program), program);
        }
        let dir = run.work_dir().join("build");
        match compile_program(run, &run.submission.submission, "submission", &dir) {
            Ok(CompileOutcome::Built { build, .. }) => BuildResult::Built(build),
            Ok(CompileOutcome::Failed { log }) => BuildResult::Failed(log),
            Err(err) => BuildResult::Broken(err.to_string()),
        }
    })
}

/// The cache item of a submission's build: a hash of its source code and its language profile.
fn submission_build_key(run: &SubmissionRun, program: &Program) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(
        serde_json::to_string(program)
            .unwrap_or_default()
            .as_bytes(),
    );
    if let Some(profile) = run.shared.profiles.get(program.source().language) {
        hasher.update(format!("{profile:?}").as_bytes());
    }
    format!("submission-{}", &hasher.finalize().to_hex()[..32])
}

/// A problem program's build (`standard`, `random` or `compare`), from the cache or compiled into it.
pub fn problem_build(run: &SubmissionRun, role: &str, program: &Program) -> BuildResult {
    let filled =
        run.shared
            .cache
            .get_or_fill(&run.problem, role, |dir: &Path| -> Result<(), JudgeError> {
                match compile_program(run, program, role, dir)? {
                    CompileOutcome::Built { .. } => Ok(()),
                    CompileOutcome::Failed { log } => std::fs::write(dir.join(FAILED_MARKER), log)
                        .map_err(|e| JudgeError::io("write", dir, e)),
                }
            });
    let dir = match filled {
        Ok(dir) => dir,
        Err(err) => return BuildResult::Broken(err.to_string()),
    };
    if let Ok(log) = std::fs::read_to_string(dir.join(FAILED_MARKER)) {
        return BuildResult::Failed(log);
    }
    let source = program.source();
    match run.shared.profiles.get(source.language) {
        Some(profile) => BuildResult::Built(Build {
            dir,
            language: source.language,
            profile: Arc::new(profile.clone()),
            vars: source_vars(source, profile),
        }),
        None => BuildResult::Broken(format!(
            "language {} has no profile on this judge",
            source.language
        )),
    }
}

/// Materialises a program's files and compiles it into `dir`.
fn compile_program(
    run: &SubmissionRun,
    program: &Program,
    role: &str,
    dir: &Path,
) -> Result<CompileOutcome, JudgeError> {
    let source = program.source();
    let shared = &run.shared;
    let profile = shared.profiles.get(source.language).ok_or_else(|| {
        JudgeError::Other(format!(
            "{role}: language {} has no profile on this judge",
            source.language
        ))
    })?;
    let missing = verdict_scripts::missing_programs(profile);
    if !missing.is_empty() {
        return Err(JudgeError::Other(verdict_scripts::not_installed_message(
            source.language,
            profile,
            &missing,
        )));
    }
    let sources = run.fresh_dir(&format!("{role}-src"))?;
    let mut files = Vec::new();
    let groups = [
        ("source_files", &source.source_files),
        ("assist_files", &source.assist_files),
    ];
    for (field, assets) in groups {
        for (i, asset) in assets.iter().enumerate() {
            let path =
                shared
                    .assets
                    .materialize(asset, &sources, &format!("{role}.{field}[{i}]"))?;
            files.push(BoxFile {
                name: asset.name.clone(),
                source: path,
            });
        }
    }
    let limits = shared.config.compile.limits();
    let outcome = verdict_scripts::compile(
        &shared.sandbox,
        source.language,
        Arc::new(profile.clone()),
        source,
        &files,
        dir,
        &limits,
    )?;
    let _ = std::fs::remove_dir_all(&sources);
    Ok(outcome)
}

/// The compile task: Compilation Error for the submission, Executable Compilation Error for the problem's programs.
pub fn compile_task(run: &SubmissionRun) -> Result<JudgeTaskResult, JudgeError> {
    // A Google Test submission is the student's files beside the teacher's test file, linked
    // with gtest (design #8): its plain build has no `main`, so the compile task checks the
    // builds that the submission's tasks will use.
    let tasks = &run.submission.judge_tasks;
    let gtest = tasks.iter().any(|t| t.run_script == Some(RunScript::Gtest));
    let plain = !gtest
        || tasks.iter().any(|t| {
            t.check_script == CheckScript::Standard && t.run_script != Some(RunScript::Gtest)
        });
    let mut builds = Vec::new();
    if plain {
        builds.push(submission_build(run));
    }
    if gtest {
        builds.push(super::gtest::gtest_build(run));
    }
    for build in builds {
        if let Err(result) = build.built(JudgeStatus::CompilationError, None) {
            return Ok(*result);
        }
    }
    let sub = &run.submission;
    let programs = [
        ("standard", &sub.standard),
        ("random", &sub.random),
        ("compare", &sub.compare),
    ];
    for (role, program) in programs {
        let Some(program) = program else { continue };
        match problem_build(run, role, program) {
            BuildResult::Built(_) => {}
            BuildResult::Failed(log) => {
                let log = format!("the {role} program did not compile:\n{log}");
                return Ok(JudgeTaskResult::with_status(
                    JudgeStatus::ExecutableCompilationError,
                    log,
                ));
            }
            BuildResult::Broken(reason) => {
                return Ok(JudgeTaskResult::with_status(
                    JudgeStatus::SystemError,
                    format!("{role}: {reason}"),
                ));
            }
        }
    }
    Ok(JudgeTaskResult::with_status(JudgeStatus::Accepted, ""))
}
