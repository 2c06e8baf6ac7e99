//! trampgeek/Jobe's REST API (its `restapi` document, and its `RunSpecifier`, `LanguageTask`
//! and per-language tasks for what the document leaves to the server), as Moodle's CodeRunner
//! calls it: `run_spec` checked with Jobe's 400 messages, Jobe's parameters and their
//! per-language defaults (`cputime`, `memorylimit`, `numprocs`, `compileargs`, `linkargs`,
//! `interpreterargs`, `runargs`), Java's class from the source, Python's syntax check as its
//! compile, the outcome codes as Jobe decides them (stderr makes a runtime error), output
//! that is not UTF-8 escaped as Jobe escapes it. [`cache`] is its file cache (docs/compat.md).

pub mod cache;
mod words;

use crate::program::{ProgramOutcome, ProgramRequest, StepEnd};
use crate::toolchains::Installed;
use serde::Serialize;
use serde_json::Value;
use verdict_contracts::Language;
use verdict_scripts::{CompileLimits, RunLimits};
pub use words::shell_words;

/// Jobe's language id of a verdict language (Jobe's own ids where it has the language,
/// verdict's name for the others: an extension CodeRunner's custom question types can use).
pub fn jobe_id(language: Language) -> &'static str {
    match language {
        Language::Js => "nodejs",
        Language::Pas => "pascal",
        other => other.as_str(),
    }
}

/// `GET /languages`: `[[id, version], ...]` of the installed languages.
pub fn languages(installed: &[Installed]) -> Vec<(String, String)> {
    installed
        .iter()
        .map(|i| (jobe_id(i.language).to_string(), i.version.clone()))
        .collect()
}

/// The outcome codes (the ideone API's, which Jobe keeps).
pub mod outcome {
    /// The program did not compile (`cmpinfo` says why).
    pub const COMPILATION_ERROR: u32 = 11;
    /// It wrote to stderr, or a signal ended it.
    pub const RUNTIME_ERROR: u32 = 12;
    /// Out of time (or, as Jobe reports a flood, out of output).
    pub const TIME_LIMIT: u32 = 13;
    /// It ran to completion with nothing on stderr.
    pub const SUCCESS: u32 = 15;
    /// Out of memory (in the API; Jobe itself never answers it, nor does this server).
    pub const MEMORY_LIMIT: u32 = 17;
    /// A system call the sandbox forbids.
    pub const ILLEGAL_SYSCALL: u32 = 19;
    /// The judge failed.
    pub const INTERNAL_ERROR: u32 = 20;
    /// No run slot came free in time.
    pub const SERVER_OVERLOAD: u32 = 21;
}

/// The source code Jobe's own test suite sends to see an overload answered (`LanguageTask`'s
/// test hook), answered the same way here.
pub const OVERLOAD_TEST: &str = "!** TESTING OVERLOAD EXCEPTION **!";

/// Jobe's refusal: the status (400, 404) and the message, sent as a JSON string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobeError {
    /// 400 for a bad run_spec, 404 for a file the cache does not hold.
    pub status: u16,
    /// Jobe's message.
    pub message: String,
}

impl JobeError {
    fn bad(message: impl Into<String>) -> JobeError {
        JobeError {
            status: 400,
            message: message.into(),
        }
    }
}

/// A checked `run_spec`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// The language.
    pub language: Language,
    /// The language id as sent (lower-cased).
    pub language_id: String,
    /// The program.
    pub sourcecode: String,
    /// The source file's name (chosen as Jobe chooses it when absent).
    pub sourcefilename: String,
    /// Standard input.
    pub input: String,
    /// `(file_id, file_name)` of the files to load from the cache.
    pub file_list: Vec<(String, String)>,
    /// The parameters as sent.
    pub parameters: serde_json::Map<String, Value>,
    /// Whether Jobe's debugging was asked for (ignored here).
    pub debug: bool,
}

/// What the operator decides for these calls.
#[derive(Debug, Clone)]
pub struct JobeLimits {
    /// The largest `cputime` a run may ask for, in seconds (Jobe: `cputime_upper_limit_secs`).
    pub max_cputime_secs: u64,
    /// The most memory any run gets, in MB (a `memorylimit` above it, or 0, gets this).
    pub max_memory_mb: u64,
}

