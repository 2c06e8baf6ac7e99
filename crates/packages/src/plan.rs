//! A problem and a program into a `Submission`: the wire format, so a package can be judged by
//! `judge run`, `judge-server`, the queue and the page alike.
//!
//! | package | Submission |
//! |---|---|
//! | the package directory's name | `prob_id` (`category` is `package`) |
//! | its content (test data, validator) | `updated_at` (a hash: a changed package is a new version) |
//! | each test case (`NAME.in`, `NAME.ans`), samples first, groups in name order | `test_data[i]` (`testdata.in`, `testdata.out`) and task `i + 1` |
//! | no output validator | `compare_script: "icpc-default"` with the case's (else its group's) `output_validator_args` as `validator_flags` |
//! | a case's (else its group's) `args` | the test task's `run_args` |
//! | `NAME.files/` | more `test_data[i].inputs`, placed in the program's working directory |
//! | `output_validators/` / `output_validator/` | `Submission.compare`, `compare_protocol: "kattis"`, `compare_script: ""` |
//! | interactive | `run_script: "interactive"` with the validator as the interactor |
//! | submit-answer, a reference of answer files | no compile task; `run_script: "answer"`, `answer_file` `<case>.out` |
//! | multi-pass, `limits.validation_passes` | `passes` of every test task |
//! | `limits.memory`, `limits.output` (MiB) | `memory_limit`, `file_limit` (KB) |
//! | the time limit | `time_limit` of every test |

use crate::{PackageError, Problem};
use verdict_contracts::{
    Asset, CheckScript, CompareScript, DependsCond, JudgeTask, JudgeTaskResult, Program, RunScript,
    STDIN_ASSET, STDOUT_ASSET, SubType, Submission, TestDatum,
};

/// The compile task's time limit.
const COMPILE_MS: i64 = 60_000;

/// `program` judged on every test case of `problem` with `time_limit_ms`.
pub fn submission(
    problem: &Problem,
    program: &Program,
    sub_id: &str,
    time_limit_ms: u64,
) -> Result<Submission, PackageError> {
    let answers = is_answers(problem, program);
    let mut tasks = vec![JudgeTask {
        check_script: CheckScript::Compile,
        run_script: None,
        compare_script: None,
        is_random: false,
        testcase_id: None,
        depends_on: -1,
        depends_cond: None,
        memory_limit: None,
        time_limit: COMPILE_MS,
        file_limit: None,
        proc_limit: None,
        run_args: None,
        validator_flags: None,
        passes: None,
        answer_file: None,
    }];
    if answers {
        // An answer set compiles nothing: its tasks are the test cases' alone.
        tasks.clear();
    }
    let mut data = Vec::new();
    let mut hash = Fnv::default();
    // Polygon keeps its tests with LF line ends (it converts what is uploaded); a package
    // checked out or made on Windows can carry CRLF, which its testlib validators refuse: read
    // as Polygon stores them (docs/packages.md).
    let polygon = problem.format == "polygon";
    let test_text = |path: &std::path::Path| -> Result<String, PackageError> {
        let t = text(path)?;
        Ok(if polygon && t.contains("\r\n") {
            t.replace("\r\n", "\n")
        } else {
            t
        })
    };
    for (i, (case, settings)) in problem.data.cases().into_iter().enumerate() {
        let input = test_text(&case.input)?;
        hash.add(input.as_bytes());
        let mut datum = TestDatum {
            inputs: vec![Asset::text(STDIN_ASSET, input)],
            outputs: Vec::new(),
            name: Some(case.name.clone()),
        };
        if let Some(dir) = &case.config.files {
            for (name, text) in files_under(dir)? {
                hash.add(name.as_bytes());
                hash.add(text.as_bytes());
                datum.inputs.push(Asset::text(name, text));
            }
        }
        if let Some(answer) = &case.answer {
            let answer = test_text(answer)?;
            hash.add(answer.as_bytes());
            datum.outputs.push(Asset::text(STDOUT_ASSET, answer));
        }
        data.push(datum);
        let custom = problem.output_validator.is_some();
        let flags = case.output_validator_args(settings);
        hash.add(flags.join(" ").as_bytes());
        let args = case.args(settings);
        hash.add(args.join(" ").as_bytes());
        if problem.kind.multi_pass {
            hash.add(&problem.validation_passes.to_le_bytes());
        }
        tasks.push(JudgeTask {
            check_script: CheckScript::Standard,
            run_script: Some(if answers {
                RunScript::Answer
            } else if problem.kind.interactive {
                RunScript::Interactive
            } else {
                RunScript::Standard
            }),
            compare_script: Some(if custom {
                CompareScript::Custom
            } else {
                CompareScript::IcpcDefault
            }),
            is_random: false,
            testcase_id: Some(i as i64),
            depends_on: if answers { -1 } else { 0 },
            depends_cond: (!answers).then_some(DependsCond::Accepted),
            memory_limit: Some((problem.memory_mib * 1024) as i64),
            time_limit: time_limit_ms.max(1) as i64,
            file_limit: Some((problem.output_mib * 1024) as i64),
            proc_limit: None,
            run_args: (!args.is_empty()).then(|| args.to_vec()),
            validator_flags: (!flags.is_empty()).then(|| flags.to_vec()),
            passes: problem
                .kind
                .multi_pass
                .then_some(i64::from(problem.validation_passes)),
            answer_file: answers.then(|| answer_file(&case.name)),
        });
    }
    if let Some(v) = &problem.output_validator {
        hash.add(serde_json::to_string(v).unwrap_or_default().as_bytes());
    }
    Ok(Submission {
        sub_type: SubType::Programming,
        category: "package".into(),
        prob_id: problem.short_name.clone(),
        sub_id: sub_id.to_owned(),
        updated_at: (hash.0 >> 1) as i64,
        judge_tasks: tasks,
        test_data: data,
        submission: program.clone(),
        standard: None,
        random: None,
        compare: problem.output_validator.clone(),
        compare_protocol: problem
            .output_validator
            .as_ref()
            .map(|_| problem.validator_protocol),
    })
}

