//! Every parser on every prefix of every fixture: an error value or a report, never a panic.

use crate::{box_dir, fixture};
use verdict_reports::{
    parse_clang_tidy, parse_cppcheck_xml, parse_gtest_stdout, parse_gtest_xml, parse_valgrind_xml,
};

const XML_FIXTURES: &[&str] = &[
    "gtest/pass.xml",
    "gtest/partial.xml",
    "gtest/partial_all.xml",
    "valgrind/clean.xml",
    "valgrind/leak.xml",
    "valgrind/invalid.xml",
    "valgrind/uninit.xml",
    "valgrind/free.xml",
    "valgrind/segv.xml",
    "valgrind/killed.xml",
    "static/cppcheck_bad.xml",
    "static/cppcheck_clean.xml",
];

const TEXT_FIXTURES: &[&str] = &[
    "gtest/pass.stdout",
    "gtest/partial.stdout",
    "gtest/crash.stdout",
    "static/clang_tidy_bad.txt",
];

fn prefixes(text: &str) -> impl Iterator<Item = &str> {
    // Every prefix of the first 2 KiB, then every 7th byte: enough to cut every element.
    (0..text.len())
        .filter(|&i| i < 2048 || i % 7 == 0)
        .filter(|&i| text.is_char_boundary(i))
        .map(|i| &text[..i])
}

#[test]
fn cut_xml_never_panics_and_never_parses_as_complete() {
    for name in XML_FIXTURES {
        let xml = fixture(name);
        let complete = xml.trim_end().len();
        for prefix in prefixes(&xml) {
            let results = [
                parse_gtest_xml(prefix).is_ok(),
                parse_valgrind_xml(prefix, box_dir()).is_ok(),
                parse_cppcheck_xml(prefix, box_dir()).is_ok(),
            ];
            if prefix.len() < complete {
                assert!(
                    results.iter().all(|ok| !ok),
                    "{name} cut at {} parsed",
                    prefix.len()
                );
            }
        }
    }
}

#[test]
fn cut_text_never_panics() {
    for name in TEXT_FIXTURES {
        let text = fixture(name);
        for prefix in prefixes(&text) {
            let report = parse_gtest_stdout(prefix);
            assert_eq!(
                report.total_cases,
                report.pass_cases + report.error_cases + report.disabled_cases
            );
            let _ = parse_clang_tidy(prefix, box_dir());
        }
    }
}
