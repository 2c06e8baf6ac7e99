//! Function deliverables: one interpreter runs a batch of cases through a small harness
//! (`harness/function.py`, as bytecode its interpreter compiled once where it can: see
//! `bytecode.rs`; `harness/function.js`) and writes one result line per case to a file
//! of its own, so the deliverable's prints cannot corrupt the results. When the interpreter dies
//! mid-batch (a crash, a kill, a limit), the case in progress is recorded and a fresh
//! interpreter resumes from the next case.

use super::outcome::abnormal;
use super::records::{Record, parse_records};
use super::workdir::{WorkDir, read_capped, text_of, write_box_file, write_sources};
use super::{NOT_RUN, OracleError, SuiteRun, case_result};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;
use verdict_compare::expect::tail;
use verdict_compare::values::first_difference;
use verdict_contracts::Language;
use verdict_contracts::oracle::{
    FunctionSignature, OracleCaseResult, OracleCaseStatus, TestCase, TestSuite, check_arity,
    function_args,
};
use verdict_scripts::{ExitKind, ProcessSpec, RunOutcome, Stream, WarmScript, read_box_file};

/// The harness of a language: its file name in the box and its source.
struct Harness {
    file: &'static str,
    source: &'static str,
}

/// Where the python harness's bytecode goes in the box, when it runs as bytecode (its code
/// still names `.verdict/harness.py`, as tracebacks did).
const PYTHON_HARNESS_BYTECODE: &str = ".verdict/harness.pyc";

fn harness_for(language: Language) -> Option<Harness> {
    match language {
        Language::Python3 => Some(Harness {
            file: ".verdict/harness.py",
            source: include_str!("harness/function.py"),
        }),
        Language::Js => Some(Harness {
            file: ".verdict/harness.js",
            source: include_str!("harness/function.js"),
        }),
        _ => None,
    }
}

/// Whether the oracle has a function harness for `language`.
pub(crate) fn supports(language: Language) -> bool {
    harness_for(language).is_some()
}

/// Checks that the function's module (the first source file) is a file of the suite's language.
pub(crate) fn check_module(suite: &TestSuite) -> Result<(), OracleError> {
    if let Some(i) = suite
        .source_files
        .iter()
        .position(|a| a.name.starts_with(".verdict/"))
    {
        return Err(OracleError::suite(
            &format!("source_files[{i}].name"),
            ".verdict/ is reserved for the oracle's harness",
        ));
    }
    let name = &suite.source_files[0].name;
    let ok = match suite.language {
        Language::Python3 => name.ends_with(".py"),
        Language::Js => [".js", ".cjs", ".mjs"]
            .iter()
            .any(|ext| name.ends_with(ext)),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(OracleError::suite(
            "source_files[0].name",
            format!(
                "{name:?} is not a {} module (the function's module is the first source file)",
                suite.language
            ),
        ))
    }
}

const CASES_FILE: &str = ".verdict/cases.json";
/// Results files are read back up to this size.
const MAX_RESULTS_BYTES: u64 = 256 << 20;

/// Runs every case of a function suite.
pub(crate) fn run_function_suite(
    suite_run: &SuiteRun<'_>,
) -> Result<Vec<OracleCaseResult>, OracleError> {
    let suite = suite_run.suite;
    let mut results: Vec<Option<OracleCaseResult>> = vec![None; suite.test_cases.len()];
    let mut valid = Vec::new();
    let mut args = Vec::new();
    for (i, case) in suite.test_cases.iter().enumerate() {
        match function_args(&case.input) {
            Ok(a) => {
                valid.push(i);
                args.push(a);
            }
            Err(message) => {
                results[i] = Some(case_result(
                    case,
                    OracleCaseStatus::InvalidTestFormat,
                    None,
                    Some(message),
                    0,
                ));
            }
        }
    }
    let mut stopped = false;
    if !valid.is_empty() {
        let batch = Batch {
            suite_run,
            valid: &valid,
        };
        stopped = batch.run(&args, &mut results)?;
    }
    let missing = if stopped {
        NOT_RUN
    } else {
        "the harness gave no result"
    };
    Ok(results
        .into_iter()
        .zip(&suite.test_cases)
        .map(|(r, case)| {
            r.unwrap_or_else(|| {
                case_result(case, OracleCaseStatus::Error, None, Some(missing.into()), 0)
            })
        })
        .collect())
}

