//! Load benchmark (not a test): N concurrent clients submit A+B in C for a while, each waiting
//! on `POST /v1/judge`; it prints submissions/s and p50/p99 latency, and checks that every
//! submission got exactly one complete report (its own `sub_id`, every task finished, all
//! `Accepted`) and that the server's counters agree.
//!
//! ```text
//! cargo bench -p verdict-judge-server --bench load                  # 8 clients, 30 s
//! LOAD_CLIENTS=16 LOAD_SECONDS=60 cargo bench -p verdict-judge-server --bench load
//! LOAD_URL=http://127.0.0.1:8080 LOAD_TOKEN=... cargo bench ...    # against a running server
//! ```
//!
//! Without `LOAD_URL` it starts a server in-process on 127.0.0.1 (real sockets, the real
//! sandbox). Under `cargo test` (no `--bench` argument) it only says how to run it.

#![allow(clippy::print_stdout, clippy::print_stderr)]

// This bench starts its server in-process (or uses `LOAD_URL`), not with `support::start`.
#[allow(dead_code)]
mod support;

use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::env_or;
use verdict_judge_server::ServerConfig;
use verdict_testkit::server::InProcessServer;
use verdict_testkit::submission::SubmissionJson;

/// A+B in C on `a b` and on `40 2`, under 1 s, 64 MiB and 4 processes.
fn submission(sub_id: &str, a: i64, b: i64) -> String {
    SubmissionJson::a_plus_b(sub_id)
        .category("load")
        .test(format!("{a} {b}\n"), format!("{}\n", a + b))
        .test("40 2\n", "42\n")
        .limit("time_limit", 1000)
        .limit("memory_limit", 65536)
        .limit("proc_limit", 4)
        .text()
}

/// A server started in-process (the test kit's), stopped on drop before its dirs go.
struct Local {
    _server: InProcessServer,
    _dir: tempfile::TempDir,
    _judge_dir: tempfile::TempDir,
}

fn start_local() -> Option<(String, Local)> {
    let dir = tempfile::tempdir().expect("temp dir");
    let (judge, judge_dir) = verdict_testkit::judge_with(|config| config)?;
    let config = ServerConfig {
        queue_capacity: 1024,
        data_dir: dir.path().join("data"),
        ..ServerConfig::default()
    };
    println!(
        "server: in-process, workers {}, judge parallelism {}",
        config.workers,
        judge.config().parallelism
    );
    let server = InProcessServer::start(config, judge);
    Some((
        server.url(""),
        Local {
            _server: server,
            _dir: dir,
            _judge_dir: judge_dir,
        },
    ))
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    reports: HashSet<String>,
    duplicates: usize,
    incomplete: Vec<String>,
    errors: Vec<String>,
    retries: usize,
}

