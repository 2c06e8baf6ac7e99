//! `DELETE /v1/submissions/{sub_id}` on a front end, against a real RabbitMQ node
//! and real worker processes judging real programs: the cancel reaches the worker judging the
//! submission through the broker (its boxes killed at once, its place back), and a submission
//! cancelled while queued is never judged, also by a worker started after the cancel.

use crate::amqp::{Cluster, WorkerProcess, metric, poll_metric};
use crate::common::*;

use std::time::{Duration, Instant};

/// Two category tokens for a front end.
const TOKENS: &str = r#"
[[tokens]]
token = "oj-t"
category = "oj"
[[tokens]]
token = "other-t"
category = "other"
"#;

/// Sends `spin` (four tests of [`SPIN`] limited to 20 s) to `front` and waits until a worker
/// judges its tests.
fn spin_until_its_tests_run(front: &WorkerProcess) {
    let url = |path: &str| format!("{}{path}", front.url);
    let body = long_spin("spin", 4, 20_000).to_string();
    let accepted = post(&url("/v1/submissions"), Some("oj-t"), &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let running = url("/v1/submissions/spin");
    wait_compiled(&running, Some("oj-t"), Duration::from_secs(120));
}

fn accepted_tasks(worker: &WorkerProcess) -> u64 {
    metric(worker, "verdict_task_verdicts_total{status=\"Accepted\"}")
}

/// Before, a front end answered 501: a submission running on a worker held its place until its
/// tests' limits (here 4 x 20 s).
#[test]
fn a_submission_running_on_a_worker_is_cancelled_through_the_front_end_at_once_and_frees_its_place()
{
    let Some(cluster) = Cluster::judging("sub-cancel-running") else {
        return;
    };
    let front = cluster.start_with("front", "frontend", TOKENS);
    let worker = cluster.start("worker", "worker");
    let url = |path: &str| format!("{}{path}", front.url);

    spin_until_its_tests_run(&front);
    std::thread::sleep(Duration::from_millis(500));
    // Another category's is not found, as is an unknown one.
    assert_eq!(
        delete(&url("/v1/submissions/spin"), Some("other-t")).status,
        404
    );
    assert_eq!(
        delete(&url("/v1/submissions/nothing"), Some("oj-t")).status,
        404
    );

    // The worker stopped the running tests itself (its report, not the front end's).
    let report = cancelled_at_once(&url("/v1/submissions/spin"), Some("oj-t"));
    assert_eq!(report["results"][0]["status"], "Accepted", "{report}");
    assert!(all_cancelled(&report, 1), "{report}");
    // The event stream ends with the same report.
    let (_, events) = read_events(&url("/v1/submissions/spin/events"), Some("oj-t"));
    assert_eq!(events.last().map(|e| e.data.clone()), Some(report.clone()));

    // The worker's only place is free: the next submission is judged at once.
    judged_at_once(&url("/v1/judge"), Some("oj-t"), Duration::from_secs(15));
    // A finished one is answered as it is.
    let again = delete(&url("/v1/submissions/spin"), Some("oj-t"));
    assert_eq!(again.status, 200);
    assert_eq!(again.json(), report);
    drop(worker);
}

/// A submission cancelled while queued (behind another on the only worker's only place, or
/// before any worker was up) ends cancelled at once and is never judged: the worker that takes
/// it later knows the cancel from the broker's stream and runs none of its tasks. Before, a
/// front end answered 501 and the worker judged it.
#[test]
fn a_submission_cancelled_while_queued_is_never_judged_even_by_a_worker_started_after_the_cancel() {
    let Some(cluster) = Cluster::judging("sub-cancel-queued") else {
        return;
    };
    let front = cluster.start_with("front", "frontend", TOKENS);
    let url = |path: &str| format!("{}{path}", front.url);
    let right = |sub_id: &str| a_plus_b(sub_id, "oj", A_PLUS_B).to_string();
    let cancel_queued = |sub_id: &str| {
        let asked = Instant::now();
        let cancelled = delete(&url(&format!("/v1/submissions/{sub_id}")), Some("oj-t"));
        let took = asked.elapsed();
        assert_eq!(cancelled.status, 200, "{}", cancelled.text);
        assert_eq!(cancelled.header("verdict-complete"), Some("true"));
        assert!(took < Duration::from_secs(6), "the cancel took {took:?}");
        let report = cancelled.json();
        assert!(all_cancelled(&report, 0), "{report}");
        report
    };

    // No worker is up: the cancel waits in the broker for the workers to come.
    let early = post(&url("/v1/submissions"), Some("oj-t"), &right("early"));
    assert_eq!(early.status, 202, "{}", early.text);
    let early_report = cancel_queued("early");

    let worker = cluster.start("worker", "worker");
    spin_until_its_tests_run(&front);
    // Behind the spinning one on the worker's only place.
    let behind = post(&url("/v1/submissions"), Some("oj-t"), &right("behind"));
    assert_eq!(behind.status, 202, "{}", behind.text);
    let behind_report = cancel_queued("behind");
    // The worker took "early" (skipped) and is still on "spin"; cancelling it frees the
    // place, and the worker takes "behind".
    let spin = delete(&url("/v1/submissions/spin"), Some("oj-t"));
    assert_eq!(spin.status, 200, "{}", spin.text);
    poll_metric(&worker, "verdict_amqp_acks_total", |acks| acks >= 3);
    // Only the spinning one's compile was judged Accepted: "early" and "behind" (right
    // programs) ran nothing.
    assert_eq!(accepted_tasks(&worker), 1);
    // The front end kept the first final reports.
    for (sub_id, report) in [("early", early_report), ("behind", behind_report)] {
        let read = get(&url(&format!("/v1/submissions/{sub_id}")), Some("oj-t"));
        assert_eq!(read.header("verdict-state"), Some("finished"));
        assert_eq!(read.json(), report);
    }
    // Sent again after its cancel (a rejudge), "behind" is judged: a cancel reaches the
    // submissions of its sub_id accepted before it, not those accepted after.
    let judged = post(&url("/v1/judge"), Some("oj-t"), &right("behind"));
    assert_eq!(judged.status, 200, "{}", judged.text);
    assert_eq!(
        statuses(&judged.json()),
        ["Accepted", "Accepted", "Accepted"]
    );
}
