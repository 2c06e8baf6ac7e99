//! The lines around the first difference of a program's output and the expected one, for
//! people (the report's `diff`, DOMjudge's jury view): found the way the built-in comparators
//! find it (blank lines skipped, runs of blanks as one space, as `diff-ign-space`), else byte
//! for byte (a `\r` before `\n` dropped) for a layout difference, in one streaming pass over
//! each file, holding at most a few cut lines.

use std::collections::VecDeque;
use std::hash::{DefaultHasher, Hasher};
use std::io::{BufRead, BufReader};
use std::path::Path;
use verdict_contracts::{DiffExcerpt, OutputDiff};

/// Lines kept before and after the differing one, on each side.
pub const CONTEXT_LINES: usize = 3;

/// The most of one line kept, in characters (a longer one ends with `…`).
pub const LINE_CHARS: usize = 512;

/// Bytes of a line kept before decoding: enough for [`LINE_CHARS`] characters of UTF-8.
const LINE_BYTES: usize = LINE_CHARS * 4;

/// The first difference of `received` from `expected` (the output named `name`), with the lines
/// around it, or `None` when the two are the same line for line (a missing final newline).
pub fn first_difference(
    name: &str,
    received: &Path,
    expected: &Path,
) -> std::io::Result<Option<OutputDiff>> {
    for mode in [Mode::Normalised, Mode::Exact] {
        let open = |path: &Path| std::fs::File::open(path).map(BufReader::new);
        if let Some(diff) = difference_in(name, open(received)?, open(expected)?, mode)? {
            return Ok(Some(diff));
        }
    }
    Ok(None)
}

/// The same over two outputs in memory.
pub fn first_difference_bytes(
    name: &str,
    received: &[u8],
    expected: &[u8],
) -> std::io::Result<Option<OutputDiff>> {
    for mode in [Mode::Normalised, Mode::Exact] {
        if let Some(diff) = difference_in(name, received, expected, mode)? {
            return Ok(Some(diff));
        }
    }
    Ok(None)
}

/// How lines are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Blank lines skipped, blanks at the end dropped, other runs of blanks one space.
    Normalised,
    /// Byte for byte (a `\r` before the line end dropped).
    Exact,
}

/// One line as read: its number, its start (cut) and the hash of what is compared.
struct Line {
    number: u64,
    text: String,
    /// `None` for a line the mode skips (blank, when normalised).
    key: Option<u64>,
}

/// Reads lines of any length keeping only their start, numbering them, hashing them by mode.
struct Lines<R> {
    reader: R,
    mode: Mode,
    number: u64,
    /// The last lines read (at most [`CONTEXT_LINES`]), for the context before a difference.
    recent: VecDeque<(u64, String)>,
}

impl<R: BufRead> Lines<R> {
    fn new(reader: R, mode: Mode) -> Self {
        Lines {
            reader,
            mode,
            number: 0,
            recent: VecDeque::new(),
        }
    }

    /// The next line, or `None` at the end of the file.
    fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut kept = Vec::new();
        let mut hasher = DefaultHasher::new();
        // Normalised: a run of blanks is one space before the next content (a run at the start
        // counts too, as with `diff -b`); blanks at the end are dropped.
        let (mut pending_blank, mut any_content, mut pending_cr) = (false, false, false);
        let (mut read_any, mut dropped) = (false, false);
        loop {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            read_any = true;
            let (chunk, ends) = match buf.iter().position(|&b| b == b'\n') {
                Some(at) => (&buf[..at], Some(at + 1)),
                None => (buf, None),
            };
            let room = LINE_BYTES - kept.len();
            dropped |= chunk.len() > room;
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            for &byte in chunk {
                match self.mode {
                    Mode::Exact => {
                        if pending_cr {
                            hasher.write_u8(b'\r');
                        }
                        pending_cr = byte == b'\r';
                        if !pending_cr {
                            hasher.write_u8(byte);
                        }
                    }
                    Mode::Normalised => {
                        if matches!(byte, b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                            pending_blank = true;
                        } else {
                            if pending_blank {
                                hasher.write_u8(b' ');
                            }
                            pending_blank = false;
                            any_content = true;
                            hasher.write_u8(byte);
                        }
                    }
                }
            }
            let consumed = ends.unwrap_or(buf.len());
            self.reader.consume(consumed);
            if ends.is_some() {
                break;
            }
        }
        if !read_any {
            return Ok(None);
        }
        self.number += 1;
        if kept.last() == Some(&b'\r') && !dropped {
            kept.pop();
        }
        let text = cut(String::from_utf8_lossy(&kept).into_owned(), dropped);
        let key = match self.mode {
            Mode::Normalised if !any_content => None,
            _ => Some(hasher.finish()),
        };
        Ok(Some(Line {
            number: self.number,
            text,
            key,
        }))
    }

    /// The next line the mode compares, remembering every line read for the context.
    fn next_compared(&mut self) -> std::io::Result<Option<Line>> {
        while let Some(line) = self.next_line()? {
            if line.key.is_some() {
                return Ok(Some(line));
            }
            self.remember(&line);
        }
        Ok(None)
    }

    fn remember(&mut self, line: &Line) {
        if self.recent.len() == CONTEXT_LINES {
            self.recent.pop_front();
        }
        self.recent.push_back((line.number, line.text.clone()));
    }

    /// The excerpt around `at` (the differing line, `None` at the end of the file): the lines
    /// remembered before it, it, and up to [`CONTEXT_LINES`] after it.
    fn excerpt(&mut self, at: Option<Line>) -> std::io::Result<DiffExcerpt> {
        let line = at.as_ref().map_or(self.number + 1, |at| at.number);
        let first_line = self.recent.front().map_or(line, |(n, _)| *n);
        let mut lines: Vec<String> = self.recent.drain(..).map(|(_, t)| t).collect();
        if let Some(at) = at {
            lines.push(at.text);
            for _ in 0..CONTEXT_LINES {
                match self.next_line()? {
                    Some(next) => lines.push(next.text),
                    None => break,
                }
            }
        }
        let more = !self.reader.fill_buf()?.is_empty();
        Ok(DiffExcerpt {
            first_line,
            line,
            lines,
            more,
        })
    }
}

