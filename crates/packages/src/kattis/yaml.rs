//! The YAML files of a package: `problem.yaml` and each group's `testdata.yaml` /
//! `test_group.yaml`, read as values and checked key by key (what changes judging and is not
//! supported is refused, naming the file and key).

use super::constants::Constants;
use crate::PackageError;
use crate::problem::{Aggregation, CaseConfig, Kind, ScoreAggregation, Settings, ValidatorArgs};
use std::path::Path;
use yaml_serde::Value;

/// Reads a YAML file into a value (a missing file is `None`; an empty one, or one of comments
/// only, an empty mapping).
pub(crate) fn read(path: &Path) -> Result<Option<Value>, PackageError> {
    read_with(path, &Constants::default())
}

/// [`read`], the problem's `constants` replaced in the text first (`test_group.yaml`).
pub(crate) fn read_with(path: &Path, constants: &Constants) -> Result<Option<Value>, PackageError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(PackageError::io(path, e)),
    };
    let text = constants.replace(&text);
    if text.trim().is_empty() {
        return Ok(Some(Value::Mapping(Default::default())));
    }
    match yaml_serde::from_str(&text) {
        Ok(Value::Null) => Ok(Some(Value::Mapping(Default::default()))),
        Ok(v) => Ok(Some(v)),
        Err(cause) => Err(PackageError::Yaml {
            path: path.to_owned(),
            cause,
        }),
    }
}

/// The value of `key` in the mapping `v`, if it is one and has it.
pub(crate) fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_mapping().and_then(|m| m.get(key))
}

/// A string, or a list of strings joined by spaces, as words.
fn words(path: &Path, key: &str, v: &Value) -> Result<Vec<String>, PackageError> {
    match v {
        Value::String(s) => Ok(s.split_whitespace().map(str::to_owned).collect()),
        Value::Sequence(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                _ => Err(PackageError::invalid(path, key, "expected strings")),
            })
            .collect(),
        Value::Null => Ok(Vec::new()),
        _ => Err(PackageError::invalid(
            path,
            key,
            "expected a string or a list of strings",
        )),
    }
}

/// `input_validator_args`: a sequence (every validator), or a map of validator names to
/// sequences (2025-09).
fn validator_args(path: &Path, key: &str, v: &Value) -> Result<ValidatorArgs, PackageError> {
    let Some(map) = v.as_mapping() else {
        return Ok(ValidatorArgs::All(words(path, key, v)?));
    };
    let mut named = Vec::new();
    for (name, args) in map {
        let Some(name) = name.as_str() else {
            return Err(PackageError::invalid(
                path,
                key,
                "a validator name that is not a string",
            ));
        };
        named.push((
            name.to_owned(),
            words(path, &format!("{key}.{name}"), args)?,
        ));
    }
    Ok(ValidatorArgs::ByName(named))
}

/// A test case's configuration file (`NAME.yaml`, 2023-07 and later "Test case
/// configuration"); an unknown key is refused, as the format says.
pub(crate) fn case_config(path: &Path, v: &Value) -> Result<CaseConfig, PackageError> {
    let mut config = CaseConfig::default();
    let Some(map) = v.as_mapping() else {
        return Err(PackageError::invalid(path, "", "expected a mapping"));
    };
    for (key, value) in map {
        let key = key.as_str().unwrap_or_default();
        match key {
            "args" => config.args = Some(words(path, key, value)?),
            "output_validator_args" => {
                config.output_validator_args = Some(words(path, key, value)?)
            }
            "input_validator_args" => {
                config.input_validator_args = Some(validator_args(path, key, value)?);
            }
            // Presentation only: nothing to judge by.
            "input_visualizer_args"
            | "output_visualizer_args"
            | "full_feedback"
            | "hint"
            | "description" => {}
            other => {
                return Err(PackageError::unsupported(
                    path,
                    other,
                    "unknown test case key",
                ));
            }
        }
    }
    Ok(config)
}

fn number(path: &Path, key: &str, v: &Value) -> Result<f64, PackageError> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| PackageError::invalid(path, key, "expected a number")),
        Value::String(s) => s
            .trim()
            .parse()
            .map_err(|_| PackageError::invalid(path, key, format!("expected a number, got {s:?}"))),
        _ => Err(PackageError::invalid(path, key, "expected a number")),
    }
}

