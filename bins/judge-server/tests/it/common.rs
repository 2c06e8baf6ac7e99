//! What the server tests share: one judge per test binary, a server on 127.0.0.1 per test, a
//! blocking HTTP client, and the submissions they send.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::time::Duration;
use verdict_judge_server::ServerConfig;
use verdict_scheduler::Judge;
use verdict_testkit::process::spawn_until_address;
use verdict_testkit::server::InProcessServer;
use verdict_testkit::submission::{A_PLUS_B_TESTS, SubmissionJson};

/// The judge this test binary shares (the test kit's), or `None` (with `skipped:` printed) when
/// this host cannot sandbox; under `VERDICT_REQUIRE_SANDBOX=1` that is a failure instead.
pub fn judge() -> Option<Judge> {
    verdict_testkit::judge().cloned()
}

/// A server on 127.0.0.1 (a free port) with its own runtime thread (the test kit's
/// [`InProcessServer`]), with the data and judge dirs it was given; shut down on drop.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    server: InProcessServer,
    _data_dir: Option<tempfile::TempDir>,
    _judge_dir: Option<tempfile::TempDir>,
}

impl TestServer {
    /// Starts a server with `config` and a fresh data dir (its `judge` table is ignored: the
    /// shared judge is used), or `None` when the judge cannot be set up here.
    pub fn start(mut config: ServerConfig) -> Option<TestServer> {
        let data_dir = tempfile::tempdir().expect("temp dir");
        config.data_dir = data_dir.path().to_owned();
        let mut server = TestServer::start_keeping_data(config)?;
        server._data_dir = Some(data_dir);
        Some(server)
    }

    /// Starts a server with `config`, a fresh data dir and a judge of its own: for tests that
    /// read the judge's run slots (`verdict_running_tasks`), which the shared judge's other
    /// users (the tests running beside) would move.
    pub fn start_with_own_judge(config: ServerConfig) -> Option<TestServer> {
        TestServer::start_with_judge_config(config, |judge| judge)
    }

    /// [`TestServer::start_with_own_judge`] with the judge's config changed by `judge`.
    pub fn start_with_judge_config(
        mut config: ServerConfig,
        judge: impl FnOnce(verdict_scheduler::JudgeConfig) -> verdict_scheduler::JudgeConfig,
    ) -> Option<TestServer> {
        let data_dir = tempfile::tempdir().expect("temp dir");
        config.data_dir = data_dir.path().to_owned();
        let (judge, judge_dir) = verdict_testkit::judge_with(judge)?;
        let mut server = TestServer::start_on(config, judge);
        server._data_dir = Some(data_dir);
        server._judge_dir = Some(judge_dir);
        Some(server)
    }

    /// Starts a server with `config` as it is, its `data_dir` included.
    pub fn start_keeping_data(config: ServerConfig) -> Option<TestServer> {
        Some(TestServer::start_on(config, judge()?))
    }

    /// Starts a server with `config` as it is on `judge`.
    fn start_on(config: ServerConfig, judge: Judge) -> TestServer {
        let server = InProcessServer::start(config, judge);
        TestServer {
            addr: server.addr(),
            server,
            _data_dir: None,
            _judge_dir: None,
        }
    }

    /// A URL on this server.
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// Starts the graceful shutdown.
    pub fn begin_shutdown(&self) {
        self.server.begin_shutdown();
    }

    /// Shuts down and waits for the server to finish, at most `limit`; whether it did.
    pub fn stop(self, limit: Duration) -> bool {
        self.server.stop(limit)
    }
}

/// A small server config for tests.
pub fn config() -> ServerConfig {
    ServerConfig {
        workers: 2,
        queue_capacity: 16,
        max_body_kb: 64,
        request_timeout_ms: 60_000,
        shutdown_grace_ms: 30_000,
        ..ServerConfig::default()
    }
}

/// Whether the toolchains of `languages` are installed here. A missing one is a failure when
/// `VERDICT_REQUIRE_LANGS` names its language (CI names those it installs), else the test
/// prints `skipped:` and passes, as the judge's language tests do.
#[allow(clippy::print_stdout)]
pub fn toolchains_installed(languages: &[verdict_contracts::Language]) -> bool {
    let required = std::env::var("VERDICT_REQUIRE_LANGS").unwrap_or_default();
    let profiles = verdict_scripts::LanguageProfiles::builtin().expect("built-in profiles");
    for language in languages {
        let Some(profile) = profiles.get(*language) else {
            panic!("no built-in profile for {language}");
        };
        let missing = verdict_scripts::missing_programs(profile);
        if missing.is_empty() {
            continue;
        }
        assert!(
            !required.split(',').any(|l| l.trim() == language.as_str()),
            "VERDICT_REQUIRE_LANGS names {language} but {} is not installed",
            missing.join(", ")
        );
        println!("skipped: {language}: {} not installed", missing.join(", "));
        return false;
    }
    true
}

