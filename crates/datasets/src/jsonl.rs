//! Reading records: JSON Lines, gzip-compressed JSON Lines (`.gz`), or one JSON array (MBPP's
//! `sanitized-mbpp.json`).

use crate::Error;
use flate2::read::GzDecoder;
use serde_json::{Map, Value};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// One record and the line it was read from (1-based; an array element's index + 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line number.
    pub line: usize,
    /// The record's fields.
    pub fields: Map<String, Value>,
}

/// Reads every record of `path`. A name ending in `.gz` is decompressed; a file whose first
/// non-blank byte is `[` is one JSON array; anything else is JSON Lines (blank lines skipped).
pub fn read_records(path: &Path) -> Result<Vec<Record>, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        GzDecoder::new(file).read_to_string(&mut text).map_err(io)?;
    } else {
        BufReader::new(file).read_to_string(&mut text).map_err(io)?;
    }
    parse_records(path, &text)
}

/// Parses records from `text` (see [`read_records`]); `path` only names the file in errors.
pub fn parse_records(path: &Path, text: &str) -> Result<Vec<Record>, Error> {
    let json_error = |line, message: String| Error::Json {
        path: path.to_path_buf(),
        line,
        message,
    };
    if text.trim_start().starts_with('[') {
        let values: Vec<Value> =
            serde_json::from_str(text).map_err(|e| json_error(e.line(), e.to_string()))?;
        return values
            .into_iter()
            .enumerate()
            .map(|(i, value)| match value {
                Value::Object(fields) => Ok(Record {
                    line: i + 1,
                    fields,
                }),
                other => Err(json_error(i + 1, format!("element is {}", kind(&other)))),
            })
            .collect();
    }
    let mut records = Vec::new();
    for (i, line) in text.as_bytes().lines().enumerate() {
        let line = line.map_err(|e| json_error(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Value>(&line)
            .or_else(|e| serde_json::from_str::<Value>(&python_nonfinite(&line)?).map_err(|_| e));
        match parsed {
            Ok(Value::Object(fields)) => records.push(Record {
                line: i + 1,
                fields,
            }),
            Ok(other) => return Err(json_error(i + 1, format!("line is {}", kind(&other)))),
            Err(e) => return Err(json_error(i + 1, e.to_string())),
        }
    }
    Ok(records)
}

/// What a non-finite number Python's `json` writes (`NaN`, `Infinity`, `-Infinity`: EvalPlus's
/// MBPP+ holds them) is read as: this prefix and the token, a string no dataset holds. The
/// readers never take it for a value: a test holding one is `invalid_test_format`.
pub const NONFINITE: &str = "\u{0}verdict-nonfinite:";

/// `line` with Python's non-finite number tokens outside strings written as [`NONFINITE`]
/// strings, or the parse error when there are none (the line is not JSON for another reason).
fn python_nonfinite(line: &str) -> Result<String, serde_json::Error> {
    let mut out = String::with_capacity(line.len() + 32);
    let (mut in_string, mut escaped, mut found) = (false, false, false);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        match (c, token) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            (_, Some(token)) => {
                found = true;
                out.push_str(&format!("\"\\u0000verdict-nonfinite:{token}\""));
                rest = &rest[token.len()..];
                continue;
            }
            _ => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    if found {
        Ok(out)
    } else {
        serde_json::from_str::<Value>(line).map(|_| out)
    }
}

/// The path of the first [`NONFINITE`] value in `value` (`[2][0]`), if any.
pub fn nonfinite_at(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if s.starts_with(NONFINITE) => Some(String::new()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| nonfinite_at(v).map(|p| format!("[{i}]{p}"))),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| nonfinite_at(v).map(|p| format!(".{k}{p}"))),
        _ => None,
    }
}

/// The JSON kind of a value, for messages (the contracts' one spelling).
pub(crate) use verdict_contracts::data_path::json_kind as kind;

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use std::io::Write;

    #[test]
    fn pythons_nonfinite_numbers_are_read_as_markers_outside_strings_only() {
        let text = r#"{"task_id": "Mbpp/404", "plus_input": [[Infinity, -Infinity], [NaN]], "s": "Infinity \" NaN"}"#;
        let records = parse_records(Path::new("d.jsonl"), text).expect("read");
        let fields = &records[0].fields;
        assert_eq!(
            nonfinite_at(&fields["plus_input"]).as_deref(),
            Some("[0][0]")
        );
        assert_eq!(
            fields["s"], "Infinity \" NaN",
            "strings are left as they are"
        );
        assert_eq!(
            fields["plus_input"][0][1].as_str(),
            Some("\u{0}verdict-nonfinite:-Infinity")
        );
        assert!(parse_records(Path::new("d.jsonl"), "{oops").is_err());
    }

    #[test]
    fn jsonl_skips_blank_lines_and_keeps_line_numbers() {
        let records = parse_records(Path::new("x"), "{\"a\":1}\n\n{\"a\":2}\n").unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].line, 3);
    }

    #[test]
    fn a_json_array_is_read_as_records() {
        let records = parse_records(Path::new("x"), " [{\"a\":1},{\"a\":2}]").unwrap();
        assert_eq!(records[1].fields["a"], 2);
    }

    #[test]
    fn a_line_that_is_not_an_object_names_its_line() {
        let err = parse_records(Path::new("d.jsonl"), "{}\n[1]\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "d.jsonl:2: not a JSON object: line is an array"
        );
    }

    #[test]
    fn gzip_files_are_decompressed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.jsonl.gz");
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        enc.write_all(b"{\"task_id\":\"t\"}\n").unwrap();
        std::fs::write(&path, enc.finish().unwrap()).unwrap();
        let records = read_records(&path).unwrap();
        assert_eq!(records[0].fields["task_id"], "t");
    }
}
