//! The fuzz loop: for each input, run the target under `catch_unwind` with the allocation
//! tracker reset, and record what went wrong: a panic, or an allocation far beyond what the
//! input's size can justify.

use crate::alloc;
use crate::generate::SchemaGenerator;
use crate::mutate::mutate;
use crate::rng::Rng;
use crate::targets::Target;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// A single allocation may be this large whatever the input (buffers, tables).
pub const ALLOC_BASE: usize = 8 << 20;
/// Plus this many bytes per input byte (parsed values are larger than their text).
pub const ALLOC_PER_BYTE: usize = 2048;

/// How long a run may go on.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// At most this many inputs per target.
    pub inputs: u64,
    /// At most this long per target.
    pub time: Duration,
}

/// What went wrong with one input.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The input that caused it.
    pub input: Vec<u8>,
    /// What happened (the panic message or the allocation size).
    pub what: String,
}

/// The result of fuzzing one target.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Inputs tried.
    pub inputs: u64,
    /// Of which generated from the schema (the rest are mutations of the corpus).
    pub generated: u64,
    /// Inputs that failed (panic or allocation beyond the bound), at most a few kept.
    pub findings: Vec<Finding>,
    /// Total failing inputs.
    pub failures: u64,
    /// The slowest input's time.
    pub slowest: Duration,
    /// The largest single allocation seen relative to the bound, in percent.
    pub worst_alloc_percent: u64,
}

/// The allocation bound for an input of `len` bytes.
pub fn alloc_bound(len: usize) -> usize {
    ALLOC_BASE.saturating_add(len.saturating_mul(ALLOC_PER_BYTE))
}

/// Runs `target` once on `input` and says what went wrong, if anything.
pub fn check_one(target: &Target, input: &[u8]) -> Result<(), String> {
    alloc::reset_largest();
    let outcome = catch_unwind(AssertUnwindSafe(|| (target.run)(input)));
    let largest = alloc::largest();
    if let Err(panic) = outcome {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("(non-string panic)");
        return Err(format!("panic: {message}"));
    }
    let bound = alloc_bound(input.len());
    if largest > bound {
        return Err(format!(
            "allocated {largest} bytes at once for a {}-byte input (bound {bound})",
            input.len()
        ));
    }
    Ok(())
}

/// Fuzzes one target within `budget`, starting from `seed`.
pub fn fuzz(target: &Target, budget: Budget, seed: u64) -> Stats {
    let corpus = (target.corpus)();
    let generator = target.schema.map(|name| {
        let (_, schema) = verdict_contracts::schemas()
            .into_iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no schema named {name}"));
        SchemaGenerator::new(schema.as_value().clone())
    });
    let mut rng = Rng::new(seed);
    let mut stats = Stats::default();
    let started = Instant::now();
    // Every corpus input as it is first, then generated and mutated ones.
    let mut queue: Vec<Vec<u8>> = corpus.clone();
    while stats.inputs < budget.inputs && started.elapsed() < budget.time {
        let input = if let Some(seed_input) = queue.pop() {
            seed_input
        } else if let Some(generator) = generator.as_ref().filter(|_| rng.one_in(3)) {
            stats.generated += 1;
            let value = generator.generate(&mut rng);
            let text = value.to_string().into_bytes();
            if rng.one_in(2) {
                text
            } else {
                mutate(&mut rng, &text, &corpus)
            }
        } else if corpus.is_empty() {
            mutate(&mut rng, b"", &[])
        } else {
            let base = rng.pick(&corpus).clone();
            mutate(&mut rng, &base, &corpus)
        };
        let one = Instant::now();
        let result = check_one(target, &input);
        stats.slowest = stats.slowest.max(one.elapsed());
        stats.worst_alloc_percent = stats
            .worst_alloc_percent
            .max((alloc::largest() as u64 * 100) / alloc_bound(input.len()) as u64);
        stats.inputs += 1;
        if let Err(what) = result {
            stats.failures += 1;
            if stats.findings.len() < 5 {
                stats.findings.push(Finding { input, what });
            }
        }
    }
    stats
}

/// Silences the default panic message while fuzzing (panics are caught and reported).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}
