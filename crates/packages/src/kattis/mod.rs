//! The ICPC / Kattis problem package format (legacy, 2023-07 and 2025-09): `problem.yaml`,
//! `data/sample` and `data/secret` with nested groups and their `testdata.yaml` /
//! `test_group.yaml`, `output_validators/` (legacy) or `output_validator/`, `input_validators/`,
//! `include/<language>/` and `submissions/<verdict>/`. docs/packages.md gives the mapping.

mod constants;
pub(crate) mod expectations;
pub(crate) mod programs;
mod yaml;

use crate::PackageError;
use crate::problem::{
    Case, Expected, Group, GroupScoring, Item, Problem, Reference, Runnable, ScoreAggregation,
    Settings, SpecScoring,
};
use std::path::{Path, PathBuf};
use verdict_contracts::{Asset, Language};

/// Reads the package in `dir`.
pub fn load(dir: &Path) -> Result<Problem, PackageError> {
    if !dir.is_dir() {
        return Err(PackageError::missing(dir, "no such directory"));
    }
    let yaml_path = dir.join("problem.yaml");
    let value = yaml::read(&yaml_path)?.ok_or_else(|| {
        PackageError::missing(
            &yaml_path,
            "the problem's metadata (problem.yaml at the package's root; a Polygon package has \
             problem.xml): this is not a problem package",
        )
    })?;
    let head = yaml::problem_yaml(&yaml_path, &value)?;
    let short_name = dir
        .canonicalize()
        .map_err(|e| PackageError::io(dir, e))?
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "problem".into());
    let time_limit_ms = match head.time_limit_ms {
        Some(t) => Some(t),
        None => timelimit_file(dir)?,
    };
    let root_settings = Settings {
        output_validator_flags: head.validator_flags.clone(),
        ..Settings::default()
    };
    let data_dir = dir.join("data");
    let mut found = Vec::new();
    let legacy = head.format == "legacy";
    let constants = constants::Constants::read(&yaml_path, yaml::get(&value, "constants"))?;
    not_generated(dir, &data_dir)?;
    if !data_dir.is_dir() {
        return Err(PackageError::missing(
            &data_dir,
            "the test data directory (data/sample/ and data/secret/, each test case a NAME.in \
             with its NAME.ans)",
        ));
    }
    let data = group(
        &data_dir,
        "",
        &root_settings,
        true,
        (legacy, &constants),
        &mut found,
    )?;
    if data.cases().is_empty() {
        return Err(PackageError::invalid(
            &data_dir,
            "data",
            "no test case (NAME.in with NAME.ans)",
        ));
    }
    // Included files become the references' own: their constants are replaced with them below.
    let include = |language: Language| include_files(dir, language);
    let mut output_validator = output_validator(dir, &include)?;
    if let Some(v) = &mut output_validator {
        constants.apply(v);
    }
    if (head.custom_validation || head.kind.interactive || head.kind.multi_pass)
        && output_validator.is_none()
    {
        return Err(PackageError::invalid(
            &yaml_path,
            if head.kind.interactive || head.kind.multi_pass {
                "type"
            } else {
                "validation"
            },
            "needs an output validator (output_validators/ or output_validator/), and there is none",
        ));
    }
    let (spec_scoring, requires) = spec_scoring(&head, &data_dir, &found)?;
    let mut input_validators = input_validators(dir)?;
    let mut submissions = submissions(dir, &include, head.kind.submit_answer)?;
    for program in input_validators
        .iter_mut()
        .map(|(_, p)| p)
        .chain(submissions.iter_mut().map(|r| &mut r.program))
        .flat_map(|p| p.as_mut().ok())
    {
        constants.apply(program);
    }
    Ok(Problem {
        spec_scoring,
        requires,
        dir: dir.to_owned(),
        short_name,
        format: head.format,
        kind: head.kind,
        time_limit_ms,
        ac_to_time_limit: head.ac_to_time_limit,
        time_limit_to_tle: head.time_limit_to_tle,
        time_resolution_ms: head.time_resolution_ms,
        memory_mib: head.memory_mib,
        output_mib: head.output_mib,
        validation_passes: head.validation_passes,
        data,
        output_validator,
        validator_protocol: verdict_contracts::CompareProtocol::Kattis,
        input_valid_exit: 42,
        input_validators,
        submissions,
    })
}

