//! bytedance/SandboxFusion's `POST /run_code`, exact to what its clients send and read (verl's
//! `sandbox_fusion` reward and tool, the `sandbox-fusion` package): the request's fields and
//! defaults, its three top-level statuses, its per-step results, FastAPI's `422` for a request
//! that does not fit. verdict's own verdict rides along in fields those clients ignore
//! (docs/compat.md). [`submit`] is its `POST /submit` with the tests sent along.

pub mod submit;

use crate::program::{ProgramOutcome, ProgramRequest, StepEnd, StepOutcome, is_box_path};
use crate::{CompatError, fastapi::Detail};
use base64::Engine;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use verdict_contracts::Language;
use verdict_scripts::{CompileLimits, RunLimits};

/// SandboxFusion's language names (its `Language` enum), in its order, with the verdict
/// language each runs as (`None`: SandboxFusion has it, verdict does not run it).
pub const LANGUAGES: &[(&str, Option<Language>)] = &[
    ("python", Some(Language::Python3)),
    ("cpp", Some(Language::Cpp)),
    ("nodejs", Some(Language::Js)),
    ("go", Some(Language::Go)),
    ("go_test", None),
    ("java", Some(Language::Java)),
    ("php", Some(Language::Php)),
    ("csharp", Some(Language::Csharp)),
    ("bash", Some(Language::Bash)),
    ("typescript", Some(Language::Typescript)),
    ("sql", None),
    ("rust", Some(Language::Rust)),
    ("cuda", None),
    ("lua", Some(Language::Lua)),
    ("R", Some(Language::R)),
    ("perl", Some(Language::Perl)),
    ("D_ut", None),
    ("ruby", Some(Language::Ruby)),
    ("scala", Some(Language::Scala)),
    ("julia", None),
    ("pytest", None),
    ("junit", None),
    ("kotlin_script", None),
    ("jest", None),
    ("verilog", None),
    ("python_gpu", None),
    ("lean", None),
    ("swift", Some(Language::Swift)),
    ("racket", None),
];

/// The verdict language a SandboxFusion language name runs as: SandboxFusion's names first,
/// then verdict's own (`c`, `kotlin`, `haskell`, ...: an extension). `Err` names why not.
pub fn language(name: &str) -> Result<Language, String> {
    match LANGUAGES.iter().find(|(n, _)| *n == name) {
        Some((_, Some(language))) => Ok(*language),
        Some((_, None)) => Err(format!(
            "verdict does not run SandboxFusion's {name:?}; it runs {}",
            runnable()
        )),
        None => Language::from_name(name).ok_or_else(|| {
            let names: Vec<String> = LANGUAGES.iter().map(|(n, _)| format!("'{n}'")).collect();
            let (last, rest) = names
                .split_last()
                .map_or((String::new(), &[][..]), |(l, r)| (l.clone(), r));
            format!("Input should be {} or {last}", rest.join(", "))
        }),
    }
}

fn runnable() -> String {
    let names: Vec<&str> = LANGUAGES
        .iter()
        .filter(|(_, l)| l.is_some())
        .map(|(n, _)| *n)
        .collect();
    names.join(", ")
}

/// A `POST /run_code` request, as SandboxFusion's `RunCodeRequest` reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCodeRequest {
    /// Compile timeout in seconds (default 10).
    pub compile_timeout: f64,
    /// Run timeout in seconds (default 10).
    pub run_timeout: f64,
    /// Memory limit in MB; -1 (the default) is the operator's default.
    pub memory_limit_mb: i64,
    /// The code.
    pub code: String,
    /// Standard input.
    pub stdin: Option<String>,
    /// The language, as sent.
    pub language: String,
    /// Files placed beside the code: path -> base64 content (`null`: none).
    pub files: BTreeMap<String, Option<String>>,
    /// Files read back after the run.
    pub fetch_files: Vec<String>,
    /// Arguments (SandboxFusion passes them to pytest; here to the program).
    pub args: Vec<String>,
}

