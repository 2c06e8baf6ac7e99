//! A submission as Judge0's `SubmissionSerializer` writes it: the fields asked for (`fields`,
//! `*` for all, Judge0's eight by default) in the serializer's order; decimals as text
//! (`"0.012"`), times as Rails writes them (`2024-05-01T10:00:00.123Z`); text fields as they
//! are, or as Ruby's `Base64.encode64` writes them (a line break every 60 characters) when
//! `base64_encoded=true`; text that is not UTF-8 cannot be sent raw ([`NotUtf8`]).

use super::Record;
use super::languages::Judge0Language;
use super::request::ruby_float;
use base64::Engine;
use serde_json::{Map, Value, json};

/// Every field a submission has, in the serializer's order (v1.13.1's columns: the later
/// `started_at`, `queued_at`, `updated_at` and hosts are not sent, and the `judge0` SDK,
/// which sets every field it gets on its model, refuses fields it does not know).
pub const FIELDS: &[&str] = &[
    "source_code",
    "language_id",
    "stdin",
    "expected_output",
    "stdout",
    "status_id",
    "created_at",
    "finished_at",
    "time",
    "memory",
    "stderr",
    "token",
    "number_of_runs",
    "cpu_time_limit",
    "cpu_extra_time",
    "wall_time_limit",
    "memory_limit",
    "stack_limit",
    "max_processes_and_or_threads",
    "enable_per_process_and_thread_time_limit",
    "enable_per_process_and_thread_memory_limit",
    "max_file_size",
    "compile_output",
    "exit_code",
    "exit_signal",
    "message",
    "wall_time",
    "compiler_options",
    "command_line_arguments",
    "redirect_stderr_to_stdout",
    "callback_url",
    "additional_files",
    "enable_network",
    "status",
    "language",
];

/// The fields sent when none are asked for (sent in [`FIELDS`]' order: `stdout`, `time`,
/// `memory`, `stderr`, `token`, `compile_output`, `message`, `status`).
pub const DEFAULT_FIELDS: &[&str] = &[
    "token",
    "time",
    "memory",
    "stdout",
    "stderr",
    "compile_output",
    "message",
    "status",
];

/// The fields of a `fields` parameter, or Judge0's `400` message naming the unknown ones
/// (`invalid fields: [foo, bar]`). Absent or empty: the default fields; `*`: all of them.
pub fn parse_fields(param: Option<&str>) -> Result<Vec<&'static str>, String> {
    let asked: Vec<&str> = param
        .unwrap_or("")
        .split(',')
        .filter(|f| !f.is_empty())
        .collect();
    let invalid: Vec<&str> = asked
        .iter()
        .copied()
        .filter(|f| *f != "*" && !FIELDS.contains(f))
        .collect();
    if !invalid.is_empty() {
        return Err(format!("invalid fields: [{}]", invalid.join(", ")));
    }
    if asked.contains(&"*") {
        return Ok(FIELDS.to_vec());
    }
    let chosen: Vec<&'static str> = FIELDS
        .iter()
        .copied()
        .filter(|f| asked.contains(f))
        .collect();
    Ok(if chosen.is_empty() {
        FIELDS
            .iter()
            .copied()
            .filter(|f| DEFAULT_FIELDS.contains(f))
            .collect()
    } else {
        chosen
    })
}

/// Ruby's `Base64.encode64`: standard base64, a `\n` after every 60 characters and at the end.
pub fn encode64(bytes: &[u8]) -> String {
    let flat = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = String::with_capacity(flat.len() + flat.len() / 60 + 1);
    for chunk in flat.as_bytes().chunks(60) {
        out.push_str(&String::from_utf8_lossy(chunk));
        out.push('\n');
    }
    out
}

/// A text field holds bytes that are not UTF-8 and `base64_encoded` is off: Judge0 answers
/// with its conversion error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8;

/// Judge0's conversion error message.
pub const NOT_UTF8_MESSAGE: &str = "some attributes for this submission cannot be converted to UTF-8, use base64_encoded=true query parameter";

/// Rails' time: UTC, milliseconds, `Z`.
pub fn rails_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// A decimal as Rails writes a `decimal` column: text, `"5.0"`, `"0.012"`.
pub fn decimal(n: f64) -> String {
    let rounded = (n * 1000.0).round() / 1000.0;
    if rounded.fract() == 0.0 {
        ruby_float(rounded)
    } else {
        let text = format!("{rounded:.3}");
        text.trim_end_matches('0').to_string()
    }
}