/// A blocking HTTP client that treats every status as a response.
pub fn client() -> ureq::Agent {
    client_waiting(Duration::from_secs(60))
}

/// A client that gives up on a request after `limit` (and closes its connection).
pub fn client_waiting(limit: Duration) -> ureq::Agent {
    verdict_testkit::http::agent(limit)
}

/// Judges A+B in C (`sub_id` "quick", category `oj`) through `POST /v1/judge` at `judge_url`
/// with `token` and checks it is Accepted within `within`: the server had a worker free.
pub fn judged_at_once(judge_url: &str, token: Option<&str>, within: Duration) {
    let started = std::time::Instant::now();
    let judged = post(
        judge_url,
        token,
        &a_plus_b("quick", "oj", A_PLUS_B).to_string(),
    );
    assert_eq!(judged.status, 200, "{}", judged.text);
    assert_eq!(
        statuses(&judged.json()),
        ["Accepted", "Accepted", "Accepted"]
    );
    assert!(
        started.elapsed() < within,
        "judged in {:?}",
        started.elapsed()
    );
}

/// A python function suite of 30 cases that each loop until their 3 s: 90 s of work.
pub fn endless_suite() -> String {
    let cases: Vec<Value> = (0..30)
        .map(|i| json!({"name": format!("loop-{i}"), "input": [i], "expected": i}))
        .collect();
    json!({"deliverable_type": "function", "language": "python3",
        "entry_point": "f", "timeout_ms": 3_000,
        "source_files": [{"type": "text", "name": "solution.py",
            "text": "def f(x):\n    while True:\n        pass\n"}],
        "test_cases": cases})
    .to_string()
}

/// A python function suite of one quick passing case.
pub fn quick_suite() -> String {
    quick_suite_json().to_string()
}

/// [`quick_suite`] as JSON.
pub fn quick_suite_json() -> Value {
    json!({"deliverable_type": "function", "language": "python3",
        "entry_point": "add", "source_files": python_add_files(),
        "test_cases": [{"name": "small", "input": [1, 2], "expected": 3}]})
}

/// `solution.py` defining a right `add(a, b)`, as a deliverable's `source_files`.
pub fn python_add_files() -> Value {
    json!([{"type": "text", "name": "solution.py", "text": "def add(a, b):\n    return a + b\n"}])
}

/// A response read whole.
#[derive(Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers, lower-case names.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub text: String,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    /// Checks this answer is `status`, an error naming `field` (`error.field`).
    pub fn assert_refused(&self, status: u16, field: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.json()["error"]["field"], field, "{}", self.text);
    }

    /// Checks this answer is `status`, an error of the code `code` (`error.code`).
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(self.json()["error"]["code"], code, "{}", self.text);
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response read whole (every status is a response).
pub fn reply(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut response = response.expect("an HTTP response");
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let text = response
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .expect("a body");
    Reply {
        status,
        headers,
        text,
    }
}

/// GET `url` with an optional bearer token.
pub fn get(url: &str, token: Option<&str>) -> Reply {
    let mut request = client().get(url);
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    reply(request.call())
}

/// POST `body` to `url` with an optional bearer token.
pub fn post(url: &str, token: Option<&str>, body: &str) -> Reply {
    let mut request = client()
        .post(url)
        .header("Content-Type", "application/json");
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    reply(request.send(body))
}

/// One Server-Sent Event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    /// `event:`.
    pub event: String,
    /// `data:`, as JSON.
    pub data: Value,
}

/// Reads an event stream to its end.
pub fn read_events(url: &str, token: Option<&str>) -> (u16, Vec<SseEvent>) {
    let mut request = client().get(url);
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let response = request.call().expect("an HTTP response");
    let status = response.status().as_u16();
    if status != 200 {
        return (status, Vec::new());
    }
    let mut events = Vec::new();
    for_each_sse(
        BufReader::new(response.into_body().into_reader()),
        |event, data| events.push(SseEvent { event, data }),
    );
    (status, events)
}

/// Reads Server-Sent Events from `reader` to the stream's end, giving each event's name and
/// JSON data to `each` as it arrives; comments (keep-alives) are skipped.
pub fn for_each_sse(reader: impl BufRead, mut each: impl FnMut(String, Value)) {
    let (mut event, mut data) = (String::new(), String::new());
    for line in reader.lines() {
        let line = line.expect("a line of the stream before it ends");
        if line.is_empty() {
            if !data.is_empty() {
                let value = serde_json::from_str(&data)
                    .unwrap_or_else(|e| panic!("data: not JSON ({e}): {data}"));
                each(std::mem::take(&mut event), value);
            }
            data.clear();
            event.clear();
        } else if let Some(rest) = line.strip_prefix("event:") {
            event = rest.trim().to_owned();
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push_str(rest.trim_start());
        }
    }
}

