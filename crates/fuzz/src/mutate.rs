//! Byte-level mutations of corpus inputs, biased towards what breaks parsers: numbers that are
//! huge, negative or at a type's edge, deep nesting, cut tokens, and pieces of other inputs.

use crate::rng::Rng;

/// Numbers that sit at the edges parsers get wrong (sizes, indexes, widths, floats).
const INTERESTING_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "100000000",
    "1e308",
    "1e999",
    "-0",
    "0.5",
    "NaN",
    "340282366920938463463374607431768211456",
];

/// Fragments that shift a parser into its rarer paths.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "false",
    "\\u0000",
    "\\ud800",
    "\u{feff}",
    "[100000000]",
    "[18446744073709551615]",
    ".a",
    "..",
    "/",
    "../",
    "\n",
    "\r\n",
    "\t",
    " ",
    "<",
    ">",
    "</",
    "<!--",
    "]]>",
    "<![CDATA[",
    "&amp;",
    "&#0;",
    "&#x110000;",
    "=",
    "'",
    "#",
    "\\",
    "\0",
    "%",
    "~",
    "@",
    "\u{10ffff}",
    "é",
];

/// Applies one to four random mutations to `input`; `others` are other corpus inputs to splice.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    let rounds = 1 + rng.below(4);
    for _ in 0..rounds {
        mutate_once(rng, &mut out, others);
    }
    out
}

fn mutate_once(rng: &mut Rng, out: &mut Vec<u8>, others: &[Vec<u8>]) {
    match rng.below(10) {
        0 if !out.is_empty() => {
            let i = rng.below(out.len());
            out[i] ^= 1 << rng.below(8);
        }
        1 if !out.is_empty() => {
            let i = rng.below(out.len());
            out[i] = *rng.pick(&[0u8, 0x7f, 0x80, 0xff, b'9', b'-', b'"', b'\\']);
        }
        2 if !out.is_empty() => {
            // Delete a range.
            let start = rng.below(out.len());
            let len = 1 + rng.below((out.len() - start).min(64));
            out.drain(start..start + len);
        }
        3 => {
            let at = rng.below(out.len() + 1);
            let token = rng.pick(TOKENS).as_bytes();
            out.splice(at..at, token.iter().copied());
        }
        4 => replace_number(rng, out),
        5 if !out.is_empty() => {
            // Duplicate a range (repeated keys, repeated elements).
            let start = rng.below(out.len());
            let len = 1 + rng.below((out.len() - start).min(256));
            let piece = out[start..start + len].to_vec();
            let at = rng.below(out.len() + 1);
            out.splice(at..at, piece);
        }
        6 if !others.is_empty() => {
            // Splice a piece of another input.
            let other = rng.pick(others);
            if !other.is_empty() {
                let start = rng.below(other.len());
                let len = 1 + rng.below((other.len() - start).min(512));
                let at = rng.below(out.len() + 1);
                out.splice(at..at, other[start..start + len].iter().copied());
            }
        }
        7 => {
            // Deep nesting at one spot.
            let depth = 1 + rng.below(4000);
            let (open, close) = *rng.pick(&[("[", "]"), ("{\"a\":", "}"), ("<a>", "</a>")]);
            let at = rng.below(out.len() + 1);
            let mut piece = open.repeat(depth);
            if rng.one_in(2) {
                piece.push_str(&close.repeat(depth));
            }
            out.splice(at..at, piece.into_bytes());
        }
        8 if !out.is_empty() => {
            // Truncate.
            out.truncate(rng.below(out.len()));
        }
        _ => {
            let at = rng.below(out.len() + 1);
            let byte = rng.next_u64() as u8;
            out.insert(at, byte);
        }
    }
}

/// Replaces one run of ASCII digits (with its sign) by an interesting number.
fn replace_number(rng: &mut Rng, out: &mut Vec<u8>) {
    let runs: Vec<(usize, usize)> = digit_runs(out);
    let number = rng.pick(INTERESTING_NUMBERS).as_bytes();
    if runs.is_empty() {
        let at = rng.below(out.len() + 1);
        out.splice(at..at, number.iter().copied());
        return;
    }
    let (start, end) = *rng.pick(&runs);
    out.splice(start..end, number.iter().copied());
}

fn digit_runs(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = if i > 0 && bytes[i - 1] == b'-' {
                i - 1
            } else {
                i
            };
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_runs_include_the_sign() {
        assert_eq!(digit_runs(b"a-12 b 3"), vec![(1, 4), (7, 8)]);
    }

    #[test]
    fn mutations_change_inputs_and_handle_empty_ones() {
        let mut rng = Rng::new(3);
        let input = br#"{"a": 12, "b": [1, 2]}"#;
        let changed = (0..200)
            .filter(|_| mutate(&mut rng, input, &[]) != input)
            .count();
        assert!(changed > 150, "{changed}");
        for _ in 0..200 {
            let _ = mutate(&mut rng, b"", &[b"xyz".to_vec()]);
        }
    }
}