/// Refuses a package whose test data is still to be generated: its
/// `generators/generators.yaml` (BAPCtools, the format's generators specification) lists
/// secret test data and `data/secret` has no test case yet. Judging the samples alone, or
/// without the `test_group.yaml` files the generators write, would say "verified" of a
/// problem never tested.
fn not_generated(dir: &Path, data_dir: &Path) -> Result<(), PackageError> {
    let generators = dir.join("generators/generators.yaml");
    let Some(spec) = yaml::read(&generators)? else {
        return Ok(());
    };
    let secret = yaml::get(&spec, "data").and_then(|d| yaml::get(d, "secret"));
    let listed = secret
        .and_then(|s| yaml::get(s, "data"))
        .is_some_and(|d| match d {
            yaml_serde::Value::Sequence(items) => !items.is_empty(),
            yaml_serde::Value::Mapping(map) => !map.is_empty(),
            _ => false,
        });
    if !listed {
        return Ok(());
    }
    fn has_input(d: &Path) -> bool {
        std::fs::read_dir(d).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let p = e.path();
                p.extension().is_some_and(|x| x == "in") || (p.is_dir() && has_input(&p))
            })
        })
    }
    if has_input(&data_dir.join("secret")) {
        return Ok(());
    }
    Err(PackageError::unsupported(
        &generators,
        "data",
        "the package generates its test data (data/secret has no test case yet) and verdict \
         does not run generators: generate it first (BAPCtools: `bt generate`)",
    ))
}

/// A `.timelimit` file (DOMjudge, BAPCtools): seconds.
fn timelimit_file(dir: &Path) -> Result<Option<u64>, PackageError> {
    let path = dir.join(".timelimit");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let secs: f64 = text.trim().parse().map_err(|_| {
                PackageError::invalid(
                    &path,
                    "",
                    format!("expected seconds, got {:?}", text.trim()),
                )
            })?;
            Ok(Some((secs * 1000.0).round() as u64))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PackageError::io(&path, e)),
    }
}

pub(crate) fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, PackageError> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| PackageError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    Ok(entries)
}

/// The group in `dir` (`name` under `data/`): its settings file over `parent`, then its cases
/// (`X.in` with `X.ans`) and subgroups in name order. At the root only `sample` and `secret`
/// are test groups (the format's other directories hold invalid inputs for the validators).
/// A group's settings file, as read: the group's name, the file, its 2025-09 scoring keys.
struct Found {
    name: String,
    path: PathBuf,
    keys: yaml::ScoringKeys,
}

fn group(
    dir: &Path,
    name: &str,
    parent: &Settings,
    root: bool,
    (legacy, constants): (bool, &constants::Constants),
    found: &mut Vec<Found>,
) -> Result<Group, PackageError> {
    let mut settings = parent.clone();
    for file in ["testdata.yaml", "test_group.yaml"] {
        let path = dir.join(file);
        if let Some(v) = yaml::read_with(&path, constants)? {
            let (s, keys) = yaml::settings(&path, &v, parent)?;
            settings = s;
            found.retain(|f| f.name != name);
            found.push(Found {
                name: name.to_owned(),
                path,
                keys,
            });
        }
    }
    let mut items = Vec::new();
    for path in sorted_entries(dir)? {
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sub = if name.is_empty() {
            file_name.clone()
        } else {
            format!("{name}/{file_name}")
        };
        if path.is_dir() {
            if root && file_name != "sample" && file_name != "secret" {
                continue;
            }
            items.push(Item::Group(group(
                &path,
                &sub,
                &settings,
                false,
                (legacy, constants),
                found,
            )?));
        } else if !root && path.extension().is_some_and(|e| e == "in") {
            let answer = path.with_extension("ans");
            items.push(Item::Case(Case {
                name: sub.trim_end_matches(".in").to_owned(),
                input: path.clone(),
                answer: answer.is_file().then_some(answer),
                config: case_config(&path, legacy)?,
            }));
        }
    }
    Ok(Group {
        name: name.to_owned(),
        settings,
        items,
    })
}

