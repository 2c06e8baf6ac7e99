//! A dotted path into a JSON value (`a.b[0].c`), as used by a ScenarioTask's `input_map`.

use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;

/// One step of a [`DataPath`]: an object key or an array index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSegment {
    /// An object member, `.name`.
    Key(String),
    /// An array element, `[n]`.
    Index(usize),
}

/// A path into a JSON value: keys separated by `.`, array indices in brackets (`a.b[0].c`).
///
/// The empty path is the value itself. A path may start with an index (`[1].name`). Keys may
/// hold any character but `.`, `[` and `]`; indices are decimal.
///
/// ```
/// use verdict_contracts::DataPath;
/// use serde_json::json;
///
/// let path: DataPath = "order.items[1].sku".parse().unwrap();
/// let mut value = json!({"order": {"items": [{"sku": "a"}, {"sku": "b"}]}});
/// assert_eq!(path.get(&value), Some(&json!("b")));
/// path.set(&mut value, json!("c")).unwrap();
/// assert_eq!(value["order"]["items"][1]["sku"], "c");
/// assert_eq!(path.to_string(), "order.items[1].sku");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DataPath {
    segments: Vec<PathSegment>,
}

/// Why a path did not parse, or why a value could not be written at a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataPathError {
    /// The text is not a path.
    #[error("invalid path {path:?}: {reason}")]
    Syntax {
        /// The text.
        path: String,
        /// What is wrong, with the byte offset.
        reason: String,
    },
    /// Writing at an index would pad an array beyond [`MAX_WRITE_INDEX`].
    #[error("cannot set {path:?}: index {index} is larger than {max} (arrays are padded up to the index written)", max = MAX_WRITE_INDEX)]
    IndexTooLarge {
        /// The full path being written.
        path: String,
        /// The index asked for.
        index: usize,
    },
    /// Writing needs an object or array where the value holds something else.
    #[error("cannot set {path:?}: {at:?} is {found}, not {wanted}")]
    NotAContainer {
        /// The full path being written.
        path: String,
        /// The prefix that holds the wrong kind of value (`""` for the root).
        at: String,
        /// What is there (`"a string"`, ...).
        found: &'static str,
        /// What was needed (`"an object"` or `"an array"`).
        wanted: &'static str,
    },
}

/// The largest array index a write may use: writing pads the array with `null` up to the
/// index, so an unbounded index would make a 20-byte path ask for gigabytes.
pub const MAX_WRITE_INDEX: usize = 65_535;

impl DataPath {
    /// The empty path: the value itself.
    pub fn root() -> Self {
        DataPath::default()
    }

    /// A path of these segments.
    pub fn from_segments(segments: Vec<PathSegment>) -> Self {
        DataPath { segments }
    }

