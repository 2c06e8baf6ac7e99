//! A Judge0 submission as one program for [`ProgramRunner`](crate::ProgramRunner), and its
//! runs turned into Judge0's result the way its worker (`isolate_job.rb`) does: a failed
//! compile is 6 with `compile_output`; a run over its CPU time is 5 even when it finished
//! within the extra time; a signal is the Runtime Error kind Judge0 maps it to; a non-zero
//! exit is 11; a clean run is 3, or 4 when stdout and `expected_output` differ after
//! Judge0's strip (each line's trailing white space, then the text's).

use super::languages::Judge0Language;
use super::{Record, RunResult, statuses, statuses::Status, zip};
use crate::program::{ProgramOutcome, ProgramRequest, StepEnd, StepOutcome};
use verdict_scripts::{CompileLimits, RunLimits};

/// Removes the characters Judge0 removes from compiler options and arguments before they go
/// into its bash script (`$&;<>|` and backquotes).
fn sanitize(text: &str) -> String {
    text.trim()
        .chars()
        .filter(|c| !matches!(c, '$' | '&' | ';' | '<' | '>' | '|' | '`'))
        .collect()
}

/// Splits `text` into words as bash does for the unquoted text of Judge0's scripts: white
/// space separates, single and double quotes group, a backslash escapes.
pub fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => match chars.next() {
                Some(n @ ('"' | '\\')) => word.push(n),
                Some(n) => {
                    word.push('\\');
                    word.push(n);
                }
                None => word.push('\\'),
            },
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The source's name: Judge0's (`script.py`, `Main.scala`: a program may rely on it, as a
/// Scala `object Main extends App` does) where verdict's profile compiles that extension,
/// else verdict's; a Java source is named after its public class.
fn source_name(language: &Judge0Language, code: &[u8]) -> String {
    let verdict =
        crate::sandbox_fusion::main_file(language.verdict, &String::from_utf8_lossy(code));
    let extension = |name: &str| name.rsplit_once('.').map(|(_, e)| e.to_string());
    if language.verdict == verdict_contracts::Language::Java
        || extension(&verdict) != extension(&language.source_file)
    {
        return verdict;
    }
    language.source_file.clone()
}

/// The program of a submission, run under `owner`'s builds: its source named as verdict's
/// profile compiles it, the files of `additional_files`, Judge0's limits (the CPU time plus
/// the extra time before the kill; `0` means the server's most, as in isolate).
pub fn program_request(
    record: &Record,
    language: &Judge0Language,
    limits: &super::Judge0Limits,
    owner: &str,
) -> ProgramRequest {
    let code = record.source_code.clone().unwrap_or_default();
    let main = source_name(language, &code);
    let files = record
        .additional_files
        .as_deref()
        .map(|archive| zip::extract(archive, limits.max_extract_size.saturating_mul(1024)))
        .unwrap_or_default();
    let cpu = if record.cpu_time_limit > 0.0 {
        record.cpu_time_limit
    } else {
        limits.max_cpu_time_limit
    };
    let ms = |seconds: f64| (seconds * 1000.0).ceil().max(1.0) as u64;
    let file_kb = if record.max_file_size > 0 {
        record.max_file_size
    } else {
        limits.max_max_file_size
    };
    let compile = CompileLimits {
        cpu_time_ms: ms(limits.max_cpu_time_limit).max(CompileLimits::default().cpu_time_ms),
        ..CompileLimits::default()
    };
    let run = RunLimits {
        time_ms: ms(cpu + record.cpu_extra_time),
        wall_ms: ms(record.wall_time_limit),
        memory_kb: Some(record.memory_limit),
        output_kb: Some(file_kb.max(1)),
        processes: Some(record.max_processes_and_or_threads.max(1)),
    };
    ProgramRequest {
        files,
        stdin: record.stdin.clone().unwrap_or_default(),
        args: shell_words(&sanitize(
            record.command_line_arguments.as_deref().unwrap_or(""),
        )),
        compile_args: shell_words(&sanitize(record.compiler_options.as_deref().unwrap_or(""))),
        ..ProgramRequest::new(owner, language.verdict, vec![(main, code)], compile, run)
    }
}

/// Judge0's `strip`: each line without its trailing white space (and NULs), lines joined with
/// `\n`, the whole without its trailing white space; text that is not UTF-8 is compared as
/// it is (Ruby's `split` raises on it and Judge0 keeps the text).
pub fn judge0_strip(text: &[u8]) -> Vec<u8> {
    if std::str::from_utf8(text).is_err() {
        return text.to_vec();
    }
    let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | 0);
    let rstrip = |line: &[u8]| -> Vec<u8> {
        let end = line.iter().rposition(|b| !space(b)).map_or(0, |i| i + 1);
        line[..end].to_vec()
    };
    let lines: Vec<Vec<u8>> = text.split(|b| *b == b'\n').map(rstrip).collect();
    rstrip(&lines.join(&b'\n'))
}