/// A test case's `NAME.yaml` and `NAME.files/` beside its `NAME.in` (2023-07 and later; a
/// legacy package has neither).
fn case_config(input: &Path, legacy: bool) -> Result<crate::CaseConfig, PackageError> {
    if legacy {
        return Ok(crate::CaseConfig::default());
    }
    let yaml_path = input.with_extension("yaml");
    let mut config = match yaml::read(&yaml_path)? {
        Some(v) => yaml::case_config(&yaml_path, &v)?,
        None => crate::CaseConfig::default(),
    };
    let files = input.with_extension("files");
    if files.is_dir() {
        config.files = Some(files);
    }
    Ok(config)
}

/// Groups and the groups they require (`Problem::requires`).
type Requires = Vec<(String, Vec<String>)>;

/// The 2025-09 scoring of a scoring problem ("Result aggregation": `max_score`,
/// `score_aggregation`, `require_pass` in `secret`'s and each test data group's
/// `test_group.yaml`, their defaults applied and checked as the specification says), and the
/// groups' `require_pass`. A 2025-09 scoring package written with the default grader's keys
/// or the 2025-09 draft's `scoring` (and none of these) keeps that grader: `None`. These keys
/// are refused in other versions, in pass-fail problems, in `sample`, and beside the default
/// grader's keys.
fn spec_scoring(
    head: &yaml::ProblemYaml,
    data_dir: &Path,
    found: &[Found],
) -> Result<(Option<SpecScoring>, Requires), PackageError> {
    let with_keys: Vec<&Found> = found.iter().filter(|f| f.keys.first.is_some()).collect();
    let legacy = found
        .iter()
        .find_map(|f| f.keys.legacy.clone().map(|k| (f, k)));
    if let Some(f) = with_keys.first() {
        let key = f.keys.first.unwrap_or_default();
        if head.format != "2025-09" {
            return Err(PackageError::invalid(
                &f.path,
                key,
                format!(
                    "a 2025-09 key, and problem_format_version is {}",
                    head.format
                ),
            ));
        }
        if !head.kind.scoring {
            return Err(PackageError::invalid(
                &f.path,
                key,
                "a pass-fail problem must not set max_score, score_aggregation or require_pass",
            ));
        }
        if let Some((l, k)) = &legacy {
            return Err(PackageError::invalid(
                &l.path,
                k,
                format!(
                    "the default grader's key beside 2025-09's {key} ({}): use one or the other",
                    f.path.display()
                ),
            ));
        }
    }
    for f in &with_keys {
        if f.name == "sample" || f.name.starts_with("sample/") {
            return Err(PackageError::invalid(
                &f.path,
                f.keys.first.unwrap_or_default(),
                "not permitted in sample",
            ));
        }
    }
    if head.format != "2025-09" || !head.kind.scoring || legacy.is_some() {
        return Ok((None, Vec::new()));
    }
    let keys_of = |name: &str| found.iter().find(|f| f.name == name);
    let secret_dir = data_dir.join("secret");
    let secret_keys = keys_of("secret");
    let secret = GroupScoring {
        name: "secret".into(),
        max_score: secret_keys
            .and_then(|f| f.keys.max_score)
            .unwrap_or(Some(100.0)),
        aggregation: secret_keys
            .and_then(|f| f.keys.aggregation)
            .unwrap_or(ScoreAggregation::Sum),
    };
    // Test data groups: `secret`'s subdirectories with a settings file; none below them.
    let mut groups = Vec::new();
    for f in found {
        let Some(rest) = f.name.strip_prefix("secret/") else {
            continue;
        };
        if rest.contains('/') {
            return Err(PackageError::invalid(
                &f.path,
                "test_group.yaml",
                "a test data group inside another (groups are secret's subdirectories only)",
            ));
        }
        groups.push(GroupScoring {
            name: f.name.clone(),
            max_score: f.keys.max_score.unwrap_or(None),
            aggregation: f.keys.aggregation.unwrap_or(ScoreAggregation::PassFail),
        });
    }
    groups.sort_by(|a, b| a.name.cmp(&b.name));
    if !groups.is_empty() {
        // Then secret holds groups only.
        for entry in sorted_entries(&secret_dir)? {
            let file = entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let is_group = groups.iter().any(|g| g.name == format!("secret/{file}"));
            let stray = if entry.is_dir() {
                !is_group
            } else {
                entry.extension().is_some_and(|e| e == "in")
            };
            if stray {
                return Err(PackageError::invalid(
                    &entry,
                    "data/secret",
                    "beside test data groups, every entry of secret must be a group (a directory with a test_group.yaml)",
                ));
            }
        }
    }
    let group_path = |g: &GroupScoring| {
        keys_of(&g.name).map_or_else(|| data_dir.join(&g.name), |f| f.path.clone())
    };
    for g in std::iter::once(&secret).chain(&groups) {
        if g.aggregation == ScoreAggregation::PassFail && g.max_score.is_none() {
            return Err(PackageError::invalid(
                group_path(g),
                "max_score",
                "a pass-fail group needs a bounded max_score",
            ));
        }
    }
    for g in &groups {
        if let (Some(max), None) = (secret.max_score, g.max_score) {
            return Err(PackageError::invalid(
                group_path(g),
                "max_score",
                format!("unbounded, and secret is bounded (max_score {max}): set this group's"),
            ));
        }
        if secret.aggregation == ScoreAggregation::PassFail
            && g.aggregation != ScoreAggregation::PassFail
        {
            return Err(PackageError::invalid(
                group_path(g),
                "score_aggregation",
                "secret is pass-fail, so must its groups be",
            ));
        }
    }
    let mut requires = Vec::new();
    for f in &with_keys {
        let Some(names) = &f.keys.require_pass else {
            continue;
        };
        for n in names {
            let ok = if f.name == "secret" {
                n == "sample"
            } else {
                n == "sample"
                    || groups.iter().any(|g| {
                        g.name == *n
                            && g.name < f.name
                            && g.aggregation == ScoreAggregation::PassFail
                    })
            };
            if !ok {
                return Err(PackageError::invalid(
                    &f.path,
                    "require_pass",
                    format!(
                        "{n:?}: not sample{}",
                        if f.name == "secret" {
                            " (secret may only require sample)"
                        } else {
                            " nor a pass-fail test data group before this one"
                        }
                    ),
                ));
            }
        }
        requires.push((f.name.clone(), names.clone()));
    }
    Ok((Some(SpecScoring { secret, groups }), requires))
}

