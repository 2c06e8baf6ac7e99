//! What the tasks of one submission share: the executor, the work directory, the builds
//! (each made once, on first use) and the problem's test data (once per problem version,
//! in the cache). Tasks ask for these through methods; the cells behind them are private.

use crate::assets::AssetFetcher;
use crate::cache::{ProblemCache, ProblemHandle};
use crate::config::JudgeConfig;
use crate::error::JudgeError;
use crate::test_dirs::TestDirs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use verdict_compare::{ComparatorProtocol, detect_protocol};
use verdict_contracts::{
    Asset, CompareProtocol, JudgeStatus, JudgeTaskResult, Program, STDIN_ASSET, SourceCode,
};
use verdict_scripts::special::{gtest, is_unit, valgrind};
use verdict_scripts::{
    BoxFile, Build, CancelToken, CompileOutcome, CompileRequest, Executor, LanguageProfile,
    LanguageProfiles, TestFiles, source_vars, timing,
};

/// The file in a cached build directory that holds a failed compile's log.
const FAILED_MARKER: &str = ".verdict-compile-error";

/// How a test datum's input and output files are named in its cache directory.
const DATUM_INPUT: &str = "in.";
const DATUM_OUTPUT: &str = "out.";

/// An error while filling a cache item: the cache's own I/O (which names its path) or the
/// filler's. The cache asks for `From<io::Error>`; this keeps that conversion out of
/// `JudgeError`, so no other I/O error can slip into it without its path.
#[derive(Debug)]
struct FillError(JudgeError);

impl From<std::io::Error> for FillError {
    fn from(err: std::io::Error) -> Self {
        FillError(JudgeError::Cache(err))
    }
}

/// What every submission of a `Judge` shares.
#[derive(Debug)]
pub(crate) struct JudgeShared {
    pub config: JudgeConfig,
    /// Runs every command (the sandbox; a fake in unit tests).
    pub executor: Arc<dyn Executor>,
    pub profiles: LanguageProfiles,
    pub cache: ProblemCache,
    pub assets: AssetFetcher,
    pub permits: crate::slots::Slots,
    /// This judge's own dir under `config.work_dir` (the sandbox instance's: removed by the
    /// next judge to start if this one dies), where submissions' work dirs go.
    pub work_root: PathBuf,
    /// How many times `work_root` was found gone and made again (health reports it).
    pub work_root_recreated: AtomicU64,
}

/// A fresh work dir for one submission in the judge's work root. A work root removed from
/// under the judge (an operator's `rm -rf`, a tmp cleaner) is made again, logged and counted,
/// rather than failing every later submission until a restart.
fn open_work_dir(shared: &JudgeShared, prefix: &str) -> Result<tempfile::TempDir, JudgeError> {
    let make = || {
        tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(&shared.work_root)
    };
    let gone = match make() {
        Ok(dir) => return Ok(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => e,
        Err(e) => return Err(JudgeError::io("create work dir in", &shared.work_root, e)),
    };
    tracing::error!(
        work_root = %shared.work_root.display(),
        "the judge's work dir was removed from under it ({gone}): making it again"
    );
    std::fs::create_dir_all(&shared.work_root)
        .map_err(|e| JudgeError::io("create work dir", &shared.work_root, e))?;
    shared.work_root_recreated.fetch_add(1, Ordering::Relaxed);
    make().map_err(|e| JudgeError::io("create work dir in", &shared.work_root, e))
}

/// A program's build: ready, not compilable (with the compiler's log), or not buildable here.
#[derive(Debug, Clone)]
pub(crate) enum BuildResult {
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
                Some(what) => (failed, format!("{what} did not compile: {log}")),
                None => (failed, log.clone()),
            },
            BuildResult::Broken(reason) => (JudgeStatus::SystemError, reason.clone()),
        };
        Err(Box::new(JudgeTaskResult::with_status(status, log)))
    }

    fn from_attempt(attempt: Result<CompileOutcome, JudgeError>) -> BuildResult {
        match attempt {
            Ok(CompileOutcome::Built { build, .. }) => BuildResult::Built(build),
            Ok(CompileOutcome::Failed { log }) => BuildResult::Failed(log),
            Err(err) => BuildResult::Broken(err.to_string()),
        }
    }
}

