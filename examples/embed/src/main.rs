//! A small service embedding verdict: it reads one Submission JSON per line on stdin, judges
//! them concurrently with one shared `Judge`, reports each task's result on stderr as soon as
//! it is known, and writes one JudgeReport JSON line per submission on stdout.
//!
//! ```sh
//! jq -c . examples/judge/aplusb-c.json | cargo run -p verdict-embed-example
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

use anyhow::Context;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;
use verdict_contracts::parse_submission;
use verdict_scheduler::{Judge, JudgeConfig};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // One judge for the whole service: it owns the sandbox, the cache and the run pool.
    let judge = Judge::new(JudgeConfig::default()).context("cannot set up the judge")?;
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<String>();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut pending = 0usize;
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        pending += 1;
        let judge = judge.clone();
        let done = done_tx.clone();
        tokio::spawn(async move {
            let report = match parse_submission(&line) {
                Ok(submission) => {
                    let sub_id = submission.sub_id.clone();
                    let (tx, mut rx) = mpsc::unbounded_channel();
                    let progress = tokio::spawn(async move {
                        while let Some(update) = rx.recv().await {
                            let update: verdict_scheduler::TaskUpdate = update;
                            eprintln!("{sub_id}: task {} {}", update.index, update.result.status);
                        }
                    });
                    let report = judge.judge_with_updates(submission, Some(tx)).await;
                    let _ = progress.await;
                    report
                }
                // Bad input is a report too: results [] and a message naming the field.
                Err(err) => err.into_report(),
            };
            let _ = done.send(serde_json::to_string(&report).unwrap_or_default());
        });
    }
    drop(done_tx);
    while pending > 0 {
        match done_rx.recv().await {
            Some(report) => println!("{report}"),
            None => break,
        }
        pending -= 1;
    }
    Ok(())
}