/// Reads a request body as FastAPI and pydantic read `RunCodeRequest`: every field's error, each
/// with its `loc`, `type` and `msg`.
pub fn parse_run_code(body: &[u8]) -> Result<RunCodeRequest, Vec<Detail>> {
    let value: Value = serde_json::from_slice(body).map_err(|e| vec![Detail::json_invalid(&e)])?;
    let Value::Object(fields) = &value else {
        return Err(vec![Detail::not_object(&value)]);
    };
    let mut errors = Vec::new();
    let mut number = |name: &str, default: f64| -> f64 {
        match fields.get(name) {
            None => default,
            Some(v) => match crate::fastapi::float(v) {
                Some(n) if n.is_finite() => n,
                _ => {
                    errors.push(Detail::float(name, v));
                    default
                }
            },
        }
    };
    let compile_timeout = number("compile_timeout", 10.0);
    let run_timeout = number("run_timeout", 10.0);
    let memory_limit_mb = match fields.get("memory_limit_MB") {
        None => -1,
        Some(v) => crate::fastapi::int(v).unwrap_or_else(|| {
            errors.push(Detail::int("memory_limit_MB", v));
            -1
        }),
    };
    let code = match fields.get("code") {
        None => {
            errors.push(Detail::missing("code", &value));
            String::new()
        }
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            errors.push(Detail::string("code", v));
            String::new()
        }
    };
    let stdin = match fields.get("stdin") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            errors.push(Detail::string("stdin", v));
            None
        }
    };
    let language = match fields.get("language") {
        None => {
            errors.push(Detail::missing("language", &value));
            String::new()
        }
        Some(Value::String(s)) => {
            if let Err(message) = language(s) {
                errors.push(Detail::language(s, message));
            }
            s.clone()
        }
        Some(v) => {
            errors.push(Detail::language_type(v));
            String::new()
        }
    };
    let mut files = BTreeMap::new();
    match fields.get("files") {
        None => {}
        Some(Value::Object(map)) => {
            for (path, content) in map {
                match content {
                    Value::Null => {
                        files.insert(path.clone(), None);
                    }
                    Value::String(s) => {
                        files.insert(path.clone(), Some(s.clone()));
                    }
                    v => errors.push(Detail::string_at(&["files", path], v)),
                }
            }
        }
        Some(v) => errors.push(Detail::dict("files", v)),
    }
    let mut strings = |name: &str| -> Vec<String> {
        match fields.get(name) {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::String(s) => Some(s.clone()),
                    v => {
                        errors.push(Detail::string_index(name, i, v));
                        None
                    }
                })
                .collect(),
            Some(v) => {
                errors.push(Detail::list(name, v));
                Vec::new()
            }
        }
    };
    let fetch_files = strings("fetch_files");
    let args = strings("args");
    if errors.is_empty() {
        Ok(RunCodeRequest {
            compile_timeout,
            run_timeout,
            memory_limit_mb,
            code,
            stdin,
            language,
            files,
            fetch_files,
            args,
        })
    } else {
        Err(errors)
    }
}

/// What the operator decides for these calls.
#[derive(Debug, Clone)]
pub struct RunCodeLimits {
    /// Memory when the request says -1 (SandboxFusion: none), in MB.
    pub default_memory_mb: u64,
    /// The most memory a request may ask for, in MB.
    pub max_memory_mb: u64,
    /// The longest compile or run timeout a request may ask for, in seconds.
    pub max_timeout_secs: f64,
    /// Output each of stdout and stderr may reach, in KB.
    pub output_kb: u64,
}

impl Default for RunCodeLimits {
    fn default() -> Self {
        RunCodeLimits {
            default_memory_mb: 1024,
            max_memory_mb: 8192,
            max_timeout_secs: 300.0,
            output_kb: 64 * 1024,
        }
    }
}

