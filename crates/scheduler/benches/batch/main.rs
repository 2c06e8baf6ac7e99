//! Benchmark (not a test): batches of candidates judged by verdict (every candidate fully
//! sandboxed) against, in the same run and in alternating rounds, a naive unsandboxed harness
//! and, when present, SandboxFusion's own server in its `none` and `lite` modes:
//!
//! 1. finite function candidates (P problems x 8 candidates, 5 tests each; among each problem's
//!    candidates 4 right, 2 wrong, 1 raising, 1 `os._exit(0)`): a `suite` batch per problem with
//!    `stop_at_first_failure`, all problems' batches sent at once, against one `python3` process per candidate with the tests
//!    appended as asserts (what trainers' reward functions do; SandboxFusion: one `/run_code`
//!    call per candidate, the same program);
//! 2. looping candidates (`while True: pass`, 5 tests, 500 ms per test): the same shapes. The
//!    asserts path runs the 5 tests in one program under one budget: measured with the budget
//!    that judges it exactly (the sum of the tests' limits, 2.5 s: a right candidate within
//!    each test's limit passes), and with one test's limit for the whole program (the most
//!    favourable to its speed, and wrong: the next workload);
//! 3. slow right candidates (each call spends ~150 ms of CPU of its 500 ms limit): how many
//!    each side judges right, the asserts path with one test's limit for the whole program;
//! 4. C++ stdin/stdout, 20 candidates x 10 tests: a `programming` batch (compiled once per
//!    candidate), against a caller that compiles and runs each test (one `g++` per test; on
//!    SandboxFusion one `/run_code` per test, as verl calls it);
//! 5. one Python A+B run (a Submission: syntax check, one test), as `POST /v1/judge` judges
//!    it, one after another: the median per run, against one `python3` process and one
//!    `/run_code` call; then the same with the former `py_compile` check, and with the run
//!    without the site module (`python3 -S`, as verdict ran Python before: what the site module costs).
//!
//! Every harness runs as many candidates at once as verdict has run permits. Each row prints
//! every side's median time and how many candidates it judged right, and verdict's time over
//! each other side's (the median of the per-round ratios, with their range; below 1 is verdict
//! faster), and the machine's load average over the rounds. SandboxFusion's rows need a tree
//! prepared by `scripts/bench-sandboxfusion.sh TREE` and `VERDICT_SANDBOXFUSION=TREE`; without
//! it they print as absent (`VERDICT_SANDBOXFUSION_MODES=none` leaves `lite` out).
//!
//! Run as root: `cargo bench -p verdict-scheduler --bench batch` (`VERDICT_BENCH_ROUNDS=N`,
//! default 3, after one warm-up round; `VERDICT_BENCH_PROBLEMS=P`, default 50;
//! `VERDICT_BENCH_LOOPS=L`, default 100; `VERDICT_BENCH_SLOW=S`, default 10).

#![allow(clippy::print_stdout)]

mod naive;
mod sandboxfusion;

use naive::{Job, pool};
use sandboxfusion::{Mode, Server};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use verdict_contracts::batch::{BatchReport, parse_batch};
use verdict_contracts::{JudgeStatus, parse_submission};
use verdict_oracle::OracleOptions;
use verdict_scheduler::{BatchCancel, BatchJudge, Judge, JudgeConfig};

const TESTS: usize = 5;
/// A looping candidate's per-test limit.
const LOOP_LIMIT: Duration = Duration::from_millis(500);
/// Sequential runs of the single Python run, per round.
const PYTHON_RUNS: usize = 20;
const AB_PYTHON: &str = "a, b = map(int, input().split())\nprint(a + b)\n";

/// One candidate of a function problem and whether it is right.
struct FnCandidate {
    code: String,
    right: bool,
}

