//! A test's files on the host: its standard input, input files and expected outputs.

use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use std::path::{Path, PathBuf};
use verdict_contracts::{STDIN_ASSET, STDOUT_ASSET};
use verdict_scripts::BoxFile;

/// The files of one test.
#[derive(Debug, Clone, Default)]
pub struct TestFiles {
    /// The file fed as standard input (`testdata.in`), if any.
    pub stdin: Option<PathBuf>,
    /// Every input file, placed in the box under its name (`testdata.in` included).
    pub inputs: Vec<BoxFile>,
    /// Expected outputs: `testdata.out` is compared with stdout, others with the files the program wrote.
    pub expected: Vec<(String, PathBuf)>,
}

impl TestFiles {
    /// Whether an expected output is compared with standard output.
    pub fn is_stdout(name: &str) -> bool {
        name == STDOUT_ASSET
    }
}

/// The files of standard test datum `datum`, materialised once per problem version in the cache.
pub fn datum_files(run: &SubmissionRun, datum: usize) -> Result<TestFiles, JudgeError> {
    let Some(test) = run.submission.test_data.get(datum) else {
        return Err(JudgeError::Other(format!(
            "test datum {datum} does not exist"
        )));
    };
    let shared = &run.shared;
    let dir = shared.cache.get_or_fill(
        &run.problem,
        &format!("data-{datum}"),
        |dir: &Path| -> Result<(), JudgeError> {
            for (i, asset) in test.inputs.iter().enumerate() {
                shared.assets.materialize(
                    asset,
                    &dir.join("in"),
                    &format!("test_data[{datum}].inputs[{i}]"),
                )?;
            }
            for (i, asset) in test.outputs.iter().enumerate() {
                shared.assets.materialize(
                    asset,
                    &dir.join("out"),
                    &format!("test_data[{datum}].outputs[{i}]"),
                )?;
            }
            Ok(())
        },
    )?;
    let mut files = TestFiles::default();
    for asset in &test.inputs {
        let source = dir.join("in").join(&asset.name);
        if asset.name == STDIN_ASSET {
            files.stdin = Some(source.clone());
        }
        files.inputs.push(BoxFile {
            name: asset.name.clone(),
            source,
        });
    }
    for asset in &test.outputs {
        files
            .expected
            .push((asset.name.clone(), dir.join("out").join(&asset.name)));
    }
    Ok(files)
}
