//! Tests in the record's own language (HumanEval-X, MultiPL-E, `verification_info` in C++, Rust
//! or JavaScript): each sample is assembled into a program of that language
//! ([`assemble_humaneval_x`], [`assemble_multiple`]), built **once** in the sandbox with the
//! language's profile (`crates/scripts/languages.toml`) and run per test. A compile error is
//! the sample's failure, never the judge's.
//!
//! The test program decides, not the exit status: the harness reads a nonce from stdin (fresh
//! per run, never in the sources) and prints it only once every test has passed; a sample
//! passes when its run printed that line (and, for Go's and Rust's test harnesses, their
//! result line after it). A completion that exits with status 0 before the tests end, or that
//! prints a forged success line, fails (docs/datasets.md, "Programs in other languages").

mod multiple_mbxp;

pub use multiple_mbxp::{assemble_mbxp, assemble_multiple, cut_at_stop_tokens};

use crate::problem::{HumanEvalXTest, InvalidCase, Problem, ProgramKind, ProgramTests, StdioTests};
use crate::result::{SampleResult, TestOutcome};
use crate::runs::{Batch, Judged};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use verdict_compare::tokens::{first_difference, outputs_match};
use verdict_contracts::batch::default_file_name;
use verdict_contracts::judge::{Asset, Language, SourceCode};
use verdict_contracts::oracle::OracleCaseStatus;
use verdict_oracle::Executor;
use verdict_scripts::{
    BOX_PATH, BoxFile, CompileLimits, CompileOutcome, CompileRequest, ExitKind, LanguageProfile,
    LimitHit, RunLimits, RunRequest, read_capture,
};

/// A sample made into a program: its files and how it is built, run and judged.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Assembled {
    /// The files, the main one first: `(name, content)`.
    pub files: Vec<(String, String)>,
    /// The class or file to run (Java's harness class), when not the first file.
    pub entry_point: Option<String>,
    /// Arguments added to the profile's compile command.
    pub compile_extra: Vec<String>,
    /// Arguments added to the profile's run command.
    pub run_args: Vec<String>,
    /// Whether Go builds a test binary (`go test -c`) instead of a program.
    pub go_test: bool,
    /// A jar put on Java's class path beside the build (javatuples for MultiPL-E).
    pub java_classpath: Option<String>,
    /// Host directories the build and its runs see read-only (Rust's crates).
    pub mounts: Vec<String>,
    /// What makes the run pass.
    pub rule: Rule,
}

impl Assembled {
    /// One source file `name` judged by `rule`, with nothing else added.
    fn single(name: &str, content: String, rule: Rule) -> Assembled {
        Assembled {
            files: vec![(name.to_string(), content)],
            entry_point: None,
            compile_extra: Vec::new(),
            run_args: Vec::new(),
            go_test: false,
            java_classpath: None,
            mounts: Vec::new(),
            rule,
        }
    }
}

/// What decides whether a run passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Exit status 0 and the nonce on a line of its own.
    Nonce,
    /// Exit status 0, stdout exactly a blank line and the nonce, and nothing on stderr
    /// (CodeGeeX's JavaScript rule: `console.assert` only writes to stderr).
    NonceQuiet,
    /// Exit status 0, the nonce on a line of its own, and nothing on stderr (MultiPL-E's Scala
    /// rule).
    NonceNoStderr,
    /// Go's test binary: exit status 0, its `PASS` line, then the nonce (from `TestMain`).
    GoTest,
    /// Rust's libtest: exit status 0, the nonce (from a test sorted last), then `test result:
    /// ok. N passed; 0 failed` with N what libtest's first line said it runs (`running N
    /// tests`; a test in a comment is not one, as Rust/32's).
    RustTest,
    /// A whole program: stdout compared with the test's expected output.
    Stdio,
}

/// Why a sample cannot be made into a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unassembled {
    /// The record's test is not in the shape its harness assembles (`invalid_test_format`).
    Invalid(InvalidCase),
    /// The program needs what this judge does not have (an `infra_error`, not retryable).
    Infra(String),
}

/// The C++ headers CodeGeeX puts before a program whose prompt lacks them (`IMPORT_HELPER`).
const CPP_HELPER: [&str; 9] = [
    "#include<stdlib.h>",
    "#include<algorithm>",
    "#include<math.h>",
    "#include<stdio.h>",
    "#include<vector>",
    "#include<string>",
    "#include<climits>",
    "#include<cstring>",
    "#include<iostream>",
];

/// The Go packages CodeGeeX imports when the completion uses them (`IMPORT_HELPER["go"]`).
const GO_HELPER: [&str; 10] = [
    "math",
    "strings",
    "fmt",
    "strconv",
    "time",
    "bytes",
    "regexp",
    "sort",
    "math/rand",
    "crypto/md5",
];

/// The Python imports CodeGeeX puts before every program (`IMPORT_HELPER["python"]`).
const PYTHON_HELPER: [&str; 16] = [
    "import math",
    "import re",
    "import sys",
    "import copy",
    "import datetime",
    "import itertools",
    "import collections",
    "import heapq",
    "import statistics",
    "import functools",
    "import hashlib",
    "import numpy",
    "import numpy as np",
    "import string",
    "from typing import *",
    "from collections import *",
];

/// The C++ test's `main`, renamed, is called by this one between the nonce and its echo
/// (`CALL` is the call: with `argc`/`argv` when the test's `main` takes them).
const CPP_MAIN: &str = r#"
#include <cstdio>
int main() {
    char verdict_nonce[128] = {0};
    if (!std::fgets(verdict_nonce, sizeof verdict_nonce, stdin)) return 2;
    char verdict_arg0[] = "main";
    char *verdict_argv[] = {verdict_arg0, nullptr};
    (void)verdict_argv;
    int verdict_code = CALL;
    std::fflush(stdout);
    if (verdict_code == 0) std::printf("\n%s", verdict_nonce);
    return verdict_code;
}
"#;

/// Where npm's global packages are (CodeGeeX's JavaScript environment has js-md5).
const NODE_MODULES: &str = "/usr/lib/node_modules";