/// What one run gave, as Judge0 records it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// The status.
    pub status: Status,
    /// Its outputs, exit and usage (`None` where empty).
    pub result: RunResult,
}

fn non_empty(bytes: &[u8]) -> Option<Vec<u8>> {
    (!bytes.is_empty()).then(|| bytes.to_vec())
}

/// One run of `record`'s program (or its failed compile) as Judge0 records it.
pub fn summarize(record: &Record, outcome: &ProgramOutcome) -> RunSummary {
    let compile_output = outcome.compile.as_ref().and_then(|c| {
        let mut log = c.stdout.clone();
        log.extend_from_slice(&c.stderr);
        non_empty(&log)
    });
    let Some(run) = &outcome.run else {
        let timed_out = outcome
            .compile
            .as_ref()
            .is_some_and(|c| c.end == StepEnd::TimeLimit);
        return RunSummary {
            status: statuses::COMPILATION_ERROR,
            result: RunResult {
                compile_output: if timed_out {
                    Some(b"Compilation time limit exceeded.".to_vec())
                } else {
                    compile_output
                },
                ..RunResult::default()
            },
        };
    };
    let (status, message, exit_code, exit_signal) = run_status(record, run);
    let (mut stdout, mut stderr) = (run.stdout.clone(), run.stderr.clone());
    if record.redirect_stderr_to_stdout {
        stdout.append(&mut stderr);
    }
    let status = if status == statuses::ACCEPTED {
        let expected = record.expected_output.as_deref();
        let got = non_empty(&stdout);
        match expected {
            None => statuses::ACCEPTED,
            Some(expected) => {
                let same = got
                    .as_deref()
                    .is_some_and(|got| judge0_strip(got) == judge0_strip(expected));
                if same {
                    statuses::ACCEPTED
                } else {
                    statuses::WRONG_ANSWER
                }
            }
        }
    } else {
        status
    };
    RunSummary {
        status,
        result: RunResult {
            stdout: non_empty(&stdout),
            stderr: non_empty(&stderr),
            compile_output,
            message,
            exit_code,
            exit_signal,
            time: Some(run.cpu_time_ms as f64 / 1000.0),
            wall_time: Some(run.wall_time_ms as f64 / 1000.0),
            memory: Some(run.memory_kb),
        },
    }
}

