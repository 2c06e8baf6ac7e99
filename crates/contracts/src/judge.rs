//! The programming judge's wire format: `Submission` in, `JudgeReport` out
//! (the judge request format,
//! restated in `docs/contracts.md` and `docs/judge.md`). Field names and strings are exactly the contract's.

use crate::reports::{GoogleTestReport, MemoryReport, StaticReport};
use crate::score::Score;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A judge request: one submission of one problem with its judge tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Submission {
    /// The kind of submission; this judge implements `programming`, and `output` when every
    /// task is an answer test (`run_script: "answer"`).
    pub sub_type: SubType,
    /// Which platform sent the request.
    pub category: String,
    /// The problem id; the judge caches per problem.
    pub prob_id: String,
    /// The submission id.
    pub sub_id: String,
    /// When the problem last changed; a newer value refreshes the problem's cache.
    pub updated_at: i64,
    /// The judge tasks, in order.
    pub judge_tasks: Vec<JudgeTask>,
    /// The problem's standard test data.
    #[serde(default)]
    pub test_data: Vec<TestDatum>,
    /// The submitted program.
    pub submission: Program,
    /// The standard program (for random tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard: Option<Program>,
    /// The random input generator (for random tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random: Option<Program>,
    /// The custom comparator (for `compare_script: ""`), or the interactor (for
    /// `run_script: "interactive"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Program>,
    /// Extension (docs/interactive.md): how `compare` is called. Absent: judge-system, or
    /// testlib when its sources include `testlib.h`, or kattis for an interactor (a kattis
    /// validator is called as one only when this says so, whatever its files are named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare_protocol: Option<CompareProtocol>,
}

wire_enum! {
    /// Extension: how the custom comparator or interactor is called and read.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum CompareProtocol {
        /// judge-system 4.0: `compare input_dir user_output_dir answer_dir feedback_dir`, exit 42/43/44/54.
        JudgeSystem = "judge-system",
        /// testlib: `checker input output answer` (`interactor input output answer`), exit 0/1/2/3/7.
        Testlib = "testlib",
        /// Kattis / ICPC: `validator input answer feedback_dir [flags]`, output on stdin, exit 42/43.
        Kattis = "kattis",
    }
}

wire_enum! {
    /// The kind of a submission.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum SubType {
        /// A programming problem.
        Programming = "programming",
        /// A program-output problem (judged when every task is an answer test).
        Output = "output",
        /// A multiple-choice problem.
        Choice = "choice",
        /// A fill-in-the-program problem.
        ProgramBlankFilling = "program_blank_filling",
    }
}

/// One judge task: compile, a standard/random test, a memory test, a Google Test or a static test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JudgeTask {
    /// The check script.
    pub check_script: CheckScript,
    /// The run script (`null` for compile and static tasks).
    #[serde(default)]
    pub run_script: Option<RunScript>,
    /// The compare script (`null` for compile and static tasks; `""` for the custom comparator).
    #[serde(default)]
    pub compare_script: Option<CompareScript>,
    /// Whether the task generates random test data.
    #[serde(default)]
    pub is_random: bool,
    /// Index into `test_data`; `-1` or `null` when the task uses no standard datum.
    #[serde(default)]
    pub testcase_id: Option<i64>,
    /// Index of the task this one depends on; `-1` for none.
    #[serde(default = "minus_one")]
    pub depends_on: i64,
    /// When the dependency lets this task run.
    #[serde(default)]
    pub depends_cond: Option<DependsCond>,
    /// Memory limit in KB; `-1` or `null` for none.
    #[serde(default)]
    pub memory_limit: Option<i64>,
    /// Time limit in milliseconds.
    pub time_limit: i64,
    /// Output (file write) limit in KB; `-1` or `null` for none.
    #[serde(default)]
    pub file_limit: Option<i64>,
    /// Process limit; `-1` or `null` for none.
    #[serde(default)]
    pub proc_limit: Option<i64>,
    /// Extra arguments for the program (e.g. `--gtest_also_run_disabled_tests`).
    #[serde(default)]
    pub run_args: Option<Vec<String>>,
    /// Extension (docs/interactive.md): flags for `compare_script: "icpc-default"` and extra
    /// arguments of a Kattis validator or interactor (the package format's
    /// `output_validator_flags`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator_flags: Option<Vec<String>>,
    /// Extension (docs/interactive.md, "Multi-pass tests"): the most passes of a multi-pass
    /// test. After a pass the Kattis validator (or interactor) accepted with a
    /// `feedback/nextpass.in`, the program runs again with that file as its input, up to this
    /// many passes (the package format's `limits.validation_passes`). Absent: one pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<i64>,
    /// Extension (docs/interactive.md, "Submit-answer tests"): with `run_script: "answer"`, the
    /// name of the submission's file (a `source_files` or `assist_files` name) compared as this
    /// test's output; a submission without it gets `Wrong Answer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_file: Option<String>,
}