/// Where Debian's `libjavatuples-java` puts javatuples (MultiPL-E's Java imports it).
const JAVATUPLES: &str = "/usr/share/java/javatuples.jar";

/// Java's harness class: the nonce, the test class's `main`, then the nonce echoed; with
/// `assertions`, `assert` is on in the test class (as `java -ea` turns it on).
fn java_main(class: &str, assertions: bool) -> String {
    let enable = if assertions {
        "ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(true);\n        "
    } else {
        ""
    };
    format!(
        "public class VerdictMain {{\n    public static void main(String[] args) throws Throwable {{\n        String nonce = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();\n        {enable}{class}.main(args);\n        System.out.flush();\n        System.out.print(\"\\n\" + nonce + \"\\n\");\n        System.out.flush();\n    }}\n}}\n"
    )
}

/// Go's harness: `TestMain` around the test binary's own run, in the tests' package.
fn go_main(package: &str) -> String {
    format!(
        "package {package}\n\nimport (\n\t\"bufio\"\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {{\n\tnonce, _ := bufio.NewReader(os.Stdin).ReadString('\\n')\n\tcode := m.Run()\n\tif code == 0 {{\n\t\tos.Stdout.WriteString(\"\\n\" + nonce)\n\t}}\n\tos.Exit(code)\n}}\n"
    )
}

/// Rust's harness: a test libtest runs last (tests run in name order on one thread).
const RUST_NONCE_TEST: &str = r#"
#[cfg(test)]
#[test]
fn zzzz_verdict_completion_marker() {
    let mut verdict_nonce = String::new();
    let _ = std::io::stdin().read_line(&mut verdict_nonce);
    print!("\n{verdict_nonce}");
}
"#;

/// The crates of CodeGeeX's Rust project built for the sandbox's rustc
/// (`scripts/install-dataset-extras.sh`): a directory of rlibs and its `externs` file of
/// `name=file.rlib` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustCrates {
    /// The directory of the rlibs (and their dependencies).
    pub dir: String,
    /// Each crate's name and rlib file in `dir`.
    pub externs: Vec<(String, String)>,
}

/// Where `scripts/install-dataset-extras.sh` puts the crates by default.
pub const RUST_CRATES_DIR: &str = "/usr/local/lib/verdict/humaneval-x-rust";

impl RustCrates {
    /// The crates installed on this host (`VERDICT_RUST_CRATES_DIR`, else [`RUST_CRATES_DIR`]),
    /// read once; `None` when there are none.
    pub fn installed() -> Option<&'static RustCrates> {
        static CRATES: std::sync::OnceLock<Option<RustCrates>> = std::sync::OnceLock::new();
        CRATES
            .get_or_init(|| {
                let dir = std::env::var("VERDICT_RUST_CRATES_DIR")
                    .unwrap_or_else(|_| RUST_CRATES_DIR.to_string());
                let text = std::fs::read_to_string(Path::new(&dir).join("externs")).ok()?;
                let externs: Vec<(String, String)> = text
                    .lines()
                    .filter_map(|l| l.split_once('='))
                    .map(|(n, f)| (n.trim().to_string(), f.trim().to_string()))
                    .filter(|(n, f)| !n.is_empty() && Path::new(&dir).join(f).is_file())
                    .collect();
                (!externs.is_empty()).then_some(RustCrates { dir, externs })
            })
            .as_ref()
    }

    fn has(&self, name: &str) -> bool {
        self.externs.iter().any(|(n, _)| n == name)
    }
}

/// The crates HumanEval-X's Rust declarations `use` that a bare `rustc` cannot link, and the
/// text that shows a program needs each.
const RUST_CRATES: [(&str, &str, &str); 3] = [
    ("use rand::Rng;", "rand", "rand::"),
    ("use regex::Regex;", "regex", "Regex"),
    ("use md5;", "md5", "md5::"),
];

/// CodeGeeX's Python post-processing: the generation up to its first line that is neither
/// blank nor indented.
fn python_body(code: &str) -> String {
    let mut kept = Vec::new();
    for line in code.split('\n') {
        if !line.trim().is_empty() && !line.starts_with(' ') && !line.starts_with('\t') {
            break;
        }
        kept.push(line);
    }
    kept.join("\n")
}

/// HumanEval-X's Python program part before the test: CodeGeeX's imports, the prompt and the
/// generation cut at its first unindented line (run by the assertion runner with `test` after).
pub fn humaneval_x_python(test: &HumanEvalXTest, generation: &str) -> String {
    format!(
        "{}\n{}{}\n",
        PYTHON_HELPER.join("\n"),
        test.prompt,
        python_body(generation)
    )
}

/// The program CodeGeeX's `process_humaneval_test` assembles for `generation`, with verdict's
/// nonce harness added (docs/datasets.md, "HumanEval-X"), linking this host's
/// [`RustCrates::installed`].
pub fn assemble_humaneval_x(
    language: Language,
    test: &HumanEvalXTest,
    generation: &str,
) -> Result<Assembled, Unassembled> {
    assemble_humaneval_x_with(language, test, generation, RustCrates::installed())
}