/// The status, message, exit code and signal of a run as isolate and Judge0 give them.
fn run_status(
    record: &Record,
    run: &StepOutcome,
) -> (Status, Option<String>, Option<i32>, Option<i32>) {
    let over_cpu =
        record.cpu_time_limit > 0.0 && run.cpu_time_ms as f64 > record.cpu_time_limit * 1000.0;
    if run.end == StepEnd::TimeLimit || over_cpu {
        let wall = run.end == StepEnd::TimeLimit && run.cpu_time_ms < run.wall_time_ms / 2;
        let message = if wall {
            "Time limit exceeded (wall clock)"
        } else {
            "Time limit exceeded"
        };
        return (
            statuses::TIME_LIMIT_EXCEEDED,
            Some(message.into()),
            Some(0),
            None,
        );
    }
    if run.end == StepEnd::OutputLimit {
        // isolate's file size limit: the write that passes it gets SIGXFSZ.
        return (
            statuses::SIGXFSZ,
            Some("Caught fatal signal 25".into()),
            Some(0),
            Some(25),
        );
    }
    if let Some(signal) = run.signal {
        return (
            Status::of_signal(signal),
            Some(format!("Caught fatal signal {signal}")),
            Some(0),
            Some(signal),
        );
    }
    let code = run.exit_code.unwrap_or(0);
    if code != 0 {
        return (
            statuses::NZEC,
            Some(format!("Exited with error status {code}")),
            Some(code),
            None,
        );
    }
    if run.end != StepEnd::Exited {
        // Stopped by verdict's sandbox without a signal or an exit code of its own.
        return (statuses::OTHER, run.reason.clone(), Some(0), None);
    }
    (statuses::ACCEPTED, None, Some(0), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge0s_strip_drops_trailing_white_space_per_line_and_at_the_end() {
        assert_eq!(judge0_strip(b"1 \r\n2\t\n\n\n"), b"1\n2");
        assert_eq!(judge0_strip(b"  1\n"), b"  1");
        assert_ne!(judge0_strip(b"1\n\n2"), judge0_strip(b"1\n2"));
        assert_eq!(judge0_strip(b"\xff \n"), b"\xff \n");
    }

    #[test]
    fn shell_words_split_as_bash_does() {
        assert_eq!(
            shell_words(r#"a "b c" 'd e' f\ g"#),
            ["a", "b c", "d e", "f g"]
        );
        assert_eq!(sanitize("-O2; rm -rf / | x"), "-O2 rm -rf /  x");
        assert!(shell_words("  ").is_empty());
    }

    /// Judge0's Python 3 (id 71).
    fn python() -> Judge0Language {
        Judge0Language {
            id: 71,
            name: "Python".into(),
            is_archived: false,
            source_file: "script.py".into(),
            compile_cmd: None,
            run_cmd: "python3".into(),
            verdict: verdict_contracts::Language::Python3,
        }
    }

    fn record(expected: Option<&[u8]>) -> Record {
        let value = serde_json::json!({"source_code": "x", "language_id": 71});
        let languages = vec![python()];
        let mut record = super::super::parse_submission(
            &value,
            false,
            &languages,
            &Default::default(),
            &Default::default(),
            "t".into(),
            0,
        )
        .expect("valid");
        record.expected_output = expected.map(<[u8]>::to_vec);
        record
    }

    fn run(end: StepEnd, code: Option<i32>, signal: Option<i32>, stdout: &[u8]) -> ProgramOutcome {
        ProgramOutcome::ran(StepOutcome {
            cpu_time_ms: 12,
            wall_time_ms: 20,
            memory_kb: 3000,
            stdout: stdout.to_vec(),
            ..StepOutcome::ended(end, code, signal)
        })
    }

    #[test]
    fn a_submission_runs_with_judge0s_limits_arguments_and_source_name() {
        let mut record = record(None);
        record.cpu_time_limit = 2.0;
        record.cpu_extra_time = 0.5;
        record.wall_time_limit = 4.0;
        record.max_file_size = 0;
        record.command_line_arguments = Some("a 'b c'; rm -rf /".into());
        let language = python();
        let limits = super::super::Judge0Limits::default();
        let program = program_request(&record, &language, &limits, "course");
        assert_eq!(program.sources[0].0, "script.py");
        assert_eq!((program.run.time_ms, program.run.wall_ms), (2500, 4000));
        assert_eq!(program.run.memory_kb, Some(128_000));
        assert_eq!(program.run.output_kb, Some(4096), "0 is the server's most");
        assert_eq!(program.args, ["a", "b c", "rm", "-rf", "/"]);
        assert_eq!(program.owner, "course");
        record.cpu_time_limit = 0.0;
        let unbounded = program_request(&record, &language, &limits, "course");
        assert_eq!(unbounded.run.time_ms, 15_500, "0 is the server's most");
    }

    #[test]
    fn a_run_over_its_cpu_time_is_a_time_limit_even_when_it_finished_in_the_extra_time() {
        let mut record = record(None);
        record.cpu_time_limit = 0.01;
        let late = summarize(&record, &run(StepEnd::Exited, Some(0), None, b"1\n"));
        assert_eq!(late.status, statuses::TIME_LIMIT_EXCEEDED);
    }

    #[test]
    fn runs_get_judge0s_statuses() {
        let ok = summarize(&record(None), &run(StepEnd::Exited, Some(0), None, b"1\n"));
        assert_eq!(
            (ok.status, ok.result.time, ok.result.memory),
            (statuses::ACCEPTED, Some(0.012), Some(3000))
        );
        let same = summarize(
            &record(Some(b"1  \n\n")),
            &run(StepEnd::Exited, Some(0), None, b"1\n"),
        );
        assert_eq!(same.status, statuses::ACCEPTED);
        let wrong = summarize(
            &record(Some(b"2")),
            &run(StepEnd::Exited, Some(0), None, b"1\n"),
        );
        assert_eq!(wrong.status, statuses::WRONG_ANSWER);
        let nothing = summarize(
            &record(Some(b"")),
            &run(StepEnd::Exited, Some(0), None, b""),
        );
        assert_eq!(
            nothing.status,
            statuses::WRONG_ANSWER,
            "Judge0 compares \"\" with nil"
        );
        let nzec = summarize(&record(None), &run(StepEnd::Exited, Some(3), None, b""));
        assert_eq!(
            (nzec.status, nzec.result.exit_code),
            (statuses::NZEC, Some(3))
        );
        assert_eq!(
            nzec.result.message.as_deref(),
            Some("Exited with error status 3")
        );
        let segv = summarize(
            &record(None),
            &run(StepEnd::Signaled, Some(139), Some(11), b""),
        );
        assert_eq!(
            (segv.status, segv.result.exit_signal),
            (statuses::SIGSEGV, Some(11))
        );
        let fpe = summarize(
            &record(None),
            &run(StepEnd::Signaled, Some(136), Some(8), b""),
        );
        assert_eq!(fpe.status, statuses::SIGFPE);
        let tle = summarize(&record(None), &run(StepEnd::TimeLimit, None, Some(9), b""));
        assert_eq!(tle.status, statuses::TIME_LIMIT_EXCEEDED);
        let flood = summarize(
            &record(None),
            &run(StepEnd::OutputLimit, None, Some(9), b"x"),
        );
        assert_eq!(flood.status, statuses::SIGXFSZ);
    }
}