/// Problem `p`: `f(x) = x * (p + 2) + p`, and its 8 candidates (each text distinct, so that
/// none is deduplicated).
fn function_problem(p: usize) -> (Vec<(i64, i64)>, Vec<FnCandidate>) {
    let k = p as i64 + 2;
    let tests: Vec<(i64, i64)> = (0..TESTS as i64)
        .map(|x| (x * 3 + 1, (x * 3 + 1) * k + p as i64))
        .collect();
    let mut candidates = Vec::new();
    for v in 0..4 {
        candidates.push(FnCandidate {
            code: format!("# right {p}/{v}\ndef f(x):\n    return x * {k} + {p}\n"),
            right: true,
        });
    }
    for v in 0..2 {
        candidates.push(FnCandidate {
            code: format!(
                "# wrong {p}/{v}\ndef f(x):\n    return x * {k} + {p} + {}\n",
                v + 1
            ),
            right: false,
        });
    }
    candidates.push(FnCandidate {
        code: format!("# raises {p}\ndef f(x):\n    raise ValueError({p})\n"),
        right: false,
    });
    candidates.push(FnCandidate {
        code: format!("# exits {p}\nimport os\ndef f(x):\n    os._exit(0)\n"),
        right: false,
    });
    (tests, candidates)
}

fn suite_batch(tests: &[(i64, i64)], codes: &[&str], timeout_ms: u64) -> Value {
    let cases: Vec<Value> = tests
        .iter()
        .enumerate()
        .map(|(i, (x, y))| json!({"name": format!("t{i}"), "input": [x], "expected": y}))
        .collect();
    let candidates: Vec<Value> = codes
        .iter()
        .enumerate()
        .map(|(i, code)| json!({"id": format!("c{i}"), "code": code}))
        .collect();
    json!({
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "f", "timeout_ms": timeout_ms, "test_cases": cases},
        "candidates": candidates,
        "options": {"stop_at_first_failure": true}
    })
}

/// A programming batch of 20 C++ candidates (16 right, 4 wrong; distinct per round) over 10
/// tests, the candidates with whether each is right, and the tests as (input, output).
/// A program and whether it is right; a test's input and output.
type Programs = Vec<(String, bool)>;
type Tests = Vec<(String, String)>;

fn cpp_batch(round: usize) -> (Value, Programs, Tests) {
    let data: Vec<(String, String)> = (0..10i64)
        .map(|k| {
            (
                format!("{} {}\n", k * 7919, k * 104_729),
                format!("{}\n", k * 7919 + k * 104_729),
            )
        })
        .collect();
    let programs: Vec<(String, bool)> = (0..20)
        .map(|i| {
            let right = i % 5 != 4;
            let op = if right { "a + b" } else { "a - b" };
            (
                format!("// {round}/{i}\n#include <cstdio>\nint main(){{long long a,b;std::scanf(\"%lld %lld\",&a,&b);std::printf(\"%lld\\n\",{op});}}\n"),
                right,
            )
        })
        .collect();
    let mut judge_tasks =
        vec![json!({"check_script": "compile", "depends_on": -1, "time_limit": 10000})];
    let mut test_data = Vec::new();
    for (k, (input, output)) in data.iter().enumerate() {
        judge_tasks.push(json!({"check_script": "standard", "run_script": "standard",
            "compare_script": "diff-ign-space", "testcase_id": k, "depends_on": 0,
            "depends_cond": "ACCEPTED", "time_limit": 1000, "memory_limit": 65536}));
        test_data.push(json!({
            "inputs": [{"type": "text", "name": "testdata.in", "text": input}],
            "outputs": [{"type": "text", "name": "testdata.out", "text": output}]}));
    }
    let candidates: Vec<Value> = programs
        .iter()
        .enumerate()
        .map(|(i, (code, _))| json!({"id": format!("p{i}"), "language": "cpp", "code": code}))
        .collect();
    let batch = json!({
        "problem": {"kind": "programming", "category": "bench", "prob_id": "cpp-a+b",
                    "updated_at": 1, "judge_tasks": judge_tasks, "test_data": test_data},
        "candidates": candidates,
        "options": {"stop_at_first_failure": true}
    });
    (batch, programs, data)
}

/// Who judges.
#[derive(Clone, Copy)]
enum Side<'a> {
    Verdict,
    Naive,
    Fusion(&'a Server),
}

