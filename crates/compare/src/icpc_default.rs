//! The ICPC / Kattis problem package format's default output validator, built in
//! (`compare_script: "icpc-default"`, docs/interactive.md): token by token, with the format's
//! flags:
//!
//! - `case_sensitive`: tokens compare with case (default: ASCII case is ignored);
//! - `space_change_sensitive`: the white space between tokens must be the same bytes (default:
//!   any run of white space, including none at the ends, separates tokens alike);
//! - `float_absolute_tolerance E`, `float_relative_tolerance E`, `float_tolerance E` (both):
//!   where the answer's token is a number, the program's token must be one too and is accepted
//!   when within either tolerance (`|a - b| <= E_abs` or `|a - b| <= E_rel * |answer|`).
//!
//! Streams both files with bounded memory: a token (or, when space counts, a run of white space)
//! longer than [`TOKEN_MAX`] in the program's output is wrong; in the answer, a Compare Error.

use crate::error::CompareError;
use crate::verdict::{CompareOutcome, CompareVerdict, escape_bytes};
use std::io::{BufRead, BufReader, Read};

/// The longest token compared.
pub const TOKEN_MAX: usize = 1 << 20;

/// The default validator with its flags.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DefaultValidator {
    /// Compare tokens with case.
    pub case_sensitive: bool,
    /// White space must match byte for byte.
    pub space_change_sensitive: bool,
    /// Absolute tolerance for numbers.
    pub float_absolute_tolerance: Option<f64>,
    /// Relative tolerance for numbers.
    pub float_relative_tolerance: Option<f64>,
}

impl DefaultValidator {
    /// Reads the format's flags (`output_validator_flags` / `validator_flags`); an unknown flag
    /// or a bad tolerance is an error naming it.
    pub fn from_flags(flags: &[String]) -> Result<DefaultValidator, String> {
        let mut v = DefaultValidator::default();
        let mut it = flags.iter();
        while let Some(flag) = it.next() {
            let mut tolerance = || -> Result<f64, String> {
                let value = it
                    .next()
                    .ok_or_else(|| format!("validator flag {flag} needs a value"))?;
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .ok_or_else(|| format!("validator flag {flag}: bad tolerance {value:?}"))
            };
            match flag.as_str() {
                "case_sensitive" => v.case_sensitive = true,
                "space_change_sensitive" => v.space_change_sensitive = true,
                "float_absolute_tolerance" => v.float_absolute_tolerance = Some(tolerance()?),
                "float_relative_tolerance" => v.float_relative_tolerance = Some(tolerance()?),
                "float_tolerance" => {
                    let t = tolerance()?;
                    v.float_absolute_tolerance = Some(t);
                    v.float_relative_tolerance = Some(t);
                }
                other => return Err(format!("unknown default validator flag {other:?}")),
            }
        }
        Ok(v)
    }

    /// Compares the program's output with the answer.
    pub fn compare_readers<O: Read, A: Read>(
        &self,
        output: O,
        answer: A,
    ) -> Result<CompareOutcome, CompareError> {
        let mut team = Tokens::new(output, "program output");
        let mut judge = Tokens::new(answer, "expected answer");
        let mut index = 0u64;
        loop {
            let (j_space, j) = judge.next()?;
            let (t_space, t) = team.next()?;
            if self.space_change_sensitive && j_space != t_space {
                return Ok(wrong(format!(
                    "white space differs before token {}: expected \"{}\", got \"{}\"",
                    index + 1,
                    escape_bytes(&j_space.unwrap_or_default()),
                    escape_bytes(&t_space.unwrap_or_default())
                )));
            }
            index += 1;
            match (j, t) {
                (None, None) => return Ok(CompareOutcome::new(CompareVerdict::Accepted, "")),
                (None, Some(t)) => {
                    return Ok(wrong(format!(
                        "trailing output: token {index} \"{}\"",
                        shown(&t)
                    )));
                }
                (Some(j), None) => {
                    return Ok(wrong(format!(
                        "the output ended at token {index}, expected \"{}\"",
                        shown(&j)
                    )));
                }
                (Some(Token::Long), _) => {
                    return Ok(CompareOutcome::compare_error(format!(
                        "the answer's token {index} is longer than {TOKEN_MAX} bytes"
                    )));
                }
                (Some(j), Some(t)) => {
                    if let Some(message) = self.differ(&j, &t) {
                        return Ok(wrong(format!("token {index}: {message}")));
                    }
                }
            }
        }
    }