    /// Parses `a.b[0].c`; the empty string is the root.
    pub fn parse(text: &str) -> Result<Self, DataPathError> {
        let err = |at: usize, reason: &str| DataPathError::Syntax {
            path: text.to_owned(),
            reason: format!("{reason} at byte {at}"),
        };
        let bytes = text.as_bytes();
        let mut segments = Vec::new();
        let mut i = 0;
        // Whether a key may start here without a leading dot (start of path).
        let mut at_start = true;
        while i < bytes.len() {
            match bytes[i] {
                b'[' => {
                    let close = text[i..]
                        .find(']')
                        .map(|o| i + o)
                        .ok_or_else(|| err(i, "unclosed '['"))?;
                    let digits = &text[i + 1..close];
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(err(i + 1, "array index must be a decimal number"));
                    }
                    let index = digits
                        .parse()
                        .map_err(|_| err(i + 1, "array index is too large"))?;
                    segments.push(PathSegment::Index(index));
                    i = close + 1;
                }
                b'.' if !at_start => {
                    i += 1;
                    let end = key_end(bytes, i);
                    if end == i {
                        return Err(err(i, "empty key"));
                    }
                    segments.push(PathSegment::Key(text[i..end].to_owned()));
                    i = end;
                }
                b'.' => return Err(err(i, "empty key")),
                b']' => return Err(err(i, "unexpected ']'")),
                _ if at_start => {
                    let end = key_end(bytes, i);
                    segments.push(PathSegment::Key(text[i..end].to_owned()));
                    i = end;
                }
                _ => return Err(err(i, "expected '.' or '['")),
            }
            at_start = false;
        }
        Ok(DataPath { segments })
    }

    /// The segments, outermost first.
    pub fn segments(&self) -> &[PathSegment] {
        &self.segments
    }

    /// Whether this is the root (empty) path.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// This path followed by `other`.
    pub fn join(&self, other: &DataPath) -> DataPath {
        let mut segments = self.segments.clone();
        segments.extend(other.segments.iter().cloned());
        DataPath { segments }
    }

    /// The value at this path, or `None` when a key or index is missing.
    pub fn get<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.segments
            .iter()
            .try_fold(value, |v, segment| match segment {
                PathSegment::Key(k) => v.as_object()?.get(k),
                PathSegment::Index(n) => v.as_array()?.get(*n),
            })
    }

    /// Writes `new` at this path, creating missing objects and arrays on the way.
    ///
    /// A missing key or a `null` becomes an object (for a key) or an array (for an index); an
    /// array shorter than an index is padded with `null`. Writing through a string, number,
    /// boolean, or through an object with an index (or an array with a key) is an error.
    pub fn set(&self, value: &mut Value, new: Value) -> Result<(), DataPathError> {
        self.check_writable()?;
        let mut here = value;
        for (depth, segment) in self.segments.iter().enumerate() {
            here = match segment {
                PathSegment::Key(k) => {
                    if here.is_null() {
                        *here = Value::Object(Map::new());
                    }
                    match here {
                        Value::Object(map) => map.entry(k.clone()).or_insert(Value::Null),
                        other => return Err(self.not_a_container(depth, other, "an object")),
                    }
                }
                PathSegment::Index(n) => {
                    if here.is_null() {
                        *here = Value::Array(Vec::new());
                    }
                    match here {
                        Value::Array(items) => {
                            if items.len() <= *n {
                                items.resize(n + 1, Value::Null);
                            }
                            &mut items[*n]
                        }
                        other => return Err(self.not_a_container(depth, other, "an array")),
                    }
                }
            };
        }
        *here = new;
        Ok(())
    }

    /// Checks that every index is at most [`MAX_WRITE_INDEX`], so [`DataPath::set`] cannot be
    /// asked to pad an array without bound.
    pub fn check_writable(&self) -> Result<(), DataPathError> {
        match self.segments.iter().find_map(|s| match s {
            PathSegment::Index(n) if *n > MAX_WRITE_INDEX => Some(*n),
            _ => None,
        }) {
            Some(index) => Err(DataPathError::IndexTooLarge {
                path: self.to_string(),
                index,
            }),
            None => Ok(()),
        }
    }

    fn not_a_container(&self, depth: usize, found: &Value, wanted: &'static str) -> DataPathError {
        DataPathError::NotAContainer {
            path: self.to_string(),
            at: DataPath::from_segments(self.segments[..depth].to_vec()).to_string(),
            found: json_kind(found),
            wanted,
        }
    }
}

fn key_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| matches!(b, b'.' | b'[' | b']'))
        .map_or(bytes.len(), |o| from + o)
}

/// The kind of a JSON value with its article, for messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl FromStr for DataPath {
    type Err = DataPathError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DataPath::parse(s)
    }
}