fn minus_one() -> i64 {
    -1
}

/// `Some(v)` for a set limit, `None` for `null` or `-1`.
fn limit(value: Option<i64>) -> Option<u64> {
    value.and_then(|v| u64::try_from(v).ok())
}

impl JudgeTask {
    /// The test datum index, if the task uses one.
    pub fn testcase(&self) -> Option<usize> {
        self.testcase_id.and_then(|v| usize::try_from(v).ok())
    }
    /// The index of the parent task, if any.
    pub fn parent(&self) -> Option<usize> {
        usize::try_from(self.depends_on).ok()
    }
    /// The memory limit in KB, if set.
    pub fn memory_limit_kb(&self) -> Option<u64> {
        limit(self.memory_limit)
    }
    /// The output limit in KB, if set.
    pub fn file_limit_kb(&self) -> Option<u64> {
        limit(self.file_limit)
    }
    /// The process limit, if set.
    pub fn proc_limit(&self) -> Option<u64> {
        limit(self.proc_limit)
    }
    /// The time limit in milliseconds (a negative value counts as none).
    pub fn time_limit_ms(&self) -> Option<u64> {
        u64::try_from(self.time_limit).ok()
    }
    /// The extra run arguments.
    pub fn run_args(&self) -> &[String] {
        self.run_args.as_deref().unwrap_or(&[])
    }
    /// The validator flags.
    pub fn validator_flags(&self) -> &[String] {
        self.validator_flags.as_deref().unwrap_or(&[])
    }
    /// The most passes of a multi-pass test (`passes`), if set and valid (at least 1).
    pub fn passes(&self) -> Option<u32> {
        self.passes
            .and_then(|p| u32::try_from(p).ok())
            .filter(|&p| p >= 1)
    }
}

wire_enum! {
    /// A check script id.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum CheckScript {
        /// Compile the submission (and the standard, random and compare programs).
        Compile = "compile",
        /// Run a test.
        Standard = "standard",
        /// Static analysis.
        Static = "static",
    }
}

wire_enum! {
    /// A run script id.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum RunScript {
        /// Run the program on the test datum.
        Standard = "standard",
        /// Run the Google Test binary.
        Gtest = "gtest",
        /// Run the program under valgrind memcheck.
        Valgrind = "valgrind",
        /// Extension: run the program beside the interactor (`Submission.compare`), their
        /// stdin and stdout crossed (docs/interactive.md).
        Interactive = "interactive",
        /// Extension: run nothing; the submission's file named by `answer_file` is the output
        /// compared (a submit-answer / output-only test, docs/interactive.md).
        Answer = "answer",
    }
}

wire_enum! {
    /// A compare script id.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum CompareScript {
        /// Lines compared with runs of blanks as one; trailing blanks and blank lines ignored.
        DiffIgnSpace = "diff-ign-space",
        /// Byte-exact comparison; whitespace-only differences are a Presentation Error.
        DiffAll = "diff-all",
        /// The memory test's report decides.
        Valgrind = "valgrind",
        /// The Google Test report decides.
        Gtest = "gtest",
        /// The problem's custom comparator (`Submission.compare`).
        Custom = "",
        /// Extension: the ICPC package format's default output validator, with the task's
        /// `validator_flags` (docs/interactive.md).
        IcpcDefault = "icpc-default",
    }
}

impl CompareScript {
    /// Whether this script compares a standard or random test's output (so it goes with
    /// `run_script: "standard"`), rather than reading a special test's report.
    pub fn compares_output(self) -> bool {
        match self {
            CompareScript::DiffIgnSpace
            | CompareScript::DiffAll
            | CompareScript::Custom
            | CompareScript::IcpcDefault => true,
            CompareScript::Valgrind | CompareScript::Gtest => false,
        }
    }

    /// The scripts that compare output, quoted, as messages list them (in the contract's
    /// order, `""` last): `"diff-ign-space", "diff-all", "icpc-default" or ""` (`last` joins the
    /// last two).
    pub fn output_scripts(last: &str) -> String {
        let mut scripts: Vec<CompareScript> = CompareScript::ALL
            .into_iter()
            .filter(|c| c.compares_output())
            .collect();
        scripts.sort_by_key(|c| *c == CompareScript::Custom);
        let quoted: Vec<String> = scripts
            .iter()
            .map(|c| format!("{:?}", c.as_str()))
            .collect();
        match quoted.split_last() {
            Some((tail, head)) if !head.is_empty() => format!("{}{last}{tail}", head.join(", ")),
            _ => quoted.join(""),
        }
    }
}