impl Default for JobeLimits {
    fn default() -> Self {
        JobeLimits {
            max_cputime_secs: 120,
            max_memory_mb: 4096,
        }
    }
}

/// Reads a `POST /runs` body as Jobe's `RunSpecifier` does, in its order, with its messages.
/// `known` tells whether a Jobe language id is served here.
pub fn parse_run(
    body: &[u8],
    known: &dyn Fn(&str) -> Option<Language>,
    limits: &JobeLimits,
) -> Result<RunSpec, JobeError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|_| JobeError::bad("Non-JSON post data received"))?;
    let Value::Object(post) = value else {
        return Err(JobeError::bad("Non-JSON post data received"));
    };
    let Some(Value::Object(run)) = post.get("run_spec") else {
        return Err(JobeError::bad("No run_spec attribute found in post data"));
    };
    let required = |name: &str| match run.get(name) {
        None | Some(Value::Null) => Err(JobeError::bad(format!(
            "run_spec is missing the required attribute '{name}'"
        ))),
        Some(value) => Ok(php_string(value)),
    };
    let sourcecode = required("sourcecode")?;
    let language_id = required("language_id")?.to_lowercase();
    let language = known(&language_id)
        .ok_or_else(|| JobeError::bad(format!("Language '{language_id}' is not known")))?;
    let input = run.get("input").map(php_string).unwrap_or_default();
    let debug = run.get("debug").is_some_and(truthy);
    let parameters = match run.get("parameters") {
        Some(Value::Object(map)) => map.clone(),
        _ => serde_json::Map::new(),
    };
    if let Some(cputime) = parameters.get("cputime")
        && php_intval(cputime) > i64::try_from(limits.max_cputime_secs).unwrap_or(i64::MAX)
    {
        return Err(JobeError::bad(format!(
            "cputime exceeds maximum allowed on this Jobe server ({} secs)",
            limits.max_cputime_secs
        )));
    }
    let mut sourcefilename = String::new();
    if let Some(name) = run.get("sourcefilename").filter(|v| !v.is_null()) {
        let name = php_string(name);
        if !valid_source_filename(&name) {
            return Err(JobeError::bad(
                "The sourcefilename for the run_spec is illegal",
            ));
        }
        // Jobe ignores legacy CodeRunner's almost-certainly-wrong 'prog.java'.
        if name != "prog.java" {
            sourcefilename = name;
        }
    }
    let mut file_list = Vec::new();
    if let Some(files) = run.get("file_list").filter(|v| !v.is_null()) {
        let Value::Array(files) = files else {
            return Err(JobeError::bad(format!("Invalid file specifier: {files}")));
        };
        for file in files {
            match valid_filespec(file) {
                Some(pair) => file_list.push(pair),
                None => return Err(JobeError::bad(format!("Invalid file specifier: {file}"))),
            }
        }
    }
    if sourcefilename.is_empty() {
        sourcefilename = default_file_name(language, &sourcecode);
    }
    Ok(RunSpec {
        language,
        language_id,
        sourcecode,
        sourcefilename,
        input,
        file_list,
        parameters,
        debug,
    })
}

/// Reads a `PUT /files/{id}` body (`{"file_contents": base64}`, whatever its content type, as
/// CodeIgniter reads it): the file's bytes, or Jobe's 400.
pub fn parse_put(body: &[u8], id: &str) -> Result<Vec<u8>, JobeError> {
    use base64::Engine;
    let contents = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| {
            v.get("file_contents")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .ok_or_else(|| JobeError::bad("put: missing file_contents parameter"))?;
    let compact: String = contents.split_whitespace().collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .map_err(|_| JobeError::bad(format!("put: contents of file {id} are not valid base-64")))
}

/// PHP's string of a JSON scalar (`1` -> `"1"`, `true` -> `"1"`).
fn php_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(true) => "1".into(),
        Value::Bool(false) | Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty() && s != "0",
        Value::Null => false,
        _ => true,
    }
}

