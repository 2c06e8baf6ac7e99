//! The judge plan: a validated `Submission`'s tasks turned once into typed values (ripgrep's
//! LowArgs -> HiArgs). Each [`PlannedTask`] knows its kind, where its data comes from, its
//! limits (resolved here and nowhere else), its parent and condition; tasks receive their
//! plan item and never read `judge_tasks` again.

use crate::config::{JudgeConfig, SpecialConfig};
use verdict_compare::{BuiltinComparator, DefaultValidator};
use verdict_contracts::{
    CheckScript, CompareScript, DependsCond, JudgeTask, RunScript, Submission,
};
use verdict_scripts::RunLimits;

/// A task's CPU time when `time_limit` is negative (no limit given).
const DEFAULT_TIME_MS: u64 = 1000;
/// The static analyser's output limit in KB.
const STATIC_OUTPUT_KB: u64 = 64 * 1024;
/// The static analyser's processes and threads.
const STATIC_PROCESSES: u64 = 16;
/// KB added to a gtest task's output limit for gtest's own XML report (written into the box).
const GTEST_XML_ALLOWANCE_KB: u64 = 16 * 1024;

/// Every task of a submission, planned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JudgePlan {
    /// One item per `judge_tasks` entry, in order.
    pub tasks: Vec<PlannedTask>,
}

/// One task, ready to run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedTask {
    /// Its index in `judge_tasks` (for logs and work-directory names).
    pub index: usize,
    /// What it does.
    pub kind: TaskKind,
    /// The task it waits for, if any.
    pub parent: Option<Dependency>,
}

impl PlannedTask {
    /// The test datum a standard test runs on, if any.
    pub fn datum(&self) -> Option<usize> {
        match &self.kind {
            TaskKind::Standard(test) => test.datum,
            TaskKind::Interactive(test) => test.datum,
            TaskKind::Answer(test) => test.datum,
            _ => None,
        }
    }
}

/// A parent and the condition its result must meet (design #12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dependency {
    /// The parent's index (always earlier: validated).
    pub task: usize,
    /// The condition; a missing `depends_cond` is read as `ACCEPTED`, the strictest.
    pub cond: DependsCond,
}

/// The kinds of task, each with what it needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TaskKind {
    /// Compile the submission (its plain and/or gtest build) and the problem's programs.
    Compile {
        /// Whether some task runs the plain build (any test that is not a gtest task).
        plain: bool,
        /// Whether some task runs the gtest build.
        gtest: bool,
    },
    /// A standard test on a test datum (or on no data).
    Standard(TestRun),
    /// A random test: generated data, then as a standard test.
    Random(TestRun, Generator),
    /// An interactive test: the program beside the interactor, or a multi-pass test (its
    /// passes plain or interactive) (docs/interactive.md).
    Interactive(InteractiveRun),
    /// A memory test: the debug build under valgrind.
    Memory {
        /// Where its data come from.
        data: DataSource,
        /// `run_args`.
        args: Vec<String>,
        /// The limits under valgrind (scaled, see [`valgrind_limits`]).
        limits: RunLimits,
    },
    /// A Google Test task.
    Gtest {
        /// Its own test datum, if any.
        datum: Option<usize>,
        /// `run_args`, for the test binary.
        args: Vec<String>,
        /// The task's limits plus room for the XML report.
        limits: RunLimits,
    },
    /// A static test.
    Static {
        /// The analyser's limits.
        limits: RunLimits,
    },
    /// A submit-answer test: nothing runs; a file of the submission is compared as the output.
    Answer(AnswerTest),
}

/// A submit-answer test (`run_script: "answer"`, docs/interactive.md).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnswerTest {
    /// Its test datum (the expected output and the comparator's input).
    pub datum: Option<usize>,
    /// `answer_file`: the submission's file compared as the output.
    pub file: String,
    /// The most bytes of the answer, in KB (`file_limit`, else the judge's global cap), as a
    /// program's output is bounded: a larger one is `Output Limit Exceeded`.
    pub size_limit_kb: u64,
    /// How it is judged.
    pub compare: Comparison,
    /// `validator_flags`: extra arguments of a Kattis validator.
    pub flags: Vec<String>,
}

