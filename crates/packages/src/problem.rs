//! A problem as a package describes it, before it becomes Submissions: its kind, limits, test
//! groups and cases (with the settings each inherits), its validators and reference
//! submissions.

use std::path::PathBuf;
use verdict_contracts::Program;

/// The kinds of problem of the package format (verdict supports pass-fail, scoring,
/// interactive, multi-pass and submit-answer ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kind {
    /// Scores per test group (`type: scoring`).
    pub scoring: bool,
    /// The program talks to the validator (`type: interactive`, `validation: custom interactive`).
    pub interactive: bool,
    /// The program runs again on the input its validator wrote (`type: multi-pass`, legacy
    /// `validation: custom multi-pass`).
    pub multi_pass: bool,
    /// Every accepted test's score is its validator's `score.txt` (legacy `validation: custom
    /// score`; from 2023-07 on a scoring problem's validator may write one, not must).
    pub custom_score: bool,
    /// A submission is the answers to the test cases, not a program (`type: submit-answer`):
    /// the answer to case `NAME` is its file `NAME.out` (docs/packages.md).
    pub submit_answer: bool,
}

/// A program of the package, or why verdict cannot run it (an unknown language, a
/// checktestdata script).
pub type Runnable = Result<Program, String>;

/// A problem package, read.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The package directory.
    pub dir: PathBuf,
    /// Its short name (the directory's name): the Submissions' `prob_id`.
    pub short_name: String,
    /// The `problem_format_version` (`legacy` when absent).
    pub format: String,
    /// Its kind.
    pub kind: Kind,
    /// The time limit, when the package gives one (`limits.time_limit`, or a `.timelimit`
    /// file); else `judge package verify` derives it from the runs that bound it ([`crate::timing`]).
    pub time_limit_ms: Option<u64>,
    /// The time limit is at least this times the slowest run that bounds it from below.
    pub ac_to_time_limit: f64,
    /// A time-limit-exceeded submission must run at least this times the limit.
    pub time_limit_to_tle: f64,
    /// A derived time limit is a whole multiple of this (2025-09 `limits.time_resolution`,
    /// default 1 s).
    pub time_resolution_ms: u64,
    /// Memory in MiB (`limits.memory`, default 2048).
    pub memory_mib: u64,
    /// Output in MiB (`limits.output`, default 8).
    pub output_mib: u64,
    /// The most passes of a multi-pass problem (`limits.validation_passes`, default 2).
    pub validation_passes: u32,
    /// The root test group (`data/`): `sample` and `secret` below it.
    pub data: Group,
    /// The output validator (or interactor), if the package has one; else the default one.
    pub output_validator: Option<Program>,
    /// Its dialect: Kattis (ICPC packages) or testlib (Polygon).
    pub validator_protocol: verdict_contracts::CompareProtocol,
    /// The exit code of an input validator that accepts an input (Kattis 42, testlib 0).
    pub input_valid_exit: i32,
    /// The input validators by their path in the package, each a program or why verdict
    /// cannot run it (`verify` reports those skipped).
    pub input_validators: Vec<(String, Runnable)>,
    /// The reference submissions, by the verdict their directory claims.
    pub submissions: Vec<Reference>,
    /// A 2025-09 scoring problem graded as that specification says (`max_score`,
    /// `score_aggregation`, `require_pass`; "Result aggregation"); `None`: the default grader
    /// over [`Settings`].
    pub spec_scoring: Option<SpecScoring>,
    /// Groups scored only when every test case of the groups they name was accepted: a
    /// 2025-09 `require_pass` (under [`SpecScoring`]) or a Polygon group's `dependencies`,
    /// by group name (`secret/group2` requires `sample`, `secret/group1`).
    pub requires: Vec<(String, Vec<String>)>,
}

/// How a 2025-09 group's score comes from its test cases or groups (`score_aggregation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreAggregation {
    /// Its maximum when every test case is accepted, else 0 (`pass-fail`).
    PassFail,
    /// The sum of the scores.
    Sum,
    /// The smallest score.
    Min,
}

