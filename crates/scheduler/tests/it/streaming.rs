//! The streaming entry point sends every task's result once, and the report matches them.

use crate::common::{judge, repo_root, runtime};
use verdict_contracts::parse_submission;

#[test]
fn each_task_result_is_streamed_once_and_matches_the_report() {
    let Some(judge) = judge() else { return };
    let text =
        std::fs::read_to_string(repo_root().join("examples/judge/dependency-not-satisfied.json"))
            .expect("example");
    let submission = parse_submission(&text).expect("valid");
    let count = submission.judge_tasks.len();
    let rt = runtime();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let report = rt.block_on(judge.judge_with_updates(submission, Some(tx)));
    let mut seen = vec![None; count];
    while let Ok(update) = rx.try_recv() {
        assert!(
            seen[update.index].is_none(),
            "task {} streamed twice",
            update.index
        );
        seen[update.index] = Some(update.result);
    }
    for (index, result) in report.results.iter().enumerate() {
        assert_eq!(seen[index].as_ref(), Some(result), "task {index}");
    }
}
