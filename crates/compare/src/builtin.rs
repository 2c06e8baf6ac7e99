//! The built-in comparators `diff-all` and `diff-ign-space` over files, readers and memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use verdict_contracts::CompareScript;

use crate::engine::{self, Comparison, Difference, Which};
use crate::error::CompareError;
use crate::source::{ReadSource, Side, SliceSource, Snippet};
use crate::verdict::{CompareOutcome, CompareVerdict, escape_bytes, truncate};

/// Bytes read from each input at a time.
pub const CHUNK_SIZE: usize = 64 * 1024;

/// A built-in comparator: the algorithm behind a `compare_script` of the contract
/// ([`CompareScript`], where its name is spelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BuiltinComparator {
    /// `diff-all`: identical is Accepted, equal after normalisation Presentation Error, else Wrong Answer.
    DiffAll,
    /// `diff-ign-space`: equal after normalisation (GNU `diff -b -B`) is Accepted, else Wrong Answer.
    DiffIgnSpace,
}

impl BuiltinComparator {
    /// Every built-in comparator (a test checks it against [`Self::from_script`]).
    pub const ALL: [BuiltinComparator; 2] = [Self::DiffAll, Self::DiffIgnSpace];

    /// The `compare_script` of this comparator.
    pub fn script(self) -> CompareScript {
        match self {
            Self::DiffAll => CompareScript::DiffAll,
            Self::DiffIgnSpace => CompareScript::DiffIgnSpace,
        }
    }

    /// The built-in comparator a `compare_script` names, `None` for a script that is not one
    /// (a special test's report, the problem's comparator, the default validator). No
    /// catch-all: a script added to the contract does not compile until it is placed here.
    pub fn from_script(script: CompareScript) -> Option<Self> {
        match script {
            CompareScript::DiffAll => Some(Self::DiffAll),
            CompareScript::DiffIgnSpace => Some(Self::DiffIgnSpace),
            CompareScript::Valgrind
            | CompareScript::Gtest
            | CompareScript::Custom
            | CompareScript::IcpcDefault => None,
        }
    }

    /// The `compare_script` name of this comparator.
    pub fn script_name(self) -> &'static str {
        self.script().as_str()
    }

    /// Compares a program's output file with the expected answer file.
    pub fn compare_files(
        self,
        output: &Path,
        answer: &Path,
    ) -> Result<CompareOutcome, CompareError> {
        let open = |path: &Path| {
            File::open(path).map_err(|source| CompareError::Io {
                path: path.to_path_buf(),
                source,
            })
        };
        let (out_file, ans_file) = (open(output)?, open(answer)?);
        self.run_readers(out_file, ans_file, CHUNK_SIZE)
            .map_err(|(which, source)| CompareError::Io {
                path: match which {
                    Which::Output => output.to_path_buf(),
                    Which::Answer => answer.to_path_buf(),
                },
                source,
            })
    }

    /// Compares two readers (output, answer) in one streaming pass with bounded buffers.
    pub fn compare_readers<O: Read, A: Read>(
        self,
        output: O,
        answer: A,
    ) -> Result<CompareOutcome, CompareError> {
        self.run_readers(output, answer, CHUNK_SIZE)
            .map_err(|(which, source)| CompareError::Read {
                side: match which {
                    Which::Output => "program output",
                    Which::Answer => "expected answer",
                },
                source,
            })
    }

    /// Streams two readers with an explicit chunk size (tests use tiny ones).
    pub(crate) fn run_readers<O: Read, A: Read>(
        self,
        output: O,
        answer: A,
        chunk: usize,
    ) -> Result<CompareOutcome, (Which, std::io::Error)> {
        let mut out = Side::new(ReadSource(output), chunk);
        let mut ans = Side::new(ReadSource(answer), chunk);
        engine::compare(&mut out, &mut ans).map(|comparison| self.outcome(&comparison))
    }

    /// Compares output and answer held in memory (same algorithm as the streaming variants).
    pub fn compare_bytes(self, output: &[u8], answer: &[u8]) -> CompareOutcome {
        self.compare_bytes_chunked(output, answer, CHUNK_SIZE)
    }

    /// [`Self::compare_bytes`] with an explicit chunk size (tests use tiny ones).
    pub(crate) fn compare_bytes_chunked(
        self,
        output: &[u8],
        answer: &[u8],
        chunk: usize,
    ) -> CompareOutcome {
        // A slice never needs a buffer larger than itself.
        let mut out = Side::new(SliceSource(output), chunk.min(output.len() + 1));
        let mut ans = Side::new(SliceSource(answer), chunk.min(answer.len() + 1));
        match engine::compare(&mut out, &mut ans) {
            Ok(comparison) => self.outcome(&comparison),
            Err((_, never)) => match never {},
        }
    }

    /// Turns one pass's findings into this comparator's verdict and message: the one place
    /// each comparator's verdict is decided. Exhaustive over the comparators and over the
    /// pass's findings, so neither a new comparator nor a new finding compiles unplaced.
    fn outcome(self, comparison: &Comparison) -> CompareOutcome {
        let Comparison {
            first_exact_difference,
            difference,
        } = comparison;
        let wrong =
            |difference| CompareOutcome::new(CompareVerdict::WrongAnswer, describe(difference));
        let accepted = || CompareOutcome::new(CompareVerdict::Accepted, "");
        match self {
            Self::DiffAll => match (difference, first_exact_difference) {
                (Some(difference), _) => wrong(difference),
                (None, Some(line)) => CompareOutcome::new(
                    CompareVerdict::PresentationError,
                    format!(
                        "output differs from the answer only in white space or blank lines, first at line {line}"
                    ),
                ),
                (None, None) => accepted(),
            },
            Self::DiffIgnSpace => match difference {
                Some(difference) => wrong(difference),
                None => accepted(),
            },
        }
    }
}

