//! Static tests (design #10): oclint when installed, else clang-tidy, else cppcheck, run in
//! the sandbox (analysers parse untrusted code) on the submission's files; findings in
//! oclint's report shape, 20% off per priority-1 and 10% per priority-2 finding.

use super::{deduction_status, is_c_family, path_in_reports, read_box_text, translation_units};
use crate::exec::{ExitKind, RunOutcome};
use crate::language::{LanguageProfile, TemplateVars};
use crate::{Capture, RunLimits, RunOutput, ScriptError, read_capped, read_capture, signal_name};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use verdict_contracts::{
    JudgeStatus, JudgeTaskResult, Language, SourceCode, StaticReport, TaskReport,
};
use verdict_reports::{
    CLANG_TIDY_URL, CPPCHECK_URL, StaticTool, build_static_report, parse_clang_tidy,
    parse_cppcheck_xml, parse_oclint_json, static_score,
};

/// Which static analyser a static test uses (`special.static_analyser`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StaticAnalyser {
    /// oclint if installed, else clang-tidy, else cppcheck.
    #[default]
    Auto,
    /// oclint (not packaged by Debian).
    Oclint,
    /// clang-tidy (Debian package clang-tidy).
    ClangTidy,
    /// cppcheck (Debian package cppcheck).
    Cppcheck,
}

/// A static test ready to run: the analyser, its profile and template values, and the number
/// of C/C++ files the report counts.
#[derive(Debug, Clone)]
pub struct StaticCheck {
    /// The analyser chosen.
    pub analyser: Analyser,
    /// Runs the analyser on `{sources}`.
    pub profile: LanguageProfile,
    /// `{sources}`: the translation units among `source_files`.
    pub vars: TemplateVars,
    /// C/C++ files among `source_files` and `assist_files` (the report's `numberOfFiles`).
    pub number_of_files: usize,
}

impl StaticCheck {
    /// The check of `source` with the configured analyser, or the reason it cannot run
    /// (System Error).
    pub fn new(config: StaticAnalyser, source: &SourceCode) -> Result<StaticCheck, String> {
        let analyser = choose(config)?;
        let number_of_files = source
            .source_files
            .iter()
            .chain(&source.assist_files)
            .filter(|a| is_c_family(&a.name))
            .count();
        let units = translation_units(source);
        if units.is_empty() {
            return Err("static tests need at least one .c or .cpp file in source_files".into());
        }
        let profile = LanguageProfile {
            run: analyser.argv(source.language),
            version: vec![analyser.program().to_owned(), "--version".to_owned()],
            package: analyser.program().to_owned(),
            ..LanguageProfile::default()
        };
        let vars = TemplateVars {
            sources: units,
            ..TemplateVars::default()
        };
        Ok(StaticCheck {
            analyser,
            profile,
            vars,
            number_of_files,
        })
    }

    /// The result of the analyser's run under `limits`.
    pub fn result(
        &self,
        output: &RunOutput,
        limits: &RunLimits,
    ) -> Result<JudgeTaskResult, ScriptError> {
        let analyser = self.analyser;
        let outcome = &output.outcome;
        let stderr = read_capture(&output.stderr, 64 * 1024)?;
        let box_path = path_in_reports(outcome, &output.box_dir);
        let report = analyser_failure(analyser, outcome, limits, &stderr).map_or_else(
            || read_report(analyser, output, &box_path, self.number_of_files),
            Err,
        );
        let mut result = match report {
            Ok(report) => {
                let score = static_score(&report);
                let mut result = JudgeTaskResult::with_status(
                    deduction_status(score),
                    summary(&report, analyser),
                );
                result.score = score;
                result.report = Some(TaskReport::Static(report));
                result
            }
            Err(reason) => JudgeTaskResult::with_status(JudgeStatus::SystemError, reason),
        };
        result.run_time = outcome.cpu_time_ms;
        result.memory_used = outcome.peak_memory_kb;
        Ok(result)
    }
}

