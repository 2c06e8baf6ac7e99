//! Availability benchmark (not a test; docs/server.md, "Availability"): a real `judge-server` process
//! with an admin token and two category tokens, `alice` (an ordinary tenant) and `mallory` (a
//! hostile one), measured in one run:
//!
//! 1. **Slow and idle connections.** Alice's clients `POST /v1/judge` A+B in C in a loop, first
//!    alone (the baseline), then while `AVAIL_SLOW` connections (2,000) from 20 loopback
//!    addresses send a header byte a second or go idle after one request, reconnecting as soon
//!    as the server closes them. Alice's p50/p99 in both, how many attacking connections were
//!    open at once, how many the server closed.
//! 2. **A hostile tenant's limits.** Alice's clients again, while mallory sends submissions over
//!    the operator's caps (time, memory, processes, tasks, a suite's `timeout_ms`) as fast as it
//!    can: every one must be 422, and alice's p99 is compared with the baseline.
//! 3. **Memory.** The server's RSS after a warm-up, at its peak and after `AVAIL_LARGE` (1,000)
//!    submissions of `AVAIL_LARGE_KIB` (1 MiB) test data each are judged; then with
//!    `AVAIL_READERS` (500) event-stream readers that never read, on 10 submissions of 1,000
//!    tasks each, once those are judged.
//!
//! ```text
//! cargo bench -p verdict-judge-server --bench availability
//! AVAIL_SECONDS=10 AVAIL_LARGE=200 cargo bench -p verdict-judge-server --bench availability
//! ```
//!
//! It exits non-zero if a submission is lost, answered wrongly or with a 5xx, or a hostile one
//! is accepted. Under `cargo test` (no `--bench` argument) it only says how to run it.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod support;

use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{agent, env_or};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use verdict_testkit::submission::SubmissionJson;

const ADMIN: &str = "admin-secret";
const ALICE: &str = "alice-secret";
const MALLORY: &str = "mallory-secret";

/// A+B in C for `category`: a compile task and `tests` standard tasks on one test datum whose
/// input carries `padding` more bytes of lines the program never reads.
fn a_plus_b(category: &str, sub_id: &str, tests: usize, padding: usize) -> Value {
    let pad = format!("{}\n", "0".repeat(79)).repeat(padding / 80);
    SubmissionJson::a_plus_b(sub_id)
        .category(category)
        .test(format!("1 2\n{pad}"), "3\n")
        .runs(tests)
        .limit("time_limit", 1000)
        .limit("memory_limit", 65536)
        .limit("proc_limit", 4)
        .build()
}

/// Whether `report` is `sub_id`'s, complete, every task `Accepted`.
fn all_accepted(report: &Value, sub_id: &str, tasks: usize) -> bool {
    report["sub_id"] == sub_id
        && report["results"]
            .as_array()
            .is_some_and(|r| r.len() == tasks && r.iter().all(|x| x["status"] == "Accepted"))
}

/// What went wrong, shared by every thread of the run; the run fails if it is not empty.
#[derive(Default)]
struct Faults(Mutex<Vec<String>>);

impl Faults {
    fn add(&self, fault: String) {
        let mut faults = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if faults.len() < 20 {
            eprintln!("fault: {fault}");
        }
        faults.push(fault);
    }

