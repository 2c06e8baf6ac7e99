//! The submission store and the batches survive `kill -9`: a real `judge-server` process is
//! killed with submissions finished, running and queued (or a batch half judged), and after a
//! restart every one of them reaches its correct final report, once.

use crate::common::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

const TOTAL: usize = 40;

fn write_config(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("server.toml");
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 2\nqueue_capacity = 64\ndata_dir = \"data\"\n\
             [judge]\nwork_dir = {:?}\ncache_dir = {:?}\nparallelism = 2\n\
             [[tokens]]\ntoken = \"t0k\"\n",
            dir.join("work"),
            dir.join("cache")
        ),
    )
    .unwrap();
    path
}

/// Sub ids, categories and sources: every fourth sleeps (so some are running when the server is
/// killed), every fifth is wrong (so the final reports differ and must match their request).
fn submissions() -> Vec<(String, String, String)> {
    (0..TOTAL)
        .map(|i| {
            let source = if i % 5 == 4 {
                "#include <stdio.h>\nint main(){printf(\"0\\n\");return 0;}\n".to_owned()
            } else if i % 4 == 1 {
                sleepy_a_plus_b(1)
            } else {
                A_PLUS_B.to_owned()
            };
            let category = if i % 2 == 0 { "even" } else { "odd" };
            (format!("kill9-{i}"), category.to_owned(), source)
        })
        .collect()
}

fn expected(i: usize) -> [&'static str; 3] {
    if i % 5 == 4 {
        ["Accepted", "Wrong Answer", "Wrong Answer"]
    } else {
        ["Accepted", "Accepted", "Accepted"]
    }
}

fn status_of(server: &ServerProcess, sub_id: &str, category: &str) -> Reply {
    get(
        &server.url(&format!("/v1/submissions/{sub_id}?category={category}")),
        Some("t0k"),
    )
}

/// The submissions' work dirs (`sub-*`) anywhere under `dir`.
fn sub_dirs(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("sub-") {
            found.push(name);
        } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(sub_dirs(&entry.path()));
        }
    }
    found
}

#[test]
fn kill_9_loses_no_accepted_submission() {
    if judge().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let subs = submissions();

    let server = ServerProcess::start(&config);
    for (sub_id, category, source) in &subs {
        let reply = post(
            &server.url("/v1/submissions"),
            Some("t0k"),
            &a_plus_b(sub_id, category, source).to_string(),
        );
        assert_eq!(reply.status, 202, "{}", reply.text);
    }
    // Kill it once a few are finished: the others are running or queued.
    let phases = poll_until(Duration::from_secs(120), Duration::from_millis(100), || {
        let mut phases: BTreeMap<String, usize> = BTreeMap::new();
        for (sub_id, category, _) in &subs {
            let reply = status_of(&server, sub_id, category);
            assert_eq!(reply.status, 200, "{}", reply.text);
            *phases
                .entry(reply.header("verdict-state").unwrap_or("?").to_owned())
                .or_default() += 1;
        }
        if phases.get("finished").copied().unwrap_or(0) >= 3 {
            Ok(phases)
        } else {
            Err(format!("{phases:?}"))
        }
    });
    server.kill9();
    println!("killed with {phases:?}");
    assert!(
        phases.get("queued").copied().unwrap_or(0) >= 10,
        "{phases:?}"
    );

    // After the restart nothing is "never seen", and everything ends, correctly, once.
    let server = ServerProcess::start(&config);
    let start = Instant::now();
    let mut done = vec![false; TOTAL];
    while done.iter().any(|d| !d) {
        for (i, (sub_id, category, _)) in subs.iter().enumerate() {
            if done[i] {
                continue;
            }
            let reply = status_of(&server, sub_id, category);
            assert_eq!(reply.status, 200, "{sub_id}: {}", reply.text);
            if reply.header("verdict-state") == Some("finished") {
                let report = reply.json();
                assert_eq!(report["sub_id"], sub_id.as_str());
                assert_eq!(report["category"], category.as_str());
                assert_eq!(statuses(&report), expected(i), "{sub_id}");
                assert_eq!(reply.header("verdict-complete"), Some("true"));
                done[i] = true;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "all finish after the restart: {done:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let metrics = get(&server.url("/metrics"), Some("t0k")).text;
    let finished: usize = metrics
        .lines()
        .find_map(|l| l.strip_prefix("verdict_submissions_finished_total "))
        .and_then(|n| n.trim().parse().ok())
        .expect("the finished counter");
    assert!(
        finished <= TOTAL - phases["finished"],
        "only the unfinished are judged again: {finished} judged after the restart"
    );
    // The interrupted ones' work dirs went at start; the others' when they finished.
    let start = Instant::now();
    while !sub_dirs(&dir.path().join("work")).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "work dirs left behind: {:?}",
            sub_dirs(&dir.path().join("work"))
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(server);
}

/// A batch of six Python candidates of a two-test function suite, each test sleeping 1 s: four
/// right, two right on one test of two. `tag` goes into every program as a comment (another
/// tag: other programs, judged afresh rather than taken from the server's result cache).
fn slow_batch(tag: &str) -> String {
    let candidates: Vec<Value> = (0..6)
        .map(|i| {
            let answer = if i % 3 == 1 { "x + 1" } else { "x * 2" };
            json!({"id": format!("c{i}"), "code": format!(
                "import time\n# {tag} {i}\ndef f(x):\n    time.sleep(1)\n    return {answer}\n")})
        })
        .collect();
    json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "f", "timeout_ms": 10_000,
                    "test_cases": [{"name": "one", "input": [1], "expected": 2},
                                   {"name": "two", "input": [2], "expected": 4}]},
        "candidates": candidates,
        "options": {"pass_at_k": [1, 2]}
    })
    .to_string()
}