/// One submission being judged: its request, its work directory, and what its tasks share.
#[derive(Debug)]
pub(crate) struct SubmissionRun {
    shared: Arc<JudgeShared>,
    submission: verdict_contracts::Submission,
    problem: ProblemHandle,
    work: tempfile::TempDir,
    submission_build: OnceLock<BuildResult>,
    compare_protocol: OnceLock<ComparatorProtocol>,
    gtest_build: OnceLock<BuildResult>,
    valgrind_build: OnceLock<BuildResult>,
    /// Each datum's files once found (a failure is not kept: the next caller meets it too).
    data: Vec<OnceLock<TestFiles>>,
    /// Finished tests' directories, emptied for the next test.
    test_dirs: TestDirs,
    /// Stops every run of the submission (its cancel, or its batch's), passed to each run.
    cancel: CancelToken,
}

impl SubmissionRun {
    /// Opens the work directory and the problem's cache entry; `cancel` stops its runs.
    pub fn new(
        shared: Arc<JudgeShared>,
        submission: verdict_contracts::Submission,
        cancel: CancelToken,
    ) -> Result<Self, JudgeError> {
        let prefix: String = submission
            .sub_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .take(32)
            .collect();
        let work = open_work_dir(&shared, &format!("sub-{prefix}-"))?;
        let problem = shared
            .cache
            .problem(
                &submission.category,
                &submission.prob_id,
                submission.updated_at,
            )
            .map_err(|e| JudgeError::io("open cache entry in", &shared.config.cache_dir, e))?;
        let data = submission
            .test_data
            .iter()
            .map(|_| OnceLock::new())
            .collect();
        Ok(SubmissionRun {
            data,
            shared,
            submission,
            problem,
            work,
            submission_build: OnceLock::new(),
            compare_protocol: OnceLock::new(),
            gtest_build: OnceLock::new(),
            valgrind_build: OnceLock::new(),
            test_dirs: TestDirs::default(),
            cancel,
        })
    }

    /// How the judge's cache has served so far.
    #[cfg(test)]
    pub fn cache_stats(&self) -> crate::cache::CacheStats {
        self.shared.cache.stats()
    }

    /// The judge's run permits (the bounded pool).
    pub fn permits(&self) -> &crate::slots::Slots {
        &self.shared.permits
    }

    /// What runs the commands.
    pub fn executor(&self) -> &dyn Executor {
        &*self.shared.executor
    }

    /// The token every run of the submission is given.
    pub fn cancel(&self) -> &CancelToken {
        &self.cancel
    }

    /// The judge's configuration.
    pub fn config(&self) -> &JudgeConfig {
        &self.shared.config
    }

    /// The submission's id (for logs).
    pub fn sub_id(&self) -> &str {
        &self.submission.sub_id
    }

    /// The submission's source code.
    pub fn source(&self) -> &SourceCode {
        self.submission.submission.source()
    }

