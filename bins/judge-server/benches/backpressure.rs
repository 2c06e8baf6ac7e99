//! Backpressure benchmark (not a test): with the queue kept full, how much throughput do
//! clients keep when they honour `Retry-After`, compared with clients that retry at once?
//!
//! ```text
//! cargo bench -p verdict-judge-server --bench backpressure
//! BENCH_CLIENTS=24 BENCH_SECONDS=30 BENCH_QUEUE=8 cargo bench -p verdict-judge-server --bench backpressure
//! ```
//!
//! It starts a server in-process (real sockets, the real sandbox, `workers` = the cores) with a
//! small queue, then runs two phases of `BENCH_SECONDS` each with `BENCH_CLIENTS` clients that
//! `POST /v1/submissions` A+B in C in a loop: in the first a client answered 429 retries at
//! once, in the second it sleeps `Retry-After`. Throughput is the server's own count of judged
//! submissions in the phase. Done when the second keeps at least 80% of the first.

#![allow(clippy::print_stdout, clippy::print_stderr)]

// This bench starts its server in-process, not with `support::start`.
#[allow(dead_code)]
mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use support::{agent, counter, env_or};
use verdict_judge_server::ServerConfig;
use verdict_testkit::server::InProcessServer;
use verdict_testkit::submission::SubmissionJson;

/// A+B in C on one test, under 1 s, 64 MiB and 4 processes.
fn submission(sub_id: &str) -> String {
    SubmissionJson::a_plus_b(sub_id)
        .test("1 2\n", "3\n")
        .limit("time_limit", 1000)
        .limit("memory_limit", 65536)
        .limit("proc_limit", 4)
        .text()
}

fn health(base: &str) -> serde_json::Value {
    agent()
        .get(format!("{base}/v1/health"))
        .call()
        .ok()
        .and_then(|mut r| r.body_mut().read_to_string().ok())
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

#[derive(Default)]
struct Phase {
    judged: u64,
    seconds: f64,
    accepted: u64,
    refused: u64,
    retry_after_sum: u64,
}

/// One phase: `clients` clients keep the queue full for `seconds`; `honour` says whether a 429
/// makes them sleep `Retry-After` or retry at once.
fn phase(base: &str, clients: usize, seconds: u64, honour: bool, tag: &str) -> Phase {
    // Start from a full queue, as the other phase does.
    let stop = Arc::new(AtomicBool::new(false));
    let (accepted, refused, retry_sum) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
    );
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let (base, stop) = (base.to_owned(), stop.clone());
            let (accepted, refused, retry_sum) =
                (accepted.clone(), refused.clone(), retry_sum.clone());
            let tag = tag.to_owned();
            std::thread::spawn(move || {
                let agent = agent();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let body = submission(&format!("{tag}-{c}-{n}"));
                    let reply = agent
                        .post(format!("{base}/v1/submissions"))
                        .header("Content-Type", "application/json")
                        .send(body);
                    let Ok(reply) = reply else {
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    };
                    match reply.status().as_u16() {
                        202 => {
                            accepted.fetch_add(1, Ordering::Relaxed);
                            n += 1;
                        }
                        429 => {
                            refused.fetch_add(1, Ordering::Relaxed);
                            let secs: u64 = reply
                                .headers()
                                .get("retry-after")
                                .and_then(|v| v.to_str().ok()?.parse().ok())
                                .unwrap_or(1);
                            retry_sum.fetch_add(secs, Ordering::Relaxed);
                            if honour {
                                let until = Instant::now() + Duration::from_secs(secs);
                                while Instant::now() < until && !stop.load(Ordering::Relaxed) {
                                    std::thread::sleep(Duration::from_millis(20));
                                }
                            }
                        }
                        other => {
                            eprintln!("unexpected status {other}");
                            std::thread::sleep(Duration::from_millis(100));
                        }
                    }
                }
            })
        })
        .collect();
    let start_wait = Instant::now();
    while health(base)["queue_length"].as_u64().unwrap_or(0) == 0
        && start_wait.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    let before = counter::<u64>(base, "verdict_submissions_finished_total");
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(seconds));
    let judged = counter::<u64>(base, "verdict_submissions_finished_total") - before;
    let elapsed = t0.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    // Let the queue drain before the next phase.
    while health(base)["queue_length"].as_u64().unwrap_or(1) > 0
        || health(base)["running_submissions"].as_u64().unwrap_or(1) > 0
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    Phase {
        judged,
        seconds: elapsed,
        accepted: accepted.load(Ordering::Relaxed),
        refused: refused.load(Ordering::Relaxed),
        retry_after_sum: retry_sum.load(Ordering::Relaxed),
    }
}

fn main() {
    if !support::benching("backpressure", "backpressure") {
        return;
    }
    let clients: usize = env_or("BENCH_CLIENTS", 16);
    let seconds: u64 = env_or("BENCH_SECONDS", 20);
    let queue: usize = env_or("BENCH_QUEUE", 8);
    let dir = tempfile::tempdir().expect("temp dir");
    let Some((judge, _judge_dir)) = verdict_testkit::judge_with(|config| config) else {
        return;
    };
    let config = ServerConfig {
        queue_capacity: queue,
        data_dir: dir.path().join("data"),
        ..ServerConfig::default()
    };
    println!(
        "backpressure: {clients} clients, queue_capacity {queue}, workers {}, {seconds} s per phase",
        config.workers
    );
    let server = InProcessServer::start(config, judge);
    let base = server.url("");
    // Warm the caches, and give the judging-time average a first value.
    let _ = agent()
        .post(format!("{base}/v1/judge"))
        .send(submission("warm-up"));

    let mut results = Vec::new();
    for (honour, tag, label) in [
        (false, "at-once", "retries at once      "),
        (true, "honour", "honours Retry-After  "),
    ] {
        let p = phase(&base, clients, seconds, honour, tag);
        let mean_retry = p.retry_after_sum as f64 / p.refused.max(1) as f64;
        println!(
            "{label}: {:.2} submissions/s ({} judged in {:.1} s), {} accepted, {} refused (429), mean Retry-After {mean_retry:.2} s",
            p.judged as f64 / p.seconds,
            p.judged,
            p.seconds,
            p.accepted,
            p.refused
        );
        results.push(p.judged as f64 / p.seconds);
    }
    let ratio = results[1] / results[0].max(f64::MIN_POSITIVE);
    println!(
        "ratio: {:.0}% of the at-once throughput (target: at least 80%)",
        ratio * 100.0
    );
    drop(server);
}