/// What every side shares in a round.
struct Ctx<'a> {
    rt: &'a tokio::runtime::Runtime,
    batches: &'a BatchJudge,
    workers: usize,
    round: usize,
}

fn run_batch(ctx: &Ctx<'_>, batch: &Value) -> BatchReport {
    let batch = parse_batch(&batch.to_string()).expect("a valid batch");
    ctx.rt
        .block_on(ctx.batches.run(batch, None, BatchCancel::new()))
        .expect("the batch runs")
}

type Problem = (Vec<(i64, i64)>, Vec<FnCandidate>);

/// Workload 1: how many of the finite candidates `side` judged right.
fn finite(ctx: &Ctx<'_>, side: Side<'_>, problems: &[Problem]) -> usize {
    match side {
        Side::Verdict => {
            // Every problem's batch at once, as a trainer sends them (the naive harness, too,
            // takes the candidates of every problem from one pool): no barrier between problems.
            let batches: Vec<_> = problems
                .iter()
                .map(|(tests, candidates)| {
                    let codes: Vec<&str> = candidates.iter().map(|c| c.code.as_str()).collect();
                    let batch = suite_batch(tests, &codes, 1000).to_string();
                    let batch = parse_batch(&batch).expect("a valid batch");
                    ctx.batches.run(batch, None, BatchCancel::new())
                })
                .collect();
            let reports = ctx.rt.block_on(futures::future::join_all(batches));
            reports
                .into_iter()
                .zip(problems)
                .map(|(report, (_, candidates))| {
                    let report = report.expect("the batch runs");
                    report
                        .results
                        .iter()
                        .zip(candidates)
                        .filter(|(r, c)| r.infra_error.is_none() && r.passed == c.right)
                        .count()
                })
                .sum()
        }
        _ => {
            let jobs: Vec<Job<'_>> = problems
                .iter()
                .flat_map(|(tests, candidates)| {
                    candidates.iter().map(move |c| {
                        let program = naive::with_asserts(&c.code, tests);
                        let budget = Duration::from_secs(5);
                        Box::new(move || ran_ok(side, &program, budget) == c.right) as Job<'_>
                    })
                })
                .collect();
            pool(ctx.workers, jobs)
        }
    }
}

/// Whether `program` ran to exit 0 within `budget` on `side` (not verdict).
fn ran_ok(side: Side<'_>, program: &str, budget: Duration) -> bool {
    match side {
        Side::Fusion(server) => server.python(program, "", budget).0,
        _ => naive::python(program, budget),
    }
}

/// Workload 2: how many of `count` looping candidates `side` failed (all should fail), the
/// asserts path's whole program given `budget`.
fn looping(ctx: &Ctx<'_>, side: Side<'_>, count: usize, budget: Duration) -> usize {
    let loops: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "# loop {}/{i}, {} ms\ndef f(x):\n    while True:\n        pass\n",
                ctx.round,
                // Distinct per row: verdict does not take one row's results for the other's.
                budget.as_millis()
            )
        })
        .collect();
    count_judged(ctx, side, &loops, false, budget)
}

/// Workload 3: how many of `count` slow right candidates (each call ~150 ms of CPU, under
/// its 500 ms limit) `side` passed (all should pass), the asserts path's program given one
/// test's limit.
fn slow_right(ctx: &Ctx<'_>, side: Side<'_>, count: usize) -> usize {
    let slow: Vec<String> = (0..count)
        .map(|i| {
            format!(
                "# slow {}/{i}\nimport time\ndef f(x):\n    t = time.process_time()\n    \
                 while time.process_time() - t < 0.15:\n        pass\n    return x * 2\n",
                ctx.round
            )
        })
        .collect();
    count_judged(ctx, side, &slow, true, LOOP_LIMIT)
}

