//! A whole dataset: every record read by its format, keyed by task id.

use crate::jsonl::read_records;
use crate::{Error, Format, Problem};
use std::collections::HashMap;
use std::path::Path;

/// The problems of one dataset file.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The format every record was read as.
    pub format: Format,
    /// The problems, in the file's order.
    pub problems: Vec<Problem>,
    index: HashMap<String, usize>,
}

impl Dataset {
    /// Reads `path` (JSON Lines, `.gz`, or a JSON array) as `format`, or as the format its first
    /// record's fields name when `format` is `None`.
    pub fn read(path: &Path, format: Option<Format>) -> Result<Dataset, Error> {
        let records = read_records(path)?;
        let format = match format {
            Some(f) => f,
            None => records.first().and_then(Format::detect).ok_or_else(|| Error::Format {
                path: path.to_path_buf(),
                message: "cannot tell the dataset's format from its first record; name it with --format"
                    .into(),
            })?,
        };
        let mut problems = Vec::with_capacity(records.len());
        let mut index = HashMap::with_capacity(records.len());
        for (i, record) in records.iter().enumerate() {
            let problem = format.read(path, i, record)?;
            if index.insert(problem.task_id.clone(), i).is_some() {
                return Err(Error::Record {
                    path: path.to_path_buf(),
                    line: record.line,
                    record: problem.task_id,
                    field: "task_id".into(),
                    message: "appears twice in the dataset".into(),
                });
            }
            problems.push(problem);
        }
        Ok(Dataset {
            format,
            problems,
            index,
        })
    }

    /// The problem with this task id.
    pub fn get(&self, task_id: &str) -> Option<&Problem> {
        self.index.get(task_id).map(|&i| &self.problems[i])
    }
}
