//! The rules a Submission must follow beyond its types (design #12, #15, #16), and the
//! `InvalidRequest` that becomes a report with `results: []` and a `message` naming the field.
//!
//! Every rule is checked and every problem reported, in field order, joined by `"; "` in the
//! report's `message`. Decisions where the contract is silent:
//! - `depends_cond` is required when `depends_on` is set; with `depends_on: -1` a condition is
//!   accepted and ignored.
//! - The script table is the contract: compile and static tasks have `null` run and compare
//!   scripts; a standard test compares its output (a script whose
//!   `CompareScript::compares_output` holds: a built-in comparator, `icpc-default` or `""`); a
//!   gtest or valgrind run compares with `gtest` or `valgrind` respectively, or `null` (the
//!   only leniency: the run script already says how the task is scored).
//! - Only standard and memory tests can be random; a random test has no `testcase_id`; a
//!   standard test that is not random needs one.
//! - `proc_limit: 1` is rejected, as the contract says it makes judging fail; `0` too.
//!   `memory_limit: 0` is rejected (nothing could run); `file_limit: 0` is allowed (no output).
//! - `time_limit` must be positive for every task, compile and static included.
//! - Asset names are relative file paths: not empty, not absolute, no `..` component, no NUL,
//!   not ending in `/` or `.`, at most 1024 bytes with no component over 255 (`NAME_MAX`: a
//!   longer name would fail on the host's file system, a System Error naming the judge's own
//!   paths); names are unique within a program (source and assist files
//!   together) and within a test datum's inputs and outputs. `remote` URLs are `http(s)://`.

