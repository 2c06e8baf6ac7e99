//! `judge batch FILE|-`: judge a batch (one problem, many candidates) and stream NDJSON on
//! stdout: one `{"event": "candidate", ...}` line per candidate as it finishes, then one
//! `{"event": "summary", ...}` line.

use super::config::{ConfigArgs, read_input};
use anyhow::Context;
use std::io::Write;
use std::process::ExitCode;
use verdict_contracts::batch::{BatchEvent, parse_batch};
use verdict_datasets::DatasetBatchJudge;
use verdict_oracle::OracleOptions;
use verdict_scheduler::{BatchCancel, BatchJudge, Judge};

/// Arguments of `judge batch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The batch JSON file, or `-` for standard input.
    pub file: String,
    /// Per-case time limit in ms for suites that give no `timeout_ms`.
    #[arg(long)]
    pub default_timeout_ms: Option<u64>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Runs `judge batch`: exit 0 when every candidate passed, 1 when some did not (or the judge
/// failed on some), 2 on a batch that is unreadable or invalid (every problem on stderr).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.file)?;
    let batch = parse_batch(&text).map_err(|errors| invalid(&args.file, &errors))?;
    let config = args.config.load_for_judging()?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let judge = Judge::new(config).context("cannot set up the judge")?;
    // Suites' boxes are made under the judge's work dir (`--work-dir`, the config's), as
    // judge-server does, not in the system's temp dir.
    let mut oracle = OracleOptions {
        work_dir: Some(judge.config().work_dir.clone()),
        ..OracleOptions::default()
    };
    if let Some(ms) = args.default_timeout_ms {
        oracle.default_timeout_ms = ms.max(1);
    }
    let batches = DatasetBatchJudge::new(BatchJudge::new(judge, oracle));
    let batch = batches
        .validate(batch)
        .map_err(|errors| invalid(&args.file, &errors))?;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let report = runtime.block_on(async {
        let running = batches.run_valid(batch, Some(tx), BatchCancel::new());
        let printing = async {
            let mut stdout = std::io::stdout().lock();
            while let Some(event) = rx.recv().await {
                write_event(&mut stdout, &event)?;
            }
            anyhow::Ok(())
        };
        let (report, printed) = tokio::join!(running, printing);
        printed?;
        anyhow::Ok(report)
    })?;
    let all_passed = report.summary.passed == report.summary.candidates;
    Ok(super::judged_exit(all_passed))
}

/// One NDJSON line, flushed (a reader sees each candidate as it finishes).
fn write_event(out: &mut impl Write, event: &BatchEvent) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, event).context("cannot write a result")?;
    out.write_all(b"\n").context("cannot write a result")?;
    out.flush().context("cannot write a result")
}

fn invalid(file: &str, errors: &[verdict_contracts::FieldError]) -> anyhow::Error {
    let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
    anyhow::anyhow!("invalid batch {file}: {}", list.join("; "))
}
