//! Batches over HTTP: accepted durably under an idempotency key, judged, streamed as NDJSON,
//! read back as a snapshot, served again after a restart.

use crate::common::{TestServer, client, config, get, reply};
use serde_json::{Value, json};

fn batch(answer: &str) -> String {
    json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "add",
                    "test_cases": [{"name": "a", "input": [1, 2], "expected": 3},
                                   {"name": "b", "input": [2, 2], "expected": 4}]},
        "candidates": [{"id": "right", "code": "def add(a, b):\n    return a + b\n"},
                       {"id": "wrong", "code": format!("def add(a, b):\n    return {answer}\n")}],
        "options": {"pass_at_k": [1]}
    })
    .to_string()
}

fn submit(server: &TestServer, key: &str, query: &str, body: &str) -> crate::common::Reply {
    reply(
        client()
            .post(server.url(&format!("/v1/batches{query}")))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .send(body),
    )
}

#[test]
fn a_batch_is_judged_streamed_and_idempotent_under_its_key() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let first = submit(&server, "k-1", "?wait=60000", &batch("a * b"));
    assert_eq!(first.status, 200, "{}", first.text);
    let status = first.json();
    assert_eq!(status["id"], "k-1");
    assert_eq!(status["state"], "finished");
    assert_eq!(status["summary"]["pass_at_k"]["1"], 0.5);
    let ids: Vec<&str> = status["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(ids, ["right", "wrong"]);

    // The same key and body: the same batch, not judged again.
    let again = submit(&server, "k-1", "", &batch("a * b"));
    assert_eq!(again.status, 202, "{}", again.text);
    assert_eq!(again.json()["state"], "finished");
    // The same key, another body: a conflict.
    let other = submit(&server, "k-1", "", &batch("a - b"));
    assert_eq!(other.status, 409, "{}", other.text);

    let events = get(&server.url("/v1/batches/k-1/events"), None);
    assert_eq!(events.status, 200);
    assert_eq!(events.header("content-type"), Some("application/x-ndjson"));
    let lines: Vec<Value> = events
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 3, "{}", events.text);
    assert_eq!(lines[2]["event"], "summary");
    assert!(lines[..2].iter().all(|l| l["event"] == "candidate"));

    let snapshot = get(&server.url("/v1/batches/k-1"), None);
    assert_eq!(snapshot.json(), status);
    assert_eq!(get(&server.url("/v1/batches/nope"), None).status, 404);
}

#[test]
fn an_invalid_batch_is_refused_naming_the_field() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "add", "test_cases": []},
        "candidates": [{"id": "x", "code": "a"}, {"id": "x", "code": "b"}]
    })
    .to_string();
    let refused = submit(&server, "k-2", "", &body);
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("candidates[1].id"),
        "{}",
        refused.text
    );
}

#[test]
fn an_accepted_batch_survives_a_restart() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut cfg = config();
    cfg.data_dir = data.path().to_owned();
    let Some(server) = TestServer::start_keeping_data(cfg.clone()) else {
        return;
    };
    let accepted = submit(&server, "k-3", "?wait=60000", &batch("0"));
    assert_eq!(accepted.status, 200, "{}", accepted.text);
    assert!(server.stop(std::time::Duration::from_secs(60)));
    let Some(server) = TestServer::start_keeping_data(cfg) else {
        return;
    };
    let snapshot = get(&server.url("/v1/batches/k-3"), None);
    assert_eq!(snapshot.status, 200, "{}", snapshot.text);
    assert_eq!(snapshot.json()["state"], "finished");
    assert_eq!(snapshot.json()["summary"]["passed"], 1);
    let cancelled = reply(client().delete(server.url("/v1/batches/k-3")).call());
    assert_eq!(cancelled.status, 200);
    assert_eq!(
        cancelled.json()["state"],
        "finished",
        "a finished batch stays finished"
    );
}