/// The scoring of `secret` or a test data group of a 2025-09 scoring problem, its defaults
/// applied (`secret`: at most 100, `sum`; a group: unbounded, `pass-fail`).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupScoring {
    /// Its path under `data/` (`secret`, `secret/group1`).
    pub name: String,
    /// `max_score`; `None`: `unbounded`.
    pub max_score: Option<f64>,
    /// `score_aggregation`.
    pub aggregation: ScoreAggregation,
}

/// A 2025-09 scoring problem's scoring: `secret` and its test data groups (its subdirectories
/// with a `test_group.yaml`), in order; with none, `secret`'s test cases score directly.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecScoring {
    /// `data/secret`.
    pub secret: GroupScoring,
    /// Its test data groups, in name order.
    pub groups: Vec<GroupScoring>,
}

/// A test group: a directory of `data/` with its settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// Its path under `data/` (`""` for the root, `secret/subtask1`).
    pub name: String,
    /// Its settings (its own `testdata.yaml` / `test_group.yaml` over its parent's).
    pub settings: Settings,
    /// Its test cases and subgroups, in the format's order (lexicographic by name).
    pub items: Vec<Item>,
}

/// A test case or a subgroup.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A test case.
    Case(Case),
    /// A subgroup.
    Group(Group),
}

/// One test case: `NAME.in` and `NAME.ans`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Its path under `data/` without the extension (`secret/01`).
    pub name: String,
    /// The input file.
    pub input: PathBuf,
    /// The answer file (`None`: an interactive problem may have none).
    pub answer: Option<PathBuf>,
    /// Its own configuration (2023-07 and later: `NAME.yaml`) and input files (`NAME.files/`).
    pub config: CaseConfig,
}

impl Case {
    /// The program's arguments on this case: its own `args`, else its group's.
    pub fn args<'a>(&'a self, settings: &'a Settings) -> &'a [String] {
        self.config.args.as_deref().unwrap_or(&settings.args)
    }

    /// The output validator's arguments on this case: its own, else its group's.
    pub fn output_validator_args<'a>(&'a self, settings: &'a Settings) -> &'a [String] {
        self.config
            .output_validator_args
            .as_deref()
            .unwrap_or(&settings.output_validator_flags)
    }

    /// The arguments of the input validator `validator` (its name in the package) on this case.
    pub fn input_validator_args(&self, settings: &Settings, validator: &str) -> Vec<String> {
        self.config
            .input_validator_args
            .as_ref()
            .unwrap_or(&settings.input_validator_flags)
            .for_validator(validator)
    }
}

/// A test case's own configuration (`NAME.yaml`) and input files (`NAME.files/`); what is not
/// set is its group's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseConfig {
    /// `args`: the program's arguments.
    pub args: Option<Vec<String>>,
    /// `output_validator_args`.
    pub output_validator_args: Option<Vec<String>>,
    /// `input_validator_args`.
    pub input_validator_args: Option<ValidatorArgs>,
    /// `NAME.files/`: files placed in the program's working directory.
    pub files: Option<PathBuf>,
}

/// Input validators' arguments: the same for each, or by validator (`input_validator_args` as
/// a map: a validator it does not name gets none).
#[derive(Debug, Clone, PartialEq)]
pub enum ValidatorArgs {
    /// Every validator gets these.
    All(Vec<String>),
    /// Each named validator its own (by its name: the file or directory name, with or
    /// without the extension).
    ByName(Vec<(String, Vec<String>)>),
}

impl Default for ValidatorArgs {
    fn default() -> Self {
        ValidatorArgs::All(Vec::new())
    }
}