/// `text` with `…` appended when it was cut, at most [`LINE_CHARS`] characters before it.
fn cut(text: String, was_cut: bool) -> String {
    let count = text.chars().count();
    if !was_cut && count <= LINE_CHARS {
        return text;
    }
    let mut kept: String = text.chars().take(LINE_CHARS).collect();
    kept.push('…');
    kept
}

fn difference_in(
    name: &str,
    received: impl BufRead,
    expected: impl BufRead,
    mode: Mode,
) -> std::io::Result<Option<OutputDiff>> {
    let mut received = Lines::new(received, mode);
    let mut expected = Lines::new(expected, mode);
    loop {
        let r = received.next_compared()?;
        let e = expected.next_compared()?;
        let same = match (&r, &e) {
            (None, None) => return Ok(None),
            (Some(r), Some(e)) => r.key == e.key,
            _ => false,
        };
        if same {
            if let (Some(r), Some(e)) = (&r, &e) {
                received.remember(r);
                expected.remember(e);
            }
            continue;
        }
        return Ok(Some(OutputDiff {
            name: name.to_owned(),
            expected: expected.excerpt(e)?,
            received: received.excerpt(r)?,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(received: &str, expected: &str) -> Option<OutputDiff> {
        first_difference_bytes("testdata.out", received.as_bytes(), expected.as_bytes())
            .expect("in memory")
    }

    #[test]
    fn the_differing_line_comes_with_three_lines_either_side() {
        let d = diff("1\n2\n3\n7\n5\n6\n8\n9\n", "1\n2\n3\n4\n5\n6\n8\n9\n").expect("a difference");
        assert_eq!(d.expected.first_line, 1);
        assert_eq!(d.expected.line, 4);
        assert_eq!(d.expected.lines, ["1", "2", "3", "4", "5", "6", "8"]);
        assert!(d.expected.more);
        assert_eq!(d.received.lines, ["1", "2", "3", "7", "5", "6", "8"]);
        assert_eq!(d.received.line, 4);
    }

    #[test]
    fn blank_lines_and_runs_of_blanks_are_skipped_as_diff_ign_space_skips_them() {
        let d = diff("a  b\n\n\nc\nx\n", "a b\nc\ny\n").expect("a difference");
        assert_eq!((d.received.line, d.expected.line), (5, 3));
        assert_eq!(d.received.first_line, 2);
        assert_eq!(d.received.lines, ["", "", "c", "x"]);
        assert!(!d.received.more);
        assert_eq!(d.expected.lines, ["a b", "c", "y"]);
    }

    #[test]
    fn a_layout_difference_is_found_byte_for_byte() {
        let d = diff("1\n2  3\n", "1\n2 3\n").expect("a difference");
        assert_eq!(d.received.line, 2);
        assert_eq!(d.received.lines, ["1", "2  3"]);
        assert_eq!(diff("1\r\n2\n", "1\n2"), None);
    }

    #[test]
    fn a_file_that_ends_early_is_marked_one_past_its_end() {
        let d = diff("1\n2\n", "1\n2\n3\n").expect("a difference");
        assert_eq!(d.received.line, 3);
        assert_eq!(d.received.lines, ["1", "2"]);
        assert_eq!(d.expected.lines, ["1", "2", "3"]);
    }

    #[test]
    fn long_lines_are_cut_but_compared_whole() {
        let same = "x".repeat(10_000);
        let d = diff(&format!("{same}1\n"), &format!("{same}2\n")).expect("a difference");
        assert_eq!(d.received.lines[0].chars().count(), LINE_CHARS + 1);
        assert!(d.received.lines[0].ends_with('…'));
    }
}
