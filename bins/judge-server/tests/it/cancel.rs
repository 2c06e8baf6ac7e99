//! Work that ends before it is done: `DELETE /v1/submissions/{sub_id}` stops
//! a submission, kills its running boxes, frees its worker and is kept over a restart; an
//! oracle suite or a lab run whose request timed out gives its place back. A real server
//! judging real programs.

use crate::common::{
    A_PLUS_B, Reply, TestServer, a_plus_b, cancelled_at_once, cancelled_results, client_waiting,
    config, delete, endless_suite, gauge, get, judged_at_once, long_spin, poll_until, post,
    quick_suite, read_events, statuses, wait_compiled,
};
use serde_json::json;
use std::time::{Duration, Instant};
use verdict_judge_server::{ServerConfig, TokenConfig};

/// A server of one worker with `config`'s other settings and a judge of its own (the tests
/// read its run slots).
fn one_worker(config: ServerConfig) -> Option<TestServer> {
    TestServer::start_with_own_judge(ServerConfig {
        workers: 1,
        ..config
    })
}

/// Waits until `done` holds for the metrics of `server`, polled every `every` for at most
/// `limit`.
fn metrics_once(
    server: &TestServer,
    limit: Duration,
    every: Duration,
    done: impl Fn(&str) -> bool,
) {
    poll_until(limit, every, || {
        let metrics = get(&server.url("/metrics"), None).text;
        if done(&metrics) { Ok(()) } else { Err(metrics) }
    });
}

/// Whether `metrics` count no task running (`verdict_running_tasks`).
fn none_running(metrics: &str) -> bool {
    gauge(metrics, "verdict_running_tasks") == Some(0.0)
}

/// A one-worker server with `request_timeout_ms` that judged [`quick_suite`] first, or `None`
/// (with `skipped:` printed) when python3 is not usable by the oracle here.
#[allow(clippy::print_stdout)]
fn oracle_server(request_timeout_ms: u64) -> Option<TestServer> {
    let server = one_worker(ServerConfig {
        request_timeout_ms,
        ..config()
    })?;
    let first = post(&server.url("/v1/oracle"), None, &quick_suite());
    if first.status == 422 && first.text.contains("python3") {
        println!(
            "skipped: python3 is not usable by the oracle here: {}",
            first.text
        );
        return None;
    }
    passed(&first);
    Some(server)
}

/// Checks `reply` is [`quick_suite`]'s report, its one case passed.
fn passed(reply: &Reply) {
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.json()["summary"]["passed"], 1, "{}", reply.text);
}

