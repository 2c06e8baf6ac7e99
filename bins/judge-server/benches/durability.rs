//! Durability benchmark (not a test): `kill -9` of a real `judge-server` process with
//! `BENCH_SUBMISSIONS` (default 40) accepted, some finished, some running, most queued; then a
//! restart. It prints what was where at the kill, how long the restart took to finish them all,
//! and checks that every one reached its correct final report once: none lost (never a 404),
//! none judged twice after finishing, no work dir left behind.
//!
//! ```text
//! cargo bench -p verdict-judge-server --bench durability
//! BENCH_SUBMISSIONS=200 cargo bench -p verdict-judge-server --bench durability
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};
use support::{agent, counter, env_or, start};
use verdict_testkit::submission::SubmissionJson;

/// A+B in C; every fourth sleeps 1 s (so some are running at the kill), every fifth is wrong.
fn submission(i: usize) -> (String, Value, [&'static str; 2]) {
    let (source, expected) = if i % 5 == 4 {
        (
            "int main(){puts(\"0\");return 0;}",
            ["Accepted", "Wrong Answer"],
        )
    } else if i % 4 == 1 {
        (
            "int main(){int a,b;sleep(1);scanf(\"%d%d\",&a,&b);printf(\"%d\\n\",a+b);return 0;}",
            ["Accepted", "Accepted"],
        )
    } else {
        (
            "int main(){int a,b;scanf(\"%d%d\",&a,&b);printf(\"%d\\n\",a+b);return 0;}",
            ["Accepted", "Accepted"],
        )
    };
    let sub_id = format!("kill9-{i}");
    let body = SubmissionJson::a_plus_b(&sub_id)
        .source(format!(
            "#include <stdio.h>\n#include <unistd.h>\n{source}\n"
        ))
        .test("1 2\n", "3\n")
        .limit("time_limit", 3000)
        .build();
    (sub_id, body, expected)
}

/// `(status, Verdict-State, report)` of a submission.
fn read(base: &str, sub_id: &str) -> (u16, String, Value) {
    let Ok(mut reply) = agent()
        .get(format!("{base}/v1/submissions/{sub_id}?category=bench"))
        .call()
    else {
        return (0, String::new(), Value::Null);
    };
    let state = reply
        .headers()
        .get("verdict-state")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let status = reply.status().as_u16();
    (
        status,
        state,
        reply
            .body_mut()
            .read_to_string()
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
    )
}

/// How many submission work dirs (`sub-*`) lie anywhere under `dir`.
fn sub_dirs(dir: &Path) -> usize {
    let mut found = 0;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with("sub-") {
            found += 1;
        } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found += sub_dirs(&entry.path());
        }
    }
    found
}

fn main() {
    if !support::benching("durability", "durability") {
        return;
    }
    let total: usize = env_or("BENCH_SUBMISSIONS", 40);
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("server.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\nworkers = 2\nqueue_capacity = {}\ndata_dir = \"data\"\n\
             [judge]\nwork_dir = {:?}\ncache_dir = {:?}\n",
            total.max(1),
            dir.path().join("work"),
            dir.path().join("cache")
        ),
    )
    .expect("config");
    let subs: Vec<_> = (0..total).map(submission).collect();

    let (mut child, base) = start(&config);
    let t0 = Instant::now();
    for (sub_id, body, _) in &subs {
        let reply = agent()
            .post(format!("{base}/v1/submissions"))
            .send(body.to_string())
            .expect("a reply");
        assert_eq!(reply.status().as_u16(), 202, "{sub_id}");
    }
    println!(
        "accepted {total} in {:.2} s (each on disk before its 202)",
        t0.elapsed().as_secs_f64()
    );
    let at_kill = loop {
        let mut phases: BTreeMap<String, usize> = BTreeMap::new();
        for (sub_id, _, _) in &subs {
            *phases.entry(read(&base, sub_id).1).or_default() += 1;
        }
        if phases.get("finished").copied().unwrap_or(0) >= 3 && phases.contains_key("running") {
            break phases;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    println!("kill -9 with {at_kill:?}");
    let interrupted = sub_dirs(&dir.path().join("work"));
    println!("work dirs left by the killed process: {interrupted}");

    let t1 = Instant::now();
    let (mut child, base) = start(&config);
    let restart = t1.elapsed();
    let (mut lost, mut wrong) = (0, 0);
    let mut done = vec![false; total];
    while done.iter().any(|d| !d) {
        for (i, (sub_id, _, expected)) in subs.iter().enumerate() {
            if done[i] {
                continue;
            }
            let (status, state, report) = read(&base, sub_id);
            if status == 404 {
                lost += 1;
                done[i] = true;
            } else if state == "finished" {
                let statuses: Vec<&str> = report["results"]
                    .as_array()
                    .map(|r| r.iter().filter_map(|t| t["status"].as_str()).collect())
                    .unwrap_or_default();
                if statuses != expected || report["sub_id"] != sub_id.as_str() {
                    wrong += 1;
                    eprintln!("{sub_id}: {statuses:?}");
                }
                done[i] = true;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let all_done = t1.elapsed();
    let judged_again: usize = counter(&base, "verdict_submissions_finished_total");
    std::thread::sleep(Duration::from_millis(500));
    let left = sub_dirs(&dir.path().join("work"));
    let _ = child.kill();
    let _ = child.wait();
    let unfinished = total - at_kill.get("finished").copied().unwrap_or(0);
    println!(
        "restart: listening after {:.2} s, all {total} finished {:.2} s after the restart",
        restart.as_secs_f64(),
        all_done.as_secs_f64()
    );
    println!(
        "reports: {} correct, {wrong} wrong, {lost} lost (404); judged after the restart: {judged_again} (unfinished at the kill: {unfinished}, or fewer if some finished between the last look and the kill); work dirs left: {left}",
        total - wrong - lost
    );
    if lost > 0 || wrong > 0 || judged_again > unfinished || left > 0 {
        eprintln!("FAILED");
        std::process::exit(1);
    }
}