    fn count(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// A POST with `token`, retried after `Retry-After` while it is 429; the final status and body.
fn post(agent: &ureq::Agent, url: &str, token: &str, body: &str) -> Result<(u16, String), String> {
    loop {
        let mut reply = agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Authorization", format!("Bearer {token}"))
            .send(body)
            .map_err(|e| format!("POST {url}: {e}"))?;
        let status = reply.status().as_u16();
        let text = reply.body_mut().read_to_string().unwrap_or_default();
        if status != 429 {
            return Ok((status, text));
        }
        let wait: u64 = reply
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()?.parse().ok())
            .unwrap_or(1);
        std::thread::sleep(Duration::from_secs(wait));
    }
}

/// Latency percentiles in ms of one phase of alice's clients, and the CPU the server and the
/// bench (clients and attackers) spent in it.
struct Latencies {
    judged: usize,
    seconds: f64,
    p50: f64,
    p99: f64,
    server_cpu_ms: f64,
    bench_cpu_ms: f64,
}

/// Alice's `clients` `POST /v1/judge` for `seconds`; each report must be complete and right.
fn alice(
    base: &str,
    server_pid: u32,
    clients: usize,
    seconds: u64,
    tag: &str,
    faults: &Arc<Faults>,
) -> Latencies {
    let (server_cpu, bench_cpu) = (cpu_ms(&server_pid.to_string()), cpu_ms("self"));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let (base, tag, faults) = (base.to_owned(), tag.to_owned(), faults.clone());
            std::thread::spawn(move || {
                let agent = agent();
                let mut latencies = Vec::new();
                let mut n = 0;
                while Instant::now() < deadline {
                    let sub_id = format!("{tag}-{c}-{n}");
                    n += 1;
                    let body = a_plus_b("alice", &sub_id, 2, 0).to_string();
                    let t0 = Instant::now();
                    match post(&agent, &format!("{base}/v1/judge"), ALICE, &body) {
                        Ok((200, text)) => {
                            let report: Value = serde_json::from_str(&text).unwrap_or_default();
                            if !all_accepted(&report, &sub_id, 3) {
                                faults.add(format!("{sub_id}: {text}"));
                            }
                            latencies.push(t0.elapsed());
                        }
                        Ok((status, text)) => faults.add(format!("{sub_id}: {status} {text}")),
                        Err(err) => faults.add(format!("{sub_id}: {err}")),
                    }
                }
                latencies
            })
        })
        .collect();
    let mut all: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap_or_default())
        .collect();
    let seconds = started.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| {
        let n = all.len();
        if n == 0 {
            return f64::NAN;
        }
        all[((p * n as f64).ceil() as usize).clamp(1, n) - 1].as_secs_f64() * 1000.0
    };
    Latencies {
        judged: all.len(),
        seconds,
        p50: pct(0.50),
        p99: pct(0.99),
        server_cpu_ms: cpu_ms(&server_pid.to_string()) - server_cpu,
        bench_cpu_ms: cpu_ms("self") - bench_cpu,
    }
}

/// The attacking side's counters.
#[derive(Default)]
struct Attack {
    open: AtomicI64,
    peak: AtomicI64,
    opened: AtomicU64,
    closed_by_server: AtomicU64,
    refused: AtomicU64,
}

