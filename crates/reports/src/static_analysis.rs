//! cppcheck and clang-tidy findings mapped to oclint's report shape ([`StaticReport`]).
//!
//! oclint is not packaged by Debian; the judge runs cppcheck and/or clang-tidy and maps
//! each finding to an oclint-style [`Violation`]: `rule` is the tool's check id
//! (`memleak`, `clang-analyzer-core.NullDereference`), `category` the cppcheck severity
//! or the clang-tidy check group (`bugprone`, `clang-analyzer`, ...), `path` relative to
//! the box, start and end at the reported position (neither tool reports a range).
//!
//! # Priorities
//!
//! The score costs 20% per priority-1 finding and 10% per priority-2 one; priority 3
//! is advice and costs nothing. So priority 1 is kept for definite bugs that a run can
//! hit, priority 2 for likely bugs and the design faults oclint itself rates 2 (the
//! contract's example rates a non-virtual base-class destructor 2), priority 3 for
//! style and performance.
//!
//! | cppcheck `severity` (or `id`) | priority |
//! |---|---|
//! | `error` (out-of-bounds, null dereference, leak, uninitialised variable, double free, ...) | 1 |
//! | `id="virtualDestructor"` (reported as `error`, rated 2 like oclint's "destructor of virtual class") | 2 |
//! | `warning` | 2 |
//! | `style`, `performance`, `portability` | 3 |
//! | `information`, `debug`, and the tool's own ids (`syntaxError`, `internalAstError`, `missingInclude`, `unknownMacro`, ...) | dropped: they describe the analyser, not the code |
//!
//! | clang-tidy diagnostic | priority |
//! |---|---|
//! | severity `error` / `fatal error` (e.g. `clang-diagnostic-error`) | 1 |
//! | `clang-analyzer-core.*`, `clang-analyzer-cplusplus.*`, `clang-analyzer-unix.*` (path-sensitive: null dereference, use of garbage, leak, double free) | 1 |
//! | other `clang-analyzer-*` (`security.insecureAPI`, `deadcode`, `optin`, ...) | 2 |
//! | `bugprone-*`, `cert-*`, `cppcoreguidelines-*`, `clang-diagnostic-*` warnings | 2 |
//! | everything else (`performance-*`, `readability-*`, `misc-*`, `modernize-*`, `portability-*`, ...) | 3 |
//!
//! Identical findings (same path, position, rule and message, e.g. a header's warning
//! repeated for each translation unit that includes it) are kept once, and findings are
//! sorted by path, line and column.

use crate::ReportError;
use crate::paths::relative_to_box;
use crate::xml::{Element, Stream, number};
use std::collections::BTreeSet;
use std::path::Path;
use verdict_contracts::{PriorityCount, StaticReport, StaticSummary, Violation};

const CPPCHECK: &str = "cppcheck";

/// cppcheck's home page, for [`StaticTool::url`].
pub const CPPCHECK_URL: &str = "https://cppcheck.sourceforge.io";
/// clang-tidy's home page, for [`StaticTool::url`].
pub const CLANG_TIDY_URL: &str = "https://clang.llvm.org/extra/clang-tidy/";

/// cppcheck ids that describe the analyser's own trouble, not the code.
const CPPCHECK_TOOL_IDS: &[&str] = &[
    "syntaxError",
    "cppcheckError",
    "internalAstError",
    "internalError",
    "unknownMacro",
    "missingInclude",
    "missingIncludeSystem",
    "toomanyconfigs",
    "checkersReport",
    "normalCheckLevelMaxBranches",
    "preprocessorErrorDirective",
];

/// Parses cppcheck's `--xml` (version 2) output into violations.
pub fn parse_cppcheck_xml(xml: &str, box_dir: &Path) -> Result<Vec<Violation>, ReportError> {
    let mut stream = Stream::new(xml, CPPCHECK);
    stream.expect_root("results")?;
    let mut violations = Vec::new();
    stream.each_subtree("error", |error| {
        violations.extend(cppcheck_violation(&error, box_dir)?);
        Ok(())
    })?;
    Ok(tidy_up(violations))
}

