//! Scale-out bench (numbers, not a timed test): a private RabbitMQ node, two `judge-server`
//! processes in the worker role, `AMQP_SUBMISSIONS` (default 300) A+B submissions published as
//! a home-system platform would; after a third of the final reports one worker is killed with
//! SIGKILL. Prints how many final reports arrived and were correct, how many submissions were
//! redelivered and re-reported, and the throughput.
//!
//! `cargo bench -p verdict-judge-server --bench amqp`

#![allow(clippy::print_stdout)]

use std::collections::HashMap;
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use verdict_contracts::JudgeStatus;
use verdict_queue::AmqpConfig;
use verdict_queue::testing::{Platform, RabbitNode};
use verdict_testkit::submission::{A_PLUS_B_TESTS, SubmissionJson};

/// A+B in C on two tests.
fn submission(sub_id: &str) -> String {
    SubmissionJson::a_plus_b(sub_id)
        .tests(A_PLUS_B_TESTS)
        .text()
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start_worker(dir: &Path, name: &str, amqp: &AmqpConfig) -> (Child, u16) {
    let port = free_port();
    let home = dir.join(name);
    std::fs::create_dir_all(&home).expect("worker dir");
    let config = format!(
        "role = \"worker\"\nlisten = \"127.0.0.1:{port}\"\nworkers = 1\n[judge]\nwork_dir = {:?}\ncache_dir = {:?}\n[amqp]\nuri = {:?}\n",
        home.join("work"),
        home.join("cache"),
        amqp.uri
    );
    std::fs::write(home.join("server.toml"), config).expect("config");
    let child = Command::new(env!("CARGO_BIN_EXE_judge-server"))
        .arg("--config")
        .arg(home.join("server.toml"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(home.join("stderr.log")).expect("log"))
        .spawn()
        .expect("judge-server");
    (child, port)
}

fn health_connected(port: u16) -> bool {
    std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok_and(|mut s| {
        use std::io::{Read, Write};
        let _ = s.write_all(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        text.contains("\"connected\":true")
    })
}

fn metric(port: u16, name: &str) -> Option<u64> {
    let mut stream = std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).ok()?;
    use std::io::{Read, Write};
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[derive(Default)]
struct Seen {
    reports: u32,
    finished_max: usize,
    restarted: bool,
    complete: bool,
    correct: bool,
}

fn main() {
    let total: usize = std::env::var("AMQP_SUBMISSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let node = RabbitNode::start().expect("a RabbitMQ node (scripts/setup.sh --deps-only)");
    let amqp = AmqpConfig {
        uri: node.uri(),
        ..AmqpConfig::default()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut doomed, doomed_port) = start_worker(dir.path(), "doomed", &amqp);
    let (mut survivor, survivor_port) = start_worker(dir.path(), "survivor", &amqp);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !(health_connected(doomed_port) && health_connected(survivor_port)) {
        assert!(Instant::now() < deadline, "workers did not connect");
        std::thread::sleep(Duration::from_millis(50));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut platform = rt.block_on(Platform::connect(&amqp)).expect("platform");
    let started = Instant::now();
    for i in 0..total {
        rt.block_on(platform.publish(&submission(&format!("bench-{i}"))))
            .expect("publish");
    }
    println!(
        "published {total} submissions in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut seen: HashMap<String, Seen> = HashMap::new();
    let mut finals = 0usize;
    let mut killed = false;
    while finals < total {
        let Some((report, _)) = rt.block_on(platform.next_report(Duration::from_secs(300))) else {
            println!("no report for 300 s; giving up");
            break;
        };
        let entry = seen.entry(report.sub_id.clone()).or_default();
        entry.reports += 1;
        let finished = report
            .results
            .iter()
            .filter(|r| r.status != JudgeStatus::Pending)
            .count();
        if finished < entry.finished_max {
            entry.restarted = true;
        }
        entry.finished_max = entry.finished_max.max(finished);
        if finished == report.results.len() {
            // The last task's report and the final one are both complete: count the first.
            if !entry.complete {
                finals += 1;
            }
            entry.complete = true;
            entry.correct = report
                .results
                .iter()
                .all(|r| r.status == JudgeStatus::Accepted);
        }
        if !killed && finals >= total / 3 {
            let _ = doomed.kill();
            let _ = doomed.wait();
            killed = true;
            println!(
                "killed one worker (SIGKILL) after {finals} final reports, {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let correct = seen.values().filter(|s| s.correct).count();
    let restarted = seen.values().filter(|s| s.restarted).count();
    let redelivered = metric(survivor_port, "verdict_amqp_redeliveries_total").unwrap_or(0);
    println!("final reports:        {finals} of {total} ({correct} correct: every task Accepted)");
    println!(
        "redelivered (broker): {redelivered} (the survivor's verdict_amqp_redeliveries_total)"
    );
    println!(
        "re-reported:          {restarted} submissions whose reports started over (judged again)"
    );
    println!(
        "time:                 {elapsed:.1} s, {:.1} submissions/s",
        finals as f64 / elapsed
    );
    let _ = survivor.kill();
    let _ = survivor.wait();
    drop(node);
}
