//! The single-pass comparison loop shared by both built-in comparators and both input kinds.
//!
//! Both sides are compared on their normalised streams. While both normalisers are in the same
//! state with nothing left over, equal canonical bytes produce equal output, so the loop skips the
//! longest common run with slice equality (the fast path) and falls back to piece-by-piece
//! normalised comparison only where the bytes differ. Whether the canonical streams are identical
//! is tracked on the way, so one pass answers both comparators.

use crate::normalize::{NormState, Piece, is_blank};
use crate::source::{Side, Snippet, Source};

/// Which side of the comparison something refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// The program's output.
    Output,
    /// The expected answer.
    Answer,
}

/// Where the normalised streams first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Difference {
    /// Line of the output (1-based).
    pub(crate) output_line: u64,
    /// Line of the answer (1-based).
    pub(crate) answer_line: u64,
    /// The output's line around the difference, `None` at its end.
    pub(crate) output: Option<Snippet>,
    /// The answer's line around the difference, `None` at its end.
    pub(crate) answer: Option<Snippet>,
}

/// What one pass found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// Line (1-based) of the first difference between the canonical streams, `None` if identical.
    pub(crate) first_exact_difference: Option<u64>,
    /// First difference between the normalised streams, `None` if equal.
    pub(crate) difference: Option<Difference>,
}

/// Compares `output` with `answer` in one pass.
pub(crate) fn compare<A: Source, B: Source<Error = A::Error>>(
    output: &mut Side<A>,
    answer: &mut Side<B>,
) -> Result<Comparison, (Which, A::Error)> {
    let mut first_exact_difference = None;
    let mut pending: (Option<Piece>, Option<Piece>) = (None, None);
    loop {
        if pending == (None, None) && output.state == answer.state {
            let has_out = output.ensure_run().map_err(|e| (Which::Output, e))?;
            let has_ans = answer.ensure_run().map_err(|e| (Which::Answer, e))?;
            if !has_out && !has_ans {
                return Ok(Comparison {
                    first_exact_difference,
                    difference: None,
                });
            }
            if has_out && has_ans {
                let (a, b) = (output.run(), answer.run());
                let len = a.len().min(b.len());
                let (same, newlines) = common_prefix(a, b);
                if same > 0 {
                    let state = output.state.after(&a[..same]);
                    output.consume(same, newlines);
                    answer.consume(same, newlines);
                    output.state = state;
                    answer.state = state;
                }
                if same == len {
                    continue;
                }
            }
            if first_exact_difference.is_none() {
                first_exact_difference = Some(output.line_number());
            }
            if has_out && has_ans && skip_blank_runs(output, answer) {
                continue;
            }
        }
        let a = match pending.0.take() {
            Some(piece) => piece,
            None => output.next_piece().map_err(|e| (Which::Output, e))?,
        };
        let b = match pending.1.take() {
            Some(piece) => piece,
            None => answer.next_piece().map_err(|e| (Which::Answer, e))?,
        };
        match (a, b) {
            (Piece::End, Piece::End) => {
                return Ok(Comparison {
                    first_exact_difference,
                    difference: None,
                });
            }
            (Piece::Content(x), Piece::Content(y)) => {
                let len = x.min(y);
                let (same, _) = common_prefix(&output.run()[..len], &answer.run()[..len]);
                output.accept(Piece::Content(same));
                answer.accept(Piece::Content(same));
                if same < len {
                    return difference(output, answer, a, b, first_exact_difference);
                }
                if x > len {
                    pending.0 = Some(Piece::Content(x - len));
                }
                if y > len {
                    pending.1 = Some(Piece::Content(y - len));
                }
            }
            (Piece::Space, Piece::Space) | (Piece::Newline, Piece::Newline) => {
                output.accept(a);
                answer.accept(b);
            }
            _ => return difference(output, answer, a, b, first_exact_difference),
        }
    }
}

/// Skips the blank runs at both positions when that leaves both normalisers in the same state.
///
/// Blanks produce no output by themselves, so when the states agree afterwards the fast path
/// may resume: this takes `"a  b"` against `"a b"` without the piece-by-piece path. Runs that
/// reach the end of the buffered run are left to that path.
#[inline]
fn skip_blank_runs<A: Source, B: Source>(output: &mut Side<A>, answer: &mut Side<B>) -> bool {
    let blanks = |run: &[u8]| run.iter().position(|&b| !is_blank(b));
    let (Some(a), Some(b)) = (blanks(output.run()), blanks(answer.run())) else {
        return false;
    };
    if a == 0 && b == 0 {
        return false;
    }
    let after = |skipped: usize, state: NormState| {
        if skipped > 0 {
            state.with_blank()
        } else {
            state
        }
    };
    let (state_a, state_b) = (after(a, output.state), after(b, answer.state));
    if state_a != state_b {
        return false;
    }
    output.consume(a, 0);
    answer.consume(b, 0);
    output.state = state_a;
    answer.state = state_b;
    true
}