/// The checks clang-tidy runs: the analyser's path-sensitive bugs, likely bugs, and the
/// design faults oclint reports (a public non-virtual destructor in a class with virtual
/// functions is oclint's "destructor of virtual class"). Left out because they fire on
/// ordinary, correct student code (`long long a, b; scanf(...)`, `int add(int a, int b)`,
/// `rand()`) and would cost 10% each: `cppcoreguidelines-init-variables` (a garbage value that
/// is really used is still found by `clang-analyzer-core`), `bugprone-easily-swappable-parameters`,
/// `cert-err34-c` (scanf/atoi), `cert-err58-cpp`, the `rand`/`srand` checks, the
/// `insecureAPI` checks (scanf, strcpy), struct padding and the macOS checks.
const CLANG_TIDY_CHECKS: &str = "--checks=-*,\
clang-analyzer-*,-clang-analyzer-security.insecureAPI.*,-clang-analyzer-optin.performance.Padding,\
-clang-analyzer-osx.*,-clang-analyzer-optin.osx.*,\
bugprone-*,-bugprone-easily-swappable-parameters,\
cert-*,-cert-err34-c,-cert-err58-cpp,-cert-msc30-c,-cert-msc50-cpp,-cert-msc32-c,-cert-msc51-cpp,\
cppcoreguidelines-virtual-class-destructor,\
misc-*,-misc-unused-parameters,-misc-non-private-member-variables-in-classes,-misc-no-recursion,\
performance-*,portability-*,readability-misleading-indentation";
/// cppcheck's report file in the box.
const CPPCHECK_XML: &str = "cppcheck.xml";
/// oclint's report file in the box.
const OCLINT_JSON: &str = "oclint.json";
/// The largest report read.
const REPORT_MAX: u64 = 32 * 1024 * 1024;
/// oclint's home page.
const OCLINT_URL: &str = "http://oclint.org";

/// An installed analyser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Analyser {
    /// oclint.
    Oclint,
    /// clang-tidy.
    ClangTidy,
    /// cppcheck.
    Cppcheck,
}

impl Analyser {
    /// The analyser's program name.
    pub fn program(self) -> &'static str {
        match self {
            Analyser::Oclint => "oclint",
            Analyser::ClangTidy => "clang-tidy",
            Analyser::Cppcheck => "cppcheck",
        }
    }

    fn url(self) -> &'static str {
        match self {
            Analyser::Oclint => OCLINT_URL,
            Analyser::ClangTidy => CLANG_TIDY_URL,
            Analyser::Cppcheck => CPPCHECK_URL,
        }
    }

    /// The analyser's argv (templated: `{sources}` are the translation units).
    fn argv(self, language: Language) -> Vec<String> {
        let cpp = language == Language::Cpp;
        let std = if cpp { "-std=gnu++17" } else { "-std=gnu11" };
        let args: Vec<&str> = match self {
            // `--config={}` keeps a `.clang-tidy` file among the sources from changing the checks.
            Analyser::ClangTidy => vec![
                "clang-tidy",
                "--quiet",
                "--config={}",
                CLANG_TIDY_CHECKS,
                "--header-filter=.*",
                "{sources}",
                "--",
                std,
                "-I.",
            ],
            // No --inline-suppr: a submission does not get to silence its findings.
            Analyser::Cppcheck => vec![
                "cppcheck",
                "--xml",
                "--enable=warning,style,performance,portability",
                "-q",
                if cpp {
                    "--language=c++"
                } else {
                    "--language=c"
                },
                if cpp { "--std=c++17" } else { "--std=c11" },
                "--output-file=cppcheck.xml",
                "{sources}",
            ],
            Analyser::Oclint => vec![
                "oclint",
                "-report-type=json",
                "-o=oclint.json",
                "-max-priority-1=1000000",
                "-max-priority-2=1000000",
                "-max-priority-3=1000000",
                "{sources}",
                "--",
                std,
                "-I.",
            ],
        };
        args.into_iter().map(str::to_owned).collect()
    }
}

