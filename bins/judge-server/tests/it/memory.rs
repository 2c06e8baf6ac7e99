//! Memory bounded by bytes, not counts: the queue's request bytes have a budget,
//! and judged submissions give their memory back. A real `judge-server` process, whose memory
//! is read from `/proc`.

use crate::common::{
    A_PLUS_B, ServerProcess, TestServer, a_plus_b, config, get, judge, poll_until, post,
    sleepy_a_plus_b, wait_finished,
};
use std::time::{Duration, Instant};

/// A+B in C whose first test's input carries `bytes` more of lines the program never reads.
fn large_a_plus_b(sub_id: &str, bytes: usize) -> String {
    let mut submission = a_plus_b(sub_id, "oj", A_PLUS_B);
    let padding = format!("{}\n", "0".repeat(79)).repeat(bytes / 80);
    submission["test_data"][0]["inputs"][0]["text"] = format!("1 2\n{padding}").into();
    submission.to_string()
}

#[test]
fn judged_large_submissions_give_their_memory_back() {
    if judge().is_none() {
        return;
    }
    const LARGE: usize = 8;
    const BYTES: usize = 12 << 20;
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("server.toml");
    std::fs::write(
        &path,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 1\nmax_body_kb = 16384\nqueue_capacity = 64\n\
             data_dir = \"data\"\n[judge]\nwork_dir = {:?}\ncache_dir = {:?}\n",
            dir.path().join("work"),
            dir.path().join("cache")
        ),
    )
    .expect("config");
    let server = ServerProcess::start(&path);
    // Warm: one small submission judged, so the baseline has every lazy part in place.
    let warm = post(
        &server.url("/v1/judge"),
        None,
        &a_plus_b("warm", "oj", A_PLUS_B).to_string(),
    );
    assert_eq!(warm.status, 200, "{}", warm.text);
    let baseline = server.rss_kib();
    // One that holds the worker while the large ones queue behind it.
    let blocker = a_plus_b("blocker", "oj", &sleepy_a_plus_b(2)).to_string();
    let accepted = post(&server.url("/v1/submissions"), None, &blocker);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    for i in 0..LARGE {
        let accepted = post(
            &server.url("/v1/submissions"),
            None,
            &large_a_plus_b(&format!("large-{i}"), BYTES),
        );
        assert_eq!(accepted.status, 202, "{}", accepted.text);
    }
    let queued_mib = server.rss_kib().saturating_sub(baseline) / 1024;
    for i in 0..LARGE {
        wait_finished(
            &server.url(&format!("/v1/submissions/large-{i}")),
            None,
            Duration::from_secs(300),
            Duration::from_millis(300),
        );
    }
    let report = get(
        &server.url(&format!("/v1/submissions/large-{}", LARGE - 1)),
        None,
    );
    assert_eq!(
        crate::common::statuses(&report.json()),
        ["Accepted", "Accepted", "Accepted"]
    );
    std::thread::sleep(Duration::from_secs(1));
    let finished_mib = server.rss_kib().saturating_sub(baseline) / 1024;
    println!("{LARGE} x 12 MiB: +{queued_mib} MiB queued, +{finished_mib} MiB judged");
    // Before the fix glibc kept the freed bodies resident (its mmap threshold rose to 32 MiB
    // after the first large free): ~30 MiB per judged submission, +240 MiB here.
    assert!(
        finished_mib < 48,
        "{LARGE} judged 12 MiB submissions still hold {finished_mib} MiB"
    );
}

#[test]
fn a_queue_past_its_byte_budget_is_refused_naming_the_budget() {
    let Some(server) = TestServer::start(verdict_judge_server::ServerConfig {
        workers: 1,
        queue_budget_mb: 1,
        max_body_kb: 2048,
        ..config()
    }) else {
        return;
    };
    let url = server.url("/v1/submissions");
    let blocker = a_plus_b("blocker", "oj", &sleepy_a_plus_b(3)).to_string();
    assert_eq!(post(&url, None, &blocker).status, 202);
    // The blocker leaves the queue (and its bytes) when the worker takes it.
    let started = Instant::now();
    while get(&server.url("/v1/submissions/blocker"), None).header("verdict-state")
        != Some("running")
    {
        assert!(started.elapsed() < Duration::from_secs(30), "never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let body = |sub_id: &str| {
        a_plus_b(
            sub_id,
            "oj",
            &format!("{A_PLUS_B}/*{}*/\n", "x".repeat(600_000)),
        )
        .to_string()
    };
    let first = post(&url, None, &body("big-1"));
    assert_eq!(first.status, 202, "{}", first.text);
    // Two of them are 1.2 MB waiting: over the 1 MiB budget, though the queue has room for 16.
    let refused = post(&url, None, &body("big-2"));
    assert_eq!(refused.status, 429, "{}", refused.text);
    assert!(refused.text.contains("queue_budget_mb"), "{}", refused.text);
    assert!(refused.header("retry-after").is_some());
    // A small one still fits, and once the queue drains the large one is taken.
    let small = a_plus_b("small", "oj", A_PLUS_B).to_string();
    assert_eq!(post(&url, None, &small).status, 202);
    poll_until(Duration::from_secs(60), Duration::from_millis(200), || {
        let again = post(&url, None, &body("big-2"));
        if again.status == 202 {
            return Ok(());
        }
        assert_eq!(again.status, 429, "{}", again.text);
        Err("never taken".to_owned())
    });
}
