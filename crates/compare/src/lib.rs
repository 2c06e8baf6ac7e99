//! verdict-compare: what "equal" means, everywhere in verdict.
//!
//! Every rule by which verdict holds a program's output against an expected one lives here,
//! and only here:
//!
//! - the judge's built-in comparators, `diff-all` and `diff-ign-space` ([`BuiltinComparator`]),
//!   and the ICPC package format's default output validator, `icpc-default`
//!   ([`DefaultValidator`]);
//! - the custom comparators' protocols (judge-system 4.0, testlib, Kattis): how one is called
//!   ([`ComparatorProtocol`], [`detect_protocol`], [`judge_system_argv`], [`testlib_argv`]) and
//!   what its exit code and feedback mean ([`interpret_judge_system`], [`interpret_testlib`],
//!   [`interpret_kattis`]);
//! - the verdict in the judge contract's terms ([`CompareVerdict`], [`CompareOutcome`],
//!   [`CompareSummary`]) and the lines around a first difference for people
//!   ([`first_difference`]);
//! - the Task Oracle's rules: a function's return value against `expected` ([`values`]: JSON
//!   equality, numbers by value within a tolerance) and a script or cli run against its
//!   expectation ([`expect`]);
//! - the datasets' rule for a program's standard output ([`tokens`]: LiveCodeBench's stdio
//!   grader, lines of tokens, numbers by value).
//!
//! ```
//! use verdict_compare::{BuiltinComparator, CompareVerdict, values};
//! use verdict_contracts::oracle::FloatTolerance;
//!
//! let outcome = BuiltinComparator::DiffIgnSpace.compare_bytes(b"1  2 \n\n", b"1 2\n");
//! assert_eq!(outcome.verdict, CompareVerdict::Accepted);
//! let (got, want) = (serde_json::json!([1, 0.1 + 0.2]), serde_json::json!([1.0, 0.3]));
//! assert!(values::values_equal(&got, &want, FloatTolerance::default()));
//! assert!(verdict_compare::tokens::outputs_match("1.0 2\n", "1 2.00"));
//! ```
//!
//! # The API boundary
//!
//! This crate reads bytes: slices, readers, and the files it is given. It runs no program and
//! knows no sandbox: running a custom comparator in its box and collecting its feedback files
//! is `verdict_scripts::compare`'s job, which hands the exit and the files to the
//! `interpret_*` functions here; choosing a comparator for a task is the scheduler's plan. It
//! depends on `verdict-contracts` alone among verdict's crates (for the wire types a verdict
//! ends up in), so every crate that compares can use it without pulling in the judge.
//!
//! # Built-in comparators
//!
//! [`BuiltinComparator`]: the algorithms behind `compare_script` `diff-all` and
//! `diff-ign-space`. Both read the program's output and the expected answer side by side in
//! 64 KiB chunks, in one pass, in linear time and constant memory; they never run `diff`. The
//! in-memory variant ([`BuiltinComparator::compare_bytes`]) runs the very same code over
//! slices. Each comparator's verdict is decided in one place, `BuiltinComparator::outcome`'s
//! exhaustive match over the comparators and the pass's findings.
//!
//! ## Canonical form (both comparators)
//!
//! A `\r` immediately followed by `\n` is dropped (files written on Windows). Nothing else
//! changes: a lone `\r`, NUL bytes and invalid UTF-8 are ordinary bytes.
//!
//! ## Normalised form (GNU `diff -b -B`)
//!
//! A *blank* is space, tab, `\r`, vertical tab (0x0B) or form feed (0x0C): ASCII white space
//! other than `\n`; every other byte (NUL, non-ASCII white space such as U+00A0, invalid UTF-8)
//! is content. The file is split into lines at `\n` (a last line without `\n` is still a
//! line). Then:
//!
//! 1. a line made only of blanks (or empty) is removed (`-B`);
//! 2. blanks at the end of a line are removed (`-b`);
//! 3. every other run of blanks becomes one space (`-b`). This includes a run at the *start* of a
//!    line: as with GNU `diff -b`, `"  a"` equals `" a"` but not `"a"`, just as `"a  b"` equals
//!    `"a b"` but not `"ab"`. The presence of a blank is significant, its amount is not;
//! 4. each remaining line ends with `\n` (so a missing final newline does not matter).
//!
//! Two files are *equal after normalisation* when their normalised forms are byte-identical.
//!
//! This is GNU `diff -b -B` read as "blank lines removed, then compared with `-b`". GNU applies
//! `-B` to the hunks its line alignment produces, so in rare inputs it pairs blank lines across
//! the files and then reports a non-blank line as moved; here such outputs are equal. A
//! randomised cross-check against GNU diffutils 3.8 (1,900 small pairs) differed only in that
//! way (5 pairs, all "equal" here and "different" for GNU).
//!
//! ## Verdicts
//!
//! - `diff-all`: canonical forms identical: Accepted; else normalised forms equal:
//!   Presentation Error (a missing final newline, trailing blanks, extra blank lines, runs of
//!   blanks); else Wrong Answer.
//! - `diff-ign-space`: normalised forms equal: Accepted; else Wrong Answer.
//!
//! So `diff-all` Accepted implies `diff-ign-space` Accepted, and `diff-all` gives Presentation
//! Error exactly when `diff-ign-space` accepts an output that is not identical.
//!
//! On Wrong Answer the message names the first differing line of each file (line numbers of
//! the original files, which differ when blank lines were skipped) and shows both lines around
//! the difference, escaped and cut to 64 bytes either side, e.g.
//! `wrong answer at line 3: expected "1 2 3", got "1 2 4"`. Messages stay under 1 KiB.
//!
//! ```
//! use verdict_compare::{BuiltinComparator, CompareVerdict};
//!
//! let diff_all = BuiltinComparator::DiffAll;
//! assert_eq!(diff_all.compare_bytes(b"1 2\r\n", b"1 2\n").verdict, CompareVerdict::Accepted);
//! assert_eq!(diff_all.compare_bytes(b"1  2", b"1 2\n").verdict, CompareVerdict::PresentationError);
//! let wrong = BuiltinComparator::DiffIgnSpace.compare_bytes(b"1 2\n3 5\n", b"1 2\n3 4\n");
//! assert_eq!(wrong.verdict, CompareVerdict::WrongAnswer);
//! assert_eq!(wrong.message, "wrong answer at line 2: expected \"3 4\", got \"3 5\"");
//! ```
//!
//! # Custom comparators
//!
//! [`ComparatorProtocol`] selects how a custom comparator is called and read (the feedback
//! files its verdict is read from, an interactor's exits that reject the program);
//! [`judge_system_argv`] / [`testlib_argv`] build its command line and
//! [`interpret_judge_system`] / [`interpret_testlib`] / [`interpret_kattis`] turn its exit and
//! feedback into an outcome.
//! Running it (in the sandbox) is `verdict_scripts::compare::run_comparator`'s job.
//!
//! # Compare Error is a verdict
//!
//! A comparator that misbehaves (unexpected exit code, crash, limit hit, malformed `score.txt`)
//! yields `Ok` with [`CompareVerdict::CompareError`] and the reason as the message: the judge did
//! its job. [`CompareError`] (the `Err` side) is only for the judge failing to read its own files.

mod builtin;
mod context;
mod custom;
mod engine;
mod error;
pub mod expect;
mod icpc_default;
mod normalize;
mod source;
pub mod tokens;
pub mod values;
mod verdict;

pub use builtin::{BuiltinComparator, CHUNK_SIZE};
pub use context::{CONTEXT_LINES, LINE_CHARS, first_difference, first_difference_bytes};
pub use custom::{
    ComparatorExit, ComparatorProtocol, JudgeSystemPaths, TestlibPaths, detect_protocol,
    interpret_judge_system, interpret_kattis, interpret_testlib, judge_system_argv, testlib_argv,
};
pub use error::CompareError;
pub use icpc_default::{DefaultValidator, TOKEN_MAX};
pub use verdict::{
    CompareOutcome, CompareSummary, CompareVerdict, MESSAGE_LIMIT, REPORT_LIMIT, escape_bytes,
};