wire_enum! {
    /// When a dependent task may run.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum DependsCond {
        /// The parent is `Accepted`.
        Accepted = "ACCEPTED",
        /// The parent did not exceed its time limit (nor fail to compile, compare or generate).
        NotTimeLimit = "NOT_TIME_LIMIT",
        /// The parent scored above zero.
        PartialCorrect = "PARTIAL_CORRECT",
    }
}

/// One group of the problem's standard test data.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TestDatum {
    /// Input files; `testdata.in` is the program's standard input.
    #[serde(default)]
    pub inputs: Vec<Asset>,
    /// Expected output files; `testdata.out` is compared with the program's standard output.
    #[serde(default)]
    pub outputs: Vec<Asset>,
    /// verdict's extension (additive): the test's name for people (a package's `secret/01`),
    /// shown beside its number on the page and in tables; judging never reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The name of the input asset fed as standard input.
pub const STDIN_ASSET: &str = "testdata.in";
/// The name of the output asset compared with standard output.
pub const STDOUT_ASSET: &str = "testdata.out";

/// A file: inline text, a remote URL or a path on the judge machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Asset {
    /// Where the content comes from.
    #[serde(rename = "type")]
    pub kind: AssetKind,
    /// The relative path of the file inside the box.
    pub name: String,
    /// The content, for `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The URL fetched by HTTP GET, for `remote`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The path on the judge machine, for `local`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Asset {
    /// A `text` asset.
    pub fn text(name: impl Into<String>, text: impl Into<String>) -> Self {
        Asset {
            kind: AssetKind::Text,
            name: name.into(),
            text: Some(text.into()),
            url: None,
            path: None,
        }
    }
}

wire_enum! {
    /// The kind of an asset.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    pub enum AssetKind {
        /// Inline text.
        Text = "text",
        /// Downloaded by HTTP GET.
        Remote = "remote",
        /// A file on the judge machine.
        Local = "local",
    }
}

/// A program; today always source code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Program {
    /// Source code to compile (or interpret).
    SourceCode(SourceCode),
}

impl Program {
    /// The source code of the program.
    pub fn source(&self) -> &SourceCode {
        match self {
            Program::SourceCode(source) => source,
        }
    }
}

/// Source code in one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SourceCode {
    /// The language (or `make` for a custom build).
    pub language: Language,
    /// Java/Kotlin/Scala main class or Python entry script; `null` means the first source file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<String>,
    /// The source files; the first is the main file when `entry_point` is null.
    pub source_files: Vec<Asset>,
    /// Header and helper files.
    #[serde(default)]
    pub assist_files: Vec<Asset>,
    /// Extra compiler arguments, appended to the language's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_command: Option<Vec<String>>,
}

wire_enum! {
    /// The contract's languages.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,)]
    #[allow(missing_docs)]
    pub enum Language {
        Ada = "ada",
        Awk = "awk",
        Bash = "bash",
        C = "c",
        Cpp = "cpp",
        Csharp = "csharp",
        Fortran95 = "fortran95",
        Fsharp = "fsharp",
        Go = "go",
        Haskell = "haskell",
        Java = "java",
        Js = "js",
        Kotlin = "kotlin",
        Lua = "lua",
        Make = "make",
        Octave = "octave",
        Pas = "pas",
        Perl = "perl",
        Php = "php",
        Python2 = "python2",
        Python3 = "python3",
        R = "r",
        Ruby = "ruby",
        Rust = "rust",
        Scala = "scala",
        Swift = "swift",
        Typescript = "typescript",
        Vbnet = "vbnet",
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The judge's answer to a Submission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JudgeReport {
    /// As in the request.
    pub sub_type: String,
    /// As in the request.
    pub category: String,
    /// As in the request.
    pub prob_id: String,
    /// As in the request.
    pub sub_id: String,
    /// One result per judge task, in task order; empty when the request is invalid.
    pub results: Vec<JudgeTaskResult>,
    /// Why the request is invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl JudgeReport {
    /// A report for `submission` echoing its identifying fields, with `results` and no message.
    pub fn echoing(submission: &Submission, results: Vec<JudgeTaskResult>) -> Self {
        JudgeReport {
            sub_type: submission.sub_type.as_str().to_owned(),
            category: submission.category.clone(),
            prob_id: submission.prob_id.clone(),
            sub_id: submission.sub_id.clone(),
            results,
            message: None,
        }
    }
}

/// The result of one judge task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JudgeTaskResult {
    /// The verdict.
    pub status: JudgeStatus,
    /// The score, `"n/d"`.
    pub score: Score,
    /// CPU time in milliseconds.
    pub run_time: u64,
    /// Peak resident memory in KB.
    pub memory_used: u64,
    /// The detailed report of gtest, memory and static tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<TaskReport>,
    /// The task's log: the compiler's message, a system error's reason, or judge notes.
    pub error_log: String,
    /// verdict's extension (additive): for a Wrong Answer or Presentation Error on the
    /// program's standard output, the expected and received lines around the first difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<Box<OutputDiff>>,
    /// verdict's extension (additive): the score a Kattis / ICPC output validator
    /// (`compare_protocol: "kattis"`) gave an accepted test in its feedback directory, or the
    /// points a testlib checker gave (`points X`), for a package's grader; `score` stays the
    /// validator's verdict (accepted: `"1/1"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator_score: Option<ValidatorScore>,
}