use crate::judge::{
    Asset, AssetKind, CheckScript, CompareProtocol, CompareScript, JudgeReport, Language, Program,
    RunScript, SubType, Submission,
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

/// A value that passed its validation. Made only by validating ([`IntoValid`]), read through
/// `Deref`, never changed in place (a change could break a rule), so code that holds one never
/// validates it again: a request is checked once, where it comes in.
///
/// ```
/// use verdict_contracts::{IntoValid, parse_submission};
///
/// let valid = parse_submission(r#"{"sub_type": "programming", "category": "oj", "prob_id": "p",
///     "sub_id": "s", "updated_at": 1, "test_data": [],
///     "judge_tasks": [{"check_script": "compile", "depends_on": -1, "time_limit": 1000}],
///     "submission": {"type": "source_code", "language": "c",
///       "source_files": [{"type": "text", "name": "main.c", "text": "int main(){}"}]}}"#)
///     .unwrap();
/// assert_eq!(valid.sub_id, "s");
/// // Changing it means taking it out, and the judge then validates it again.
/// let mut changed = valid.into_inner();
/// changed.judge_tasks[0].depends_on = 3;
/// assert!(changed.into_valid().is_err());
/// ```
///
/// Only validation makes one:
///
/// ```compile_fail
/// fn forge(s: verdict_contracts::Submission) -> verdict_contracts::Valid<verdict_contracts::Submission> {
///     verdict_contracts::Valid(s)
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Valid<T>(T);

impl<T> Valid<T> {
    /// The value, to change it (then it must be validated again).
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Valid<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: serde::Serialize> serde::Serialize for Valid<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A Submission, validated now or already: what the judge takes.
pub trait IntoValid {
    /// The validated submission, or every problem, each naming its field.
    fn into_valid(self) -> Result<Valid<Submission>, InvalidRequest>;
}

impl IntoValid for Submission {
    fn into_valid(self) -> Result<Valid<Submission>, InvalidRequest> {
        self.validate()?;
        Ok(Valid(self))
    }
}

impl IntoValid for Valid<Submission> {
    fn into_valid(self) -> Result<Valid<Submission>, InvalidRequest> {
        Ok(self)
    }
}

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
        match self.sub_type {
            SubType::Programming => {}
            // A program-output question: the answers are the submission (docs/interactive.md,
            // "Submit-answer tests").
            SubType::Output => {
                let answers_only = self.judge_tasks.iter().all(|t| {
                    t.check_script == CheckScript::Standard
                        && t.run_script == Some(RunScript::Answer)
                });
                if !answers_only {
                    errors.push(FieldError::new(
                        "sub_type",
                        "\"output\" (a program-output question) needs every task to be an answer test (check_script \"standard\", run_script \"answer\")",
                    ));
                }
            }
            other => errors.push(FieldError::new(
                "sub_type",
                format!(
                    "{:?} is not supported (this judge implements \"programming\" and, with answer tests, \"output\")",
                    other.as_str()
                ),
            )),
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
                    push(
                        "run_script",
                        format!(
                            "must be null for a {kind} task (got {:?})",
                            RunScript::as_str(run)
                        ),
                    );
                }
                if let Some(compare) = task.compare_script {
                    push(
                        "compare_script",
                        format!(
                            "must be null for a {kind} task (got {:?})",
                            CompareScript::as_str(compare)
                        ),
                    );
                }
            }
            CheckScript::Standard => match task.run_script {
                None => push(
                    "run_script",
                    "required for a standard task (one of \"standard\", \"gtest\", \"valgrind\", \"interactive\", \"answer\")".into(),
                ),
                Some(RunScript::Interactive) => {
                    if task.compare_script != Some(CompareScript::Custom) {
                        push(
                            "compare_script",
                            format!(
                                "must be \"\" with run_script \"interactive\" (Submission.compare is the interactor; got {})",
                                task.compare_script
                                    .map_or("null".to_owned(), |c| format!("{:?}", c.as_str()))
                            ),
                        );
                    }
                }
                Some(run @ (RunScript::Standard | RunScript::Answer)) => match task.compare_script {
                    None => push(
                        "compare_script",
                        format!(
                            "required with run_script {:?} (one of {})",
                            RunScript::as_str(run),
                            CompareScript::output_scripts(", ")
                        ),
                    ),
                    Some(c) if !c.compares_output() => push(
                        "compare_script",
                        format!(
                            "{:?} does not go with run_script {:?} (use {})",
                            CompareScript::as_str(c),
                            RunScript::as_str(run),
                            CompareScript::output_scripts(" or ")
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
        if task.compare_script == Some(CompareScript::IcpcDefault)
            && !matches!(
                task.run_script,
                Some(RunScript::Standard | RunScript::Answer)
            )
        {
            push(
                "compare_script",
                "\"icpc-default\" goes with run_script \"standard\" or \"answer\" only".into(),
            );
        }
        let answers = task.check_script == CheckScript::Standard
            && task.run_script == Some(RunScript::Answer);
        match (&task.answer_file, answers) {
            (None, true) => push(
                "answer_file",
                "required with run_script \"answer\" (the submission's file compared as the output)"
                    .into(),
            ),
            (Some(name), true) => {
                if let Some(message) = asset_name_problem(name) {
                    push("answer_file", message);
                }
            }
            (Some(_), false) => push(
                "answer_file",
                "goes with run_script \"answer\" only".into(),
            ),
            (None, false) => {}
        }
        if let Some(passes) = task.passes {
            if !(1..=PASSES_MAX).contains(&passes) {
                push(
                    "passes",
                    format!("{passes} is out of range (1 to {PASSES_MAX})"),
                );
            }
            let runs_tests = task.check_script == CheckScript::Standard
                && matches!(
                    task.run_script,
                    Some(RunScript::Standard | RunScript::Interactive)
                );
            if !runs_tests || task.compare_script != Some(CompareScript::Custom) {
                push(
                    "passes",
                    "a multi-pass test needs run_script \"standard\" or \"interactive\" with compare_script \"\" (the validator writes the next pass's input)".into(),
                );
            }
            if task.is_random {
                push("passes", "a multi-pass test cannot be random".into());
            }
            if matches!(
                self.compare_protocol,
                Some(CompareProtocol::Testlib | CompareProtocol::JudgeSystem)
            ) {
                push(
                    "passes",
                    format!(
                        "a multi-pass test needs a kattis validator (compare_protocol is {:?})",
                        self.compare_protocol
                            .map(CompareProtocol::as_str)
                            .unwrap_or("")
                    ),
                );
            }
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
            && matches!(
                task.run_script,
                Some(RunScript::Standard | RunScript::Interactive | RunScript::Answer)
            )
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

/// The most passes a multi-pass test may ask for (`JudgeTask.passes`): each pass runs the
/// program and its validator in fresh boxes.
pub const PASSES_MAX: i64 = 100;

/// The longest asset name, in bytes: well under `PATH_MAX` (4096) once the judge's own
/// directories are put in front of it on the host.
pub const ASSET_NAME_MAX: usize = 1024;

/// The longest component of an asset name, in bytes (`NAME_MAX`).
pub const ASSET_NAME_PART_MAX: usize = 255;

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
    } else if name.len() > ASSET_NAME_MAX {
        Some(format!(
            "is {} bytes long, over the {ASSET_NAME_MAX} a name may have",
            name.len()
        ))
    } else {
        name.split('/')
            .find(|p| p.len() > ASSET_NAME_PART_MAX)
            .map(|part| {
                format!(
                    "has a component of {} bytes ({:?}...), over the {ASSET_NAME_PART_MAX} a \
                     file system allows (NAME_MAX)",
                    part.len(),
                    part.chars().take(16).collect::<String>()
                )
            })
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
mod tests;