    /// Why two tokens differ, or `None`.
    fn differ(&self, judge: &Token, team: &Token) -> Option<String> {
        let (Token::Bytes(j), Token::Bytes(t)) = (judge, team) else {
            return Some(format!(
                "expected \"{}\", got a token over {TOKEN_MAX} bytes",
                shown(judge)
            ));
        };
        let tolerant =
            self.float_absolute_tolerance.is_some() || self.float_relative_tolerance.is_some();
        if tolerant && let Some(jv) = number(j) {
            let Some(tv) = number(t) else {
                return Some(format!(
                    "expected a number near {}, got \"{}\"",
                    escape_bytes(j),
                    shown(team)
                ));
            };
            let diff = (jv - tv).abs();
            let abs_ok = self.float_absolute_tolerance.is_some_and(|e| diff <= e);
            let rel_ok = self
                .float_relative_tolerance
                .is_some_and(|e| diff <= e * jv.abs());
            return (!(abs_ok || rel_ok)).then(|| {
                format!(
                    "expected {}, got {} (difference {diff:e})",
                    escape_bytes(j),
                    escape_bytes(t)
                )
            });
        }
        let same = if self.case_sensitive {
            j == t
        } else {
            j.eq_ignore_ascii_case(t)
        };
        (!same).then(|| format!("expected \"{}\", got \"{}\"", shown(judge), shown(team)))
    }
}

fn wrong(message: String) -> CompareOutcome {
    CompareOutcome::new(CompareVerdict::WrongAnswer, message)
}

/// A token's text as it is shown (cut to 64 bytes).
fn shown(token: &Token) -> String {
    match token {
        Token::Bytes(b) if b.len() > 64 => format!("{}…", escape_bytes(&b[..64])),
        Token::Bytes(b) => escape_bytes(b),
        Token::Long => "<a token over 1 MiB>".to_owned(),
    }
}

/// A number as the format reads one (`strtod` over the whole token: decimal, exponent,
/// `inf`/`nan` excluded).
fn number(token: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(token).ok()?;
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A token, or the mark of one too long to hold.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Bytes(Vec<u8>),
    Long,
}

/// White-space separated tokens of a stream, each with the white space before it (`None`
/// when that was over [`TOKEN_MAX`]); at the end, the trailing white space and no token.
struct Tokens<R: Read> {
    reader: BufReader<R>,
    side: &'static str,
}

impl<R: Read> Tokens<R> {
    fn new(reader: R, side: &'static str) -> Self {
        Tokens {
            reader: BufReader::with_capacity(crate::builtin::CHUNK_SIZE, reader),
            side,
        }
    }

