//! engineer-man/Piston's API v2 (`GET /api/v2/runtimes`, `POST /api/v2/execute`), exact to
//! its `api/src/api/v2.js` and `job.js`: the request's checks and their messages, its
//! defaults and configured limits, the trailing newline it adds to stdin, the run stage
//! standing in for a failed compile, isolate's `status`/`message` per stage. Errors are
//! `{"message": ...}` (docs/compat.md).

pub mod version;

use crate::program::{ProgramOutcome, ProgramRequest, StepEnd, StepOutcome, is_box_path};
use crate::toolchains::Installed;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use verdict_contracts::Language;
use verdict_scripts::{CompileLimits, RunLimits};

/// Piston's name of a verdict language, its aliases, and the package (`runtime`) that
/// provides it where one package provides several (Piston's names where it has the language,
/// verdict's own where it has not: `ada`, `make`).
pub fn piston_name(
    language: Language,
) -> (&'static str, &'static [&'static str], Option<&'static str>) {
    match language {
        Language::Python3 => ("python", &["py", "py3", "python3"], None),
        Language::Python2 => ("python2", &["py2", "python2"], None),
        Language::C => ("c", &["gcc"], Some("gcc")),
        Language::Cpp => ("c++", &["cpp", "g++"], Some("gcc")),
        Language::Fortran95 => ("fortran", &["fortran", "f90"], Some("gcc")),
        Language::Java => ("java", &[], None),
        Language::Js => (
            "javascript",
            &["node-javascript", "node-js", "javascript", "js"],
            Some("node"),
        ),
        Language::Go => ("go", &["go", "golang"], None),
        Language::Rust => ("rust", &["rs"], None),
        Language::Ruby => ("ruby", &["ruby3", "rb"], None),
        Language::Perl => ("perl", &["pl"], None),
        Language::Bash => ("bash", &["sh"], None),
        Language::Lua => ("lua", &[], None),
        Language::Csharp => (
            "csharp",
            &["mono", "mono-csharp", "mono-c#", "mono-cs", "c#", "cs"],
            Some("mono"),
        ),
        Language::Kotlin => ("kotlin", &["kt"], None),
        Language::Scala => ("scala", &["sc"], None),
        Language::Swift => ("swift", &["swift"], None),
        Language::Haskell => ("haskell", &["haskell", "hs"], None),
        Language::Pas => ("pascal", &["freepascal", "pp", "pas"], None),
        Language::Awk => ("awk", &["gawk"], Some("gawk")),
        Language::R => ("rscript", &["r"], None),
        Language::Fsharp => (
            "fsharp.net",
            &[
                "fsharp",
                "fs",
                "f#",
                "fs.net",
                "f#.net",
                "fsharp-dotnet",
                "dotnet-fsharp",
            ],
            Some("dotnet"),
        ),
        Language::Vbnet => (
            "basic.net",
            &[
                "basic",
                "visual-basic",
                "visual-basic.net",
                "vb",
                "vb.net",
                "vb-dotnet",
                "dotnet-vb",
            ],
            Some("dotnet"),
        ),
        Language::Php => ("php", &[], None),
        Language::Typescript => ("typescript", &["ts", "node-ts", "tsc"], None),
        Language::Octave => ("octave", &["matlab", "m"], None),
        Language::Ada => ("ada", &["gnat"], None),
        Language::Make => ("make", &["makefile"], None),
    }
}

/// One entry of `GET /api/v2/runtimes`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Runtime {
    /// Piston's language name.
    pub language: String,
    /// The toolchain's version (`x.y.z`).
    pub version: String,
    /// Other names a request may use.
    pub aliases: Vec<String>,
    /// The package providing it, where one provides several languages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The verdict language it runs as (not sent).
    #[serde(skip)]
    pub verdict: Language,
}

/// The runtimes of the installed languages, in verdict's order.
pub fn runtimes(installed: &[Installed]) -> Vec<Runtime> {
    installed
        .iter()
        .map(|i| {
            let (name, aliases, runtime) = piston_name(i.language);
            let mut aliases: Vec<String> = aliases.iter().map(|a| a.to_string()).collect();
            // Piston's python packages also answer to `python3.11`.
            if i.language == Language::Python3
                && let Some((minor, _)) = i.version.rsplit_once('.')
            {
                aliases.push(format!("python{minor}"));
            }
            Runtime {
                language: name.to_string(),
                version: i.version.clone(),
                aliases,
                runtime: runtime.map(str::to_string),
                verdict: i.language,
            }
        })
        .collect()
}

