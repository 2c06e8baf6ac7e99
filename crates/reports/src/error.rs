//! The crate's error type.

/// Why a tool's output could not be turned into a report.
///
/// A report full of failures is not an error: `Err` means the output itself is
/// unusable (malformed, truncated, or not the tool's format at all).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The XML is not well-formed.
    #[error("malformed {tool} xml at byte {position}: {source}")]
    Xml {
        /// Which tool's output was being read.
        tool: &'static str,
        /// Byte offset of the problem.
        position: u64,
        /// quick-xml's description.
        #[source]
        source: quick_xml::Error,
    },
    /// The XML stops before its root element is closed (the tool was killed mid-write).
    #[error("truncated {tool} xml: the document ends inside <{element}>")]
    Truncated {
        /// Which tool's output was being read.
        tool: &'static str,
        /// The innermost element left open.
        element: String,
    },
    /// Elements nest deeper than any report of the tool does.
    #[error("malformed {tool} xml: <{element}> nests deeper than {limit} elements")]
    TooDeep {
        /// Which tool's output was being read.
        tool: &'static str,
        /// The element that went too deep.
        element: String,
        /// The depth allowed.
        limit: usize,
    },
    /// The document's root is not the tool's root element (or there is none).
    #[error("not {tool} xml: expected root element <{expected}>, found {found}")]
    WrongRoot {
        /// Which tool's output was being read.
        tool: &'static str,
        /// The root element the tool writes.
        expected: &'static str,
        /// What was found instead.
        found: String,
    },
    /// An attribute or element holds a value of the wrong form.
    #[error("bad {what} {value:?} in {tool} xml")]
    BadValue {
        /// Which tool's output was being read.
        tool: &'static str,
        /// Which value.
        what: &'static str,
        /// The offending text.
        value: String,
    },
    /// JSON output (oclint's) that does not have the report's shape.
    #[error("malformed {tool} json: {source}")]
    Json {
        /// Which tool's output was being read.
        tool: &'static str,
        /// serde_json's description.
        #[source]
        source: serde_json::Error,
    },
}