/// The program a request runs, or the FastAPI detail of what a client sent that this judge
/// cannot take (a file path outside the box, base64 that does not decode).
pub fn program_request(
    request: &RunCodeRequest,
    owner: &str,
    limits: &RunCodeLimits,
) -> Result<ProgramRequest, Vec<Detail>> {
    let language = language(&request.language)
        .map_err(|message| vec![Detail::language(&request.language, message)])?;
    let mut errors = Vec::new();
    let mut files = Vec::new();
    for (path, content) in &request.files {
        let Some(content) = content else { continue };
        if !is_box_path(path) {
            errors.push(Detail::value_error(
                &["files", path],
                "a path relative to the code's directory, without `..`",
                &Value::String(path.clone()),
            ));
            continue;
        }
        match base64::engine::general_purpose::STANDARD.decode(content.trim()) {
            Ok(bytes) => files.push((path.clone(), bytes)),
            Err(e) => errors.push(Detail::value_error(
                &["files", path],
                &format!("not base64: {e}"),
                &Value::String(content.clone()),
            )),
        }
    }
    for (i, path) in request.fetch_files.iter().enumerate() {
        if !is_box_path(path) {
            errors.push(Detail::value_error_index(
                "fetch_files",
                i,
                "a path relative to the code's directory, without `..`",
                &Value::String(path.clone()),
            ));
        }
    }
    let memory_mb = if request.memory_limit_mb <= 0 {
        limits.default_memory_mb
    } else {
        u64::try_from(request.memory_limit_mb).unwrap_or(u64::MAX)
    };
    if memory_mb > limits.max_memory_mb {
        errors.push(Detail::value_error(
            &["memory_limit_MB"],
            &format!("at most {} MB here", limits.max_memory_mb),
            &Value::from(request.memory_limit_mb),
        ));
    }
    for (name, secs) in [
        ("compile_timeout", request.compile_timeout),
        ("run_timeout", request.run_timeout),
    ] {
        if secs > limits.max_timeout_secs {
            errors.push(Detail::value_error(
                &[name],
                &format!("at most {} seconds here", limits.max_timeout_secs),
                &Value::from(secs),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let ms = |secs: f64| ((secs.max(0.0) * 1000.0).ceil() as u64).max(1);
    let run_ms = ms(request.run_timeout);
    let compile_ms = ms(request.compile_timeout);
    let compile = CompileLimits {
        cpu_time_ms: compile_ms,
        wall_time_ms: compile_ms,
        ..CompileLimits::default()
    };
    // SandboxFusion's run_timeout is wall time: the CPU limit is the same, so a busy loop and
    // a sleep both stop there.
    let run = RunLimits {
        time_ms: run_ms,
        wall_ms: run_ms,
        memory_kb: Some(memory_mb.saturating_mul(1024)),
        output_kb: Some(limits.output_kb),
        processes: None,
    };
    let sources = vec![(
        main_file(language, &request.code),
        request.code.clone().into_bytes(),
    )];
    Ok(ProgramRequest {
        files,
        stdin: request.stdin.clone().unwrap_or_default().into_bytes(),
        args: request.args.clone(),
        fetch: request.fetch_files.clone(),
        ..ProgramRequest::new(owner, language, sources, compile, run)
    })
}

/// The file the code is written to: Java's public class (or the class holding `main`) names its
/// file, as javac needs (Scala's main object is found in the source by its profile:
/// `verdict_scripts::scala_main_object`).
pub fn main_file(language: Language, code: &str) -> String {
    match language {
        Language::Java => format!("{}.java", java_main_class(code).unwrap_or("Main")),
        Language::Csharp => "Main.cs".into(),
        other => verdict_contracts::batch::default_file_name(other).replace("solution.", "main."),
    }
}

/// The class a Java source is run as: its public top-level class, else the class declaring
/// `static void main`.
pub fn java_main_class(code: &str) -> Option<&str> {
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, word) in words.iter().enumerate() {
        if *word != "class" || i + 1 >= words.len() {
            continue;
        }
        let mut j = i;
        while j > 0 && matches!(words[j - 1], "final" | "abstract" | "strictfp") {
            j -= 1;
        }
        if j > 0 && words[j - 1] == "public" {
            return Some(words[i + 1]);
        }
    }
    let before = &code[..code.find("static void main")?];
    let class_at = before.rfind("class ")?;
    before[class_at + 6..]
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .find(|w| !w.is_empty())
}

/// SandboxFusion's top-level status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RunStatus {
    /// Every step finished with code 0.
    Success,
    /// A step ran out of time or exited non-zero.
    Failed,
    /// The sandbox itself failed.
    SandboxError,
}

/// SandboxFusion's status of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CommandRunStatus {
    /// The command ended (with any code).
    Finished,
    /// The command could not run.
    Error,
    /// The command ran out of time.
    TimeLimitExceeded,
}

/// One step's result: SandboxFusion's `CommandRunResult` and verdict's fields beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandRunResult {
    /// SandboxFusion's status.
    pub status: CommandRunStatus,
    /// Wall time in seconds.
    pub execution_time: Option<f64>,
    /// The exit code (`-signal` when a signal ended it; absent on a timeout).
    pub return_code: Option<i32>,
    /// Standard output.
    pub stdout: Option<String>,
    /// Standard error.
    pub stderr: Option<String>,
    /// verdict's verdict of the step (an extension SandboxFusion's clients ignore).
    pub verdict: StepVerdict,
}