/// The priority of a cppcheck finding, `None` when it is dropped (see the module docs).
pub fn cppcheck_priority(id: &str, severity: &str) -> Option<u8> {
    if CPPCHECK_TOOL_IDS.contains(&id) {
        return None;
    }
    match (id, severity) {
        ("virtualDestructor", _) => Some(2),
        (_, "error") => Some(1),
        (_, "warning") => Some(2),
        (_, "style" | "performance" | "portability") => Some(3),
        _ => None,
    }
}

fn cppcheck_violation(error: &Element, box_dir: &Path) -> Result<Option<Violation>, ReportError> {
    let id = error.attr("id").unwrap_or_default();
    let severity = error.attr("severity").unwrap_or_default();
    let Some(priority) = cppcheck_priority(id, severity) else {
        return Ok(None);
    };
    // The first <location> is where the problem is; later ones are the path to it.
    let location = error.child("location");
    let path = location
        .and_then(|l| l.attr("file"))
        .or_else(|| error.attr("file0"))
        .unwrap_or_default();
    let position = |name: &str| -> Result<u32, ReportError> {
        location
            .and_then(|l| l.attr(name))
            .map_or(Ok(0), |v| number(v, CPPCHECK, "location"))
    };
    let line = position("line")?;
    let column = position("column")?;
    Ok(Some(Violation {
        path: relative_to_box(path, box_dir),
        rule: id.to_owned(),
        end_line: line,
        message: error.attr("msg").unwrap_or_default().to_owned(),
        category: severity.to_owned(),
        priority,
        end_column: column,
        start_line: line,
        start_column: column,
    }))
}

/// Parses clang-tidy's console output (`file:line:col: warning: message [check]`) into
/// violations; notes, source excerpts and summary lines are skipped.
pub fn parse_clang_tidy(text: &str, box_dir: &Path) -> Vec<Violation> {
    let violations = text
        .lines()
        .filter_map(|line| clang_tidy_line(line.trim_end_matches('\r'), box_dir))
        .collect();
    tidy_up(violations)
}

/// The priority of a clang-tidy diagnostic (see the module docs).
pub fn clang_tidy_priority(check: &str, severity: &str) -> u8 {
    if severity != "warning" {
        return 1;
    }
    /// Check prefixes and their priority, the first that matches wins.
    const PRIORITIES: [(&[&str], u8); 2] = [
        (
            &[
                "clang-analyzer-core.",
                "clang-analyzer-cplusplus.",
                "clang-analyzer-unix.",
            ],
            1,
        ),
        (
            &[
                "clang-analyzer-",
                "bugprone-",
                "cert-",
                "cppcoreguidelines-",
                "clang-diagnostic-",
            ],
            2,
        ),
    ];
    PRIORITIES
        .iter()
        .find(|(prefixes, _)| prefixes.iter().any(|p| check.starts_with(p)))
        .map_or(3, |(_, priority)| *priority)
}

fn clang_tidy_line(line: &str, box_dir: &Path) -> Option<Violation> {
    let (head, severity, rest) = [": warning: ", ": error: ", ": fatal error: "]
        .iter()
        .find_map(|marker| {
            line.split_once(marker)
                .map(|(h, r)| (h, marker.trim_matches([':', ' ']), r))
        })?;
    // head is "path:line:col"; the path itself may contain ':'.
    let (path_line, column) = head.rsplit_once(':')?;
    let (path, line_no) = path_line.rsplit_once(':')?;
    let line_no: u32 = line_no.parse().ok()?;
    let column: u32 = column.parse().ok()?;
    let (message, check) = match rest.rsplit_once(" [") {
        Some((message, check)) if check.ends_with(']') => {
            let check = check.trim_end_matches(']');
            // Aliased checks print as "[a,b]"; the first names the finding.
            let check = check.split(',').next().unwrap_or(check);
            (message, check.to_owned())
        }
        _ => (
            rest,
            format!("clang-diagnostic-{}", severity.replace(' ', "-")),
        ),
    };
    let category = ["clang-analyzer", "clang-diagnostic"]
        .iter()
        .find(|p| check.starts_with(*p))
        .map_or_else(
            || check.split('-').next().unwrap_or_default().to_owned(),
            |p| (*p).to_owned(),
        );
    Some(Violation {
        path: relative_to_box(path, box_dir),
        priority: clang_tidy_priority(&check, severity),
        rule: check,
        end_line: line_no,
        message: message.to_owned(),
        category,
        end_column: column,
        start_line: line_no,
        start_column: column,
    })
}

