//! Reading a record ([`Format::read`]): the dispatch from a format to its reader. Apart from
//! `format`, which the readers use (the record's [`Fields`]), so that the dependency runs one
//! way: this module -> the readers -> `format`.

use crate::format::{Fields, record_label};
use crate::jsonl::Record;
use crate::{Error, Format, Problem};
use std::path::Path;

impl Format {
    /// Reads one record of this format; `index` is its 0-based position in the file.
    pub fn read(self, path: &Path, index: usize, record: &Record) -> Result<Problem, Error> {
        let r = Fields {
            path,
            index,
            record,
            id: record_label(record, index),
        };
        match self {
            Format::HumanEval | Format::HumanEvalPlus => crate::humaneval::read(self, &r),
            Format::Mbpp => crate::mbpp::read(&r),
            Format::MbppPlus => crate::mbpp::read_plus(&r),
            Format::LiveCodeBench => crate::livecodebench::read(&r),
            Format::Apps => crate::apps::read(&r),
            Format::CodeContests => crate::codecontests::read(&r),
            Format::VerificationInfo => crate::verification::read(&r),
            Format::HumanEvalX => crate::humaneval_x::read(&r),
            Format::MultiPle => crate::multiple::read(&r),
            Format::Mbxp => crate::mbxp::read(&r),
        }
    }
}

#[cfg(test)]
impl Format {
    /// The first record of `text` (JSON lines or a JSON list, as in a `test.jsonl`) read as
    /// this format at 0-based position `index`.
    pub(crate) fn read_at(self, index: usize, text: &str) -> Result<Problem, Error> {
        let path = Path::new("test.jsonl");
        let records = crate::jsonl::parse_records(path, text).expect("parses");
        self.read(path, index, &records[0])
    }

    /// [`Format::read_at`] of a record [`Format::detect`] takes for this format, read without
    /// error.
    pub(crate) fn read_detected(self, index: usize, text: &str) -> Problem {
        let records = crate::jsonl::parse_records(Path::new("test.jsonl"), text).expect("parses");
        assert_eq!(Format::detect(&records[0]), Some(self), "{text}");
        self.read_at(index, text).expect("reads")
    }
}