/// A submission that is not one of the package's own (a contestant's file, or a directory of
/// files), read as the package's references are: its language told by the extensions, or set by
/// `language` (a code of the format's language table, `cpp`, or verdict's name, `python3`),
/// with the package's included files (`include/<language>/`) beside it. `Err` says why it
/// cannot be judged.
pub fn submission_program(
    package: &Path,
    path: &Path,
    language: Option<&str>,
) -> Result<verdict_contracts::Program, String> {
    let include = |l: Language| include_files(package, l);
    let read = match language {
        Some(_) => Err(String::new()),
        None => programs::program(path, &include),
    };
    programs::as_configured(path, &include, read, language, None)
}

/// The included files (2023-07 and later) of a submission in `language`: `include/<code>/`
/// (the format's language code; verdict's own name is read too), else `include/default/`.
fn include_files(dir: &Path, language: Language) -> Vec<Asset> {
    let read = |name: &str| -> Vec<Asset> {
        let mut out = Vec::new();
        if let Ok(entries) = std::fs::read_dir(dir.join("include").join(name)) {
            for e in entries.flatten() {
                if let Ok(text) = std::fs::read_to_string(e.path()) {
                    out.push(Asset::text(e.file_name().to_string_lossy(), text));
                }
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    };
    [
        programs::format_code(language),
        language.as_str(),
        "default",
    ]
    .into_iter()
    .map(read)
    .find(|files| !files.is_empty())
    .unwrap_or_default()
}

/// The output validator: `output_validator/` (2023-07 and later) or the one directory or file
/// in `output_validators/` (legacy); more than one is refused.
fn output_validator(
    dir: &Path,
    include: &dyn Fn(Language) -> Vec<Asset>,
) -> Result<Option<verdict_contracts::Program>, PackageError> {
    let none = |_| Vec::new();
    let _ = include;
    let modern = dir.join("output_validator");
    if modern.is_dir() {
        let entries = sorted_entries(&modern)?;
        // A directory holding one program directory (problemtools' examples) or the files.
        let target = match entries.as_slice() {
            [only] if only.is_dir() => only.clone(),
            _ => modern.clone(),
        };
        return programs::package_program(&target, &none)
            .map(Some)
            .map_err(|reason| {
                PackageError::invalid(&modern, "output_validator", unprefixed(&reason, &target))
            });
    }
    let legacy = dir.join("output_validators");
    if legacy.is_dir() {
        let entries = sorted_entries(&legacy)?;
        return match entries.as_slice() {
            [] => Ok(None),
            [only] => programs::package_program(only, &none)
                .map(Some)
                .map_err(|reason| {
                    PackageError::invalid(&legacy, "output_validators", unprefixed(&reason, only))
                }),
            _ => Err(PackageError::unsupported(
                &legacy,
                "output_validators",
                "more than one output validator",
            )),
        };
    }
    Ok(None)
}

/// A program's reason without the path it starts with, for an error that names the path
/// already (said once: docs/packages.md).
fn unprefixed<'a>(reason: &'a str, path: &Path) -> &'a str {
    reason
        .strip_prefix(&format!("{}: ", path.display()))
        .unwrap_or(reason)
}

