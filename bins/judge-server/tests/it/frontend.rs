//! `role = "frontend"` against a real RabbitMQ node: front ends publish what they accept and
//! serve `GET` and event streams from the reports they consume, for any submission, whichever
//! front end (or platform) sent it; a front end without its broker says so and refuses with 503
//! until the broker is back.

use crate::amqp::{Cluster, WorkerProcess, metric, node, runtime, start_role};
use crate::common::*;
use std::time::Duration;
use verdict_queue::testing::{Platform, RabbitNode};

/// Polls `GET url` until `done` holds for the reply (at most 120 s).
fn poll(url: &str, what: &str, done: impl Fn(&Reply) -> bool) -> Reply {
    poll_get(url, what, Duration::from_secs(120), done)
}

fn state(reply: &Reply) -> Option<&str> {
    (reply.status == 200).then(|| reply.header("verdict-state"))?
}

fn finished(server: &WorkerProcess, sub_id: &str) -> Reply {
    poll(
        &format!("{}/v1/submissions/{sub_id}?category=oj", server.url),
        &format!("{sub_id} finished at {}", server.url),
        |r| state(r) == Some("finished"),
    )
}

#[test]
fn any_front_end_serves_any_submission_from_the_reports_it_consumes() {
    let Some(cluster) = Cluster::judging("frontends") else {
        return;
    };
    let [a, b] = cluster.two_front_ends();
    let _worker = cluster.start("worker", "worker");
    let health = get(&format!("{}/v1/health", a.url), None).json();
    assert_eq!(health["role"], "frontend");
    assert_eq!(health["status"], "ok");
    assert_eq!(health["broker"]["connected"], true);
    assert_matches_document(&verdict_judge_server::openapi_document(), "Health", &health);

    // Accepted by A (after the broker's confirm), followed live at B.
    let slow = a_plus_b("via-a", "oj", &sleepy_a_plus_b(2)).to_string();
    let accepted = post(&format!("{}/v1/submissions", a.url), None, &slow);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    assert_eq!(metric(&a, "verdict_amqp_submissions_published_total"), 1);
    let mine = get(&format!("{}/v1/submissions/via-a?category=oj", a.url), None);
    assert_eq!(mine.status, 200);
    // B knows it from the copy of the request, then from the compile task's report; the tests
    // sleep 2 s: the stream sees them arrive.
    poll(
        &format!("{}/v1/submissions/via-a?category=oj", b.url),
        "B to see via-a running",
        |r| state(r) == Some("running"),
    );
    let (status, events) = read_events(
        &format!("{}/v1/submissions/via-a/events?category=oj", b.url),
        None,
    );
    assert_eq!(status, 200);
    let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(kinds, ["task", "task", "task", "report"], "{events:?}");
    let report = &events[3].data;
    assert_eq!(report["sub_id"], "via-a");
    assert_eq!(statuses(report), ["Accepted"; 3]);
    for server in [&a, &b] {
        let reply = finished(server, "via-a");
        assert_eq!(reply.header("verdict-complete"), Some("true"));
        assert_eq!(statuses(&reply.json()), ["Accepted"; 3]);
    }

    // Published by a platform straight to the broker: no front end saw the request, both serve
    // its reports, B although it was killed (SIGKILL) meanwhile: its queue kept them.
    let mut b = b;
    b.child.kill().unwrap();
    b.child.wait().unwrap();
    let rt = runtime();
    let platform = rt.block_on(Platform::connect(&cluster.amqp)).unwrap();
    let wrong = A_PLUS_B.replace("a+b", "a-b");
    rt.block_on(platform.publish(&a_plus_b("direct", "oj", &wrong).to_string()))
        .unwrap();
    finished(&a, "direct");
    let b = cluster.start("front-b", "frontend");
    for server in [&a, &b] {
        let reply = finished(server, "direct");
        assert_eq!(
            statuses(&reply.json()),
            ["Accepted", "Wrong Answer", "Wrong Answer"]
        );
    }

    // Reports are keyed by (category, sub_id): one sub_id in two categories is two submissions.
    rt.block_on(platform.publish(&a_plus_b("twin", "alpha", A_PLUS_B).to_string()))
        .unwrap();
    rt.block_on(platform.publish(&a_plus_b("twin", "beta", &wrong).to_string()))
        .unwrap();
    for (category, expected) in [
        ("alpha", ["Accepted"; 3]),
        ("beta", ["Accepted", "Wrong Answer", "Wrong Answer"]),
    ] {
        let reply = poll(
            &format!("{}/v1/submissions/twin?category={category}", b.url),
            &format!("twin of {category} finished"),
            |r| state(r) == Some("finished"),
        );
        assert_eq!(reply.json()["category"], category);
        assert_eq!(statuses(&reply.json()), expected);
    }
    let ambiguous = get(&format!("{}/v1/submissions/twin", b.url), None);
    assert_eq!(ambiguous.status, 409, "{}", ambiguous.text);

    // POST /v1/judge through B waits for the final report.
    let judged = post(
        &format!("{}/v1/judge", b.url),
        None,
        &a_plus_b("sync", "oj", A_PLUS_B).to_string(),
    );
    assert_eq!(judged.status, 200, "{}", judged.text);
    assert_eq!(statuses(&judged.json()), ["Accepted"; 3]);
    finished(&a, "sync");
    // Five submissions, each with its final report at least (reports so far of tasks that
    // finish together may be published as one).
    assert!(metric(&a, "verdict_amqp_reports_consumed_total") >= 5);

    // A Task Oracle suite sent to a front end is judged on the workers (a batch of one) and
    // answered as a standalone server answers it.
    let suite = serde_json::json!({"deliverable_type": "function", "language": "python3",
        "entry_point": "add",
        "source_files": [{"type": "text", "name": "solution.py",
            "text": "def add(a, b):\n    return a + b if a else 0\n"}],
        "test_cases": [{"name": "small", "input": [1, 2], "expected": 3},
                       {"name": "zero", "input": [0, 5], "expected": 5},
                       {"name": "shape", "input": 7, "expected": 1}]});
    let judged = post(&format!("{}/v1/oracle", b.url), None, &suite.to_string());
    assert_eq!(judged.status, 200, "{}", judged.text);
    let report = judged.json();
    assert_eq!(
        statuses(&report),
        ["passed", "failed", "invalid_test_format"],
        "{report}"
    );
    assert_eq!(report["summary"]["passed"], 1, "{report}");
    assert_matches_document(
        &verdict_judge_server::openapi_document(),
        "OracleReport",
        &report,
    );
    // Refused as a standalone server refuses it, naming the suite's own field.
    let mut misnamed = suite.clone();
    misnamed["source_files"][0]["name"] = serde_json::json!("solution.js");
    let refused = post(&format!("{}/v1/oracle", a.url), None, &misnamed.to_string());
    refused.assert_refused(422, "source_files[0].name");
}