/// What `problem.yaml` says.
#[derive(Debug, Clone)]
pub(crate) struct ProblemYaml {
    pub format: String,
    pub kind: Kind,
    pub time_limit_ms: Option<u64>,
    pub ac_to_time_limit: f64,
    pub time_limit_to_tle: f64,
    pub time_resolution_ms: u64,
    pub memory_mib: u64,
    pub output_mib: u64,
    /// `validation: custom` (legacy) or an `output_validator(s)` directory is needed.
    pub custom_validation: bool,
    /// Legacy `validator_flags`.
    pub validator_flags: Vec<String>,
    /// `limits.validation_passes` (multi-pass problems; default 2).
    pub validation_passes: u32,
}

/// The format versions read.
const FORMATS: [&str; 4] = ["legacy", "2023-07-draft", "2023-07", "2025-09"];

pub(crate) fn problem_yaml(path: &Path, v: &Value) -> Result<ProblemYaml, PackageError> {
    let format = match get(v, "problem_format_version") {
        None => "legacy".to_owned(),
        Some(Value::String(s)) if FORMATS.contains(&s.as_str()) => s.clone(),
        Some(other) => {
            return Err(PackageError::unsupported(
                path,
                "problem_format_version",
                format!("{other:?} (read: {})", FORMATS.join(", ")),
            ));
        }
    };
    let legacy = format == "legacy";
    let mut kind = Kind::default();
    let mut custom_validation = false;
    if let Some(t) = get(v, "type") {
        for word in words(path, "type", t)? {
            match word.as_str() {
                "pass-fail" => {}
                "scoring" => kind.scoring = true,
                "interactive" => kind.interactive = true,
                "multi-pass" => kind.multi_pass = true,
                "submit-answer" => kind.submit_answer = true,
                other => {
                    return Err(PackageError::invalid(
                        path,
                        "type",
                        format!("unknown type {other:?}"),
                    ));
                }
            }
        }
    }
    if kind.submit_answer && (kind.interactive || kind.multi_pass) {
        return Err(PackageError::invalid(
            path,
            "type",
            "submit-answer does not go with interactive or multi-pass (the format's table of types)",
        ));
    }
    if let Some(validation) = get(v, "validation") {
        let w = words(path, "validation", validation)?;
        match w.first().map(String::as_str) {
            None | Some("default") => {}
            Some("custom") => custom_validation = true,
            Some(other) => {
                return Err(PackageError::invalid(
                    path,
                    "validation",
                    format!("unknown value {other:?}"),
                ));
            }
        }
        for extra in w.iter().skip(1) {
            match extra.as_str() {
                "interactive" => kind.interactive = true,
                "score" => kind.custom_score = true,
                "multi-pass" => kind.multi_pass = true,
                other => {
                    return Err(PackageError::invalid(
                        path,
                        "validation",
                        format!("unknown option {other:?}"),
                    ));
                }
            }
        }
    }
    let validator_flags = match get(v, "validator_flags") {
        Some(f) => words(path, "validator_flags", f)?,
        None => Vec::new(),
    };
    let limits = get(v, "limits");
    let limit = |key: &str| limits.and_then(|l| get(l, key));
    let multiplier = |key: &str| limit("time_multipliers").and_then(|m| get(m, key));
    let time_limit_ms = match limit("time_limit") {
        Some(t) => Some((number(path, "limits.time_limit", t)? * 1000.0).round() as u64),
        None => None,
    };
    let ac_to_time_limit = match (multiplier("ac_to_time_limit"), limit("time_multiplier")) {
        (Some(m), _) => number(path, "limits.time_multipliers.ac_to_time_limit", m)?,
        (None, Some(m)) => number(path, "limits.time_multiplier", m)?,
        (None, None) if legacy => 5.0,
        (None, None) => 2.0,
    };
    let time_limit_to_tle = match (multiplier("time_limit_to_tle"), limit("time_safety_margin")) {
        (Some(m), _) => number(path, "limits.time_multipliers.time_limit_to_tle", m)?,
        (None, Some(m)) => number(path, "limits.time_safety_margin", m)?,
        (None, None) if legacy => 2.0,
        (None, None) => 1.5,
    };
    let time_resolution_ms = match limit("time_resolution") {
        Some(r) => {
            let secs = number(path, "limits.time_resolution", r)?;
            if secs <= 0.0 || !secs.is_finite() {
                return Err(PackageError::invalid(
                    path,
                    "limits.time_resolution",
                    format!("expected a number of seconds above 0, got {secs}"),
                ));
            }
            ((secs * 1000.0).round() as u64).max(1)
        }
        None => 1000,
    };
    let mib = |key: &str, default: u64| -> Result<u64, PackageError> {
        match limit(key) {
            Some(m) => Ok(number(path, &format!("limits.{key}"), m)? as u64),
            None => Ok(default),
        }
    };
    let validation_passes = match limit("validation_passes") {
        None => 2,
        Some(v) => {
            let n = number(path, "limits.validation_passes", v)?;
            let max = verdict_contracts::validate::PASSES_MAX as f64;
            if n.fract() != 0.0 || !(2.0..=max).contains(&n) {
                return Err(PackageError::invalid(
                    path,
                    "limits.validation_passes",
                    format!("expected a whole number from 2 to {max}, got {n}"),
                ));
            }
            n as u32
        }
    };
    Ok(ProblemYaml {
        validation_passes,
        format,
        kind,
        time_limit_ms,
        ac_to_time_limit,
        time_limit_to_tle,
        time_resolution_ms,
        memory_mib: mib("memory", 2048)?,
        output_mib: mib("output", 8)?,
        custom_validation,
        validator_flags,
    })
}

