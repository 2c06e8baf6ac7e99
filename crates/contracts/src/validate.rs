//! The rules a Submission must follow beyond its types (design #12, #15, #16), and the
//! `InvalidRequest` that becomes a report with `results: []` and a `message` naming the field.
//!
//! Every rule is checked and every problem reported, in field order, joined by `"; "` in the
//! report's `message`. Decisions where the contract is silent:
//! - `depends_cond` is required when `depends_on` is set; with `depends_on: -1` a condition is
//!   accepted and ignored.
//! - The script table is the contract: compile and static tasks have `null` run and compare
//!   scripts; a standard test compares with `diff-ign-space`, `diff-all` or `""`; a gtest or
//!   valgrind run compares with `gtest` or `valgrind` respectively, or `null` (the only
//!   leniency: the run script already says how the task is scored).
//! - Only standard and memory tests can be random; a random test has no `testcase_id`; a
//!   standard test that is not random needs one.
//! - `proc_limit: 1` is rejected, as the contract says it makes judging fail; `0` too.
//!   `memory_limit: 0` is rejected (nothing could run); `file_limit: 0` is allowed (no output).
//! - `time_limit` must be positive for every task, compile and static included.
//! - Asset names are relative file paths: not empty, not absolute, no `..` component, no NUL,
//!   not ending in `/` or `.`; names are unique within a program (source and assist files
//!   together) and within a test datum's inputs and outputs. `remote` URLs are `http(s)://`.

use crate::judge::{
    Asset, AssetKind, CheckScript, CompareScript, JudgeReport, Language, Program, RunScript,
    SubType, Submission,
};
use std::collections::HashMap;
use std::fmt;

/// One problem with a request, naming the field (`judge_tasks[2].testcase_id`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct FieldError {
    /// The field at fault, as a path into the request.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl FieldError {
    /// A problem with `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// An invalid judge request: the problems, and the fields its report echoes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRequest {
    /// As in the request (empty when it could not be read).
    pub sub_type: String,
    /// As in the request (empty when it could not be read).
    pub category: String,
    /// As in the request (empty when it could not be read).
    pub prob_id: String,
    /// As in the request (empty when it could not be read).
    pub sub_id: String,
    /// The problems, in field order; never empty.
    pub errors: Vec<FieldError>,
}

impl InvalidRequest {
    /// The problems of `submission`, echoing its identifying fields.
    pub fn of(submission: &Submission, errors: Vec<FieldError>) -> Self {
        InvalidRequest {
            sub_type: submission.sub_type.as_str().to_owned(),
            category: submission.category.clone(),
            prob_id: submission.prob_id.clone(),
            sub_id: submission.sub_id.clone(),
            errors,
        }
    }

    /// The report's `message`: every problem, joined by `"; "`.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The report for this request: the echoed fields, `results: []` and the message.
    pub fn into_report(self) -> JudgeReport {
        let message = self.message();
        JudgeReport {
            sub_type: self.sub_type,
            category: self.category,
            prob_id: self.prob_id,
            sub_id: self.sub_id,
            results: Vec::new(),
            message: Some(message),
        }
    }
}

impl From<InvalidRequest> for JudgeReport {
    fn from(invalid: InvalidRequest) -> Self {
        invalid.into_report()
    }
}

impl fmt::Display for InvalidRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidRequest {}

