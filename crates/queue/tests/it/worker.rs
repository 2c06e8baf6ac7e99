//! Worker mode against a real broker, with a platform reading the result queue.

use crate::common::*;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use verdict_contracts::JudgeStatus;
use verdict_queue::testing::Platform;
use verdict_queue::{Link, QueueMetrics, Worker};

struct Running {
    metrics: Arc<QueueMetrics>,
    link: Arc<Link>,
    judge: Arc<Steps>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

/// A worker on the shared node's queues tagged `tag` (taking `prefetch` submissions at once,
/// each task `step_ms` long) once it is connected, and a platform connected beside it; `None`
/// (skipped) without a broker.
async fn start_worker(tag: &str, prefetch: usize, step_ms: u64) -> Option<(Running, Platform)> {
    let node = node()?;
    let config = config(&node.uri(), tag);
    let metrics = arc(QueueMetrics::default());
    let link = arc(Link::default());
    let judge = arc(Steps {
        step: Duration::from_millis(step_ms),
        ..Steps::default()
    });
    let worker = arc(Worker::new(
        config.clone(),
        prefetch,
        judge.clone(),
        metrics.clone(),
        link.clone(),
    ));
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(worker.run(shutdown.clone()));
    let up = link.clone();
    eventually("the worker connects", move || up.is_up()).await;
    let running = Running {
        metrics,
        link,
        judge,
        shutdown,
        task,
    };
    Some((running, connect_platform(&config).await))
}

impl Running {
    /// Shuts the worker down and waits for it to end.
    async fn stop(&mut self) {
        self.shutdown.cancel();
        (&mut self.task).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_platform_gets_a_report_after_every_task_and_the_complete_one_once() {
    let Some((mut worker, mut platform)) = start_worker("progress", 2, 20).await else {
        return;
    };
    publish(&platform, &submission_json("s1", 3)).await;
    let mut reports = Vec::new();
    for _ in 0..3 {
        reports.push(next_report(&mut platform).await);
    }
    // Published with the submission's category as the routing key, as the home system does.
    assert!(reports.iter().all(|(_, key)| key == "oj"));
    let statuses: Vec<Vec<JudgeStatus>> = reports
        .iter()
        .map(|(r, _)| r.results.iter().map(|t| t.status).collect())
        .collect();
    use JudgeStatus::{Accepted as A, Pending as P};
    // The complete report is published once, as the final one (not also as the last task's).
    assert_eq!(statuses, [vec![A, P, P], vec![A, A, P], vec![A, A, A]]);
    let final_report = &reports[2].0;
    assert_eq!(
        (final_report.sub_id.as_str(), final_report.category.as_str()),
        ("s1", "oj")
    );
    let metrics = worker.metrics.clone();
    eventually("the request is acked", move || count(&metrics.acks) == 1).await;
    assert_eq!(count(&worker.metrics.reports_published), 3);
    assert_eq!(count(&worker.metrics.redeliveries), 0);
    worker.stop().await;
    assert!(!worker.link.is_up());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_message_is_reported_and_acked_not_redelivered() {
    let Some((mut worker, mut platform)) = start_worker("invalid", 1, 1).await else {
        return;
    };
    publish(&platform, "this is not JSON").await;
    let (report, _) = next_report(&mut platform).await;
    assert_refused(&report, "not JSON");
    let mut broken: serde_json::Value = serde_json::from_str(&submission_json("bad-1", 2)).unwrap();
    broken["judge_tasks"][1]["testcase_id"] = 7.into();
    publish(&platform, &broken.to_string()).await;
    let (report, key) = next_report(&mut platform).await;
    assert_eq!((report.sub_id.as_str(), key.as_str()), ("bad-1", "oj"));
    assert_refused(&report, "judge_tasks[1].testcase_id");
    // A valid one behind them is judged: the invalid ones did not block the queue.
    assert_one_task_accepted(&mut platform, "after").await;
    let metrics = worker.metrics.clone();
    eventually("three acks", move || count(&metrics.acks) == 3).await;
    assert_eq!(count(&worker.metrics.invalid), 2);
    assert_eq!(count(&worker.metrics.deliveries), 3);
    assert_eq!(
        worker
            .judge
            .judged
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    worker.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefetch_bounds_the_submissions_judged_at_once() {
    let Some((mut worker, mut platform)) = start_worker("prefetch", 2, 1000).await else {
        return;
    };
    for i in 0..5 {
        publish(&platform, &submission_json(&format!("p{i}"), 1)).await;
    }
    // While the first two are judged (1 s each), the other three wait in the broker.
    let metrics = worker.metrics.clone();
    eventually("two deliveries", move || count(&metrics.deliveries) == 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(count(&worker.metrics.deliveries), 2);
    let mut finished = std::collections::BTreeSet::new();
    while finished.len() < 5 {
        let (report, _) = next_report(&mut platform).await;
        if verdict_queue::is_final(&report) {
            finished.insert(report.sub_id);
        }
    }
    assert_eq!(count(&worker.metrics.deliveries), 5);
    worker.stop().await;
}