/// [`assemble_humaneval_x`] with the Rust crates given (`None`: none installed).
pub fn assemble_humaneval_x_with(
    language: Language,
    test: &HumanEvalXTest,
    generation: &str,
    crates: Option<&RustCrates>,
) -> Result<Assembled, Unassembled> {
    let t = test;
    let one = Assembled::single;
    match language {
        Language::Cpp => {
            let mut setup = String::new();
            for header in CPP_HELPER {
                if !t.prompt.contains(header) {
                    setup.push_str(header);
                    setup.push('\n');
                }
            }
            let test = rename_cpp_main(&t.test)?;
            let program = format!("{setup}\n{}{generation}\n{test}", t.prompt);
            let mut assembled = one("main.cpp", program, Rule::Nonce);
            // CodeGeeX compiles with -std=c++11, and links OpenSSL for the MD5 problem.
            assembled.compile_extra.push("-std=c++11".into());
            if assembled.files[0].1.contains("openssl/") {
                assembled.compile_extra.push("-lcrypto".into());
            }
            Ok(assembled)
        }
        Language::Go => {
            let prompt = t.prompt.replace(&t.import, "");
            let mut others = Vec::new();
            for pkg in GO_HELPER {
                let last = pkg.rsplit('/').next().unwrap_or(pkg);
                if !t.test_setup.contains(pkg) && generation.contains(&format!("{last}.")) {
                    others.push(format!("\"{pkg}\"\n"));
                }
            }
            let program = if others.is_empty() {
                format!("{}\n{prompt}{generation}\n{}", t.test_setup, t.test)
            } else {
                let imports = format!("import (\n{})", others.join("    "));
                format!(
                    "{}\n{imports}\n{prompt}{generation}\n{}",
                    t.test_setup, t.test
                )
            };
            let mut assembled = one("main_test.go", program, Rule::GoTest);
            assembled
                .files
                .push(("verdict_main_test.go".into(), go_main("main")));
            assembled.go_test = true;
            Ok(assembled)
        }
        Language::Java => {
            let program = format!("{}{generation}\n{}", t.prompt, t.test);
            let mut assembled = one("Main.java", program, Rule::Nonce);
            assembled
                .files
                .push(("VerdictMain.java".into(), java_main("Main", false)));
            assembled.entry_point = Some("VerdictMain".into());
            Ok(assembled)
        }
        Language::Js => {
            let program = format!(
                "const verdict_nonce__ = require(\"fs\").readFileSync(0, \"utf8\");\n{}{generation}\n{}\n;process.stdout.write(\"\\n\" + verdict_nonce__);\n",
                t.prompt, t.test
            );
            let mut assembled = one("main.js", program, Rule::NonceQuiet);
            assembled.entry_point = Some("main.js".into());
            Ok(assembled)
        }
        Language::Rust => {
            // The crates CodeGeeX's Cargo project links: used when installed, else their
            // `use` lines are dropped and a program that needs one is the judge's failure.
            let mut declaration = t.declaration.clone();
            let mut extra = Vec::new();
            for (line, krate, _) in RUST_CRATES {
                match crates.filter(|c| c.has(krate)) {
                    Some(_) => {}
                    None => declaration = declaration.replace(line, ""),
                }
            }
            if let Some(crates) = crates {
                extra.push("-L".to_string());
                extra.push(format!("dependency={}", crates.dir));
                for (name, file) in &crates.externs {
                    extra.push("--extern".to_string());
                    extra.push(format!("{name}={}/{file}", crates.dir));
                }
            }
            let program = format!(
                "\nfn main(){{ \n }} \n{declaration}{}{generation}{}\n{RUST_NONCE_TEST}",
                t.prompt, t.test
            );
            let missing = RUST_CRATES.iter().find(|(_, krate, used)| {
                program.contains(used) && !crates.is_some_and(|c| c.has(krate))
            });
            if let Some((_, krate, _)) = missing {
                return Err(Unassembled::Infra(format!(
                    "the program uses the crate {krate}, which HumanEval-X's Cargo project provides: install it with scripts/install-dataset-extras.sh (docs/datasets.md, \"HumanEval-X\")"
                )));
            }
            let mut assembled = one("main.rs", program, Rule::RustTest);
            assembled.compile_extra.push("--test".into());
            assembled.compile_extra.extend(extra);
            if let Some(crates) = crates {
                assembled.mounts.push(crates.dir.clone());
            }
            assembled.run_args = vec!["--test-threads=1".into(), "--nocapture".into()];
            Ok(assembled)
        }
        other => Err(Unassembled::Infra(format!(
            "HumanEval-X has no {other} programs"
        ))),
    }
}

/// C++'s test `int main(){...}` as `int verdict_test_main(){...; return 0;}` (a function
/// other than `main` must return its value) followed by verdict's `main` that calls it, or why
/// the test is not of that shape.
fn rename_cpp_main(test: &str) -> Result<String, Unassembled> {
    let invalid = |message: &str| Unassembled::Invalid(InvalidCase::new("test", message));
    if test.matches("int main(").count() != 1 {
        return Err(invalid(
            "expected exactly one `int main(` in the test program",
        ));
    }
    let renamed = test.replacen("int main(", "int verdict_test_main(", 1);
    let start = renamed.find("int verdict_test_main(").unwrap_or(0);
    let params = renamed[start + "int verdict_test_main(".len()..].trim_start();
    let call = if params.starts_with(')') || params.starts_with("void") {
        "verdict_test_main()"
    } else {
        "verdict_test_main(1, verdict_argv)"
    };
    let harness = CPP_MAIN.replace("CALL", call);
    match renamed.rfind('}') {
        Some(end) if end > start => Ok(format!(
            "{}return 0;\n{}\n{harness}",
            &renamed[..end],
            &renamed[end..]
        )),
        _ => Err(invalid(
            "expected the test program to end with main's closing brace",
        )),
    }
}

/// A sample as a whole program of `language` (stdin/stdout tests).
fn whole_program(language: Language, code: &str) -> Assembled {
    let name = default_file_name(language);
    Assembled {
        entry_point: matches!(language, Language::Js).then(|| name.clone()),
        files: vec![(name, code.to_string())],
        compile_extra: Vec::new(),
        run_args: Vec::new(),
        go_test: false,
        java_classpath: None,
        mounts: Vec::new(),
        rule: Rule::Stdio,
    }
}

/// What the datasets' own environments provide beyond the toolchains (CodeGeeX's
/// `evaluation` directories, MultiPL-E's and mxeval's containers; Debian 12's paths): the text showing a program needs it, where it must be on this
/// host, and the package that puts it there.
const PROVIDED: [(&str, &str, &str); 6] = [
    (
        "use Test::Deep;",
        "/usr/share/perl5/Test/Deep.pm",
        "the Debian package libtest-deep-perl",
    ),
    (
        "use Data::Compare;",
        "/usr/share/perl5/Data/Compare.pm",
        "the Debian package libdata-compare-perl",
    ),
    (
        "require 'test/unit'",
        "/usr/share/rubygems-integration/all/gems/test-unit-*/lib/test/unit.rb",
        "the Debian package ruby-test-unit",
    ),
    (
        "<boost/",
        "/usr/include/boost",
        "the Debian package libboost-dev",
    ),
    (
        "<openssl/",
        "/usr/include/openssl",
        "the Debian package libssl-dev",
    ),
    (
        "require('js-md5')",
        "/usr/lib/node_modules/js-md5",
        "the npm package js-md5 (npm install -g js-md5)",
    ),
];