/// The A+B problem's submission in C, with a compile task and two standard tests.
pub fn a_plus_b(sub_id: &str, category: &str, source: &str) -> Value {
    SubmissionJson::a_plus_b(sub_id)
        .category(category)
        .source(source)
        .tests(A_PLUS_B_TESTS)
        .limit("memory_limit", 65536)
        .limit("proc_limit", 4)
        .build()
}

/// POSTs `submission` to `/v1/submissions` and to `/v1/judge`, which must both refuse it with
/// 422 naming `field` and the contract's report (no results) whose message says `says`: the
/// two refusals' bodies.
pub fn refused_by_both(
    server: &TestServer,
    submission: &Value,
    field: &str,
    says: &str,
) -> [Value; 2] {
    ["/v1/submissions", "/v1/judge"].map(|path| {
        let reply = post(&server.url(path), None, &submission.to_string());
        assert_eq!(reply.status, 422, "{path}: {}", reply.text);
        let body = reply.json();
        assert_eq!(body["error"]["field"], field, "{body}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{path}: {body}");
        assert_eq!(body["results"], json!([]), "the contract's report: {body}");
        body
    })
}

/// A correct A+B in C++.
pub const A_PLUS_B_CPP: &str =
    "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<std::endl;}\n";

/// One API key, `key`, for `category`: the keys of a compatible API.
pub fn api_keys(key: &str, category: &str) -> Vec<verdict_judge_server::ApiKey> {
    vec![verdict_judge_server::ApiKey {
        key: key.into(),
        category: category.into(),
    }]
}

/// A correct A+B in C.
pub use verdict_testkit::submission::A_PLUS_B_C as A_PLUS_B;

/// An A+B in C that sleeps `secs` (wall time, little CPU) before answering.
pub fn sleepy_a_plus_b(secs: u32) -> String {
    format!(
        "#include <stdio.h>\n#include <unistd.h>\nint main(){{int a,b;sleep({secs});if(scanf(\"%d%d\",&a,&b)!=2)return 1;printf(\"%d\\n\",a+b);return 0;}}\n"
    )
}

/// The statuses of a report.
pub fn statuses(report: &Value) -> Vec<String> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["status"].as_str().expect("status").to_owned())
        .collect()
}

/// Checks `instance` against `components/schemas/<name>` of the server's own OpenAPI document.
pub fn assert_matches_openapi(server: &TestServer, name: &str, instance: &Value) {
    let doc = get(&server.url("/v1/openapi.json"), None).json();
    assert_matches_document(&doc, name, instance);
}

/// Checks `instance` against `components/schemas/<name>` of `doc`, an OpenAPI document.
pub fn assert_matches_document(doc: &Value, name: &str, instance: &Value) {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/components/schemas/{name}"),
        "components": doc["components"],
    });
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{instance}");
}

/// How long a started `judge-server` may take to log its address.
const LOGS_ADDRESS_WITHIN: Duration = Duration::from_secs(60);

/// A `judge-server` process started from the built binary; killed (SIGKILL) on drop.
pub struct ServerProcess {
    /// The process.
    pub child: std::process::Child,
    /// `http://address` it listens on.
    pub base: String,
    /// Its log lines so far are collected here until the process ends.
    pub log: std::thread::JoinHandle<Vec<String>>,
}