/// Builds the result for a difference found at the current positions.
fn difference<A: Source, B: Source<Error = A::Error>>(
    output: &mut Side<A>,
    answer: &mut Side<B>,
    a: Piece,
    b: Piece,
    first_exact_difference: Option<u64>,
) -> Result<Comparison, (Which, A::Error)> {
    let output_line = output.line_number();
    let answer_line = answer.line_number();
    let output_snippet = match a {
        Piece::End => None,
        _ => Some(output.snippet().map_err(|e| (Which::Output, e))?),
    };
    let answer_snippet = match b {
        Piece::End => None,
        _ => Some(answer.snippet().map_err(|e| (Which::Answer, e))?),
    };
    Ok(Comparison {
        first_exact_difference: first_exact_difference.or(Some(output_line.min(answer_line))),
        difference: Some(Difference {
            output_line,
            answer_line,
            output: output_snippet,
            answer: answer_snippet,
        }),
    })
}

/// Length of the longest common prefix of two equally long slices, and the `\n`s in it.
///
/// A short scalar look first (differences a few bytes in are the normalising path's common
/// case), then slice equality on the rest, then blocks to locate a late difference.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> (usize, u64) {
    let len = a.len().min(b.len());
    let (a, b) = (&a[..len], &b[..len]);
    let head = len.min(32);
    let mut newlines = 0;
    for i in 0..head {
        if a[i] != b[i] {
            return (i, newlines);
        }
        newlines += u64::from(a[i] == b'\n');
    }
    if a[head..] == b[head..] {
        return (len, newlines + count_newlines(&a[head..]));
    }
    const BLOCK: usize = 128;
    let mut i = head;
    while i + BLOCK <= len && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    newlines += count_newlines(&a[head..i]);
    while i < len && a[i] == b[i] {
        newlines += u64::from(a[i] == b'\n');
        i += 1;
    }
    (i, newlines)
}

/// Number of `\n` bytes in `bytes`.
#[inline]
fn count_newlines(bytes: &[u8]) -> u64 {
    if bytes.len() < 64 {
        bytes.iter().map(|&b| u64::from(b == b'\n')).sum()
    } else {
        count_newlines_long(bytes)
    }
}

/// [`count_newlines`] for long slices: byte counters in 32 lanes, flushed every 255 rounds.
#[inline(never)]
fn count_newlines_long(bytes: &[u8]) -> u64 {
    let mut total = 0u64;
    for block in bytes.chunks(255 * 32) {
        let mut lanes = [0u8; 32];
        let mut iter = block.chunks_exact(32);
        for chunk in &mut iter {
            for (lane, &b) in lanes.iter_mut().zip(chunk) {
                *lane += u8::from(b == b'\n');
            }
        }
        total += lanes.iter().map(|&l| u64::from(l)).sum::<u64>();
        total += iter.remainder().iter().filter(|&&b| b == b'\n').count() as u64;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefix_finds_the_first_mismatch() {
        let a: Vec<u8> = (0..1000u32)
            .map(|i| if i % 10 == 0 { b'\n' } else { b'7' })
            .collect();
        let mut b = a.clone();
        assert_eq!(common_prefix(&a, &b), (1000, 100));
        for at in [999, 700, 129, 31, 5] {
            b[at] = 8;
            assert_eq!(
                common_prefix(&a, &b),
                (at, at.div_ceil(10) as u64),
                "at {at}"
            );
        }
        b[0] = 8;
        assert_eq!(common_prefix(&a, &b), (0, 0));
        assert_eq!(common_prefix(b"", b""), (0, 0));
        assert_eq!(common_prefix(b"ab\n", b"ab"), (2, 0));
    }

    #[test]
    fn count_newlines_matches_a_plain_count() {
        let bytes: Vec<u8> = (0..20_000u32)
            .map(|i| if i % 3 == 0 { b'\n' } else { b'x' })
            .collect();
        for len in [0, 1, 31, 32, 33, 8160, 8161, 20_000] {
            let want = bytes[..len].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(count_newlines(&bytes[..len]), want, "len {len}");
        }
    }
}
