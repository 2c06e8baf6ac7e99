//! The function harnesses' result lines (one JSON object per line in the results file).

use serde_json::Value;
use verdict_contracts::oracle::FunctionSignature;

/// One line written by a function harness.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Record {
    /// The deliverable loaded; its positional parameters.
    Loaded(FunctionSignature),
    /// The deliverable could not be loaded (raised, timed out, or lacks the function).
    LoadError(String),
    /// Case `i` returned `got`.
    Returned { i: usize, got: Value, ms: f64 },
    /// Case `i` raised (or returned something that is not JSON).
    Raised { i: usize, message: String, ms: f64 },
    /// Case `i` ran out of time.
    TimedOut { i: usize, ms: f64 },
    /// Case `i` gives `given` args, which the signature does not accept; it was not called.
    Arity { i: usize, given: usize },
    /// Every case of the run was done.
    Done,
}

impl Record {
    /// The case this record is about, if any.
    pub(crate) fn case(&self) -> Option<usize> {
        match self {
            Record::Returned { i, .. }
            | Record::Raised { i, .. }
            | Record::TimedOut { i, .. }
            | Record::Arity { i, .. } => Some(*i),
            _ => None,
        }
    }
}

/// Parses every complete line of a results file; lines that do not parse (a line cut short by
/// a kill) are skipped.
pub(crate) fn parse_records(text: &str) -> Vec<Record> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Record> {
    let Value::Object(mut obj) = serde_json::from_str::<Value>(line).ok()? else {
        return None;
    };
    if let Some(sig) = obj.remove("loaded") {
        let required = usize::try_from(sig.get("required")?.as_u64()?).ok()?;
        let max = match sig.get("max") {
            None | Some(Value::Null) => None,
            Some(v) => Some(usize::try_from(v.as_u64()?).ok()?),
        };
        return Some(Record::Loaded(FunctionSignature { required, max }));
    }
    if let Some(Value::String(message)) = obj.remove("load_error") {
        return Some(Record::LoadError(message));
    }
    if obj.contains_key("done") {
        return Some(Record::Done);
    }
    let i = usize::try_from(obj.get("i")?.as_u64()?).ok()?;
    let ms = obj.get("ms").and_then(Value::as_f64).unwrap_or(0.0);
    if let Some(got) = obj.remove("ok") {
        return Some(Record::Returned { i, got, ms });
    }
    if let Some(Value::String(message)) = obj.remove("error") {
        return Some(Record::Raised { i, message, ms });
    }
    if obj.contains_key("timeout") {
        return Some(Record::TimedOut { i, ms });
    }
    let given = usize::try_from(obj.get("arity")?.as_u64()?).ok()?;
    Some(Record::Arity { i, given })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_record_kind_parses() {
        let text = concat!(
            "{\"loaded\": {\"required\": 2, \"max\": null}}\n",
            "{\"i\": 0, \"ok\": [1, 2], \"ms\": 0.5}\n",
            "{\"i\": 1, \"error\": \"ValueError: x\", \"ms\": 1}\n",
            "{\"i\": 2, \"timeout\": true, \"ms\": 100}\n",
            "{\"i\": 3, \"arity\": 5}\n",
            "{\"i\": 4, \"ok\": nul\n",
            "{\"done\": true}\n",
        );
        let records = parse_records(text);
        assert_eq!(records.len(), 6);
        assert_eq!(
            records[0],
            Record::Loaded(FunctionSignature {
                required: 2,
                max: None
            })
        );
        assert_eq!(
            records[1],
            Record::Returned {
                i: 0,
                got: json!([1, 2]),
                ms: 0.5
            }
        );
        assert_eq!(records[3].case(), Some(2));
        assert_eq!(records[4], Record::Arity { i: 3, given: 5 });
        assert_eq!(records[5], Record::Done);
    }

    #[test]
    fn a_returned_null_is_a_value() {
        let records = parse_records("{\"i\": 0, \"ok\": null, \"ms\": 0}\n");
        assert_eq!(
            records[0],
            Record::Returned {
                i: 0,
                got: Value::Null,
                ms: 0.0
            }
        );
    }
}