/// Whether `path` exists; one `*` in a directory's name stands for any text (a gem's version).
fn installed(path: &str) -> bool {
    let Some((before, after)) = path.split_once('*') else {
        return Path::new(path).exists();
    };
    let (dir, prefix) = before.rsplit_once('/').unwrap_or(("", before));
    let (suffix, rest) = after.split_once('/').unwrap_or((after, ""));
    std::fs::read_dir(if dir.is_empty() { "/" } else { dir })
        .into_iter()
        .flatten()
        .flatten()
        .any(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && name.ends_with(suffix) && entry.path().join(rest).exists()
        })
}

/// Why `assembled` cannot run on this host (a library its dataset's environment has and this
/// host lacks), naming the package that would add it.
fn missing_library(assembled: &Assembled) -> Option<String> {
    PROVIDED.iter().find_map(|(used, path, package)| {
        let uses = assembled.files.iter().any(|(_, c)| c.contains(used));
        (uses && !installed(path))
            .then(|| format!("the program needs {path}, which is not installed: install {package}"))
    })
}

/// One test's run: its name, stdin and (stdio) expected stdout.
#[derive(Debug, Clone)]
struct CaseRun {
    index: usize,
    name: String,
    stdin: String,
    expected: Option<String>,
}

/// What a toolchain check says is missing, naming the language and the Debian package.
fn missing_toolchain(
    language: Language,
    profile: &LanguageProfile,
    java_classpath: bool,
) -> Option<String> {
    let missing = verdict_scripts::missing_programs(profile);
    if !missing.is_empty() {
        return Some(verdict_scripts::not_installed_message(
            language, profile, &missing,
        ));
    }
    if java_classpath && !Path::new(JAVATUPLES).is_file() {
        return Some(format!(
            "MultiPL-E's java programs import org.javatuples, which is not installed: install the Debian package libjavatuples-java ({JAVATUPLES})"
        ));
    }
    None
}

/// testify's `assert` as HumanEval-X's Go tests use it, put on GOPATH beside the build:
/// testify itself imports net/http, and a cold build of it costs 22 s of CPU per sample.
const TESTIFY_ASSERT: &str = include_str!("testify_assert.go");

/// Where [`TESTIFY_ASSERT`] goes in the build box (GOPATH layout).
const TESTIFY_PATH: &str = "gopath/src/github.com/stretchr/testify/assert/assertions.go";

/// The profile a build uses: the language's own, with Go's `go build` made `go test -c` (the
/// build's own `gopath` first on GOPATH) and a jar added to Java's `-cp .`.
fn build_profile(profile: &LanguageProfile, assembled: &Assembled) -> LanguageProfile {
    let mut profile = profile.clone();
    profile.mounts.extend(assembled.mounts.iter().cloned());
    if let Some(jar) = &assembled.java_classpath {
        let at = profile.run.iter().position(|a| a == "-cp");
        if let Some(class_path) = at.and_then(|i| profile.run.get_mut(i + 1)) {
            *class_path = format!("{class_path}:{jar}");
        }
    }
    if assembled
        .files
        .iter()
        .any(|(name, _)| name.ends_with(".js"))
        && Path::new(NODE_MODULES).is_dir()
    {
        profile.env.insert("NODE_PATH".into(), NODE_MODULES.into());
    }
    if assembled.go_test {
        if let Some(compile) = profile.compile.as_mut()
            && compile.get(1).map(String::as_str) == Some("build")
        {
            compile[1] = "test".into();
            compile.insert(2, "-c".into());
        }
        let gopath = match profile.env.get("GOPATH") {
            Some(path) => format!("{BOX_PATH}/gopath:{path}"),
            None => format!("{BOX_PATH}/gopath"),
        };
        profile.env.insert("GOPATH".into(), gopath);
    }
    profile
}