/// `record` with `fields`, text as base64 when `base64`; its language is named from
/// `languages` (the installed ones) by its `language_id`.
pub fn render(
    record: &Record,
    fields: &[&str],
    base64: bool,
    languages: &[Judge0Language],
) -> Result<Value, NotUtf8> {
    let language = languages.iter().find(|l| l.id == record.language_id);
    let text = |bytes: &Option<Vec<u8>>| -> Result<Value, NotUtf8> {
        match bytes {
            None => Ok(Value::Null),
            Some(b) if base64 => Ok(Value::String(encode64(b))),
            Some(b) => std::str::from_utf8(b)
                .map(|s| Value::String(s.to_string()))
                .map_err(|_| NotUtf8),
        }
    };
    let time = |ms: Option<i64>| ms.map_or(Value::Null, |ms| Value::String(rails_time(ms)));
    let dec = |n: Option<f64>| n.map_or(Value::Null, |n| Value::String(decimal(n)));
    let string = |s: &Option<String>| s.as_ref().map_or(Value::Null, |s| json!(s));
    let mut out = Map::new();
    for field in fields {
        let value = match *field {
            "source_code" => text(&record.source_code)?,
            "language_id" => json!(record.language_id),
            "stdin" => text(&record.stdin)?,
            "expected_output" => text(&record.expected_output)?,
            "stdout" => text(&record.result.stdout)?,
            "status_id" => json!(record.status_id),
            "created_at" => time(Some(record.created_at_ms)),
            "finished_at" => time(record.finished_at_ms),
            "time" => dec(record.result.time),
            "memory" => json!(record.result.memory),
            "stderr" => text(&record.result.stderr)?,
            "token" => json!(record.token),
            "number_of_runs" => json!(record.number_of_runs),
            "cpu_time_limit" => dec(Some(record.cpu_time_limit)),
            "cpu_extra_time" => dec(Some(record.cpu_extra_time)),
            "wall_time_limit" => dec(Some(record.wall_time_limit)),
            "memory_limit" => json!(record.memory_limit),
            "stack_limit" => json!(record.stack_limit),
            "max_processes_and_or_threads" => json!(record.max_processes_and_or_threads),
            "enable_per_process_and_thread_time_limit" => {
                json!(record.enable_per_process_and_thread_time_limit)
            }
            "enable_per_process_and_thread_memory_limit" => {
                json!(record.enable_per_process_and_thread_memory_limit)
            }
            "max_file_size" => json!(record.max_file_size),
            "compile_output" => text(&record.result.compile_output)?,
            "exit_code" => json!(record.result.exit_code),
            "exit_signal" => json!(record.result.exit_signal),
            "message" => match &record.result.message {
                Some(m) if base64 => json!(encode64(m.as_bytes())),
                other => string(other),
            },
            "wall_time" => dec(record.result.wall_time),
            "compiler_options" => string(&record.compiler_options),
            "command_line_arguments" => string(&record.command_line_arguments),
            "redirect_stderr_to_stdout" => json!(record.redirect_stderr_to_stdout),
            "callback_url" => string(&record.callback_url),
            "additional_files" => record
                .additional_files
                .as_ref()
                .map_or(Value::Null, |b| json!(encode64(b))),
            "enable_network" => json!(record.enable_network),
            "status" => {
                let status = record.status();
                json!({"id": status.id, "description": status.description})
            }
            "language" => match language {
                Some(l) => json!({"id": l.id, "name": l.name}),
                None => json!({"id": record.language_id, "name": null}),
            },
            _ => continue,
        };
        out.insert((*field).to_string(), value);
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_checked_and_default_to_judge0s_eight() {
        assert_eq!(parse_fields(None).expect("ok").len(), 8);
        assert_eq!(parse_fields(Some("")).expect("ok").len(), 8);
        assert_eq!(parse_fields(Some("*")).expect("ok"), FIELDS);
        assert_eq!(
            parse_fields(Some("stdout,status_id")).expect("ok"),
            ["stdout", "status_id"]
        );
        assert_eq!(
            parse_fields(Some("stdout,foo,bar")),
            Err("invalid fields: [foo, bar]".into())
        );
    }

    #[test]
    fn base64_is_written_as_rubys_encode64() {
        assert_eq!(encode64(b"hello, Judge0\n"), "aGVsbG8sIEp1ZGdlMAo=\n");
        let long = encode64(&[b'a'; 50]);
        assert_eq!(long.lines().next().map(str::len), Some(60));
        assert!(long.ends_with("\n"));
    }

    #[test]
    fn times_and_decimals_are_written_as_rails_writes_them() {
        assert_eq!(rails_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rails_time(1_714_557_600_123), "2024-05-01T10:00:00.123Z");
        assert_eq!(decimal(5.0), "5.0");
        assert_eq!(decimal(0.012), "0.012");
        assert_eq!(decimal(0.1), "0.1");
    }
}
