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
        match serde_json::from_str::<Value>(&line) {
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

/// The JSON kind of a value, for messages (the contracts' one spelling).
pub(crate) use verdict_contracts::data_path::json_kind as kind;

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use std::io::Write;

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