/// The valid cases of a suite and how to run them.
struct Batch<'a> {
    /// What every case runs with.
    suite_run: &'a SuiteRun<'a>,
    /// Suite index of each valid case, in order (the harness numbers cases 0..).
    valid: &'a [usize],
}

impl Batch<'_> {
    fn case(&self, k: usize) -> &TestCase {
        &self.suite_run.suite.test_cases[self.valid[k]]
    }

    /// Runs the valid cases; `true` when it stopped before the end (`stop_at_first_failure`
    /// or the deadline).
    fn run(
        &self,
        args: &[&[Value]],
        results: &mut [Option<OracleCaseResult>],
    ) -> Result<bool, OracleError> {
        let Some(harness) = harness_for(self.suite_run.suite.language) else {
            return Err(OracleError::suite(
                "language",
                "function deliverables run in python3 or js",
            ));
        };
        let placing = verdict_scripts::timing::phase("oracle.files");
        let work = WorkDir::new(self.suite_run.options.work_dir.as_deref())?;
        let box_dir = work.box_dir();
        write_sources(&box_dir, &self.suite_run.suite.source_files)?;
        // The python harness from the slot's warm interpreter (which compiled it once), else
        // as bytecode its interpreter compiled once, where it can be had.
        let warm = self.warm_python(&harness);
        let bytecode = match self.suite_run.suite.language {
            Language::Python3 if warm.is_none() => super::bytecode::harness(
                self.suite_run.command,
                harness.source,
                harness.file,
                self.suite_run.executor.state_dir(),
            ),
            _ => None,
        };
        let harness_file = match &bytecode {
            Some(code) => {
                write_box_file(&box_dir, PYTHON_HARNESS_BYTECODE, code)?;
                PYTHON_HARNESS_BYTECODE
            }
            None => {
                write_box_file(&box_dir, harness.file, harness.source.as_bytes())?;
                harness.file
            }
        };
        let cases = serde_json::to_vec(args)
            .map_err(|e| OracleError::io("encode", CASES_FILE, e.into()))?;
        write_box_file(&box_dir, CASES_FILE, &cases)?;

        placing.end();
        let total = self.valid.len();
        let per_interpreter = self.suite_run.options.max_cases_per_interpreter.max(1);
        let mut start = 0;
        let mut run_no = 0usize;
        while start < total {
            let end = start.saturating_add(per_interpreter).min(total);
            let results_name = format!(".verdict/results-{run_no}.jsonl");
            let stderr = work.io(&format!("stderr-{run_no}"));
            let running = verdict_scripts::timing::phase("oracle.sandbox");
            let outcome = self.launch(
                warm.as_ref(),
                harness_file,
                &box_dir,
                &results_name,
                &work.io(&format!("stdout-{run_no}")),
                &stderr,
                start,
                end,
            )?;
            running.end();
            let _reading = verdict_scripts::timing::phase("oracle.results");
            run_no += 1;
            let text = match read_box_file(&box_dir, Path::new(&results_name), MAX_RESULTS_BYTES) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(_) => String::new(),
            };
            let stderr = text_of(read_capped(
                &stderr,
                self.suite_run.options.max_capture_bytes,
            )?);
            // The python harness's faulthandler writes here when it ends a case the alarm could not.
            let hard_timeout = read_box_file(
                &box_dir,
                Path::new(&format!("{results_name}.timeout")),
                1 << 16,
            )
            .is_ok_and(|bytes| !bytes.is_empty());
            let ended = Ended {
                outcome: &outcome,
                stderr: &stderr,
                hard_timeout,
            };
            let from = start;
            start = self.absorb(&parse_records(&text), &ended, start, end, results);
            if self.should_stop(&results_of(self.valid, from, start, results)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether to run no more cases: one ran and did not pass (with `stop_at_first_failure`),
    /// or the deadline has come.
    fn should_stop(&self, ran: &[&OracleCaseResult]) -> bool {
        let failed = ran.iter().any(|r| r.status != OracleCaseStatus::Passed);
        let timed_out = ran.iter().any(|r| r.status == OracleCaseStatus::Timeout);
        (self.suite_run.options.stop_at_first_failure && failed)
            || (self.suite_run.options.stop_after_timeout && timed_out)
            || self
                .suite_run
                .options
                .deadline
                .is_some_and(|d| Instant::now() >= d)
    }

    /// How the python harness is served warm, where the sandbox has warm interpreters: its
    /// own imports loaded once by the template (see `verdict_scripts::WarmScript`).
    fn warm_python(&self, harness: &Harness) -> Option<WarmScript> {
        let warm = self.suite_run.suite.language == Language::Python3
            && self.suite_run.executor.has_warm_interpreters();
        warm.then(|| WarmScript {
            flags: self.suite_run.command[1..].iter().map(Into::into).collect(),
            script_path: harness.file.to_owned(),
            script: harness.source.to_owned(),
            preload: ["_signal", "faulthandler", "fcntl", "time", "_json"]
                .map(String::from)
                .to_vec(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        warm: Option<&WarmScript>,
        harness_file: &str,
        box_dir: &Path,
        results_name: &str,
        stdout: &Path,
        stderr: &Path,
        start: usize,
        end: usize,
    ) -> Result<RunOutcome, OracleError> {
        let mut argv: Vec<String> = self.suite_run.command[1..].to_vec();
        argv.extend([
            harness_file.to_owned(),
            CASES_FILE.to_owned(),
            results_name.to_owned(),
            self.suite_run.suite.source_files[0].name.clone(),
            self.suite_run.suite.entry_point.clone(),
            start.to_string(),
            end.to_string(),
            self.suite_run.timeout_ms.to_string(),
            // "stop": end after the first case that times out (the rest would be stopped anyway).
            if self.suite_run.options.stop_at_first_failure
                || self.suite_run.options.stop_after_timeout
            {
                "stop"
            } else {
                "all"
            }
            .to_owned(),
        ]);
        // The harness times each case itself; the sandbox's limits are the backstop for an
        // interpreter that cannot be interrupted (each case's time plus the harness's grace).
        let per_case = self
            .suite_run
            .timeout_ms
            .saturating_add((self.suite_run.timeout_ms / 2).max(1000))
            .saturating_add(500);
        let budget = self.suite_run.options.startup_ms.saturating_add(
            per_case.saturating_mul(u64::try_from(end - start).unwrap_or(u64::MAX)),
        );
        // The deadline stops the interpreter (the case it was in becomes a timeout).
        let budget = match self.suite_run.options.deadline {
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                budget.min(u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1))
            }
            None => budget,
        };
        let mut limits = self.suite_run.options.limits.clone();
        limits.wall_time_ms = Some(budget);
        limits.cpu_time_ms = Some(budget);
        let spec = ProcessSpec {
            program: PathBuf::from(&self.suite_run.command[0]),
            args: argv.into_iter().map(Into::into).collect(),
            env: vec![
                ("PYTHONIOENCODING".into(), "utf-8".into()),
                // One hash seed for every run, so that a set's order is the same in a dataset's
                // reference run and the candidate's (docs/datasets.md).
                ("PYTHONHASHSEED".into(), "0".into()),
                ("LANG".into(), "C.UTF-8".into()),
            ],
            box_dir: box_dir.to_path_buf(),
            stdin: Stream::Null,
            stdout: Stream::File(stdout.to_path_buf()),
            stderr: Stream::File(stderr.to_path_buf()),
            limits,
            read_only_mounts: Vec::new(),
            writable_mounts: Vec::new(),
        };
        Ok(match warm {
            Some(warm) => {
                self.suite_run
                    .executor
                    .run_warm_python(self.suite_run.cancel, warm, spec)?
            }
            None => self
                .suite_run
                .executor
                .run_spec(self.suite_run.cancel, spec)?,
        })
    }

    /// Records the results of one interpreter run over cases `start..end`; returns where the
    /// next run starts (`end` when the batch is through, past the whole suite when loading failed).
    fn absorb(
        &self,
        records: &[Record],
        ended: &Ended<'_>,
        start: usize,
        end: usize,
        results: &mut [Option<OracleCaseResult>],
    ) -> usize {
        let mut signature = None;
        let mut load_error = None;
        let mut done = false;
        let mut next = start;
        for record in records {
            match record {
                Record::Loaded(sig) => signature = Some(*sig),
                Record::LoadError(message) => load_error = Some(message.clone()),
                Record::Done => done = true,
                other => {
                    let Some(k) = other.case().filter(|k| (start..end).contains(k)) else {
                        continue;
                    };
                    results[self.valid[k]] = Some(self.result_of(k, other, signature));
                    next = next.max(k + 1);
                }
            }
        }
        let total = self.valid.len();
        let Some(_) = signature else {
            let message = match load_error {
                Some(m) => m,
                None if ended.hard_timeout => "loading the module ran out of time".to_owned(),
                None => format!(
                    "the interpreter ended before loading the deliverable: {}",
                    died(ended.outcome, ended.stderr)
                ),
            };
            for k in start..total {
                results[self.valid[k]] = Some(case_result(
                    self.case(k),
                    OracleCaseStatus::Error,
                    None,
                    Some(message.clone()),
                    0,
                ));
            }
            return total;
        };
        if done || next >= end {
            return end;
        }
        // The interpreter ended while case `next` was running.
        let (status, message) = match abnormal(ended.outcome) {
            _ if ended.hard_timeout => (
                OracleCaseStatus::Timeout,
                format!(
                    "ran out of time ({} ms per case)",
                    self.suite_run.timeout_ms
                ),
            ),
            Some((status, message)) => (status, message),
            None => (OracleCaseStatus::Error, died(ended.outcome, ended.stderr)),
        };
        let message = if status == OracleCaseStatus::Timeout {
            format!("{message}; the interpreter was stopped during this case")
        } else {
            message
        };
        let time = if status == OracleCaseStatus::Timeout {
            self.suite_run.timeout_ms
        } else {
            0
        };
        results[self.valid[next]] = Some(case_result(
            self.case(next),
            status,
            None,
            Some(message),
            time,
        ));
        next + 1
    }

    fn result_of(
        &self,
        k: usize,
        record: &Record,
        signature: Option<FunctionSignature>,
    ) -> OracleCaseResult {
        let case = self.case(k);
        let ms = |ms: &f64| ms.max(0.0).round() as u64;
        match record {
            Record::Returned { got, ms: t, .. } => {
                let tolerance = self.suite_run.suite.float_tolerance.unwrap_or_default();
                match first_difference(got, &case.expected, tolerance) {
                    None => case_result(
                        case,
                        OracleCaseStatus::Passed,
                        Some(got.clone()),
                        None,
                        ms(t),
                    ),
                    Some(d) => case_result(
                        case,
                        OracleCaseStatus::Failed,
                        Some(got.clone()),
                        Some(format!("return value differs {d}")),
                        ms(t),
                    ),
                }
            }
            Record::Raised { message, ms: t, .. } => case_result(
                case,
                OracleCaseStatus::Error,
                None,
                Some(message.clone()),
                ms(t),
            ),
            Record::TimedOut { ms: t, .. } => case_result(
                case,
                OracleCaseStatus::Timeout,
                None,
                Some(format!(
                    "ran out of time ({} ms per case)",
                    self.suite_run.timeout_ms
                )),
                ms(t),
            ),
            Record::Arity { given, .. } => {
                let sig = signature.unwrap_or(FunctionSignature {
                    required: 0,
                    max: Some(0),
                });
                let message = check_arity(&self.suite_run.suite.entry_point, *given, sig)
                    .err()
                    .unwrap_or_else(|| "invalid_test_format: wrong number of args".into());
                case_result(
                    case,
                    OracleCaseStatus::InvalidTestFormat,
                    None,
                    Some(message),
                    0,
                )
            }
            Record::Loaded(_) | Record::LoadError(_) | Record::Done => case_result(
                case,
                OracleCaseStatus::Error,
                None,
                Some("the harness gave no result".into()),
                0,
            ),
        }
    }
}

/// The results of valid cases `from..to` (those recorded).
fn results_of<'r>(
    valid: &[usize],
    from: usize,
    to: usize,
    results: &'r [Option<OracleCaseResult>],
) -> Vec<&'r OracleCaseResult> {
    valid[from..to.min(valid.len())]
        .iter()
        .filter_map(|&i| results[i].as_ref())
        .collect()
}

/// How one interpreter run ended.
struct Ended<'a> {
    /// The run's outcome.
    outcome: &'a RunOutcome,
    /// Its standard error.
    stderr: &'a str,
    /// The harness ended itself because a case overran its time and the grace after it.
    hard_timeout: bool,
}

/// How an interpreter ended, for a message: exit code or signal, and its stderr's tail.
fn died(outcome: &RunOutcome, stderr: &str) -> String {
    let how = match outcome.exit {
        ExitKind::Exited(code) => format!("the interpreter exited with code {code}"),
        ExitKind::Signaled(signal) => {
            format!(
                "the interpreter was killed by signal {}",
                super::outcome::signal_name(signal)
            )
        }
    };
    let stderr = tail(stderr, 400);
    if stderr.is_empty() {
        how
    } else {
        format!("{how}: {stderr}")
    }
}
