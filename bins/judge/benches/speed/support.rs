//! What the speed bench needs around its measurements: the submissions, an in-process
//! judge-server, bare runs, processes with their peak RSS, and the collector of the judge's
//! per-phase timings (`verdict_scripts::timing`).

use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use verdict_judge_server::ServerConfig;
use verdict_scheduler::{Judge, JudgeConfig};
use verdict_scripts::timing::TARGET;
use verdict_testkit::server::InProcessServer;

/// The A+B source; `salt` changes its text (a comment), so the build cache never serves it.
pub fn source(salt: usize) -> String {
    format!(
        "/* {salt} */\n#include <stdio.h>\nint main(void) {{\n  long long a, b;\n  if (scanf(\"%lld %lld\", &a, &b) != 2) return 1;\n  printf(\"%lld\\n\", a + b);\n  return 0;\n}}\n"
    )
}

/// A compile task and `tests` standard tests (diff-ign-space) of the A+B source.
pub fn submission(sub_id: &str, tests: usize, salt: usize) -> String {
    let mut tasks = vec![json!({"check_script": "compile", "time_limit": 10000, "depends_on": -1})];
    let mut data = Vec::new();
    for k in 0..tests {
        tasks.push(json!({"check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "testcase_id": k, "depends_on": 0,
            "depends_cond": "ACCEPTED", "time_limit": 1000, "memory_limit": 65536,
            "file_limit": 1024, "proc_limit": 5}));
        let (a, b) = (k as i64 * 7919, k as i64 * 104_729);
        data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": format!("{a} {b}\n")}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": format!("{}\n", a + b)}]}));
    }
    json!({"sub_type": "programming", "category": "bench", "prob_id": format!("aplusb-{tests}"),
        "sub_id": sub_id, "updated_at": 1, "judge_tasks": tasks, "test_data": data,
        "submission": {"type": "source_code", "language": "c",
            "source_files": [{"type": "text", "name": "main.c", "text": source(salt)}]}})
    .to_string()
}

/// How long `f` took.
pub fn timed(f: impl FnOnce()) -> Duration {
    let started = Instant::now();
    f();
    started.elapsed()
}

/// The median.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// Milliseconds with one decimal (two below 1 ms).
pub fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// The machine's load when measured (the 1-minute load average and the cores).
pub struct Machine {
    load: String,
    cores: usize,
}

impl Machine {
    /// Now.
    pub fn now() -> Machine {
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        Machine {
            load: load
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" "),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl std::fmt::Display for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "machine: {} cores, load average {}",
            self.cores, self.load
        )
    }
}

/// Bare runs of a program on a stdin file, outside any sandbox.
pub struct BareRuns {
    /// Each run's wall time.
    pub per_run: Vec<Duration>,
    /// The wall time of them all.
    pub total: Duration,
}

/// `runs` bare runs of `program` (stdin from `input`), spread over `threads` threads.
pub fn bare_runs(program: &Path, input: &Path, runs: usize, threads: usize) -> BareRuns {
    let next = AtomicUsize::new(0);
    let per_run = Mutex::new(Vec::with_capacity(runs));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while next.fetch_add(1, Ordering::Relaxed) < runs {
                    let stdin = std::fs::File::open(input).expect("input");
                    let t = Instant::now();
                    let out = Command::new(program)
                        .stdin(stdin)
                        .output()
                        .expect("bare run");
                    let took = t.elapsed();
                    assert!(out.status.success(), "bare run failed");
                    per_run.lock().expect("lock").push(took);
                }
            });
        }
    });
    BareRuns {
        total: started.elapsed(),
        per_run: per_run.into_inner().expect("lock"),
    }
}

