//! Authentication, the body limit, backpressure and conflicts.

use crate::common::*;
use std::io::{Read, Write};
use std::time::Duration;
use verdict_judge_server::TokenConfig;

fn secured() -> verdict_judge_server::ServerConfig {
    let mut config = config();
    config.tokens = vec![
        TokenConfig {
            token: "admin-token".into(),
            ..TokenConfig::default()
        },
        TokenConfig {
            token: "oj-token".into(),
            category: Some("oj".into()),
            ..TokenConfig::default()
        },
    ];
    config
}

#[test]
fn tokens_are_required_and_bound_to_their_category() {
    let Some(server) = TestServer::start(secured()) else {
        return;
    };
    let body = a_plus_b("auth-1", "oj", A_PLUS_B).to_string();

    let reply = post(&server.url("/v1/judge"), None, &body);
    reply.assert_refused(401, "Authorization");
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );

    let reply = post(&server.url("/v1/judge"), Some("wrong"), &body);
    reply.assert_error(401, "unauthorized");
    assert_eq!(get(&server.url("/metrics"), None).status, 401);
    assert_eq!(
        get(&server.url("/v1/submissions/x"), Some("nope")).status,
        401
    );

    // Health and the API description are open.
    assert_eq!(get(&server.url("/v1/health"), None).status, 200);
    assert_eq!(get(&server.url("/v1/openapi.json"), None).status, 200);

    // A category token submits only as its own category.
    let other = a_plus_b("auth-2", "other", A_PLUS_B).to_string();
    let reply = post(&server.url("/v1/submissions"), Some("oj-token"), &other);
    reply.assert_refused(403, "category");

    let reply = post(&server.url("/v1/submissions"), Some("oj-token"), &body);
    assert_eq!(reply.status, 202, "{}", reply.text);
    let reply = post(&server.url("/v1/submissions"), Some("admin-token"), &other);
    assert_eq!(reply.status, 202, "{}", reply.text);

    // ... and sees only its own category's submissions.
    assert_eq!(
        get(&server.url("/v1/submissions/auth-1"), Some("oj-token")).status,
        200
    );
    assert_eq!(
        get(&server.url("/v1/submissions/auth-2"), Some("oj-token")).status,
        404
    );
    assert_eq!(
        get(&server.url("/v1/submissions/auth-2"), Some("admin-token")).status,
        200
    );
    let (status, _) = read_events(
        &server.url("/v1/submissions/auth-2/events"),
        Some("oj-token"),
    );
    assert_eq!(status, 404);
    let (status, events) = read_events(
        &server.url("/v1/submissions/auth-1/events"),
        Some("oj-token"),
    );
    assert_eq!(status, 200);
    assert_eq!(events.last().unwrap().event, "report");
}

#[test]
fn an_oversized_body_is_refused_with_413() {
    let Some(server) = TestServer::start(config()) else {
        return;
    };
    // 64 KB limit; a 200 KB source. Written by hand so that an early answer is still read.
    let mut submission = a_plus_b("big-1", "oj", A_PLUS_B);
    submission["submission"]["source_files"][0]["text"] =
        serde_json::Value::String(format!("/*{}*/\n{A_PLUS_B}", "x".repeat(200 * 1024)));
    let body = submission.to_string();
    let send = |path: &str, extra: &str, chunked: bool| -> String {
        let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
        let length = if chunked {
            "Transfer-Encoding: chunked".to_owned()
        } else {
            format!("Content-Length: {}", body.len())
        };
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n{length}\r\n{extra}Connection: close\r\n\r\n",
            server.addr
        );
        stream.write_all(head.as_bytes()).unwrap();
        // The server may answer (and close) before the body is all sent: errors are fine here.
        if chunked {
            for chunk in body.as_bytes().chunks(16 * 1024) {
                let _ = stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes());
                let _ = stream.write_all(chunk);
                let _ = stream.write_all(b"\r\n");
            }
            let _ = stream.write_all(b"0\r\n\r\n");
        } else {
            let _ = stream.write_all(body.as_bytes());
        }
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        String::from_utf8_lossy(&response).into_owned()
    };
    for (path, chunked) in [
        ("/v1/judge", false),
        ("/v1/judge", true),
        ("/v1/submissions", true),
        ("/v1/oracle", false),
        ("/v1/lab/runs", true),
    ] {
        let response = send(path, "", chunked);
        assert!(response.starts_with("HTTP/1.1 413"), "{path}: {response}");
        assert!(response.contains("\"payload_too_large\""), "{response}");
        assert!(response.contains("max_body_kb"), "{response}");
    }
}

#[test]
fn bodies_are_not_read_before_the_token_is_checked() {
    let mut config = secured();
    config.max_body_kb = 1;
    let Some(server) = TestServer::start(config) else {
        return;
    };
    // Without a token an oversized body is refused for the token, not for its size.
    let big = "x".repeat(4096);
    let reply = post(&server.url("/v1/judge"), None, &big);
    assert_eq!(reply.status, 401, "{}", reply.text);
    let reply = post(&server.url("/v1/judge"), Some("admin-token"), &big);
    reply.assert_refused(413, "body");
}

