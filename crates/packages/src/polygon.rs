//! Codeforces Polygon packages (`problem.xml`): the `tests` testset (limits, path patterns,
//! tests with their groups and points), the groups' points policy, the testlib checker or
//! interactor, the validators, the resources (`testlib.h`) and the solutions by tag, read into
//! the same [`Problem`] as an ICPC package. docs/packages.md gives the mapping.

use crate::kattis::programs;
use crate::problem::{
    Aggregation, Case, Expected, Group, Item, Kind, Problem, Reference, Settings,
};
use crate::{PackageError, Runnable};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use std::path::Path;
use verdict_contracts::{Asset, CompareProtocol};

/// One element of `problem.xml`, with its attributes, text and children.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    fn all<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Element> + 's {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The element at a path of child names.
    fn at(&self, path: &[&str]) -> Option<&Element> {
        path.iter().try_fold(self, |e, name| e.child(name))
    }
}

fn element(start: &BytesStart<'_>) -> Element {
    Element {
        name: start.name().as_ref().to_owned(),
        attrs: start
            .attributes()
            .flatten()
            .map(|a| {
                (
                    a.key.as_ref().to_owned(),
                    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map(|v| v.into_owned())
                        .unwrap_or_default(),
                )
            })
            .collect(),
        ..Element::default()
    }
}

