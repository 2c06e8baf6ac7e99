//! One side of a comparison: a bounded buffer over a byte source, yielding canonical bytes
//! (`\r\n` folded to `\n`) and normalised [`Piece`]s.

use std::convert::Infallible;
use std::io::{self, Read};

use memchr::{memchr, memrchr};

use crate::normalize::{NormState, Piece, is_blank, is_separator};

/// Bytes of the current line kept before the read position for feedback snippets.
pub(crate) const LOOKBEHIND: usize = 64;
/// Bytes of the current line shown after the position of a difference.
pub(crate) const LOOKAHEAD: usize = 64;

/// Where bytes come from: a reader or a slice.
pub(crate) trait Source {
    /// What can go wrong while reading.
    type Error;
    /// Reads some bytes into `buf`, returning how many (0 at the end).
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error>;
}

/// A [`Source`] over any reader, retrying interrupted reads.
pub(crate) struct ReadSource<R>(pub(crate) R);

impl<R: Read> Source for ReadSource<R> {
    type Error = io::Error;

    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, io::Error> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

/// A [`Source`] over bytes in memory; it cannot fail.
pub(crate) struct SliceSource<'a>(pub(crate) &'a [u8]);

impl Source for SliceSource<'_> {
    type Error = Infallible;

    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        let n = buf.len().min(self.0.len());
        let (head, tail) = self.0.split_at(n);
        buf[..n].copy_from_slice(head);
        self.0 = tail;
        Ok(n)
    }
}

/// A buffered side of a comparison with its normaliser state and line count.
pub(crate) struct Side<S> {
    src: S,
    buf: Box<[u8]>,
    chunk: usize,
    /// Read position in `buf`.
    pub(crate) pos: usize,
    /// End of the valid bytes in `buf`.
    end: usize,
    /// End of the canonical run starting at `pos` (no `\r` to fold inside it).
    run_end: usize,
    eof: bool,
    /// Number of `\n` consumed.
    pub(crate) lines: u64,
    /// Index in `buf` where the current line starts, if it is still in the buffer.
    line_start: Option<usize>,
    /// Normaliser state after the consumed bytes.
    pub(crate) state: NormState,
}

/// What scanning for the canonical run at `pos` found.
enum Scan {
    /// The run ends at this index.
    Run(usize),
    /// `pos` is on the `\r` of a `\r\n`: skip it.
    SkipCr,
    /// `pos` is on a `\r` that ends the buffer: read more to decide.
    NeedMore,
}

impl<S: Source> Side<S> {
    /// A side reading `chunk` bytes at a time (at least 1).
    pub(crate) fn new(src: S, chunk: usize) -> Self {
        let chunk = chunk.max(1);
        Self {
            src,
            buf: vec![0; chunk + LOOKBEHIND + 2].into_boxed_slice(),
            chunk,
            pos: 0,
            end: 0,
            run_end: 0,
            eof: false,
            lines: 0,
            line_start: Some(0),
            state: NormState::START,
        }
    }

    /// Makes the canonical run at `pos` non-empty; `false` at the end of the input.
    #[inline]
    pub(crate) fn ensure_run(&mut self) -> Result<bool, S::Error> {
        loop {
            if self.run_end > self.pos {
                return Ok(true);
            }
            if self.pos == self.end {
                if self.eof {
                    return Ok(false);
                }
                self.refill()?;
                continue;
            }
            match self.scan() {
                Scan::Run(end) => self.run_end = end,
                Scan::SkipCr => self.pos += 1,
                Scan::NeedMore => self.refill()?,
            }
        }
    }

    /// The canonical run at `pos` (valid after [`Self::ensure_run`] returned `true`).
    #[inline]
    pub(crate) fn run(&self) -> &[u8] {
        &self.buf[self.pos..self.run_end]
    }

    fn scan(&self) -> Scan {
        let bytes = &self.buf[self.pos..self.end];
        let mut from = 0;
        while let Some(i) = memchr(b'\r', &bytes[from..]) {
            let cr = from + i;
            match bytes.get(cr + 1) {
                Some(b'\n') if cr == 0 => return Scan::SkipCr,
                Some(b'\n') => return Scan::Run(self.pos + cr),
                Some(_) => from = cr + 1,
                None if self.eof => break,
                None if cr == 0 => return Scan::NeedMore,
                None => return Scan::Run(self.pos + cr),
            }
        }
        Scan::Run(self.end)
    }