impl ValidatorArgs {
    /// The arguments of `validator` (a path like `input_validators/check.py`).
    pub fn for_validator(&self, validator: &str) -> Vec<String> {
        match self {
            ValidatorArgs::All(args) => args.clone(),
            ValidatorArgs::ByName(named) => {
                let path = std::path::Path::new(validator);
                let file = path
                    .file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or(validator);
                let stem = path.file_stem().and_then(|f| f.to_str()).unwrap_or(file);
                named
                    .iter()
                    .find(|(name, _)| name == file || name == stem || name == validator)
                    .map(|(_, args)| args.clone())
                    .unwrap_or_default()
            }
        }
    }
}

/// How a group's results aggregate (the format's default grader).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Aggregation {
    /// The sum of the scores (the default).
    #[default]
    Sum,
    /// Their mean.
    Avg,
    /// The smallest.
    Min,
    /// The largest.
    Max,
}

/// A group's settings, inherited by its subgroups unless they set their own.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Arguments of the output validator.
    pub output_validator_flags: Vec<String>,
    /// Arguments of the input validators.
    pub input_validator_flags: ValidatorArgs,
    /// The program's arguments (2023-07 and later `args`).
    pub args: Vec<String>,
    /// The score of an accepted test case (default 1).
    pub accept_score: f64,
    /// The score of a rejected test case (default 0).
    pub reject_score: f64,
    /// The group's score range, when set.
    pub range: Option<(f64, f64)>,
    /// How the children's scores aggregate.
    pub aggregation: Aggregation,
    /// The group's verdict is its worst child's (`worst_error`), else its first failing
    /// child's (`first_error`, the default).
    pub worst_error: bool,
    /// The group is accepted if any child is (`accept_if_any_accepted`).
    pub accept_if_any_accepted: bool,
    /// The group is always accepted (`always_accept`).
    pub always_accept: bool,
    /// The root ignores the `sample` group (`ignore_sample`).
    pub ignore_sample: bool,
    /// Stop at the first rejected child (`on_reject: break`, the default) or go on.
    pub break_on_reject: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            output_validator_flags: Vec::new(),
            input_validator_flags: ValidatorArgs::default(),
            args: Vec::new(),
            accept_score: 1.0,
            reject_score: 0.0,
            range: None,
            aggregation: Aggregation::Sum,
            worst_error: false,
            accept_if_any_accepted: false,
            always_accept: false,
            ignore_sample: false,
            break_on_reject: true,
        }
    }
}

/// What a reference submission's directory claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// `accepted`: accepted (full score on a scoring problem).
    Accepted,
    /// `partially_accepted`: accepted with a score strictly inside the range.
    PartiallyAccepted,
    /// `wrong_answer`.
    WrongAnswer,
    /// `time_limit_exceeded`.
    TimeLimitExceeded,
    /// `run_time_error`.
    RunTimeError,
    /// `slow_accepted` (problemtools): accepted or over the limit, never wrong.
    SlowAccepted,
    /// `rejected` (2025-09): anything but accepted.
    Rejected,
    /// A directory `submissions.yaml` adds, or a default one whose `permitted` / `required` it
    /// replaces (2025-09 "Default directories"): only the reference's `requirements` decide.
    Custom,
}