/// A standard or random test's run and comparison.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TestRun {
    /// Its own test datum (standard tests), if any.
    pub datum: Option<usize>,
    /// `run_args`.
    pub args: Vec<String>,
    /// The task's limits.
    pub limits: RunLimits,
    /// How its output is judged.
    pub compare: Comparison,
    /// `validator_flags`: extra arguments of a Kattis validator.
    pub flags: Vec<String>,
}

/// An interactive test's runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InteractiveRun {
    /// Its test datum.
    pub datum: Option<usize>,
    /// `run_args`.
    pub args: Vec<String>,
    /// The program's limits.
    pub limits: RunLimits,
    /// The interactor's limits (the `[generator]` ones, at least the task's time).
    pub interactor_limits: RunLimits,
    /// `validator_flags`: extra arguments of a Kattis interactor.
    pub flags: Vec<String>,
    /// `passes`: a multi-pass test of at most this many passes (docs/interactive.md).
    pub passes: Option<u32>,
    /// The program talks to the interactor while it runs (`run_script: "interactive"`); else
    /// (a multi-pass standard test) the validator reads its output after it ended.
    pub relayed: bool,
}

/// How a test's outputs are compared.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Comparison {
    /// `diff-all` or `diff-ign-space`.
    Builtin(BuiltinComparator),
    /// `"icpc-default"`: the package format's default validator with the task's flags, or
    /// why those flags are refused.
    Default(Result<DefaultValidator, String>),
    /// `""`: the problem's comparator, under these limits.
    Custom(RunLimits),
}

/// Random data: the seed and the limits of `random` and `standard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Generator {
    /// The task whose seed this is (a memory test may regenerate its parent's data).
    pub task: usize,
    /// `random_seed(sub_id, task)`.
    pub seed: u32,
    /// The generator's and standard program's limits.
    pub limits: RunLimits,
}

/// Where a memory test's data come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DataSource {
    /// Standard test datum `n`.
    Datum(usize),
    /// Random data, generated as for that task (so byte for byte the same data).
    Random(Generator),
    /// No data: empty standard input.
    Nothing,
}

