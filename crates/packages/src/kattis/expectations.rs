//! `submissions/submissions.yaml` (2025-09 "Example submissions"): what each reference must
//! get besides its directory's claim. Its keys are globs of submissions (`accepted/*.py`,
//! `wrong_answer/{a,b}.cc`); under each, `permitted`, `required`, `score`, `message` and
//! `use_for_time_limit` over every test case, and the same under a test-data glob
//! (`secret/group1`, `secret/*-hard`). What verdict cannot check is refused naming the key.

use crate::PackageError;
use crate::problem::{Expected, Requirement, TimeLimitUse};
use std::path::Path;
use yaml_serde::Value;

/// The verdicts `permitted` and `required` name.
const VERDICTS: [&str; 4] = ["AC", "WA", "TLE", "RTE"];

/// Keys that describe a submission and change nothing judged.
const IGNORED: [&str; 2] = ["authors", "model_solution"];

/// Every (submission glob, requirement) of the file.
pub(crate) fn read(path: &Path, v: &Value) -> Result<Vec<(String, Requirement)>, PackageError> {
    let Some(map) = v.as_mapping() else {
        return Err(PackageError::invalid(path, "", "expected a mapping"));
    };
    let mut out = Vec::new();
    for (glob, body) in map {
        let Some(glob) = glob.as_str() else {
            return Err(PackageError::invalid(
                path,
                "",
                "a key that is not a string",
            ));
        };
        let Some(body) = body.as_mapping() else {
            return Err(PackageError::invalid(path, glob, "expected a mapping"));
        };
        let mut top = requirement(glob.to_owned(), None);
        for (key, value) in body {
            let key = key.as_str().unwrap_or_default();
            let at = format!("{glob}.{key}");
            match key {
                k if IGNORED.contains(&k) => {}
                "permitted" | "required" | "score" | "message" | "use_for_time_limit" => {
                    set(path, &at, &mut top, key, value)?;
                }
                "language" | "entrypoint" => {
                    // Read by `program_settings`.
                    if value.as_str().is_none() {
                        return Err(PackageError::invalid(path, &at, "expected a string"));
                    }
                }
                cases => {
                    let Some(scoped) = value.as_mapping() else {
                        return Err(PackageError::invalid(path, &at, "expected a mapping"));
                    };
                    let mut r = requirement(format!("{glob}: {cases}"), Some(cases.to_owned()));
                    for (k, v) in scoped {
                        let k = k.as_str().unwrap_or_default();
                        let at = format!("{at}.{k}");
                        match k {
                            "permitted" | "required" | "score" | "message"
                            | "use_for_time_limit" => {
                                set(path, &at, &mut r, k, v)?;
                            }
                            _ => {
                                return Err(PackageError::unsupported(
                                    path,
                                    &at,
                                    "not a requirement verdict checks",
                                ));
                            }
                        }
                    }
                    out.push((glob.to_owned(), r));
                }
            }
        }
        // On a default directory's own name: its claim replaced, what is not set inherited.
        if let Some(dir) = Expected::from_dir(glob)
            && (top.permitted.is_some()
                || top.required.is_some()
                || top.use_for_time_limit.is_some())
        {
            let (permitted, required) = dir.default_rule();
            let words = |w: &[&str]| w.iter().map(|v| (*v).to_owned()).collect();
            top.permitted = top.permitted.or_else(|| permitted.map(words));
            top.required = top.required.or_else(|| required.map(words));
            top.replaces_directory = true;
        }
        if top.reads_every_case() || top.score.is_some() {
            out.push((glob.to_owned(), top));
        }
    }
    Ok(out)
}

/// How a reference's program is read, by submission glob: its `language` (a code of the
/// format's language table) and `entrypoint`, as `submissions.yaml` gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProgramSettings {
    /// The submission glob.
    pub glob: String,
    /// `language`.
    pub language: Option<String>,
    /// `entrypoint`.
    pub entrypoint: Option<String>,
}

/// Every glob's `language` and `entrypoint` (a file [`read`] accepted).
pub(crate) fn program_settings(v: &Value) -> Vec<ProgramSettings> {
    let Some(map) = v.as_mapping() else {
        return Vec::new();
    };
    map.iter()
        .filter_map(|(glob, body)| {
            let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_owned);
            let settings = ProgramSettings {
                glob: glob.as_str()?.to_owned(),
                language: text("language"),
                entrypoint: text("entrypoint"),
            };
            (settings.language.is_some() || settings.entrypoint.is_some()).then_some(settings)
        })
        .collect()
}