fn main() {
    if !support::benching("load", "load") {
        return;
    }
    let clients: usize = env_or("LOAD_CLIENTS", 8);
    let seconds: u64 = env_or("LOAD_SECONDS", 30);
    let token = std::env::var("LOAD_TOKEN").ok();
    let (base, _local) = match std::env::var("LOAD_URL") {
        Ok(url) => (url.trim_end_matches('/').to_owned(), None),
        Err(_) => match start_local() {
            Some((url, local)) => (url, Some(local)),
            None => return,
        },
    };
    let agent = verdict_testkit::http::agent(Duration::from_secs(120));
    // Warm the problem cache and the page cache once, outside the measurement.
    let warm = agent
        .post(format!("{base}/v1/judge"))
        .header(
            "Authorization",
            format!("Bearer {}", token.clone().unwrap_or_default()),
        )
        .send(submission("load-warmup", 1, 2));
    if let Err(err) = warm {
        eprintln!("cannot reach {base}: {err}");
        std::process::exit(1);
    }

    println!("load: {clients} clients, {seconds} s, POST {base}/v1/judge (A+B in C, 3 tasks)");
    let tally = Arc::new(Mutex::new(Tally::default()));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let run_id = std::process::id();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let agent = agent.clone();
            let base = base.clone();
            let token = token.clone();
            let tally = tally.clone();
            std::thread::spawn(move || {
                let mut n = 0u64;
                while Instant::now() < deadline {
                    let sub_id = format!("load-{run_id}-{c}-{n}");
                    n += 1;
                    let (a, b) = (c as i64 * 1000 + n as i64, n as i64);
                    let body = submission(&sub_id, a, b);
                    let t0 = Instant::now();
                    loop {
                        let mut request = agent
                            .post(format!("{base}/v1/judge"))
                            .header("Content-Type", "application/json");
                        if let Some(token) = &token {
                            request = request.header("Authorization", format!("Bearer {token}"));
                        }
                        let outcome = request.send(&body);
                        let mut response = match outcome {
                            Ok(r) => r,
                            Err(e) => {
                                tally.lock().unwrap().errors.push(format!("{sub_id}: {e}"));
                                break;
                            }
                        };
                        let status = response.status().as_u16();
                        let text = response.body_mut().read_to_string().unwrap_or_default();
                        if status == 429 {
                            let wait: u64 = response
                                .headers()
                                .get("retry-after")
                                .and_then(|v| v.to_str().ok()?.parse().ok())
                                .unwrap_or(1);
                            tally.lock().unwrap().retries += 1;
                            std::thread::sleep(Duration::from_secs(wait));
                            continue;
                        }
                        let latency = t0.elapsed();
                        let mut t = tally.lock().unwrap();
                        if status != 200 {
                            t.errors.push(format!("{sub_id}: HTTP {status}: {text}"));
                            break;
                        }
                        let report: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                        let complete = report["sub_id"] == sub_id.as_str()
                            && report["results"].as_array().is_some_and(|r| {
                                r.len() == 3 && r.iter().all(|x| x["status"] == "Accepted")
                            });
                        if !complete {
                            t.incomplete.push(format!("{sub_id}: {text}"));
                        }
                        if !t.reports.insert(sub_id.clone()) {
                            t.duplicates += 1;
                        }
                        t.latencies.push(latency);
                        break;
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("client thread");
    }
    let elapsed = started.elapsed();
    let mut tally = Arc::try_unwrap(tally)
        .ok()
        .expect("clients done")
        .into_inner()
        .unwrap();
    tally.latencies.sort();
    let n = tally.latencies.len();
    let pct = |p: f64| -> f64 {
        if n == 0 {
            return 0.0;
        }
        let i = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
        tally.latencies[i].as_secs_f64() * 1000.0
    };
    println!(
        "submissions: {n} in {:.1} s = {:.2} submissions/s ({} tasks/s)",
        elapsed.as_secs_f64(),
        n as f64 / elapsed.as_secs_f64(),
        format_args!("{:.2}", 3.0 * n as f64 / elapsed.as_secs_f64()),
    );
    println!(
        "latency ms: p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}",
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(1.0)
    );
    println!(
        "reports: {} distinct, {} duplicates, {} incomplete or not Accepted, {} errors, {} retries after 429",
        tally.reports.len(),
        tally.duplicates,
        tally.incomplete.len(),
        tally.errors.len(),
        tally.retries
    );
    // The server's own count: every submission finished exactly once.
    let mut request = agent.get(format!("{base}/metrics"));
    if let Some(token) = &token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let finished = request
        .call()
        .ok()
        .and_then(|mut r| r.body_mut().read_to_string().ok())
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("verdict_submissions_finished_total "))
                .and_then(|v| v.trim().parse::<usize>().ok())
        });
    if let Some(finished) = finished {
        println!("server: verdict_submissions_finished_total {finished}");
    }
    let mut ok = tally.duplicates == 0
        && tally.incomplete.is_empty()
        && tally.errors.is_empty()
        && tally.reports.len() == n;
    if std::env::var("LOAD_URL").is_err() {
        // In-process: nobody else submits, so the counter must be exactly ours plus the warm-up.
        ok &= finished == Some(n + 1);
    }
    for line in tally.errors.iter().chain(&tally.incomplete).take(5) {
        println!("  {line}");
    }
    if ok {
        println!("check: every submission got exactly one complete report");
    } else {
        println!("check: FAILED");
        std::process::exit(1);
    }
}