#[test]
fn a_cancelled_submission_stops_frees_its_worker_and_is_not_judged_again_after_a_restart() {
    let data = tempfile::tempdir().expect("temp dir");
    let config = ServerConfig {
        workers: 1,
        data_dir: data.path().to_owned(),
        tokens: vec![
            TokenConfig {
                token: "oj-t".into(),
                category: Some("oj".into()),
                ..Default::default()
            },
            TokenConfig {
                token: "other-t".into(),
                category: Some("other".into()),
                ..Default::default()
            },
        ],
        ..config()
    };
    let Some(server) = TestServer::start_keeping_data(config.clone()) else {
        return;
    };
    let body = long_spin("spin", 30, 2_000).to_string();
    let accepted = post(&server.url("/v1/submissions"), Some("oj-t"), &body);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    // Wait until it is judging its tests (the compile done).
    wait_compiled(
        &server.url("/v1/submissions/spin"),
        Some("oj-t"),
        Duration::from_secs(60),
    );
    // Another tenant cannot see it, so cannot cancel it.
    assert_eq!(
        delete(&server.url("/v1/submissions/spin"), Some("other-t")).status,
        404
    );
    let cancelled = delete(&server.url("/v1/submissions/spin"), Some("oj-t"));
    assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    assert_eq!(cancelled.header("verdict-complete"), Some("true"));
    assert_eq!(cancelled.header("verdict-state"), Some("finished"));
    let report = cancelled.json();
    let results = report["results"].as_array().expect("results");
    // 30 tests of 2 s on a pool of a few: most never ran.
    assert!(cancelled_results(&report, 0) >= 20, "{report}");
    assert!(
        results[1..]
            .iter()
            .all(|r| r["status"] == "Time Limit Exceeded" || r["status"] == "System Error"),
        "{report}"
    );
    // The stream ends with the same report.
    let (_, events) = read_events(&server.url("/v1/submissions/spin/events"), Some("oj-t"));
    assert_eq!(events.last().map(|e| e.data.clone()), Some(report.clone()));
    // Its worker (the only one) is free: a new submission is judged at once.
    judged_at_once(
        &server.url("/v1/judge"),
        Some("oj-t"),
        Duration::from_secs(20),
    );
    // After a restart it is still the cancelled report, not judged again.
    assert!(server.stop(Duration::from_secs(60)), "the server stops");
    let Some(server) = TestServer::start_keeping_data(config) else {
        return;
    };
    let read = get(&server.url("/v1/submissions/spin"), Some("oj-t"));
    assert_eq!(
        read.header("verdict-state"),
        Some("finished"),
        "{}",
        read.text
    );
    assert_eq!(read.json(), report);
    // A finished one is answered as it is.
    let again = delete(&server.url("/v1/submissions/spin"), Some("oj-t"));
    assert_eq!(again.status, 200);
    assert_eq!(again.json(), report);
}

/// A cancel kills the boxes running then: tests of `SPIN` with a 20 s time limit
/// are stopped at once, not at their limit, so the DELETE answers the final report within
/// seconds and the run permits and the worker place are free. Before, the DELETE waited its
/// 10 s and answered a report not yet final, and the tests held their permits for 20 s.
#[test]
fn a_cancel_kills_the_running_tasks_boxes_at_once_and_frees_their_permits() {
    let Some(server) = one_worker(config()) else {
        return;
    };
    let body = long_spin("spin-long", 4, 20_000);
    let accepted = post(&server.url("/v1/submissions"), None, &body.to_string());
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    // Wait until its tests run (the compile done, a run permit taken).
    metrics_once(
        &server,
        Duration::from_secs(60),
        Duration::from_millis(100),
        |metrics| {
            gauge(metrics, "verdict_running_tasks").is_some_and(|n| n > 0.0)
                && get(&server.url("/v1/submissions/spin-long"), None).json()["results"][0]["status"]
                    == "Accepted"
        },
    );
    std::thread::sleep(Duration::from_millis(500));
    let report = cancelled_at_once(&server.url("/v1/submissions/spin-long"), None);
    assert!(
        report["results"].as_array().expect("results")[1..]
            .iter()
            .all(|r| r["status"] == "System Error"),
        "{report}"
    );
    // The permits are back (the gauge is read as the tasks' ends are counted: at most a
    // moment after the report).
    metrics_once(
        &server,
        Duration::from_secs(2),
        Duration::from_millis(50),
        none_running,
    );
    // The only worker is free: a new submission is judged at once.
    judged_at_once(&server.url("/v1/judge"), None, Duration::from_secs(15));
}