/// PHP's `intval`: a number truncated, a string's leading integer, else 0.
fn php_intval(value: &Value) -> i64 {
    match value {
        Value::Number(n) => n
            .as_i64()
            .unwrap_or_else(|| n.as_f64().map_or(0, |f| f as i64)),
        Value::String(s) => {
            let s = s.trim_start();
            let end = s
                .char_indices()
                .find(|(i, c)| !(c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+'))))
                .map_or(s.len(), |(i, _)| i);
            s[..end].parse().unwrap_or(0)
        }
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

/// PHP's `is_numeric`.
fn php_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// Jobe's check of a source file name: nothing a file system or a URL reserves, no leading
/// `.` or `-`.
fn valid_source_filename(name: &str) -> bool {
    let reserved = |c: char| {
        "<>:\"/\\|?*#[]@!$&'()+,;={}^~`".contains(c)
            || c.is_control()
            || matches!(c, '\u{7f}' | '\u{a0}' | '\u{ad}')
    };
    !name.is_empty()
        && !name.chars().any(reserved)
        && !name.starts_with('.')
        && !name.starts_with('-')
}

/// A `file_list` entry: `[id, name]` (or `[id, name, is_source]`), the id at least 8
/// alphanumerics, the name of alphanumerics, `-`, `_` and `.`.
fn valid_filespec(file: &Value) -> Option<(String, String)> {
    let items = file.as_array()?;
    if !(items.len() == 2 || items.len() == 3) {
        return None;
    }
    let id = items[0].as_str()?;
    let name = items[1].as_str()?;
    let id_ok = id.len() >= 8 && id.chars().all(|c| c.is_ascii_alphanumeric());
    let stripped: String = name
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .collect();
    let name_ok = !name.is_empty()
        && !stripped.is_empty()
        && stripped.chars().all(|c| c.is_ascii_alphanumeric())
        && name != "."
        && name != "..";
    (id_ok && name_ok).then(|| (id.to_string(), name.to_string()))
}

/// The name Jobe gives a source sent without one: `prog.<ext>`, Java's public class with
/// `main`.
pub fn default_file_name(language: Language, code: &str) -> String {
    match language {
        Language::Java => match crate::sandbox_fusion::java_main_class(code) {
            Some(class) => format!("{class}.java"),
            None => "prog.java".into(),
        },
        other => verdict_contracts::batch::default_file_name(other).replace("solution.", "prog."),
    }
}

/// Jobe's defaults of one language: `(cputime s, memorylimit MB, numprocs, compileargs,
/// interpreterargs)`, as its `LanguageTask` and the language's task set them.
fn defaults(
    language: Language,
) -> (
    f64,
    f64,
    f64,
    &'static [&'static str],
    &'static [&'static str],
) {
    match language {
        // Jobe's `-x c` (C whatever the file's name) is left out: after the sources, where
        // verdict's profile puts the request's arguments, gcc warns it does nothing.
        Language::C => (5.0, 400.0, 30.0, &["-Wall", "-Werror", "-std=c99"], &[]),
        Language::Cpp => (5.0, 400.0, 30.0, &["-Wall", "-Werror"], &[]),
        Language::Python3 => (5.0, 1000.0, 30.0, &[], &["-BE"]),
        Language::Java => (5.0, 0.0, 256.0, &[], &["-Xrs", "-Xss8m", "-Xmx200m"]),
        Language::Js => (5.0, 400.0, 30.0, &[], &["--use_strict"]),
        Language::Pas => (5.0, 400.0, 30.0, &["-vew", "-Se"], &[]),
        Language::Php => (5.0, 400.0, 30.0, &[], &["--no-php-ini"]),
        Language::Octave => (
            5.0,
            400.0,
            30.0,
            &[],
            &["--norc", "--no-window-system", "--silent", "-H"],
        ),
        _ => (5.0, 400.0, 30.0, &[], &[]),
    }
}

/// Whether Jobe compiles a language's source (a syntax check for Python and PHP: its errors
/// are compile errors); Node.js, Octave and the others are run as they are.
fn checks_syntax(language: Language) -> bool {
    matches!(
        language,
        Language::Python3 | Language::Python2 | Language::Php
    )
}

/// A list parameter (`compileargs`, ...): each string split into shell words, as Jobe's
/// `sh -c` splits them; a parameter that is not a list is its default.
fn list_param(
    parameters: &serde_json::Map<String, Value>,
    name: &str,
    default: &[&str],
) -> Vec<String> {
    let items: Vec<String> = match parameters.get(name) {
        Some(Value::Array(items)) => items.iter().map(php_string).collect(),
        _ => default.iter().map(|s| s.to_string()).collect(),
    };
    items.iter().flat_map(|item| shell_words(item)).collect()
}

/// A numeric parameter: a non-numeric value is the default (Jobe's guard against command
/// injection).
fn number_param(parameters: &serde_json::Map<String, Value>, name: &str, default: f64) -> f64 {
    parameters.get(name).and_then(php_number).unwrap_or(default)
}

/// The program a run_spec runs, with the files loaded from the cache.
pub fn program_request(
    spec: &RunSpec,
    files: Vec<(String, Vec<u8>)>,
    owner: &str,
    limits: &JobeLimits,
) -> ProgramRequest {
    let language = spec.language;
    let (cputime, memorylimit, numprocs, compileargs, interpreterargs) = defaults(language);
    let p = &spec.parameters;
    let cputime = number_param(p, "cputime", cputime).max(0.001);
    // Java's memory limit is the JVM's (-Xmx) in Jobe: the task ignores `memorylimit`.
    let memorylimit = if language == Language::Java {
        0.0
    } else {
        number_param(p, "memorylimit", memorylimit)
    };
    let mut numprocs = number_param(p, "numprocs", numprocs);
    if language == Language::Java {
        numprocs = numprocs.max(256.0);
    }
    let streamsize_mb = number_param(p, "streamsize", 2.0).max(0.001);
    let memory_mb = if memorylimit <= 0.0 {
        limits.max_memory_mb
    } else {
        (memorylimit.ceil() as u64).min(limits.max_memory_mb)
    };
    let mut compile_args = list_param(p, "compileargs", compileargs);
    compile_args.extend(list_param(p, "linkargs", &[]));
    let cpu_ms = ((cputime * 1000.0).ceil() as u64).max(1);
    let mut sources = vec![(
        spec.sourcefilename.clone(),
        spec.sourcecode.clone().into_bytes(),
    )];
    // Jobe runs Node.js on a copy named `.js`; tsc compiles only a `.ts` file.
    let suffix = match language {
        Language::Js => Some(".js"),
        Language::Typescript => Some(".ts"),
        _ => None,
    };
    if let Some(suffix) = suffix
        && !sources[0].0.ends_with(suffix)
    {
        sources[0].0.push_str(suffix);
    }
    let compile = CompileLimits {
        cpu_time_ms: CompileLimits::default().cpu_time_ms.max(cpu_ms),
        ..CompileLimits::default()
    };
    let run = RunLimits {
        time_ms: cpu_ms,
        // Jobe kills a run after twice its CPU time.
        wall_ms: cpu_ms.saturating_mul(2),
        memory_kb: Some(memory_mb.saturating_mul(1024)),
        output_kb: Some(((streamsize_mb * 1000.0).ceil() as u64).max(1)),
        processes: Some((numprocs.max(1.0) as u64).saturating_add(1)),
    };
    ProgramRequest {
        stdin: spec.input.clone().into_bytes(),
        args: list_param(p, "runargs", &[]),
        check_syntax: checks_syntax(language),
        compile_args,
        interpreter_args: list_param(p, "interpreterargs", interpreterargs),
        compile_files: files,
        ..ProgramRequest::new(owner, language, sources, compile, run)
    }
}

/// Jobe's answer to a run: `{run_id, outcome, cmpinfo, stdout, stderr}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    /// Jobe's run id (`null`: Jobe keeps no run after answering).
    pub run_id: Option<String>,
    /// The outcome code ([`outcome`]).
    pub outcome: u32,
    /// The compiler's output when the compile failed.
    pub cmpinfo: String,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl RunResult {
    /// The answer Jobe gives when it cannot find a free run slot in time.
    pub fn overload() -> RunResult {
        RunResult {
            run_id: Some("0".into()),
            outcome: outcome::SERVER_OVERLOAD,
            cmpinfo: String::new(),
            stdout: String::new(),
            stderr: String::new(),
        }
    }

    /// The answer for a judge that failed (outcome 20, the reason in stderr).
    pub fn internal(message: &str) -> RunResult {
        RunResult {
            run_id: None,
            outcome: outcome::INTERNAL_ERROR,
            cmpinfo: String::new(),
            stdout: String::new(),
            stderr: clean(message.as_bytes()),
        }
    }

    /// The answer for a program's outcome, as Jobe's `diagnoseResult` decides it.
    pub fn of(spec: &RunSpec, outcome: &ProgramOutcome) -> RunResult {
        let empty = |code| RunResult {
            run_id: None,
            outcome: code,
            cmpinfo: String::new(),
            stdout: String::new(),
            stderr: String::new(),
        };
        let Some(run) = &outcome.run else {
            let log = outcome
                .compile
                .as_ref()
                .map(|c| [c.stdout.as_slice(), c.stderr.as_slice()].concat())
                .unwrap_or_default();
            let mut result = empty(outcome::COMPILATION_ERROR);
            result.cmpinfo = clean(&log);
            if result.cmpinfo.is_empty() {
                result.cmpinfo = "compilation failed".into();
            }
            return result;
        };
        let mut stderr = if spec.language == Language::Octave {
            octave_stderr(&run.stderr)
        } else {
            run.stderr.clone()
        };
        let code = match run.end {
            StepEnd::TimeLimit | StepEnd::OutputLimit => {
                stderr.clear();
                outcome::TIME_LIMIT
            }
            // Jobe's runguard limits address space: a program out of memory fails an
            // allocation or overflows its stack and dies of it, a runtime error ("memory
            // limit exceeded is not returned by default", its `diagnoseResult` says).
            StepEnd::MemoryLimit => outcome::RUNTIME_ERROR,
            StepEnd::Forbidden if run.signal == Some(31) => outcome::ILLEGAL_SYSCALL,
            StepEnd::Signaled | StepEnd::Forbidden => outcome::RUNTIME_ERROR,
            StepEnd::Exited if stderr.is_empty() => outcome::SUCCESS,
            StepEnd::Exited => outcome::RUNTIME_ERROR,
        };
        let mut stderr = clean(&stderr);
        if spec.language == Language::Java {
            stderr = stderr.replace("\n\t", "\n        ");
        }
        RunResult {
            run_id: None,
            outcome: code,
            cmpinfo: String::new(),
            stdout: clean(&run.stdout),
            stderr,
        }
    }
}

/// Octave's stderr as Jobe's Octave task filters it before deciding the outcome: carriage
/// returns dropped, trailing blank lines trimmed, and a last line of Octave's own noise
/// (`error: ignoring octave_execution_exception...`, `error: No such file or directory`)
/// removed, each once.
fn octave_stderr(stderr: &[u8]) -> Vec<u8> {
    let text: Vec<u8> = stderr.iter().copied().filter(|&b| b != b'\r').collect();
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    while lines.last().is_some_and(|l| l.trim_ascii().is_empty()) {
        lines.pop();
    }
    if lines
        .last()
        .is_some_and(|l| l.starts_with(b"error: ignoring octave_execution_exception"))
    {
        lines.pop();
    }
    if lines.last() == Some(&&b"error: No such file or directory"[..]) {
        lines.pop();
    }
    if lines.is_empty() {
        return Vec::new();
    }
    let mut filtered = lines.join(&b'\n');
    filtered.push(b'\n');
    filtered
}

/// Jobe's `ResultObject::clean`: valid UTF-8 as it is; otherwise every control character
/// but newline, tab and return, and every byte above `~`, as `\xNN`.
pub fn clean(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => bytes
            .iter()
            .map(|&b| {
                if (b < b' ' && !matches!(b, b'\n' | b'\r' | b'\t')) || b > b'~' {
                    format!("\\x{b:02x}")
                } else {
                    char::from(b).to_string()
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::StepOutcome;
    use serde_json::json;

    fn known(id: &str) -> Option<Language> {
        [
            Language::C,
            Language::Cpp,
            Language::Python3,
            Language::Java,
            Language::Js,
            Language::Php,
            Language::Octave,
        ]
        .into_iter()
        .find(|l| jobe_id(*l) == id)
    }

    fn parse(body: Value) -> Result<RunSpec, JobeError> {
        parse_run(body.to_string().as_bytes(), &known, &JobeLimits::default())
    }

    #[test]
    fn a_run_spec_is_refused_in_jobes_order_with_its_messages() {
        let cases = [
            (json!([1]), "Non-JSON post data received"),
            (json!({"x": 1}), "No run_spec attribute found in post data"),
            (
                json!({"run_spec": {"language_id": "c"}}),
                "run_spec is missing the required attribute 'sourcecode'",
            ),
            (
                json!({"run_spec": {"sourcecode": "x"}}),
                "run_spec is missing the required attribute 'language_id'",
            ),
            (
                json!({"run_spec": {"sourcecode": "x", "language_id": "nosuchlanguage"}}),
                "Language 'nosuchlanguage' is not known",
            ),
            (
                json!({"run_spec": {"sourcecode": "x", "language_id": "c", "parameters": {"cputime": 151}}}),
                "cputime exceeds maximum allowed on this Jobe server (120 secs)",
            ),
            (
                json!({"run_spec": {"sourcecode": "x", "language_id": "c", "sourcefilename": "../x.c"}}),
                "The sourcefilename for the run_spec is illegal",
            ),
        ];
        for (body, message) in cases {
            assert_eq!(parse(body.clone()), Err(JobeError::bad(message)), "{body}");
        }
        let bad_file = parse(json!({"run_spec": {"sourcecode": "x", "language_id": "c",
            "file_list": [["short", "a.txt"]]}}))
        .expect_err("refused");
        assert!(
            bad_file.message.starts_with("Invalid file specifier"),
            "{bad_file:?}"
        );
    }

    #[test]
    fn jobes_defaults_apply_where_a_parameter_is_absent_or_not_numeric() {
        let spec = parse(
            json!({"run_spec": {"sourcecode": "print(1)", "language_id": "PYTHON3",
            "parameters": {"cputime": "rm -rf /", "runargs": ["a", "b c"]}}}),
        )
        .expect("read");
        assert_eq!(
            (spec.language_id.as_str(), spec.sourcefilename.as_str()),
            ("python3", "prog.py")
        );
        let program = program_request(&spec, Vec::new(), "default", &JobeLimits::default());
        assert_eq!((program.run.time_ms, program.run.wall_ms), (5000, 10_000));
        assert_eq!(program.run.memory_kb, Some(1000 * 1024));
        assert_eq!(program.run.processes, Some(31));
        assert_eq!(program.interpreter_args, ["-BE"]);
        assert_eq!(program.args, ["a", "b", "c"]);
        assert!(
            program.check_syntax,
            "python's syntax error is Jobe's compile error"
        );

        let c = parse(
            json!({"run_spec": {"sourcecode": "int main(){}", "language_id": "c",
            "parameters": {"memorylimit": 200000}}}),
        )
        .expect("read");
        let program = program_request(&c, Vec::new(), "default", &JobeLimits::default());
        assert_eq!(program.compile_args, ["-Wall", "-Werror", "-std=c99"]);
        assert_eq!(
            program.run.memory_kb,
            Some(4096 * 1024),
            "capped at the operator's most"
        );

        let java = parse(
            json!({"run_spec": {"language_id": "java", "parameters": {"numprocs": 10},
            "sourcecode": "public class Test { public static void main(String[] a) {} }"}}),
        )
        .expect("read");
        assert_eq!(java.sourcefilename, "Test.java");
        let program = program_request(&java, Vec::new(), "default", &JobeLimits::default());
        assert_eq!(program.run.processes, Some(257), "Java gets at least 256");
        assert_eq!(program.interpreter_args, ["-Xrs", "-Xss8m", "-Xmx200m"]);

        let python = parse(
            json!({"run_spec": {"sourcecode": "", "language_id": "python3",
            "parameters": {"interpreterargs": ["-c \"print(\\\"Blah\\\")\""]}}}),
        )
        .expect("read");
        let program = program_request(&python, Vec::new(), "default", &JobeLimits::default());
        assert_eq!(program.interpreter_args, ["-c", "print(\"Blah\")"]);

        let php = parse(json!({"run_spec": {"sourcecode": "<?php", "language_id": "php"}}))
            .expect("read");
        assert_eq!(php.sourcefilename, "prog.php");
        let program = program_request(&php, Vec::new(), "default", &JobeLimits::default());
        assert!(program.check_syntax, "Jobe's PHP compile is `php -l`");
        assert_eq!(program.interpreter_args, ["--no-php-ini"]);

        let octave = parse(json!({"run_spec": {"sourcecode": "disp(1)", "language_id": "octave"}}))
            .expect("read");
        assert_eq!(octave.sourcefilename, "prog.m");
        let program = program_request(&octave, Vec::new(), "default", &JobeLimits::default());
        assert!(!program.check_syntax, "Octave is run as it is");
        assert_eq!(
            program.interpreter_args,
            ["--norc", "--no-window-system", "--silent", "-H"]
        );
    }

    #[test]
    fn octaves_trailing_noise_on_stderr_is_no_runtime_error() {
        assert_eq!(
            octave_stderr(b"error: ignoring octave_execution_exception while x\r\n\n"),
            b""
        );
        assert_eq!(
            octave_stderr(b"error: 'x' undefined\r\nerror: No such file or directory\n"),
            b"error: 'x' undefined\n"
        );
        let spec =
            parse(json!({"run_spec": {"sourcecode": "", "language_id": "octave"}})).expect("read");
        let noise = RunResult::of(
            &spec,
            &run(StepEnd::Exited, b"error: No such file or directory\n", None),
        );
        assert_eq!(
            (noise.outcome, noise.stderr.as_str()),
            (outcome::SUCCESS, "")
        );
        let real = RunResult::of(&spec, &run(StepEnd::Exited, b"error: 'y' undefined", None));
        assert_eq!(
            (real.outcome, real.stderr.as_str()),
            (outcome::RUNTIME_ERROR, "error: 'y' undefined\n")
        );
    }

    fn run(end: StepEnd, stderr: &[u8], signal: Option<i32>) -> ProgramOutcome {
        ProgramOutcome::ran(StepOutcome {
            stdout: b"Hello world\n\x01\x06\xc0\xc9\n".to_vec(),
            stderr: stderr.to_vec(),
            ..StepOutcome::ended(end, Some(1), signal)
        })
    }

    #[test]
    fn outcomes_are_decided_as_jobe_decides_them() {
        let spec =
            parse(json!({"run_spec": {"sourcecode": "", "language_id": "c"}})).expect("read");
        let quiet = RunResult::of(&spec, &run(StepEnd::Exited, b"", None));
        assert_eq!(
            quiet.outcome,
            outcome::SUCCESS,
            "a non-zero exit with no stderr is Jobe's 15"
        );
        assert_eq!(quiet.stdout, "Hello world\n\\x01\\x06\\xc0\\xc9\n");
        let noisy = RunResult::of(&spec, &run(StepEnd::Exited, b"oops", None));
        assert_eq!(
            (noisy.outcome, noisy.stderr.as_str()),
            (outcome::RUNTIME_ERROR, "oops")
        );
        let slow = RunResult::of(&spec, &run(StepEnd::TimeLimit, b"killed", Some(9)));
        assert_eq!(
            (slow.outcome, slow.stderr.as_str()),
            (outcome::TIME_LIMIT, "")
        );
        let flood = RunResult::of(&spec, &run(StepEnd::OutputLimit, b"", Some(9)));
        assert_eq!(flood.outcome, outcome::TIME_LIMIT);
        let hungry = RunResult::of(&spec, &run(StepEnd::MemoryLimit, b"", Some(9)));
        assert_eq!(
            hungry.outcome,
            outcome::RUNTIME_ERROR,
            "Jobe never answers 17 itself"
        );
        let segv = RunResult::of(&spec, &run(StepEnd::Signaled, b"", Some(11)));
        assert_eq!(segv.outcome, outcome::RUNTIME_ERROR);
        let failed = RunResult::of(
            &spec,
            &ProgramOutcome {
                compile: Some(StepOutcome {
                    stdout: Vec::new(),
                    stderr: b"prog.c:1: error".to_vec(),
                    ..run(StepEnd::Exited, b"", None).run.expect("run")
                }),
                run: None,
                files: Default::default(),
                build_reused: false,
            },
        );
        assert_eq!(
            (failed.outcome, failed.cmpinfo.as_str()),
            (outcome::COMPILATION_ERROR, "prog.c:1: error")
        );
        assert_eq!(
            serde_json::to_value(RunResult::overload()).expect("json"),
            json!({"run_id": "0", "outcome": 21, "cmpinfo": "", "stdout": "", "stderr": ""})
        );
    }
}