/// DOMjudge's results, as the verdicts `permitted` and `required` name (`CE`: a compile
/// error, which DOMjudge's annotations may allow).
const DOMJUDGE_RESULTS: [(&str, &str); 8] = [
    ("CORRECT", "AC"),
    ("WRONG-ANSWER", "WA"),
    ("NO-OUTPUT", "WA"),
    ("TIMELIMIT", "TLE"),
    ("RUN-ERROR", "RTE"),
    ("MEMORY-LIMIT", "RTE"),
    ("OUTPUT-LIMIT", "RTE"),
    ("COMPILER-ERROR", "CE"),
];

/// The requirement DOMjudge's `@EXPECTED_RESULTS@: R1, R2, ...` annotation (`line`, the text
/// after the tag) puts on the reference `name`, as DOMjudge and BAPCtools read it: its final
/// verdict is one of them, and every test case is accepted or gets one of them (so lazy
/// judging cannot change what it gets). So `permitted` is the results and `AC`, and when
/// `CORRECT` is not among them, `required` is the results (at least one test case fails as
/// one of them). It replaces the claim of the directory the reference is in. `Err` names a
/// result DOMjudge does not have.
pub(crate) fn domjudge_expected_results(name: &str, line: &str) -> Result<Requirement, String> {
    let shown = line.trim().trim_end_matches("*/").trim_end();
    let mut results: Vec<String> = Vec::new();
    for word in shown.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let Some((_, verdict)) = DOMJUDGE_RESULTS
            .iter()
            .find(|(r, _)| r.eq_ignore_ascii_case(word))
        else {
            let known: Vec<&str> = DOMJUDGE_RESULTS.iter().map(|(r, _)| *r).collect();
            return Err(format!(
                "{name}: @EXPECTED_RESULTS@: {word:?} is not one of DOMjudge's results ({})",
                known.join(", ")
            ));
        };
        if !results.iter().any(|r| r == verdict) {
            results.push((*verdict).to_owned());
        }
    }
    if results.is_empty() {
        return Err(format!("{name}: @EXPECTED_RESULTS@: names no result"));
    }
    let mut r = requirement(format!("{name}: @EXPECTED_RESULTS@: {shown}"), None);
    let correct = results.iter().any(|v| v == "AC");
    let mut permitted = results.clone();
    if !correct {
        permitted.insert(0, "AC".to_owned());
        r.required = Some(results);
    }
    r.permitted = Some(permitted);
    r.replaces_directory = true;
    Ok(r)
}

fn requirement(source: String, cases: Option<String>) -> Requirement {
    Requirement {
        source,
        cases,
        permitted: None,
        required: None,
        score: None,
        message: None,
        replaces_directory: false,
        use_for_time_limit: None,
    }
}

fn set(
    path: &Path,
    at: &str,
    r: &mut Requirement,
    key: &str,
    v: &Value,
) -> Result<(), PackageError> {
    let number = |v: &Value| v.as_f64().filter(|x| x.is_finite());
    match key {
        "use_for_time_limit" => {
            // `true` is the default: as `permitted` and `required` make it.
            r.use_for_time_limit = match v {
                Value::Bool(true) => None,
                Value::Bool(false) => Some(TimeLimitUse::Not),
                Value::String(s) if s == "lower" => Some(TimeLimitUse::Lower),
                Value::String(s) if s == "upper" => Some(TimeLimitUse::Upper),
                _ => {
                    return Err(PackageError::invalid(
                        path,
                        at,
                        "expected false, true, \"lower\" or \"upper\"",
                    ));
                }
            };
        }
        "message" => match v.as_str() {
            Some(text) => r.message = Some(text.to_owned()),
            None => return Err(PackageError::invalid(path, at, "expected a string")),
        },
        "score" => {
            r.score = Some(match v {
                Value::Sequence(items) => match items.as_slice() {
                    [lo, hi] => match (number(lo), number(hi)) {
                        (Some(lo), Some(hi)) if lo <= hi => (lo, hi),
                        _ => return Err(PackageError::invalid(path, at, "expected [low, high]")),
                    },
                    _ => return Err(PackageError::invalid(path, at, "expected [low, high]")),
                },
                other => match number(other) {
                    Some(x) => (x, x),
                    None => {
                        return Err(PackageError::invalid(
                            path,
                            at,
                            "expected a number or [low, high]",
                        ));
                    }
                },
            });
        }
        _ => {
            let words: Vec<String> = match v {
                Value::Sequence(items) => items
                    .iter()
                    .map(|i| i.as_str().unwrap_or_default().trim().to_owned())
                    .collect(),
                Value::String(s) => vec![s.trim().to_owned()],
                _ => {
                    return Err(PackageError::invalid(
                        path,
                        at,
                        "expected a list of verdicts",
                    ));
                }
            };
            if let Some(bad) = words.iter().find(|w| !VERDICTS.contains(&w.as_str())) {
                return Err(PackageError::invalid(
                    path,
                    at,
                    format!("{bad:?} is not one of AC, WA, TLE, RTE"),
                ));
            }
            if key == "permitted" {
                r.permitted = Some(words);
            } else {
                r.required = Some(words);
            }
        }
    }
    Ok(())
}