/// Drops exact duplicates and sorts by path, position and rule.
fn tidy_up(violations: Vec<Violation>) -> Vec<Violation> {
    let mut seen = BTreeSet::new();
    let mut kept: Vec<Violation> = violations
        .into_iter()
        .filter(|v| {
            seen.insert((
                v.path.clone(),
                v.start_line,
                v.start_column,
                v.rule.clone(),
                v.message.clone(),
            ))
        })
        .collect();
    kept.sort_by(|a, b| {
        (&a.path, a.start_line, a.start_column, &a.rule).cmp(&(
            &b.path,
            b.start_line,
            b.start_column,
            &b.rule,
        ))
    });
    kept
}

/// Reads oclint's own JSON report (`oclint -report-type json`), already in the
/// contract's shape, and makes its violation paths relative to the box. The summary is
/// kept as oclint wrote it; violations keep oclint's priorities.
pub fn parse_oclint_json(json: &str, box_dir: &Path) -> Result<StaticReport, ReportError> {
    let mut report: StaticReport =
        serde_json::from_str(json).map_err(|source| ReportError::Json {
            tool: "oclint",
            source,
        })?;
    for v in &mut report.violation {
        v.path = relative_to_box(&v.path, box_dir);
    }
    Ok(report)
}

/// Which analyser(s) produced a static report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticTool {
    /// The analyser's home page (the report's `url`).
    pub url: String,
    /// The analyser's version (the report's `version`), e.g. `"cppcheck 2.10"`.
    pub version: String,
}