impl ServerProcess {
    /// Its resident memory in KiB (`VmRSS` of `/proc/<pid>/status`).
    pub fn rss_kib(&self) -> u64 {
        let pid = self.child.id();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// Starts `judge-server --config <config>` and waits until it logs its address.
    pub fn start(config: &std::path::Path) -> ServerProcess {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_judge-server"));
        let started = spawn_until_address(command.arg("--config").arg(config), LOGS_ADDRESS_WITHIN);
        ServerProcess {
            child: started.child,
            base: format!("http://{}", started.address),
            log: started.log,
        }
    }

    /// A URL on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// SIGKILL (unless it has exited), and its log.
    pub fn kill9(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let log = std::mem::replace(&mut self.log, std::thread::spawn(Vec::new));
        log.join().unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of an unlabelled gauge in `/metrics` text.
pub fn gauge(metrics: &str, name: &str) -> Option<f64> {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// A C program that spins until its time limit.
pub const SPIN: &str = "int main(){volatile unsigned long n=0;for(;;)n++;}\n";

/// A+B's submission (category `oj`) of a compile task and `tests` tests of [`SPIN`] on the first
/// test's data, each limited to `time_limit_ms`: work that lasts until it is stopped.
pub fn long_spin(sub_id: &str, tests: usize, time_limit_ms: u64) -> Value {
    let mut submission = a_plus_b(sub_id, "oj", SPIN);
    let mut test = submission["judge_tasks"][1].clone();
    test["time_limit"] = json!(time_limit_ms);
    let tasks = submission["judge_tasks"].as_array_mut().expect("tasks");
    tasks.truncate(1);
    tasks.extend((0..tests).map(|_| test.clone()));
    submission
}

/// DELETE `url`, with a bearer token if one is given.
pub fn delete(url: &str, token: Option<&str>) -> Reply {
    let mut request = client().delete(url);
    if let Some(token) = token {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    reply(request.call())
}

/// DELETEs the running submission at `url`, which must answer its final report within 5 s, a
/// report in which the judge stopped a running test: the report.
pub fn cancelled_at_once(url: &str, token: Option<&str>) -> Value {
    let asked = std::time::Instant::now();
    let cancelled = delete(url, token);
    let took = asked.elapsed();
    assert_eq!(cancelled.status, 200, "{}", cancelled.text);
    assert_eq!(
        cancelled.header("verdict-complete"),
        Some("true"),
        "the report after {took:?}: {}",
        cancelled.text
    );
    assert!(took < Duration::from_secs(5), "the cancel took {took:?}");
    let report = cancelled.json();
    assert!(stopped_running(&report) >= 1, "{report}");
    report
}

/// Whether every result from `from` on is `System Error` with a `cancelled: ...` log.
pub fn all_cancelled(report: &Value, from: usize) -> bool {
    cancelled_results(report, from) == report["results"].as_array().expect("results").len() - from
}

/// How many results from `from` on are `System Error` with a `cancelled: ...` log.
pub fn cancelled_results(report: &Value, from: usize) -> usize {
    report["results"].as_array().expect("results")[from..]
        .iter()
        .filter(|r| {
            r["status"] == "System Error"
                && r["error_log"]
                    .as_str()
                    .is_some_and(|l| l.starts_with("cancelled: "))
        })
        .count()
}

/// How many results from the first test on the judge stopped while they ran (a cancel's own
/// log, [`verdict_scheduler::CANCELLED_RUNNING`]).
pub fn stopped_running(report: &Value) -> usize {
    report["results"].as_array().expect("results")[1..]
        .iter()
        .filter(|r| r["error_log"] == verdict_scheduler::CANCELLED_RUNNING)
        .count()
}

/// Waits (at most `limit`) until the submission at `url` has its first task, the compile,
/// Accepted: its tests are being judged.
pub fn wait_compiled(url: &str, token: Option<&str>, limit: Duration) {
    poll_until(limit, Duration::from_millis(100), || {
        let report = get(url, token).json();
        if report["results"][0]["status"] == "Accepted" {
            Ok(())
        } else {
            Err(report.to_string())
        }
    });
}

/// Polls `GET url` (with `token`) every `every` until what is there is finished (`200` with
/// `verdict-state: finished`), failing after `limit`: the finished reply.
pub fn wait_finished(url: &str, token: Option<&str>, limit: Duration, every: Duration) -> Reply {
    poll_until(limit, every, || {
        let reply = get(url, token);
        if reply.status == 200 && reply.header("verdict-state") == Some("finished") {
            Ok(reply)
        } else {
            let state = reply.header("verdict-state").unwrap_or("-");
            Err(format!("{url} not finished: {} ({state})", reply.status))
        }
    })
}

/// Polls `GET url` every 20 ms until `done` holds for the reply, failing after `limit` naming
/// `what` it waited for.
pub fn poll_get(url: &str, what: &str, limit: Duration, done: impl Fn(&Reply) -> bool) -> Reply {
    poll_until(limit, Duration::from_millis(20), || {
        let reply = get(url, None);
        if done(&reply) {
            Ok(reply)
        } else {
            Err(format!(
                "timed out waiting for {what}: {} {}",
                reply.status, reply.text
            ))
        }
    })
}

/// Polls `check` every `every` until it gives a value, failing with what it said last after
/// `limit`.
pub fn poll_until<T>(
    limit: Duration,
    every: Duration,
    mut check: impl FnMut() -> Result<T, String>,
) -> T {
    let start = std::time::Instant::now();
    loop {
        match check() {
            Ok(value) => return value,
            Err(last) => assert!(
                start.elapsed() < limit,
                "after {:?}: {last}",
                start.elapsed()
            ),
        }
        std::thread::sleep(every);
    }
}
