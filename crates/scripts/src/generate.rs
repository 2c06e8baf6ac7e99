//! Random tests' data (design #7): `random` writes the input from the seed given as `argv[1]`,
//! `standard` writes the expected output from that input. Any failure of either is the task's
//! `Random Gen Error`, with the seed and the generator's command line in the reason.

use crate::ScriptError;
use crate::exec::CancelToken;
use crate::exec::Executor;
use crate::judge::classify::classify_run;
use crate::judge::compile::Build;
use crate::judge::files::{BoxFile, TestFiles, read_capture};
use crate::judge::run::{RunLimits, RunRequest, command_line};
use std::path::{Path, PathBuf};
use verdict_contracts::{STDIN_ASSET, STDOUT_ASSET};

/// Generated data, or why generation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Generated {
    /// The test's files, and where they came from: `seed N (generator: ./main N)`.
    Test(TestFiles, String),
    /// The reason (for `Random Gen Error`), ending with the seed and the command line.
    Failed(String),
}

/// Runs `random` with `seed` and `standard` on its output, in `dir`, under `limits`.
pub fn generate(
    executor: &dyn Executor,
    cancel: &CancelToken,
    random: &Build,
    standard: &Build,
    seed: u32,
    limits: RunLimits,
    dir: &Path,
) -> Result<Generated, ScriptError> {
    let args = [seed.to_string()];
    let request = RunRequest {
        args: &args,
        ..RunRequest::new(random, limits)
    };
    let origin = format!(
        "seed {seed} (generator: {})",
        shell_join(&command_line(&request))
    );
    let failed = |reason: String| {
        Ok(Generated::Failed(format!(
            "{reason}\nrandom input: {origin}"
        )))
    };
    let input = match run_step(executor, cancel, &request, &dir.join("random"), "random")? {
        Ok(stdout) => stdout,
        Err(reason) => return failed(reason),
    };
    let request = RunRequest {
        stdin: Some(&input),
        ..RunRequest::new(standard, limits)
    };
    let answer = match run_step(
        executor,
        cancel,
        &request,
        &dir.join("standard"),
        "standard",
    )? {
        Ok(stdout) => stdout,
        Err(reason) => return failed(reason),
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

/// Runs a generator step; `Ok(Ok(stdout path))` when it exited 0 within its limits.
fn run_step(
    executor: &dyn Executor,
    cancel: &CancelToken,
    request: &RunRequest<'_>,
    dir: &Path,
    role: &str,
) -> Result<Result<PathBuf, String>, ScriptError> {
    std::fs::create_dir_all(dir).map_err(|e| ScriptError::io("create", dir, e))?;
    let output = executor.run(cancel, request, dir)?;
    let stderr = read_capture(&output.stderr, 4096)?;
    let _ = verdict_sandbox::remove_box_dir(&output.box_dir);
    let failure = classify_run(
        &output.outcome,
        &request.limits,
        &String::from_utf8_lossy(&stderr),
        &[],
    );
    let Some(failure) = failure else {
        return Ok(Ok(output.stdout));
    };
    let mut reason = format!(
        "the {role} program failed: {} ({})",
        failure.status, failure.reason
    );
    if !stderr.is_empty() {
        reason.push_str("\nstderr:\n");
        reason.push_str(&stderr.excerpt(2048));
    }
    Ok(Err(reason))
}

/// A command line for a log: arguments joined by spaces, those with blanks or quotes quoted.
pub fn shell_join(argv: &[String]) -> String {
    let quote = |arg: &String| {
        if !arg.is_empty() && !arg.contains(|c: char| c.is_whitespace() || "'\"\\".contains(c)) {
            arg.clone()
        } else {
            format!("'{}'", arg.replace('\'', "'\\''"))
        }
    };
    argv.iter().map(quote).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fake::{FakeExecutor, FakeRun};
    use crate::language::{LanguageProfile, TemplateVars};
    use verdict_contracts::Language;

    /// [`generate`] with `./main` in `dir` as both the random and the standard program.
    fn generate_with_seed(fake: &FakeExecutor, seed: u32, dir: &Path) -> Generated {
        let main = LanguageProfile {
            run: vec!["./main".into()],
            ..LanguageProfile::default()
        };
        let b = crate::tool_build(dir, Language::C, main, TemplateVars::default());
        let limits = RunLimits::new(1000, None, None, None);
        generate(fake, &CancelToken::new(), &b, &b, seed, limits, dir).expect("generate")
    }

    #[test]
    fn the_generator_gets_the_seed_and_the_standard_program_its_output() {
        let dir = tempfile::tempdir().expect("dir");
        let fake = FakeExecutor::new(vec![FakeRun::exited(0, "1 2\n"), FakeRun::exited(0, "3\n")]);
        let got = generate_with_seed(&fake, 77, dir.path());
        let Generated::Test(test, origin) = got else {
            panic!("{got:?}")
        };
        assert_eq!(origin, "seed 77 (generator: ./main 77)");
        let input = std::fs::read_to_string(test.stdin.expect("stdin")).expect("input");
        assert_eq!(input, "1 2\n");
        let (name, answer) = &test.expected[0];
        assert_eq!(name, STDOUT_ASSET);
        assert_eq!(std::fs::read_to_string(answer).expect("answer"), "3\n");
        let commands = fake.commands.lock().expect("commands").clone();
        assert_eq!(commands, [vec!["./main", "77"], vec!["./main"]]);
    }

    #[test]
    fn a_failing_generator_is_reported_with_its_seed_and_command_line() {
        let dir = tempfile::tempdir().expect("dir");
        let fake = FakeExecutor::new(vec![FakeRun::exited(3, "")]);
        let got = generate_with_seed(&fake, 5, dir.path());
        assert_eq!(
            got,
            Generated::Failed(
                "the random program failed: Runtime Error (exited with code 3)\nrandom input: seed 5 (generator: ./main 5)"
                    .into()
            )
        );
    }

    #[test]
    fn command_lines_are_quoted_for_the_log() {
        let argv = ["./main", "123", "a b", "", "it's"].map(String::from);
        assert_eq!(shell_join(&argv), "./main 123 'a b' '' 'it'\\''s'");
    }
}