/// Every input validator: each file or directory in `input_validators/` (or
/// `input_validator/`), or why verdict cannot run it (checktestdata (`.ctd`) and viva scripts,
/// an unknown language).
fn input_validators(dir: &Path) -> Result<Vec<(String, Runnable)>, PackageError> {
    let none = |_| Vec::new();
    let mut out = Vec::new();
    // `input_format_validators/` is the older name (problemtools still runs it, with a
    // deprecation warning); packages written then carry it (docs/packages.md).
    for sub in [
        "input_validators",
        "input_validator",
        "input_format_validators",
    ] {
        let d = dir.join(sub);
        if !d.is_dir() {
            continue;
        }
        let entries = sorted_entries(&d)?;
        let single_program = entries.iter().all(|p| p.is_file())
            && entries
                .iter()
                .filter(|p| p.extension().is_none_or(|e| e != "h"))
                .count()
                > 1
            && entries
                .iter()
                .any(|p| p.extension().is_some_and(|e| e == "h"));
        let targets = if single_program {
            vec![d.clone()]
        } else {
            entries
        };
        for path in targets {
            let name = path
                .strip_prefix(dir)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            // Another validator of the same inputs may stand beside one verdict cannot run
            // (problemtools' `different` has a checktestdata script and a Python one): kept
            // with the reason, `verify` reports it skipped.
            let program = if path.extension().is_some_and(|e| e == "ctd" || e == "viva") {
                Err(format!(
                    "{}: checktestdata and viva input validators are not run by verdict",
                    path.display()
                ))
            } else {
                programs::package_program(&path, &none)
            };
            out.push((name, program));
        }
    }
    Ok(out)
}

/// Whether a directory of `submissions/` that is not a default one is the package's own: a
/// rule of `submissions.yaml` matches it or a submission in it.
fn custom_directory(
    dir: &Path,
    name: &str,
    rules: &[(String, crate::problem::Requirement)],
) -> Result<bool, PackageError> {
    let entries = sorted_entries(dir)?;
    Ok(rules.iter().any(|(glob, _)| {
        expectations::matches(glob, name)
            || entries.iter().any(|e| {
                e.file_name().is_some_and(|f| {
                    expectations::matches(glob, &format!("{name}/{}", f.to_string_lossy()))
                })
            })
    }))
}