    /// Moves the kept bytes (line context before `pos`, unread bytes) to the front and reads once.
    fn refill(&mut self) -> Result<(), S::Error> {
        let mut keep = self.pos.saturating_sub(LOOKBEHIND);
        if let Some(start) = self.line_start {
            keep = keep.max(start);
        }
        self.buf.copy_within(keep..self.end, 0);
        self.line_start = match self.line_start {
            Some(start) if start >= keep => Some(start - keep),
            _ => None,
        };
        self.pos -= keep;
        self.end -= keep;
        self.run_end = self.pos;
        let stop = (self.end + self.chunk).min(self.buf.len());
        let n = self.src.fill(&mut self.buf[self.end..stop])?;
        if n == 0 {
            self.eof = true;
        }
        self.end += n;
        Ok(())
    }

    /// Consumes the first `n` bytes of the run, counting lines; the caller updates `state`.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize, newlines: u64) {
        if newlines > 0 {
            let bytes = &self.buf[self.pos..self.pos + n];
            if let Some(i) = memrchr(b'\n', bytes) {
                self.line_start = Some(self.pos + i + 1);
            }
            self.lines += newlines;
        }
        self.pos += n;
    }

    /// The next normalised piece, skipping blank lines and blanks; content is not consumed.
    #[inline]
    pub(crate) fn next_piece(&mut self) -> Result<Piece, S::Error> {
        loop {
            if !self.ensure_run()? {
                return Ok(match self.state {
                    NormState::InLine { .. } => Piece::Newline,
                    NormState::LineStart { .. } => Piece::End,
                });
            }
            let run = self.run();
            let byte = run[0];
            if byte == b'\n' {
                if let NormState::InLine { .. } = self.state {
                    return Ok(Piece::Newline);
                }
                self.consume(1, 1);
                self.state = NormState::START;
            } else if is_blank(byte) {
                let n = run.iter().position(|&b| !is_blank(b)).unwrap_or(run.len());
                self.pos += n;
                self.state = self.state.with_blank();
            } else {
                return Ok(match self.state {
                    NormState::LineStart { blank: true } | NormState::InLine { pending: true } => {
                        Piece::Space
                    }
                    _ => Piece::Content(
                        run.iter()
                            .position(|&b| is_separator(b))
                            .unwrap_or(run.len()),
                    ),
                });
            }
        }
    }

    /// Consumes a piece returned by [`Self::next_piece`] after it matched the other side.
    #[inline]
    pub(crate) fn accept(&mut self, piece: Piece) {
        match piece {
            Piece::Content(n) => {
                self.pos += n;
                self.state = NormState::InLine { pending: false };
            }
            Piece::Space => self.state = NormState::InLine { pending: false },
            Piece::Newline => {
                if self.pos < self.run_end {
                    self.consume(1, 1);
                }
                self.state = NormState::START;
            }
            Piece::End => {}
        }
    }

    /// The 1-based number of the line holding `pos`.
    #[inline]
    pub(crate) fn line_number(&self) -> u64 {
        self.lines + 1
    }

    /// Context around `pos` on its line, reading ahead to the end of the line (bounded).
    pub(crate) fn snippet(&mut self) -> Result<Snippet, S::Error> {
        let from = match self.line_start {
            Some(start) if self.pos - start <= LOOKBEHIND => start,
            _ => self.pos.saturating_sub(LOOKBEHIND),
        };
        let cut_before = self.line_start != Some(from);
        let mut bytes = self.buf[from..self.pos].to_vec();
        let before = bytes.len();
        let mut ended = false;
        loop {
            let avail = &self.buf[self.pos..self.end];
            if let Some(i) = memchr(b'\n', avail) {
                bytes.extend_from_slice(&avail[..i]);
                ended = true;
                break;
            }
            bytes.extend_from_slice(avail);
            self.pos = self.end;
            self.run_end = self.end;
            if self.eof {
                ended = true;
                break;
            }
            if bytes.len() - before > LOOKAHEAD {
                break;
            }
            self.refill()?;
        }
        let cut_after = !ended || bytes.len() - before > LOOKAHEAD;
        bytes.truncate(before + LOOKAHEAD);
        if !cut_after && bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        Ok(Snippet {
            cut_before,
            bytes,
            cut_after,
        })
    }
}

/// A bounded piece of one line around a difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snippet {
    /// The line starts before `bytes`.
    pub(crate) cut_before: bool,
    /// The bytes shown.
    pub(crate) bytes: Vec<u8>,
    /// The line goes on after `bytes`.
    pub(crate) cut_after: bool,
}
