//! The judge's configuration: one typed struct, read from TOML with unknown keys rejected.

use serde::Deserialize;
use std::path::PathBuf;
use verdict_scripts::CompileLimits;
pub use verdict_scripts::special::static_analysis::StaticAnalyser;

/// Everything a `Judge` needs to know about its host.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JudgeConfig {
    /// Where submissions are judged (one directory each, removed afterwards).
    pub work_dir: PathBuf,
    /// Where the per-problem cache lives.
    pub cache_dir: PathBuf,
    /// The cache's size bound in MiB (least recently used problems are evicted).
    pub cache_max_mb: u64,
    /// How many sandboxed runs may go on at once (default: the number of cores).
    pub parallelism: usize,
    /// Limits for compilers.
    pub compile: CompileConfig,
    /// Limits for random generators and standard programs producing random tests.
    pub generator: GeneratorConfig,
    /// Host directories from which `local` assets may be read.
    pub local_roots: Vec<PathBuf>,
    /// How `remote` assets are fetched.
    pub remote: RemoteConfig,
    /// Output cap in KB for tasks whose `file_limit` is -1 or null (protects the disk).
    pub global_output_cap_kb: u64,
    /// Language profile overrides, table by table (see docs/languages.md).
    pub languages: Option<toml::Table>,
    /// Fail at start-up instead of falling back to rlimit-only isolation.
    pub require_isolation: bool,
    /// Keep submissions' builds in the problem's cache, keyed by a hash of their sources and
    /// language profile, so a rejudge of the same code skips the compiler (off by default:
    /// builds such as Kotlin jars are large).
    pub cache_submission_builds: bool,
    /// Memory (valgrind), Google Test and static tests (docs/special-tests.md).
    pub special: SpecialConfig,
}

/// Limits for compilers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompileConfig {
    /// CPU time in milliseconds.
    pub time_ms: u64,
    /// Wall time in milliseconds.
    pub wall_ms: u64,
    /// Memory in KB.
    pub memory_kb: u64,
    /// Output in KB.
    pub output_kb: u64,
    /// Processes and threads.
    pub processes: u32,
}

/// Limits for random generators, standard programs and comparators.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GeneratorConfig {
    /// CPU time in milliseconds (at least the task's own limit is given).
    pub time_ms: u64,
    /// Memory in KB.
    pub memory_kb: u64,
    /// Output in KB.
    pub output_kb: u64,
    /// Processes and threads.
    pub processes: u64,
}

/// How `remote` assets are fetched.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RemoteConfig {
    /// Whether remote assets may be fetched at all.
    pub enabled: bool,
    /// Hosts the operator trusts (empty: any host whose every address is globally routable or
    /// in `allow_networks`; not empty: only these hosts, at any address). See docs/server.md,
    /// "Remote fetches (SSRF)".
    pub allow_hosts: Vec<String>,
    /// Networks (CIDR) that may be reached although not globally routable, e.g. a private
    /// test-data server's `10.1.2.0/24`.
    pub allow_networks: Vec<verdict_fetch::Network>,
    /// Redirects followed at most; each is checked like the first request.
    pub max_redirects: u32,
    /// Timeout of one fetch in milliseconds.
    pub timeout_ms: u64,
    /// Largest asset in KB.
    pub max_kb: u64,
}

/// Memory (valgrind), Google Test and static tests (docs/special-tests.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpecialConfig {
    /// A memory test's CPU time limit is the task's `time_limit` times this (valgrind is slow).
    pub valgrind_time_factor: u64,
    /// KB added to a memory test's `memory_limit` for valgrind's own use.
    pub valgrind_memory_kb: u64,
    /// Processes added to a memory test's `proc_limit`.
    pub valgrind_extra_processes: u64,
    /// KB added to a memory test's output limit for valgrind's XML report.
    pub valgrind_output_kb: u64,
    /// The static analyser: `"auto"` (oclint, else clang-tidy, else cppcheck), `"oclint"`,
    /// `"clang-tidy"` or `"cppcheck"`.
    pub static_analyser: StaticAnalyser,
    /// The analyser's CPU time in milliseconds (at least the task's `time_limit` is given).
    pub static_time_ms: u64,
    /// The analyser's memory in KB.
    pub static_memory_kb: u64,
}

