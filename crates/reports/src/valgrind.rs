//! valgrind memcheck's XML report (`--xml=yes --xml-file=FILE`) into a [`MemoryReport`].
//!
//! # What counts as an error
//!
//! memcheck already merges repeats: an invalid read inside a loop that runs 1,000
//! times is **one** `<error>` element (its repeat count goes to `<errorcounts>`), and
//! each leak is one `<error>` per allocation site (loss record). So `error_count` is
//! the number of `<error>` elements, which is what a teacher reading valgrind's
//! output would count, **except** `Leak_StillReachable` (memory still pointed to at
//! exit) and `Leak_IndirectlyLost` (already included in the definitely-lost record
//! that owns it), which are listed in `errors` but not counted. With the recommended
//! flags (see the crate docs) valgrind does not emit those two kinds anyway.
//!
//! For each error: `kind`, `what` (`<what>`, or `<xwhat><text>` for leaks, followed by
//! any `<auxwhat>` lines such as "Address 0x... is 0 bytes after a block of size 16
//! alloc'd"), `bytes_leaked`/`blocks_leaked` for leaks, and the first `<stack>` (where
//! it happened), innermost frame first, with paths inside the box made relative.
//!
//! A document that stops before `</valgrindoutput>` (valgrind killed at a limit) is
//! [`ReportError::Truncated`].

use crate::ReportError;
use crate::paths::relative_to_box;
use crate::xml::{Element, Item, Stream, number};
use std::path::Path;
use verdict_contracts::{MemoryError, MemoryReport, StackFrame};

const TOOL: &str = "valgrind";

/// Parses valgrind memcheck's XML output; `box_dir` is the directory the program ran in.
pub fn parse_valgrind_xml(xml: &str, box_dir: &Path) -> Result<MemoryReport, ReportError> {
    let mut stream = Stream::new(xml, TOOL);
    stream.expect_root("valgrindoutput")?;
    let mut report = MemoryReport {
        tool: TOOL.to_owned(),
        ..MemoryReport::default()
    };
    loop {
        match stream.next_item()? {
            // Only top-level children of <valgrindoutput> (depth 2 once opened).
            Item::Open { element, empty } if stream.depth() <= 2 => match element.name.as_str() {
                "error" => {
                    let error = stream.subtree(element, empty)?;
                    let error = memory_error(&error, box_dir)?;
                    if counts(&error.kind) {
                        report.error_count = report.error_count.saturating_add(1);
                    }
                    report.errors.push(error);
                }
                "preamble" => {
                    let preamble = stream.subtree(element, empty)?;
                    if let Some(version) = preamble
                        .children_named("line")
                        .find_map(|l| version_of(&l.text))
                    {
                        report.tool = version;
                    }
                }
                _ => {
                    stream.subtree(element, empty)?;
                }
            },
            Item::Open { .. } | Item::Close | Item::Text(_) => {}
            Item::End => break,
        }
    }
    Ok(report)
}

/// Whether an error of this kind counts against the score (see the module docs).
fn counts(kind: &str) -> bool {
    !matches!(kind, "Leak_StillReachable" | "Leak_IndirectlyLost")
}

/// `"valgrind-3.19.0"` from the preamble line `"Using Valgrind-3.19.0 and LibVEX; ..."`.
fn version_of(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("Using Valgrind-")?;
    let version = rest.split_whitespace().next()?;
    Some(format!("valgrind-{version}"))
}

fn memory_error(error: &Element, box_dir: &Path) -> Result<MemoryError, ReportError> {
    let kind = error
        .child_text("kind")
        .unwrap_or_default()
        .trim()
        .to_owned();
    let xwhat = error.child("xwhat");
    let mut what = error
        .child_text("what")
        .or_else(|| xwhat.and_then(|x| x.child_text("text")))
        .unwrap_or_default()
        .trim()
        .to_owned();
    for aux in error.children_named("auxwhat") {
        what.push('\n');
        what.push_str(aux.text.trim());
    }
    let leaked = |name: &str| -> Result<Option<u64>, ReportError> {
        xwhat
            .and_then(|x| x.child_text(name))
            .map(|v| number(v, TOOL, "leaked amount"))
            .transpose()
    };
    let stack = match error.child("stack") {
        Some(stack) => stack
            .children_named("frame")
            .map(|f| frame(f, box_dir))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    Ok(MemoryError {
        kind,
        what,
        bytes_leaked: leaked("leakedbytes")?,
        blocks_leaked: leaked("leakedblocks")?,
        stack,
    })
}

fn frame(frame: &Element, box_dir: &Path) -> Result<StackFrame, ReportError> {
    let text = |name: &str| {
        frame
            .child_text(name)
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
    };
    let file = text("file").map(|file| match text("dir") {
        Some(dir) if !file.starts_with('/') => relative_to_box(&format!("{dir}/{file}"), box_dir),
        _ => relative_to_box(&file, box_dir),
    });
    let line = frame
        .child_text("line")
        .map(|l| number(l, TOOL, "line number"))
        .transpose()?;
    Ok(StackFrame {
        function: text("fn"),
        file,
        line,
        object: text("obj").map(|o| relative_to_box(&o, box_dir)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "<?xml version=\"1.0\"?>\n<valgrindoutput>\n<preamble><line>Using Valgrind-3.19.0 and LibVEX</line></preamble>\n\
        <error><kind>Leak_DefinitelyLost</kind><xwhat><text>8 bytes</text><leakedbytes>8</leakedbytes><leakedblocks>1</leakedblocks></xwhat>\
        <stack><frame><ip>0x1</ip><obj>/b/p</obj><fn>main</fn><dir>/b</dir><file>p.c</file><line>4</line></frame></stack></error>\n\
        <error><kind>Leak_StillReachable</kind><xwhat><text>7 bytes</text><leakedbytes>7</leakedbytes><leakedblocks>1</leakedblocks></xwhat></error>\n\
        </valgrindoutput>\n";

    #[test]
    fn leaks_and_frames_are_read() {
        let r = parse_valgrind_xml(DOC, Path::new("/b")).unwrap();
        assert_eq!(r.tool, "valgrind-3.19.0");
        assert_eq!(r.error_count, 1, "still reachable does not count");
        assert_eq!(r.errors.len(), 2);
        assert_eq!(r.errors[0].bytes_leaked, Some(8));
        assert_eq!(r.errors[0].blocks_leaked, Some(1));
        let f = &r.errors[0].stack[0];
        assert_eq!(f.file.as_deref(), Some("p.c"));
        assert_eq!(f.object.as_deref(), Some("p"));
        assert_eq!(f.line, Some(4));
    }

    #[test]
    fn every_prefix_is_an_error_not_a_panic() {
        let end = DOC.trim_end().len();
        for cut in 0..end {
            assert!(
                parse_valgrind_xml(&DOC[..cut], Path::new("/b")).is_err(),
                "{cut}"
            );
        }
        assert!(parse_valgrind_xml(&DOC[..end], Path::new("/b")).is_ok());
    }

    #[test]
    fn bad_numbers_are_errors() {
        let doc = DOC.replace("<line>4</line>", "<line>four</line>");
        assert!(matches!(
            parse_valgrind_xml(&doc, Path::new("/b")),
            Err(ReportError::BadValue { .. })
        ));
    }

    #[test]
    fn gtest_xml_is_not_valgrind_xml() {
        assert!(matches!(
            parse_valgrind_xml("<testsuites/>", Path::new("/b")),
            Err(ReportError::WrongRoot { .. })
        ));
    }
}
