//! The `http` runner against a loopback agent: the task posted, the output read, and never a
//! redirect followed to another host.

use crate::common::{error_message, run, score, seed_tasks};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use verdict_contracts::{RunStatus, ScoreValue};
use verdict_lab::{HttpRunner, Lab, Registry};
use verdict_testkit::loopback::{Answer, LoopbackServer};

/// A lab whose `intent` tasks go to the agent at `url` through the `http` runner.
fn intent_lab(url: &str) -> Lab {
    let mut registry = Registry::new();
    registry.register_runner_for(
        "intent",
        Arc::new(HttpRunner::new("intent", url).unwrap()),
        Value::Null,
    );
    Lab::new(registry)
}

/// Serves `responses` (status, body) to one request each on 127.0.0.1; returns the URL and the
/// request bodies received.
fn serve(responses: Vec<(u16, &'static str)>) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        for (status, body) in responses {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream);
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" || line.is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut buf = vec![0; length];
            reader.read_exact(&mut buf).unwrap();
            bodies.push(String::from_utf8(buf).unwrap());
            let mut stream = reader.into_inner();
            write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        }
        bodies
    });
    (url, handle)
}

#[test]
fn http_runner_posts_the_task_and_reads_the_output() {
    let (url, server) = serve(vec![
        (200, r#"{"intent":"book_flight","confidence":0.99}"#),
        (500, r#"{"error":"model down"}"#),
        (200, "not json"),
    ]);
    let lab = intent_lab(&url);
    let tasks = seed_tasks();
    let out = run(&lab, &tasks[0]);
    assert_eq!(out.run.status, RunStatus::Completed, "{:#?}", out.run);
    assert_eq!(out.run.output.as_ref().unwrap()["confidence"], 0.99);
    assert_eq!(out.run.provenance.runner_id, "http");
    assert_eq!(out.run.provenance.config["url"], url.as_str());
    assert_eq!(
        score(&out.scores, "subset_match", "final").value,
        ScoreValue::Bool(true)
    );
    let out = run(&lab, &tasks[0]);
    assert_eq!(out.run.status, RunStatus::Failed);
    assert_eq!(
        error_message(&out),
        r#"agent answered HTTP 500: "{\"error\":\"model down\"}""#
    );
    assert_eq!(
        out.run.error.as_ref().unwrap().step.as_deref(),
        Some("read_response")
    );
    let out = run(&lab, &tasks[0]);
    assert!(error_message(&out).starts_with("agent response is not JSON"));
    let bodies = server.join().unwrap();
    let sent: Value = serde_json::from_str(&bodies[0]).unwrap();
    assert_eq!(sent["id"], "task-001");
    assert_eq!(sent["input"], "我想订一张明天去北京的机票");
    assert!(sent.get("expected").is_none(), "{sent}");
    // Nobody listens here any more.
    let out = run(&lab, &tasks[0]);
    assert!(
        error_message(&out).starts_with("POST http://127.0.0.1"),
        "{:?}",
        out.run.error
    );
}

#[test]
fn http_runner_never_follows_its_agent_to_another_host() {
    const SECRET: &str = r#"{"secret":"INTERNAL-SECRET-LAB"}"#;
    // An internal service holding a secret, and an agent that redirects there.
    let secret = LoopbackServer::start("127.0.0.1", Answer::Body(SECRET.into()));
    let redirect = format!("http://127.0.0.1:{}/", secret.addr.port());
    let agent = LoopbackServer::start("127.0.0.2", Answer::Redirect(redirect));
    let url = format!("http://{}/agent", agent.addr);
    let lab = intent_lab(&url);
    let out = run(&lab, &seed_tasks()[0]);
    assert_eq!(out.run.status, RunStatus::Failed);
    let record = serde_json::to_string(&out.run).unwrap();
    assert!(!record.contains("INTERNAL-SECRET"), "{record}");
    let message = &error_message(&out);
    assert!(
        message.contains("refused: host 127.0.0.1 is not in allow_hosts"),
        "{message}"
    );
    assert_eq!(secret.hits(), 0, "the internal service was reached");
}