impl Default for SpecialConfig {
    fn default() -> Self {
        SpecialConfig {
            valgrind_time_factor: 10,
            valgrind_memory_kb: 256 * 1024,
            valgrind_extra_processes: 4,
            valgrind_output_kb: 16 * 1024,
            static_analyser: StaticAnalyser::Auto,
            static_time_ms: 60_000,
            static_memory_kb: 2 * 1024 * 1024,
        }
    }
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig::default_with_base(default_base_dir())
    }
}

/// The default home of the work and cache dirs: `$TMPDIR/verdict` for root, and
/// `$TMPDIR/verdict-<uid>` for any other user (the user's id on the host, also inside the
/// user namespace a rootless judge enters), so that a second user never meets the first
/// one's directories (docs/judge.md, "Configuration").
pub fn default_base_dir() -> std::path::PathBuf {
    match host_uid() {
        Some(0) | None => std::env::temp_dir().join("verdict"),
        Some(uid) => std::env::temp_dir().join(format!("verdict-{uid}")),
    }
}

/// This process's user id on the host: its id here, mapped out of a user namespace by
/// `/proc/self/uid_map`.
fn host_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let inside = std::fs::metadata("/proc/self").ok()?.uid();
    let map = std::fs::read_to_string("/proc/self/uid_map").unwrap_or_default();
    host_uid_of(inside, &map).or(Some(inside))
}

/// `inside` mapped by a `uid_map` text (`inside outside count` per line).
fn host_uid_of(inside: u32, uid_map: &str) -> Option<u32> {
    uid_map.lines().find_map(|line| {
        let mut fields = line.split_whitespace().map(|f| f.parse::<u64>().ok());
        let (Some(Some(from)), Some(Some(to)), Some(Some(count))) =
            (fields.next(), fields.next(), fields.next())
        else {
            return None;
        };
        let inside = u64::from(inside);
        (inside >= from && inside - from < count)
            .then(|| u32::try_from(to + (inside - from)).ok())
            .flatten()
    })
}

impl JudgeConfig {
    /// The defaults, with the work and cache dirs under `base`.
    fn default_with_base(base: std::path::PathBuf) -> Self {
        JudgeConfig {
            work_dir: base.join("work"),
            cache_dir: base.join("cache"),
            cache_max_mb: 2048,
            parallelism: std::thread::available_parallelism().map_or(2, |n| n.get()),
            compile: CompileConfig::default(),
            generator: GeneratorConfig::default(),
            local_roots: Vec::new(),
            remote: RemoteConfig::default(),
            global_output_cap_kb: 256 * 1024,
            languages: None,
            require_isolation: false,
            cache_submission_builds: false,
            special: SpecialConfig::default(),
        }
    }
}

impl Default for CompileConfig {
    fn default() -> Self {
        let d = CompileLimits::default();
        CompileConfig {
            time_ms: d.cpu_time_ms,
            wall_ms: d.wall_time_ms,
            memory_kb: d.memory_kb,
            output_kb: d.output_bytes / 1024,
            processes: d.processes,
        }
    }
}

impl CompileConfig {
    /// How many times a submission's compile CPU and wall time the problem's own programs
    /// (standard, generator, comparator or interactor) get: they are the jury's, compiled once
    /// per problem version and cached, and a testlib checker alone takes ~8 s of CPU at `-O2`
    /// (DOMjudge allows 30 s). A submission's limits stay as configured.
    pub const PROBLEM_PROGRAM_FACTOR: u64 = 6;