/// Parses `xml` into its root element.
fn parse(path: &Path, xml: &str) -> Result<Element, PackageError> {
    let bad = |reason: String| PackageError::invalid(path, "", reason);
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = vec![Element::default()];
    loop {
        match reader.read_event().map_err(|e| bad(e.to_string()))? {
            Event::Start(s) => {
                if stack.len() > 64 {
                    return Err(bad("elements nested too deep".into()));
                }
                stack.push(element(&s));
            }
            Event::Empty(s) => {
                let e = element(&s);
                if let Some(top) = stack.last_mut() {
                    top.children.push(e);
                }
            }
            Event::End(_) => {
                let done = stack.pop().ok_or_else(|| bad("unbalanced".into()))?;
                match stack.last_mut() {
                    Some(top) => top.children.push(done),
                    None => return Err(bad("unbalanced".into())),
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml10_content());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let mut doc = stack
        .pop()
        .filter(|_| stack.is_empty())
        .ok_or_else(|| bad("an element is not closed".into()))?;
    doc.children
        .pop()
        .filter(|root| root.name == "problem")
        .ok_or_else(|| bad("the root element is not <problem>".into()))
}

/// `tests/%02d` with `n`: the printf patterns Polygon writes (`%d`, `%0Nd`).
fn pattern(path: &Path, key: &str, p: &str, n: usize) -> Result<String, PackageError> {
    let Some(i) = p.find('%') else {
        return Err(PackageError::invalid(path, key, format!("no %d in {p:?}")));
    };
    let rest = &p[i + 1..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if !rest[digits.len()..].starts_with('d') {
        return Err(PackageError::unsupported(
            path,
            key,
            format!("pattern {p:?} (read: %d, %0Nd)"),
        ));
    }
    let width: usize = digits.trim_start_matches('0').parse().unwrap_or(0);
    Ok(format!(
        "{}{n:0width$}{}",
        &p[..i],
        &rest[digits.len() + 1..]
    ))
}

/// What a solution's tag claims (`None`: `do-not-run`).
fn expected(tag: &str) -> Option<Option<Expected>> {
    Some(match tag {
        "main" | "accepted" => Some(Expected::Accepted),
        "wrong-answer" | "presentation-error" => Some(Expected::WrongAnswer),
        "time-limit-exceeded" => Some(Expected::TimeLimitExceeded),
        "memory-limit-exceeded" => Some(Expected::RunTimeError),
        "time-limit-exceeded-or-accepted" => Some(Expected::SlowAccepted),
        "rejected" | "failed" | "time-limit-exceeded-or-memory-limit-exceeded" => {
            Some(Expected::Rejected)
        }
        "do-not-run" => None,
        _ => return None,
    })
}

/// Reads the Polygon package in `dir` (its `problem.xml`).
pub fn load(dir: &Path) -> Result<Problem, PackageError> {
    let xml_path = dir.join("problem.xml");
    let text = std::fs::read_to_string(&xml_path).map_err(|e| PackageError::io(&xml_path, e))?;
    let root = parse(&xml_path, &text)?;
    let p = xml_path.as_path();
    let short_name = root
        .attr("short-name")
        .map(str::to_owned)
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "problem".into());
    let judging = root
        .child("judging")
        .ok_or_else(|| PackageError::invalid(p, "judging", "missing"))?;
    if judging.attr("input-file").is_some_and(|f| !f.is_empty())
        || judging.attr("output-file").is_some_and(|f| !f.is_empty())
    {
        return Err(PackageError::unsupported(
            p,
            "judging/@input-file",
            "tests read from or written to named files (verdict judges stdin and stdout)",
        ));
    }
    let testset = judging
        .all("testset")
        .find(|t| t.attr("name") == Some("tests"))
        .ok_or_else(|| PackageError::invalid(p, "judging/testset[@name=tests]", "missing"))?;
    let number = |key: &str| -> Result<u64, PackageError> {
        let t = testset
            .child(key)
            .map(|e| e.text.trim())
            .ok_or_else(|| PackageError::invalid(p, key, "missing"))?;
        t.parse()
            .map_err(|_| PackageError::invalid(p, key, format!("expected a number, got {t:?}")))
    };
    let time_limit_ms = number("time-limit")?;
    let memory_bytes = number("memory-limit")?;
    let text_of = |key: &str| {
        testset
            .child(key)
            .map(|e| e.text.trim().to_owned())
            .ok_or_else(|| PackageError::invalid(p, key, "missing"))
    };
    let interactive = root
        .child("assets")
        .and_then(|a| a.child("interactor"))
        .is_some();
    let input_pattern = text_of("input-path-pattern")?;
    let answer_pattern = text_of("answer-path-pattern")?;
    // Groups: their points policy.
    let mut policies: Vec<(String, bool, f64)> = Vec::new();
    // A group scores only when every test of the groups it depends on is accepted.
    let mut dependencies: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(groups) = testset.child("groups") {
        for g in groups.all("group") {
            let name = g.attr("name").unwrap_or_default().to_owned();
            let deps: Vec<String> = g
                .child("dependencies")
                .map(|d| {
                    d.all("dependency")
                        .map(|x| x.attr("group").unwrap_or_default().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            if !deps.is_empty() {
                dependencies.push((name.clone(), deps));
            }
            let complete = match g.attr("points-policy") {
                None | Some("complete-group") => true,
                Some("each-test") => false,
                Some(other) => {
                    return Err(PackageError::unsupported(
                        p,
                        "groups/group/@points-policy",
                        other.to_owned(),
                    ));
                }
            };
            let points = g.attr("points").and_then(|v| v.parse().ok()).unwrap_or(0.0);
            policies.push((name, complete, points));
        }
    }
    // Tests, grouped: a group per Polygon group (in order of first appearance), each test its
    // own subgroup under `each-test` (its points are its own).
    let tests: Vec<&Element> = testset
        .child("tests")
        .map(|t| t.all("test").collect())
        .unwrap_or_default();
    let scoring = tests.iter().any(|t| t.attr("points").is_some()) || !policies.is_empty();
    let mut root_items: Vec<Item> = Vec::new();
    let mut group_items: Vec<(String, Vec<Item>)> = Vec::new();
    for (i, t) in tests.iter().enumerate() {
        let n = i + 1;
        let input = dir.join(pattern(p, "input-path-pattern", &input_pattern, n)?);
        let answer = dir.join(pattern(p, "answer-path-pattern", &answer_pattern, n)?);
        if !input.is_file() {
            return Err(PackageError::unsupported(
                &input,
                "tests/test",
                "the test file is not in the package (a full package carries its generated tests)",
            ));
        }
        // An answer file missing would be a Presentation Error for every correct solution
        // ("Output file not found"): refused, named. An interactive problem's checker may
        // need none (its interactor wrote what it checks).
        if !answer.is_file() && !interactive {
            return Err(PackageError::missing(
                &answer,
                format!(
                    "the answer of test {n} ({answer_pattern}): a package carries its tests' \
                     answers (Polygon's \"full\" package, or run its doall.sh first)"
                ),
            ));
        }
        let case = Case {
            name: format!("tests/{n:02}"),
            input,
            answer: answer.is_file().then_some(answer),
            config: Default::default(),
        };
        let points: f64 = t.attr("points").and_then(|v| v.parse().ok()).unwrap_or(0.0);
        let group = t.attr("group").unwrap_or_default().to_owned();
        let policy = policies.iter().find(|(g, _, _)| *g == group);
        let item = match policy {
            Some((_, true, _)) => Item::Case(case),
            _ if scoring => Item::Group(Group {
                name: case.name.clone(),
                settings: Settings {
                    accept_score: points,
                    break_on_reject: false,
                    ..Settings::default()
                },
                items: vec![Item::Case(case)],
            }),
            _ => Item::Case(case),
        };
        if group.is_empty() {
            root_items.push(item);
        } else {
            match group_items.iter_mut().find(|(g, _)| *g == group) {
                Some((_, items)) => items.push(item),
                None => group_items.push((group, vec![item])),
            }
        }
    }
    for (name, items) in group_items {
        let settings = match policies.iter().find(|(g, _, _)| *g == name) {
            // All or nothing: each test scores the group's points, the group their minimum.
            Some((_, true, points)) => Settings {
                accept_score: *points,
                aggregation: Aggregation::Min,
                ..Settings::default()
            },
            _ => Settings {
                break_on_reject: !scoring,
                ..Settings::default()
            },
        };
        root_items.push(Item::Group(Group {
            name: format!("group {name}"),
            settings,
            items,
        }));
    }
    if root_items.is_empty() {
        return Err(PackageError::invalid(p, "tests", "no test"));
    }
    let mut requires = Vec::new();
    for (name, deps) in dependencies {
        for d in &deps {
            if *d == name || !policies.iter().any(|(g, _, _)| g == d) {
                return Err(PackageError::invalid(
                    p,
                    "groups/group/dependencies/dependency/@group",
                    format!("group {name:?} depends on {d:?}, which is not another group"),
                ));
            }
        }
        requires.push((
            format!("group {name}"),
            deps.iter().map(|d| format!("group {d}")).collect(),
        ));
    }
    let data = Group {
        name: String::new(),
        settings: Settings {
            break_on_reject: !scoring,
            ..Settings::default()
        },
        items: root_items,
    };
    // Resources (testlib.h, ...) beside every checker, interactor and validator.
    let resources: Vec<Asset> = root
        .at(&["files", "resources"])
        .map(|r| {
            r.all("file")
                .filter_map(|f| f.attr("path"))
                .filter_map(|path| {
                    let file = dir.join(path);
                    let text = std::fs::read_to_string(&file).ok()?;
                    let name = file.file_name()?.to_string_lossy().into_owned();
                    Some(Asset::text(name, text))
                })
                .collect()
        })
        .unwrap_or_default();
    let with_resources = |_| resources.clone();
    let source_of = |e: &Element, key: &str| -> Result<Runnable, PackageError> {
        let path = e
            .child("source")
            .and_then(|s| s.attr("path"))
            .ok_or_else(|| PackageError::invalid(p, key, "no source"))?;
        Ok(programs::program(&dir.join(path), &with_resources))
    };
    let assets = root.child("assets");
    let interactor = assets.and_then(|a| a.child("interactor"));
    let checker = assets.and_then(|a| a.child("checker"));
    let output_validator = match (interactor, checker) {
        (Some(i), _) => Some(
            source_of(i, "assets/interactor")?
                .map_err(|r| PackageError::invalid(p, "assets/interactor", r))?,
        ),
        (None, Some(c)) => {
            if c.attr("type").is_some_and(|t| t != "testlib") {
                return Err(PackageError::unsupported(
                    p,
                    "assets/checker/@type",
                    "checkers other than testlib ones",
                ));
            }
            Some(
                source_of(c, "assets/checker")?
                    .map_err(|r| PackageError::invalid(p, "assets/checker", r))?,
            )
        }
        (None, None) => None,
    };
    let mut input_validators = Vec::new();
    if let Some(vs) = assets.and_then(|a| a.child("validators")) {
        for (i, v) in vs.all("validator").enumerate() {
            input_validators.push((format!("validator {}", i + 1), source_of(v, "validator")?));
        }
    }
    let mut submissions = Vec::new();
    if let Some(sols) = assets.and_then(|a| a.child("solutions")) {
        for s in sols.all("solution") {
            let tag = s.attr("tag").unwrap_or_default();
            let path = s
                .child("source")
                .and_then(|x| x.attr("path"))
                .unwrap_or_default();
            let claim = expected(tag).ok_or_else(|| {
                PackageError::unsupported(p, "solutions/solution/@tag", format!("{tag:?}"))
            })?;
            let Some(claim) = claim else { continue };
            submissions.push(Reference {
                name: format!("{tag}/{}", Path::new(path).display()),
                expected: claim,
                program: programs::program(&dir.join(path), &|_| Vec::new()),
                requirements: Vec::new(),
            });
        }
    }
    Ok(Problem {
        dir: dir.to_owned(),
        short_name,
        format: "polygon".into(),
        kind: Kind {
            scoring,
            interactive: interactor.is_some(),
            multi_pass: false,
            custom_score: false,
            submit_answer: false,
        },
        time_limit_ms: Some(time_limit_ms),
        // Polygon states no margins: the limit is the setter's.
        ac_to_time_limit: 1.0,
        time_limit_to_tle: 1.0,
        time_resolution_ms: 1000,
        memory_mib: memory_bytes / (1024 * 1024),
        output_mib: 64,
        validation_passes: 1,
        data,
        output_validator,
        validator_protocol: CompareProtocol::Testlib,
        input_valid_exit: 0,
        input_validators,
        submissions,
        spec_scoring: None,
        requires,
    })
}

/// Whether `dir` holds a Polygon package (a `problem.xml` and no `problem.yaml`).
pub fn is_polygon(dir: &Path) -> bool {
    dir.join("problem.xml").is_file() && !dir.join("problem.yaml").is_file()
}

/// Reads the package in `dir`, Polygon or ICPC / Kattis.
pub fn load_any(dir: &Path) -> Result<Problem, PackageError> {
    if is_polygon(dir) {
        load(dir)
    } else {
        crate::kattis::load(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn patterns_are_printf_numbers() {
        let p = PathBuf::from("problem.xml");
        assert_eq!(pattern(&p, "k", "tests/%02d", 3).unwrap(), "tests/03");
        assert_eq!(pattern(&p, "k", "tests/%02d.a", 12).unwrap(), "tests/12.a");
        assert_eq!(pattern(&p, "k", "t/%d", 7).unwrap(), "t/7");
        assert!(pattern(&p, "k", "t/%s", 7).is_err());
    }

    #[test]
    fn tags_map_to_claims() {
        assert_eq!(expected("main"), Some(Some(Expected::Accepted)));
        assert_eq!(expected("do-not-run"), Some(None));
        assert_eq!(expected("nonsense"), None);
    }
}