/// The analyser a static test uses: the configured one, or (auto) oclint if installed,
/// else clang-tidy, else cppcheck.
fn choose(config: StaticAnalyser) -> Result<Analyser, String> {
    let installed = |a: Analyser| crate::toolchain::find_program(a.program()).is_some();
    let wanted = match config {
        StaticAnalyser::Auto => {
            return [Analyser::Oclint, Analyser::ClangTidy, Analyser::Cppcheck]
                .into_iter()
                .find(|&a| installed(a))
                .ok_or_else(|| {
                    "no static analyser is installed: install clang-tidy or cppcheck".to_owned()
                });
        }
        StaticAnalyser::Oclint => Analyser::Oclint,
        StaticAnalyser::ClangTidy => Analyser::ClangTidy,
        StaticAnalyser::Cppcheck => Analyser::Cppcheck,
    };
    if installed(wanted) {
        Ok(wanted)
    } else {
        Err(format!(
            "{} is configured as the static analyser (special.static_analyser) but is not installed",
            wanted.program()
        ))
    }
}

/// `"clang-tidy 14.0.6"`: the tool and the first version-looking word of `--version`, asked
/// once per process.
fn version_of(analyser: Analyser) -> String {
    static VERSIONS: OnceLock<Mutex<HashMap<&'static str, String>>> = OnceLock::new();
    let versions = VERSIONS.get_or_init(Default::default);
    let program = analyser.program();
    if let Some(v) = versions.lock().ok().and_then(|m| m.get(program).cloned()) {
        return v;
    }
    let profile = LanguageProfile {
        version: vec![program.to_owned(), "--version".to_owned()],
        ..LanguageProfile::default()
    };
    let line = crate::probe(Language::Cpp, &profile, Duration::from_secs(10))
        .version
        .unwrap_or_default();
    let number = line
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ':', ')']))
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()) && w.contains('.'));
    let version = match number {
        Some(n) => format!("{program} {n}"),
        None => program.to_owned(),
    };
    if let Ok(mut m) = versions.lock() {
        m.insert(program, version.clone());
    }
    version
}

/// Why the analyser itself failed (a limit, a signal, an exit status it does not use for
/// findings), or `None` when its report can be read.
fn analyser_failure(
    analyser: Analyser,
    outcome: &RunOutcome,
    limits: &RunLimits,
    stderr: &Capture,
) -> Option<String> {
    let program = analyser.program();
    let reason = if let Some(limit) = outcome.limit_hit {
        format!(
            "{program} hit its {limit:?} limit ({} ms CPU, {} KB)",
            limits.time_ms,
            limits.memory_kb.unwrap_or(0)
        )
    } else {
        match (analyser, outcome.exit) {
            (_, ExitKind::Signaled(sig)) => {
                format!("{program} was killed by signal {}", signal_name(Some(sig)))
            }
            (_, ExitKind::Exited(0)) => return None,
            // clang-tidy exits 1 when the code does not compile (reported as findings).
            (Analyser::ClangTidy, ExitKind::Exited(1)) => return None,
            // oclint's exit status tells about thresholds and compile errors; its report decides.
            (Analyser::Oclint, ExitKind::Exited(_)) => return None,
            (_, ExitKind::Exited(code)) => format!("{program} exited with code {code}"),
        }
    };
    Some(if stderr.is_empty() {
        reason
    } else {
        format!("{reason}\nstderr:\n{}", stderr.excerpt(2048))
    })
}

