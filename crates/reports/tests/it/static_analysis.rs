use crate::{box_dir, fixture};
use verdict_reports::{
    CPPCHECK_URL, StaticReport, StaticTool, Violation, build_static_report, parse_clang_tidy,
    parse_cppcheck_xml, static_score,
};

fn summary(v: &[Violation]) -> Vec<(&str, u32, &str, u8)> {
    v.iter()
        .map(|v| (v.path.as_str(), v.start_line, v.rule.as_str(), v.priority))
        .collect()
}

/// The report of `violations` in `files` files by the tools of `version`, made at `timestamp`.
fn report_of(
    violations: Vec<Violation>,
    files: u32,
    version: &str,
    timestamp: i64,
) -> StaticReport {
    let tool = StaticTool {
        url: CPPCHECK_URL.into(),
        version: version.into(),
    };
    build_static_report(violations, files, &tool, timestamp)
}

#[test]
fn cppcheck_findings() {
    let v = parse_cppcheck_xml(&fixture("static/cppcheck_bad.xml"), box_dir()).unwrap();
    assert_eq!(
        summary(&v),
        [
            ("employee.hpp", 8, "noExplicitConstructor", 3),
            ("employee.hpp", 8, "passedByValue", 3),
            ("employee.hpp", 9, "virtualDestructor", 2),
            ("employee.hpp", 16, "noExplicitConstructor", 3),
            ("employee.hpp", 16, "passedByValue", 3),
            ("employee.hpp", 23, "noExplicitConstructor", 3),
            ("employee.hpp", 23, "passedByValue", 3),
            ("static_bad.cpp", 12, "legacyUninitvar", 1),
            ("static_bad.cpp", 14, "uninitvar", 2),
            ("static_bad.cpp", 18, "cstyleCast", 3),
            ("static_bad.cpp", 21, "memleak", 1),
            ("static_bad.cpp", 25, "arrayIndexOutOfBounds", 1),
            ("static_bad.cpp", 32, "nullPointer", 1),
        ]
    );
    let report = report_of(v, 2, "cppcheck 2.10", 1_562_168_756);
    let by_priority = &report.summary.number_of_violations_with_priority;
    let counts: Vec<(u32, u8)> = by_priority.iter().map(|c| (c.number, c.priority)).collect();
    assert_eq!(counts, [(4, 1), (2, 2), (7, 3)]);
    assert_eq!(report.summary.number_of_files, 2);
    assert_eq!(report.summary.number_of_files_with_violations, 2);
    // 4 x 20% + 2 x 10% = 100%.
    assert_eq!(static_score(&report).to_string(), "0/1");
    insta::assert_json_snapshot!("cppcheck_report", report);
}

#[test]
fn cppcheck_clean() {
    let v = parse_cppcheck_xml(&fixture("static/cppcheck_clean.xml"), box_dir()).unwrap();
    assert!(v.is_empty());
    let report = report_of(v, 1, "cppcheck 2.10", 0);
    assert_eq!(report.summary.number_of_files_with_violations, 0);
    assert_eq!(static_score(&report).to_string(), "1/1");
}

#[test]
fn clang_tidy_findings() {
    let v = parse_clang_tidy(&fixture("static/clang_tidy_bad.txt"), box_dir());
    assert_eq!(
        summary(&v),
        [
            (
                "employee.hpp",
                6,
                "cppcoreguidelines-virtual-class-destructor",
                2
            ),
            ("employee.hpp", 8, "performance-unnecessary-value-param", 3),
            (
                "employee.hpp",
                14,
                "cppcoreguidelines-virtual-class-destructor",
                2
            ),
            ("employee.hpp", 16, "performance-unnecessary-value-param", 3),
            (
                "employee.hpp",
                21,
                "cppcoreguidelines-virtual-class-destructor",
                2
            ),
            ("employee.hpp", 23, "performance-unnecessary-value-param", 3),
            ("static_bad.cpp", 10, "cppcoreguidelines-init-variables", 2),
            (
                "static_bad.cpp",
                12,
                "clang-analyzer-core.uninitialized.Assign",
                1
            ),
            (
                "static_bad.cpp",
                19,
                "clang-analyzer-security.insecureAPI.strcpy",
                2
            ),
            (
                "static_bad.cpp",
                26,
                "clang-analyzer-core.uninitialized.UndefReturn",
                1
            ),
            (
                "static_bad.cpp",
                32,
                "clang-analyzer-core.NullDereference",
                1
            ),
        ]
    );
    assert_eq!(
        (v[0].start_column, v[0].category.as_str()),
        (7, "cppcoreguidelines")
    );
    assert_eq!(
        v[0].message,
        "destructor of 'Employee' is public and non-virtual"
    );
    insta::assert_json_snapshot!("clang_tidy_violations", v);
}

#[test]
fn clang_tidy_clean() {
    assert!(parse_clang_tidy(&fixture("static/clang_tidy_clean.txt"), box_dir()).is_empty());
}

#[test]
fn findings_of_both_tools_merge_into_one_report() {
    let mut v = parse_cppcheck_xml(&fixture("static/cppcheck_bad.xml"), box_dir()).unwrap();
    v.extend(parse_clang_tidy(
        &fixture("static/clang_tidy_bad.txt"),
        box_dir(),
    ));
    let report = report_of(v, 2, "cppcheck 2.10, clang-tidy 14.0.6", 0);
    assert_eq!(report.violation.len(), 13 + 11);
    let json = serde_json::to_value(&report).unwrap();
    // The wire names of the contract's oclint example.
    for key in [
        "url",
        "summary",
        "version",
        "timestamp",
        "violation",
        "clangStaticAnalyzer",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    for key in [
        "path",
        "rule",
        "endLine",
        "message",
        "category",
        "priority",
        "endColumn",
        "startLine",
        "startColumn",
    ] {
        assert!(json["violation"][0].get(key).is_some(), "{key}");
    }
    assert!(json["summary"]["numberOfViolationsWithPriority"].is_array());
}