/// Sets each test task's time limit of `submission` (made by [`submission`]) to `limit_ms` of
/// its test case's index in `problem.data.cases()`.
pub fn time_limits(
    problem: &Problem,
    submission: &mut Submission,
    limit_ms: impl Fn(usize) -> u64,
) {
    let cases = problem.data.cases().len();
    let first = submission.judge_tasks.len().saturating_sub(cases);
    for (case, task) in submission.judge_tasks.iter_mut().skip(first).enumerate() {
        task.time_limit = limit_ms(case).max(1) as i64;
    }
}

/// Whether `program` is a set of answer files of the submit-answer `problem` (judged by
/// `run_script: "answer"` tests, with no compile task) rather than a program.
pub fn is_answers(problem: &Problem, program: &Program) -> bool {
    problem.kind.submit_answer && crate::kattis::programs::is_answers(program)
}

/// The file of an answer set that answers test case `case` (`secret/01`): `secret/01.out`,
/// the format's name for a submission's output.
pub fn answer_file(case: &str) -> String {
    format!("{case}.out")
}

/// The compile task's result, if the plan has one (an answer set has none), and the test
/// cases' results, in `problem.data.cases()` order.
pub fn split_results<'a>(
    problem: &Problem,
    results: &'a [JudgeTaskResult],
) -> (Option<&'a JudgeTaskResult>, &'a [JudgeTaskResult]) {
    if results.len() > problem.data.cases().len() {
        (results.first(), &results[1..])
    } else {
        (None, results)
    }
}

/// Whether the first rejected test case decides the verdict and the score: every group stops
/// at its first rejected child (`on_reject: break`), none is accepted by its children
/// (`accept_if_any_accepted`, `always_accept`) and no group is left out of the grade
/// (`ignore_sample`), it is not a 2025-09 scoring problem and no group requires another. Then
/// no later test case is read by [`crate::grade::grade`].
pub fn first_rejection_decides(problem: &Problem) -> bool {
    fn all(g: &crate::Group) -> bool {
        let s = &g.settings;
        s.break_on_reject
            && !s.accept_if_any_accepted
            && !s.always_accept
            && !s.ignore_sample
            && g.items.iter().all(|i| match i {
                crate::Item::Group(sub) => all(sub),
                crate::Item::Case(_) => true,
            })
    }
    // A 2025-09 scoring problem scores every group (its `require_pass` is graded).
    problem.spec_scoring.is_none() && problem.requires.is_empty() && all(&problem.data)
}

/// Chains the test tasks of `submission` (each on the one before it, `ACCEPTED`) when
/// [`first_rejection_decides`]: a rejected test case skips the rest (`DEPENDENCY_NOT_SATISFIED`),
/// as DOMjudge's lazy judging does, so a time-limit-exceeded submission stops at its first
/// timeout. The verdict and score are the same; the tests run one after another.
pub fn lazy(problem: &Problem, submission: &mut Submission) {
    if !first_rejection_decides(problem) {
        return;
    }
    // The first test task: after the compile task, or the first task of an answer set.
    let first = usize::from(
        submission
            .judge_tasks
            .first()
            .is_some_and(|t| t.check_script == CheckScript::Compile),
    );
    for (i, task) in submission
        .judge_tasks
        .iter_mut()
        .enumerate()
        .skip(first + 1)
    {
        task.depends_on = (i - 1) as i64;
        task.depends_cond = Some(DependsCond::Accepted);
    }
}

/// Every file under a test case's `NAME.files/` directory, by its path under it, as text.
fn files_under(dir: &std::path::Path) -> Result<Vec<(String, String)>, PackageError> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| PackageError::io(&d, e))?;
        for entry in entries {
            let path = entry.map_err(|e| PackageError::io(&d, e))?.path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            let name = path
                .strip_prefix(dir)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((name, text(&path)?));
        }
    }
    out.sort();
    Ok(out)
}

/// A test file as inline text (assets on the wire are text).
fn text(path: &std::path::Path) -> Result<String, PackageError> {
    let bytes = std::fs::read(path).map_err(|e| PackageError::io(path, e))?;
    String::from_utf8(bytes).map_err(|_| {
        PackageError::unsupported(
            path,
            "data",
            "a test file that is not UTF-8 text (inline assets are text)",
        )
    })
}

/// FNV-1a, 64 bits: a stable hash of the package's content for `updated_at`.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 ^= 0xff;
    }
}