/// How many of `codes` (for problem 0, `f(x) = 2x`) `side` judged `passed` (tests of
/// [`LOOP_LIMIT`] each; the asserts path's whole program given `budget`).
fn count_judged(
    ctx: &Ctx<'_>,
    side: Side<'_>,
    codes: &[String],
    passed: bool,
    budget: Duration,
) -> usize {
    let (tests, _) = function_problem(0);
    match side {
        Side::Verdict => {
            let codes: Vec<&str> = codes.iter().map(String::as_str).collect();
            let limit = LOOP_LIMIT.as_millis() as u64;
            let report = run_batch(ctx, &suite_batch(&tests, &codes, limit));
            report
                .results
                .iter()
                .filter(|r| r.passed == passed && r.infra_error.is_none())
                .count()
        }
        _ => {
            let jobs: Vec<Job<'_>> = codes
                .iter()
                .map(|code| {
                    let program = naive::with_asserts(code, &tests);
                    Box::new(move || ran_ok(side, &program, budget) == passed) as Job<'_>
                })
                .collect();
            pool(ctx.workers, jobs)
        }
    }
}

/// Workload 4: how many of the C++ candidates `side` judged right.
fn cpp(ctx: &Ctx<'_>, side: Side<'_>) -> usize {
    let (batch, programs, data) = cpp_batch(ctx.round);
    match side {
        Side::Verdict => {
            let report = run_batch(ctx, &batch);
            report
                .results
                .iter()
                .zip(&programs)
                .filter(|(r, (_, want))| r.infra_error.is_none() && r.passed == *want)
                .count()
        }
        _ => {
            let data = &data;
            let jobs: Vec<Job<'_>> = programs
                .iter()
                .map(|(code, want)| {
                    Box::new(move || {
                        let passed = match side {
                            Side::Fusion(server) => data.iter().all(|(input, output)| {
                                let (ok, out) = server.cpp(code, input, Duration::from_secs(1));
                                ok && out.trim() == output.trim()
                            }),
                            _ => naive::cpp_per_test(code, data),
                        };
                        passed == *want
                    }) as Job<'_>
                })
                .collect();
            pool(ctx.workers, jobs)
        }
    }
}

/// A Python A+B Submission: its syntax check and one test.
fn python_submission(sub_id: &str) -> String {
    json!({"sub_type": "programming", "category": "bench", "prob_id": "aplusb-py",
        "sub_id": sub_id, "updated_at": 1,
        "judge_tasks": [
            {"check_script": "compile", "depends_on": -1, "time_limit": 10000},
            {"check_script": "standard", "run_script": "standard",
             "compare_script": "diff-ign-space", "testcase_id": 0, "depends_on": 0,
             "depends_cond": "ACCEPTED", "time_limit": 1000, "memory_limit": 65536}],
        "test_data": [{"inputs": [{"type": "text", "name": "testdata.in", "text": "1 2\n"}],
                       "outputs": [{"type": "text", "name": "testdata.out", "text": "3\n"}]}],
        "submission": {"type": "source_code", "language": "python3",
            "source_files": [{"type": "text", "name": "main.py", "text": AB_PYTHON}]}})
    .to_string()
}

/// Workload 5: [`PYTHON_RUNS`] single runs one after another; (median time, runs right).
/// `judge` is the verdict side's judge.
fn python_run(ctx: &Ctx<'_>, side: Side<'_>, judge: &Judge) -> (Duration, usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("main.py");
    std::fs::write(&file, AB_PYTHON).expect("write main.py");
    let mut times = Vec::new();
    let mut right = 0;
    for k in 0..PYTHON_RUNS {
        let started = Instant::now();
        let ok = match side {
            Side::Verdict => {
                let sub = parse_submission(&python_submission(&format!("py-{}-{k}", ctx.round)))
                    .expect("a valid submission");
                let report = ctx.rt.block_on(judge.judge(sub));
                report.results.len() == 2
                    && report
                        .results
                        .iter()
                        .all(|r| r.status == JudgeStatus::Accepted)
            }
            Side::Naive => naive::python_stdin(&file, "1 2\n").trim() == "3",
            Side::Fusion(server) => {
                let (ok, out) = server.python(AB_PYTHON, "1 2\n", Duration::from_secs(10));
                ok && out.trim() == "3"
            }
        };
        times.push(started.elapsed());
        right += usize::from(ok);
    }
    times.sort();
    (times[times.len() / 2], right)
}

