//! Throughput and peak memory of the built-in comparators on large files.
//!
//! A plain `main` (no harness): `cargo bench -p verdict-compare --bench compare` writes 200 MB
//! files (`VERDICT_BENCH_MB` changes the size) to a temporary directory and prints MB/s for
//! each comparator and case, then the process's peak resident memory (VmHWM). CI only builds it.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use verdict_compare::{BuiltinComparator, CompareVerdict};

/// How the output of a case differs from the answer.
#[derive(Clone, Copy)]
enum Variant {
    /// Byte-identical.
    Identical,
    /// Identical but the very last number (a wrong answer found at the end).
    LastByteWrong,
    /// Every 1000th line ends with a blank and `\r\n` (white space only).
    SprinkledBlanks,
    /// Every line ends with `\r\n` (a Windows program).
    Crlf,
    /// Every blank is doubled (the normalising path all the way).
    DoubleBlanks,
}

fn write_file(path: &Path, bytes: u64, variant: Variant) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut written = 0u64;
    let mut line = 0u64;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut text = String::new();
    while written < bytes {
        text.clear();
        for i in 0..8 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i > 0 {
                text.push(' ');
            }
            text.push_str(&(x % 1_000_000_000).to_string());
        }
        let base_len = text.len() as u64 + 1;
        let last = written + base_len >= bytes;
        match variant {
            Variant::LastByteWrong if last => {
                text.pop();
                text.push('#');
            }
            Variant::SprinkledBlanks if line % 1000 == 999 => text.push_str(" \r"),
            Variant::Crlf => text.push('\r'),
            Variant::DoubleBlanks => text = text.replace(' ', "  "),
            _ => {}
        }
        text.push('\n');
        out.write_all(text.as_bytes())?;
        written += base_len;
        line += 1;
    }
    out.flush()
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() -> std::io::Result<()> {
    let mb: u64 = std::env::var("VERDICT_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let bytes = mb * 1_000_000;
    let dir = tempfile::tempdir()?;
    let path = |name: &str| -> PathBuf { dir.path().join(name) };
    write_file(&path("answer"), bytes, Variant::Identical)?;
    let cases = [
        ("identical", Variant::Identical),
        ("last byte wrong", Variant::LastByteWrong),
        ("sprinkled blanks", Variant::SprinkledBlanks),
        ("crlf", Variant::Crlf),
        ("double blanks", Variant::DoubleBlanks),
    ];
    for (name, variant) in cases {
        write_file(&path(name), bytes, variant)?;
    }
    println!("{mb} MB files, best of 3 runs");
    for kind in [BuiltinComparator::DiffAll, BuiltinComparator::DiffIgnSpace] {
        for (name, _) in cases {
            let mut best = Duration::MAX;
            let mut verdict = CompareVerdict::CompareError;
            for _ in 0..3 {
                let start = Instant::now();
                let outcome = kind
                    .compare_files(&path(name), &path("answer"))
                    .map_err(std::io::Error::other)?;
                best = best.min(start.elapsed());
                verdict = outcome.verdict;
            }
            let size = std::fs::metadata(path(name))?.len() as f64;
            println!(
                "{:<15} {:<17} {:>8.0} MB/s  ({:?}, {})",
                kind.script_name(),
                name,
                size / 1e6 / best.as_secs_f64(),
                best,
                verdict.status(),
            );
        }
    }
    match peak_rss_kib() {
        Some(kib) => println!("peak resident memory (VmHWM): {kib} KiB"),
        None => println!("peak resident memory: unavailable"),
    }
    Ok(())
}
