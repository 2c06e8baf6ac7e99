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