#[test]
fn a_front_end_without_its_broker_says_so_refuses_with_503_and_recovers() {
    if node().is_none() {
        return;
    }
    let mut own = RabbitNode::start().expect("a broker of this test's own");
    let cluster = Cluster::on(&own, "down");
    own.stop();
    let front = start_role(
        cluster.dir.path(),
        "front",
        "frontend",
        &cluster.amqp,
        false,
    );
    let health = poll(
        &format!("{}/v1/health", front.url),
        "the first connection attempt to fail",
        |r| r.text.contains("last_error"),
    )
    .json();
    assert_eq!(health["status"], "degraded");
    assert_eq!(health["broker"]["connected"], false);
    assert!(
        health["broker"]["last_error"]
            .as_str()
            .is_some_and(|e| !e.is_empty()),
        "{health}"
    );
    let submission = a_plus_b("waiting", "oj", A_PLUS_B).to_string();
    let refused = post(&format!("{}/v1/submissions", front.url), None, &submission);
    assert_eq!(refused.status, 503, "{}", refused.text);
    assert!(refused.header("retry-after").is_some());
    assert!(refused.text.contains("broker"), "{}", refused.text);
    // Not accepted, so not known.
    let unknown = get(
        &format!("{}/v1/submissions/waiting?category=oj", front.url),
        None,
    );
    assert_eq!(unknown.status, 404);

    own.restart().expect("the broker comes back");
    poll(
        &format!("{}/v1/health", front.url),
        "the front end to reconnect",
        |r| r.text.contains("\"status\":\"ok\""),
    );
    let other = cluster.start("other", "frontend");
    let accepted = post(&format!("{}/v1/submissions", front.url), None, &submission);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    assert_eq!(
        metric(&front, "verdict_amqp_submissions_published_total"),
        1
    );
    // No worker runs, so no report comes: both front ends know it as queued, the other from its
    // copy of the request.
    for server in [&front, &other] {
        poll(
            &format!("{}/v1/submissions/waiting?category=oj", server.url),
            &format!("waiting queued at {}", server.url),
            |r| state(r) == Some("queued"),
        );
    }
}

/// A front end's accept is bounded by `store_timeout_ms` too: with its data disk
/// frozen (`fsfreeze` of an ext4 on a loop device) a submission is 503 with `Retry-After` at the
/// timeout, never published, and its commit that ends after the thaw is taken back, so sending
/// it again is 202 (not 409) and the broker carries it once. Before, a front end's accept waited
/// as long as the disk did (to `request_timeout_ms`, then 504).
#[test]
fn a_front_ends_accept_on_a_frozen_data_disk_is_503_at_store_timeout_and_taken_back() {
    use crate::availability::{FULL_DISKS, Frozen, TestDisk, refused_at_store_timeout};
    let Some(node) = node() else { return };
    let _one_at_a_time = FULL_DISKS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(disk) = TestDisk::ext4_loop() else {
        return;
    };
    let cluster = Cluster::on(node, "frozen");
    // Only the data dir on the frozen disk: the front end's log and work dir stay writable.
    let home = cluster.dir.path().join("front");
    std::fs::create_dir_all(&home).unwrap();
    std::os::unix::fs::symlink(disk.path(), home.join("verdict-data")).unwrap();
    let front = cluster.start_with("front", "frontend", "store_timeout_ms = 1500");
    let thaw = Frozen::freeze(disk.path());
    let body = a_plus_b("frozen-front", "oj", A_PLUS_B).to_string();
    refused_at_store_timeout(&format!("{}/v1/submissions", front.url), &body);
    drop(thaw);
    let url = format!("{}/v1/submissions/frozen-front?category=oj", front.url);
    poll(&url, "the late commit to be taken back", |r| {
        r.status == 404
    });
    let again = post(&format!("{}/v1/submissions", front.url), None, &body);
    assert_eq!(again.status, 202, "{}", again.text);
    assert_eq!(
        metric(&front, "verdict_amqp_submissions_published_total"),
        1,
        "the abandoned accept was never published"
    );
    drop(front);
}