/// A group file's 2025-09 scoring keys as written (not inherited: `kattis::load` applies the
/// defaults and checks them against the problem).
#[derive(Debug, Clone, Default)]
pub(crate) struct ScoringKeys {
    /// `max_score`: `Some(None)` is `unbounded`.
    pub max_score: Option<Option<f64>>,
    /// `score_aggregation`.
    pub aggregation: Option<ScoreAggregation>,
    /// `require_pass`: group names.
    pub require_pass: Option<Vec<String>>,
    /// The first of these keys the file sets (for messages).
    pub first: Option<&'static str>,
    /// The first key of the default grader (legacy, 2023-07) or the 2025-09 draft (`scoring`)
    /// the file sets.
    pub legacy: Option<String>,
}

/// A group's settings: `parent`'s with this file's keys over them, and its 2025-09 scoring
/// keys.
pub(crate) fn settings(
    path: &Path,
    v: &Value,
    parent: &Settings,
) -> Result<(Settings, ScoringKeys), PackageError> {
    let mut s = parent.clone();
    let mut keys = ScoringKeys::default();
    let Some(map) = v.as_mapping() else {
        return Err(PackageError::invalid(path, "", "expected a mapping"));
    };
    for (key, value) in map {
        let Some(key) = key.as_str() else { continue };
        if matches!(
            key,
            "accept_score" | "reject_score" | "range" | "on_reject" | "grader_flags" | "scoring"
        ) && keys.legacy.is_none()
        {
            keys.legacy = Some(key.to_owned());
        }
        match key {
            "max_score" => {
                keys.first.get_or_insert("max_score");
                keys.max_score = Some(match value {
                    Value::String(s) if s == "unbounded" => None,
                    Value::Number(n) => match n.as_f64() {
                        Some(x) if x >= 0.0 && x.fract() == 0.0 => Some(x),
                        _ => {
                            return Err(PackageError::invalid(
                                path,
                                key,
                                format!("expected a non-negative integer or unbounded, got {n}"),
                            ));
                        }
                    },
                    other => {
                        return Err(PackageError::invalid(
                            path,
                            key,
                            format!("expected a non-negative integer or unbounded, got {other:?}"),
                        ));
                    }
                });
            }
            "score_aggregation" => {
                keys.first.get_or_insert("score_aggregation");
                keys.aggregation = Some(match value.as_str() {
                    Some("pass-fail") => ScoreAggregation::PassFail,
                    Some("sum") => ScoreAggregation::Sum,
                    Some("min") => ScoreAggregation::Min,
                    _ => {
                        return Err(PackageError::invalid(
                            path,
                            key,
                            format!("expected pass-fail, sum or min, got {value:?}"),
                        ));
                    }
                });
            }
            "require_pass" => {
                keys.first.get_or_insert("require_pass");
                keys.require_pass = Some(match value {
                    Value::String(s) => vec![s.clone()],
                    Value::Sequence(items) => items
                        .iter()
                        .map(|i| {
                            i.as_str().map(str::to_owned).ok_or_else(|| {
                                PackageError::invalid(path, key, "expected group names")
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    _ => {
                        return Err(PackageError::invalid(
                            path,
                            key,
                            "expected a group name or a sequence of them",
                        ));
                    }
                });
            }
            "output_validator_flags" | "output_validator_args" => {
                s.output_validator_flags = words(path, key, value)?;
            }
            "input_validator_flags" | "input_validator_args" => {
                s.input_validator_flags = validator_args(path, key, value)?;
            }
            "args" => s.args = words(path, key, value)?,
            "accept_score" => s.accept_score = number(path, key, value)?,
            "reject_score" => s.reject_score = number(path, key, value)?,
            "range" => {
                let w = words(path, key, value)?;
                let parse = |t: &str| t.parse::<f64>().ok();
                match (
                    w.first().and_then(|t| parse(t)),
                    w.get(1).and_then(|t| parse(t)),
                    w.len(),
                ) {
                    (Some(lo), Some(hi), 2) if lo <= hi => s.range = Some((lo, hi)),
                    _ => return Err(PackageError::invalid(path, key, "expected \"min max\"")),
                }
            }
            "on_reject" => match value.as_str() {
                Some("break") => s.break_on_reject = true,
                Some("continue") => s.break_on_reject = false,
                _ => {
                    return Err(PackageError::invalid(
                        path,
                        key,
                        "expected break or continue",
                    ));
                }
            },
            "grading" => match value.as_str() {
                Some("default") => {}
                _ => {
                    return Err(PackageError::unsupported(
                        path,
                        key,
                        "custom graders are not supported",
                    ));
                }
            },
            "grader_flags" => {
                // The flags set what they name; the rest keeps the defaults.
                s.worst_error = false;
                s.accept_if_any_accepted = false;
                s.always_accept = false;
                s.ignore_sample = false;
                s.aggregation = Aggregation::Sum;
                for flag in words(path, key, value)? {
                    match flag.as_str() {
                        "first_error" => s.worst_error = false,
                        "worst_error" => s.worst_error = true,
                        "accept_if_any_accepted" => s.accept_if_any_accepted = true,
                        "always_accept" => s.always_accept = true,
                        "ignore_sample" => s.ignore_sample = true,
                        "sum" => s.aggregation = Aggregation::Sum,
                        "avg" => s.aggregation = Aggregation::Avg,
                        "min" => s.aggregation = Aggregation::Min,
                        "max" => s.aggregation = Aggregation::Max,
                        other => {
                            return Err(PackageError::unsupported(
                                path,
                                key,
                                format!("grader flag {other:?}"),
                            ));
                        }
                    }
                }
            }
            "scoring" => {
                if let Some(score) = get(value, "score") {
                    s.accept_score = number(path, "scoring.score", score)?;
                }
                if let Some(agg) = get(value, "aggregation") {
                    s.aggregation = match agg.as_str() {
                        Some("sum") => Aggregation::Sum,
                        Some("min") => Aggregation::Min,
                        _ => {
                            return Err(PackageError::unsupported(
                                path,
                                "scoring.aggregation",
                                format!("{agg:?}"),
                            ));
                        }
                    };
                }
            }
            // Presentation and checks of the package itself: nothing to judge by.
            "full_feedback"
            | "static_validation"
            | "description"
            | "hint"
            | "input_visualizer_args"
            | "output_visualizer_args" => {}
            other => {
                return Err(PackageError::unsupported(
                    path,
                    other,
                    "unknown test group key",
                ));
            }
        }
    }
    Ok((s, keys))
}