/// Runs a command to completion; its stdout. Panics when it cannot start or is killed.
pub fn run_process(cmd: &mut Command) -> String {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .expect("start process");
    assert!(out.status.code().is_some(), "{cmd:?} was killed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a command to completion: its stdout and the largest VmHWM (KiB) seen while it ran
/// (read every 2 ms; VmHWM only grows, so the last reading is close to the peak).
pub fn run_process_peak(cmd: &mut Command) -> (String, u64) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start process");
    let pid = child.id();
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let mut peak = 0;
    loop {
        peak = peak.max(status_kb(&format!("/proc/{pid}/status"), "VmHWM:"));
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    (reader.join().expect("reader"), peak)
}

fn status_kb(path: &str, key: &str) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// This process's resident memory now (KiB).
pub fn own_rss_kb() -> u64 {
    status_kb("/proc/self/status", "VmRSS:")
}

/// A judge-server in this process on 127.0.0.1 (the test kit's), stopped on drop.
pub struct Server {
    base: String,
    agent: ureq::Agent,
    _server: InProcessServer,
}

static SERVERS: AtomicUsize = AtomicUsize::new(0);

impl Server {
    /// Starts one under `dir` (the judge's default config, plus `cache_builds`); `None` (after
    /// saying why) when the judge cannot be set up here.
    pub fn start(dir: &Path, cache_builds: bool) -> Option<Server> {
        let dir = dir.join(format!("server{}", SERVERS.fetch_add(1, Ordering::Relaxed)));
        let judge_config = JudgeConfig {
            work_dir: dir.join("work"),
            cache_dir: dir.join("cache"),
            require_isolation: true,
            cache_submission_builds: cache_builds,
            ..JudgeConfig::default()
        };
        let judge = match Judge::new(judge_config) {
            Ok(judge) => judge,
            Err(err) => {
                println!("skipped: the judge cannot be set up here: {err}");
                return None;
            }
        };
        let config = ServerConfig {
            queue_capacity: 4096,
            data_dir: dir.join("data"),
            ..ServerConfig::default()
        };
        let server = InProcessServer::start(config, judge);
        let agent = ureq::Agent::new_with_config(
            ureq::config::Config::builder()
                .http_status_as_error(false)
                .proxy(None)
                .timeout_global(Some(Duration::from_secs(600)))
                .build(),
        );
        Some(Server {
            base: server.url(""),
            agent,
            _server: server,
        })
    }

    /// POSTs `body` to `path`: the status and the body.
    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        let mut response = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("Content-Type", "application/json")
            .send(body)
            .expect("the server answers");
        let text = response.body_mut().read_to_string().unwrap_or_default();
        (response.status().as_u16(), text)
    }

    /// Judges a submission of `tests` tests through `POST /v1/judge`; asserts every task is
    /// Accepted.
    pub fn judge(&self, body: &str, tests: usize) {
        let (status, text) = self.post("/v1/judge", body);
        assert_eq!(status, 200, "{text}");
        let accepted = text.matches("\"Accepted\"").count();
        assert_eq!(accepted, tests + 1, "not all Accepted: {text}");
    }
}

/// One recorded phase.
#[derive(Debug, Clone)]
pub struct PhaseTime {
    /// Its name.
    pub phase: String,
    /// Its task (-1: the submission's own phases).
    pub task: i64,
    /// How long it took.
    pub took: Duration,
}

/// The tracing layer that records the judge's timing events while switched on.
struct Layer {
    on: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<PhaseTime>>>,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Layer {
    fn register_callsite(
        &self,
        meta: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        if meta.target() == TARGET {
            tracing::subscriber::Interest::sometimes()
        } else {
            tracing::subscriber::Interest::never()
        }
    }

    fn enabled(&self, meta: &tracing::Metadata<'_>, _: Context<'_, S>) -> bool {
        meta.target() == TARGET && self.on.load(Ordering::Relaxed)
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut fields = Fields {
            phase: String::new(),
            task: -1,
            us: 0,
        };
        event.record(&mut fields);
        self.seen.lock().expect("lock").push(PhaseTime {
            phase: fields.phase,
            task: fields.task,
            took: Duration::from_micros(fields.us),
        });
    }
}

struct Fields {
    phase: String,
    task: i64,
    us: u64,
}

impl Visit for Fields {
    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "phase" {
            self.phase = value.to_owned();
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        if field.name() == "task" {
            self.task = value;
        }
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "us" => self.us = value,
            "task" => self.task = value as i64,
            _ => {}
        }
    }
}

/// The judge's per-phase timings, collected on demand (off otherwise).
pub struct Timings {
    on: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<PhaseTime>>>,
}

impl Timings {
    /// Installs the collector as the process's subscriber (off until [`Timings::collect`]).
    pub fn install() -> Timings {
        let on = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let layer = Layer {
            on: on.clone(),
            seen: seen.clone(),
        };
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .expect("the bench's subscriber");
        Timings { on, seen }
    }

    /// Runs `f` with timings on: its result and the phases recorded meanwhile.
    pub fn collect<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<PhaseTime>) {
        self.seen.lock().expect("lock").clear();
        self.on.store(true, Ordering::Relaxed);
        let out = f();
        self.on.store(false, Ordering::Relaxed);
        (out, std::mem::take(&mut *self.seen.lock().expect("lock")))
    }
}