impl Submission {
    /// Checks the rules beyond the types; `Err` lists every problem, each naming its field.
    ///
    /// ```
    /// let json = r#"{"sub_type": "programming", "category": "c", "prob_id": "p", "sub_id": "s",
    ///   "updated_at": 1, "test_data": [],
    ///   "judge_tasks": [{"check_script": "standard", "run_script": "standard",
    ///     "compare_script": "diff-all", "testcase_id": 7, "depends_on": -1, "time_limit": 1000}],
    ///   "submission": {"type": "source_code", "language": "c",
    ///     "source_files": [{"type": "text", "name": "main.c", "text": "int main(){}"}]}}"#;
    /// let submission: verdict_contracts::Submission = serde_json::from_str(json).unwrap();
    /// let err = submission.validate().unwrap_err();
    /// assert_eq!(err.to_string(), "judge_tasks[0].testcase_id: 7 is out of range (0 test data)");
    /// ```
    pub fn validate(&self) -> Result<(), InvalidRequest> {
        let errors = self.problems();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(InvalidRequest::of(self, errors))
        }
    }

    /// Every problem of this submission, in field order (empty when it is valid).
    pub fn problems(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        if self.sub_type != SubType::Programming {
            errors.push(FieldError::new(
                "sub_type",
                format!(
                    "{:?} is not supported (this judge implements \"programming\" only)",
                    self.sub_type.as_str()
                ),
            ));
        }
        if self.judge_tasks.is_empty() {
            errors.push(FieldError::new(
                "judge_tasks",
                "must hold at least one task",
            ));
        }
        for i in 0..self.judge_tasks.len() {
            self.check_task(i, &mut errors);
        }
        for (i, datum) in self.test_data.iter().enumerate() {
            check_assets(
                &format!("test_data[{i}].inputs"),
                &datum.inputs,
                &mut Names::default(),
                &mut errors,
            );
            check_assets(
                &format!("test_data[{i}].outputs"),
                &datum.outputs,
                &mut Names::default(),
                &mut errors,
            );
        }
        check_program("submission", Some(&self.submission), &mut errors);
        check_program("standard", self.standard.as_ref(), &mut errors);
        check_program("random", self.random.as_ref(), &mut errors);
        check_program("compare", self.compare.as_ref(), &mut errors);
        errors
    }

    fn check_task(&self, i: usize, errors: &mut Vec<FieldError>) {
        let task = &self.judge_tasks[i];
        let at = |field: &str| format!("judge_tasks[{i}].{field}");
        let mut push =
            |field: &str, message: String| errors.push(FieldError::new(at(field), message));

        // Scripts, by the contract's table.
        let kind = match task.check_script {
            CheckScript::Compile => "compile",
            CheckScript::Static => "static",
            CheckScript::Standard => "standard",
        };
        match task.check_script {
            CheckScript::Compile | CheckScript::Static => {
                if let Some(run) = task.run_script {
                    push("run_script", format!("must be null for a {kind} task (got {:?})", RunScript::as_str(run)));
                }
                if let Some(compare) = task.compare_script {
                    push(
                        "compare_script",
                        format!("must be null for a {kind} task (got {:?})", CompareScript::as_str(compare)),
                    );
                }
            }
            CheckScript::Standard => match task.run_script {
                None => push(
                    "run_script",
                    "required for a standard task (one of \"standard\", \"gtest\", \"valgrind\")".into(),
                ),
                Some(RunScript::Standard) => match task.compare_script {
                    None => push(
                        "compare_script",
                        "required with run_script \"standard\" (one of \"diff-ign-space\", \"diff-all\", \"\")".into(),
                    ),
                    Some(c @ (CompareScript::Gtest | CompareScript::Valgrind)) => push(
                        "compare_script",
                        format!(
                            "{:?} does not go with run_script \"standard\" (use \"diff-ign-space\", \"diff-all\" or \"\")",
                            CompareScript::as_str(c)
                        ),
                    ),
                    Some(_) => {}
                },
                Some(run @ (RunScript::Gtest | RunScript::Valgrind)) => {
                    let wanted = if run == RunScript::Gtest {
                        CompareScript::Gtest
                    } else {
                        CompareScript::Valgrind
                    };
                    if let Some(c) = task.compare_script.filter(|&c| c != wanted) {
                        push(
                            "compare_script",
                            format!(
                                "{:?} does not go with run_script {:?} (use {:?})",
                                CompareScript::as_str(c),
                                RunScript::as_str(run),
                                CompareScript::as_str(wanted)
                            ),
                        );
                    }
                }
            },
        }
        if task.compare_script == Some(CompareScript::Custom) && self.compare.is_none() {
            push(
                "compare_script",
                "\"\" (the custom comparator) needs Submission.compare, which is missing".into(),
            );
        }

        // Random tests and test data.
        let runs_program = matches!(
            task.run_script,
            Some(RunScript::Standard | RunScript::Valgrind)
        ) && task.check_script == CheckScript::Standard;
        if task.is_random {
            if !runs_program {
                push(
                    "is_random",
                    "only standard and memory tests (run_script \"standard\" or \"valgrind\") can be random".into(),
                );
            }
            let missing: Vec<&str> = [
                ("standard", self.standard.is_none()),
                ("random", self.random.is_none()),
            ]
            .into_iter()
            .filter_map(|(name, missing)| missing.then_some(name))
            .collect();
            if !missing.is_empty() {
                push(
                    "is_random",
                    format!(
                        "a random test needs Submission.standard and Submission.random (missing: {})",
                        missing.join(", ")
                    ),
                );
            }
        }
        match task.testcase_id {
            Some(id) if id < -1 => push(
                "testcase_id",
                format!("{id} is invalid (use -1 or null for no test datum)"),
            ),
            Some(id) if id >= 0 && id as u64 >= self.test_data.len() as u64 => {
                let n = self.test_data.len();
                let data = if n == 1 { "test datum" } else { "test data" };
                push("testcase_id", format!("{id} is out of range ({n} {data})"));
            }
            Some(id) if id >= 0 && task.is_random => push(
                "testcase_id",
                format!("must be -1 or null for a random test (got {id})"),
            ),
            _ => {}
        }
        if task.check_script == CheckScript::Standard
            && task.run_script == Some(RunScript::Standard)
            && !task.is_random
            && task.testcase().is_none()
        {
            push(
                "testcase_id",
                "a standard test needs a test datum (or is_random: true)".into(),
            );
        }

        // Dependencies (design #12): an earlier task, or -1.
        let n = self.judge_tasks.len();
        let d = task.depends_on;
        if d < -1 {
            push(
                "depends_on",
                format!("{d} is invalid (use -1 for no dependency)"),
            );
        } else if d >= 0 {
            let d_index = d as u64;
            if d_index >= n as u64 {
                let tasks = if n == 1 { "task" } else { "tasks" };
                push("depends_on", format!("{d} is out of range ({n} {tasks})"));
            } else if d_index == i as u64 {
                push("depends_on", "a task cannot depend on itself".into());
            } else if d_index > i as u64 {
                push(
                    "depends_on",
                    format!("{d} is a later task; a task may depend only on an earlier one"),
                );
            }
            if task.depends_cond.is_none() {
                push(
                    "depends_cond",
                    "required when depends_on is set (one of \"ACCEPTED\", \"NOT_TIME_LIMIT\", \"PARTIAL_CORRECT\")".into(),
                );
            }
        }

        // Limits, in the contract's field order.
        match task.memory_limit {
            Some(m) if m == 0 || m < -1 => push(
                "memory_limit",
                format!("must be a positive number of KB, or -1 or null for no limit (got {m})"),
            ),
            _ => {}
        }
        if task.time_limit <= 0 {
            push(
                "time_limit",
                format!(
                    "must be a positive number of milliseconds (got {})",
                    task.time_limit
                ),
            );
        }
        match task.file_limit {
            Some(f) if f < -1 => push(
                "file_limit",
                format!("must be a number of KB, or -1 or null for no limit (got {f})"),
            ),
            _ => {}
        }
        match task.proc_limit {
            Some(1) => push(
                "proc_limit",
                "1 makes judging fail; use at least 2 (3 to 10 is suggested), or -1 or null for no limit".into(),
            ),
            Some(p) if p == 0 || p < -1 => push(
                "proc_limit",
                format!("must be at least 2, or -1 or null for no limit (got {p})"),
            ),
            _ => {}
        }
    }
}