/// verdict's own account of a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepVerdict {
    /// The judge's status (`Accepted`, `Time Limit Exceeded`, `Memory Limit Exceeded`,
    /// `Output Limit Exceeded`, `Runtime Error`, `Compilation Error`, ...).
    pub status: String,
    /// Why, when it did not end well.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// CPU time in ms.
    pub cpu_time_ms: u64,
    /// Wall time in ms.
    pub wall_time_ms: u64,
    /// Peak memory in KiB.
    pub memory_kb: u64,
    /// Compile steps: whether the build came from an earlier call with the same sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_reused: Option<bool>,
}

/// The answer to `POST /run_code`: SandboxFusion's `RunCodeResponse`, plus `infra_error`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunCodeResponse {
    /// `Success`, `Failed` or `SandboxError`.
    pub status: RunStatus,
    /// Why the sandbox failed (empty otherwise).
    pub message: String,
    /// The compile step (compiled languages).
    pub compile_result: Option<CommandRunResult>,
    /// The run.
    pub run_result: Option<CommandRunResult>,
    /// SandboxFusion's pod name: always null here.
    pub executor_pod_name: Option<String>,
    /// The fetched files: path -> base64.
    pub files: BTreeMap<String, String>,
    /// Set when the judge, not the program, failed (an extension): never score it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infra_error: Option<verdict_contracts::batch::InfraError>,
}

impl RunCodeResponse {
    /// The answer for a judge that could not do its job.
    pub fn sandbox_error(error: &CompatError) -> RunCodeResponse {
        RunCodeResponse {
            status: RunStatus::SandboxError,
            message: error.to_string(),
            compile_result: None,
            run_result: None,
            executor_pod_name: None,
            files: BTreeMap::new(),
            infra_error: Some(verdict_contracts::batch::InfraError {
                message: error.to_string(),
                retryable: error.retryable(),
            }),
        }
    }

    /// The answer for a program's outcome.
    pub fn of(outcome: &ProgramOutcome) -> RunCodeResponse {
        let compile_result = outcome.compile.as_ref().map(|step| {
            let mut result = step_result(step);
            result.verdict.build_reused = Some(outcome.build_reused);
            result
        });
        let run_result = outcome.run.as_ref().map(step_result);
        let steps = [&compile_result, &run_result];
        let status = if steps
            .iter()
            .flat_map(|s| s.iter())
            .any(|s| s.status == CommandRunStatus::TimeLimitExceeded)
            || steps
                .iter()
                .flat_map(|s| s.iter())
                .any(|s| s.return_code.is_some_and(|c| c != 0))
        {
            RunStatus::Failed
        } else {
            RunStatus::Success
        };
        let files = outcome
            .files
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    base64::engine::general_purpose::STANDARD.encode(v),
                )
            })
            .collect();
        RunCodeResponse {
            status,
            message: String::new(),
            compile_result,
            run_result,
            executor_pod_name: None,
            files,
            infra_error: None,
        }
    }
}