/// The Wrong Answer message: where, and both lines around the first difference.
fn describe(difference: &Difference) -> String {
    let place = if difference.output_line == difference.answer_line {
        format!("line {}", difference.output_line)
    } else {
        format!(
            "line {} of the output (line {} of the answer)",
            difference.output_line, difference.answer_line
        )
    };
    format!(
        "wrong answer at {place}: expected {}, got {}",
        show(difference.answer.as_ref()),
        show(difference.output.as_ref()),
    )
}

/// Bytes of one escaped snippet in a message, so both fit in [`crate::verdict::MESSAGE_LIMIT`].
const SNIPPET_LIMIT: usize = 400;

/// A snippet as a quoted, escaped string, `end of file` when absent.
fn show(snippet: Option<&Snippet>) -> String {
    match snippet {
        None => "end of file".to_owned(),
        Some(snippet) => format!(
            "\"{}{}{}\"",
            if snippet.cut_before { "…" } else { "" },
            truncate(escape_bytes(&snippet.bytes), SNIPPET_LIMIT),
            if snippet.cut_after { "…" } else { "" },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::BuiltinComparator::{DiffAll, DiffIgnSpace};
    use super::*;
    use crate::normalize::is_blank;
    use crate::verdict::MESSAGE_LIMIT;
    use proptest::prelude::*;
    use std::path::PathBuf;

    /// Chunk sizes that put buffer boundaries everywhere, and the real one.
    const CHUNKS: [usize; 6] = [1, 2, 3, 7, 64, CHUNK_SIZE];

    /// Compares with every chunk size, both in memory and through a reader, and checks they agree.
    fn check(kind: BuiltinComparator, output: &[u8], answer: &[u8]) -> CompareOutcome {
        let first = kind.compare_bytes_chunked(output, answer, CHUNKS[0]);
        for chunk in CHUNKS {
            assert_eq!(
                kind.compare_bytes_chunked(output, answer, chunk),
                first,
                "chunk {chunk}"
            );
            let streamed = kind.run_readers(output, answer, chunk);
            assert_eq!(
                streamed.ok().as_ref(),
                Some(&first),
                "reader, chunk {chunk}"
            );
        }
        assert!(first.message.len() <= MESSAGE_LIMIT);
        first
    }

    fn verdicts(output: &[u8], answer: &[u8]) -> (CompareVerdict, CompareVerdict) {
        (
            check(DiffAll, output, answer).verdict,
            check(DiffIgnSpace, output, answer).verdict,
        )
    }

    use CompareVerdict::{Accepted as AC, PresentationError as PE, WrongAnswer as WA};

    #[test]
    fn identical_files_are_accepted_by_both() {
        assert_eq!(verdicts(b"1 2\n3\n", b"1 2\n3\n"), (AC, AC));
    }

    #[test]
    fn empty_files_are_accepted() {
        assert_eq!(verdicts(b"", b""), (AC, AC));
    }

    #[test]
    fn crlf_is_ignored_by_both() {
        assert_eq!(verdicts(b"1 2\r\n", b"1 2\n"), (AC, AC));
        assert_eq!(verdicts(b"1 2\n3\n", b"1 2\r\n3\r\n"), (AC, AC));
    }

    #[test]
    fn lone_carriage_return_is_a_blank_not_a_newline() {
        assert_eq!(verdicts(b"1\r2\n", b"1\n2\n"), (WA, WA));
        assert_eq!(verdicts(b"1\r2\n", b"1 2\n"), (PE, AC));
        assert_eq!(verdicts(b"1 2\r", b"1 2\n"), (PE, AC));
    }

    #[test]
    fn carriage_return_before_crlf_is_kept() {
        // "\r\r\n" folds to "\r\n": a trailing blank, so only a presentation difference.
        assert_eq!(verdicts(b"a\r\r\n", b"a\n"), (PE, AC));
        assert_eq!(verdicts(b"a\r\r\n", b"a\r\n"), (PE, AC));
        assert_eq!(verdicts(b"\r\r\n", b"\r\n"), (PE, AC));
    }

    #[test]
    fn missing_final_newline_is_a_presentation_error() {
        assert_eq!(verdicts(b"1 2", b"1 2\n"), (PE, AC));
        assert_eq!(verdicts(b"1 2\n", b"1 2"), (PE, AC));
    }

    #[test]
    fn trailing_blanks_are_a_presentation_error() {
        assert_eq!(verdicts(b"1 2 \t\n", b"1 2\n"), (PE, AC));
    }

    #[test]
    fn blank_lines_are_a_presentation_error() {
        assert_eq!(verdicts(b"\n1\n\n\n2\n\n", b"1\n2\n"), (PE, AC));
        assert_eq!(verdicts(b"1\n \t \n2\n", b"1\n2\n"), (PE, AC));
    }

    #[test]
    fn runs_of_blanks_count_as_one() {
        assert_eq!(verdicts(b"1  \t 2\n", b"1 2\n"), (PE, AC));
        assert_eq!(verdicts(b"1\x0b2\x0c3\n", b"1 2 3\n"), (PE, AC));
    }

    #[test]
    fn removing_a_blank_between_tokens_is_wrong() {
        assert_eq!(verdicts(b"ab\n", b"a b\n"), (WA, WA));
    }

    #[test]
    fn leading_blanks_matter_in_presence_not_amount() {
        assert_eq!(verdicts(b"   a\n", b" a\n"), (PE, AC));
        assert_eq!(verdicts(b"  a\n", b"a\n"), (WA, WA));
        assert_eq!(verdicts(b"\ta\n", b"a\n"), (WA, WA));
    }

    #[test]
    fn only_white_space_equals_empty() {
        assert_eq!(verdicts(b" \n\t\r\n\n", b""), (PE, AC));
        assert_eq!(verdicts(b"", b"\n"), (PE, AC));
        assert_eq!(verdicts(b"  ", b""), (PE, AC));
    }

    #[test]
    fn empty_output_against_content_is_wrong() {
        assert_eq!(verdicts(b"", b"1\n"), (WA, WA));
        assert_eq!(verdicts(b"1\n", b""), (WA, WA));
    }

    #[test]
    fn different_tokens_are_wrong() {
        assert_eq!(verdicts(b"1 2 4\n", b"1 2 3\n"), (WA, WA));
        assert_eq!(verdicts(b"1 2\n", b"1 2 3\n"), (WA, WA));
        assert_eq!(verdicts(b"1\n2\n", b"1 2\n"), (WA, WA));
    }

    #[test]
    fn nul_and_binary_bytes_are_ordinary_content() {
        assert_eq!(verdicts(b"\0\xff\xfe\n", b"\0\xff\xfe\n"), (AC, AC));
        assert_eq!(verdicts(b"\0 \xff\n", b"\0  \xff"), (PE, AC));
        assert_eq!(verdicts(b"\0\n", b"\x01\n"), (WA, WA));
        assert_eq!(verdicts(b"a\0b\n", b"a b\n"), (WA, WA));
    }

    #[test]
    fn non_ascii_white_space_is_content() {
        assert_eq!(verdicts("a\u{a0}b\n".as_bytes(), b"a b\n"), (WA, WA));
        assert_eq!(verdicts("a\u{3000}\n".as_bytes(), b"a\n"), (WA, WA));
    }

    #[test]
    fn invalid_utf8_in_messages_does_not_panic() {
        let outcome = check(DiffAll, b"\xff\xc3(\n", b"\xe2\x28\xa1\n");
        assert_eq!(outcome.verdict, WA);
        assert!(outcome.message.contains('\u{fffd}'), "{}", outcome.message);
    }

    #[test]
    fn lines_longer_than_the_buffer_compare_correctly() {
        let long: Vec<u8> = (0..200_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let mut spaced = long.clone();
        spaced.extend_from_slice(b"   \n");
        assert_eq!(
            DiffAll.compare_bytes_chunked(&spaced, &long, 1000).verdict,
            PE
        );
        let mut wrong = long.clone();
        wrong[150_000] = b'#';
        let outcome = DiffIgnSpace.compare_bytes_chunked(&wrong, &long, 1000);
        assert_eq!(outcome.verdict, WA);
        assert!(outcome.message.len() <= MESSAGE_LIMIT);
        assert!(outcome.message.contains("…"), "{}", outcome.message);
        assert!(outcome.message.contains('#'), "{}", outcome.message);
    }

    #[test]
    fn messages_show_both_lines_even_when_escaping_inflates_them() {
        let output = vec![1u8; 300];
        let mut answer = output.clone();
        answer[100] = 2;
        let outcome = check(DiffAll, &output, &answer);
        assert_eq!(outcome.verdict, WA);
        assert!(outcome.message.contains("got"), "{}", outcome.message);
        assert!(outcome.message.ends_with('"'), "{}", outcome.message);
    }

    #[test]
    fn wrong_answer_message_names_the_line_and_both_texts() {
        let outcome = check(DiffAll, b"1\n2\n3 5\n", b"1\n2\n3 4\n");
        assert_eq!(
            outcome.message,
            "wrong answer at line 3: expected \"3 4\", got \"3 5\""
        );
    }

    #[test]
    fn wrong_answer_message_after_skipped_blank_lines_gives_both_line_numbers() {
        let outcome = check(DiffIgnSpace, b"\n\n1\nx\n", b"1\r\ny\r\n");
        assert_eq!(
            outcome.message,
            "wrong answer at line 4 of the output (line 2 of the answer): expected \"y\", got \"x\""
        );
    }

    #[test]
    fn wrong_answer_message_at_end_of_output() {
        let outcome = check(DiffIgnSpace, b"1\n", b"1\n2\n");
        assert_eq!(
            outcome.message,
            "wrong answer at line 2: expected \"2\", got end of file"
        );
        let outcome = check(DiffIgnSpace, b"1 2\n", b"1\n");
        assert_eq!(
            outcome.message,
            "wrong answer at line 1: expected \"1\", got \"1 2\""
        );
    }

    #[test]
    fn presentation_error_message_names_the_first_layout_difference() {
        let outcome = check(DiffAll, b"1\n2 \n3\n", b"1\n2\n3\n");
        assert_eq!(outcome.verdict, PE);
        assert!(
            outcome.message.ends_with("first at line 2"),
            "{}",
            outcome.message
        );
        assert_eq!(check(DiffIgnSpace, b"1\n2 \n3\n", b"1\n2\n3\n").message, "");
    }

    #[test]
    fn compare_files_reads_both_files_and_names_a_missing_one() {
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        let (out, ans) = (dir.path().join("out"), dir.path().join("ans"));
        assert!(std::fs::write(&out, b"1 2\r\n").is_ok());
        assert!(std::fs::write(&ans, b"1 2\n").is_ok());
        let outcome = DiffAll.compare_files(&out, &ans);
        assert_eq!(outcome.ok().map(|o| o.verdict), Some(AC));
        let missing = dir.path().join("missing");
        let err = DiffAll.compare_files(&out, &missing).err();
        assert!(
            err.is_some_and(|e| e.to_string().contains("missing")),
            "missing file must be an error naming it"
        );
    }

    #[test]
    fn each_builtin_is_the_algorithm_of_an_output_comparing_script() {
        for kind in BuiltinComparator::ALL {
            assert!(kind.script().compares_output(), "{kind:?}");
            assert_eq!(kind.script_name(), kind.script().as_str());
        }
        assert_eq!(DiffIgnSpace.script_name(), "diff-ign-space");
    }

    #[test]
    fn all_lists_every_builtin_the_contract_names_once() {
        let named: Vec<BuiltinComparator> = CompareScript::ALL
            .into_iter()
            .filter_map(BuiltinComparator::from_script)
            .collect();
        assert_eq!(named.len(), BuiltinComparator::ALL.len(), "{named:?}");
        for kind in named {
            assert!(
                BuiltinComparator::ALL.contains(&kind),
                "{kind:?} is not in ALL"
            );
            assert_eq!(BuiltinComparator::from_script(kind.script()), Some(kind));
        }
    }

    #[test]
    fn every_builtin_is_described_where_people_read_about_comparison() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for doc in ["src/lib.rs", "../../docs/judge.md"] {
            let path = root.join(doc);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for kind in BuiltinComparator::ALL {
                let name = format!("`{}`", kind.script_name());
                assert!(
                    text.contains(&name),
                    "{} does not describe {name}",
                    path.display()
                );
            }
        }
    }

    /// A reader producing `len` bytes of numbered lines lazily, recording its largest read.
    struct Lines<'a> {
        left: usize,
        line: Vec<u8>,
        at: usize,
        largest: &'a std::cell::Cell<usize>,
    }

    impl Read for Lines<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.largest.set(self.largest.get().max(buf.len()));
            let n = buf.len().min(self.left);
            for byte in &mut buf[..n] {
                *byte = self.line[self.at];
                self.at = (self.at + 1) % self.line.len();
            }
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn streaming_reads_in_bounded_chunks() {
        let largest = std::cell::Cell::new(0);
        let lines = |len| Lines {
            left: len,
            line: b"123 456 789\n".to_vec(),
            at: 0,
            largest: &largest,
        };
        let len = 4 * CHUNK_SIZE + 5;
        let outcome = DiffAll.compare_readers(lines(len), lines(len));
        assert_eq!(outcome.ok().map(|o| o.verdict), Some(AC));
        assert!(
            largest.get() <= CHUNK_SIZE,
            "read of {} bytes",
            largest.get()
        );
        let outcome = DiffIgnSpace.compare_readers(lines(len), lines(len + 1));
        assert_eq!(outcome.ok().map(|o| o.verdict), Some(WA));
    }

    #[test]
    fn read_errors_name_the_side() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk on fire"))
            }
        }
        let err = DiffAll.compare_readers(&b"1\n"[..], Broken).err();
        assert_eq!(
            err.map(|e| e.to_string()).as_deref(),
            Some("cannot read the expected answer: disk on fire")
        );
    }

    /// What `expected` holds for one fixture: each comparator's verdict and message.
    fn render_expected(output: &[u8], answer: &[u8]) -> String {
        let mut text = String::new();
        for kind in BuiltinComparator::ALL {
            let outcome = check(kind, output, answer);
            text.push_str(&format!(
                "{}: {}\n{}\n",
                kind.script_name(),
                outcome.verdict.status(),
                outcome.message
            ));
        }
        text
    }

    #[test]
    fn fixtures_match_their_expectations() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compare");
        let bless = std::env::var_os("VERDICT_BLESS").is_some_and(|v| v == "1");
        let Ok(entries) = std::fs::read_dir(&root) else {
            panic!("cannot list {}", root.display());
        };
        let mut cases: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        assert!(
            cases.len() >= 10,
            "fixtures missing under {}",
            root.display()
        );
        let read = |path: PathBuf| {
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        for case in cases {
            let got = render_expected(&read(case.join("output")), &read(case.join("answer")));
            let expected_path = case.join("expected");
            if bless {
                assert!(std::fs::write(&expected_path, &got).is_ok());
                continue;
            }
            let want = String::from_utf8_lossy(&read(expected_path)).into_owned();
            assert_eq!(
                got,
                want,
                "fixture {} (VERDICT_BLESS=1 rewrites it)",
                case.display()
            );
        }
    }

    /// The reference: GNU `diff -b -B` normal form, written the obvious way.
    fn reference_normalise(bytes: &[u8]) -> Vec<Vec<u8>> {
        let canonical = fold_crlf(bytes);
        canonical
            .split(|&b| b == b'\n')
            .filter(|line| !line.iter().all(|&b| is_blank(b)))
            .map(|line| {
                let mut out = Vec::new();
                if line.first().is_some_and(|&b| is_blank(b)) {
                    out.push(b' ');
                }
                let words: Vec<&[u8]> = line
                    .split(|&b| is_blank(b))
                    .filter(|w| !w.is_empty())
                    .collect();
                out.extend(words.join(&b' '));
                out
            })
            .collect()
    }

    fn fold_crlf(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                continue;
            }
            out.push(b);
        }
        out
    }

    fn reference(kind: BuiltinComparator, output: &[u8], answer: &[u8]) -> CompareVerdict {
        let equal = reference_normalise(output) == reference_normalise(answer);
        match (kind, equal) {
            (_, false) => WA,
            (DiffIgnSpace, true) => AC,
            (DiffAll, true) if fold_crlf(output) == fold_crlf(answer) => AC,
            (DiffAll, true) => PE,
        }
    }

    fn text() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop::sample::select(vec![b'a', b'b', b' ', b' ', b'\t', b'\r', b'\n', b'\n', 0]),
            0..40,
        )
    }

    /// An answer and an output made from it by a few edits (mostly white space).
    fn near_pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
        let edit = (
            any::<prop::sample::Index>(),
            prop::sample::select(vec![b' ', b'\t', b'\r', b'\n', b'a']),
            any::<bool>(),
        );
        (text(), prop::collection::vec(edit, 0..4)).prop_map(|(answer, edits)| {
            let mut output = answer.clone();
            for (at, byte, insert) in edits {
                if insert {
                    let i = at.index(output.len() + 1);
                    output.insert(i, byte);
                } else if !output.is_empty() {
                    output.remove(at.index(output.len()));
                }
            }
            (output, answer)
        })
    }

    fn pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
        prop_oneof![(text(), text()), near_pair()]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn streaming_matches_the_reference((output, answer) in pair(), chunk in 1usize..12) {
            for kind in BuiltinComparator::ALL {
                let got = kind.compare_bytes_chunked(&output, &answer, chunk);
                prop_assert_eq!(got.verdict, reference(kind, &output, &answer));
                prop_assert_eq!(&got, &kind.compare_bytes(&output, &answer));
            }
        }

        #[test]
        fn diff_all_and_diff_ign_space_agree((output, answer) in pair()) {
            let all = DiffAll.compare_bytes(&output, &answer).verdict;
            let ign = DiffIgnSpace.compare_bytes(&output, &answer).verdict;
            prop_assert_eq!(ign == AC, all == AC || all == PE);
        }
    }
}
