//! Counters and histograms, written in the Prometheus text format (version 0.0.4) by hand.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use verdict_contracts::{JudgeStatus, JudgeTaskResult};
use verdict_scheduler::{CacheStats, SlotStats};

/// A histogram with fixed upper bounds.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    buckets: Vec<AtomicU64>,
    count: AtomicU64,
    /// The sum in millionths of the unit, so that it stays an integer.
    sum_micros: AtomicU64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            buckets: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum_micros: AtomicU64::new(0),
        }
    }

    /// Records one observation.
    pub fn observe(&self, value: f64) {
        for (bound, bucket) in self.bounds.iter().zip(&self.buckets) {
            if value <= *bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        let micros = (value.max(0.0) * 1e6).round() as u64;
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// The mean of the observations, if any.
    pub fn mean(&self) -> Option<f64> {
        let count = self.count.load(Ordering::Relaxed);
        (count > 0).then(|| self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6 / count as f64)
    }

    fn write(&self, out: &mut String, name: &str, help: &str) {
        write_header(out, name, help, "histogram");
        for (bound, bucket) in self.bounds.iter().zip(&self.buckets) {
            let _ = writeln!(
                out,
                "{name}_bucket{{le=\"{bound}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {count}");
    }
}

/// Why a submission was refused (the `reason` label of `verdict_submissions_rejected_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reject {
    /// Its `sub_id` is still queued or running (409).
    Conflict,
    /// The token may not submit as its category (403).
    Forbidden,
    /// Not JSON, or not a valid Submission (400 / 422).
    Invalid,
    /// The queue is full (429).
    QueueFull,
    /// The server is shutting down (503).
    ShuttingDown,
    /// A front end's broker is unreachable (503).
    BrokerUnavailable,
}

impl Reject {
    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Reject::Conflict => "conflict",
            Reject::Forbidden => "forbidden",
            Reject::Invalid => "invalid",
            Reject::QueueFull => "queue_full",
            Reject::ShuttingDown => "shutting_down",
            Reject::BrokerUnavailable => "broker_unavailable",
        }
    }
}

/// Everything `/metrics` reports.
#[derive(Debug)]
pub struct Metrics {
    /// Submissions accepted but not started.
    pub queue_length: AtomicI64,
    /// Submissions being judged.
    pub running_submissions: AtomicI64,
    /// Tasks whose dependencies are met and that have not finished: holding a run slot or
    /// waiting for one (`/metrics` tells them apart from the judge's [`SlotStats`]).
    pub running_tasks: AtomicI64,
    /// Submissions accepted into the queue.
    pub submissions_accepted: AtomicU64,
    /// Submissions finished.
    pub submissions_finished: AtomicU64,
    rejected: Mutex<BTreeMap<Reject, u64>>,
    verdicts: Vec<AtomicU64>,
    /// Tasks cancelled (System Error in their reports, not counted as one).
    cancelled: AtomicU64,
    /// Task run time in seconds.
    pub run_time: Histogram,
    /// Task peak memory in bytes.
    pub memory: Histogram,
    /// From accepted to finished, in seconds.
    pub submission_duration: Histogram,
    /// Task Oracle suites run.
    pub oracle_runs: AtomicU64,
    /// Agent Lab runs.
    pub lab_runs: AtomicU64,
    responses: Mutex<BTreeMap<u16, u64>>,
    compat_calls: Mutex<BTreeMap<String, u64>>,
}

const SECONDS: &[f64] = &[
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];
const BYTES: &[f64] = &[
    1_048_576.0,
    4_194_304.0,
    16_777_216.0,
    67_108_864.0,
    134_217_728.0,
    268_435_456.0,
    536_870_912.0,
    1_073_741_824.0,
    4_294_967_296.0,
];
const SUBMISSION_SECONDS: &[f64] = &[
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// What people read for a cancelled task: the metrics' `status` label, the queue's count.
pub const CANCELLED_LABEL: &str = "cancelled";

/// Whether a task was cancelled: the contract has no such status, so its report says System
/// Error, with the scheduler's `cancelled: ...` log (`verdict_scheduler::CANCELLED`,
/// `CANCELLED_RUNNING`). A cancel is not the judge failing: it is counted and shown apart.
pub fn is_cancelled(result: &JudgeTaskResult) -> bool {
    result.status == JudgeStatus::SystemError && result.error_log.starts_with("cancelled:")
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            queue_length: AtomicI64::new(0),
            running_submissions: AtomicI64::new(0),
            running_tasks: AtomicI64::new(0),
            submissions_accepted: AtomicU64::new(0),
            submissions_finished: AtomicU64::new(0),
            rejected: Mutex::new(BTreeMap::new()),
            verdicts: JudgeStatus::ALL.iter().map(|_| AtomicU64::new(0)).collect(),
            cancelled: AtomicU64::new(0),
            run_time: Histogram::new(SECONDS),
            memory: Histogram::new(BYTES),
            submission_duration: Histogram::new(SUBMISSION_SECONDS),
            oracle_runs: AtomicU64::new(0),
            lab_runs: AtomicU64::new(0),
            responses: Mutex::new(BTreeMap::new()),
            compat_calls: Mutex::new(BTreeMap::new()),
        }
    }
}