/// Every reference submission: a file or directory in `submissions/<verdict>/` (of a
/// submit-answer problem: a program, or its answer files).
fn submissions(
    dir: &Path,
    include: &dyn Fn(Language) -> Vec<Asset>,
    submit_answer: bool,
) -> Result<Vec<Reference>, PackageError> {
    let root = dir.join("submissions");
    if !root.is_dir() {
        return Ok(Vec::new());
    }
    let yaml_path = root.join("submissions.yaml");
    let yaml = yaml::read(&yaml_path)?;
    let rules = match &yaml {
        Some(v) => expectations::read(&yaml_path, v)?,
        None => Vec::new(),
    };
    let mut out = Vec::new();
    // DOMjudge's `@EXPECTED_RESULTS@` annotation of a reference (read, or why it cannot be),
    // or why nothing says what it should get, by its index in `out`: applied last, over what
    // `submissions.yaml`'s `language` / `entrypoint` make of its program.
    let mut annotated: Vec<(usize, Result<crate::problem::Requirement, String>)> = Vec::new();
    for verdict_dir in sorted_entries(&root)? {
        if !verdict_dir.is_dir() {
            continue;
        }
        let dir_name = verdict_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Another directory is the package's own (2025-09 "Default directories"): its
        // references are held to the rules of submissions.yaml that match them, and none else.
        // One no rule matches (DOMjudge's `mixed-verdicts`) holds references its annotations
        // speak for; the others are reported and skipped, never the whole package refused.
        let (expected, ruled) = match Expected::from_dir(&dir_name) {
            Some(expected) => (expected, true),
            None => (
                Expected::Custom,
                custom_directory(&verdict_dir, &dir_name, &rules)?,
            ),
        };
        for path in sorted_entries(&verdict_dir)? {
            // Names starting with a dot (`.gitkeep`) are not part of a package (the format:
            // a judge behaves as if they were removed).
            if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            {
                continue;
            }
            let name = format!(
                "{dir_name}/{}",
                path.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            );
            match programs::expected_results_line(&path) {
                Some(line) => annotated.push((
                    out.len(),
                    expectations::domjudge_expected_results(&name, &line),
                )),
                None if !ruled => annotated.push((
                    out.len(),
                    Err(format!(
                        "submissions/{dir_name} is no verdict directory, and neither a rule of \
                         submissions.yaml nor an @EXPECTED_RESULTS@ annotation says what it \
                         should get"
                    )),
                )),
                None => {}
            }
            out.push(Reference {
                name,
                expected,
                program: if submit_answer {
                    programs::program_or_answers(&path, include)
                } else {
                    programs::program(&path, include)
                },
                requirements: Vec::new(),
            });
        }
    }
    if let Some(v) = &yaml {
        let settings = expectations::program_settings(v);
        for r in &mut out {
            r.requirements = rules
                .iter()
                .filter(|(glob, _)| expectations::matches(glob, &r.name))
                .map(|(_, req)| req.clone())
                .collect();
            if r.requirements.iter().any(|q| q.replaces_directory) {
                r.expected = Expected::Custom;
            }
            // Later globs that match set what earlier ones did not, or again.
            let (mut language, mut entrypoint) = (None, None);
            for s in settings
                .iter()
                .filter(|s| expectations::matches(&s.glob, &r.name))
            {
                language = s.language.clone().or(language);
                entrypoint = s.entrypoint.clone().or(entrypoint);
            }
            if language.is_some() || entrypoint.is_some() {
                r.program = programs::as_configured(
                    &root.join(&r.name),
                    include,
                    r.program.clone(),
                    language.as_deref(),
                    entrypoint.as_deref(),
                );
            }
        }
    }
    // An annotation replaces the directory's claim (DOMjudge reads it before the directory);
    // a reference it cannot be read for, or that nothing speaks for, is skipped saying why.
    for (i, annotation) in annotated {
        match annotation {
            Ok(requirement) => {
                out[i].requirements.push(requirement);
                out[i].expected = Expected::Custom;
            }
            Err(reason) => out[i].program = Err(reason),
        }
    }
    Ok(out)
}