/// One workload's measurements: per side (verdict, naive, SandboxFusion none, lite), its time
/// in each round and how many it judged right in the last.
struct Row {
    label: String,
    times: [Vec<Duration>; 4],
    right: [Option<usize>; 4],
    total: usize,
    per_run: bool,
}

impl Row {
    fn new(label: String, total: usize, per_run: bool) -> Row {
        Row {
            label,
            times: Default::default(),
            right: [None; 4],
            total,
            per_run,
        }
    }

    fn cell(&self, side: usize) -> String {
        let Some(right) = self.right[side] else {
            return "absent".into();
        };
        let t = median(&self.times[side]);
        if self.per_run {
            format!("{:.1} ms p50, {right}/{} right", t * 1e3, self.total)
        } else {
            format!("{t:.2} s, {right}/{} right", self.total)
        }
    }

    fn ratio(&self, side: usize) -> String {
        if self.right[side].is_none() || self.times[side].is_empty() {
            return "absent".into();
        }
        let ratios: Vec<f64> = self.times[0]
            .iter()
            .zip(&self.times[side])
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        let (lo, hi) = ratios
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), r| (lo.min(*r), hi.max(*r)));
        format!("{:.2}x ({lo:.2}-{hi:.2})", median_f64(ratios))
    }

    fn print(&self) {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            self.label,
            self.cell(0),
            self.cell(1),
            self.cell(2),
            self.cell(3),
            self.ratio(1),
            self.ratio(2),
            self.ratio(3),
        );
    }
}

fn median(v: &[Duration]) -> f64 {
    median_f64(v.iter().map(Duration::as_secs_f64).collect())
}