impl Metrics {
    /// Counts a refused submission by reason.
    pub fn rejected(&self, reason: Reject) {
        let mut map = lock(&self.rejected);
        *map.entry(reason).or_default() += 1;
    }

    /// Counts a response by status code.
    pub fn response(&self, status: u16) {
        let mut map = lock(&self.responses);
        *map.entry(status).or_default() += 1;
    }

    /// Counts a call of another sandbox's protocol (SandboxFusion's `/run_code`) by category.
    pub fn compat_call(&self, category: &str) {
        let mut map = lock(&self.compat_calls);
        *map.entry(category.to_string()).or_default() += 1;
    }

    /// Records a finished task: its verdict, run time and memory.
    pub fn task_finished(&self, result: &JudgeTaskResult) {
        if is_cancelled(result) {
            self.cancelled.fetch_add(1, Ordering::Relaxed);
        } else if let Some(i) = JudgeStatus::ALL.iter().position(|s| *s == result.status) {
            self.verdicts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.run_time.observe(result.run_time as f64 / 1000.0);
        self.memory.observe(result.memory_used as f64 * 1024.0);
    }

    /// The Prometheus text exposition, with the judge's cache counters and, where this process
    /// has a judge, how its run slots are used.
    pub fn render(&self, cache: CacheStats, slots: Option<SlotStats>) -> String {
        let mut text = String::with_capacity(8 * 1024);
        let out = &mut text;
        let mut gauges = vec![
            (
                "verdict_queue_length",
                "Submissions accepted and waiting for a worker.",
                self.queue_length.load(Ordering::Relaxed),
            ),
            (
                "verdict_running_submissions",
                "Submissions being judged.",
                self.running_submissions.load(Ordering::Relaxed),
            ),
            (
                "verdict_started_tasks",
                "Judge tasks whose dependencies are met and that have not finished (holding a run slot or waiting for one).",
                self.running_tasks.load(Ordering::Relaxed),
            ),
        ];
        if let Some(slots) = slots {
            let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
            gauges.extend([
                (
                    "verdict_task_slots",
                    "Run slots of this process's judge (parallelism): tasks run in the sandbox at once.",
                    count(slots.slots),
                ),
                (
                    "verdict_running_tasks",
                    "Judge tasks holding a run slot (running in the sandbox): at most verdict_task_slots.",
                    count(slots.running),
                ),
                (
                    "verdict_queued_tasks",
                    "Judge tasks ready to run (dependencies met) and waiting for a run slot.",
                    count(slots.waiting),
                ),
            ]);
        }
        for (name, help, value) in gauges {
            write_one(out, name, help, "gauge", value.max(0));
        }
        for (name, help, value) in [
            (
                "verdict_submissions_accepted_total",
                "Submissions accepted into the queue.",
                &self.submissions_accepted,
            ),
            (
                "verdict_submissions_finished_total",
                "Submissions judged to the end.",
                &self.submissions_finished,
            ),
        ] {
            write_one(out, name, help, "counter", value.load(Ordering::Relaxed));
        }
        write_labelled(
            out,
            "verdict_submissions_rejected_total",
            "Submissions refused, by reason.",
            "reason",
            lock(&self.rejected)
                .iter()
                .map(|(reason, n)| (reason.label().to_string(), *n)),
        );
        let verdicts = JudgeStatus::ALL
            .iter()
            .zip(&self.verdicts)
            .map(|(status, n)| (status.as_str().to_string(), n.load(Ordering::Relaxed)));
        let cancelled = (
            CANCELLED_LABEL.to_string(),
            self.cancelled.load(Ordering::Relaxed),
        );
        write_labelled(
            out,
            "verdict_task_verdicts_total",
            "Finished judge tasks, by status.",
            "status",
            verdicts.chain([cancelled]),
        );
        self.run_time.write(
            out,
            "verdict_task_run_time_seconds",
            "CPU time of finished judge tasks (the report's run_time).",
        );
        self.memory.write(
            out,
            "verdict_task_memory_bytes",
            "Peak memory of finished judge tasks (the report's memory_used).",
        );
        self.submission_duration.write(
            out,
            "verdict_submission_duration_seconds",
            "Wall time from acceptance to the final report.",
        );
        write_one(
            out,
            "verdict_problem_cache_hits_total",
            "Per-problem cache items (compiled standard/random/compare programs, test data) found ready.",
            "counter",
            cache.hits,
        );
        write_one(
            out,
            "verdict_problem_cache_misses_total",
            "Per-problem cache items compiled or materialised.",
            "counter",
            cache.misses,
        );
        write_one(
            out,
            "verdict_problem_cache_bytes",
            "Size of the per-problem cache.",
            "gauge",
            cache.bytes,
        );
        write_one(
            out,
            "verdict_oracle_runs_total",
            "Task Oracle suites run.",
            "counter",
            self.oracle_runs.load(Ordering::Relaxed),
        );
        write_one(
            out,
            "verdict_lab_runs_total",
            "Agent Lab runs.",
            "counter",
            self.lab_runs.load(Ordering::Relaxed),
        );
        write_labelled(
            out,
            "verdict_http_responses_total",
            "HTTP responses, by status code.",
            "code",
            lock(&self.responses)
                .iter()
                .map(|(code, n)| (code.to_string(), *n)),
        );
        write_labelled(
            out,
            "verdict_compat_runs_total",
            "Programs run through another sandbox's protocol (SandboxFusion's /run_code), by category.",
            "category",
            lock(&self.compat_calls)
                .iter()
                .map(|(category, n)| (category.replace('\\', "\\\\").replace('"', "\\\""), *n)),
        );
        text
    }
}

/// A counter map, read even when a writer panicked.
fn lock<K, V>(map: &Mutex<BTreeMap<K, V>>) -> std::sync::MutexGuard<'_, BTreeMap<K, V>> {
    map.lock().unwrap_or_else(|p| p.into_inner())
}

