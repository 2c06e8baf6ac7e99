//! A Judge0 submission as its `Submission` model reads one: the permitted fields (others
//! ignored, as Rails' `permit` drops them), Ruby's lenient base64, Rails' casts of numbers and
//! booleans, Judge0's defaults (`set_defaults`) and its validations with their messages,
//! gathered per field for the `422` body (`{"language_id": ["language with id 999 doesn't
//! exist"]}`).

use super::languages::Judge0Language;
use super::{Judge0Limits, Judge0Switches, Record, RunResult, statuses};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Judge0's `422` body: the messages per field.
pub type FieldErrors = BTreeMap<String, Vec<String>>;

/// A scalar parameter as Rails sees it: `null`, arrays and objects are absent (`permit`
/// keeps scalars only); numbers and booleans are their text.
fn scalar(fields: &Map<String, Value>, name: &str) -> Option<String> {
    match fields.get(name)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Ruby's `Base64.decode64`: characters outside the alphabet are skipped, a short last group
/// gives what bytes it holds; it never fails.
pub fn decode64(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// Rails' boolean cast: `false`, `0`, `f`, `off` (any case) are false, the empty text is
/// absent, anything else is true.
fn boolean(text: Option<String>) -> Option<bool> {
    let text = text?;
    if text.is_empty() {
        return None;
    }
    Some(!matches!(
        text.to_ascii_lowercase().as_str(),
        "false" | "0" | "f" | "off"
    ))
}

/// Ruby's `blank?` for text: absent, empty or only white space.
fn blank(text: &Option<Vec<u8>>) -> bool {
    text.as_ref()
        .is_none_or(|t| t.iter().all(|b| b.is_ascii_whitespace()))
}

/// A number as Rails' numericality reads it, Ruby's `to_s` of the bound in the message.
struct Numeric<'a> {
    errors: &'a mut FieldErrors,
}

impl Numeric<'_> {
    fn add(&mut self, field: &str, message: String) {
        self.errors
            .entry(field.to_string())
            .or_default()
            .push(message);
    }

    /// The field's number (its default when absent), checked against `low` (inclusive or
    /// not) and `high`; `None` after recording an error.
    fn check(
        &mut self,
        field: &str,
        text: Option<String>,
        default: f64,
        low: (f64, bool),
        high: f64,
        integer_bounds: bool,
    ) -> Option<f64> {
        let show = |n: f64| {
            if integer_bounds {
                format!("{}", n as i64)
            } else {
                ruby_float(n)
            }
        };
        let value = match text.as_deref().map(str::trim) {
            None | Some("") => default,
            Some(t) => match t.parse::<f64>() {
                Ok(n) if n.is_finite() => n,
                _ => {
                    self.add(field, "is not a number".into());
                    return None;
                }
            },
        };
        let (bound, inclusive) = low;
        if inclusive && value < bound {
            self.add(
                field,
                format!("must be greater than or equal to {}", show_low(bound)),
            );
            return None;
        }
        if !inclusive && value <= bound {
            self.add(field, format!("must be greater than {}", show_low(bound)));
            return None;
        }
        if value > high {
            self.add(
                field,
                format!("must be less than or equal to {}", show(high)),
            );
            return None;
        }
        Some(value)
    }
}

/// A lower bound as Judge0's model writes it (integer literals: `0`, `1`, `2048`).
fn show_low(n: f64) -> String {
    format!("{}", n as i64)
}

/// Ruby's `Float#to_s` for the numbers a config holds (`15.0`, `0.5`).
pub fn ruby_float(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e16 {
        format!("{n:.1}")
    } else {
        format!("{n}")
    }
}