impl Expected {
    /// The directory name.
    pub fn dir(self) -> &'static str {
        match self {
            Expected::Accepted => "accepted",
            Expected::PartiallyAccepted => "partially_accepted",
            Expected::WrongAnswer => "wrong_answer",
            Expected::TimeLimitExceeded => "time_limit_exceeded",
            Expected::RunTimeError => "run_time_error",
            Expected::SlowAccepted => "slow_accepted",
            Expected::Rejected => "rejected",
            Expected::Custom => "custom",
        }
    }

    /// The `permitted` and `required` verdicts the 2025-09 format gives a default directory
    /// (its "Default directories" table), which a rule on the directory's own name in
    /// `submissions.yaml` inherits where it sets neither.
    pub fn default_rule(
        self,
    ) -> (
        Option<&'static [&'static str]>,
        Option<&'static [&'static str]>,
    ) {
        match self {
            Expected::Accepted => (Some(&["AC"]), None),
            Expected::Rejected => (None, Some(&["RTE", "TLE", "WA"])),
            Expected::WrongAnswer => (Some(&["AC", "WA"]), Some(&["WA"])),
            Expected::TimeLimitExceeded => (Some(&["AC", "TLE"]), Some(&["TLE"])),
            Expected::RunTimeError => (Some(&["AC", "RTE"]), Some(&["RTE"])),
            Expected::PartiallyAccepted | Expected::SlowAccepted | Expected::Custom => (None, None),
        }
    }

    /// From a directory name.
    pub fn from_dir(name: &str) -> Option<Expected> {
        [
            Expected::Accepted,
            Expected::PartiallyAccepted,
            Expected::WrongAnswer,
            Expected::TimeLimitExceeded,
            Expected::RunTimeError,
            Expected::SlowAccepted,
            Expected::Rejected,
        ]
        .into_iter()
        .find(|e| e.dir() == name)
    }
}

/// A reference submission.
#[derive(Debug, Clone)]
pub struct Reference {
    /// Its path under `submissions/` (`accepted/hello.cc`).
    pub name: String,
    /// What its directory claims.
    pub expected: Expected,
    /// The program, or why it cannot be judged here (an unknown language).
    pub program: Runnable,
    /// What `submissions/submissions.yaml` requires of it besides its directory's claim.
    pub requirements: Vec<Requirement>,
}

impl Reference {
    /// The directory under `submissions/` it is in (`accepted`, or a custom one).
    pub fn directory(&self) -> &str {
        self.name.split('/').next().unwrap_or_default()
    }
}

/// A requirement `submissions/submissions.yaml` puts on the references its key matches
/// (2025-09 "Example submissions": `permitted`, `required`, `score`), over every test case or
/// the ones a test-data glob matches.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    /// Where it is written: the submission glob, then the test-data glob when scoped.
    pub source: String,
    /// The test-data glob (`secret/*-hard`, `sample`); `None`: every test case.
    pub cases: Option<String>,
    /// Every test case's verdict is one of these (`AC`, `WA`, `TLE`, `RTE`).
    pub permitted: Option<Vec<String>>,
    /// At least one test case's verdict is one of these.
    pub required: Option<Vec<String>>,
    /// The score is in this inclusive range: the submission's, or with `cases` the score of
    /// the group it names (`secret` or a 2025-09 test data group).
    pub score: Option<(f64, f64)>,
    /// This text is in the validator's message (`judgemessage.txt`) of at least one test case.
    pub message: Option<String>,
    /// It is written on a default directory's own name (`accepted:`) and replaces that
    /// directory's claim (its unset `permitted` / `required` inherited from the default).
    pub replaces_directory: bool,
    /// `use_for_time_limit` (`None`: as `permitted` and `required` make it; see
    /// [`crate::timing`]).
    pub use_for_time_limit: Option<TimeLimitUse>,
}

/// How a rule of `submissions.yaml` takes part in the time limit (2025-09 "Timelimit
/// inference"), as its `use_for_time_limit` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeLimitUse {
    /// `false`: not at all.
    Not,
    /// `lower`: its runs bound the limit from below (as `permitted: [AC, WA, RTE]` does).
    Lower,
    /// `upper`: it must time out above the limit times the margin (as `required: [TLE]` does).
    Upper,
}

impl Requirement {
    /// Whether checking it needs every test case's result (no lazy judging).
    pub fn reads_every_case(&self) -> bool {
        self.permitted.is_some()
            || self.required.is_some()
            || self.message.is_some()
            || self.use_for_time_limit.is_some()
    }
}

impl Group {
    /// Every test case below the group, in order, with the settings that apply to it.
    pub fn cases(&self) -> Vec<(&Case, &Settings)> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                Item::Case(c) => out.push((c, &self.settings)),
                Item::Group(g) => out.extend(g.cases()),
            }
        }
        out
    }
}