/// Brace expansion: `a.{py,cc}` is `a.py` and `a.cc` (nested and several braces too); space
/// around an alternative is not part of it (`{ 4 }` is `4`, as BAPCtools reads it).
fn expand(glob: &str) -> Vec<String> {
    let Some(open) = glob.find('{') else {
        return vec![glob.to_owned()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut parts = Vec::new();
    let mut start = open + 1;
    for (i, c) in glob.char_indices().skip_while(|(i, _)| *i <= open) {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                parts.push(glob[start..i].trim());
                close = Some(i);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(glob[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![glob.to_owned()];
    };
    let (head, tail) = (&glob[..open], &glob[close + 1..]);
    parts
        .into_iter()
        .flat_map(|p| expand(&format!("{head}{p}{tail}")))
        .collect()
}

/// `*` matches any run of characters within one name.
fn segment(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(after) = name.strip_prefix(head) else {
                return false;
            };
            (0..=after.len())
                .filter(|&i| after.is_char_boundary(i))
                .any(|i| segment(rest, &after[i..]))
        }
    }
}

/// Whether `glob` matches `name` (a path under `submissions/` or `data/`) or a directory
/// above it, as the format says.
pub(crate) fn matches(glob: &str, name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    expand(glob).iter().any(|g| {
        let pattern: Vec<&str> = g.split('/').collect();
        pattern.len() <= parts.len() && pattern.iter().zip(&parts).all(|(p, n)| segment(p, n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domjudge_expected_results_become_permitted_and_required_verdicts() {
        let r = domjudge_expected_results("m/a.c", " CORRECT, NO-OUTPUT\n").expect("reads");
        assert_eq!(r.permitted, Some(vec!["AC".to_owned(), "WA".to_owned()]));
        assert_eq!(r.required, None);
        assert!(r.replaces_directory);
        assert_eq!(r.source, "m/a.c: @EXPECTED_RESULTS@: CORRECT, NO-OUTPUT");
        let r = domjudge_expected_results("m/b.c", "run-error,TIMELIMIT */").expect("reads");
        let words = |w: &[&str]| Some(w.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>());
        assert_eq!(r.permitted, words(&["AC", "RTE", "TLE"]));
        assert_eq!(r.required, words(&["RTE", "TLE"]));
        let r = domjudge_expected_results("m/c.c", "COMPILER-ERROR, RUN-ERROR").expect("reads");
        assert_eq!(r.required, words(&["CE", "RTE"]));
        let err = domjudge_expected_results("m/d.c", "CORRECT, SLOW").expect_err("unknown");
        assert!(
            err.contains("\"SLOW\" is not one of DOMjudge's results"),
            "{err}"
        );
        assert!(domjudge_expected_results("m/e.c", " ").is_err());
    }

    #[test]
    fn globs_match_within_a_name_a_path_or_its_directories_with_braces() {
        assert!(matches("accepted", "accepted/a.py"));
        assert!(matches("accepted/*", "accepted/a.py"));
        assert!(matches("accepted/*.py", "accepted/a.py"));
        assert!(!matches("accepted/*.py", "accepted/a.cc"));
        assert!(matches("expansion/ac.{py,cpp}", "expansion/ac.cpp"));
        assert!(!matches("*/nested.py", "a/b/nested.py"));
        assert!(matches("secret/*{1,3}", "secret/13"));
        assert!(!matches("secret/*{1,3}", "secret/12"));
        assert!(matches("secret/*{,0,1}{0,2}", "secret/12"));
        assert!(matches("secret/*{,0,1}{0,2}", "secret/2"));
        assert!(!matches("match/match", "match/match_wa"));
        assert!(matches("secret/*{ 4 }{ 2 }", "secret/42"));
    }
}