/// Names seen so far in one directory, with the field that first used each.
#[derive(Default)]
struct Names {
    seen: HashMap<String, String>,
}

fn check_program(field: &str, program: Option<&Program>, errors: &mut Vec<FieldError>) {
    let Some(program) = program else { return };
    let source = program.source();
    if source.source_files.is_empty() {
        errors.push(FieldError::new(
            format!("{field}.source_files"),
            "must hold at least one file",
        ));
    }
    if source.language == Language::Make
        && let Some(first) = source.source_files.first().filter(|a| a.name != "Makefile")
    {
        errors.push(FieldError::new(
            format!("{field}.source_files[0].name"),
            format!(
                "the first source file of a make program must be \"Makefile\" (got {:?})",
                first.name
            ),
        ));
    }
    let mut names = Names::default();
    check_assets(
        &format!("{field}.source_files"),
        &source.source_files,
        &mut names,
        errors,
    );
    check_assets(
        &format!("{field}.assist_files"),
        &source.assist_files,
        &mut names,
        errors,
    );
}

fn check_assets(field: &str, assets: &[Asset], names: &mut Names, errors: &mut Vec<FieldError>) {
    for (i, asset) in assets.iter().enumerate() {
        let at = format!("{field}[{i}]");
        match asset_name_problem(&asset.name) {
            Some(message) => errors.push(FieldError::new(format!("{at}.name"), message)),
            None => {
                if let Some(first) = names.seen.get(&asset.name) {
                    errors.push(FieldError::new(
                        format!("{at}.name"),
                        format!("{:?} is already the name of {first}", asset.name),
                    ));
                } else {
                    names.seen.insert(asset.name.clone(), at.clone());
                }
            }
        }
        check_asset_content(&at, asset, errors);
    }
}