    /// Reads bytes while `keep` holds, into a buffer of at most [`TOKEN_MAX`] (`None` past it).
    fn take_while(&mut self, keep: impl Fn(u8) -> bool) -> Result<Option<Vec<u8>>, CompareError> {
        let mut out = Some(Vec::new());
        loop {
            let buf = self
                .reader
                .fill_buf()
                .map_err(|source| CompareError::Read {
                    side: self.side,
                    source,
                })?;
            if buf.is_empty() {
                return Ok(out);
            }
            let n = buf.iter().position(|&b| !keep(b)).unwrap_or(buf.len());
            if let Some(o) = out.as_mut() {
                if o.len() + n > TOKEN_MAX {
                    out = None;
                } else {
                    o.extend_from_slice(&buf[..n]);
                }
            }
            let done = n < buf.len();
            self.reader.consume(n);
            if done {
                return Ok(out);
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn next(&mut self) -> Result<(Option<Vec<u8>>, Option<Token>), CompareError> {
        let space = self.take_while(|b| b.is_ascii_whitespace())?;
        let token = self.take_while(|b| !b.is_ascii_whitespace())?;
        let token = match token {
            Some(t) if t.is_empty() => None,
            Some(t) => Some(Token::Bytes(t)),
            None => Some(Token::Long),
        };
        Ok((space, token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(flags: &[&str], team: &str, judge: &str) -> CompareVerdict {
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        DefaultValidator::from_flags(&flags)
            .expect("flags")
            .compare_readers(team.as_bytes(), judge.as_bytes())
            .expect("compare")
            .verdict
    }

    const AC: CompareVerdict = CompareVerdict::Accepted;
    const WA: CompareVerdict = CompareVerdict::WrongAnswer;

    #[test]
    fn white_space_and_case_are_ignored_by_default() {
        assert_eq!(check(&[], "  Hello\n\n World  ", "hello world\n"), AC);
        assert_eq!(check(&[], "hello", "hello world"), WA);
        assert_eq!(check(&[], "hello world x", "hello world"), WA);
        assert_eq!(check(&["case_sensitive"], "Hello", "hello"), WA);
        assert_eq!(check(&["case_sensitive"], "hello", "hello"), AC);
    }

    #[test]
    fn space_change_sensitive_compares_white_space_byte_for_byte() {
        let flag = ["space_change_sensitive"];
        assert_eq!(check(&flag, "a b\n", "a b\n"), AC);
        assert_eq!(check(&flag, "a  b\n", "a b\n"), WA);
        assert_eq!(check(&flag, "a b", "a b\n"), WA);
        assert_eq!(check(&flag, " a b\n", "a b\n"), WA);
    }

    #[test]
    fn numbers_within_either_tolerance_are_accepted() {
        let abs = ["float_absolute_tolerance", "1e-6"];
        assert_eq!(check(&abs, "1.0000005", "1"), AC);
        assert_eq!(check(&abs, "1.00001", "1"), WA);
        assert_eq!(check(&abs, "one", "1"), WA);
        let rel = ["float_relative_tolerance", "1e-3"];
        assert_eq!(check(&rel, "1000.5", "1000"), AC);
        assert_eq!(check(&rel, "1.5", "1"), WA);
        let both = ["float_tolerance", "1e-2"];
        assert_eq!(check(&both, "100.9 0.005", "100 0"), AC);
        // Tokens of the answer that are not numbers still compare as text.
        assert_eq!(check(&both, "YES 1.001", "yes 1"), AC);
        assert_eq!(check(&both, "NO 1.001", "yes 1"), WA);
        // Without a tolerance, numbers are text.
        assert_eq!(check(&[], "1.0", "1"), WA);
    }

    #[test]
    fn bad_flags_are_refused_by_name() {
        let bad = |flags: &[&str]| {
            let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
            DefaultValidator::from_flags(&flags).expect_err("refused")
        };
        assert!(bad(&["ignore_case"]).contains("ignore_case"));
        assert!(bad(&["float_tolerance"]).contains("needs a value"));
        assert!(bad(&["float_tolerance", "x"]).contains("bad tolerance"));
        assert!(bad(&["float_tolerance", "-1"]).contains("bad tolerance"));
    }

    #[test]
    fn an_overlong_token_of_the_program_is_wrong_in_bounded_memory() {
        let long = "x".repeat(TOKEN_MAX + 10);
        assert_eq!(check(&[], &long, "x"), WA);
        let outcome = DefaultValidator::default()
            .compare_readers("x".as_bytes(), long.as_bytes())
            .expect("compare");
        assert_eq!(outcome.verdict, CompareVerdict::CompareError);
    }
}
