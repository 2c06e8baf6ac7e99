//! `role = "worker"` against a real RabbitMQ node (started by the test): a platform publishes
//! Submissions to the request exchange and reads the result queue as a platform built for the
//! home system would; a worker process killed with SIGKILL mid-judging loses nothing.

use crate::common::*;
use std::net::{Ipv4Addr, TcpListener};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use verdict_contracts::JudgeStatus;
use verdict_queue::AmqpConfig;
use verdict_queue::testing::{Platform, RabbitNode};

/// The broker shared by this file's tests, or `None` (with `skipped:`) where RabbitMQ is not
/// installed; under `VERDICT_REQUIRE_SANDBOX=1` (CI) that is a failure.
pub fn node() -> Option<&'static RabbitNode> {
    static NODE: OnceLock<Option<RabbitNode>> = OnceLock::new();
    NODE.get_or_init(|| match RabbitNode::start() {
        Ok(node) => Some(node),
        Err(err) if RabbitNode::installed() || std::env::var_os("CI").is_some() => {
            panic!("{err}")
        }
        Err(err) => verdict_testkit::skip_or_fail("RabbitMQ cannot be started", err),
    })
    .as_ref()
}

/// Names of this test's own (the node is shared).
fn amqp(node: &RabbitNode, tag: &str) -> AmqpConfig {
    let mut config = AmqpConfig {
        uri: node.uri(),
        reconnect_min_ms: 50,
        reconnect_max_ms: 500,
        ..AmqpConfig::default()
    };
    config.request.queue = format!("{tag}-request");
    config.request.exchange = format!("{tag}-request-exchange");
    config.report.queue = format!("{tag}-result");
    config.report.exchange = format!("{tag}-result-exchange");
    config.batches.queue = format!("{tag}-batch-units");
    config.batches.exchange = format!("{tag}-batch-exchange");
    config
}

/// A `judge-server` process in the worker or front-end role, its base URL, killed on drop.
pub struct WorkerProcess {
    pub child: Child,
    pub url: String,
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A test's own names on a broker and a dir for the homes of its `judge-server` processes.
pub struct Cluster {
    /// The broker's address and this test's names on it.
    pub amqp: AmqpConfig,
    /// Where its processes keep their configs, logs and work dirs.
    pub dir: tempfile::TempDir,
}

impl Cluster {
    /// This test's names (`tag`) on the shared broker, or `None` (with `skipped:` printed) where
    /// RabbitMQ cannot run or the judge cannot sandbox.
    pub fn judging(tag: &str) -> Option<Cluster> {
        let node = node()?;
        judge()?;
        Some(Cluster::on(node, tag))
    }