    /// A fresh directory under this submission's work directory.
    pub fn fresh_dir(&self, label: &str) -> Result<PathBuf, JudgeError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{label}-"))
            .tempdir_in(self.work.path())
            .map_err(|e| JudgeError::io("create dir in", self.work.path(), e))?;
        Ok(dir.keep())
    }

    /// A directory for a test to run in: a finished test's, emptied (see [`TestDirs`]), or a
    /// fresh one named after `label`.
    pub fn test_dir(&self, label: &str) -> Result<PathBuf, JudgeError> {
        match self.test_dirs.take() {
            Some(dir) => Ok(dir),
            None => self.fresh_dir(label),
        }
    }

    /// Hands a finished test's directory (from [`SubmissionRun::test_dir`]) to the next test,
    /// or removes it as [`SubmissionRun::discard`] does when it holds more than a test's.
    pub fn finish_test_dir(&self, dir: PathBuf) {
        if let Err(dir) = self.test_dirs.give_back(dir, self.executor()) {
            self.discard(dir);
        }
    }

    /// Removes a finished task's directory off the critical path (on the blocking pool, after
    /// the task has given back its run permit), or at once outside a runtime.
    pub fn discard(&self, dir: PathBuf) {
        match tokio::runtime::Handle::try_current() {
            Ok(handle) => {
                handle.spawn_blocking(move || std::fs::remove_dir_all(dir));
            }
            Err(_) => {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }

    /// The submission's build for a test of it, or that test's result when there is none
    /// (Compilation Error with the compiler's log, or System Error).
    pub fn built_submission(&self) -> Result<&Build, Box<JudgeTaskResult>> {
        self.submission_build()
            .built(JudgeStatus::CompilationError, None)
    }

    /// The submission's build, compiled on first use and shared by all its tasks (from the
    /// problem's cache when `cache_submission_builds` is on).
    pub fn submission_build(&self) -> &BuildResult {
        self.submission_build.get_or_init(|| {
            let program = &self.submission.submission;
            if self.shared.config.cache_submission_builds {
                return self.problem_build(&self.submission_build_key(program), program);
            }
            let dir = self.work.path().join("build");
            BuildResult::from_attempt(self.compile_program(program, "submission", &dir))
        })
    }

    /// The cache item of a submission's build: a hash of its source code and language profile.
    fn submission_build_key(&self, program: &Program) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(
            serde_json::to_string(program)
                .unwrap_or_default()
                .as_bytes(),
        );
        if let Some(profile) = self.shared.profiles.get(program.source().language) {
            hasher.update(format!("{profile:?}").as_bytes());
        }
        format!("submission-{}", &hasher.finalize().to_hex()[..32])
    }

    /// The problem's `standard`, `random` and `compare` programs, in that order (when sent).
    pub fn problem_programs(&self) -> [(&'static str, Option<&Program>); 3] {
        let sub = &self.submission;
        [
            ("standard", sub.standard.as_ref()),
            ("random", sub.random.as_ref()),
            ("compare", sub.compare.as_ref()),
        ]
    }

    /// A problem program's build (`standard`, `random` or `compare`), from the cache or
    /// compiled into it.
    pub fn problem_build(&self, role: &str, program: &Program) -> BuildResult {
        let filled = self.shared.cache.get_or_fill(
            &self.problem,
            &ProblemCache::content_item(role, program),
            |dir: &Path| -> Result<(), FillError> {
                let outcome = self
                    .compile_program(program, role, dir)
                    .map_err(FillError)?;
                // A compile killed by a cancel (its submission's or batch's) must not be
                // cached: the next submission of the problem would read its failure.
                if self.cancel.is_cancelled() {
                    return Err(FillError(JudgeError::Cancelled {
                        role: role.to_owned(),
                    }));
                }
                match outcome {
                    CompileOutcome::Built { .. } => Ok(()),
                    CompileOutcome::Failed { log } => std::fs::write(dir.join(FAILED_MARKER), log)
                        .map_err(|e| FillError(JudgeError::io("write", dir, e))),
                }
            },
        );
        let dir = match filled {
            Ok(dir) => dir,
            Err(FillError(err)) => return BuildResult::Broken(err.to_string()),
        };
        if let Ok(log) = std::fs::read_to_string(dir.join(FAILED_MARKER)) {
            return BuildResult::Failed(log);
        }
        let source = program.source();
        match self.shared.profiles.get(source.language) {
            Some(profile) => BuildResult::Built(Build {
                dir,
                language: source.language,
                profile: Arc::new(profile.clone()),
                vars: source_vars(source, profile),
            }),
            None => BuildResult::Broken(
                JudgeError::NoProfile {
                    program: role.to_owned(),
                    language: source.language,
                }
                .to_string(),
            ),
        }
    }

    /// How the problem's custom comparator is called: `Submission.compare_protocol`, else
    /// judge-system (testlib for one including `testlib.h`; never Kattis by a file name:
    /// [`detect_protocol`]), once per submission.
    pub fn compare_protocol(&self, program: &Program) -> ComparatorProtocol {
        *self.compare_protocol.get_or_init(|| {
            if let Some(configured) = self.submission.compare_protocol {
                return match configured {
                    CompareProtocol::JudgeSystem => ComparatorProtocol::JudgeSystem,
                    CompareProtocol::Testlib => ComparatorProtocol::Testlib,
                    CompareProtocol::Kattis => ComparatorProtocol::Kattis,
                };
            }
            let source = program.source();
            let texts: Vec<(&str, &str)> = source
                .source_files
                .iter()
                .chain(&source.assist_files)
                .map(|a| (a.name.as_str(), a.text.as_deref().unwrap_or_default()))
                .collect();
            detect_protocol(&texts)
        })
    }

    /// How the problem's interactor is called: as [`SubmissionRun::compare_protocol`], with
    /// judge-system read as Kattis (the home system has no interactors; its comparator protocol
    /// is the Kattis one with directories).
    pub fn interactor_protocol(&self, program: &Program) -> ComparatorProtocol {
        match self.compare_protocol(program) {
            ComparatorProtocol::JudgeSystem => ComparatorProtocol::Kattis,
            other => other,
        }
    }

    /// The problem's comparator program (`Submission.compare`), if sent.
    pub fn compare_program(&self) -> Option<&Program> {
        self.submission.compare.as_ref()
    }

    /// The problem's `random` and `standard` programs, if both were sent.
    pub fn generator_programs(&self) -> Option<(&Program, &Program)> {
        self.submission
            .random
            .as_ref()
            .zip(self.submission.standard.as_ref())
    }

    /// The submission linked with Google Test, compiled on first use and shared by its gtest
    /// tasks.
    pub fn gtest_build(&self) -> &BuildResult {
        self.gtest_build.get_or_init(|| {
            if let Err(reason) = gtest::gtest_installed() {
                return BuildResult::Broken(reason);
            }
            let profile = gtest::gtest_build_profile(self.source());
            let dir = self.work.path().join("gtest-build");
            self.special_build("gtest", profile, true, &dir)
        })
    }

    /// The submission compiled for valgrind (its profile plus `-g -O0`), run as
    /// `valgrind ... ./main`.
    pub fn valgrind_build(&self) -> &BuildResult {
        self.valgrind_build.get_or_init(|| {
            let language = self.source().language;
            let Some(base) = self.shared.profiles.get(language) else {
                let err = JudgeError::NoProfile {
                    program: "submission".to_owned(),
                    language,
                };
                return BuildResult::Broken(err.to_string());
            };
            let dir = self.work.path().join("valgrind-build");
            self.special_build("valgrind", valgrind::valgrind_profile(base), false, &dir)
        })
    }

    /// The files of standard test datum `datum`, materialised once per problem version in the
    /// cache (and found once per submission).
    pub fn datum_files(&self, datum: usize) -> Result<TestFiles, JudgeError> {
        if let Some(files) = self.data.get(datum).and_then(OnceLock::get) {
            return Ok(files.clone());
        }
        let files = self.find_datum_files(datum)?;
        if let Some(cell) = self.data.get(datum) {
            let _ = cell.set(files.clone());
        }
        Ok(files)
    }

    /// Fills the cache with the files of the data `datums` (errors are left for the tests that
    /// need them to meet): what a cold cache's tests would otherwise write on their path.
    pub fn prefill_data(&self, datums: &[usize]) {
        let _filling = timing::phase("data.prefill");
        for &datum in datums {
            let _ = self.datum_files(datum);
        }
    }

    fn find_datum_files(&self, datum: usize) -> Result<TestFiles, JudgeError> {
        let Some(test) = self.submission.test_data.get(datum) else {
            return Err(JudgeError::NoDatum(datum));
        };
        let assets = &self.shared.assets;
        let dir = self.shared.cache.get_or_fill(
            &self.problem,
            // `datum-`: one directory per datum, its inputs `in.<name>` and outputs
            // `out.<name>` (the `data-` items before held `in/` and `out/` directories).
            &ProblemCache::content_item(&format!("datum-{datum}"), test),
            |dir: &Path| -> Result<(), FillError> {
                let asset_error = |e: crate::assets::AssetError| FillError(e.into());
                for (i, asset) in test.inputs.iter().enumerate() {
                    let field = format!("test_data[{datum}].inputs[{i}]");
                    assets
                        .store(asset, dir, DATUM_INPUT, &field)
                        .map_err(asset_error)?;
                }
                for (i, asset) in test.outputs.iter().enumerate() {
                    let field = format!("test_data[{datum}].outputs[{i}]");
                    assets
                        .store(asset, dir, DATUM_OUTPUT, &field)
                        .map_err(asset_error)?;
                }
                Ok(())
            },
        );
        let dir = dir.map_err(|FillError(err)| err)?;
        let mut files = TestFiles::default();
        for (i, asset) in test.inputs.iter().enumerate() {
            let field = format!("test_data[{datum}].inputs[{i}]");
            let source = assets.stored_path(asset, &dir, DATUM_INPUT, &field)?;
            if asset.name == STDIN_ASSET {
                files.stdin = Some(source.clone());
            }
            files.inputs.push(BoxFile {
                name: asset.name.clone(),
                source,
            });
        }
        for (i, asset) in test.outputs.iter().enumerate() {
            let field = format!("test_data[{datum}].outputs[{i}]");
            let source = assets.stored_path(asset, &dir, DATUM_OUTPUT, &field)?;
            files.expected.push((asset.name.clone(), source));
        }
        Ok(files)
    }

    /// The submission's source and assist files, materialised into a fresh directory.
    pub fn submission_files(&self, label: &str) -> Result<(PathBuf, Vec<BoxFile>), JudgeError> {
        let dir = self.fresh_dir(label)?;
        let files = self.materialize(self.source(), "submission", &dir)?;
        Ok((dir, files))
    }

    /// The submission's file named `name` (a source or assist file), materialised into `dir`;
    /// `None` when it has none of that name.
    pub fn submission_file(&self, name: &str, dir: &Path) -> Result<Option<PathBuf>, JudgeError> {
        let source = self.source();
        let groups = [
            ("source_files", &source.source_files),
            ("assist_files", &source.assist_files),
        ];
        for (field, assets) in groups {
            if let Some((i, asset)) = assets.iter().enumerate().find(|(_, a)| a.name == name) {
                let field = format!("submission.{field}[{i}]");
                return Ok(Some(self.shared.assets.materialize(asset, dir, &field)?));
            }
        }
        Ok(None)
    }

    /// A program's source and assist files, materialised into `dir`.
    fn materialize(
        &self,
        source: &SourceCode,
        role: &str,
        dir: &Path,
    ) -> Result<Vec<BoxFile>, JudgeError> {
        let mut files = Vec::new();
        let groups = [
            ("source_files", &source.source_files),
            ("assist_files", &source.assist_files),
        ];
        for (field, assets) in groups {
            for (i, asset) in assets.iter().enumerate() {
                let path =
                    self.shared
                        .assets
                        .materialize(asset, dir, &format!("{role}.{field}[{i}]"))?;
                files.push(BoxFile {
                    name: asset.name.clone(),
                    source: path,
                });
            }
        }
        Ok(files)
    }

    /// Materialises a program's files and compiles it into `dir`.
    fn compile_program(
        &self,
        program: &Program,
        role: &str,
        dir: &Path,
    ) -> Result<CompileOutcome, JudgeError> {
        let source = program.source();
        let profile =
            self.shared
                .profiles
                .get(source.language)
                .ok_or_else(|| JudgeError::NoProfile {
                    program: role.to_owned(),
                    language: source.language,
                })?;
        let missing = verdict_scripts::missing_programs(profile);
        if !missing.is_empty() {
            let message =
                verdict_scripts::not_installed_message(source.language, profile, &missing);
            return Err(JudgeError::ToolchainMissing(message));
        }
        let materializing = timing::phase("compile.sources");
        let sources = self.fresh_dir(&format!("{role}-src"))?;
        let files = self.materialize(source, role, &sources)?;
        materializing.end();
        let compile = &self.shared.config.compile;
        let limits = match role {
            "submission" => compile.limits(),
            _ => compile.problem_limits(),
        };
        let outcome = self.executor().compile(
            &self.cancel,
            &CompileRequest {
                language: source.language,
                profile: Arc::new(profile.clone()),
                source,
                files: &files,
                build_dir: dir,
                limits: &limits,
            },
        )?;
        // The sources were placed into the build dir: their own dir goes off the critical path.
        self.discard(sources);
        Ok(outcome)
    }

    /// Compiles the submission's files with `profile` into `dir`; with `units_only`, only
    /// C/C++ translation units are passed to the compiler (headers stay beside them).
    fn special_build(
        &self,
        label: &str,
        profile: LanguageProfile,
        units_only: bool,
        dir: &Path,
    ) -> BuildResult {
        let attempt = || -> Result<CompileOutcome, JudgeError> {
            let missing = verdict_scripts::missing_programs(&profile);
            if !missing.is_empty() {
                return Err(JudgeError::ToolMissing {
                    programs: missing.join(", "),
                    packages: profile.package.clone(),
                });
            }
            let original = self.source();
            let source = if units_only {
                let (units, rest): (Vec<Asset>, Vec<Asset>) = original
                    .source_files
                    .iter()
                    .cloned()
                    .partition(|a| is_unit(&a.name));
                SourceCode {
                    source_files: units,
                    assist_files: rest
                        .into_iter()
                        .chain(original.assist_files.clone())
                        .collect(),
                    ..original.clone()
                }
            } else {
                original.clone()
            };
            let (sources, files) = self.submission_files(&format!("{label}-src"))?;
            let outcome = self.executor().compile(
                &self.cancel,
                &CompileRequest {
                    language: source.language,
                    profile: Arc::new(profile.clone()),
                    source: &source,
                    files: &files,
                    build_dir: dir,
                    limits: &self.shared.config.compile.limits(),
                },
            );
            self.discard(sources);
            Ok(outcome?)
        };
        BuildResult::from_attempt(attempt())
    }
}
