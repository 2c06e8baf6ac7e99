//! `constants` of `problem.yaml` (2025-09 "Constants"): `{{name}}` and `{{name.variant}}` in
//! the validators, included files, example submissions and `test_group.yaml` files replaced by
//! the constant's value (or that variant); a sequence naming no constant is left as it is.
//! Test data and `problem.yaml` itself are not touched, as the format says.

use crate::PackageError;
use std::borrow::Cow;
use std::path::Path;
use verdict_contracts::Program;
use yaml_serde::Value;

/// The problem's constants: each `name` and `name.variant` with its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Constants(Vec<(String, String)>);

/// A constant's name: `[a-zA-Z_][a-zA-Z0-9_]*`.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A scalar's text as the package wrote it: `5`, `10.0`, `1+2^2`.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(match n.as_f64() {
            // A float that YAML read from `10.0` prints as `10.0`, not `10`.
            Some(f) if n.is_f64() && f.is_finite() && f.fract() == 0.0 => format!("{f:.1}"),
            _ => n.to_string(),
        }),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Constants {
    /// Reads `constants` of `problem.yaml` (`path`, for errors): a map of names to a scalar, or
    /// to a map with `value` and variant keys.
    pub(crate) fn read(path: &Path, v: Option<&Value>) -> Result<Constants, PackageError> {
        let Some(v) = v else {
            return Ok(Constants::default());
        };
        let Some(map) = v.as_mapping() else {
            return Err(PackageError::invalid(
                path,
                "constants",
                "expected a mapping",
            ));
        };
        let mut out = Vec::new();
        for (name, value) in map {
            let name = name.as_str().unwrap_or_default();
            let at = format!("constants.{name}");
            if !is_name(name) {
                return Err(PackageError::invalid(
                    path,
                    &at,
                    "a constant's name is [a-zA-Z_][a-zA-Z0-9_]*",
                ));
            }
            if let Some(text) = scalar(value) {
                out.push((name.to_owned(), text));
                continue;
            }
            let Some(variants) = value.as_mapping() else {
                return Err(PackageError::invalid(
                    path,
                    &at,
                    "expected a scalar or a mapping",
                ));
            };
            let mut has_value = false;
            for (variant, text) in variants {
                let variant = variant.as_str().unwrap_or_default();
                let Some(text) = scalar(text) else {
                    return Err(PackageError::invalid(
                        path,
                        &format!("{at}.{variant}"),
                        "expected an integer, a float or a string",
                    ));
                };
                if variant == "value" {
                    has_value = true;
                    out.push((name.to_owned(), text.clone()));
                }
                out.push((format!("{name}.{variant}"), text));
            }
            if !has_value {
                return Err(PackageError::invalid(
                    path,
                    &at,
                    "a map needs its value key",
                ));
            }
        }
        Ok(Constants(out))
    }

    /// `text` with every `{{name}}` / `{{name.variant}}` of a known constant replaced.
    pub(crate) fn replace<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.0.is_empty() || !text.contains("{{") {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find("{{") {
            out.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let known = after.find("}}").and_then(|close| {
                let key = &after[..close];
                self.0
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| (v, close))
            });
            match known {
                Some((value, close)) => {
                    out.push_str(value);
                    rest = &after[close + 2..];
                }
                None => {
                    out.push_str("{{");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Cow::Owned(out)
    }

    /// Replaces the constants in every file of `program`.
    pub(crate) fn apply(&self, program: &mut Program) {
        if self.0.is_empty() {
            return;
        }
        let Program::SourceCode(source) = program;
        for asset in source
            .source_files
            .iter_mut()
            .chain(&mut source.assist_files)
        {
            if let Some(text) = asset.text.as_mut()
                && let Cow::Owned(replaced) = self.replace(text)
            {
                *text = replaced;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_constants_and_variants_are_replaced_and_others_left() {
        let yaml: Value = yaml_serde::from_str(
            "FIVE:\n  value: 5\n  ROMAN: V\nSIX: 6\nFLOAT:\n  value: 10.0\n  GERMAN: \"10,0\"\n",
        )
        .expect("yaml");
        let c = Constants::read(Path::new("problem.yaml"), Some(&yaml)).expect("reads");
        assert_eq!(
            c.replace("{{FIVE}} {{FIVE.value}} {{FIVE.ROMAN}} {{SIX}} {{FLOAT}} {{FLOAT.GERMAN}}"),
            "5 5 V 6 10.0 10,0"
        );
        assert_eq!(
            c.replace("{{SEVEN}} {{ FIVE }} {{FIVE"),
            "{{SEVEN}} {{ FIVE }} {{FIVE"
        );
        let bad: Value = yaml_serde::from_str("1x: 3\n").expect("yaml");
        let err = Constants::read(Path::new("problem.yaml"), Some(&bad)).expect_err("refused");
        assert!(err.to_string().contains("constants.1x"), "{err}");
    }
}