/// Why an asset name is not a relative file path inside the box, if it is not (design #15).
pub fn asset_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        Some("must not be empty".into())
    } else if name.contains('\0') {
        Some("must not contain a NUL byte".into())
    } else if name.starts_with('/') {
        Some(format!("{name:?} must be a relative path"))
    } else if name.split('/').any(|part| part == "..") {
        Some(format!("{name:?} must not contain a \"..\" component"))
    } else if name.ends_with('/') || name.rsplit('/').next() == Some(".") {
        Some(format!("{name:?} must name a file"))
    } else {
        None
    }
}

fn check_asset_content(at: &str, asset: &Asset, errors: &mut Vec<FieldError>) {
    let (field, present, kind) = match asset.kind {
        AssetKind::Text => ("text", asset.text.is_some(), "text"),
        AssetKind::Remote => ("url", asset.url.is_some(), "remote"),
        AssetKind::Local => ("path", asset.path.is_some(), "local"),
    };
    if !present {
        errors.push(FieldError::new(
            format!("{at}.{field}"),
            format!("required for a {kind:?} asset"),
        ));
        return;
    }
    if let (AssetKind::Remote, Some(url)) = (asset.kind, &asset.url) {
        let scheme_ok = ["http://", "https://"].iter().any(|s| {
            url.len() > s.len()
                && url
                    .get(..s.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(s))
        });
        if !scheme_ok {
            errors.push(FieldError::new(
                format!("{at}.url"),
                format!("{url:?} must be an http:// or https:// URL"),
            ));
        }
    }
    if let (AssetKind::Local, Some(path)) = (asset.kind, &asset.path)
        && (path.is_empty() || path.contains('\0'))
    {
        errors.push(FieldError::new(
            format!("{at}.path"),
            "must be a non-empty path without NUL bytes",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{DependsCond, JudgeTask, SourceCode, TestDatum};

    fn task(
        check: CheckScript,
        run: Option<RunScript>,
        compare: Option<CompareScript>,
    ) -> JudgeTask {
        JudgeTask {
            check_script: check,
            run_script: run,
            compare_script: compare,
            is_random: false,
            testcase_id: None,
            depends_on: -1,
            depends_cond: None,
            memory_limit: None,
            time_limit: 1000,
            file_limit: None,
            proc_limit: None,
            run_args: None,
        }
    }

    fn program(language: Language, files: &[&str]) -> Program {
        Program::SourceCode(SourceCode {
            language,
            entry_point: None,
            source_files: files.iter().map(|n| Asset::text(*n, "")).collect(),
            assist_files: Vec::new(),
            compile_command: None,
        })
    }

    fn datum() -> TestDatum {
        TestDatum {
            inputs: vec![Asset::text("testdata.in", "1 2\n")],
            outputs: vec![Asset::text("testdata.out", "3\n")],
        }
    }

    /// A valid request: compile, then a standard test on datum 0 that depends on it.
    fn valid() -> Submission {
        let mut test = task(
            CheckScript::Standard,
            Some(RunScript::Standard),
            Some(CompareScript::DiffAll),
        );
        test.testcase_id = Some(0);
        test.depends_on = 0;
        test.depends_cond = Some(DependsCond::Accepted);
        Submission {
            sub_type: SubType::Programming,
            category: "oj".into(),
            prob_id: "p".into(),
            sub_id: "s".into(),
            updated_at: 1,
            judge_tasks: vec![task(CheckScript::Compile, None, None), test],
            test_data: vec![datum(), datum(), datum()],
            submission: program(Language::C, &["main.c"]),
            standard: None,
            random: None,
            compare: None,
        }
    }

    /// The request's only problem message.
    fn problem(submission: &Submission) -> String {
        let problems = submission.problems();
        assert_eq!(problems.len(), 1, "expected one problem, got {problems:?}");
        problems[0].to_string()
    }

    #[test]
    fn the_base_request_is_valid() {
        assert_eq!(valid().problems(), []);
        assert!(valid().validate().is_ok());
    }

    #[test]
    fn sub_type_other_than_programming_is_unsupported() {
        let mut s = valid();
        s.sub_type = SubType::Choice;
        assert_eq!(
            problem(&s),
            r#"sub_type: "choice" is not supported (this judge implements "programming" only)"#
        );
    }

    #[test]
    fn judge_tasks_must_not_be_empty() {
        let mut s = valid();
        s.judge_tasks.clear();
        assert_eq!(problem(&s), "judge_tasks: must hold at least one task");
    }

    #[test]
    fn testcase_id_out_of_range() {
        let mut s = valid();
        s.judge_tasks.push(s.judge_tasks[1].clone());
        s.judge_tasks[2].testcase_id = Some(7);
        assert_eq!(
            problem(&s),
            "judge_tasks[2].testcase_id: 7 is out of range (3 test data)"
        );
        s.test_data.truncate(1);
        assert_eq!(
            problem(&s),
            "judge_tasks[2].testcase_id: 7 is out of range (1 test datum)"
        );
    }

    #[test]
    fn testcase_id_below_minus_one() {
        let mut s = valid();
        s.judge_tasks[1].testcase_id = Some(-2);
        let problems: Vec<String> = s.problems().iter().map(ToString::to_string).collect();
        assert_eq!(
            problems,
            [
                "judge_tasks[1].testcase_id: -2 is invalid (use -1 or null for no test datum)",
                "judge_tasks[1].testcase_id: a standard test needs a test datum (or is_random: true)",
            ]
        );
    }

    #[test]
    fn standard_test_needs_a_datum_or_randomness() {
        let mut s = valid();
        s.judge_tasks[1].testcase_id = Some(-1);
        assert_eq!(
            problem(&s),
            "judge_tasks[1].testcase_id: a standard test needs a test datum (or is_random: true)"
        );
    }

    #[test]
    fn depends_on_itself() {
        let mut s = valid();
        s.judge_tasks[1].depends_on = 1;
        assert_eq!(
            problem(&s),
            "judge_tasks[1].depends_on: a task cannot depend on itself"
        );
    }

    #[test]
    fn depends_on_a_later_task() {
        let mut s = valid();
        s.judge_tasks.push(s.judge_tasks[1].clone());
        s.judge_tasks[1].depends_on = 2;
        assert_eq!(
            problem(&s),
            "judge_tasks[1].depends_on: 2 is a later task; a task may depend only on an earlier one"
        );
    }

    #[test]
    fn depends_on_out_of_range() {
        let mut s = valid();
        s.judge_tasks[1].depends_on = 9;
        assert_eq!(
            problem(&s),
            "judge_tasks[1].depends_on: 9 is out of range (2 tasks)"
        );
    }

    #[test]
    fn depends_on_below_minus_one() {
        let mut s = valid();
        s.judge_tasks[0].depends_on = -3;
        assert_eq!(
            problem(&s),
            "judge_tasks[0].depends_on: -3 is invalid (use -1 for no dependency)"
        );
    }

    #[test]
    fn depends_cond_is_required_with_depends_on() {
        let mut s = valid();
        s.judge_tasks[1].depends_cond = None;
        assert_eq!(
            problem(&s),
            r#"judge_tasks[1].depends_cond: required when depends_on is set (one of "ACCEPTED", "NOT_TIME_LIMIT", "PARTIAL_CORRECT")"#
        );
    }

    #[test]
    fn depends_cond_without_depends_on_is_ignored() {
        let mut s = valid();
        s.judge_tasks[0].depends_cond = Some(DependsCond::NotTimeLimit);
        assert_eq!(s.problems(), []);
    }

    #[test]
    fn compile_task_has_no_run_script() {
        let mut s = valid();
        s.judge_tasks[0].run_script = Some(RunScript::Standard);
        assert_eq!(
            problem(&s),
            r#"judge_tasks[0].run_script: must be null for a compile task (got "standard")"#
        );
    }

    #[test]
    fn static_task_has_no_compare_script() {
        let mut s = valid();
        s.judge_tasks.push(task(
            CheckScript::Static,
            None,
            Some(CompareScript::DiffAll),
        ));
        assert_eq!(
            problem(&s),
            r#"judge_tasks[2].compare_script: must be null for a static task (got "diff-all")"#
        );
    }

    #[test]
    fn standard_task_needs_a_run_script() {
        let mut s = valid();
        s.judge_tasks[1].run_script = None;
        assert_eq!(
            problem(&s),
            r#"judge_tasks[1].run_script: required for a standard task (one of "standard", "gtest", "valgrind")"#
        );
    }

    #[test]
    fn standard_run_needs_a_compare_script() {
        let mut s = valid();
        s.judge_tasks[1].compare_script = None;
        assert_eq!(
            problem(&s),
            r#"judge_tasks[1].compare_script: required with run_script "standard" (one of "diff-ign-space", "diff-all", "")"#
        );
    }

    #[test]
    fn standard_run_cannot_compare_with_gtest() {
        let mut s = valid();
        s.judge_tasks[1].compare_script = Some(CompareScript::Gtest);
        assert_eq!(
            problem(&s),
            r#"judge_tasks[1].compare_script: "gtest" does not go with run_script "standard" (use "diff-ign-space", "diff-all" or "")"#
        );
    }

    #[test]
    fn gtest_run_compares_with_gtest_or_null() {
        let mut s = valid();
        s.judge_tasks
            .push(task(CheckScript::Standard, Some(RunScript::Gtest), None));
        assert_eq!(s.problems(), []);
        s.judge_tasks[2].compare_script = Some(CompareScript::DiffAll);
        assert_eq!(
            problem(&s),
            r#"judge_tasks[2].compare_script: "diff-all" does not go with run_script "gtest" (use "gtest")"#
        );
    }

    #[test]
    fn valgrind_run_compares_with_valgrind_or_null() {
        let mut s = valid();
        s.judge_tasks.push(task(
            CheckScript::Standard,
            Some(RunScript::Valgrind),
            Some(CompareScript::Valgrind),
        ));
        assert_eq!(s.problems(), []);
        s.judge_tasks[2].compare_script = Some(CompareScript::Gtest);
        assert_eq!(
            problem(&s),
            r#"judge_tasks[2].compare_script: "gtest" does not go with run_script "valgrind" (use "valgrind")"#
        );
    }

    #[test]
    fn custom_comparator_needs_submission_compare() {
        let mut s = valid();
        s.judge_tasks[1].compare_script = Some(CompareScript::Custom);
        assert_eq!(
            problem(&s),
            r#"judge_tasks[1].compare_script: "" (the custom comparator) needs Submission.compare, which is missing"#
        );
        s.compare = Some(program(Language::Cpp, &["compare.cpp"]));
        assert_eq!(s.problems(), []);
    }

    #[test]
    fn random_test_needs_standard_and_random_programs() {
        let mut s = valid();
        s.judge_tasks[1].is_random = true;
        s.judge_tasks[1].testcase_id = Some(-1);
        s.standard = Some(program(Language::Cpp, &["std.cpp"]));
        assert_eq!(
            problem(&s),
            "judge_tasks[1].is_random: a random test needs Submission.standard and Submission.random (missing: random)"
        );
        s.random = Some(program(Language::Python3, &["gen.py"]));
        assert_eq!(s.problems(), []);
    }

    #[test]
    fn only_standard_and_memory_tests_are_random() {
        let mut s = valid();
        s.standard = Some(program(Language::Cpp, &["std.cpp"]));
        s.random = Some(program(Language::Python3, &["gen.py"]));
        s.judge_tasks[0].is_random = true;
        assert_eq!(
            problem(&s),
            r#"judge_tasks[0].is_random: only standard and memory tests (run_script "standard" or "valgrind") can be random"#
        );
    }

    #[test]
    fn random_test_has_no_testcase() {
        let mut s = valid();
        s.standard = Some(program(Language::Cpp, &["std.cpp"]));
        s.random = Some(program(Language::Python3, &["gen.py"]));
        s.judge_tasks[1].is_random = true;
        assert_eq!(
            problem(&s),
            "judge_tasks[1].testcase_id: must be -1 or null for a random test (got 0)"
        );
    }

    #[test]
    fn time_limit_must_be_positive() {
        let mut s = valid();
        s.judge_tasks[1].time_limit = 0;
        assert_eq!(
            problem(&s),
            "judge_tasks[1].time_limit: must be a positive number of milliseconds (got 0)"
        );
    }

    #[test]
    fn memory_limit_minus_one_or_positive() {
        let mut s = valid();
        s.judge_tasks[1].memory_limit = Some(-1);
        assert_eq!(s.problems(), []);
        for bad in [0, -2] {
            s.judge_tasks[1].memory_limit = Some(bad);
            assert_eq!(
                problem(&s),
                format!(
                    "judge_tasks[1].memory_limit: must be a positive number of KB, or -1 or null for no limit (got {bad})"
                )
            );
        }
    }

    #[test]
    fn file_limit_minus_one_or_not_negative() {
        let mut s = valid();
        for ok in [-1, 0, 1024] {
            s.judge_tasks[1].file_limit = Some(ok);
            assert_eq!(s.problems(), []);
        }
        s.judge_tasks[1].file_limit = Some(-5);
        assert_eq!(
            problem(&s),
            "judge_tasks[1].file_limit: must be a number of KB, or -1 or null for no limit (got -5)"
        );
    }

    #[test]
    fn proc_limit_one_makes_judging_fail() {
        let mut s = valid();
        s.judge_tasks[1].proc_limit = Some(1);
        assert_eq!(
            problem(&s),
            "judge_tasks[1].proc_limit: 1 makes judging fail; use at least 2 (3 to 10 is suggested), or -1 or null for no limit"
        );
    }

    #[test]
    fn proc_limit_zero_or_below_minus_one() {
        let mut s = valid();
        for ok in [-1, 2, 10] {
            s.judge_tasks[1].proc_limit = Some(ok);
            assert_eq!(s.problems(), []);
        }
        for bad in [0, -4] {
            s.judge_tasks[1].proc_limit = Some(bad);
            assert_eq!(
                problem(&s),
                format!(
                    "judge_tasks[1].proc_limit: must be at least 2, or -1 or null for no limit (got {bad})"
                )
            );
        }
    }

    #[test]
    fn source_files_must_not_be_empty() {
        let mut s = valid();
        s.submission = program(Language::C, &[]);
        assert_eq!(
            problem(&s),
            "submission.source_files: must hold at least one file"
        );
    }

    #[test]
    fn make_program_starts_with_makefile() {
        let mut s = valid();
        s.submission = program(Language::Make, &["main.c", "Makefile"]);
        assert_eq!(
            problem(&s),
            r#"submission.source_files[0].name: the first source file of a make program must be "Makefile" (got "main.c")"#
        );
        s.submission = program(Language::Make, &["Makefile", "main.c"]);
        assert_eq!(s.problems(), []);
    }

    #[test]
    fn asset_name_must_not_be_empty() {
        let mut s = valid();
        s.test_data[1].inputs[0].name = String::new();
        assert_eq!(
            problem(&s),
            "test_data[1].inputs[0].name: must not be empty"
        );
    }

    #[test]
    fn asset_name_must_be_relative() {
        let mut s = valid();
        s.submission = program(Language::C, &["/etc/passwd"]);
        assert_eq!(
            problem(&s),
            r#"submission.source_files[0].name: "/etc/passwd" must be a relative path"#
        );
    }

    #[test]
    fn asset_name_must_not_climb_out() {
        let mut s = valid();
        s.test_data[0].outputs[0].name = "out/../../x".into();
        assert_eq!(
            problem(&s),
            r#"test_data[0].outputs[0].name: "out/../../x" must not contain a ".." component"#
        );
        s.test_data[0].outputs[0].name = "..hidden/x..y".into();
        assert_eq!(s.problems(), []);
    }

    #[test]
    fn asset_name_must_not_hold_nul() {
        let mut s = valid();
        s.test_data[0].inputs[0].name = "a\0b".into();
        assert_eq!(
            problem(&s),
            "test_data[0].inputs[0].name: must not contain a NUL byte"
        );
    }

    #[test]
    fn asset_name_must_name_a_file() {
        let mut s = valid();
        s.test_data[0].inputs[0].name = "dir/".into();
        assert_eq!(
            problem(&s),
            r#"test_data[0].inputs[0].name: "dir/" must name a file"#
        );
    }

    #[test]
    fn asset_names_are_unique_within_a_program() {
        let mut s = valid();
        let Program::SourceCode(source) = &mut s.submission;
        source.assist_files.push(Asset::text("main.c", ""));
        assert_eq!(
            problem(&s),
            r#"submission.assist_files[0].name: "main.c" is already the name of submission.source_files[0]"#
        );
    }

    #[test]
    fn asset_needs_its_content() {
        let mut s = valid();
        s.test_data[2].inputs[0].kind = AssetKind::Remote;
        assert_eq!(
            problem(&s),
            r#"test_data[2].inputs[0].url: required for a "remote" asset"#
        );
        s.test_data[2].inputs[0].kind = AssetKind::Local;
        assert_eq!(
            problem(&s),
            r#"test_data[2].inputs[0].path: required for a "local" asset"#
        );
        s.test_data[2].inputs[0].kind = AssetKind::Text;
        s.test_data[2].inputs[0].text = None;
        assert_eq!(
            problem(&s),
            r#"test_data[2].inputs[0].text: required for a "text" asset"#
        );
    }

    #[test]
    fn remote_asset_url_is_http() {
        let mut s = valid();
        let asset = &mut s.test_data[0].inputs[0];
        asset.kind = AssetKind::Remote;
        asset.url = Some("file:///etc/shadow".into());
        assert_eq!(
            problem(&s),
            r#"test_data[0].inputs[0].url: "file:///etc/shadow" must be an http:// or https:// URL"#
        );
        s.test_data[0].inputs[0].url = Some("HTTPS://oj.example.invalid/1.in".into());
        assert_eq!(s.problems(), []);
    }

    #[test]
    fn local_asset_path_is_not_empty() {
        let mut s = valid();
        let asset = &mut s.test_data[0].inputs[0];
        asset.kind = AssetKind::Local;
        asset.path = Some(String::new());
        assert_eq!(
            problem(&s),
            "test_data[0].inputs[0].path: must be a non-empty path without NUL bytes"
        );
    }

    #[test]
    fn every_problem_is_reported_in_one_message() {
        let mut s = valid();
        s.judge_tasks[1].time_limit = -1;
        s.judge_tasks[1].testcase_id = Some(3);
        let invalid = s.validate().unwrap_err();
        assert_eq!(invalid.sub_id, "s");
        assert_eq!(
            invalid.message(),
            "judge_tasks[1].testcase_id: 3 is out of range (3 test data); \
             judge_tasks[1].time_limit: must be a positive number of milliseconds (got -1)"
        );
        let report = invalid.into_report();
        assert!(report.results.is_empty());
        assert_eq!(report.sub_type, "programming");
    }
}