/// The newest runtime named `language` (its name, an alias, or verdict's own name: an
/// extension) whose version satisfies `selector`.
pub fn find_runtime<'a>(
    runtimes: &'a [Runtime],
    language: &str,
    selector: &str,
) -> Option<&'a Runtime> {
    runtimes
        .iter()
        .filter(|rt| {
            rt.language == language
                || rt.aliases.iter().any(|a| a == language)
                || rt.verdict.as_str() == language
        })
        .filter(|rt| version::satisfies(&rt.version, selector))
        .max_by_key(|rt| {
            let parts: Vec<u64> = rt
                .version
                .split('.')
                .filter_map(|p| p.parse().ok())
                .collect();
            parts
        })
}

/// Piston's error: the HTTP status and `{"message": ...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PistonError {
    /// 400 for a request Piston refuses, 415 for a body that is not JSON.
    pub status: u16,
    /// Piston's message.
    pub message: String,
}

impl PistonError {
    fn bad(message: impl Into<String>) -> PistonError {
        PistonError {
            status: 400,
            message: message.into(),
        }
    }

    /// The body: `{"message": ...}`.
    pub fn body(&self) -> Value {
        serde_json::json!({ "message": self.message })
    }
}

/// The limits a Piston server is configured with (its `PISTON_*` settings): the default of
/// each request field, and the most a request may ask (a value above is refused, as Piston
/// refuses it). The server's `[piston]` section reads them under these names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub struct PistonLimits {
    /// `run_timeout` (wall) in ms (Piston: 3000).
    pub run_timeout: i64,
    /// `compile_timeout` (wall) in ms (Piston: 10000).
    pub compile_timeout: i64,
    /// `run_cpu_time` in ms (Piston: 3000).
    pub run_cpu_time: i64,
    /// `compile_cpu_time` in ms (Piston: 10000).
    pub compile_cpu_time: i64,
    /// `run_memory_limit` in bytes (-1: no limit of Piston's own).
    pub run_memory_limit: i64,
    /// `compile_memory_limit` in bytes (-1: no limit of Piston's own).
    pub compile_memory_limit: i64,
    /// What "no limit" is here, in MB: every run is bounded.
    pub unlimited_memory_mb: u64,
    /// Each of stdout and stderr, in bytes (`output_max_size`): beyond it the run is killed,
    /// `status` `OL` / `EL`.
    pub output_max_size: u64,
    /// Processes and threads (`max_process_count`).
    pub max_process_count: u64,
}

impl Default for PistonLimits {
    fn default() -> Self {
        PistonLimits {
            run_timeout: 3000,
            compile_timeout: 10_000,
            run_cpu_time: 3000,
            compile_cpu_time: 10_000,
            run_memory_limit: -1,
            compile_memory_limit: -1,
            unlimited_memory_mb: 1024,
            output_max_size: 1024,
            max_process_count: 64,
        }
    }
}

/// A checked `POST /api/v2/execute`: the runtime, the program and the echo fields.
#[derive(Debug, Clone)]
pub struct Execute {
    /// The runtime chosen.
    pub runtime: Runtime,
    /// The program to run.
    pub program: ProgramRequest,
    /// `output_max_size` for this call.
    pub output_max_size: u64,
}