/// `value` without its `time_ms` fields, at any depth (the one thing a judging again changes).
fn without_times(value: &Value) -> Value {
    match value {
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| k.as_str() != "time_ms")
            .map(|(k, v)| (k.clone(), without_times(v)))
            .collect(),
        Value::Array(items) => items.iter().map(without_times).collect(),
        other => other.clone(),
    }
}

fn post_batch(server: &ServerProcess, key: &str, body: &str) -> Reply {
    reply(
        client()
            .post(server.url("/v1/batches"))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer t0k")
            .header("Idempotency-Key", key)
            .send(body),
    )
}

/// Polls `GET /v1/batches/{id}` until it is `finished` (at most 180 s); the snapshot.
fn finished_batch(server: &ServerProcess, id: &str) -> Value {
    poll_until(Duration::from_secs(180), Duration::from_millis(100), || {
        let snapshot = get(&server.url(&format!("/v1/batches/{id}")), Some("t0k"));
        assert_eq!(snapshot.status, 200, "{id}: {}", snapshot.text);
        let snapshot = snapshot.json();
        if snapshot["state"] == "finished" {
            Ok(snapshot)
        } else {
            Err(format!("{id} never finished: {snapshot}"))
        }
    })
}

#[test]
fn a_batch_half_judged_when_the_server_is_killed_9_is_judged_after_the_restart_each_candidate_once()
{
    if judge().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path());
    let server = ServerProcess::start(&config);
    let accepted = post_batch(&server, "half", &slow_batch("crash"));
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    // Killed once a result was reported and before the last.
    let before = poll_until(Duration::from_secs(120), Duration::from_millis(50), || {
        let snapshot = get(&server.url("/v1/batches/half"), Some("t0k")).json();
        let results = snapshot["results"].as_array().cloned().unwrap_or_default();
        if results.is_empty() {
            return Err(snapshot.to_string());
        }
        assert_eq!(snapshot["state"], "running", "killed mid-batch: {snapshot}");
        Ok(results)
    });
    server.kill9();
    println!("killed with {} of 6 results", before.len());
    assert!(before.len() < 6, "{before:?}");

    let server = ServerProcess::start(&config);
    // The same batch without a crash (other programs that behave the same), beside it.
    let reference = post_batch(&server, "reference", &slow_batch("reference"));
    assert_eq!(reference.status, 202, "{}", reference.text);
    let after = finished_batch(&server, "half");
    let reference = finished_batch(&server, "reference");
    let ids = |snapshot: &Value| -> Vec<String> {
        snapshot["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["id"].as_str().expect("an id").to_owned())
            .collect()
    };
    assert_eq!(
        ids(&after),
        ["c0", "c1", "c2", "c3", "c4", "c5"],
        "every candidate once, in the request's order"
    );
    // The results reported before the crash hold: the same result for each.
    for result in &before {
        let now = after["results"]
            .as_array()
            .expect("results")
            .iter()
            .find(|r| r["id"] == result["id"])
            .expect("reported again");
        assert_eq!(without_times(now), without_times(result));
    }
    assert_eq!(
        without_times(&after["results"]),
        without_times(&reference["results"])
    );
    let summary = without_times(&after["summary"]);
    assert_eq!(summary, without_times(&reference["summary"]));
    assert_eq!(summary["candidates"], 6, "{summary}");
    assert_eq!(summary["passed"], 4, "{summary}");
    assert_eq!(summary["cancelled"], 0, "{summary}");
    assert_eq!(summary["infra_errors"], 0, "{summary}");
    assert_eq!(summary["statuses"], json!({"passed": 4, "failed": 2}));
    let p1 = summary["pass_at_k"]["1"].as_f64().expect("pass@1");
    let p2 = summary["pass_at_k"]["2"].as_f64().expect("pass@2");
    assert!(
        (p1 - 4.0 / 6.0).abs() < 1e-9 && (p2 - 14.0 / 15.0).abs() < 1e-9,
        "{summary}"
    );
    // Its stream, too: each candidate once, then the summary.
    let events = get(&server.url("/v1/batches/half/events"), Some("t0k"));
    let lines: Vec<Value> = events
        .text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).expect("an NDJSON line"))
        .collect();
    assert_eq!(lines.len(), 7, "{}", events.text);
    assert_eq!(lines[6]["event"], "summary");
    drop(server);
}