/// The seed given to task `index`'s generator as `argv[1]`: the first four bytes of
/// BLAKE3(`"{sub_id}:{index}"`), little-endian (docs/judge.md, design #7).
pub fn random_seed(sub_id: &str, index: usize) -> u32 {
    let hash = blake3::hash(format!("{sub_id}:{index}").as_bytes());
    let bytes = hash.as_bytes();
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

impl JudgePlan {
    /// The plan of a submission that passed `Submission::validate`.
    pub fn new(submission: &Submission, config: &JudgeConfig) -> JudgePlan {
        let tasks = &submission.judge_tasks;
        let tasks = (0..tasks.len())
            .map(|index| PlannedTask {
                index,
                kind: kind_of(submission, index, config),
                parent: tasks[index].parent().map(|task| Dependency {
                    task,
                    cond: tasks[index].depends_cond.unwrap_or(DependsCond::Accepted),
                }),
            })
            .collect();
        JudgePlan { tasks }
    }
}

/// The kind of task `index`.
fn kind_of(submission: &Submission, index: usize, config: &JudgeConfig) -> TaskKind {
    let tasks = &submission.judge_tasks;
    let task = &tasks[index];
    let cap = config.global_output_cap_kb;
    let args = task.run_args().to_vec();
    match (task.check_script, task.run_script) {
        (CheckScript::Compile, _) => {
            let gtest = tasks.iter().any(|t| t.run_script == Some(RunScript::Gtest));
            let plain = !gtest
                || tasks.iter().any(|t| {
                    t.check_script == CheckScript::Standard
                        && t.run_script != Some(RunScript::Gtest)
                });
            TaskKind::Compile { plain, gtest }
        }
        (CheckScript::Static, _) => TaskKind::Static {
            limits: static_limits(task, &config.special),
        },
        (CheckScript::Standard, Some(RunScript::Gtest)) => TaskKind::Gtest {
            datum: task.testcase(),
            args,
            limits: gtest_limits(task, cap),
        },
        (CheckScript::Standard, Some(RunScript::Valgrind)) => TaskKind::Memory {
            data: data_source(submission, index, config),
            args,
            limits: valgrind_limits(task, cap, &config.special),
        },
        (CheckScript::Standard, Some(RunScript::Interactive)) => {
            TaskKind::Interactive(interactive_run(task, args, config, true))
        }
        // A multi-pass standard test: the program, then its validator, again per pass
        // (validation makes `passes` go with compare_script "" and no random data).
        (CheckScript::Standard, Some(RunScript::Standard) | None)
            if task.passes().is_some()
                && task.compare_script == Some(CompareScript::Custom)
                && !task.is_random =>
        {
            TaskKind::Interactive(interactive_run(task, args, config, false))
        }
        (CheckScript::Standard, Some(RunScript::Answer)) => TaskKind::Answer(AnswerTest {
            datum: task.testcase(),
            file: task.answer_file.clone().unwrap_or_default(),
            size_limit_kb: task.file_limit_kb().unwrap_or(cap),
            compare: comparison(task, config),
            flags: task.validator_flags().to_vec(),
        }),
        (CheckScript::Standard, Some(RunScript::Standard) | None) => {
            let run = TestRun {
                datum: (!task.is_random).then(|| task.testcase()).flatten(),
                args,
                limits: test_limits(task, cap),
                compare: comparison(task, config),
                flags: task.validator_flags().to_vec(),
            };
            if task.is_random {
                TaskKind::Random(run, generator(submission, index, config))
            } else {
                TaskKind::Standard(run)
            }
        }
    }
}

/// How a standard (or submit-answer) test's output is judged. Exhaustive (no catch-all): a
/// script added to the contract does not compile until it is mapped here, rather than silently
/// becoming `diff-ign-space`.
fn comparison(task: &JudgeTask, config: &JudgeConfig) -> Comparison {
    match task.compare_script {
        Some(CompareScript::Custom) => Comparison::Custom(generator_limits(task, config)),
        Some(CompareScript::IcpcDefault) => {
            Comparison::Default(DefaultValidator::from_flags(task.validator_flags()))
        }
        Some(CompareScript::DiffAll) => Comparison::Builtin(BuiltinComparator::DiffAll),
        Some(CompareScript::DiffIgnSpace) => Comparison::Builtin(BuiltinComparator::DiffIgnSpace),
        // Validation refuses these with run_script "standard" and "answer"; the contract's
        // default comparison stands in.
        None | Some(CompareScript::Valgrind | CompareScript::Gtest) => {
            Comparison::Builtin(BuiltinComparator::DiffIgnSpace)
        }
    }
}

/// The random data of task `index`: its seed, under the generator limits for that task.
fn generator(submission: &Submission, index: usize, config: &JudgeConfig) -> Generator {
    Generator {
        task: index,
        seed: random_seed(&submission.sub_id, index),
        limits: generator_limits(&submission.judge_tasks[index], config),
    }
}

/// A memory test's data: its own `testcase_id`, else its own random data (`is_random`), else
/// the data of the standard (or memory) test it depends on, else nothing.
fn data_source(submission: &Submission, index: usize, config: &JudgeConfig) -> DataSource {
    let tasks = &submission.judge_tasks;
    let task = &tasks[index];
    if let Some(datum) = task.testcase() {
        return DataSource::Datum(datum);
    }
    if task.is_random {
        return DataSource::Random(generator(submission, index, config));
    }
    let Some(parent) = task.parent().filter(|&p| p < index) else {
        return DataSource::Nothing;
    };
    let up = &tasks[parent];
    match (up.check_script, up.run_script) {
        (CheckScript::Standard, Some(RunScript::Standard) | None) => match up.testcase() {
            Some(datum) => DataSource::Datum(datum),
            None if up.is_random => DataSource::Random(generator(submission, parent, config)),
            None => DataSource::Nothing,
        },
        (CheckScript::Standard, Some(RunScript::Valgrind)) => {
            data_source(submission, parent, config)
        }
        _ => DataSource::Nothing,
    }
}

/// A test run's limits (design #1-#4, #19): `time_limit` (1 s when negative), the wall clock
/// of design #1, memory and processes as given, output as given or the judge's global cap.
pub(crate) fn test_limits(task: &JudgeTask, global_output_cap_kb: u64) -> RunLimits {
    RunLimits::new(
        task.time_limit_ms().unwrap_or(DEFAULT_TIME_MS),
        task.memory_limit_kb(),
        Some(task.file_limit_kb().unwrap_or(global_output_cap_kb)),
        task.proc_limit(),
    )
}

/// A gtest task's limits: the test's, with room for gtest's XML report in the output limit.
fn gtest_limits(task: &JudgeTask, global_output_cap_kb: u64) -> RunLimits {
    let mut limits = test_limits(task, global_output_cap_kb);
    limits.output_kb = limits
        .output_kb
        .map(|kb| kb.saturating_add(GTEST_XML_ALLOWANCE_KB));
    limits
}

/// The limits under valgrind: CPU time x factor (and its wall clock), memory + valgrind's
/// share, a few more processes, room for the XML report in the output limit.
pub(crate) fn valgrind_limits(
    task: &JudgeTask,
    global_output_cap_kb: u64,
    config: &SpecialConfig,
) -> RunLimits {
    let base = test_limits(task, global_output_cap_kb);
    RunLimits::new(
        base.time_ms
            .saturating_mul(config.valgrind_time_factor.max(1)),
        base.memory_kb
            .map(|m| m.saturating_add(config.valgrind_memory_kb)),
        base.output_kb
            .map(|o| o.saturating_add(config.valgrind_output_kb)),
        base.processes
            .map(|p| p.saturating_add(config.valgrind_extra_processes)),
    )
}

/// The limits a compile or static task runs under, which are the judge's own (`[compile]`, the
/// static analyser's `[special]` ones), not the task's; `None` for every other task.
pub fn own_limits(task: &JudgeTask, config: &JudgeConfig) -> Option<RunLimits> {
    match task.check_script {
        CheckScript::Compile => {
            let compile = &config.compile;
            Some(RunLimits {
                time_ms: compile.time_ms,
                wall_ms: compile.wall_ms,
                memory_kb: Some(compile.memory_kb),
                output_kb: Some(compile.output_kb),
                processes: Some(u64::from(compile.processes)),
            })
        }
        CheckScript::Static => Some(static_limits(task, &config.special)),
        CheckScript::Standard => None,
    }
}

/// The static analyser's limits: `static_time_ms` (at least the task's time limit),
/// `static_memory_kb`, 64 MB of output, 16 processes.
fn static_limits(task: &JudgeTask, config: &SpecialConfig) -> RunLimits {
    RunLimits::new(
        config.static_time_ms.max(task.time_limit_ms().unwrap_or(0)),
        Some(config.static_memory_kb),
        Some(STATIC_OUTPUT_KB),
        Some(STATIC_PROCESSES),
    )
}

/// The limits of a generator, standard program or comparator serving `task`: the
/// `[generator]` limits, with at least the task's own time limit.
/// An interactive or multi-pass test: the program beside (`relayed`) or before its validator.
fn interactive_run(
    task: &JudgeTask,
    args: Vec<String>,
    config: &JudgeConfig,
    relayed: bool,
) -> InteractiveRun {
    InteractiveRun {
        datum: task.testcase(),
        args,
        limits: test_limits(task, config.global_output_cap_kb),
        interactor_limits: generator_limits(task, config),
        flags: task.validator_flags().to_vec(),
        passes: task.passes(),
        relayed,
    }
}

fn generator_limits(task: &JudgeTask, config: &JudgeConfig) -> RunLimits {
    let generator = &config.generator;
    RunLimits::new(
        generator.time_ms.max(task.time_limit_ms().unwrap_or(0)),
        Some(generator.memory_kb),
        Some(generator.output_kb),
        Some(generator.processes),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(
        check: CheckScript,
        run: Option<RunScript>,
        testcase: i64,
        depends_on: i64,
        random: bool,
    ) -> JudgeTask {
        JudgeTask {
            check_script: check,
            run_script: run,
            compare_script: match run {
                Some(RunScript::Valgrind) => Some(CompareScript::Valgrind),
                Some(RunScript::Standard) => Some(CompareScript::DiffAll),
                _ => None,
            },
            is_random: random,
            testcase_id: Some(testcase),
            depends_on,
            depends_cond: Some(DependsCond::Accepted),
            memory_limit: Some(65536),
            time_limit: 1000,
            file_limit: Some(1024),
            proc_limit: Some(5),
            run_args: None,
            validator_flags: None,
            passes: None,
            answer_file: None,
        }
    }

    fn compile() -> JudgeTask {
        task(CheckScript::Compile, None, -1, -1, false)
    }
    fn standard(testcase: i64, random: bool) -> JudgeTask {
        let run = Some(RunScript::Standard);
        task(CheckScript::Standard, run, testcase, 0, random)
    }
    fn memory(testcase: i64, depends_on: i64, random: bool) -> JudgeTask {
        let run = Some(RunScript::Valgrind);
        task(CheckScript::Standard, run, testcase, depends_on, random)
    }

    fn plan(tasks: Vec<JudgeTask>) -> JudgePlan {
        let text = serde_json::json!({
            "sub_type": "programming", "category": "c", "prob_id": "p", "sub_id": "s",
            "updated_at": 1, "judge_tasks": tasks, "test_data": [],
            "submission": {"type": "source_code", "language": "c", "source_files": []}
        });
        let submission: Submission = serde_json::from_value(text).expect("submission");
        JudgePlan::new(&submission, &JudgeConfig::default())
    }

    #[test]
    fn own_limits_are_the_judges_for_compile_and_static_tasks_only() {
        let mut config = JudgeConfig::default();
        config.compile.time_ms = 7000;
        config.special.static_time_ms = 500;
        let compiled = own_limits(&compile(), &config).expect("a compile task's");
        assert_eq!(compiled.time_ms, 7000);
        assert_eq!(compiled.memory_kb, Some(config.compile.memory_kb));
        assert_eq!(
            compiled.processes,
            Some(u64::from(config.compile.processes))
        );
        // The analyser gets at least the task's own time limit (1000 ms here).
        let analysed = own_limits(&task(CheckScript::Static, None, -1, 0, false), &config)
            .expect("a static task's");
        assert_eq!(analysed.time_ms, 1000);
        assert_eq!(analysed.memory_kb, Some(config.special.static_memory_kb));
        assert!(own_limits(&standard(0, false), &config).is_none());
    }

    fn data(plan: &JudgePlan, index: usize) -> DataSource {
        match &plan.tasks[index].kind {
            TaskKind::Memory { data, .. } => *data,
            other => panic!("task {index} is {other:?}"),
        }
    }

    fn random_of(task: usize) -> DataSource {
        DataSource::Random(Generator {
            task,
            seed: random_seed("s", task),
            limits: generator_limits(&standard(-1, true), &JudgeConfig::default()),
        })
    }

    #[test]
    fn a_memory_test_uses_its_parent_standard_tests_datum() {
        let plan = plan(vec![compile(), standard(2, false), memory(-1, 1, false)]);
        assert_eq!(data(&plan, 2), DataSource::Datum(2));
    }

    #[test]
    fn a_memory_test_under_a_random_test_regenerates_the_parents_data() {
        let plan = plan(vec![compile(), standard(-1, true), memory(-1, 1, false)]);
        assert_eq!(data(&plan, 2), random_of(1));
    }

    #[test]
    fn a_random_memory_test_under_compile_generates_its_own_data() {
        assert_eq!(
            data(&plan(vec![compile(), memory(-1, 0, true)]), 1),
            random_of(1)
        );
        assert_eq!(
            data(&plan(vec![compile(), memory(-1, 0, false)]), 1),
            DataSource::Nothing
        );
    }

    #[test]
    fn an_own_testcase_id_wins() {
        let plan = plan(vec![compile(), standard(2, false), memory(0, 1, false)]);
        assert_eq!(data(&plan, 2), DataSource::Datum(0));
    }

    #[test]
    fn kinds_parents_and_conditions_are_planned_once() {
        let mut gtest = standard(-1, false);
        gtest.run_script = Some(RunScript::Gtest);
        gtest.depends_cond = None;
        let plan = plan(vec![compile(), standard(0, true), gtest]);
        assert_eq!(
            plan.tasks[0].kind,
            TaskKind::Compile {
                plain: true,
                gtest: true
            }
        );
        assert!(matches!(plan.tasks[1].kind, TaskKind::Random(..)));
        let TaskKind::Gtest { limits, .. } = plan.tasks[2].kind.clone() else {
            panic!("{:?}", plan.tasks[2].kind)
        };
        assert_eq!(limits.output_kb, Some(1024 + 16 * 1024));
        assert_eq!(plan.tasks[0].parent, None);
        assert_eq!(
            plan.tasks[2].parent,
            Some(Dependency {
                task: 0,
                cond: DependsCond::Accepted
            })
        );
    }

    #[test]
    fn limits_are_scaled_for_valgrind() {
        let t = memory(-1, 0, false);
        let limits = valgrind_limits(&t, 1024, &SpecialConfig::default());
        assert_eq!(limits.time_ms, 10_000);
        assert_eq!(limits.wall_ms, 21_000);
        assert_eq!(limits.memory_kb, Some(65536 + 256 * 1024));
        assert_eq!(limits.processes, Some(9));
        assert_eq!(limits.output_kb, Some(1024 + 16 * 1024));
        let mut unlimited = t.clone();
        unlimited.memory_limit = Some(-1);
        let limits = valgrind_limits(&unlimited, 1024, &SpecialConfig::default());
        assert_eq!(limits.memory_kb, None);
    }

    /// The derivation docs/judge.md documents: the first four bytes of BLAKE3 of the UTF-8
    /// text `"{sub_id}:{index}"`, read little-endian; the example value the docs give.
    #[test]
    fn the_seed_is_the_documented_blake3_derivation() {
        let hash = blake3::hash(b"random-tests-1:1");
        let bytes = hash.as_bytes();
        let expected = u32::from(bytes[0])
            | u32::from(bytes[1]) << 8
            | u32::from(bytes[2]) << 16
            | u32::from(bytes[3]) << 24;
        assert_eq!(random_seed("random-tests-1", 1), expected);
        assert_eq!(random_seed("random-tests-1", 1), 421_295_531);
    }

    #[test]
    fn seeds_are_reproducible_and_differ_per_task() {
        assert_eq!(random_seed("sub-1", 3), random_seed("sub-1", 3));
        assert_ne!(random_seed("sub-1", 3), random_seed("sub-1", 4));
        assert_ne!(random_seed("sub-1", 3), random_seed("sub-2", 3));
    }

    #[test]
    fn a_negative_time_limit_is_one_second_and_minus_one_output_is_the_global_cap() {
        let mut t = standard(0, false);
        t.time_limit = -1;
        t.file_limit = Some(-1);
        let limits = test_limits(&t, 4096);
        assert_eq!((limits.time_ms, limits.wall_ms), (1000, 3000));
        assert_eq!(limits.output_kb, Some(4096));
    }
}