    /// The limits a problem's own program compiles under: [`CompileConfig::limits`] with
    /// [`CompileConfig::PROBLEM_PROGRAM_FACTOR`] times the CPU and wall time.
    pub fn problem_limits(&self) -> CompileLimits {
        let limits = self.limits();
        CompileLimits {
            cpu_time_ms: limits
                .cpu_time_ms
                .saturating_mul(Self::PROBLEM_PROGRAM_FACTOR),
            wall_time_ms: limits
                .wall_time_ms
                .saturating_mul(Self::PROBLEM_PROGRAM_FACTOR),
            ..limits
        }
    }

    /// As the scripts crate takes them.
    pub fn limits(&self) -> CompileLimits {
        CompileLimits {
            cpu_time_ms: self.time_ms,
            wall_time_ms: self.wall_ms,
            memory_kb: self.memory_kb,
            output_bytes: self.output_kb.saturating_mul(1024),
            processes: self.processes,
        }
    }
}

impl Default for GeneratorConfig {
    fn default() -> Self {
        GeneratorConfig {
            time_ms: 10_000,
            memory_kb: 1024 * 1024,
            output_kb: 256 * 1024,
            processes: 16,
        }
    }
}

impl Default for RemoteConfig {
    fn default() -> Self {
        RemoteConfig {
            enabled: true,
            allow_hosts: Vec::new(),
            allow_networks: Vec::new(),
            max_redirects: 5,
            timeout_ms: 30_000,
            max_kb: 256 * 1024,
        }
    }
}

impl JudgeConfig {
    /// A config from TOML text; unknown keys are errors naming the key.
    pub fn from_toml(text: &str) -> Result<JudgeConfig, toml::de::Error> {
        toml::from_str(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_user_gets_default_dirs_of_their_own_also_inside_a_user_namespace() {
        // Root on the host, and an ordinary user 1000 whose rootless judge is 0 inside.
        assert_eq!(
            host_uid_of(0, "         0          0 4294967295\n"),
            Some(0)
        );
        assert_eq!(
            host_uid_of(
                0,
                "         0       1000          1\n         1     100000  65536\n"
            ),
            Some(1000)
        );
        assert_eq!(
            host_uid_of(
                5,
                "         0       1000          1\n         1     100000  65536\n"
            ),
            Some(100004)
        );
        assert_eq!(host_uid_of(7, ""), None);
        let base = default_base_dir();
        let config = JudgeConfig::default();
        assert_eq!(config.work_dir, base.join("work"));
        assert!(base.starts_with(std::env::temp_dir()));
    }

    #[test]
    fn unknown_keys_are_rejected() {
        let err = JudgeConfig::from_toml("paralelism = 3\n").unwrap_err();
        assert!(err.to_string().contains("paralelism"), "{err}");
    }

    #[test]
    fn partial_tables_keep_defaults() {
        let config = JudgeConfig::from_toml("[compile]\ntime_ms = 5000\n").unwrap();
        assert_eq!(config.compile.time_ms, 5000);
        assert_eq!(config.compile.memory_kb, CompileConfig::default().memory_kb);
    }

    #[test]
    fn special_table_overrides_some_fields_and_keeps_the_rest() {
        let config = JudgeConfig::from_toml(
            "[special]\nvalgrind_time_factor = 20\nstatic_analyser = \"cppcheck\"\n",
        )
        .unwrap();
        assert_eq!(config.special.valgrind_time_factor, 20);
        assert_eq!(config.special.static_analyser, StaticAnalyser::Cppcheck);
        assert_eq!(config.special.valgrind_memory_kb, 256 * 1024);
        let err = JudgeConfig::from_toml("[special]\nvalgrind_factor = 2\n").unwrap_err();
        assert!(err.to_string().contains("valgrind_factor"), "{err}");
        assert!(JudgeConfig::from_toml("[special]\nstatic_analyser = \"lint\"\n").is_err());
    }
}