    /// This test's names (`tag`) on `node`.
    pub fn on(node: &RabbitNode, tag: &str) -> Cluster {
        Cluster {
            amqp: amqp(node, tag),
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Starts `judge-server` `name` in `role` and waits until it is connected ([`start_role`]).
    pub fn start(&self, name: &str, role: &str) -> WorkerProcess {
        self.start_with(name, role, "")
    }

    /// Starts the front ends `front-a` and `front-b` ([`Cluster::start`]).
    pub fn two_front_ends(&self) -> [WorkerProcess; 2] {
        ["front-a", "front-b"].map(|name| self.start(name, "frontend"))
    }

    /// [`Cluster::start`] with `extra` TOML at the top of its configuration.
    pub fn start_with(&self, name: &str, role: &str, extra: &str) -> WorkerProcess {
        start_role_with(self.dir.path(), name, role, &self.amqp, true, extra)
    }
}

/// Starts `judge-server` in `role` on `amqp`'s broker; waits until it answers `/v1/health`, and
/// when `connected`, until it is connected to the broker.
pub fn start_role(
    dir: &Path,
    name: &str,
    role: &str,
    amqp: &AmqpConfig,
    connected: bool,
) -> WorkerProcess {
    start_role_with(dir, name, role, amqp, connected, "")
}

/// [`start_role`] with `extra` TOML at the top of its configuration (keys such as
/// `store_timeout_ms`, then tables such as `[[tokens]]`).
fn start_role_with(
    dir: &Path,
    name: &str,
    role: &str,
    amqp: &AmqpConfig,
    connected: bool,
    extra: &str,
) -> WorkerProcess {
    let port = free_port();
    let home = dir.join(name);
    std::fs::create_dir_all(&home).unwrap();
    let config = format!(
        r##"role = "{role}"
listen = "127.0.0.1:{port}"
workers = 1
shutdown_grace_ms = 2000
{extra}
[judge]
work_dir = {work:?}
cache_dir = {cache:?}
[amqp]
uri = {uri:?}
reconnect_min_ms = 50
reconnect_max_ms = 500
[amqp.request]
queue = {rq:?}
exchange = {rx:?}
[amqp.report]
queue = {pq:?}
exchange = {px:?}
routing_key = "#"
[amqp.batches]
queue = {bq:?}
exchange = {bx:?}
"##,
        work = home.join("work"),
        cache = home.join("cache"),
        uri = amqp.uri,
        rq = amqp.request.queue,
        rx = amqp.request.exchange,
        pq = amqp.report.queue,
        px = amqp.report.exchange,
        bq = amqp.batches.queue,
        bx = amqp.batches.exchange,
    );
    let path = home.join("server.toml");
    std::fs::write(&path, config).unwrap();
    let log = std::fs::File::create(home.join("stderr.log")).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_judge-server"))
        .arg("--config")
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let worker = WorkerProcess {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(response) = client().get(format!("{}/v1/health", worker.url)).call()
            && let Ok(body) = response.into_body().read_to_string()
            && (!connected || body.contains("\"connected\":true"))
        {
            return worker;
        }
        assert!(
            Instant::now() < deadline,
            "worker {name} did not connect: {}",
            std::fs::read_to_string(home.join("stderr.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A counter from a worker's `/metrics`.
pub fn metric(worker: &WorkerProcess, name: &str) -> u64 {
    let text = get(&format!("{}/metrics", worker.url), None).text;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} not in /metrics"))
}

/// Polls a counter of `server`'s `/metrics` until `done` holds for it (at most 180 s).
pub fn poll_metric(server: &WorkerProcess, name: &str, done: impl Fn(u64) -> bool) -> u64 {
    poll_until(Duration::from_secs(180), Duration::from_millis(20), || {
        let value = metric(server, name);
        if done(value) {
            Ok(value)
        } else {
            Err(format!("timed out waiting for {name}: {value}"))
        }
    })
}

/// A runtime on this thread for the platform's async client.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_worker_killed_mid_judging_loses_nothing() {
    let Some(cluster) = Cluster::judging("killed") else {
        return;
    };
    let rt = runtime();
    let mut first = Some(cluster.start("first", "worker"));
    let mut platform = rt.block_on(Platform::connect(&cluster.amqp)).unwrap();
    let submission = a_plus_b("doomed", "oj", &sleepy_a_plus_b(2)).to_string();
    rt.block_on(platform.publish(&submission)).unwrap();
    // The compile task's report: the first worker is judging the tests now.
    let (report, key) = rt
        .block_on(platform.next_report(Duration::from_secs(120)))
        .expect("a first report");
    assert_eq!((report.sub_id.as_str(), key.as_str()), ("doomed", "oj"));
    assert_eq!(report.results[0].status, JudgeStatus::Accepted);
    assert_eq!(report.results[1].status, JudgeStatus::Pending);
    // SIGKILL, as a crash would; then another worker comes.
    let mut killed = first.take().unwrap();
    killed.child.kill().unwrap();
    killed.child.wait().unwrap();
    let second = cluster.start("second", "worker");
    let final_report = loop {
        let (report, _) = rt
            .block_on(platform.next_report(Duration::from_secs(120)))
            .expect("the second worker's reports");
        if verdict_queue::is_final(&report) {
            break report;
        }
    };
    assert_eq!(final_report.sub_id, "doomed");
    let statuses: Vec<_> = final_report.results.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [JudgeStatus::Accepted; 3]);
    assert_eq!(metric(&second, "verdict_amqp_redeliveries_total"), 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    while metric(&second, "verdict_amqp_acks_total") != 1 {
        assert!(
            Instant::now() < deadline,
            "the redelivered request is acked"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_worker_reports_an_invalid_request_and_judges_a_valid_one() {
    let Some(cluster) = Cluster::judging("worker-role") else {
        return;
    };
    let rt = runtime();
    let worker = cluster.start("only", "worker");
    let health = get(&format!("{}/v1/health", worker.url), None).json();
    assert_eq!(health["role"], "worker");
    assert_eq!(health["status"], "ok");
    // The worker's answer is the documented one (it once lacked queue_length and accepting).
    let document = verdict_judge_server::openapi_document();
    assert_matches_document(&document, "Health", &health);
    assert_eq!(health["accepting"], true);
    let mut platform = rt.block_on(Platform::connect(&cluster.amqp)).unwrap();
    rt.block_on(platform.publish("{\"sub_id\": \"broken\"}"))
        .unwrap();
    rt.block_on(platform.publish(&a_plus_b("fine", "oj", A_PLUS_B).to_string()))
        .unwrap();
    let (invalid, _) = rt
        .block_on(platform.next_report(Duration::from_secs(120)))
        .unwrap();
    assert_eq!(invalid.sub_id, "broken");
    assert!(invalid.results.is_empty());
    assert!(invalid.message.is_some_and(|m| !m.is_empty()));
    // A report after each task but the last (compile, first test), then the complete one once.
    let mut reports = Vec::new();
    for _ in 0..3 {
        let (report, _) = rt
            .block_on(platform.next_report(Duration::from_secs(120)))
            .unwrap();
        assert_eq!(report.sub_id, "fine");
        reports.push(report);
    }
    assert!(!verdict_queue::is_final(&reports[0]));
    assert!(!verdict_queue::is_final(&reports[1]));
    let statuses: Vec<_> = reports[2].results.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [JudgeStatus::Accepted; 3]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while metric(&worker, "verdict_amqp_acks_total") != 2 {
        assert!(Instant::now() < deadline, "both requests are acked");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(metric(&worker, "verdict_amqp_invalid_total"), 1);
    assert_eq!(metric(&worker, "verdict_amqp_deliveries_total"), 2);
}
