//! Event streams, concurrent submissions and the graceful shutdown.

use crate::common::*;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// Checks a stream: one `task` per task, a parent before its children, then `report` last,
/// equal to the report read with GET.
fn check_stream(events: &[SseEvent], tasks: usize) -> serde_json::Value {
    let (last, task_events) = events.split_last().expect("events");
    assert_eq!(last.event, "report", "{events:?}");
    assert_eq!(task_events.len(), tasks, "{events:?}");
    let indexes: Vec<u64> = task_events
        .iter()
        .map(|e| {
            assert_eq!(e.event, "task");
            e.data["index"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(
        indexes.iter().collect::<BTreeSet<_>>().len(),
        tasks,
        "each task exactly once: {indexes:?}"
    );
    assert_eq!(indexes[0], 0, "the compile task comes first: {indexes:?}");
    for e in task_events {
        let i = e.data["index"].as_u64().unwrap() as usize;
        assert_eq!(
            e.data["result"], last.data["results"][i],
            "the task event equals the report's result"
        );
    }
    last.data.clone()
}

/// A server (the tests' config) with A+B `sub_id`, sleeping a second, submitted to it (202).
fn judging_a_sleepy_a_plus_b(sub_id: &str) -> Option<TestServer> {
    let server = TestServer::start(config())?;
    let body = a_plus_b(sub_id, "oj", &sleepy_a_plus_b(1)).to_string();
    let accepted = post(&server.url("/v1/submissions"), None, &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    Some(server)
}

#[test]
fn events_arrive_in_order_and_end_with_the_report() {
    let Some(server) = judging_a_sleepy_a_plus_b("sse-1") else {
        return;
    };
    // Subscribed while it runs ...
    let (status, live) = read_events(&server.url("/v1/submissions/sse-1/events"), None);
    assert_eq!(status, 200);
    let report = check_stream(&live, 3);
    assert_eq!(statuses(&report), ["Accepted", "Accepted", "Accepted"]);
    for event in &live[..3] {
        assert_matches_openapi(&server, "JudgeTaskResult", &event.data["result"]);
    }
    let read = get(&server.url("/v1/submissions/sse-1"), None);
    assert_eq!(read.header("verdict-complete"), Some("true"));
    assert_eq!(read.json(), report);
    // ... and after the end: the same events again.
    let (_, replay) = read_events(&server.url("/v1/submissions/sse-1/events"), None);
    let indexes = |events: &[SseEvent]| -> Vec<_> {
        events.iter().map(|e| e.data["index"].clone()).collect()
    };
    assert_eq!(indexes(&replay), indexes(&live));
    check_stream(&replay, 3);

    let (status, _) = read_events(&server.url("/v1/submissions/none/events"), None);
    assert_eq!(status, 404);
}

#[test]
fn concurrent_submissions_each_get_their_own_report() {
    let mut config = config();
    config.workers = 3;
    let Some(server) = TestServer::start(config) else {
        return;
    };
    let url = server.url("/v1/judge");
    let events_base = server.url("/v1/submissions");
    let clients: Vec<_> = (0..6)
        .map(|i| {
            let url = url.clone();
            let submit = events_base.clone();
            std::thread::spawn(move || {
                let sub_id = format!("conc-{i}");
                // Half wait on /v1/judge, half queue and stream.
                if i % 2 == 0 {
                    let reply = post(&url, None, &a_plus_b(&sub_id, "oj", A_PLUS_B).to_string());
                    assert_eq!(reply.status, 200, "{}", reply.text);
                    reply.json()
                } else {
                    let body = a_plus_b(&sub_id, "oj", A_PLUS_B).to_string();
                    assert_eq!(post(&submit, None, &body).status, 202);
                    let (_, events) = read_events(&format!("{submit}/{sub_id}/events"), None);
                    check_stream(&events, 3)
                }
            })
        })
        .collect();
    for (i, client) in clients.into_iter().enumerate() {
        let report = client.join().expect("client");
        assert_eq!(report["sub_id"], format!("conc-{i}"));
        assert_eq!(statuses(&report), ["Accepted", "Accepted", "Accepted"]);
    }
    let metrics = get(&server.url("/metrics"), None).text;
    assert!(
        metrics.contains("verdict_submissions_finished_total 6"),
        "{metrics}"
    );
    assert!(metrics.contains("verdict_running_submissions 0"));
}

#[test]
fn shutdown_finishes_accepted_work_and_refuses_new_work() {
    let Some(server) = judging_a_sleepy_a_plus_b("down-1") else {
        return;
    };
    let events_url = server.url("/v1/submissions/down-1/events");
    let stream = std::thread::spawn(move || read_events(&events_url, None));
    std::thread::sleep(Duration::from_millis(100));
    server.begin_shutdown();
    std::thread::sleep(Duration::from_millis(100));
    // New work is refused: the listener is closed (or a kept connection gets 503).
    let refused = client()
        .post(server.url("/v1/submissions"))
        .send(a_plus_b("down-2", "oj", A_PLUS_B).to_string());
    if let Ok(response) = refused {
        assert_eq!(response.status().as_u16(), 503);
    }
    // The accepted submission still finishes and its stream ends with the report.
    let (status, events) = stream.join().unwrap();
    assert_eq!(status, 200);
    let report = check_stream(&events, 3);
    assert_eq!(statuses(&report), ["Accepted", "Accepted", "Accepted"]);
    let start = Instant::now();
    assert!(server.stop(Duration::from_secs(20)), "the server exits");
    assert!(start.elapsed() < Duration::from_secs(20));
}
