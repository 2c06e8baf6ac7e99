//! The white-space normalisation shared by both built-in comparators, as a streaming state machine.
//!
//! A *blank* is one of space, tab, `\r`, vertical tab and form feed (every ASCII white-space byte
//! but `\n`). The normalised form of a file keeps each non-blank line as its non-blank runs joined
//! by one space, preceded by one space when the line starts with a blank, and followed by `\n`;
//! lines made only of blanks disappear. See the [module docs](super) for the full rules.

/// Whether `byte` is a blank (ASCII white space other than `\n`).
#[inline]
pub(crate) fn is_blank(byte: u8) -> bool {
    CLASS[usize::from(byte)] == BLANK
}

/// Whether `byte` ends a content run (a blank or `\n`).
#[inline]
pub(crate) fn is_separator(byte: u8) -> bool {
    CLASS[usize::from(byte)] != CONTENT
}

const CONTENT: u8 = 0;
const BLANK: u8 = 1;
const NEWLINE: u8 = 2;

/// Byte classes: content, blank or newline.
static CLASS: [u8; 256] = {
    let mut class = [CONTENT; 256];
    class[b' ' as usize] = BLANK;
    class[b'\t' as usize] = BLANK;
    class[b'\r' as usize] = BLANK;
    class[0x0b] = BLANK;
    class[0x0c] = BLANK;
    class[b'\n' as usize] = NEWLINE;
    class
};

/// Where the normaliser stands after the bytes it has consumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NormState {
    /// No content yet on the current line; `blank` is whether blanks were seen on it.
    LineStart {
        /// Blanks were seen since the line began.
        blank: bool,
    },
    /// The current line has content; `pending` is whether blanks followed the last content byte.
    InLine {
        /// Blanks were seen since the last content byte.
        pending: bool,
    },
}

impl NormState {
    /// The state at the beginning of a file.
    pub(crate) const START: Self = Self::LineStart { blank: false };

    /// The state after consuming `bytes` (canonical bytes: `\r\n` already folded) from `self`.
    pub(crate) fn after(self, bytes: &[u8]) -> Self {
        match bytes.iter().rposition(|&b| !is_blank(b)) {
            None if bytes.is_empty() => self,
            None => self.with_blank(),
            Some(last) => {
                let trailing = last + 1 < bytes.len();
                if bytes[last] == b'\n' {
                    Self::LineStart { blank: trailing }
                } else {
                    Self::InLine { pending: trailing }
                }
            }
        }
    }

    /// The state after consuming at least one blank.
    pub(crate) fn with_blank(self) -> Self {
        match self {
            Self::LineStart { .. } => Self::LineStart { blank: true },
            Self::InLine { .. } => Self::InLine { pending: true },
        }
    }
}

/// One unit of normalised output, produced by [`crate::source::Side::next_piece`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    /// The next `n` canonical bytes are content (no blank, no `\n`).
    Content(usize),
    /// One space standing for a run of blanks before content.
    Space,
    /// The end of a non-blank line (a `\n`, or the end of a file without a final newline).
    Newline,
    /// The end of the normalised stream.
    End,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_are_ascii_white_space_except_newline() {
        for b in [b' ', b'\t', b'\r', 0x0b, 0x0c] {
            assert!(is_blank(b));
        }
        for b in [b'\n', b'a', 0, 0xa0, 0xff] {
            assert!(!is_blank(b));
        }
        for b in 0..=255u8 {
            assert_eq!(is_separator(b), is_blank(b) || b == b'\n', "{b}");
        }
    }

    #[test]
    fn after_tracks_line_start_and_pending_blanks() {
        let s = NormState::START;
        assert_eq!(s.after(b""), s);
        assert_eq!(s.after(b"  "), NormState::LineStart { blank: true });
        assert_eq!(s.after(b"ab"), NormState::InLine { pending: false });
        assert_eq!(s.after(b"ab \t"), NormState::InLine { pending: true });
        assert_eq!(s.after(b"ab\n"), NormState::LineStart { blank: false });
        assert_eq!(s.after(b"ab\n "), NormState::LineStart { blank: true });
        let in_line = NormState::InLine { pending: false };
        assert_eq!(in_line.after(b" "), NormState::InLine { pending: true });
    }
}
