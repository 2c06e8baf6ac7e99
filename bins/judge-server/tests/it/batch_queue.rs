//! Batches over RabbitMQ (a real node the tests start): a front end cuts a batch into units
//! that every worker takes from; results reach every front end; a worker or front end killed
//! with SIGKILL mid-batch loses nothing; a cancel ends the batch everywhere and reaches the
//! workers; a batch accepted before the broker restarts is judged after it.

use crate::amqp::{Cluster, metric, node, poll_metric};
use crate::common::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use verdict_queue::testing::RabbitNode;

/// A function suite of one case, and `candidates`: `(id, body of add)`.
fn batch(candidates: &[(String, String)]) -> String {
    let candidates: Vec<Value> = candidates
        .iter()
        .map(|(id, body)| {
            json!({"id": id, "code": format!("import time\ndef add(a, b):\n{body}\n")})
        })
        .collect();
    json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "add", "timeout_ms": 30000,
                    "test_cases": [{"name": "one", "input": [1, 2], "expected": 3}]},
        "candidates": candidates,
        "options": {"pass_at_k": [1, 2]}
    })
    .to_string()
}

/// A right candidate taking `secs` (distinct per `n`: no two are one unit).
fn slow_right(n: usize, secs: f64) -> String {
    format!("    time.sleep({secs})  # {n}\n    return a + b")
}

/// `count` right candidates `{prefix}-{n}`, each taking `secs`.
fn slow_rights(prefix: &str, count: usize, secs: f64) -> Vec<(String, String)> {
    (0..count)
        .map(|n| (format!("{prefix}-{n}"), slow_right(n, secs)))
        .collect()
}