/// Reads one submission (an object of Judge0's fields) into a [`Record`] with Judge0's
/// defaults, or Judge0's field errors. `base64` decodes `source_code`, `stdin` and
/// `expected_output`; `additional_files` is always base64.
pub fn parse_submission(
    body: &Value,
    base64: bool,
    languages: &[Judge0Language],
    limits: &Judge0Limits,
    switches: &Judge0Switches,
    token: String,
    now_ms: i64,
) -> Result<Record, FieldErrors> {
    let empty = Map::new();
    let fields = body.as_object().unwrap_or(&empty);
    let text = |name: &str| scalar(fields, name);
    let bytes = |name: &str| text(name).map(|t| if base64 { decode64(&t) } else { t.into_bytes() });
    let mut errors = FieldErrors::new();
    let source_code = bytes("source_code");
    if blank(&source_code) {
        errors
            .entry("source_code".into())
            .or_default()
            .push("can't be blank".into());
    }
    let language_text = text("language_id");
    let language = language_text
        .as_deref()
        .and_then(|t| t.trim().parse::<u16>().ok())
        .and_then(|id| languages.iter().find(|l| l.id == id));
    if language_text.as_deref().is_none_or(|t| t.trim().is_empty()) {
        errors
            .entry("language_id".into())
            .or_default()
            .push("can't be blank".into());
    }
    let stdin = bytes("stdin");
    let expected_output = bytes("expected_output");
    let additional_files = text("additional_files")
        .map(|t| decode64(&t))
        .filter(|b| !b.is_empty());
    let mut numeric = Numeric {
        errors: &mut errors,
    };
    let number_of_runs = numeric.check(
        "number_of_runs",
        text("number_of_runs"),
        limits.number_of_runs as f64,
        (0.0, false),
        limits.max_number_of_runs as f64,
        true,
    );
    let cpu_time_limit = numeric.check(
        "cpu_time_limit",
        text("cpu_time_limit"),
        limits.cpu_time_limit,
        (0.0, true),
        limits.max_cpu_time_limit,
        false,
    );
    let cpu_extra_time = numeric.check(
        "cpu_extra_time",
        text("cpu_extra_time"),
        limits.cpu_extra_time,
        (0.0, true),
        limits.max_cpu_extra_time,
        false,
    );
    let wall_time_limit = numeric.check(
        "wall_time_limit",
        text("wall_time_limit"),
        limits.wall_time_limit,
        (1.0, true),
        limits.max_wall_time_limit,
        false,
    );
    let memory_limit = numeric.check(
        "memory_limit",
        text("memory_limit"),
        limits.memory_limit as f64,
        (2048.0, true),
        limits.max_memory_limit as f64,
        true,
    );
    let stack_limit = numeric.check(
        "stack_limit",
        text("stack_limit"),
        limits.stack_limit as f64,
        (0.0, true),
        limits.max_stack_limit as f64,
        true,
    );
    let max_processes = numeric.check(
        "max_processes_and_or_threads",
        text("max_processes_and_or_threads"),
        limits.max_processes_and_or_threads as f64,
        (0.0, false),
        limits.max_max_processes_and_or_threads as f64,
        true,
    );
    let max_file_size = numeric.check(
        "max_file_size",
        text("max_file_size"),
        limits.max_file_size as f64,
        (0.0, true),
        limits.max_max_file_size as f64,
        true,
    );
    let mut add = |field: &str, message: &str| {
        errors
            .entry(field.to_string())
            .or_default()
            .push(message.to_string());
    };
    for name in [
        "enable_per_process_and_thread_time_limit",
        "enable_per_process_and_thread_memory_limit",
    ] {
        if boolean(text(name)) == Some(true) {
            add(name, "this option cannot be enabled");
        }
    }
    let compiler_options = text("compiler_options");
    let command_line_arguments = text("command_line_arguments");
    for (name, value) in [
        ("compiler_options", &compiler_options),
        ("command_line_arguments", &command_line_arguments),
    ] {
        if value.as_ref().is_some_and(|v| v.chars().count() > 512) {
            add(name, "is too long (maximum is 512 characters)");
        }
    }
    match language {
        None => add(
            "language_id",
            &format!(
                "language with id {} doesn't exist",
                language_text.as_deref().unwrap_or("")
            ),
        ),
        Some(language) => {
            if compiler_options
                .as_ref()
                .is_some_and(|o| !o.trim().is_empty())
                && !language.is_compiled()
            {
                add(
                    "compiler_options",
                    "setting compiler options is only allowed for compiled languages",
                );
            }
        }
    }
    let callback_url = text("callback_url").filter(|u| !u.trim().is_empty());
    if callback_url.is_some() && !switches.enable_callbacks {
        add("callback_url", "setting callback is not allowed");
    }
    if boolean(text("enable_network")) == Some(true) {
        add("enable_network", "enabling network is not allowed");
    }
    let redirect =
        boolean(text("redirect_stderr_to_stdout")).unwrap_or(limits.redirect_stderr_to_stdout);
    let (
        Some(language),
        Some(number_of_runs),
        Some(cpu_time_limit),
        Some(cpu_extra_time),
        Some(wall_time_limit),
        Some(memory_limit),
        Some(stack_limit),
        Some(max_processes),
        Some(max_file_size),
    ) = (
        language,
        number_of_runs,
        cpu_time_limit,
        cpu_extra_time,
        wall_time_limit,
        memory_limit,
        stack_limit,
        max_processes,
        max_file_size,
    )
    else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Record {
        token,
        language_id: language.id,
        source_code,
        stdin,
        expected_output,
        compiler_options,
        command_line_arguments,
        number_of_runs: number_of_runs as u64,
        cpu_time_limit,
        cpu_extra_time,
        wall_time_limit,
        memory_limit: memory_limit as u64,
        stack_limit: stack_limit as u64,
        max_processes_and_or_threads: max_processes as u64,
        enable_per_process_and_thread_time_limit: false,
        enable_per_process_and_thread_memory_limit: false,
        max_file_size: max_file_size as u64,
        redirect_stderr_to_stdout: redirect,
        callback_url,
        additional_files,
        enable_network: false,
        status_id: statuses::IN_QUEUE.id,
        result: RunResult::default(),
        created_at_ms: now_ms,
        queued_at_ms: Some(now_ms),
        started_at_ms: None,
        finished_at_ms: None,
        updated_at_ms: now_ms,
        queue_host: None,
        execution_host: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use verdict_contracts::Language;

    fn languages() -> Vec<Judge0Language> {
        vec![
            Judge0Language {
                id: 54,
                name: "C++ (GCC 12.2.0)".into(),
                is_archived: false,
                source_file: "main.cpp".into(),
                compile_cmd: Some("g++".into()),
                run_cmd: "./main".into(),
                verdict: Language::Cpp,
            },
            Judge0Language {
                id: 71,
                name: "Python (3.11.2)".into(),
                is_archived: false,
                source_file: "script.py".into(),
                compile_cmd: None,
                run_cmd: "python3".into(),
                verdict: Language::Python3,
            },
        ]
    }

    fn parse(body: Value, base64: bool) -> Result<Record, FieldErrors> {
        parse_submission(
            &body,
            base64,
            &languages(),
            &Judge0Limits::default(),
            &Judge0Switches {
                enable_callbacks: true,
                ..Judge0Switches::default()
            },
            "t".into(),
            0,
        )
    }

    #[test]
    fn a_submission_gets_judge0s_defaults() {
        let record =
            parse(json!({"source_code": "print(1)", "language_id": 71}), false).expect("valid");
        assert_eq!(record.cpu_time_limit, 5.0);
        assert_eq!(record.cpu_extra_time, 1.0);
        assert_eq!(record.wall_time_limit, 10.0);
        assert_eq!(record.memory_limit, 128_000);
        assert_eq!(record.stack_limit, 64_000);
        assert_eq!(record.max_processes_and_or_threads, 60);
        assert_eq!(record.max_file_size, 1024);
        assert_eq!(record.number_of_runs, 1);
        assert_eq!(record.status_id, 1);
        assert!(!record.redirect_stderr_to_stdout);
    }

    #[test]
    fn bad_fields_get_judge0s_messages_per_field() {
        let errors = parse(
            json!({"source_code": " ", "language_id": 999, "cpu_time_limit": 16,
                   "memory_limit": "x", "wall_time_limit": 0.5, "number_of_runs": 0,
                   "enable_network": true}),
            false,
        )
        .expect_err("refused");
        assert_eq!(errors["source_code"], ["can't be blank"]);
        assert_eq!(
            errors["language_id"],
            ["language with id 999 doesn't exist"]
        );
        assert_eq!(
            errors["cpu_time_limit"],
            ["must be less than or equal to 15.0"]
        );
        assert_eq!(errors["memory_limit"], ["is not a number"]);
        assert_eq!(
            errors["wall_time_limit"],
            ["must be greater than or equal to 1"]
        );
        assert_eq!(errors["number_of_runs"], ["must be greater than 0"]);
        assert_eq!(
            errors["enable_network"],
            ["enabling network is not allowed"]
        );
        let missing = parse(json!({"source_code": "x"}), false).expect_err("refused");
        assert_eq!(
            missing["language_id"],
            ["can't be blank", "language with id  doesn't exist"]
        );
        let options = parse(
            json!({"source_code": "x", "language_id": 71, "compiler_options": "-O2"}),
            false,
        )
        .expect_err("refused");
        assert_eq!(
            options["compiler_options"],
            ["setting compiler options is only allowed for compiled languages"]
        );
    }

    #[test]
    fn base64_fields_are_decoded_as_rubys_decode64_does() {
        let record = parse(
            json!({"source_code": "cHJp\nbnQoMSk=\n", "language_id": "71", "stdin": "MQ", "expected_output": ""}),
            true,
        )
        .expect("valid");
        assert_eq!(record.source_code.as_deref(), Some(&b"print(1)"[..]));
        assert_eq!(record.stdin.as_deref(), Some(&b"1"[..]));
        assert_eq!(record.expected_output.as_deref(), Some(&b""[..]));
        assert_eq!(decode64("aGk=!!"), b"hi");
    }
}