/// Judges `programs` (samples' code) of a [`ProgramTests`] problem: one result per program.
pub(crate) async fn judge(
    batch: &Batch<'_>,
    problem: &Problem,
    programs: &[String],
    tests: &ProgramTests,
) -> Vec<Judged> {
    let language = tests.language;
    let total = problem.tests.len();
    let Some(profile) = batch.judge.profiles().get(language).cloned() else {
        return batch.all(
            programs.len(),
            &format!(
                "record {}: no language profile for {language}",
                problem.task_id
            ),
            false,
            total,
        );
    };
    // The cases, and each program assembled (or why it cannot be).
    let mut template: Vec<Option<TestOutcome>> = vec![None; total];
    let mut cases = Vec::new();
    match &tests.kind {
        ProgramKind::HumanEvalX(_) | ProgramKind::MultiPle(_) | ProgramKind::Mbxp(_) => {
            cases.push(CaseRun {
                index: 0,
                name: "check".into(),
                stdin: String::new(),
                expected: None,
            })
        }
        ProgramKind::Stdio(StdioTests { cases: stdio }) => {
            for (i, case) in stdio.iter().enumerate() {
                match &case.body {
                    Err(bad) => {
                        template[i] = Some(TestOutcome {
                            name: case.name.clone(),
                            status: OracleCaseStatus::InvalidTestFormat,
                            message: Some(bad.report(&problem.task_id)),
                            time_ms: 0,
                        })
                    }
                    Ok(io) => cases.push(CaseRun {
                        index: i,
                        name: case.name.clone(),
                        stdin: io.stdin.clone(),
                        expected: Some(io.stdout.clone()),
                    }),
                }
            }
        }
    }
    let assembled: Vec<Result<Assembled, Unassembled>> = programs
        .iter()
        .map(|code| match &tests.kind {
            ProgramKind::HumanEvalX(t) => assemble_humaneval_x(language, t, code),
            ProgramKind::MultiPle(t) => assemble_multiple(language, t, code),
            ProgramKind::Mbxp(t) => assemble_mbxp(language, t, code),
            ProgramKind::Stdio(_) => Ok(whole_program(language, code)),
        })
        .collect();
    let java_classpath = assembled
        .iter()
        .any(|a| matches!(a, Ok(a) if a.java_classpath.is_some()));
    if let Some(message) = missing_toolchain(language, &profile, java_classpath) {
        return batch.all(
            programs.len(),
            &format!("record {}: {message}", problem.task_id),
            false,
            total,
        );
    }
    let cases = Arc::new(cases);
    let template = Arc::new(template);
    let mut results: Vec<Option<Judged>> = vec![None; programs.len()];
    let mut first_of: HashMap<Assembled, usize> = HashMap::new();
    let mut same: Vec<(usize, usize)> = Vec::new();
    let mut running = tokio::task::JoinSet::new();
    let send = |i: usize, judged: &Judged| {
        if let Some(sink) = &batch.run.sink {
            let _ = sink.send((i, judged.clone()));
        }
    };
    for (i, assembled) in assembled.into_iter().enumerate() {
        // A program that needs a library this machine lacks is the judge's failure too.
        let assembled = assembled.and_then(|a| match missing_library(&a) {
            Some(message) => Err(Unassembled::Infra(message)),
            None => Ok(a),
        });
        let assembled = match assembled {
            Ok(a) => a,
            Err(Unassembled::Invalid(bad)) => {
                let judged = Judged::of(SampleResult::of_tests(vec![TestOutcome {
                    name: "check".into(),
                    status: OracleCaseStatus::InvalidTestFormat,
                    message: Some(bad.report(&problem.task_id)),
                    time_ms: 0,
                }]));
                send(i, &judged);
                results[i] = Some(judged);
                continue;
            }
            Err(Unassembled::Infra(message)) => {
                let judged = Judged::of(SampleResult::infra(
                    format!("record {}: {message}", problem.task_id),
                    false,
                    total,
                ));
                send(i, &judged);
                results[i] = Some(judged);
                continue;
            }
        };
        // Identical programs are judged once.
        if let Some(&first) = first_of.get(&assembled) {
            same.push((i, first));
            continue;
        }
        first_of.insert(assembled.clone(), i);
        let job = Job {
            judge: batch.judge.clone(),
            language,
            profile: Arc::new(build_profile(&profile, &assembled)),
            assembled,
            cases: cases.clone(),
            template: template.clone(),
            limits: RunLimits::new(
                batch.timeout_ms,
                batch.oracle.limits.memory_kb,
                batch.oracle.limits.output_bytes.map(|b| b / 1024),
                Some(64 + u64::from(profile.extra_processes)),
            ),
            stop_after_timeout: true,
            stop_at_first_failure: batch.run.options.stop_at_first_failure,
            budget_ms: batch.run.options.candidate_timeout_ms,
            cancel: batch.run.cancel.clone(),
            total,
        };
        running.spawn(async move {
            let started = std::time::Instant::now();
            let judge = job.judge.clone();
            let total = job.total;
            let mut judged = match judge.run_slot().await {
                None => Judged::of(SampleResult::infra(
                    "the judge is shutting down".into(),
                    true,
                    total,
                )),
                Some(_permit) => match tokio::task::spawn_blocking(move || job.run()).await {
                    Ok(judged) => judged,
                    Err(e) => Judged::of(SampleResult::infra(e.to_string(), true, total)),
                },
            };
            judged.time_ms = started.elapsed().as_millis() as u64;
            (i, judged)
        });
    }
    while let Some(done) = running.join_next().await {
        if let Ok((i, judged)) = done {
            send(i, &judged);
            results[i] = Some(judged);
        }
    }
    for (i, first) in same {
        let mut judged = results[first]
            .clone()
            .unwrap_or_else(|| Judged::of(SampleResult::infra("no result".into(), true, total)));
        judged.same_as = Some(first);
        send(i, &judged);
        results[i] = Some(judged);
    }
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| Judged::of(SampleResult::infra("no result".into(), true, total)))
        })
        .collect()
}

/// One program's build and runs, on a blocking thread.
struct Job {
    judge: verdict_scheduler::Judge,
    language: Language,
    profile: Arc<LanguageProfile>,
    assembled: Assembled,
    cases: Arc<Vec<CaseRun>>,
    template: Arc<Vec<Option<TestOutcome>>>,
    limits: RunLimits,
    stop_after_timeout: bool,
    stop_at_first_failure: bool,
    budget_ms: Option<u64>,
    cancel: verdict_scheduler::BatchCancel,
    total: usize,
}

impl Job {
    fn run(&self) -> Judged {
        let executor = self.judge.executor();
        let dir = match tempfile::Builder::new()
            .prefix("dataset-program-")
            .tempdir_in(self.judge.work_root())
        {
            Ok(dir) => dir,
            Err(e) => {
                return Judged::of(SampleResult::infra(
                    format!("cannot make a work dir: {e}"),
                    true,
                    self.total,
                ));
            }
        };
        let judged = self.build_and_run(executor, dir.path());
        executor.remove_box(dir.path());
        judged
    }