fn submit(base: &str, key: &str, body: &str) -> Reply {
    reply(
        client()
            .post(format!("{base}/v1/batches"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .send(body),
    )
}

/// Polls `GET url` until it answers 200 and `done` holds for its JSON (at most 180 s).
fn poll_json(url: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    poll_get(url, what, Duration::from_secs(180), |r| {
        r.status == 200 && done(&r.json())
    })
    .json()
}

fn results_by_id(status: &Value) -> Vec<(String, Value)> {
    let mut results: Vec<(String, Value)> = status["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["id"].as_str().expect("id").to_owned(), r.clone()))
        .collect();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    results
}

fn is_state(state: &'static str) -> impl Fn(&Value) -> bool {
    move |v: &Value| v["state"] == state
}

#[test]
fn a_batch_spreads_over_two_workers_and_loses_nothing_when_a_worker_and_a_front_end_die() {
    let Some(cluster) = Cluster::judging("batch-spread") else {
        return;
    };
    let [a, b] = cluster.two_front_ends();
    let first = cluster.start("worker-1", "worker");
    let second = cluster.start("worker-2", "worker");

    // Ten distinct right candidates, two copies of the first (one unit for the three), two
    // wrong ones.
    let mut candidates: Vec<(String, String)> = (0..10)
        .map(|n| (format!("right-{n:02}"), slow_right(n, 0.4)))
        .collect();
    candidates.push(("copy-1".into(), slow_right(0, 0.4)));
    candidates.push(("copy-2".into(), slow_right(0, 0.4)));
    candidates.push(("wrong-1".into(), "    return a - b".into()));
    candidates.push(("wrong-2".into(), "    return a * b".into()));
    let body = batch(&candidates);
    let accepted = submit(&a.url, "spread", &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    assert_eq!(accepted.header("location"), Some("/v1/batches/spread"));
    // An announcement and twelve units, confirmed before the 202.
    assert_eq!(
        metric(&a, "verdict_amqp_batch_messages_published_total"),
        13
    );
    // The same key and body at the other front end: the same batch (it knows it from the
    // announcement), not a second one.
    poll_json(
        &format!("{}/v1/batches/spread", b.url),
        "B to know the batch",
        |_| true,
    );
    let again = submit(&b.url, "spread", &body);
    assert_eq!(again.status, 202, "{}", again.text);
    assert_eq!(metric(&b, "verdict_amqp_batch_messages_published_total"), 0);

    // Both workers take units; the first is killed (SIGKILL) holding one, and so is the front
    // end that accepted the batch.
    poll_metric(&first, "verdict_amqp_batch_units_judged_total", |n| n >= 1);
    poll_metric(&second, "verdict_amqp_batch_units_judged_total", |n| n >= 1);
    let mut first = first;
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let mut a = a;
    a.child.kill().unwrap();
    a.child.wait().unwrap();

    let done = poll_json(
        &format!("{}/v1/batches/spread", b.url),
        "the batch to finish at B",
        is_state("finished"),
    );
    let results = results_by_id(&done);
    assert_eq!(results.len(), candidates.len(), "{done}");
    for (id, result) in &results {
        assert!(result.get("infra_error").is_none(), "{id}: {result}");
        assert_eq!(result["passed"], !id.starts_with("wrong"), "{id}: {result}");
    }
    for copy in ["copy-1", "copy-2"] {
        let (_, result) = results.iter().find(|(id, _)| id == copy).unwrap();
        assert_eq!(result["same_as"], "right-00", "{result}");
    }
    // The request's order once done.
    let order: Vec<&str> = done["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let asked: Vec<&str> = candidates.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, asked);
    let summary = &done["summary"];
    assert_eq!(summary["candidates"], 14);
    assert_eq!(summary["judged"], 12);
    assert_eq!(summary["passed"], 12);
    let pass_at_1 = summary["pass_at_k"]["1"].as_f64().expect("pass@1");
    assert!((pass_at_1 - 12.0 / 14.0).abs() < 1e-9, "{summary}");
    // The unit the killed worker held went to the other one.
    assert!(metric(&second, "verdict_amqp_batch_units_redelivered_total") >= 1);

    // B's stream: every candidate, then the summary.
    let events = get(&format!("{}/v1/batches/spread/events", b.url), None);
    assert_eq!(events.status, 200);
    let lines: Vec<Value> = events
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), candidates.len() + 1, "{}", events.text);
    assert!(
        lines[..candidates.len()]
            .iter()
            .all(|l| l["event"] == "candidate")
    );
    assert_eq!(lines[candidates.len()]["event"], "summary");

    // The front end that accepted it comes back on its data_dir: the results published while
    // it was down waited in its queue.
    let a = cluster.start("front-a", "frontend");
    let at_a = poll_json(
        &format!("{}/v1/batches/spread", a.url),
        "the batch to finish at A",
        is_state("finished"),
    );
    assert_eq!(results_by_id(&at_a), results);
    assert_eq!(at_a["summary"]["passed"], 12);
}

#[test]
fn a_cancel_at_any_front_end_ends_the_batch_everywhere_and_reaches_the_workers() {
    let Some(cluster) = Cluster::judging("batch-cancel") else {
        return;
    };
    let [a, b] = cluster.two_front_ends();
    let worker = cluster.start("worker", "worker");
    // Slow enough that the cancel below comes while the first is judged, however loaded the
    // host.
    let candidates = slow_rights("slow", 6, 20.0);
    let accepted = submit(&a.url, "doomed", &batch(&candidates));
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    // The worker holds its first unit (prefetch 1: the other five wait in the queue).
    poll_metric(&worker, "verdict_amqp_batch_units_delivered_total", |n| {
        n >= 1
    });
    poll_json(
        &format!("{}/v1/batches/doomed", b.url),
        "B to know the batch",
        |_| true,
    );

    // Cancelled at the front end that did not accept it.
    let cancelled = reply(
        client()
            .delete(format!("{}/v1/batches/doomed", b.url))
            .call(),
    );
    assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    assert_eq!(cancelled.json()["state"], "cancelled");
    let at_a = poll_json(
        &format!("{}/v1/batches/doomed", a.url),
        "A to hear the cancel",
        is_state("cancelled"),
    );
    assert_eq!(at_a["summary"]["cancelled"], 6, "{at_a}");
    // The stream of a cancelled batch ends with its summary.
    let events = get(&format!("{}/v1/batches/doomed/events", a.url), None);
    assert!(
        events
            .text
            .lines()
            .last()
            .is_some_and(|l| l.contains("\"summary\""))
    );

    // The worker stops the unit it was judging and acks the others unjudged: none is judged.
    poll_metric(&worker, "verdict_amqp_batch_units_skipped_total", |n| {
        n == 6
    });
    assert_eq!(metric(&worker, "verdict_amqp_batch_units_judged_total"), 0);
    assert_eq!(
        metric(&worker, "verdict_amqp_batch_units_delivered_total"),
        6
    );
    // A cancelled batch stays cancelled.
    let again = reply(
        client()
            .delete(format!("{}/v1/batches/doomed", a.url))
            .call(),
    );
    assert_eq!(again.json()["state"], "cancelled");
}

#[test]
fn a_batch_accepted_before_the_broker_restarts_is_judged_after_it() {
    if node().is_none() || judge().is_none() {
        return;
    }
    let mut own = RabbitNode::start().expect("a broker of this test's own");
    let cluster = Cluster::on(&own, "batch-restart");
    let front = cluster.start("front", "frontend");
    let candidates = slow_rights("c", 3, 0.0);
    let accepted = submit(&front.url, "kept", &batch(&candidates));
    assert_eq!(accepted.status, 202, "{}", accepted.text);

    // No worker yet: the units wait in the durable queue through the restart.
    own.restart().expect("the broker comes back");
    poll_json(
        &format!("{}/v1/health", front.url),
        "the front end to reconnect",
        |h| h["broker"]["connected"] == true,
    );
    let _worker = cluster.start("worker", "worker");
    let done = poll_json(
        &format!("{}/v1/batches/kept", front.url),
        "the batch to finish",
        is_state("finished"),
    );
    assert_eq!(done["summary"]["passed"], 3, "{done}");

    // While the broker is away, nothing is accepted (503 + Retry-After), and nothing is kept.
    own.stop();
    poll_json(
        &format!("{}/v1/health", front.url),
        "the front end to see the broker gone",
        |h| h["broker"]["connected"] == false,
    );
    let refused = submit(&front.url, "refused", &batch(&candidates));
    assert_eq!(refused.status, 503, "{}", refused.text);
    assert!(refused.header("retry-after").is_some());
    assert_eq!(
        get(&format!("{}/v1/batches/refused", front.url), None).status,
        404
    );
}

#[test]
fn an_oracle_suite_whose_client_went_away_is_cancelled_on_the_workers() {
    let Some(cluster) = Cluster::judging("suite-gone") else {
        return;
    };
    let front = cluster.start("front", "frontend");
    let worker = cluster.start("worker", "worker");
    let endless = endless_suite();
    let impatient = client_waiting(Duration::from_secs(3));
    let sent = impatient
        .post(format!("{}/v1/oracle", front.url))
        .header("Content-Type", "application/json")
        .send(&endless);
    assert!(sent.is_err(), "the client should have given up");
    let left = Instant::now();
    // The worker took the suite's unit; the front end cancels it when its client is gone, and
    // the worker kills its run and acks it unjudged (before the fix: judged 90 s later).
    poll_metric(&worker, "verdict_amqp_batch_units_skipped_total", |n| {
        n == 1
    });
    assert!(
        left.elapsed() < Duration::from_secs(45),
        "the suite ran on {:?} after its client left",
        left.elapsed()
    );
    assert_eq!(metric(&worker, "verdict_amqp_batch_units_judged_total"), 0);
}

#[test]
fn a_dataset_batch_is_checked_at_the_front_end_and_judged_on_the_workers() {
    let Some(cluster) = Cluster::judging("dataset-batch") else {
        return;
    };
    let front = cluster.start("front", "frontend");
    let _worker = cluster.start("worker", "worker");
    let record = json!({
        "task_id": "HumanEval/add", "entry_point": "add",
        "prompt": "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"
    });
    let body = json!({
        "problem": {"kind": "dataset", "format": "humaneval", "record": record},
        "candidates": [{"id": "right", "code": "    return a + b\n"},
                       {"id": "exits", "code": "    import os; os._exit(0)\n"}]
    });
    let accepted = submit(&front.url, "ds", &body.to_string());
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let done = poll_json(
        &format!("{}/v1/batches/ds", front.url),
        "the dataset batch to finish",
        is_state("finished"),
    );
    let passed: Vec<(&str, bool)> = done["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| (r["id"].as_str().unwrap_or(""), r["passed"] == true))
        .collect();
    assert_eq!(passed, [("right", true), ("exits", false)], "{done}");
    // The front end reads the record as the workers will: a record its reader refuses is a
    // 422 naming the field, before anything is published.
    let bad = json!({"problem": {"kind": "dataset", "format": "humaneval", "record": {"task_id": "x"}},
                     "candidates": [{"id": "a", "code": "x"}]});
    let refused = submit(&front.url, "bad", &bad.to_string());
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.text.contains("problem.record."), "{}", refused.text);
}
