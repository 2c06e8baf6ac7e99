//! verdict-reports: turns the output of real tools into the judge contract's report
//! shapes, and scores them.
//!
//! | tool | input | parser | report | score |
//! |---|---|---|---|---|
//! | Google Test | `--gtest_output=xml:FILE` | [`parse_gtest_xml`] / [`parse_gtest_xml_in_box`] | [`GoogleTestReport`] | [`gtest_score`] |
//! | Google Test, crashed run | the binary's stdout | [`parse_gtest_stdout`] | [`GoogleTestReport`] | [`gtest_score`] |
//! | Google Test, either | XML if any, and stdout | [`gtest_report_from_run`] | [`GoogleTestReport`] + [`GtestSource`] | [`gtest_score`] |
//! | valgrind memcheck | `--xml=yes --xml-file=FILE` | [`parse_valgrind_xml`] | [`MemoryReport`] | [`memory_score`] |
//! | cppcheck | `--xml --output-file=FILE` | [`parse_cppcheck_xml`] | [`Violation`]s | |
//! | clang-tidy | its stdout | [`parse_clang_tidy`] | [`Violation`]s | |
//! | oclint (if installed) | `-report-type json` | [`parse_oclint_json`] | [`StaticReport`] | [`static_score`] |
//! | (cppcheck, clang-tidy) | violations | [`build_static_report`] | [`StaticReport`] (oclint's shape) | [`static_score`] |
//!
//! The parsers stream with quick-xml; malformed or truncated input is a
//! [`ReportError`], never a panic. Paths are made relative to the box (the directory
//! the tools ran in). The crate does no I/O: the pipeline runs the tools and hands
//! their output over. Each module's docs say how it counts: [`gtest`] (disabled and
//! skipped cases, crashed runs), [`valgrind`] (which errors count), [`static_analysis`]
//! (the severity-to-priority mapping), [`score`] (the score strings).
//!
//! # Running the tools
//!
//! The command lines the fixtures were made with (`scripts/regen-report-fixtures.sh`),
//! run with the box as working directory; Debian 12 packages `googletest libgtest-dev
//! valgrind cppcheck clang-tidy` (oclint is not packaged).
//!
//! * gtest: `g++ -std=gnu++17 -O0 -g -o test <sources> -lgtest_main -lgtest -pthread`
//!   (static libraries; `gtest_main` is only pulled in when no source defines `main`,
//!   so one command serves both), then
//!   `./test --gtest_output=xml:gtest.xml <run_args>`, keeping stdout for
//!   [`gtest_report_from_run`]. Exit status 1 just means some test failed.
//! * valgrind: `valgrind --tool=memcheck --leak-check=full --track-origins=yes
//!   --child-silent-after-fork=yes --xml=yes --xml-file=valgrind.xml ./main`. Its exit
//!   status is the program's. Allow about 150 MB more memory and 20-50x more time than
//!   the bare program.
//! * cppcheck: `cppcheck --xml --enable=warning,style,performance,portability
//!   --inline-suppr -q --language=c++ --std=c++17 --output-file=cppcheck.xml <sources>`
//!   (without `--output-file` the XML goes to stderr and progress lines to stdout).
//! * clang-tidy: `clang-tidy --quiet --checks=-*,clang-analyzer-*,bugprone-*,cert-*,
//!   cppcoreguidelines-virtual-class-destructor,cppcoreguidelines-init-variables,misc-*,
//!   -misc-unused-parameters,-misc-non-private-member-variables-in-classes,
//!   -misc-no-recursion,performance-*,portability-*,readability-misleading-indentation
//!   --header-filter=.* <sources> -- -std=gnu++17` (one comma-separated argument);
//!   findings on stdout, "N warnings generated" on stderr.
//!
//! # Quick start
//!
//! ```
//! use verdict_reports::{gtest_score, parse_gtest_xml};
//!
//! let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
//! <testsuites tests="3" failures="1" disabled="1" name="AllTests">
//!   <testsuite name="AdderTest" tests="3" failures="1" disabled="1">
//!     <testcase name="addTest" status="run" result="completed" classname="AdderTest">
//!       <failure message="test.cpp:11&#x0A;Expected equality of these values:&#x0A;  adder(1, 2)&#x0A;    Which is: 2&#x0A;  3" type=""/>
//!     </testcase>
//!     <testcase name="addZero" status="run" result="completed" classname="AdderTest"/>
//!     <testcase name="DISABLED_later" status="notrun" result="suppressed" classname="AdderTest"/>
//!   </testsuite>
//! </testsuites>"#;
//!
//! let report = parse_gtest_xml(xml)?;
//! assert_eq!((report.total_cases, report.pass_cases, report.error_cases, report.disabled_cases), (3, 1, 1, 1));
//! assert_eq!(report.report[0].suite, "AdderTest");
//! assert!(report.report[0].message.starts_with("test.cpp:11\n"));
//! assert_eq!(gtest_score(&report).to_string(), "1/3");
//!
//! // A cut-off document is an error value, not a panic.
//! assert!(parse_gtest_xml(&xml[..200]).is_err());
//! # Ok::<(), verdict_reports::ReportError>(())
//! ```

mod error;
pub mod gtest;
mod paths;
pub mod score;
pub mod static_analysis;
pub mod valgrind;
mod xml;

pub use error::ReportError;
pub use gtest::{
    GtestSource, gtest_report_from_run, parse_gtest_stdout, parse_gtest_xml, parse_gtest_xml_in_box,
};
pub use paths::relative_to_box;
pub use score::{gtest_score, memory_score, static_score};
pub use static_analysis::{
    CLANG_TIDY_URL, CPPCHECK_URL, StaticTool, build_static_report, clang_tidy_priority,
    cppcheck_priority, parse_clang_tidy, parse_cppcheck_xml, parse_oclint_json,
};
pub use valgrind::parse_valgrind_xml;
pub use verdict_contracts::{
    GoogleTestFailureCase, GoogleTestReport, MemoryError, MemoryReport, PriorityCount, Score,
    StackFrame, StaticReport, StaticSummary, Violation,
};