/// Assembles the oclint-shaped report: summary counts for priorities 1, 2 and 3 (always
/// all three), files with findings, the tool's url and version, and `timestamp` (Unix
/// seconds, passed in so that reports are reproducible). `numberOfFiles` is
/// `number_of_files` (the files analysed), raised to the number of files with findings
/// when a finding lies in a header that was not counted.
pub fn build_static_report(
    violations: Vec<Violation>,
    number_of_files: u32,
    tool: &StaticTool,
    timestamp: i64,
) -> StaticReport {
    let violations = tidy_up(violations);
    let count = |p: u8| {
        let n = violations.iter().filter(|v| v.priority == p).count();
        PriorityCount {
            number: u32::try_from(n).unwrap_or(u32::MAX),
            priority: p,
        }
    };
    let files: BTreeSet<&str> = violations.iter().map(|v| v.path.as_str()).collect();
    let with_violations = u32::try_from(files.len()).unwrap_or(u32::MAX);
    StaticReport {
        url: tool.url.clone(),
        summary: StaticSummary {
            number_of_files: number_of_files.max(with_violations),
            number_of_files_with_violations: with_violations,
            number_of_violations_with_priority: vec![count(1), count(2), count(3)],
        },
        version: tool.version.clone(),
        timestamp,
        violation: violations,
        clang_static_analyzer: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clang_tidy_lines_are_split() {
        let box_dir = Path::new("/box");
        let text = "/box/a b:c.cpp:3:9: warning: x is [y] bad [bugprone-foo,cert-bar]\n\
                    /box/a.cpp:4:1: note: here\n\
                    /box/a.cpp:1:10: fatal error: 'x.h' file not found [clang-diagnostic-error]\n\
                    /box/a.cpp:2:2: error: no brackets\n\
                    12 warnings generated.\n";
        let v = parse_clang_tidy(text, box_dir);
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].path, "a b:c.cpp");
        assert_eq!(v[0].message, "x is [y] bad");
        assert_eq!(v[0].rule, "bugprone-foo");
        assert_eq!((v[0].priority, v[0].category.as_str()), (2, "bugprone"));
        assert_eq!(
            (v[1].rule.as_str(), v[1].priority, v[1].start_line),
            ("clang-diagnostic-error", 1, 1)
        );
        assert_eq!(
            (v[2].rule.as_str(), v[2].message.as_str()),
            ("clang-diagnostic-error", "no brackets")
        );
    }

    #[test]
    fn clang_tidy_garbage_is_ignored() {
        assert!(
            parse_clang_tidy("a:b:c: warning: x [y]\n: warning: \n\u{0}", Path::new("/"))
                .is_empty()
        );
    }

    #[test]
    fn priorities_follow_the_table() {
        assert_eq!(cppcheck_priority("memleak", "error"), Some(1));
        assert_eq!(cppcheck_priority("virtualDestructor", "error"), Some(2));
        assert_eq!(cppcheck_priority("uninitvar", "warning"), Some(2));
        assert_eq!(cppcheck_priority("passedByValue", "performance"), Some(3));
        assert_eq!(
            cppcheck_priority("missingIncludeSystem", "information"),
            None
        );
        assert_eq!(cppcheck_priority("syntaxError", "error"), None);
        assert_eq!(
            clang_tidy_priority("clang-analyzer-core.NullDereference", "warning"),
            1
        );
        assert_eq!(
            clang_tidy_priority("clang-analyzer-security.insecureAPI.strcpy", "warning"),
            2
        );
        assert_eq!(
            clang_tidy_priority("cppcoreguidelines-virtual-class-destructor", "warning"),
            2
        );
        assert_eq!(
            clang_tidy_priority("performance-unnecessary-value-param", "warning"),
            3
        );
        assert_eq!(clang_tidy_priority("readability-x", "error"), 1);
    }

    #[test]
    fn malformed_cppcheck_xml_is_an_error() {
        let b = Path::new("/");
        assert!(parse_cppcheck_xml("", b).is_err());
        assert!(parse_cppcheck_xml("<results><errors>", b).is_err());
        assert!(parse_cppcheck_xml("Checking a.cpp ...", b).is_err());
        let bad_line = "<results><errors><error id=\"x\" severity=\"error\" msg=\"m\"><location file=\"a\" line=\"z\" column=\"1\"/></error></errors></results>";
        assert!(matches!(
            parse_cppcheck_xml(bad_line, b),
            Err(ReportError::BadValue { .. })
        ));
    }

    #[test]
    fn oclint_json_is_read_as_is() {
        // Shortened from the contract's example (oclint 0.10.2).
        let json = r#"{"url":"http://oclint.org","summary":{"numberOfFiles":1,"numberOfFilesWithViolations":1,
            "numberOfViolationsWithPriority":[{"number":0,"priority":1},{"number":1,"priority":2},{"number":0,"priority":3}]},
            "version":"0.10.2","timestamp":1562168756,"violation":[{"path":"/tmp/employee.hpp",
            "rule":"destructor of virtual class","endLine":19,"message":"class Employee should have a virtual destructor ~Employee()",
            "category":"convention","priority":2,"endColumn":1,"startLine":8,"startColumn":1}],"clangStaticAnalyzer":[]}"#;
        let r = parse_oclint_json(json, Path::new("/tmp")).unwrap();
        assert_eq!(r.violation[0].path, "employee.hpp");
        assert_eq!(
            (
                r.violation[0].start_line,
                r.violation[0].end_line,
                r.violation[0].priority
            ),
            (8, 19, 2)
        );
        assert_eq!(r.summary.number_of_violations_with_priority[1].number, 1);
        assert!(matches!(
            parse_oclint_json("{", Path::new("/")),
            Err(ReportError::Json { .. })
        ));
        assert!(matches!(
            parse_oclint_json("{}", Path::new("/")),
            Err(ReportError::Json { .. })
        ));
    }

    #[test]
    fn summary_lists_all_three_priorities() {
        let tool = StaticTool {
            url: CPPCHECK_URL.into(),
            version: "cppcheck 2.10".into(),
        };
        let r = build_static_report(Vec::new(), 2, &tool, 7);
        let counts: Vec<(u32, u8)> = r
            .summary
            .number_of_violations_with_priority
            .iter()
            .map(|c| (c.number, c.priority))
            .collect();
        assert_eq!(counts, [(0, 1), (0, 2), (0, 3)]);
        assert_eq!(r.summary.number_of_files_with_violations, 0);
        assert_eq!(r.timestamp, 7);
    }
}