    /// Builds the program and runs its cases; cancelling the batch kills its boxes, as the
    /// batch's own candidates'.
    fn build_and_run(&self, executor: &dyn Executor, dir: &Path) -> Judged {
        let cancel = self.cancel.runs();
        let infra = |message: String| Judged::of(SampleResult::infra(message, true, self.total));
        let src = dir.join("src");
        if let Err(e) = std::fs::create_dir_all(&src) {
            return infra(format!("cannot make {}: {e}", src.display()));
        }
        let mut files = Vec::new();
        let mut assets = Vec::new();
        for (name, content) in &self.assembled.files {
            match box_file(&src, name, name, content) {
                Ok(file) => files.push(file),
                Err(message) => return infra(message),
            }
            assets.push(Asset::text(name, content.clone()));
        }
        let mut assist_files = Vec::new();
        if self
            .assembled
            .files
            .iter()
            .any(|(_, c)| c.contains("\"github.com/stretchr/testify/assert\""))
        {
            match box_file(&src, "testify_assert.go", TESTIFY_PATH, TESTIFY_ASSERT) {
                Ok(file) => files.push(file),
                Err(message) => return infra(message),
            }
            assist_files.push(Asset::text(TESTIFY_PATH, TESTIFY_ASSERT.to_string()));
        }
        let source = SourceCode {
            language: self.language,
            entry_point: self.assembled.entry_point.clone(),
            source_files: assets,
            assist_files,
            compile_command: (!self.assembled.compile_extra.is_empty())
                .then(|| self.assembled.compile_extra.clone()),
        };
        let limits: CompileLimits = self.judge.config().compile.limits();
        let build_dir = dir.join("build");
        let compiled = executor.compile(
            cancel,
            &CompileRequest {
                language: self.language,
                profile: self.profile.clone(),
                source: &source,
                files: &files,
                build_dir: &build_dir,
                limits: &limits,
            },
        );
        let mut outcomes: Vec<Option<TestOutcome>> = (*self.template).clone();
        if self.cancel.is_cancelled() {
            return infra("the batch was cancelled".into());
        }
        let build = match compiled {
            Err(e) => return infra(format!("cannot compile: {e}")),
            Ok(CompileOutcome::Failed { log }) => {
                // The sample's failure: its tests all count as not passed, the first says why.
                for (k, case) in self.cases.iter().enumerate() {
                    let message = if k == 0 {
                        format!("compile error: {}", log.trim_end())
                    } else {
                        "not run: the program did not compile".to_string()
                    };
                    outcomes[case.index] = Some(TestOutcome {
                        name: case.name.clone(),
                        status: OracleCaseStatus::Error,
                        message: Some(message),
                        time_ms: 0,
                    });
                }
                let mut sample = SampleResult::of_tests(outcomes.into_iter().flatten().collect());
                if let Some(first) = sample.tests.first() {
                    sample.result =
                        format!("failed: {}", first.message.clone().unwrap_or_default());
                }
                return Judged::of(sample);
            }
            Ok(CompileOutcome::Built { build, .. }) => build,
        };
        let started = std::time::Instant::now();
        let mut stopped: Option<&'static str> = None;
        for (k, case) in self.cases.iter().enumerate() {
            if self.cancel.is_cancelled() {
                stopped = Some("the batch was cancelled");
            }
            if let Some(budget) = self.budget_ms
                && started.elapsed().as_millis() as u64 >= budget
            {
                stopped = Some("the candidate's time budget ran out");
            }
            if stopped.is_some() {
                break;
            }
            let nonce = crate::runs::marker();
            let stdin_text = match &case.expected {
                Some(_) => case.stdin.clone(),
                None => format!("{nonce}\n"),
            };
            let stdin = dir.join(format!("stdin-{k}"));
            if let Err(e) = std::fs::write(&stdin, &stdin_text) {
                return infra(format!("cannot write {}: {e}", stdin.display()));
            }
            let run_dir = dir.join(format!("run-{k}"));
            let request = RunRequest {
                build: &build,
                args: &self.assembled.run_args,
                stdin: Some(&stdin),
                files: &[],
                empty_dirs: &[],
                limits: self.limits,
            };
            let output = match executor.run(cancel, &request, &run_dir) {
                Ok(output) => output,
                Err(e) => {
                    executor.remove_box(&run_dir);
                    return infra(format!("cannot run the program: {e}"));
                }
            };
            let cap = case
                .expected
                .as_ref()
                .map_or(1 << 20, |e| e.len() as u64 * 2 + 4096);
            let stdout = read_capture(&output.stdout, cap)
                .map(|c| String::from_utf8_lossy(&c.bytes).into_owned())
                .unwrap_or_default();
            let stderr = read_capture(&output.stderr, 64 << 10)
                .map(|c| String::from_utf8_lossy(&c.bytes).into_owned())
                .unwrap_or_default();
            executor.remove_box(&run_dir);
            if self.cancel.is_cancelled() {
                // Its box was killed by the cancel: what it says is not the candidate's.
                return infra("the batch was cancelled".into());
            }
            let outcome = decide(
                self.assembled.rule,
                &Ran {
                    exit: output.outcome.exit,
                    limit: output.outcome.limit_hit,
                    stdout: &stdout,
                    stderr: &stderr,
                    time_ms: output.outcome.cpu_time_ms,
                },
                &nonce,
                case,
            );
            let timed_out = outcome.status == OracleCaseStatus::Timeout;
            let failed = outcome.status != OracleCaseStatus::Passed;
            outcomes[case.index] = Some(outcome);
            if timed_out && self.stop_after_timeout {
                stopped = Some(verdict_oracle::NOT_RUN);
                break;
            }
            if failed && self.stop_at_first_failure {
                stopped = Some("stopped at the first failure");
                break;
            }
        }
        for case in self.cases.iter() {
            if outcomes[case.index].is_none() {
                outcomes[case.index] = Some(TestOutcome {
                    name: case.name.clone(),
                    status: OracleCaseStatus::Error,
                    message: Some(stopped.unwrap_or(verdict_oracle::NOT_RUN).to_string()),
                    time_ms: 0,
                });
            }
        }
        let sample = SampleResult::of_tests(outcomes.into_iter().flatten().collect());
        let mut judged = Judged::of(sample);
        if stopped.is_some() && judged.sample.tests.iter().any(|t| t.time_ms == 0) {
            judged.stopped_early = true;
            judged.message = stopped.map(str::to_string);
        }
        judged
    }
}

/// Writes `content` to `dir/file` and names it `name` in the box; the error names the file.
fn box_file(dir: &Path, file: &str, name: &str, content: &str) -> Result<BoxFile, String> {
    let path = dir.join(file);
    std::fs::write(&path, content).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(BoxFile {
        name: name.into(),
        source: path,
    })
}

/// What one run gave.
struct Ran<'a> {
    exit: ExitKind,
    limit: Option<LimitHit>,
    stdout: &'a str,
    stderr: &'a str,
    time_ms: u64,
}

/// The last non-blank line of `text`, for a message.
fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}