/// Reads and checks a `POST /api/v2/execute` body as Piston's `get_job` does, in its order
/// and with its messages.
pub fn parse_execute(
    body: &[u8],
    runtimes: &[Runtime],
    limits: &PistonLimits,
    owner: &str,
) -> Result<Execute, PistonError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| PistonError::bad(format!("the body is not JSON: {e}")))?;
    let empty = Map::new();
    let fields = value.as_object().unwrap_or(&empty);
    let text = |name: &str| match fields.get(name) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    let language =
        text("language").ok_or_else(|| PistonError::bad("language is required as a string"))?;
    let selector =
        text("version").ok_or_else(|| PistonError::bad("version is required as a string"))?;
    let Some(Value::Array(files)) = fields.get("files") else {
        return Err(PistonError::bad("files is required as an array"));
    };
    for (i, file) in files.iter().enumerate() {
        if !file.get("content").is_some_and(Value::is_string) {
            return Err(PistonError::bad(format!(
                "files[{i}].content is required as a string"
            )));
        }
    }
    let runtime = find_runtime(runtimes, &language, &selector)
        .ok_or_else(|| PistonError::bad(format!("{language}-{selector} runtime is unknown")))?
        .clone();
    let encoding_of = |file: &Value| match file.get("encoding").and_then(Value::as_str) {
        Some(e @ ("base64" | "hex" | "utf8")) => e.to_string(),
        _ => "utf8".to_string(),
    };
    if !files.iter().any(|f| encoding_of(f) == "utf8") {
        return Err(PistonError::bad(
            "files must include at least one utf8 encoded file",
        ));
    }
    let mut chosen = std::collections::BTreeMap::new();
    for constraint in ["memory_limit", "timeout", "cpu_time"] {
        for stage in ["compile", "run"] {
            let name = format!("{stage}_{constraint}");
            let configured = match name.as_str() {
                "compile_memory_limit" => limits.compile_memory_limit,
                "run_memory_limit" => limits.run_memory_limit,
                "compile_timeout" => limits.compile_timeout,
                "run_timeout" => limits.run_timeout,
                "compile_cpu_time" => limits.compile_cpu_time,
                _ => limits.run_cpu_time,
            };
            let value = match fields.get(&name) {
                None | Some(Value::Null) | Some(Value::Bool(false)) => None,
                Some(Value::String(s)) if s.is_empty() => None,
                Some(Value::Number(n)) if n.as_f64() == Some(0.0) => None,
                Some(Value::Number(n)) => n.as_f64(),
                Some(_) => {
                    return Err(PistonError::bad(format!(
                        "If specified, {name} must be a number"
                    )));
                }
            };
            if let Some(v) = value
                && configured > 0
            {
                if v > configured as f64 {
                    return Err(PistonError::bad(format!(
                        "{name} cannot exceed the configured limit of {configured}"
                    )));
                }
                if v < 0.0 {
                    return Err(PistonError::bad(format!("{name} must be non-negative")));
                }
            }
            chosen.insert(name, value.unwrap_or(configured as f64));
        }
    }
    let args: Vec<String> = match fields.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        Some(_) => return Err(PistonError::bad("args must be an array")),
    };
    let mut stdin = match fields.get("stdin") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    // Piston ends stdin with a newline when it does not end with one.
    if !stdin.ends_with('\n') {
        stdin.push('\n');
    }
    let mut sources = Vec::new();
    let mut data_files = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let name = match file.get("name").and_then(Value::as_str) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => format!("file{i}.code"),
        };
        if !is_box_path(&name) {
            return Err(PistonError::bad(format!(
                "File path \"{name}\" tries to escape parent directory"
            )));
        }
        let content = file.get("content").and_then(Value::as_str).unwrap_or("");
        let encoding = encoding_of(file);
        let bytes = match encoding.as_str() {
            "base64" => base64::engine::general_purpose::STANDARD
                .decode(content.trim())
                .map_err(|e| PistonError::bad(format!("files[{i}].content is not base64: {e}")))?,
            "hex" => hex(content)
                .ok_or_else(|| PistonError::bad(format!("files[{i}].content is not hex")))?,
            _ => content.as_bytes().to_vec(),
        };
        if encoding == "utf8" {
            sources.push((name, bytes));
        } else {
            data_files.push((name, bytes));
        }
    }
    name_sources(runtime.verdict, &mut sources);
    let ms = |name: &str| chosen.get(name).copied().unwrap_or(0.0).max(1.0).ceil() as u64;
    let memory_kb = |name: &str| {
        let bytes = chosen.get(name).copied().unwrap_or(-1.0);
        if bytes < 0.0 {
            limits.unlimited_memory_mb.saturating_mul(1024)
        } else {
            ((bytes / 1000.0).floor() as u64).max(1)
        }
    };
    let compile = CompileLimits {
        cpu_time_ms: ms("compile_cpu_time"),
        wall_time_ms: ms("compile_timeout"),
        memory_kb: if chosen.get("compile_memory_limit").copied().unwrap_or(-1.0) < 0.0 {
            CompileLimits::default().memory_kb
        } else {
            memory_kb("compile_memory_limit")
        },
        ..CompileLimits::default()
    };
    let run = RunLimits {
        time_ms: ms("run_cpu_time"),
        wall_ms: ms("run_timeout"),
        memory_kb: Some(memory_kb("run_memory_limit")),
        output_kb: Some(limits.output_max_size.div_ceil(1024).max(1)),
        processes: Some(limits.max_process_count),
    };
    Ok(Execute {
        program: ProgramRequest {
            files: data_files,
            stdin: stdin.into_bytes(),
            args,
            ..ProgramRequest::new(owner, runtime.verdict, sources, compile, run)
        },
        runtime,
        output_max_size: limits.output_max_size,
    })
}