/// A metric's `# HELP` and `# TYPE` lines.
fn write_header(out: &mut String, name: &str, help: &str, kind: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A metric of one value.
fn write_one(out: &mut String, name: &str, help: &str, kind: &str, value: impl std::fmt::Display) {
    write_header(out, name, help, kind);
    let _ = writeln!(out, "{name} {value}");
}

/// A counter with one value per `label` value.
fn write_labelled(
    out: &mut String,
    name: &str,
    help: &str,
    label: &str,
    rows: impl IntoIterator<Item = (String, u64)>,
) {
    write_header(out, name, help, "counter");
    for (value, n) in rows {
        let _ = writeln!(out, "{name}{{{label}=\"{value}\"}} {n}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_task_is_counted_as_cancelled_not_as_a_system_error() {
        let metrics = Metrics::default();
        for log in [
            verdict_scheduler::CANCELLED,
            verdict_scheduler::CANCELLED_RUNNING,
            "the judge failed",
        ] {
            metrics.task_finished(&JudgeTaskResult::with_status(JudgeStatus::SystemError, log));
        }
        let text = metrics.render(CacheStats::default(), None);
        assert!(
            text.contains("verdict_task_verdicts_total{status=\"cancelled\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("verdict_task_verdicts_total{status=\"System Error\"} 1"),
            "{text}"
        );
    }

    #[test]
    fn histograms_are_cumulative() {
        let metrics = Metrics::default();
        metrics.task_finished(&JudgeTaskResult {
            run_time: 7,
            memory_used: 2048,
            ..JudgeTaskResult::with_status(JudgeStatus::Accepted, "")
        });
        let text = metrics.render(
            CacheStats {
                hits: 3,
                misses: 1,
                bytes: 10,
            },
            Some(SlotStats {
                slots: 2,
                running: 2,
                waiting: 7,
            }),
        );
        assert!(
            text.contains("verdict_task_verdicts_total{status=\"Accepted\"} 1"),
            "{text}"
        );
        assert!(text.contains("verdict_task_run_time_seconds_bucket{le=\"0.005\"} 0"));
        assert!(text.contains("verdict_task_run_time_seconds_bucket{le=\"0.01\"} 1"));
        assert!(text.contains("verdict_task_run_time_seconds_bucket{le=\"+Inf\"} 1"));
        assert!(text.contains("verdict_task_memory_bytes_sum 2097152"));
        assert!(text.contains("verdict_task_slots 2\n"), "{text}");
        assert!(text.contains("verdict_running_tasks 2\n"), "{text}");
        assert!(text.contains("verdict_queued_tasks 7\n"), "{text}");
    }
}