fn median_f64(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// SandboxFusion's servers (none, lite) when `VERDICT_SANDBOXFUSION` names a prepared tree.
fn fusion_servers() -> [Option<Server>; 2] {
    let Some(tree) = std::env::var_os("VERDICT_SANDBOXFUSION") else {
        println!("SandboxFusion: absent (no VERDICT_SANDBOXFUSION)");
        return [None, None];
    };
    let modes = std::env::var("VERDICT_SANDBOXFUSION_MODES").unwrap_or("none,lite".into());
    [Mode::None, Mode::Lite].map(|mode| {
        if !modes.split(',').any(|m| m.trim() == mode.name()) {
            println!(
                "SandboxFusion {}: absent (not in VERDICT_SANDBOXFUSION_MODES)",
                mode.name()
            );
            return None;
        }
        match Server::start(std::path::Path::new(&tree), mode) {
            Ok(server) => Some(server),
            Err(err) => {
                println!("SandboxFusion {}: absent ({err})", mode.name());
                None
            }
        }
    })
}

/// The judge of `config`, or `None` after saying why the bench is skipped.
fn judge_or_skip(config: JudgeConfig) -> Option<Judge> {
    Judge::new(config)
        .map_err(|err| println!("skipped: {err}"))
        .ok()
}

fn main() {
    let rounds: usize = env_number("VERDICT_BENCH_ROUNDS", 3);
    let problems: usize = env_number("VERDICT_BENCH_PROBLEMS", 50);
    let loops: usize = env_number("VERDICT_BENCH_LOOPS", 100);
    let slow: usize = env_number("VERDICT_BENCH_SLOW", 10);
    let exact_budget = LOOP_LIMIT * TESTS as u32;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = JudgeConfig {
        work_dir: dir.path().join("work"),
        cache_dir: dir.path().join("cache"),
        ..JudgeConfig::default()
    };
    let workers = config.parallelism.max(1);
    // The same judge with one profile of python3 changed, in work and cache dirs of its own.
    let with_python3 = |name: &str, profile: &str| {
        let former: toml::Table = toml::from_str(profile).expect("a profile override");
        JudgeConfig {
            work_dir: dir.path().join(format!("work-{name}")),
            cache_dir: dir.path().join(format!("cache-{name}")),
            languages: Some(former),
            ..config.clone()
        }
    };
    let py_compile = with_python3(
        "py",
        "[python3]\ncheck = [\"python3\", \"-S\", \"-m\", \"py_compile\", \"{sources}\"]\n",
    );
    let no_site = with_python3(
        "no-site",
        "[python3]\nrun = [\"python3\", \"-S\", \"{main}\"]\n",
    );
    let Some(py_compile) = judge_or_skip(py_compile) else {
        return;
    };
    let Some(no_site) = judge_or_skip(no_site) else {
        return;
    };
    let Some(judge) = judge_or_skip(config) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let servers = fusion_servers();
    let functions: Vec<Problem> = (0..problems).map(function_problem).collect();
    let mut rows = [
        Row::new(
            format!("{problems} problems x 8 finite function candidates, {TESTS} tests"),
            problems * 8,
            false,
        ),
        Row::new(
            format!(
                "{loops} looping function candidates, {TESTS} tests of 500 ms (asserts: the exact budget, {} ms)",
                exact_budget.as_millis()
            ),
            loops,
            false,
        ),
        Row::new(
            "the same (asserts: one test's limit for the program, which fails slow right ones)"
                .into(),
            loops,
            false,
        ),
        Row::new(
            format!(
                "{slow} slow right candidates, ~150 ms of CPU a test (asserts: one test's limit)"
            ),
            slow,
            false,
        ),
        Row::new("C++ A+B, 20 candidates x 10 tests".into(), 20, false),
        Row::new(
            "one Python A+B run (syntax check + 1 test)".into(),
            PYTHON_RUNS,
            true,
        ),
        Row::new(
            "the same, with the former `py_compile` check".into(),
            PYTHON_RUNS,
            true,
        ),
        Row::new(
            "the same, run without the site module (`python3 -S`, as before)".into(),
            PYTHON_RUNS,
            true,
        ),
    ];
    let mut loads = Vec::new();
    for round in 0..=rounds {
        // Results are kept for identical candidates across batches: each round gets a batch
        // judge of its own (its own result cache), and candidates distinct per round.
        let batches = BatchJudge::new(judge.clone(), OracleOptions::default());
        let ctx = Ctx {
            rt: &rt,
            batches: &batches,
            workers,
            round,
        };
        let keep = round > 0; // round 0 warms caches and interpreters
        if keep {
            loads.push(load_average());
        }
        let mut sides: Vec<(usize, Side<'_>)> = vec![(0, Side::Verdict), (1, Side::Naive)];
        for (i, server) in servers.iter().enumerate() {
            if let Some(server) = server {
                sides.push((2 + i, Side::Fusion(server)));
            }
        }
        if round % 2 == 1 {
            sides.reverse(); // alternate who goes first
        }
        if !keep {
            sides.retain(|(i, _)| *i == 0); // only verdict has caches to warm
        }
        for &(i, side) in &sides {
            let measure = |f: &dyn Fn() -> usize| {
                let started = Instant::now();
                let right = f();
                (started.elapsed(), right)
            };
            let results = [
                measure(&|| finite(&ctx, side, &functions)),
                measure(&|| looping(&ctx, side, loops, exact_budget)),
                measure(&|| looping(&ctx, side, loops, LOOP_LIMIT)),
                measure(&|| slow_right(&ctx, side, slow)),
                measure(&|| cpp(&ctx, side)),
                python_run(&ctx, side, &judge),
                // The other sides are the same as in the row above.
                python_run(&ctx, side, &py_compile),
                python_run(&ctx, side, &no_site),
            ];
            for (row, (time, right)) in rows.iter_mut().zip(results) {
                if keep {
                    row.times[i].push(time);
                    row.right[i] = Some(right);
                }
            }
        }
    }
    println!(
        "load average (1 min) over the rounds: median {:.2}, {} rounds, {workers} run permits",
        median_f64(loads.clone()),
        loads.len()
    );
    println!(
        "| workload | verdict (sandboxed) | naive (unsandboxed) | SandboxFusion none | SandboxFusion lite | verdict / naive | verdict / none | verdict / lite |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for row in &rows {
        row.print();
    }
    drop(servers); // lite's leftovers are removed as its server is dropped
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