/// A lab run whose request timed out (the 504 at `request_timeout_ms`) stops with it (issue
/// 29.3): a `programming` task judging tests of `SPIN` under a 20 s time limit has its boxes
/// killed and its run permits back within seconds of the 504, and the next submission is
/// judged at once. Before, the runner went on in a task of its own after the 504 and held the
/// judge's permits until its tests' limits.
#[test]
fn a_lab_run_whose_request_timed_out_stops_its_boxes_and_frees_their_permits() {
    let Some(server) = one_worker(ServerConfig {
        request_timeout_ms: 6_000,
        ..config()
    }) else {
        return;
    };
    let task = json!({"id": "lab-spin", "name": "spin", "type": "programming",
        "metadata": {}, "input": long_spin("lab-spin", 4, 20_000)});
    let timed_out = post(&server.url("/v1/lab/runs"), None, &task.to_string());
    assert_eq!(timed_out.status, 504, "{}", timed_out.text);
    // The lab run's tasks give their permits back. (Before the fix they held them ~15 s more:
    // 20 s tests started a few s before the 504; 10 s leaves room for a loaded host.)
    metrics_once(
        &server,
        Duration::from_secs(10),
        Duration::from_millis(100),
        |metrics| none_running(metrics) && gauge(metrics, "verdict_started_tasks") == Some(0.0),
    );
    let started = Instant::now();
    let judged = post(
        &server.url("/v1/judge"),
        None,
        &a_plus_b("quick", "oj", A_PLUS_B).to_string(),
    );
    // On a loaded host the judging itself may pass this server's short request timeout (the
    // 504 says it goes on): its report then comes on its event stream.
    let report = if judged.status == 504 {
        let (_, events) = read_events(
            &server.url("/v1/submissions/quick/events?category=oj"),
            None,
        );
        events.last().map(|e| e.data.clone()).unwrap_or_default()
    } else {
        assert_eq!(judged.status, 200, "{}", judged.text);
        judged.json()
    };
    assert_eq!(statuses(&report), ["Accepted", "Accepted", "Accepted"]);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "judged in {:?}",
        started.elapsed()
    );
}

#[test]
fn an_oracle_suite_whose_request_timed_out_frees_its_slot_for_the_next_request() {
    let Some(server) = oracle_server(8_000) else {
        return;
    };
    // 90 s of work, far over the request's 8 s.
    let (endless, quick) = (endless_suite(), quick_suite());
    // As many endless suites at once as the batches' queue starts jobs (workers = 1: its
    // floor, BATCH_WORKERS): every slot is taken, and every request ends in 504.
    std::thread::scope(|scope| {
        let requests: Vec<_> = (0..verdict_submissions::batches::BATCH_WORKERS)
            .map(|_| scope.spawn(|| post(&server.url("/v1/oracle"), None, &endless)))
            .collect();
        for request in requests {
            let timed_out = request.join().expect("the request thread");
            assert_eq!(timed_out.status, 504, "{}", timed_out.text);
        }
    });
    // The slots come back with the requests' end: the next suite runs (before the fix it
    // waited behind the 90 s of the others, and timed out too).
    let next = poll_until(Duration::from_secs(30), Duration::ZERO, || {
        let next = post(&server.url("/v1/oracle"), None, &quick);
        if next.status == 200 {
            return Ok(next);
        }
        assert_eq!(next.status, 504, "{}", next.text);
        Err("the slot is still held after the 504".to_owned())
    });
    passed(&next);
}

#[test]
fn an_oracle_suite_whose_client_went_away_frees_its_slot_at_once() {
    let Some(server) = oracle_server(120_000) else {
        return;
    };
    // 90 s of work, within the request's 120 s.
    let (endless, quick) = (endless_suite(), quick_suite());
    // Clients that give up after 2 s and close their connections, as many as the batches'
    // queue starts jobs: every slot is taken by a suite nobody waits for.
    let impatient = client_waiting(Duration::from_secs(2));
    std::thread::scope(|scope| {
        let requests: Vec<_> = (0..verdict_submissions::batches::BATCH_WORKERS)
            .map(|_| {
                scope.spawn(|| {
                    impatient
                        .post(server.url("/v1/oracle"))
                        .header("Content-Type", "application/json")
                        .send(&endless)
                })
            })
            .collect();
        for request in requests {
            let gone = request.join().expect("the request thread");
            assert!(gone.is_err(), "the client should have timed out");
        }
    });
    // Their suites end with their connections: the next suite runs at once (before the fix it
    // waited behind the others' 90 s).
    let start = Instant::now();
    passed(&post(&server.url("/v1/oracle"), None, &quick));
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "the slots were held {:?} after their clients left",
        start.elapsed()
    );
}