/// Names the sources as the language's compiler needs them: Piston's compile scripts add the
/// extension (`file0.code` is compiled as C), and Java's launcher runs a file of any name,
/// while `javac` wants the public class's name.
fn name_sources(language: Language, sources: &mut [(String, Vec<u8>)]) {
    if language == Language::Java {
        if let Some((name, code)) = sources.first_mut() {
            let class = crate::sandbox_fusion::java_main_class(&String::from_utf8_lossy(code))
                .map(str::to_string);
            if let Some(class) = class {
                *name = format!("{class}.java");
            }
        }
        return;
    }
    let default = verdict_contracts::batch::default_file_name(language);
    let Some((_, extension)) = default.rsplit_once('.') else {
        return;
    };
    let suffix = format!(".{extension}");
    for (name, _) in sources.iter_mut() {
        if !name.ends_with(&suffix) {
            name.push_str(&suffix);
        }
    }
}

fn hex(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// One stage of Piston's answer (`run`, `compile`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit code, `null` when a signal ended it.
    pub code: Option<i32>,
    /// The signal's name (`SIGKILL`), `null` when it exited.
    pub signal: Option<String>,
    /// stdout then stderr.
    pub output: String,
    /// Peak memory in bytes.
    pub memory: u64,
    /// isolate's message (`Exited with error status 1`, `Time limit exceeded`), or `null`.
    pub message: Option<String>,
    /// isolate's status (`RE`, `SG`, `TO`) or Piston's (`OL`, `EL`), or `null`.
    pub status: Option<String>,
    /// CPU time in ms.
    pub cpu_time: u64,
    /// Wall time in ms.
    pub wall_time: u64,
}

/// Piston's answer to `POST /api/v2/execute`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecuteResponse {
    /// The runtime's name.
    pub language: String,
    /// The runtime's version.
    pub version: String,
    /// The run stage (the compile stage when the compile failed, as Piston answers).
    pub run: Stage,
    /// The compile stage, for compiled languages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compile: Option<Stage>,
}

impl ExecuteResponse {
    /// The answer for a program's outcome.
    pub fn of(execute: &Execute, outcome: &ProgramOutcome) -> ExecuteResponse {
        let limit = execute.output_max_size;
        let compile = outcome.compile.as_ref().map(|s| stage(s, u64::MAX));
        let run = match &outcome.run {
            Some(run) => stage(run, limit),
            None => compile.clone().unwrap_or_else(stage_missing),
        };
        ExecuteResponse {
            language: execute.runtime.language.clone(),
            version: execute.runtime.version.clone(),
            run,
            compile,
        }
    }
}

fn stage_missing() -> Stage {
    Stage {
        stdout: String::new(),
        stderr: String::new(),
        code: None,
        signal: None,
        output: String::new(),
        memory: 0,
        message: Some("the program was not run".into()),
        status: Some("XX".into()),
        cpu_time: 0,
        wall_time: 0,
    }
}