impl fmt::Display for DataPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                PathSegment::Key(k) if i == 0 => f.write_str(k)?,
                PathSegment::Key(k) => write!(f, ".{k}")?,
                PathSegment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writing_at_a_huge_index_is_an_error_not_a_huge_allocation() {
        let mut v = json!({});
        let err = DataPath::parse("a[100000000]")
            .unwrap()
            .set(&mut v, json!(1))
            .unwrap_err();
        assert!(
            matches!(
                err,
                DataPathError::IndexTooLarge {
                    index: 100_000_000,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(v, json!({}));
        let at_limit = format!("a[{MAX_WRITE_INDEX}]");
        DataPath::parse(&at_limit)
            .unwrap()
            .set(&mut v, json!(1))
            .unwrap();
        assert_eq!(v["a"].as_array().map(Vec::len), Some(MAX_WRITE_INDEX + 1));
    }

    #[test]
    fn data_path_parses_keys_and_indices() {
        let p = DataPath::parse("a.b[0].c").unwrap();
        assert_eq!(
            p.segments(),
            [
                PathSegment::Key("a".into()),
                PathSegment::Key("b".into()),
                PathSegment::Index(0),
                PathSegment::Key("c".into()),
            ]
        );
        assert!(DataPath::parse("").unwrap().is_root());
        assert_eq!(DataPath::parse("[2][0]").unwrap().to_string(), "[2][0]");
        assert_eq!(DataPath::parse("意图.值").unwrap().to_string(), "意图.值");
    }

    #[test]
    fn data_path_rejects_malformed_text() {
        let cases = [
            ("a..b", "invalid path \"a..b\": empty key at byte 2"),
            (".a", "invalid path \".a\": empty key at byte 0"),
            ("a.", "invalid path \"a.\": empty key at byte 2"),
            ("a[", "invalid path \"a[\": unclosed '[' at byte 1"),
            (
                "a[x]",
                "invalid path \"a[x]\": array index must be a decimal number at byte 2",
            ),
            (
                "a[]",
                "invalid path \"a[]\": array index must be a decimal number at byte 2",
            ),
            ("a]", "invalid path \"a]\": unexpected ']' at byte 1"),
            (
                "a[0]b",
                "invalid path \"a[0]b\": expected '.' or '[' at byte 4",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(
                DataPath::parse(text).unwrap_err().to_string(),
                message,
                "{text}"
            );
        }
    }

    #[test]
    fn data_path_get_follows_keys_and_indices() {
        let v = json!({"a": {"b": [{"c": 1}]}});
        assert_eq!(
            DataPath::parse("a.b[0].c").unwrap().get(&v),
            Some(&json!(1))
        );
        assert_eq!(DataPath::parse("").unwrap().get(&v), Some(&v));
        assert_eq!(DataPath::parse("a.b[1]").unwrap().get(&v), None);
        assert_eq!(DataPath::parse("a[0]").unwrap().get(&v), None);
        assert_eq!(DataPath::parse("a.b.c").unwrap().get(&v), None);
    }

    #[test]
    fn data_path_set_creates_containers() {
        let mut v = json!({"intent": null, "message": "hi"});
        DataPath::parse("intent")
            .unwrap()
            .set(&mut v, json!("book_flight"))
            .unwrap();
        assert_eq!(v, json!({"intent": "book_flight", "message": "hi"}));
        let mut v = Value::Null;
        DataPath::parse("a.b[2].c")
            .unwrap()
            .set(&mut v, json!(true))
            .unwrap();
        assert_eq!(v, json!({"a": {"b": [null, null, {"c": true}]}}));
        let mut v = json!(1);
        DataPath::root().set(&mut v, json!([1])).unwrap();
        assert_eq!(v, json!([1]));
    }

    #[test]
    fn data_path_set_refuses_to_write_through_scalars() {
        let mut v = json!({"a": "text"});
        for (path, refusal) in [
            (
                "a.b",
                "cannot set \"a.b\": \"a\" is a string, not an object",
            ),
            ("[0]", "cannot set \"[0]\": \"\" is an object, not an array"),
        ] {
            let err = DataPath::parse(path)
                .unwrap()
                .set(&mut v, json!(1))
                .unwrap_err();
            assert_eq!(err.to_string(), refusal);
        }
        assert_eq!(v, json!({"a": "text"}));
    }
}
