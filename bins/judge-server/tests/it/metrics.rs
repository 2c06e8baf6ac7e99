//! `/metrics` on a real server with more ready tasks than run slots: a task waiting
//! for a sandbox slot is queued, not running.

use crate::common::{ServerProcess, get, poll_until, post};
use std::time::Duration;

/// The value of an unlabelled sample `name` in a Prometheus text.
fn sample(text: &str, name: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn metrics_never_count_tasks_waiting_for_a_slot_as_running() {
    if crate::common::judge().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("server.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 1\nqueue_capacity = 8\ndata_dir = \"data\"\n\
             [judge]\nwork_dir = {:?}\ncache_dir = {:?}\nparallelism = 2\n",
            dir.path().join("work"),
            dir.path().join("cache")
        ),
    )
    .expect("config");
    let server = ServerProcess::start(&config);
    // 24 tests of 50 ms each become ready together when the compile ends: 2 run, 22 wait.
    let submission = crate::faces::many_tests("slots-1", 24, &[]);
    let accepted = post(&server.url("/v1/submissions"), None, &submission);
    assert_eq!(accepted.status, 202, "{}", accepted.text);
    let (mut samples, mut most_queued, mut most_running) = (0, 0, 0);
    poll_until(Duration::from_secs(120), Duration::ZERO, || {
        let metrics = get(&server.url("/metrics"), None);
        assert_eq!(metrics.status, 200);
        let value = |name: &str| {
            sample(&metrics.text, name).unwrap_or_else(|| panic!("{name} in\n{}", metrics.text))
        };
        let (slots, running, queued) = (
            value("verdict_task_slots"),
            value("verdict_running_tasks"),
            value("verdict_queued_tasks"),
        );
        assert_eq!(slots, 2, "{}", metrics.text);
        assert!(
            running <= slots,
            "{running} running with {slots} slots:\n{}",
            metrics.text
        );
        samples += 1;
        most_queued = most_queued.max(queued);
        most_running = most_running.max(running);
        let status = get(&server.url("/v1/submissions/slots-1"), None);
        if status.header("verdict-complete") == Some("true") {
            Ok(())
        } else {
            Err(format!("the submission did not finish: {}", status.text))
        }
    });
    let report = get(&server.url("/v1/submissions/slots-1"), None).json();
    let statuses = crate::common::statuses(&report);
    assert!(
        statuses.iter().all(|s| s == "Accepted"),
        "{statuses:?} in {report}"
    );
    assert!(
        most_queued > 0,
        "no task was ever seen waiting for a slot in {samples} samples"
    );
    assert!(
        most_running > 0,
        "no task was ever seen running in {samples} samples"
    );
    // Once finished, nothing is left counted.
    let metrics = get(&server.url("/metrics"), None);
    assert_eq!(sample(&metrics.text, "verdict_running_tasks"), Some(0));
    assert_eq!(sample(&metrics.text, "verdict_queued_tasks"), Some(0));
}