/// A step as SandboxFusion reports it. Its runs have no memory or output limit of their own
/// (a program over one is killed, a non-zero code): such a step reports the kill's code even
/// if the program's own exit was 0, so no client counts it a success.
fn step_result(step: &StepOutcome) -> CommandRunResult {
    let (status, return_code) = match step.end {
        StepEnd::TimeLimit => (CommandRunStatus::TimeLimitExceeded, None),
        StepEnd::Signaled => (
            CommandRunStatus::Finished,
            step.signal.map(|s| -s).or(step.exit_code),
        ),
        StepEnd::MemoryLimit => (
            CommandRunStatus::Finished,
            Some(step.signal.map_or(-9, |s| -s)),
        ),
        StepEnd::OutputLimit => (
            CommandRunStatus::Finished,
            Some(step.signal.map_or(-25, |s| -s)),
        ),
        StepEnd::Forbidden => {
            let code = match step.signal {
                Some(signal) => -signal,
                None => step.exit_code.filter(|c| *c != 0).unwrap_or(-31),
            };
            (CommandRunStatus::Finished, Some(code))
        }
        StepEnd::Exited => (CommandRunStatus::Finished, step.exit_code),
    };
    CommandRunResult {
        status,
        execution_time: Some(step.wall_time_ms as f64 / 1000.0),
        return_code,
        stdout: Some(String::from_utf8_lossy(&step.stdout).into_owned()),
        stderr: Some(String::from_utf8_lossy(&step.stderr).into_owned()),
        verdict: StepVerdict {
            status: step.status.as_str().to_string(),
            reason: step.reason.clone(),
            cpu_time_ms: step.cpu_time_ms,
            wall_time_ms: step.wall_time_ms,
            memory_kb: step.memory_kb,
            build_reused: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: Value) -> Result<RunCodeRequest, Vec<Detail>> {
        parse_run_code(value.to_string().as_bytes())
    }

    #[test]
    fn verls_request_is_read_with_sandboxfusions_defaults() {
        let request = parse(
            json!({"compile_timeout": 10, "run_timeout": 10, "code": "print(1)",
            "stdin": "1\n", "language": "python", "files": {}, "fetch_files": []}),
        )
        .expect("read");
        assert_eq!(request.memory_limit_mb, -1);
        assert_eq!(request.stdin.as_deref(), Some("1\n"));
        let minimal = parse(json!({"code": "x", "language": "cpp"})).expect("read");
        assert_eq!((minimal.compile_timeout, minimal.run_timeout), (10.0, 10.0));
    }

    #[test]
    fn every_bad_field_is_named_as_fastapi_names_it() {
        let errors = parse(json!({"language": "cobol", "run_timeout": "soon", "files": []}))
            .expect_err("refused");
        let locs: Vec<Value> = errors.iter().map(|d| json!(d.loc)).collect();
        assert!(locs.contains(&json!(["body", "code"])), "{locs:?}");
        assert!(locs.contains(&json!(["body", "language"])), "{locs:?}");
        assert!(locs.contains(&json!(["body", "run_timeout"])), "{locs:?}");
        assert!(locs.contains(&json!(["body", "files"])), "{locs:?}");
        let missing = errors
            .iter()
            .find(|d| d.loc[1] == json!("code"))
            .expect("code");
        assert_eq!(missing.kind, "missing");
        assert_eq!(missing.msg, "Field required");
        let not_json = parse_run_code(b"{oops").expect_err("refused");
        assert_eq!(not_json[0].kind, "json_invalid");
    }

    #[test]
    fn a_language_sandboxfusion_has_and_verdict_does_not_run_is_named() {
        let errors = parse(json!({"code": "SELECT 1", "language": "sql"})).expect_err("refused");
        assert!(errors[0].msg.contains("\"sql\""), "{:?}", errors[0]);
        assert_eq!(language("python"), Ok(Language::Python3));
        assert_eq!(language("php"), Ok(Language::Php));
        assert_eq!(language("typescript"), Ok(Language::Typescript));
        assert_eq!(
            language("c"),
            Ok(Language::C),
            "verdict's own names are an extension"
        );
    }

    #[test]
    fn javas_file_is_named_after_its_public_class() {
        assert_eq!(
            main_file(
                Language::Java,
                "import java.util.*;\npublic class Solution {\n public static void main(String[] a) {}\n}"
            ),
            "Solution.java"
        );
        assert_eq!(
            main_file(
                Language::Java,
                "class Helper {}\nclass Prog { public static void main(String[] a) {} }"
            ),
            "Prog.java"
        );
        assert_eq!(main_file(Language::Java, "interface X {}"), "Main.java");
        assert_eq!(main_file(Language::Cpp, ""), "main.cpp");
    }

    #[test]
    fn paths_outside_the_box_and_bad_base64_are_refused_naming_the_file() {
        let request = parse(json!({"code": "x", "language": "python",
            "files": {"../x": "aGk=", "ok.txt": "%%%"}, "fetch_files": ["/etc/passwd"]}))
        .expect("read");
        let errors =
            program_request(&request, "default", &RunCodeLimits::default()).expect_err("refused");
        let locs: Vec<Value> = errors.iter().map(|d| json!(d.loc)).collect();
        assert_eq!(
            locs,
            [
                json!(["body", "files", "../x"]),
                json!(["body", "files", "ok.txt"]),
                json!(["body", "fetch_files", 0])
            ]
        );
    }

    #[test]
    fn a_program_killed_over_its_memory_never_reports_code_zero() {
        let outcome = ProgramOutcome::ran(StepOutcome {
            status: verdict_contracts::JudgeStatus::MemoryLimitExceeded,
            ..StepOutcome::ended(StepEnd::MemoryLimit, Some(0), None)
        });
        let response = RunCodeResponse::of(&outcome);
        assert_eq!(response.status, RunStatus::Failed);
        assert_eq!(response.run_result.and_then(|r| r.return_code), Some(-9));
    }
}