#[test]
fn a_full_queue_answers_429_and_duplicates_409() {
    let mut config = config();
    config.workers = 1;
    config.queue_capacity = 1;
    let Some(server) = TestServer::start(config) else {
        return;
    };
    let slow = sleepy_a_plus_b(1);
    let first = post(
        &server.url("/v1/submissions"),
        None,
        &a_plus_b("q-1", "oj", &slow).to_string(),
    );
    assert_eq!(first.status, 202);
    // q-1 holds the only worker (or waits for it); q-2 fills the queue once q-1 started.
    poll_until(Duration::from_secs(10), Duration::from_millis(10), || {
        let health = get(&server.url("/v1/health"), None).json();
        if health["running_submissions"] == 1 {
            Ok(())
        } else {
            Err(format!("q-1 starts: {health}"))
        }
    });
    let second = post(
        &server.url("/v1/submissions"),
        None,
        &a_plus_b("q-2", "oj", &slow).to_string(),
    );
    assert_eq!(second.status, 202, "{}", second.text);
    let third = post(
        &server.url("/v1/submissions"),
        None,
        &a_plus_b("q-3", "oj", A_PLUS_B).to_string(),
    );
    third.assert_error(429, "busy");
    let retry: u64 = third.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    assert_matches_openapi(&server, "Error", &third.json());

    // The same sub_id while it is in flight: 409, even with the queue full.
    let dup = post(
        &server.url("/v1/submissions"),
        None,
        &a_plus_b("q-2", "oj", A_PLUS_B).to_string(),
    );
    dup.assert_error(409, "conflict");

    let metrics = get(&server.url("/metrics"), None).text;
    assert!(metrics.contains("verdict_submissions_rejected_total{reason=\"queue_full\"} 1"));
    assert!(metrics.contains("verdict_submissions_rejected_total{reason=\"conflict\"} 1"));

    // A refused submission leaves nothing behind.
    assert_eq!(get(&server.url("/v1/submissions/q-3"), None).status, 404);

    // A finished sub_id may be judged again (a rejudge).
    let (_, events) = read_events(&server.url("/v1/submissions/q-2/events"), None);
    assert_eq!(events.last().unwrap().event, "report");
    let again = post(
        &server.url("/v1/judge"),
        None,
        &a_plus_b("q-2", "oj", A_PLUS_B).to_string(),
    );
    assert_eq!(again.status, 200, "{}", again.text);
}

#[test]
fn a_category_quota_limits_only_that_category() {
    let mut config = config();
    config.workers = 3;
    config.quotas.insert("oj".into(), 1);
    let Some(server) = TestServer::start(config) else {
        return;
    };
    let slow = sleepy_a_plus_b(1);
    for (sub_id, category) in [("quota-1", "oj"), ("quota-2", "oj"), ("quota-3", "cf")] {
        let body = a_plus_b(sub_id, category, &slow).to_string();
        assert_eq!(
            post(&server.url("/v1/submissions"), None, &body).status,
            202
        );
    }
    let state = |sub_id: &str| {
        let reply = get(&server.url(&format!("/v1/submissions/{sub_id}")), None);
        let started = statuses(&reply.json()).iter().any(|s| s != "Pending");
        let finished = reply.header("verdict-complete") == Some("true");
        (started && !finished, finished)
    };
    let start = std::time::Instant::now();
    let mut max_running = 0;
    loop {
        // quota-1 busy before and after quota-2 was seen busy: both ran at once.
        let (busy1, _) = state("quota-1");
        let (busy2, done2) = state("quota-2");
        let (still_busy1, done1) = state("quota-1");
        let (_, done3) = state("quota-3");
        assert!(
            !(busy1 && busy2 && still_busy1),
            "two oj submissions ran at once"
        );
        let running = get(&server.url("/v1/health"), None).json()["running_submissions"]
            .as_u64()
            .unwrap();
        max_running = max_running.max(running);
        if done1 && done2 && done3 {
            break;
        }
        assert!(start.elapsed().as_secs() < 40, "all finish");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(max_running, 2, "the cf submission ran beside an oj one");
}

#[test]
fn a_slow_judge_times_out_with_504_and_goes_on() {
    let mut config = config();
    config.request_timeout_ms = 500;
    let Some(server) = TestServer::start(config) else {
        return;
    };
    let body = a_plus_b("slow-1", "oj", &sleepy_a_plus_b(2)).to_string();
    let reply = post(&server.url("/v1/judge"), None, &body);
    reply.assert_error(504, "timeout");
    let message = reply.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("GET /v1/submissions/slow-1"), "{message}");
    // The event stream is not cut by the request timeout; the submission finishes.
    let (status, events) = read_events(&server.url("/v1/submissions/slow-1/events"), None);
    assert_eq!(status, 200);
    let last = events.last().unwrap();
    assert_eq!(last.event, "report");
    assert_eq!(statuses(&last.data), ["Accepted", "Accepted", "Accepted"]);
}
