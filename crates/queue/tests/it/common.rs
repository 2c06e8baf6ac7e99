//! The shared broker node, a platform client, and a stand-in judge.

use futures::future::BoxFuture;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use verdict_contracts::{JudgeReport, JudgeStatus, JudgeTaskResult, Submission, Valid};
use verdict_queue::testing::{NodeError, Platform, RabbitNode};
use verdict_queue::{AmqpConfig, Judging, Route};
use verdict_testkit::submission::SubmissionJson;

/// The node shared by this binary's tests; `None` (after printing `skipped:`) when RabbitMQ is
/// not installed, unless CI or `VERDICT_REQUIRE_SANDBOX=1` asks for it, where that fails.
pub fn node() -> Option<&'static RabbitNode> {
    static NODE: OnceLock<Result<RabbitNode, String>> = OnceLock::new();
    match NODE.get_or_init(|| RabbitNode::start().map_err(|e| e.to_string())) {
        Ok(node) => Some(node),
        Err(err) => skip_or_fail(err),
    }
}

/// A node of the test's own (for tests that stop or restart it).
pub fn own_node() -> Option<RabbitNode> {
    match RabbitNode::start() {
        Ok(node) => Some(node),
        Err(err @ NodeError::NotInstalled) => skip_or_fail(&err.to_string()),
        Err(err) => panic!("{err}"),
    }
}

fn skip_or_fail<T>(err: &str) -> Option<T> {
    let required = std::env::var_os("CI").is_some() || verdict_testkit::required();
    if required || RabbitNode::installed() {
        panic!("{err}");
    }
    println!("skipped: {err}");
    None
}

/// A config on `uri` whose exchange and queue names carry `tag` (tests share one node).
pub fn config(uri: &str, tag: &str) -> AmqpConfig {
    let defaults = AmqpConfig::default();
    AmqpConfig {
        uri: uri.to_owned(),
        request: Route {
            queue: format!("{tag}-request"),
            exchange: format!("{tag}-request-exchange"),
            ..defaults.request
        },
        report: Route {
            queue: format!("{tag}-result"),
            exchange: format!("{tag}-result-exchange"),
            ..defaults.report
        },
        reconnect_min_ms: 50,
        reconnect_max_ms: 500,
        ..defaults
    }
}

/// A Submission of `tasks` tasks (a compile and standard tests), as a platform sends it.
pub fn submission_json(sub_id: &str, tasks: usize) -> String {
    SubmissionJson::a_plus_b(sub_id)
        .category("oj")
        .test("1 2\n", "3\n")
        .runs(tasks.saturating_sub(1))
        .limit("time_limit", 1000)
        .text()
}

/// A stand-in for the judge (the real one is exercised by judge-server's tests): every task is
/// `Accepted` after `step`, one after the other; `judged` counts the submissions started.
#[derive(Debug, Default)]
pub struct Steps {
    pub step: Duration,
    pub judged: AtomicU64,
}

impl Judging for Steps {
    fn judge(
        &self,
        submission: Valid<Submission>,
        updates: mpsc::UnboundedSender<(usize, JudgeTaskResult)>,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, JudgeReport> {
        self.judged.fetch_add(1, Ordering::SeqCst);
        let step = self.step;
        Box::pin(async move {
            let mut results = Vec::new();
            for index in 0..submission.judge_tasks.len() {
                tokio::time::sleep(step).await;
                let result = JudgeTaskResult::with_status(JudgeStatus::Accepted, "");
                let _ = updates.send((index, result.clone()));
                results.push(result);
            }
            JudgeReport::echoing(&submission, results)
        })
    }
}

/// The next report (with its routing key), at most 60 s away.
pub async fn next_report(platform: &mut Platform) -> (JudgeReport, String) {
    platform
        .next_report(Duration::from_secs(60))
        .await
        .expect("a report within 60 s")
}

/// A platform connected to `config`'s broker.
pub async fn connect_platform(config: &AmqpConfig) -> Platform {
    Platform::connect(config)
        .await
        .expect("the platform connects")
}

/// Publishes `body` as the platform.
pub async fn publish(platform: &Platform, body: &str) {
    platform.publish(body).await.expect("published");
}

/// Reports until the final one of `sub_id`.
pub async fn reports_until_final(platform: &mut Platform, sub_id: &str) -> Vec<JudgeReport> {
    let mut seen = Vec::new();
    loop {
        let (report, _) = next_report(platform).await;
        if report.sub_id != sub_id {
            continue;
        }
        let last = verdict_queue::is_final(&report);
        seen.push(report);
        if last {
            return seen;
        }
    }
}

/// Publishes a one-task submission `sub_id` and checks its final report accepts the task.
pub async fn assert_one_task_accepted(platform: &mut Platform, sub_id: &str) {
    publish(platform, &submission_json(sub_id, 1)).await;
    let finals = reports_until_final(platform, sub_id).await;
    assert_eq!(
        finals.last().unwrap().results[0].status,
        JudgeStatus::Accepted
    );
}

/// Checks that `report` refused its submission without judging it, its message saying `why`.
pub fn assert_refused(report: &JudgeReport, why: &str) {
    assert!(report.results.is_empty());
    assert!(
        report.message.as_deref().is_some_and(|m| m.contains(why)),
        "{report:?}"
    );
}

/// Waits until `check` holds (at most 60 s).
pub async fn eventually(what: &str, check: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn count(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::SeqCst)
}

pub fn arc<T>(value: T) -> Arc<T> {
    Arc::new(value)
}