/// The order phases are printed in, per submission and per task.
const SUBMISSION_PHASES: &[&str] = &[
    "judge.new",
    "sandbox.new",
    "judge",
    "validate",
    "plan",
    "open",
    "report",
    "sandbox.warm",
    "data.prefill",
    "server.start",
    "server.finish",
    "judge.drop",
    "runtime.drop",
];
const TASK_PHASES: &[&str] = &[
    "task.handoff",
    "compile.sources",
    "compile.box",
    "compile.sandbox",
    "compile.seal",
    "test.prepare",
    "run.box",
    "run.sandbox",
    "test.check",
    "test.discard",
];

/// The phases a `judge` process logged on stderr (`VERDICT_LOG=verdict::timing=trace`).
pub fn parse_phases(stderr: &str) -> Vec<PhaseTime> {
    let field = |line: &str, key: &str| -> Option<String> {
        let (_, rest) = line.split_once(key)?;
        let value = rest.split_whitespace().next()?;
        Some(value.trim_matches('"').to_owned())
    };
    stderr
        .lines()
        .filter(|line| line.contains(TARGET))
        .filter_map(|line| {
            Some(PhaseTime {
                phase: field(line, "phase=")?,
                task: field(line, "task=")?.parse().ok()?,
                took: Duration::from_micros(field(line, "us=")?.parse().ok()?),
            })
        })
        .collect()
}

/// One judging's phases: task (-1: the submission's own) -> phase -> time (summed).
type Breakdown = BTreeMap<i64, BTreeMap<String, Duration>>;

fn breakdown(phases: &[PhaseTime]) -> Breakdown {
    let mut tasks = Breakdown::new();
    for p in phases {
        *tasks
            .entry(p.task)
            .or_default()
            .entry(p.phase.clone())
            .or_default() += p.took;
    }
    tasks
}

/// Prints the median breakdown of several judgings of one submission (`what`; `runs` holds
/// each one's wall time as its client saw it and its phases): the submission's own phases,
/// what is outside the judge (`outside` names it), then a line per task; each figure is the
/// median over the runs.
pub fn print_breakdown(what: &str, outside: &str, runs: &[(Duration, Vec<PhaseTime>)]) {
    let all: Vec<Breakdown> = runs.iter().map(|(_, p)| breakdown(p)).collect();
    let mut tasks = Breakdown::new();
    for b in &all {
        for (task, phases) in b {
            for name in phases.keys() {
                let times = all
                    .iter()
                    .map(|b| {
                        b.get(task)
                            .and_then(|p| p.get(name))
                            .copied()
                            .unwrap_or_default()
                    })
                    .collect();
                tasks
                    .entry(*task)
                    .or_default()
                    .insert(name.clone(), median(times));
            }
        }
    }
    let wall = median(runs.iter().map(|(w, _)| *w).collect());
    println!(
        "per-phase breakdown of {what}, median of {} (ms):",
        runs.len()
    );
    println!("  wall: {}", ms(wall));
    if let Some(own) = tasks.remove(&-1) {
        let judged = own.get("judge").copied().unwrap_or_default();
        for name in SUBMISSION_PHASES {
            if let Some(t) = own.get(*name) {
                println!("  {name:<10} {}", ms(*t));
            }
        }
        println!(
            "  {outside} = wall - judge: {}",
            ms(wall.saturating_sub(judged))
        );
    }
    let used: Vec<&str> = TASK_PHASES
        .iter()
        .copied()
        .filter(|name| tasks.values().any(|t| t.contains_key(*name)))
        .collect();
    println!("  | task | {} |", used.join(" | "));
    println!("  |---|{}", "---|".repeat(used.len()));
    for (task, times) in &tasks {
        let cells: Vec<String> = used
            .iter()
            .map(|name| times.get(*name).map_or_else(|| "-".to_owned(), |t| ms(*t)))
            .collect();
        println!("  | {task} | {} |", cells.join(" | "));
    }
}
