//! Random tests (design #7): the `random` program writes the input from a seed derived from
//! `sub_id` and the task index (a rerun is reproducible); `standard` writes the expected output.
//! Any failure of those two is `Random Gen Error`.

use super::compile::problem_build;
use super::data::TestFiles;
use crate::error::JudgeError;
use crate::pipeline::SubmissionRun;
use std::path::Path;
use verdict_contracts::{JudgeStatus, JudgeTaskResult, Program, STDIN_ASSET, STDOUT_ASSET};
use verdict_scripts::{
    BoxFile, Build, RunRequest, classify_run, command_line, log_text, read_capped, run_program,
};

/// A generated test, or the task's final result when generation failed.
#[derive(Debug)]
pub enum Generated {
    /// The test's files, and where they came from (`seed N (generator: ./main N)`, for
    /// `error_log`).
    Test(TestFiles, String),
    /// Generation failed: `Random Gen Error` (or System Error) with the reason.
    Failed(JudgeTaskResult),
}

/// The seed given to the generator as argv[1]: a hash of the submission id and the task index.
pub fn random_seed(sub_id: &str, index: usize) -> u32 {
    let hash = blake3::hash(format!("{sub_id}:{index}").as_bytes());
    let bytes = hash.as_bytes();
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// Generates the input and expected output of random task `index` into `dir`.
pub fn generate(run: &SubmissionRun, index: usize, dir: &Path) -> Result<Generated, JudgeError> {
    let sub = &run.submission;
    let fail = |reason: String| {
        Ok(Generated::Failed(JudgeTaskResult::with_status(
            JudgeStatus::RandomGenError,
            reason,
        )))
    };
    let seed = random_seed(&sub.sub_id, index).to_string();
    let seed_only = format!("random input: seed {seed}");
    let origin_log = |origin: &str| format!("random input: {origin}");
    let (Some(random), Some(standard)) = (&sub.random, &sub.standard) else {
        return fail(format!(
            "a random test needs both the random and the standard program\n{seed_only}"
        ));
    };
    let with_seed = |mut result: JudgeTaskResult| {
        result.error_log = format!("{}\n{seed_only}", result.error_log);
        Ok(Generated::Failed(result))
    };
    let random = match build_of(run, "random", random) {
        Ok(build) => build,
        Err(result) => return with_seed(*result),
    };
    let standard = match build_of(run, "standard", standard) {
        Ok(build) => build,
        Err(result) => return with_seed(*result),
    };
    let limits = run.shared.config.generator.limits(&sub.judge_tasks[index]);
    let gen_dir = dir.join("random");
    let args = [seed.clone()];
    let request = RunRequest {
        build: &random,
        args: &args,
        stdin: None,
        files: &[],
        empty_dirs: &[],
        limits,
    };
    let origin = format!(
        "seed {seed} (generator: {})",
        shell_join(&command_line(&request))
    );
    let input = match run_step(run, &request, &gen_dir, "random")? {
        Ok(stdout) => stdout,
        Err(reason) => return fail(format!("{reason}\n{}", origin_log(&origin))),
    };
    let std_dir = dir.join("standard");
    let request = RunRequest {
        build: &standard,
        args: &[],
        stdin: Some(&input),
        files: &[],
        empty_dirs: &[],
        limits,
    };
    let answer = match run_step(run, &request, &std_dir, "standard")? {
        Ok(stdout) => stdout,
        Err(reason) => return fail(format!("{reason}\n{}", origin_log(&origin))),
    };
    let test = TestFiles {
        stdin: Some(input.clone()),
        inputs: vec![BoxFile {
            name: STDIN_ASSET.to_owned(),
            source: input,
        }],
        expected: vec![(STDOUT_ASSET.to_owned(), answer)],
    };
    Ok(Generated::Test(test, origin))
}

/// A command line for a log: arguments joined by spaces, those with blanks or quotes quoted.
fn shell_join(argv: &[String]) -> String {
    let quote = |arg: &String| {
        if !arg.is_empty() && !arg.contains(|c: char| c.is_whitespace() || "'\"\\".contains(c)) {
            arg.clone()
        } else {
            format!("'{}'", arg.replace('\'', "'\\''"))
        }
    };
    argv.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// A cached problem build, or the task's failed result.
fn build_of(
    run: &SubmissionRun,
    role: &str,
    program: &Program,
) -> Result<Build, Box<JudgeTaskResult>> {
    let what = format!("the {role} program");
    problem_build(run, role, program)
        .built(JudgeStatus::RandomGenError, Some(&what))
        .cloned()
}

/// Runs a generator step; `Ok(Ok(stdout path))` when it exited 0 within its limits.
fn run_step(
    run: &SubmissionRun,
    request: &RunRequest<'_>,
    dir: &Path,
    role: &str,
) -> Result<Result<std::path::PathBuf, String>, JudgeError> {
    std::fs::create_dir_all(dir).map_err(|e| JudgeError::io("create", dir, e))?;
    let output = run_program(&run.shared.sandbox, request, dir)?;
    let stderr = read_capped(&output.stderr, 4096)?;
    let _ = verdict_sandbox::remove_box_dir(&output.box_dir);
    match classify_run(
        &output.outcome,
        &request.limits,
        &String::from_utf8_lossy(&stderr),
        &[],
    ) {
        None => Ok(Ok(output.stdout)),
        Some(failure) => {
            let mut reason = format!(
                "the {role} program failed: {} ({})",
                failure.status, failure.reason
            );
            if !stderr.is_empty() {
                reason.push_str("\nstderr:\n");
                reason.push_str(&log_text(&stderr, 2048));
            }
            Ok(Err(reason))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::random_seed;

    /// The derivation docs/judge.md documents: the first four bytes of BLAKE3 of the UTF-8
    /// text `"{sub_id}:{index}"`, read little-endian.
    #[test]
    fn the_seed_is_the_documented_blake3_derivation() {
        let hash = blake3::hash(b"random-tests-1:1");
        let bytes = hash.as_bytes();
        let expected = u32::from(bytes[0])
            | u32::from(bytes[1]) << 8
            | u32::from(bytes[2]) << 16
            | u32::from(bytes[3]) << 24;
        assert_eq!(random_seed("random-tests-1", 1), expected);
        assert_eq!(
            random_seed("random-tests-1", 1),
            SEED_OF_RANDOM_TESTS_1_TASK_1
        );
    }

    /// The example value docs/judge.md gives.
    const SEED_OF_RANDOM_TESTS_1_TASK_1: u32 = 421_295_531;

    #[test]
    fn command_lines_are_quoted_for_the_log() {
        let argv = ["./main", "123", "a b", "", "it's"].map(String::from);
        assert_eq!(super::shell_join(&argv), "./main 123 'a b' '' 'it'\\''s'");
    }

    #[test]
    fn seeds_are_reproducible_and_differ_per_task() {
        assert_eq!(random_seed("sub-1", 3), random_seed("sub-1", 3));
        assert_ne!(random_seed("sub-1", 3), random_seed("sub-1", 4));
        assert_ne!(random_seed("sub-1", 3), random_seed("sub-2", 3));
    }
}
