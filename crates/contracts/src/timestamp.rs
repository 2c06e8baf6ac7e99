//! A point in time on the wire: an RFC 3339 string, as JavaScript's `Date` serialises.

use std::fmt;
use std::str::FromStr;

/// An instant, written as an RFC 3339 string in UTC (`"2024-01-01T10:00:00Z"`).
///
/// Any RFC 3339 offset is accepted on input (`"2024-01-01T18:00:00+08:00"`); output is always
/// UTC with `Z` and as many fractional digits as needed (none for whole seconds), so
/// `"2024-01-01T10:00:00.000Z"` from JavaScript's `toISOString()` reads back as the same instant
/// and is written `"2024-01-01T10:00:00Z"`. Numbers (epoch milliseconds) are rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(pub jiff::Timestamp);

impl Timestamp {
    /// The current time, from the system clock.
    pub fn now() -> Self {
        Timestamp(jiff::Timestamp::now())
    }

    /// The instant `ms` milliseconds after the Unix epoch, if in jiff's range.
    pub fn from_millisecond(ms: i64) -> Option<Self> {
        jiff::Timestamp::from_millisecond(ms).ok().map(Timestamp)
    }

    /// Milliseconds since the Unix epoch (truncated).
    pub fn as_millisecond(self) -> i64 {
        self.0.as_millisecond()
    }
}

impl From<jiff::Timestamp> for Timestamp {
    fn from(t: jiff::Timestamp) -> Self {
        Timestamp(t)
    }
}

impl From<Timestamp> for jiff::Timestamp {
    fn from(t: Timestamp) -> Self {
        t.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// Why a timestamp string did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "timestamp must be an RFC 3339 date-time such as \"2024-01-01T10:00:00Z\", got {input:?}: {reason}"
)]
pub struct TimestampParseError {
    /// The text that did not parse.
    pub input: String,
    /// jiff's explanation.
    pub reason: String,
}

impl FromStr for Timestamp {
    type Err = TimestampParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<jiff::Timestamp>()
            .map(Timestamp)
            .map_err(|e| TimestampParseError {
                input: s.to_owned(),
                reason: e.to_string(),
            })
    }
}

string_wire!(Timestamp, {
    "format": "date-time",
    "description": "An RFC 3339 date-time, e.g. \"2024-01-01T10:00:00Z\"."
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_round_trips_as_rfc3339_utc() {
        let t: Timestamp = serde_json::from_str("\"2024-01-01T10:00:00Z\"").unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"2024-01-01T10:00:00Z\""
        );
        let js: Timestamp = serde_json::from_str("\"2024-01-01T10:00:00.250Z\"").unwrap();
        assert_eq!(js.to_string(), "2024-01-01T10:00:00.25Z");
        let east: Timestamp = serde_json::from_str("\"2024-01-01T18:00:00+08:00\"").unwrap();
        assert_eq!(east, t);
    }

    #[test]
    fn timestamp_rejects_numbers_and_garbage() {
        assert!(serde_json::from_str::<Timestamp>("1704103200000").is_err());
        let err = "yesterday".parse::<Timestamp>().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("timestamp must be an RFC 3339 date-time")
        );
    }
}
