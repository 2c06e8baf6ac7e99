//! A function's return value against `expected`: JSON equality where numbers compare by value
//! (`1 == 1.0`), booleans are not numbers (`true != 1`), tuples arrive as arrays (the harnesses
//! write them so), and floats are equal within a [`FloatTolerance`].
//!
//! Integers are exact across the whole 64-bit range (`i64` and `u64`, so well beyond 2^53):
//! serde_json keeps them as integers. Integer literals beyond 64 bits are read as the nearest
//! `f64` (the workspace does not enable `arbitrary_precision`); two such values compare as exact
//! `f64` equality, never within the tolerance, so the tolerance cannot hide a difference in a
//! big integer, but two integers beyond 2^64 that round to the same `f64` compare equal.

use serde_json::{Number, Value};
use std::fmt::Write as _;
use verdict_contracts::oracle::FloatTolerance;

/// 2^53: above it an `f64` has no fractional part and integers are sparse.
const EXACT_F64_INTEGERS: f64 = 9_007_199_254_740_992.0;
/// How much of a value a difference message shows.
const SHOWN_CHARS: usize = 120;

/// `None` when `got` equals `expected`, else where and how they first differ.
pub fn first_difference(
    got: &Value,
    expected: &Value,
    tolerance: FloatTolerance,
) -> Option<String> {
    let mut path = String::from("$");
    diff(got, expected, tolerance, &mut path)
}

/// Whether `got` equals `expected` under the oracle's rules.
pub fn values_equal(got: &Value, expected: &Value, tolerance: FloatTolerance) -> bool {
    first_difference(got, expected, tolerance).is_none()
}

fn diff(got: &Value, expected: &Value, tol: FloatTolerance, path: &mut String) -> Option<String> {
    match (got, expected) {
        (Value::Null, Value::Null) => None,
        (Value::Bool(a), Value::Bool(b)) if a == b => None,
        (Value::String(a), Value::String(b)) if a == b => None,
        (Value::Number(a), Value::Number(b)) if numbers_equal(a, b, tol) => None,
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!(
                    "at {path}: got a list of {} items, expected {}",
                    a.len(),
                    b.len()
                ));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                let _ = write!(path, "[{i}]");
                let found = diff(x, y, tol, path);
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (Value::Object(a), Value::Object(b)) => {
            if let Some(k) = b.keys().find(|k| !a.contains_key(*k)) {
                return Some(format!("at {path}: missing key {k:?}"));
            }
            if let Some(k) = a.keys().find(|k| !b.contains_key(*k)) {
                return Some(format!("at {path}: unexpected key {k:?}"));
            }
            for (k, y) in b {
                let x = &a[k];
                let len = path.len();
                push_key(path, k);
                let found = diff(x, y, tol, path);
                path.truncate(len);
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ => Some(format!(
            "at {path}: got {}, expected {}",
            shown(got),
            shown(expected)
        )),
    }
}

fn push_key(path: &mut String, key: &str) {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        let _ = write!(path, ".{key}");
    } else {
        let _ = write!(path, "[{key:?}]");
    }
}

fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= SHOWN_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{cut}...")
}

fn exact_integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Numbers by value: integers exactly, big integral floats exactly, other floats within tolerance.
pub fn numbers_equal(a: &Number, b: &Number, tol: FloatTolerance) -> bool {
    if let (Some(x), Some(y)) = (exact_integer(a), exact_integer(b)) {
        return x == y;
    }
    let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
        return false;
    };
    let integral = |v: f64| v.fract() == 0.0 && v.abs() >= EXACT_F64_INTEGERS;
    if integral(x) || integral(y) {
        // Exact: an integer the size of an f64's whole mantissa has no tolerance to speak of.
        return exact_f64_eq(x, y);
    }
    floats_close(x, y, tol)
}

fn exact_f64_eq(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || x == y
}

/// `|x - y| <= max(abs, rel * max(|x|, |y|))`.
pub fn floats_close(x: f64, y: f64, tol: FloatTolerance) -> bool {
    if x == y {
        return true;
    }
    let scale = x.abs().max(y.abs());
    (x - y).abs() <= tol.abs.max(tol.rel * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn eq(a: Value, b: Value) -> bool {
        values_equal(&a, &b, FloatTolerance::default())
    }

    /// A JSON number written out, digits kept as serde_json reads them.
    fn number(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(eq(json!(1), json!(1.0)));
        assert!(eq(json!(0.1 + 0.2), json!(0.3)));
        assert!(!eq(json!(0.3001), json!(0.3)));
        assert!(!eq(json!(1), json!(2)));
        assert!(eq(json!(-5), json!(-5.0)));
    }

    #[test]
    fn booleans_are_not_numbers() {
        assert!(!eq(json!(true), json!(1)));
        assert!(!eq(json!(false), json!(0)));
        assert!(!eq(json!([1, 0]), json!([true, false])));
    }

    #[test]
    fn integers_beyond_two_to_the_53_are_exact() {
        let a = number("9007199254740993");
        let b = number("9007199254740992");
        assert!(!eq(a.clone(), b));
        assert!(eq(a.clone(), a));
        let big = number("18446744073709551615");
        let bigger = number("18446744073709551614");
        assert!(!eq(big, bigger));
        let neg = number("-9223372036854775808");
        assert!(eq(neg.clone(), neg));
    }

    #[test]
    fn huge_integers_get_no_tolerance() {
        // 2^70 and 2^70 + 2^20 are distinct f64 values within a relative 1e-9.
        let a = number("1180591620717411303424");
        let b = number("1180591620717412352000");
        assert!(!eq(a.clone(), b));
        assert!(eq(a.clone(), a));
    }

    #[test]
    fn tolerance_is_configurable() {
        let loose = FloatTolerance {
            rel: 0.0,
            abs: 0.01,
        };
        assert!(values_equal(&json!(1.005), &json!(1.0), loose));
        assert!(!values_equal(&json!(1.02), &json!(1.0), loose));
        let exact = FloatTolerance { rel: 0.0, abs: 0.0 };
        assert!(!values_equal(&json!(0.1 + 0.2), &json!(0.3), exact));
    }

    #[test]
    fn differences_are_located() {
        let got = json!({"count": 3, "items": [1, {"a": "x"}]});
        let expected = json!({"count": 3, "items": [1, {"a": "y"}]});
        assert_eq!(
            first_difference(&got, &expected, FloatTolerance::default()).unwrap(),
            "at $.items[1].a: got \"x\", expected \"y\""
        );
        let d = first_difference(&json!([1]), &json!([1, 2]), FloatTolerance::default()).unwrap();
        assert_eq!(d, "at $: got a list of 1 items, expected 2");
        let d =
            first_difference(&json!({}), &json!({"a b": 1}), FloatTolerance::default()).unwrap();
        assert_eq!(d, "at $: missing key \"a b\"");
        let d = first_difference(&json!({"x": 1}), &json!({}), FloatTolerance::default()).unwrap();
        assert_eq!(d, "at $: unexpected key \"x\"");
    }

    #[test]
    fn strings_nulls_and_nesting() {
        assert!(eq(json!({"名": ["é", null]}), json!({"名": ["é", null]})));
        assert!(!eq(json!(null), json!(0)));
        assert!(!eq(json!("1"), json!(1)));
    }
}