/// A run's test outcome by `rule`.
fn decide(rule: Rule, ran: &Ran<'_>, nonce: &str, case: &CaseRun) -> TestOutcome {
    let outcome = |status, message: Option<String>| TestOutcome {
        name: case.name.clone(),
        status,
        message,
        time_ms: ran.time_ms,
    };
    match ran.limit {
        Some(LimitHit::CpuTime | LimitHit::WallTime) => {
            return outcome(OracleCaseStatus::Timeout, Some("timed out".into()));
        }
        Some(LimitHit::Memory) => {
            return outcome(
                OracleCaseStatus::Error,
                Some("memory limit exceeded".into()),
            );
        }
        Some(LimitHit::Output) => {
            return outcome(
                OracleCaseStatus::Error,
                Some("output limit exceeded".into()),
            );
        }
        Some(LimitHit::Processes) | None => {}
    }
    let code = match ran.exit {
        ExitKind::Exited(code) => code,
        ExitKind::Signaled(signal) => {
            let why = last_line(ran.stderr);
            return outcome(
                OracleCaseStatus::Failed,
                Some(format!(
                    "killed by {}: {why}",
                    verdict_scripts::signal_name(Some(signal))
                )),
            );
        }
    };
    if rule == Rule::Stdio {
        let expected = case.expected.as_deref().unwrap_or("");
        return if code != 0 {
            outcome(
                OracleCaseStatus::Error,
                Some(format!(
                    "exited with code {code}: {}",
                    last_line(ran.stderr)
                )),
            )
        } else if outputs_match(ran.stdout, expected) {
            outcome(OracleCaseStatus::Passed, None)
        } else {
            outcome(
                OracleCaseStatus::Failed,
                Some(format!(
                    "wrong answer: {}",
                    first_difference(ran.stdout, expected)
                )),
            )
        };
    }
    if code != 0 {
        let why = match last_line(ran.stderr) {
            "" => last_line(ran.stdout),
            line => line,
        };
        return outcome(
            OracleCaseStatus::Failed,
            Some(format!("exited with code {code}: {why}")),
        );
    }
    let lines: Vec<&str> = ran.stdout.lines().collect();
    let at = lines.iter().position(|l| *l == nonce);
    let passed = match (rule, at) {
        (_, None) => false,
        (Rule::Nonce, Some(_)) => true,
        (Rule::NonceNoStderr, Some(_)) => ran.stderr.is_empty(),
        (Rule::NonceQuiet, Some(_)) => {
            ran.stdout == format!("\n{nonce}\n") && ran.stderr.trim().is_empty()
        }
        (Rule::GoTest, Some(at)) => lines[..at].iter().any(|l| l.trim() == "PASS"),
        (Rule::RustTest, Some(at)) => {
            let first = lines.iter().find(|l| !l.trim().is_empty());
            let running = first.and_then(|l| {
                l.strip_prefix("running ")
                    .and_then(|r| r.strip_suffix(" tests").or_else(|| r.strip_suffix(" test")))
            });
            match running {
                Some(n) => {
                    let ok = format!("test result: ok. {n} passed; 0 failed;");
                    lines[at..].iter().any(|l| l.starts_with(&ok))
                }
                None => false,
            }
        }
        (Rule::Stdio, Some(_)) => false,
    };
    if passed {
        return outcome(OracleCaseStatus::Passed, None);
    }
    let why = if rule == Rule::NonceNoStderr && at.is_some() {
        format!("wrote to stderr: {}", last_line(ran.stderr))
    } else if rule == Rule::NonceQuiet && at.is_some() {
        match last_line(ran.stderr) {
            "" => "wrote to stdout (the tests print nothing when they pass)".to_string(),
            line => format!("a test failed: {line}"),
        }
    } else if at.is_none() {
        "exited with code 0 before the tests finished".to_string()
    } else {
        "the test harness did not report every test passed".to_string()
    };
    outcome(OracleCaseStatus::Failed, Some(why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provided_librarys_path_matches_any_version_of_its_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        let gem = dir.path().join("gems/test-unit-9.9.9/lib/test");
        std::fs::create_dir_all(&gem).expect("mkdir");
        std::fs::write(gem.join("unit.rb"), "").expect("write");
        let root = dir.path().display();
        assert!(installed(&format!(
            "{root}/gems/test-unit-*/lib/test/unit.rb"
        )));
        assert!(!installed(&format!(
            "{root}/gems/test-unit-*/lib/test/other.rb"
        )));
        assert!(!installed(&format!(
            "{root}/gems/minitest-*/lib/test/unit.rb"
        )));
        assert!(installed(&format!("{root}/gems")));
    }

    fn humaneval_x(prompt: &str, declaration: &str, test: &str) -> HumanEvalXTest {
        HumanEvalXTest {
            prompt: prompt.into(),
            declaration: declaration.into(),
            test: test.into(),
            import: String::new(),
            test_setup: String::new(),
        }
    }

    #[test]
    fn cpp_programs_get_codegeexs_missing_headers_and_the_tests_main_renamed() {
        let t = humaneval_x(
            "#include<stdio.h>\nint f(int x){\n",
            "",
            "#undef NDEBUG\n#include<assert.h>\nint main(){\n    assert (f(1)==1);\n}\n",
        );
        let a = assemble_humaneval_x(Language::Cpp, &t, "    return x;\n}\n").expect("assembles");
        let program = &a.files[0].1;
        assert!(program.starts_with(
            "#include<stdlib.h>\n#include<algorithm>\n#include<math.h>\n#include<vector>"
        ));
        assert!(!program[..60].contains("#include<stdio.h>"), "{program}");
        assert!(
            program.contains("int verdict_test_main(){\n    assert (f(1)==1);\nreturn 0;\n}"),
            "{program}"
        );
        assert_eq!(program.matches("int main(").count(), 1);
        assert_eq!(a.compile_extra, ["-std=c++11"]);
    }

    #[test]
    fn go_programs_drop_the_prompts_imports_and_import_what_the_completion_uses() {
        let t = HumanEvalXTest {
            prompt: "import (\n    \"math\"\n)\n\nfunc F() int {\n".into(),
            declaration: String::new(),
            test: "func TestF(t *testing.T) {\n}\n".into(),
            import: "import (\n    \"math\"\n)\n".into(),
            test_setup: "package main\n\nimport (\n    \"testing\"\n)\n".into(),
        };
        let a = assemble_humaneval_x(
            Language::Go,
            &t,
            "    return int(math.Sqrt(4)) + len(strings.Repeat(\"a\", 1))\n}\n",
        )
        .expect("assembles");
        assert_eq!(
            a.files[0].1,
            "package main\n\nimport (\n    \"testing\"\n)\n\nimport (\n\"math\"\n    \"strings\"\n)\n\nfunc F() int {\n    return int(math.Sqrt(4)) + len(strings.Repeat(\"a\", 1))\n}\n\nfunc TestF(t *testing.T) {\n}\n"
        );
        assert_eq!(a.files[1].0, "verdict_main_test.go");
        assert!(a.go_test);
    }

    #[test]
    fn rust_programs_run_the_test_module_with_a_marker_test_sorted_last() {
        let t = humaneval_x(
            "\n/*\n doc\n*/\n",
            "\nuse std::collections::HashMap;\nuse rand::Rng;\nuse regex::Regex;\nuse md5;\n\nfn f() -> i32{\n",
            "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn test_f() {\n        assert_eq!(f(), 1);\n    }\n\n}\n",
        );
        let a =
            assemble_humaneval_x_with(Language::Rust, &t, "\n    1\n}\n", None).expect("assembles");
        let program = &a.files[0].1;
        assert!(program.starts_with("\nfn main(){ \n } \n\nuse std::collections::HashMap;\n"));
        assert!(!program.contains("use rand::Rng;"));
        assert_eq!(a.rule, Rule::RustTest);
        assert_eq!(a.compile_extra, ["--test"]);
        let uses = assemble_humaneval_x_with(
            Language::Rust,
            &t,
            "\n    rand::thread_rng().gen()\n}\n",
            None,
        );
        assert!(matches!(uses, Err(Unassembled::Infra(m)) if m.contains("crate rand")));
        let crates = RustCrates {
            dir: "/crates".into(),
            externs: vec![("rand".into(), "librand-1.rlib".into())],
        };
        let linked = assemble_humaneval_x_with(
            Language::Rust,
            &t,
            "\n    rand::thread_rng().gen()\n}\n",
            Some(&crates),
        )
        .expect("rand is installed");
        assert!(linked.files[0].1.contains("use rand::Rng;"));
        assert!(!linked.files[0].1.contains("use md5;"));
        assert!(
            linked
                .compile_extra
                .contains(&"rand=/crates/librand-1.rlib".to_string())
        );
        assert_eq!(linked.mounts, ["/crates"]);
    }

    #[test]
    fn java_and_js_programs_are_prompt_completion_and_test() {
        let t = humaneval_x(
            "class Solution {\n    public int f() {\n",
            "",
            "public class Main {\n}\n",
        );
        let a =
            assemble_humaneval_x(Language::Java, &t, "        return 1;\n    }\n}").expect("java");
        assert_eq!(a.files[0], ("Main.java".into(), "class Solution {\n    public int f() {\n        return 1;\n    }\n}\npublic class Main {\n}\n".into()));
        assert_eq!(a.entry_point.as_deref(), Some("VerdictMain"));
        let t = humaneval_x("const f = () => {\n", "", "console.assert(f() === 1)\n");
        let a = assemble_humaneval_x(Language::Js, &t, "  return 1\n}\n").expect("js");
        assert!(
            a.files[0]
                .1
                .contains("const f = () => {\n  return 1\n}\n\nconsole.assert(f() === 1)\n")
        );
    }

    #[test]
    fn codegeexs_python_generation_stops_at_its_first_unindented_line() {
        let t = humaneval_x("def f():\n", "", "");
        let program = humaneval_x_python(&t, "    return 1\n\nprint('hi')\n");
        assert!(
            program.ends_with("def f():\n    return 1\n\n"),
            "{program:?}"
        );
        assert!(program.starts_with("import math\n"));
    }

    fn case() -> CaseRun {
        CaseRun {
            index: 0,
            name: "check".into(),
            stdin: String::new(),
            expected: None,
        }
    }

    fn ran<'a>(code: i32, stdout: &'a str, stderr: &'a str) -> Ran<'a> {
        Ran {
            exit: ExitKind::Exited(code),
            limit: None,
            stdout,
            stderr,
            time_ms: 1,
        }
    }

    #[test]
    fn exit_status_zero_without_the_nonce_fails_and_a_forged_line_does_not_pass() {
        let n = "verdict-passed-0123";
        let rust_ok = "\nrunning 2 tests\n\nverdict-passed-0123\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let one_failed = rust_ok.replace("running 2 tests", "running 3 tests");
        let (passed, failed) = (OracleCaseStatus::Passed, OracleCaseStatus::Failed);
        for (rule, out, err, want) in [
            (Rule::Nonce, "\nverdict-passed-0123\n", "", passed),
            (Rule::Nonce, "", "", failed),
            (Rule::Nonce, "verdict-passed-9999\n", "", failed),
            (Rule::GoTest, "PASS\nok\n", "", failed),
            (Rule::GoTest, "PASS\n\nverdict-passed-0123\n", "", passed),
            (Rule::RustTest, rust_ok, "", passed),
            // A forged summary line without the nonce.
            (
                Rule::RustTest,
                "test result: ok. 2 passed; 0 failed; 0 ignored;\n",
                "",
                failed,
            ),
            (Rule::RustTest, &one_failed, "", failed),
            (
                Rule::NonceQuiet,
                "\nverdict-passed-0123\n",
                "Assertion failed\n",
                failed,
            ),
            (Rule::NonceQuiet, "hi\n\nverdict-passed-0123\n", "", failed),
            (Rule::NonceQuiet, "\nverdict-passed-0123\n", "", passed),
            (Rule::NonceNoStderr, "x\nverdict-passed-0123\n", "", passed),
            (
                Rule::NonceNoStderr,
                "\nverdict-passed-0123\n",
                "warning\n",
                failed,
            ),
        ] {
            let status = decide(rule, &ran(0, out, err), n, &case()).status;
            assert_eq!(status, want, "{rule:?} on {out:?} / {err:?}");
        }
    }
}