/// A test's score as a Kattis / ICPC output validator wrote it (the problem package format's
/// scoring problems): exactly one of the two files, a finite non-negative number.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ValidatorScore {
    /// `score.txt`: the test's score itself (`{"score": 17.5}`); also the points a testlib
    /// checker gave (`points X`, exit 7), which a Polygon package counts as the test's score.
    Score(f64),
    /// `score_multiplier.txt` (2025-09): a fraction in `[0, 1]` of the test's maximum score
    /// (`{"multiplier": 0.5}`).
    Multiplier(f64),
}

/// The first difference between a test's expected output and the program's, with a few lines
/// around it on each side (DOMjudge's jury view), bounded: at most 3 lines before and 3 after
/// the differing one, each cut to 512 characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutputDiff {
    /// The output compared (`testdata.out`: the program's standard output).
    pub name: String,
    /// The expected output around the difference.
    pub expected: DiffExcerpt,
    /// The program's output around the difference.
    pub received: DiffExcerpt,
}

/// A few consecutive lines of one side of an [`OutputDiff`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiffExcerpt {
    /// The number (from 1) of the first line in `lines`.
    pub first_line: u64,
    /// The number of the line that differs; one past the last line when the file ends there.
    pub line: u64,
    /// The lines from `first_line` on, without their line ends; invalid UTF-8 replaced, a line
    /// longer than 512 characters cut and ended with `…`.
    pub lines: Vec<String>,
    /// Whether the file goes on after `lines`.
    pub more: bool,
}

impl JudgeTaskResult {
    /// A result with this status, its default score, no cost and this log.
    pub fn with_status(status: JudgeStatus, error_log: impl Into<String>) -> Self {
        JudgeTaskResult {
            status,
            score: if status == JudgeStatus::Accepted {
                Score::FULL
            } else {
                Score::ZERO
            },
            run_time: 0,
            memory_used: 0,
            report: None,
            error_log: error_log.into(),
            validator_score: None,
            diff: None,
        }
    }
}

/// A task's detailed report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TaskReport {
    /// A Google Test report.
    GoogleTest(GoogleTestReport),
    /// A static-analysis report (oclint's shape).
    Static(StaticReport),
    /// A valgrind memcheck report.
    Memory(MemoryReport),
}

wire_enum! {
    /// A judge task's status, spelled exactly as the contract does.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
    #[allow(missing_docs)]
    pub enum JudgeStatus {
        Pending = "Pending",
        Running = "Running",
        Accepted = "Accepted",
        PartialCorrect = "Partial Correct",
        CompilationError = "Compilation Error",
        ExecutableCompilationError = "Executable Compilation Error",
        DependencyNotSatisfied = "Dependency Not Satisfied",
        WrongAnswer = "Wrong Answer",
        RuntimeError = "Runtime Error",
        TimeLimitExceeded = "Time Limit Exceeded",
        MemoryLimitExceeded = "Memory Limit Exceeded",
        OutputLimitExceeded = "Output Limit Exceeded",
        PresentationError = "Presentation Error",
        RestrictFunction = "Restrict Function",
        OutOfContestTime = "Out of Contest Time",
        Compiling = "Compiling",
        SegmentationFault = "Segmentation Fault",
        FloatingPointError = "Floating Point Error",
        RandomGenError = "Random Gen Error",
        CompareError = "Compare Error",
        SystemError = "System Error",
    }
}

impl JudgeStatus {
    /// Whether the task is still waiting or running.
    pub fn is_in_progress(self) -> bool {
        matches!(
            self,
            JudgeStatus::Pending | JudgeStatus::Running | JudgeStatus::Compiling
        )
    }
}

impl std::fmt::Display for JudgeStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
