//! Every language of the contract through the real `judge run`: an A+B program is compiled, run
//! and Accepted under 256 MB and a proc_limit of 10 (managed runtimes included); a compile
//! error is a Compilation Error with a log; a Java program allocating past its limit is Memory
//! Limit Exceeded; compiler bombs end as Compilation Errors within the compile limits.
//!
//! A language whose toolchain is missing here is reported as `skipped: <lang>: toolchain
//! missing` (never as passed), unless `VERDICT_REQUIRE_LANGS` (comma-separated) names it: then
//! a missing toolchain fails the test. CI sets it to the languages it installs.
//! `VERDICT_TEST_LANGS` (comma-separated) restricts the A+B test to some languages while working
//! on their profiles.

use crate::common::{
    SourceFile, TestLimits, a_plus_b_accepted, a_plus_b_data, error_log, judge_run,
    language_examples, sources_in, statuses, submission,
};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use verdict_contracts::Language;
use verdict_scripts::{LanguageProfiles, missing_programs};

/// How many languages are judged at once (each `judge run` runs up to 2 boxes itself).
const WORKERS: usize = 3;

/// The languages `VERDICT_REQUIRE_LANGS` names.
fn required_languages() -> Vec<String> {
    std::env::var("VERDICT_REQUIRE_LANGS")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether `language`'s toolchain is here: `Err(reason)` to skip it; panics when it is required.
#[allow(clippy::print_stderr)]
fn toolchain_ready(language: Language) -> Result<(), String> {
    let profiles = LanguageProfiles::builtin().expect("built-in profiles");
    let profile = profiles
        .get(language)
        .unwrap_or_else(|| panic!("no built-in profile for {language}"));
    let missing = missing_programs(profile);
    if missing.is_empty() {
        return Ok(());
    }
    let reason = format!(
        "toolchain missing ({} not found; package {})",
        missing.join(", "),
        profile.package
    );
    assert!(
        !required_languages().iter().any(|l| l == language.as_str()),
        "{language} is required by VERDICT_REQUIRE_LANGS but its {reason}"
    );
    eprintln!("skipped: {language}: {reason}");
    Err(reason)
}

/// What happened to one language.
enum Outcome {
    Passed(Duration),
    Skipped(String),
    Failed(String),
}

/// A+B Accepted in every test, then (for languages with a compile or check step) the CE program.
fn check_language(language: Language) -> Result<(), String> {
    let name = language.as_str();
    let dir = language_examples().join(name);
    let data = a_plus_b_data();
    let ab = sources_in(&dir.join("ab"));
    let report = judge_run(&submission(
        name,
        &format!("ab-{name}"),
        &ab,
        &data,
        TestLimits::default(),
    ));
    let got = statuses(&report);
    if got.len() != data.len() + 1 || got.iter().any(|s| s != "Accepted") {
        return Err(format!(
            "A+B: expected Accepted x{}, got {got:?}\n{}",
            data.len() + 1,
            serde_json::to_string_pretty(&report["results"]).unwrap_or_default()
        ));
    }

    let profiles = LanguageProfiles::builtin().expect("built-in profiles");
    let has_compile_step = profiles
        .get(language)
        .and_then(|p| p.compile_template())
        .is_some();
    let ce_dir = dir.join("ce");
    if has_compile_step != ce_dir.is_dir() {
        return Err(format!(
            "examples/languages/{name}/ce must exist exactly when the language has a compile or check step"
        ));
    }
    if !has_compile_step {
        return Ok(());
    }
    let report = judge_run(&submission(
        name,
        &format!("ce-{name}"),
        &sources_in(&ce_dir),
        &data,
        TestLimits::default(),
    ));
    let got = statuses(&report);
    let log = error_log(&report, 0);
    if got.first().map(String::as_str) != Some("Compilation Error") || log.trim().is_empty() {
        return Err(format!(
            "CE: expected Compilation Error with a log, got {got:?}: {log:?}"
        ));
    }
    if got[1..].iter().any(|s| s != "Dependency Not Satisfied") {
        return Err(format!(
            "CE: tests after a compile error must be Dependency Not Satisfied, got {got:?}"
        ));
    }
    Ok(())
}

#[test]
#[allow(clippy::print_stderr)]
fn every_language_accepts_a_plus_b_under_256_mb_and_10_processes_and_rejects_a_compile_error() {
    for lang in required_languages() {
        assert!(
            Language::from_name(&lang).is_some(),
            "VERDICT_REQUIRE_LANGS names {lang:?}, not a language of the contract"
        );
    }
    let only: Vec<String> = std::env::var("VERDICT_TEST_LANGS")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let languages: Vec<Language> = Language::ALL
        .into_iter()
        .filter(|l| only.is_empty() || only.iter().any(|o| o == l.as_str()))
        .collect();
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<(Language, Outcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                while let Some(&language) = languages.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let outcome = match toolchain_ready(language) {
                        Err(reason) => Outcome::Skipped(reason),
                        Ok(()) => {
                            let started = Instant::now();
                            match check_language(language) {
                                Ok(()) => Outcome::Passed(started.elapsed()),
                                Err(e) => Outcome::Failed(e),
                            }
                        }
                    };
                    outcomes.lock().unwrap().push((language, outcome));
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|(l, _)| *l);
    let mut failures = Vec::new();
    eprintln!("languages:");
    for (language, outcome) in &outcomes {
        match outcome {
            Outcome::Passed(took) => {
                eprintln!("  passed:  {language} ({:.1} s)", took.as_secs_f64())
            }
            Outcome::Skipped(reason) => eprintln!("  skipped: {language}: {reason}"),
            Outcome::Failed(e) => {
                eprintln!("  FAILED:  {language}");
                failures.push(format!("{language}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Judges one program from `examples/languages/<dir>` with the given limits (A+B data).
fn judge_example(language: Language, dir: &str, limits: TestLimits) -> serde_json::Value {
    let files: Vec<SourceFile> = sources_in(&language_examples().join(dir));
    let id = dir.replace('/', "-");
    judge_run(&submission(
        language.as_str(),
        &id,
        &files,
        &a_plus_b_data()[..1],
        limits,
    ))
}

/// A program of `language` keeping 1 GiB alive under 256 MB is Memory Limit Exceeded.
fn assert_memory_limit_exceeded(language: Language) {
    if toolchain_ready(language).is_err() {
        return;
    }
    let dir = format!("{}/mle", language.as_str());
    let report = judge_example(language, &dir, TestLimits::default());
    assert_eq!(
        statuses(&report),
        ["Accepted", "Memory Limit Exceeded"],
        "{}",
        serde_json::to_string_pretty(&report).unwrap()
    );
}

#[test]
fn java_allocating_past_its_limit_is_memory_limit_exceeded() {
    assert_memory_limit_exceeded(Language::Java);
}

#[test]
fn js_allocating_past_its_limit_is_memory_limit_exceeded() {
    assert_memory_limit_exceeded(Language::Js);
}

#[test]
fn scala_object_main_extending_app_in_a_lowercase_file_is_accepted() {
    if toolchain_ready(Language::Scala).is_err() {
        return;
    }
    let report = judge_example(Language::Scala, "scala/app", TestLimits::default());
    assert_eq!(
        statuses(&report),
        ["Accepted", "Accepted"],
        "{}",
        serde_json::to_string_pretty(&report).unwrap_or_default()
    );
}

/// A compiler bomb must end as a Compilation Error that says which compile limit it hit, quickly.
#[allow(clippy::print_stderr)]
fn assert_bomb_defused(language: Language, dir: &str, reasons: &[&str]) {
    if toolchain_ready(language).is_err() {
        return;
    }
    let started = Instant::now();
    let report = judge_example(language, dir, TestLimits::default());
    let took = started.elapsed();
    let got = statuses(&report);
    let log = error_log(&report, 0);
    eprintln!(
        "{dir}: {:?} after {took:?}: {}",
        got[0],
        log.lines().last().unwrap_or("")
    );
    assert_eq!(got[0], "Compilation Error", "{log}");
    assert!(
        reasons.iter().any(|r| log.contains(r)),
        "no clear reason (one of {reasons:?}) in: {log}"
    );
    assert!(
        took < Duration::from_secs(45),
        "a compiler bomb took {took:?}"
    );
}

#[test]
fn a_template_explosion_is_a_compilation_error_within_the_compile_limits() {
    assert_bomb_defused(
        Language::Cpp,
        "cpp/bomb-template",
        &["the compiler exceeded its"],
    );
}

#[test]
fn including_dev_urandom_is_a_compilation_error_within_the_compile_limits() {
    // The compiler reads until a compile limit stops it; where the box cannot open the device,
    // the compiler's own message names it.
    assert_bomb_defused(
        Language::C,
        "c/bomb-urandom",
        &["the compiler exceeded its", "/dev/urandom"],
    );
}

#[test]
fn every_language_of_the_contract_has_a_profile_whose_toolchain_can_be_looked_up() {
    let profiles = LanguageProfiles::builtin().expect("built-in profiles");
    for language in Language::ALL {
        let profile = profiles
            .get(language)
            .unwrap_or_else(|| panic!("no built-in profile for {language}"));
        assert!(!profile.package.is_empty(), "{language}: no package");
        assert!(
            !profile.version.is_empty(),
            "{language}: no version command"
        );
        // The "not installed" check looks up the first program of compile, check and run: one
        // of them must be the toolchain itself, not a shell or `env`.
        let programs: Vec<&str> = [
            profile.compile.as_deref(),
            profile.check.as_deref(),
            Some(profile.run.as_slice()),
        ]
        .into_iter()
        .flatten()
        .filter_map(|argv| argv.first().map(String::as_str))
        .collect();
        assert!(
            programs
                .iter()
                .any(|p| !matches!(*p, "sh" | "bash" | "env") && !p.starts_with("./"))
                || language == Language::Bash,
            "{language}: no toolchain program among {programs:?}"
        );
    }
}

/// The list of languages is the contract's enum (`Language::ALL` is derived from it, not
/// counted); each one needs its examples, which this checks without any toolchain.
#[test]
fn every_language_has_its_examples() {
    let profiles = LanguageProfiles::builtin().expect("built-in profiles");
    for language in Language::ALL {
        let dir = language_examples().join(language.as_str());
        let ab = dir.join("ab");
        assert!(
            ab.is_dir() && !sources_in(&ab).is_empty(),
            "{language}: no A+B example in {}",
            ab.display()
        );
        let has_compile_step = profiles
            .get(language)
            .and_then(|p| p.compile_template())
            .is_some();
        assert_eq!(
            dir.join("ce").is_dir(),
            has_compile_step,
            "{language}: examples/languages/{language}/ce must exist exactly when the language has a compile or check step"
        );
    }
    for entry in std::fs::read_dir(language_examples()).expect("examples/languages") {
        let name = entry.expect("an entry").file_name();
        let name = name.to_string_lossy();
        assert!(
            name == "testdata" || Language::from_name(&name).is_some(),
            "examples/languages/{name} is no language of the contract"
        );
    }
}

#[test]
fn install_script_lists_the_package_of_every_profile() {
    let output = std::process::Command::new("bash")
        .arg(crate::common::repo_root().join("scripts/install-toolchains.sh"))
        .arg("--list")
        .output()
        .expect("run install-toolchains.sh");
    assert!(output.status.success());
    let listed: Vec<(String, String)> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(l, p)| (l.to_owned(), p.to_owned()))
        .collect();
    let profiles = LanguageProfiles::builtin().expect("built-in profiles");
    let expected: Vec<(String, String)> = profiles
        .iter()
        .map(|(l, p)| (l.as_str().to_owned(), p.package.clone()))
        .collect();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    assert_eq!(listed_sorted, expected);
}

#[test]
fn a_language_whose_toolchain_is_missing_is_a_system_error_naming_the_package() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("verdict.toml");
    std::fs::write(
        &config,
        "[languages.lua]\ncheck = [\"verdict-no-such-luac\", \"-p\", \"{main}\"]\nrun = [\"verdict-no-such-lua\", \"{main}\"]\npackage = \"lua5.4\"\n",
    )
    .unwrap();
    let files = sources_in(&language_examples().join("lua/ab"));
    let sub = submission(
        "lua",
        "missing-lua",
        &files,
        &a_plus_b_data()[..1],
        TestLimits::default(),
    );
    let file = dir.path().join("sub.json");
    std::fs::write(&file, serde_json::to_vec(&sub).unwrap()).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_judge"))
        .arg("run")
        .arg(&file)
        .arg("--config")
        .arg(&config)
        .arg("--work-dir")
        .arg(dir.path().join("work"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .output()
        .expect("run judge");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no report ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(statuses(&report)[0], "System Error", "{report}");
    let log = error_log(&report, 0);
    assert!(
        log.starts_with("toolchain for lua is not installed: verdict-no-such-luac")
            && log.contains("lua5.4"),
        "{log}"
    );
}

#[test]
fn entry_points_name_the_java_class_and_the_python_script() {
    if toolchain_ready(Language::Java).is_ok() {
        // No entry_point: the first file is the main class, its path giving the package.
        let main = SourceFile::new(
            "cn/org/vmatrix/Main.java",
            "package cn.org.vmatrix;\n\npublic class Main {\n    public static void main(String[] args) {\n        java.util.Scanner in = new java.util.Scanner(System.in);\n        System.out.println(Adder.add(in.nextLong(), in.nextLong()));\n    }\n}\n",
        );
        let adder = SourceFile::new(
            "cn/org/vmatrix/Adder.java",
            "package cn.org.vmatrix;\n\nclass Adder {\n    static long add(long a, long b) { return a + b; }\n}\n",
        );
        a_plus_b_accepted("java", "entry-java-package", &[main, adder], None);
    }
    if toolchain_ready(Language::Python3).is_ok() {
        // entry_point names the script; the other file is a module beside it.
        let helper = SourceFile::new("adder.py", "def add(a, b):\n    return a + b\n");
        let main = SourceFile::new(
            "solution.py",
            "from adder import add\n\na, b = map(int, input().split())\nprint(add(a, b))\n",
        );
        let files = [helper, main];
        a_plus_b_accepted(
            "python3",
            "entry-python-script",
            &files,
            Some("solution.py"),
        );
    }
}

/// Kotlin ran the class kotlinc recorded in the jar's manifest whatever
/// `entry_point` said; `entry_point` now names the class to run.
#[test]
fn kotlin_entry_point_names_the_class_to_run() {
    if toolchain_ready(Language::Kotlin).is_err() {
        return;
    }
    let decoy = SourceFile::new(
        "main.kt",
        "fun main() {\n    println(\"not this one\")\n}\n",
    );
    let second = SourceFile::new(
        "second.kt",
        "fun main() {\n    val (a, b) = readLine()!!.trim().split(Regex(\"\\\\s+\")).map { it.toLong() }\n    println(a + b)\n}\n",
    );
    a_plus_b_accepted(
        "kotlin",
        "entry-kotlin-class",
        &[decoy, second],
        Some("SecondKt"),
    );
}

/// Debian's kotlinc is 1.3: a program calling `readln()` (Kotlin 1.6+) does not compile, and
/// the log says why and what to write instead rather than leaving "unresolved reference".
#[test]
fn a_kotlin_program_calling_readln_is_told_the_kotlin_version() {
    if toolchain_ready(Language::Kotlin).is_err() {
        return;
    }
    let source = SourceFile::new(
        "main.kt",
        "fun main() {\n    val (a, b) = readln().split(' ').map { it.toLong() }\n    println(a + b)\n}\n",
    );
    let report = judge_run(&submission(
        "kotlin",
        "kotlin-readln",
        &[source],
        &a_plus_b_data()[..1],
        TestLimits::default(),
    ));
    assert_eq!(statuses(&report)[0], "Compilation Error", "{report}");
    let log = error_log(&report, 0);
    assert!(log.contains("unresolved reference: readln"), "{log}");
    assert!(
        log.contains("\nhint: readln() and readlnOrNull() are Kotlin 1.6+")
            && log.contains("readLine()!!"),
        "{log}"
    );
}
