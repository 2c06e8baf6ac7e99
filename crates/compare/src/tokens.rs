//! Comparing a program's stdout with the expected output, outside the box.
//!
//! The rule LiveCodeBench's stdio grader applies: both texts are stripped of surrounding
//! whitespace and split into lines; the line counts must match, and each pair of lines must be
//! equal once stripped, or else hold the same number of whitespace-separated tokens that are
//! equal as text or, both parsing as finite numbers, equal as numbers (`1.0` and `1`).

/// Whether `got` matches `expected` by the module's rule.
pub fn outputs_match(got: &str, expected: &str) -> bool {
    let got: Vec<&str> = got.trim().lines().collect();
    let expected: Vec<&str> = expected.trim().lines().collect();
    got.len() == expected.len()
        && got
            .iter()
            .zip(&expected)
            .all(|(g, e)| lines_match(g.trim(), e.trim()))
}

fn lines_match(got: &str, expected: &str) -> bool {
    if got == expected {
        return true;
    }
    let g: Vec<&str> = got.split_whitespace().collect();
    let e: Vec<&str> = expected.split_whitespace().collect();
    g.len() == e.len()
        && g.iter().zip(&e).all(|(a, b)| {
            a == b
                || matches!((a.parse::<f64>(), b.parse::<f64>()),
                    (Ok(x), Ok(y)) if x.is_finite() && y.is_finite() && x == y)
        })
}

/// Where `got` first differs from `expected`, for messages: `line N: got "..", expected ".."`.
pub fn first_difference(got: &str, expected: &str) -> String {
    let got: Vec<&str> = got.trim().lines().collect();
    let expected: Vec<&str> = expected.trim().lines().collect();
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        if !lines_match(g.trim(), e.trim()) {
            return format!(
                "line {}: got {:?}, expected {:?}",
                i + 1,
                clip(g.trim()),
                clip(e.trim())
            );
        }
    }
    format!("{} lines, expected {}", got.len(), expected.len())
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surrounding_whitespace_and_line_ends_do_not_count() {
        assert!(outputs_match("1 2\r\n3\n\n", "  1 2\n3"));
        assert!(outputs_match("1  2\n", "1 2\n"));
    }

    #[test]
    fn numbers_compare_by_value_and_counts_must_match() {
        assert!(outputs_match("1.0 2\n", "1 2.00\n"));
        assert!(!outputs_match("1\n2\n", "1\n"));
        assert!(!outputs_match("12\n", "1 2\n"));
        assert!(!outputs_match("nan\n", "NaN\n"));
        assert_eq!(
            first_difference("1\n3\n", "1\n2\n"),
            "line 2: got \"3\", expected \"2\""
        );
    }
}