/// A signal's name as Piston's `globals.SIGNALS` gives it.
pub fn signal_name(signal: i32) -> String {
    const NAMES: [&str; 32] = [
        "",
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    usize::try_from(signal)
        .ok()
        .and_then(|i| NAMES.get(i))
        .filter(|n| !n.is_empty())
        .map_or_else(|| format!("SIG{signal}"), |n| n.to_string())
}

fn cut(bytes: &[u8], limit: u64) -> (String, bool) {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let over = bytes.len() > limit;
    let kept = &bytes[..bytes.len().min(limit)];
    (String::from_utf8_lossy(kept).into_owned(), over)
}

/// A step as isolate's meta file and Piston's job describe it.
fn stage(step: &StepOutcome, output_limit: u64) -> Stage {
    let (stdout, stdout_over) = cut(&step.stdout, output_limit);
    let (stderr, stderr_over) = cut(&step.stderr, output_limit);
    let killed = Some("SIGKILL".to_string());
    let (code, signal, status, message) = match step.end {
        StepEnd::TimeLimit => (
            None,
            killed,
            Some("TO".to_string()),
            Some(if step.cpu_time_ms < step.wall_time_ms / 2 {
                "Time limit exceeded (wall clock)".to_string()
            } else {
                "Time limit exceeded".to_string()
            }),
        ),
        StepEnd::OutputLimit => {
            let (status, message) = if stderr_over && !stdout_over {
                ("EL", "stderr length exceeded")
            } else {
                ("OL", "stdout length exceeded")
            };
            (None, killed, Some(status.into()), Some(message.into()))
        }
        StepEnd::MemoryLimit => (
            None,
            killed,
            Some("SG".into()),
            Some("Caught fatal signal 9".into()),
        ),
        StepEnd::Signaled | StepEnd::Forbidden if step.signal.is_some() => {
            let signal = step.signal.unwrap_or(9);
            (
                None,
                Some(signal_name(signal)),
                Some("SG".into()),
                Some(format!("Caught fatal signal {signal}")),
            )
        }
        _ => {
            let code = step.exit_code.unwrap_or(1);
            if code == 0 && step.end == StepEnd::Exited {
                (Some(0), None, None, None)
            } else {
                let code = if code == 0 { 1 } else { code };
                (
                    Some(code),
                    None,
                    Some("RE".into()),
                    Some(format!("Exited with error status {code}")),
                )
            }
        }
    };
    Stage {
        output: format!("{stdout}{stderr}"),
        stdout,
        stderr,
        code,
        signal,
        memory: step.memory_kb.saturating_mul(1024),
        message,
        status,
        cpu_time: step.cpu_time_ms,
        wall_time: step.wall_time_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use verdict_contracts::JudgeStatus;

    fn installed() -> Vec<Runtime> {
        runtimes(&[
            Installed::from_banner(Language::Python3, "Python 3.11.2"),
            Installed::from_banner(Language::Cpp, "12.2.0"),
            Installed::from_banner(Language::Java, "javac 17.0.15"),
        ])
    }

    fn parse(body: Value) -> Result<Execute, PistonError> {
        parse_execute(
            body.to_string().as_bytes(),
            &installed(),
            &PistonLimits::default(),
            "default",
        )
    }

    #[test]
    fn runtimes_carry_pistons_names_aliases_and_providing_package() {
        let list = serde_json::to_value(installed()).expect("json");
        assert_eq!(
            list[0],
            json!({"language": "python", "version": "3.11.2",
                   "aliases": ["py", "py3", "python3", "python3.11"]})
        );
        assert_eq!(
            list[1],
            json!({"language": "c++", "version": "12.2.0", "aliases": ["cpp", "g++"], "runtime": "gcc"})
        );
    }

    #[test]
    fn a_request_is_checked_in_pistons_order_with_its_messages() {
        let cases = [
            (json!({}), "language is required as a string"),
            (json!({"language": "py"}), "version is required as a string"),
            (
                json!({"language": "py", "version": "*"}),
                "files is required as an array",
            ),
            (
                json!({"language": "py", "version": "*", "files": [{"name": "a"}]}),
                "files[0].content is required as a string",
            ),
            (
                json!({"language": "cobol", "version": "*", "files": [{"content": ""}]}),
                "cobol-* runtime is unknown",
            ),
            (
                json!({"language": "py", "version": "2.x", "files": [{"content": ""}]}),
                "py-2.x runtime is unknown",
            ),
            (
                json!({"language": "py", "version": "*", "files": [{"content": "", "encoding": "hex"}]}),
                "files must include at least one utf8 encoded file",
            ),
            (
                json!({"language": "py", "version": "*", "files": [{"content": ""}], "run_timeout": "5"}),
                "If specified, run_timeout must be a number",
            ),
            (
                json!({"language": "py", "version": "*", "files": [{"content": ""}], "run_timeout": 3001}),
                "run_timeout cannot exceed the configured limit of 3000",
            ),
            (
                json!({"language": "py", "version": "*", "files": [{"content": ""}], "run_cpu_time": -5}),
                "run_cpu_time must be non-negative",
            ),
        ];
        for (body, message) in cases {
            let error = parse(body.clone()).expect_err("refused");
            assert_eq!(
                (error.status, error.message.as_str()),
                (400, message),
                "{body}"
            );
        }
    }

    #[test]
    fn a_request_gets_pistons_defaults_names_and_stdin_newline() {
        let execute = parse(json!({"language": "c++", "version": "12.x",
            "files": [{"content": "int main(){}"}, {"name": "data.bin", "content": "aGk=", "encoding": "base64"}],
            "stdin": "1 2", "args": ["a", 3], "run_memory_limit": -1}))
        .expect("read");
        let program = &execute.program;
        assert_eq!(program.language, Language::Cpp);
        assert_eq!(program.sources[0].0, "file0.code.cpp");
        assert_eq!(program.files, [("data.bin".to_string(), b"hi".to_vec())]);
        assert_eq!(program.stdin, b"1 2\n");
        assert_eq!(program.args, ["a", "3"]);
        assert_eq!((program.run.time_ms, program.run.wall_ms), (3000, 3000));
        assert_eq!(program.run.memory_kb, Some(1024 * 1024));
        assert_eq!(program.compile.wall_time_ms, 10_000);
        let java = parse(json!({"language": "java", "version": "*",
            "files": [{"name": "Test.java", "content": "public class HelloWorld { public static void main(String[] a) {} }"}]}))
        .expect("read");
        assert_eq!(java.program.sources[0].0, "HelloWorld.java");
        let escape = parse(
            json!({"language": "py", "version": "*", "files": [{"name": "../x", "content": ""}]}),
        )
        .expect_err("refused");
        assert!(escape.message.contains("escape"), "{escape:?}");
    }

    fn step(end: StepEnd, exit_code: Option<i32>, signal: Option<i32>) -> StepOutcome {
        StepOutcome {
            status: JudgeStatus::RuntimeError,
            cpu_time_ms: 10,
            wall_time_ms: 12,
            memory_kb: 2,
            stdout: b"out".to_vec(),
            stderr: b"err".to_vec(),
            ..StepOutcome::ended(end, exit_code, signal)
        }
    }

    #[test]
    fn stages_report_isolates_status_message_and_signal_names() {
        let exited = stage(&step(StepEnd::Exited, Some(3), None), 1024);
        assert_eq!(
            (
                exited.code,
                exited.signal.as_deref(),
                exited.status.as_deref()
            ),
            (Some(3), None, Some("RE"))
        );
        assert_eq!(
            exited.message.as_deref(),
            Some("Exited with error status 3")
        );
        assert_eq!((exited.output.as_str(), exited.memory), ("outerr", 2048));
        let ok = stage(&step(StepEnd::Exited, Some(0), None), 1024);
        assert_eq!((ok.code, ok.status, ok.message), (Some(0), None, None));
        let segv = stage(&step(StepEnd::Signaled, Some(139), Some(11)), 1024);
        assert_eq!((segv.code, segv.signal.as_deref()), (None, Some("SIGSEGV")));
        let timeout = stage(&step(StepEnd::TimeLimit, None, Some(9)), 1024);
        assert_eq!(
            (timeout.status.as_deref(), timeout.signal.as_deref()),
            (Some("TO"), Some("SIGKILL"))
        );
        let flood = stage(&step(StepEnd::OutputLimit, None, Some(9)), 2);
        assert_eq!(
            (flood.status.as_deref(), flood.stdout.as_str()),
            (Some("OL"), "ou")
        );
    }

    #[test]
    fn a_failed_compile_stands_in_for_the_run_as_piston_answers() {
        let execute =
            parse(json!({"language": "cpp", "version": "*", "files": [{"content": "x"}]}))
                .expect("read");
        let failed = step(StepEnd::Exited, Some(1), None);
        let response = ExecuteResponse::of(
            &execute,
            &ProgramOutcome {
                compile: Some(failed),
                run: None,
                files: Default::default(),
                build_reused: false,
            },
        );
        assert_eq!(response.language, "c++");
        assert_eq!(response.run, response.compile.clone().expect("compile"));
        assert_eq!(response.run.code, Some(1));
    }
}
