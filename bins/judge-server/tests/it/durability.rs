//! The submission store survives `kill -9`: a real `judge-server` process is killed with
//! submissions finished, running and queued, and after a restart every one of them reaches its
//! correct final report, once.

use crate::common::*;
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
    let start = Instant::now();
    let phases = loop {
        let mut phases: BTreeMap<String, usize> = BTreeMap::new();
        for (sub_id, category, _) in &subs {
            let reply = status_of(&server, sub_id, category);
            assert_eq!(reply.status, 200, "{}", reply.text);
            *phases
                .entry(reply.header("verdict-state").unwrap_or("?").to_owned())
                .or_default() += 1;
        }
        if phases.get("finished").copied().unwrap_or(0) >= 3 {
            break phases;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "{phases:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
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