/// One attacking connection slot: connect from `from`, then either send a header byte a second
/// (`slow`) or one complete request and nothing more; when the server closes it, again.
async fn attacker(server: std::net::SocketAddr, from: String, slow: bool, attack: Arc<Attack>) {
    const HEAD: &[u8] = b"GET /v1/health HTTP/1.1\r\nHost: bench\r\nX-Padding: ";
    loop {
        let Ok(socket) = tokio::net::TcpSocket::new_v4() else {
            return;
        };
        let bound = from.parse().map(|a| socket.bind(a));
        let Ok(Ok(())) = bound else { return };
        let Ok(mut stream) = socket.connect(server).await else {
            attack.refused.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        attack.opened.fetch_add(1, Ordering::Relaxed);
        let now = attack.open.fetch_add(1, Ordering::Relaxed) + 1;
        attack.peak.fetch_max(now, Ordering::Relaxed);
        let mut buf = [0u8; 4096];
        if slow {
            let mut i = 0;
            loop {
                let byte = HEAD.get(i).copied().unwrap_or(b'a');
                i += 1;
                if stream.write_all(&[byte]).await.is_err() {
                    break;
                }
                // A close (or a 429/408 answer) shows up as readable.
                tokio::select! {
                    read = stream.read(&mut buf) => {
                        if matches!(read, Ok(0) | Err(_)) { break; }
                    }
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        } else {
            let request = b"GET /v1/health HTTP/1.1\r\nHost: bench\r\n\r\n";
            if stream.write_all(request).await.is_ok() {
                while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
            }
        }
        attack.open.fetch_sub(1, Ordering::Relaxed);
        attack.closed_by_server.fetch_add(1, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Mallory's requests over the operator's caps (default `Caps`), in a loop until `stop`; how
/// many were sent. Every one must be 422 naming the field.
fn mallory(base: &str, stop: &AtomicBool, faults: &Faults) -> u64 {
    let agent = agent();
    let mut hostile: Vec<(&str, &str, Value)> = Vec::new();
    // Each body serialised once: the bench's own CPU is not the server's.
    let over = |field: &str, value: Value| {
        let mut submission = a_plus_b("mallory", "m", 1, 0);
        submission["judge_tasks"][1][field] = value;
        submission
    };
    hostile.push((
        "/v1/submissions",
        "time_limit",
        over("time_limit", json!(1_000_000_000)),
    ));
    hostile.push((
        "/v1/judge",
        "memory_limit",
        over("memory_limit", json!(1_u64 << 40)),
    ));
    hostile.push((
        "/v1/submissions",
        "proc_limit",
        over("proc_limit", json!(4_194_304)),
    ));
    hostile.push((
        "/v1/submissions",
        "judge_tasks",
        a_plus_b("mallory", "m", 5000, 0),
    ));
    hostile.push((
        "/v1/oracle",
        "timeout_ms",
        json!({"deliverable_type": "function", "language": "python3", "entry_point": "f",
               "source_files": [{"type": "text", "name": "f.py",
                                 "text": "def f(x):\n    while True: pass\n"}],
               "test_cases": [{"name": "t", "input": [1], "expected": 1}],
               "timeout_ms": 100_000_000}),
    ));
    let hostile: Vec<(String, &str, String)> = hostile
        .into_iter()
        .map(|(path, field, body)| (format!("{base}{path}"), field, body.to_string()))
        .collect();
    let mut sent = 0u64;
    while !stop.load(Ordering::Relaxed) {
        for (url, field, body) in &hostile {
            sent += 1;
            match post(&agent, url, MALLORY, body) {
                Ok((422, text)) if text.contains(field) => {}
                Ok((status, text)) => faults.add(format!("mallory {url} {field}: {status} {text}")),
                Err(err) => faults.add(format!("mallory {url}: {err}")),
            }
        }
    }
    sent
}

/// CPU time (user and system) of process `pid` so far (`self` for the bench), in ms.
fn cpu_ms(pid: &str) -> f64 {
    let ticks = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            // Fields after the command name's closing parenthesis: utime and stime are the
            // 12th and 13th of them.
            let rest = s.rsplit_once(')')?.1.to_owned();
            let fields: Vec<f64> = rest
                .split_whitespace()
                .skip(11)
                .take(2)
                .filter_map(|f| f.parse().ok())
                .collect();
            Some(fields.iter().sum::<f64>())
        })
        .unwrap_or(f64::NAN);
    // /proc reports in USER_HZ, 100 a second on Linux whatever the kernel's own tick.
    ticks * 10.0
}

/// The server's resident memory in MiB.
fn rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// Waits until `sub_id` of alice is finished; whether its report is right.
fn finished_right(base: &str, sub_id: &str, tasks: usize, faults: &Faults) {
    let agent = agent();
    let started = Instant::now();
    loop {
        let reply = agent
            .get(format!("{base}/v1/submissions/{sub_id}"))
            .header("Authorization", format!("Bearer {ALICE}"))
            .call();
        let Ok(mut reply) = reply else {
            faults.add(format!("GET {sub_id}: no answer"));
            return;
        };
        let finished = reply
            .headers()
            .get("verdict-state")
            .is_some_and(|v| v == "finished");
        let status = reply.status().as_u16();
        let text = reply.body_mut().read_to_string().unwrap_or_default();
        if status != 200 {
            faults.add(format!("GET {sub_id}: {status} {text}"));
            return;
        }
        if finished {
            let report: Value = serde_json::from_str(&text).unwrap_or_default();
            if !all_accepted(&report, sub_id, tasks) {
                faults.add(format!("{sub_id} judged wrong: {text:.300}"));
            }
            return;
        }
        if started.elapsed() > Duration::from_secs(1800) {
            faults.add(format!("{sub_id} not judged in 30 minutes"));
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Submits `count` submissions of alice (`tests` tasks, `padding` bytes each) from `clients`
/// threads, retrying 429s after `Retry-After`; their ids.
fn submit_many(
    base: &str,
    tag: &str,
    count: usize,
    tests: usize,
    padding: usize,
    faults: &Arc<Faults>,
) -> Vec<String> {
    let next = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (base, tag, faults, next) = (
                base.to_owned(),
                tag.to_owned(),
                faults.clone(),
                next.clone(),
            );
            std::thread::spawn(move || {
                let agent = agent();
                let mut ids = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= count {
                        return ids;
                    }
                    let sub_id = format!("{tag}-{i}");
                    let body = a_plus_b("alice", &sub_id, tests, padding).to_string();
                    match post(&agent, &format!("{base}/v1/submissions"), ALICE, &body) {
                        Ok((202, _)) => ids.push(sub_id),
                        Ok((status, text)) => faults.add(format!("{sub_id}: {status} {text}")),
                        Err(err) => faults.add(format!("{sub_id}: {err}")),
                    }
                }
            })
        })
        .collect();
    threads
        .into_iter()
        .flat_map(|t| t.join().unwrap_or_default())
        .collect()
}

/// A reader of `sub_id`'s event stream that sends its request and never reads, with a small
/// receive buffer so the server's writes stall soon.
async fn stalled_reader(
    server: std::net::SocketAddr,
    from: String,
    sub_id: String,
    token: &'static str,
) {
    let Ok(socket) = tokio::net::TcpSocket::new_v4() else {
        return;
    };
    let _ = socket.set_recv_buffer_size(4096);
    let bound = from.parse().map(|a| socket.bind(a));
    let Ok(Ok(())) = bound else { return };
    let Ok(mut stream) = socket.connect(server).await else {
        return;
    };
    let request = format!(
        "GET /v1/submissions/{sub_id}/events HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {token}\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).await.is_ok() {
        // Hold the connection, never read, until the bench drops this task.
        std::future::pending::<()>().await;
    }
}

fn main() {
    if !support::benching("availability", "availability") {
        return;
    }
    let clients: usize = env_or("AVAIL_CLIENTS", 4);
    let seconds: u64 = env_or("AVAIL_SECONDS", 20);
    let slow: usize = env_or("AVAIL_SLOW", 2000);
    let large: usize = env_or("AVAIL_LARGE", 1000);
    let large_kib: usize = env_or("AVAIL_LARGE_KIB", 1024);
    let readers: usize = env_or("AVAIL_READERS", 500);
    // The attacking sockets and the server's own: raise the open-file limit the server inherits.
    let nofile = rlimit::increase_nofile_limit(u64::MAX).unwrap_or(1024);
    let dir = tempfile::tempdir().expect("a temp dir");
    let config = dir.path().join("server.toml");
    std::fs::write(
        &config,
        format!(
            "listen = \"127.0.0.1:0\"\ndata_dir = {:?}\n\
             [judge]\nwork_dir = {:?}\ncache_dir = {:?}\n\
             [[tokens]]\ntoken = \"{ADMIN}\"\n\
             [[tokens]]\ntoken = \"{ALICE}\"\ncategory = \"alice\"\n\
             [[tokens]]\ntoken = \"{MALLORY}\"\ncategory = \"mallory\"\n",
            dir.path().join("data"),
            dir.path().join("work"),
            dir.path().join("cache")
        ),
    )
    .expect("the config");
    let (mut child, base) = support::start(&config);
    let pid = child.id();
    let server: std::net::SocketAddr = base
        .trim_start_matches("http://")
        .parse()
        .expect("the server's address");
    let faults = Arc::new(Faults::default());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    println!(
        "availability: server pid {pid} at {base}, open-file limit {nofile}, {clients} clients of alice, {seconds} s a phase"
    );

    // Warm-up: the problem cache and every lazy part of the server.
    let warm = alice(&base, pid, 1, 2, "warm", &faults);
    let rss_warm = rss_mib(pid);
    println!("warm-up: {} judged, RSS {rss_warm:.1} MiB", warm.judged);

    // 1. Slow and idle connections.
    let quiet = alice(&base, pid, clients, seconds, "quiet", &faults);
    let attack = Arc::new(Attack::default());
    let attackers: Vec<_> = (0..slow)
        .map(|i| {
            let from = format!("127.0.1.{}:0", 1 + i % 20);
            runtime.spawn(attacker(server, from, i % 2 == 0, attack.clone()))
        })
        .collect();
    // Let the attack build up to its full count before measuring.
    let ramp = Instant::now();
    while (attack.open.load(Ordering::Relaxed) as usize) < slow * 9 / 10
        && ramp.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let open_at_start = attack.open.load(Ordering::Relaxed);
    let attacked = alice(&base, pid, clients, seconds, "attacked", &faults);
    let open_at_end = attack.open.load(Ordering::Relaxed);
    let rss_attacked = rss_mib(pid);
    for task in attackers {
        task.abort();
    }

    // 2. A hostile tenant's limits.
    let stop = Arc::new(AtomicBool::new(false));
    let hostile_thread = {
        let (base, stop, faults) = (base.clone(), stop.clone(), faults.clone());
        std::thread::spawn(move || mallory(&base, &stop, &faults))
    };
    let beside_mallory = alice(&base, pid, clients, seconds, "beside-mallory", &faults);
    stop.store(true, Ordering::Relaxed);
    let hostile_sent = hostile_thread.join().unwrap_or(0);
    let rss_mallory = rss_mib(pid);

    println!();
    println!(
        "| phase | alice judged | /s | p50 ms | p99 ms | p99 / quiet | server CPU ms per judged | bench's own CPU (clients, attackers) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (name, l) in [
        ("quiet (baseline)", &quiet),
        ("2,000 slow and idle connections", &attacked),
        ("mallory over the caps", &beside_mallory),
    ] {
        println!(
            "| {name} | {} | {:.1} | {:.1} | {:.1} | {:.2}x | {:.1} | {:.0}% of a core |",
            l.judged,
            l.judged as f64 / l.seconds,
            l.p50,
            l.p99,
            l.p99 / quiet.p99,
            l.server_cpu_ms / l.judged.max(1) as f64,
            l.bench_cpu_ms / l.seconds / 10.0
        );
    }
    println!(
        "attack: {slow} slots, {} connections open at the start of the measurement and {} at its end (peak {}), {} opened, {} closed by the server, {} connects refused",
        open_at_start,
        open_at_end,
        attack.peak.load(Ordering::Relaxed),
        attack.opened.load(Ordering::Relaxed),
        attack.closed_by_server.load(Ordering::Relaxed),
        attack.refused.load(Ordering::Relaxed),
    );
    // What refusing costs: the server's CPU in mallory's phase beyond what alice's judged
    // submissions cost in the quiet phase, per hostile request.
    let refusing_ms = beside_mallory.server_cpu_ms
        - quiet.server_cpu_ms / quiet.judged.max(1) as f64 * beside_mallory.judged as f64;
    println!(
        "mallory: {hostile_sent} requests over the caps ({:.0}/s), each must be 422 naming its field; server CPU per refusal {:.2} ms",
        hostile_sent as f64 / beside_mallory.seconds,
        refusing_ms / hostile_sent.max(1) as f64
    );

    // 3. Memory: large submissions, then stalled readers.
    let peak = Arc::new(Mutex::new(rss_mib(pid)));
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let (peak, sampling) = (peak.clone(), sampling.clone());
        std::thread::spawn(move || {
            while sampling.load(Ordering::Relaxed) {
                let now = rss_mib(pid);
                let mut peak = peak.lock().unwrap_or_else(|p| p.into_inner());
                if now > *peak {
                    *peak = now;
                }
                drop(peak);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let rss_before = rss_mib(pid);
    let started = Instant::now();
    let ids = submit_many(&base, "large", large, 2, large_kib * 1024, &faults);
    for id in &ids {
        finished_right(&base, id, 3, &faults);
    }
    let large_seconds = started.elapsed().as_secs_f64();
    let rss_after_large = rss_mib(pid);
    let peak_large = *peak.lock().unwrap_or_else(|p| p.into_inner());

    let streams = 10;
    let long_ids = submit_many(&base, "long", streams, 1000, 0, &faults);
    let readers_tasks: Vec<_> = (0..readers)
        .map(|i| {
            let sub_id = long_ids[i % long_ids.len().max(1)].clone();
            let token = if i % 2 == 0 { ALICE } else { ADMIN };
            // From addresses of their own: under max_connections_per_address each.
            let from = format!("127.0.2.{}:0", 1 + i % 4);
            runtime.spawn(stalled_reader(server, from, sub_id, token))
        })
        .collect();
    for id in &long_ids {
        finished_right(&base, id, 1001, &faults);
    }
    std::thread::sleep(Duration::from_secs(2));
    let rss_readers = rss_mib(pid);
    for task in readers_tasks {
        task.abort();
    }
    sampling.store(false, Ordering::Relaxed);
    let _ = sampler.join();
    let peak_all = *peak.lock().unwrap_or_else(|p| p.into_inner());
    println!();
    println!("| memory | RSS MiB |");
    println!("|---|---|");
    println!("| after the warm-up | {rss_warm:.1} |");
    println!("| at the end of the slow connections' phase | {rss_attacked:.1} |");
    println!("| after mallory's phase | {rss_mallory:.1} |");
    println!("| before the large submissions | {rss_before:.1} |");
    println!(
        "| peak while {} large submissions of {large_kib} KiB were queued and judged ({large_seconds:.0} s) | {peak_large:.1} |",
        ids.len()
    );
    println!("| after they were judged | {rss_after_large:.1} |");
    println!(
        "| {readers} stalled event-stream readers on {} finished submissions of 1,001 tasks | {rss_readers:.1} |",
        long_ids.len()
    );
    println!("| peak of the whole memory phase | {peak_all:.1} |");

    let _ = child.kill();
    let _ = child.wait();
    let faults = faults.count();
    if faults == 0 && ids.len() == large && long_ids.len() == streams {
        println!("check: every submission judged right, none lost, every hostile request 422");
    } else {
        println!("check: FAILED ({faults} faults)");
        std::process::exit(1);
    }
}