/// The analyser's findings as an oclint-shaped report.
fn read_report(
    analyser: Analyser,
    output: &RunOutput,
    box_path: &Path,
    number_of_files: usize,
) -> Result<StaticReport, String> {
    let program = analyser.program();
    let file = |name: &str| match read_box_text(&output.box_dir, name, REPORT_MAX) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(format!("{program} wrote no {name}")),
        Err(reason) => Err(format!("{program}'s {name} is unusable: {reason}")),
    };
    let violations = match analyser {
        Analyser::Oclint => {
            return parse_oclint_json(&file(OCLINT_JSON)?, box_path)
                .map_err(|e| format!("{program}'s report: {e}"));
        }
        Analyser::ClangTidy => {
            let stdout = read_capped(&output.stdout, REPORT_MAX).map_err(|e| e.to_string())?;
            parse_clang_tidy(&String::from_utf8_lossy(&stdout), box_path)
        }
        Analyser::Cppcheck => parse_cppcheck_xml(&file(CPPCHECK_XML)?, box_path)
            .map_err(|e| format!("{program}'s report: {e}"))?,
    };
    let timestamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let tool = StaticTool {
        url: analyser.url().to_owned(),
        version: version_of(analyser),
    };
    Ok(build_static_report(
        violations,
        u32::try_from(number_of_files).unwrap_or(u32::MAX),
        &tool,
        timestamp,
    ))
}

/// `"clang-tidy 14.0.6: 3 findings (priority 1: 0, priority 2: 3, priority 3: 0)"`.
fn summary(report: &StaticReport, analyser: Analyser) -> String {
    let program = analyser.program();
    let tool = if report.version.starts_with(program) {
        report.version.clone()
    } else {
        // oclint's own report carries a bare version number.
        format!("{program} {}", report.version)
    };
    let n = report.violation.len();
    if n == 0 {
        return format!("{tool}: no findings");
    }
    let counts: Vec<String> = report
        .summary
        .number_of_violations_with_priority
        .iter()
        .map(|c| format!("priority {}: {}", c.priority, c.number))
        .collect();
    let noun = if n == 1 { "finding" } else { "findings" };
    format!("{tool}: {n} {noun} ({})", counts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_picks_an_installed_analyser_or_says_what_to_install() {
        match choose(StaticAnalyser::Auto) {
            Ok(a) => assert!(crate::toolchain::find_program(a.program()).is_some()),
            Err(reason) => {
                assert_eq!(
                    reason,
                    "no static analyser is installed: install clang-tidy or cppcheck"
                )
            }
        }
    }

    #[test]
    fn the_clang_tidy_checks_are_one_argument() {
        assert!(!CLANG_TIDY_CHECKS.contains(char::is_whitespace));
        assert!(CLANG_TIDY_CHECKS.contains(",cppcoreguidelines-virtual-class-destructor,"));
        assert!(!CLANG_TIDY_CHECKS.contains("init-variables"));
    }

    #[test]
    fn the_summary_names_the_tool_and_counts_by_priority() {
        let tool = |version: &str| StaticTool {
            url: OCLINT_URL.to_owned(),
            version: version.to_owned(),
        };
        let empty = build_static_report(Vec::new(), 1, &tool("22.02"), 0);
        assert_eq!(
            summary(&empty, Analyser::Oclint),
            "oclint 22.02: no findings"
        );
        let finding = |priority: u8| verdict_contracts::Violation {
            path: "a.cpp".into(),
            rule: "r".into(),
            start_line: u32::from(priority),
            start_column: 1,
            end_line: u32::from(priority),
            end_column: 1,
            message: "m".into(),
            category: "c".into(),
            priority,
        };
        let report =
            build_static_report(vec![finding(1), finding(2)], 1, &tool("cppcheck 2.10"), 0);
        assert_eq!(
            summary(&report, Analyser::Cppcheck),
            "cppcheck 2.10: 2 findings (priority 1: 1, priority 2: 1, priority 3: 0)"
        );
    }

    #[test]
    fn c_sources_are_analysed_as_c() {
        let argv = Analyser::ClangTidy.argv(Language::C);
        assert!(argv.contains(&"-std=gnu11".to_owned()));
        let argv = Analyser::Cppcheck.argv(Language::Cpp);
        assert!(argv.contains(&"--language=c++".to_owned()));
        assert!(!argv.iter().any(|a| a == "--inline-suppr"));
    }
}
