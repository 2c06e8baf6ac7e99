//! `judge package verify` on real public packages (problemtools' examples, fetched from PyPI
//! by the tests: `fetch.rs`): each verifies as its authors say (the reference submissions get
//! the verdicts their directories claim, the input validators accept every input, the
//! time-limit margins hold), and a package changed to disagree exits 1 naming what disagrees.

use crate::common::refused;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../../../crates/packages/tests/it/fetch.rs"]
mod fetch;
#[path = "../../../../crates/packages/tests/it/written.rs"]
mod written;

/// `judge package verify DIR [--json] [extra...]` with its own work and cache dirs.
fn verify_with(dir: &Path, json: bool, extra: &[&str]) -> Output {
    let scratch = tempfile::tempdir().expect("temp dir");
    let mut cmd = package_command("verify", dir, scratch.path());
    cmd.args(["--parallelism", "2"]);
    if json {
        cmd.arg("--json");
    }
    cmd.args(extra).output().expect("judge package verify runs")
}

/// `judge package verify DIR [--json]`.
fn verify(dir: &Path, json: bool) -> Output {
    verify_with(dir, json, &[])
}

/// `judge package verify DIR --json [extra...]`, checked to exit with `code`: its report.
fn verify_exits(dir: &Path, extra: &[&str], code: i32) -> Value {
    let out = verify_with(dir, true, extra);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify {} printed no JSON ({e}): {}\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}: {report:#}",
        dir.display()
    );
    report
}

/// The languages the test command requires (a reference in one of them is never skipped).
fn required_languages() -> Vec<String> {
    std::env::var("VERDICT_REQUIRE_LANGS")
        .unwrap_or_default()
        .split(',')
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The rows of `report`, by submission name.
fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["submissions"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["submission"] == name))
        .unwrap_or_else(|| panic!("no row {name}: {report:#}"))
}

/// Checks each named row of `report` got its verdict.
fn assert_verdicts(report: &Value, verdicts: &[(&str, &str)]) {
    for (name, verdict) in verdicts {
        assert_eq!(row(report, name)["verdict"], *verdict, "{name}: {report:#}");
    }
}

/// Checks each named row of `report` got its verdict and score and agrees with its directory.
fn assert_agreeing_scores(report: &Value, rows: &[(&str, &str, f64)]) {
    for (name, verdict, score) in rows {
        assert_row(
            report,
            name,
            json!({"verdict": verdict, "score": score, "agrees": true}),
        );
    }
}

/// Checks the row of `name` in `report` has each field of `expected` (an object) as it is
/// there, and returns the row.
fn assert_row<'a>(report: &'a Value, name: &str, expected: Value) -> &'a Value {
    let r = row(report, name);
    for (field, want) in expected.as_object().expect("fields") {
        assert_eq!(&r[field], want, "{name}: {field}: {r:#}");
    }
    r
}

/// Files the reference `from` (under `dir`'s `submissions/`) as `to` instead, checks the
/// package then disagrees (exit 1) with `to`'s row having the fields of `expected`, and returns
/// the report.
fn refiled_disagrees(dir: &Path, from: &str, to: &str, expected: Value) -> Value {
    let subs = dir.join("submissions");
    std::fs::rename(subs.join(from), subs.join(to)).expect("move");
    let report = verify_exits(dir, &[], 1);
    assert_row(&report, to, expected);
    report
}

/// A package `write` writes into `name` in a fresh directory (kept by the first).
fn package_in(name: &str, write: impl FnOnce(&Path)) -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = scratch.path().join(name);
    write(&dir);
    (scratch, dir)
}

/// A copy of problemtools' `hello` without the reference directories `dropped`, and with only
/// `kept` of its accepted references.
fn hello_with_only(kept: &str, dropped: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (keep, dir) = fetch::copy_of("hello");
    let subs = dir.join("submissions");
    for d in dropped {
        std::fs::remove_dir_all(subs.join(d)).expect("rm");
    }
    for f in std::fs::read_dir(subs.join("accepted")).expect("ls") {
        let f = f.expect("entry").path();
        if f.file_name().is_some_and(|n| n != kept) {
            std::fs::remove_file(f).expect("rm");
        }
    }
    (keep, dir)
}

/// `judge package ACTION DIR`, its work and cache directories in `scratch`.
fn package_command(action: &str, dir: &Path, scratch: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_judge"));
    cmd.args(["package", action])
        .arg(dir)
        .arg("--work-dir")
        .arg(scratch.join("work"))
        .arg("--cache-dir")
        .arg(scratch.join("cache"));
    cmd
}

/// The JSON `judge package judge --json` printed.
fn judged_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))
}

/// Verifies one of problemtools' examples (`extra`: flags of `verify`): exit 0, every
/// reference judged here gets its directory's verdict, every input is valid, the margins hold;
/// returns the report.
fn verifies_as_its_authors_say(example: &str, extra: &[&str]) -> Value {
    package_verifies_as_its_authors_say(&fetch::problemtools_examples().join(example), extra)
}

/// [`verifies_as_its_authors_say`] for one of BAPCtools' test problems, whose named rows got
/// the `verdicts` given; returns the report.
fn bapctools_verifies(problem: &str, verdicts: &[(&str, &str)]) -> Value {
    let report =
        package_verifies_as_its_authors_say(&fetch::bapctools_problems().join(problem), &[]);
    assert_verdicts(&report, verdicts);
    report
}

/// [`verifies_as_its_authors_say`] on the package in `dir`.
fn package_verifies_as_its_authors_say(dir: &Path, extra: &[&str]) -> Value {
    let example = dir.display();
    let report = verify_exits(dir, extra, 0);
    assert_eq!(report["agrees"], true);
    let rows = report["submissions"].as_array().expect("rows");
    let required = required_languages();
    let mut judged = 0;
    for r in rows {
        if r["skipped"] == true {
            let lang = r["language"].as_str().unwrap_or_default();
            assert!(
                !required.iter().any(|l| l == lang),
                "{example}: {} skipped although {lang} is required: {}",
                r["submission"],
                r["note"]
            );
            continue;
        }
        judged += 1;
        assert_eq!(r["agrees"], true, "{example}: {r:#}");
        let short = match r["expected"].as_str().unwrap_or_default() {
            "accepted" | "partially_accepted" => "AC",
            "wrong_answer" => "WA",
            "time_limit_exceeded" => "TLE",
            "run_time_error" => "RTE",
            other => panic!("{example}: unexpected directory {other}"),
        };
        assert_eq!(r["verdict"], short, "{example}: {r:#}");
    }
    assert!(judged > 0, "{example}: nothing judged: {report:#}");
    let checks = report["input_validation"].as_array().expect("checks");
    let run: Vec<_> = checks.iter().filter(|c| c["skipped"] == false).collect();
    assert!(!run.is_empty(), "{example}: no input validated");
    assert!(
        run.iter().all(|c| c["valid"] == true),
        "{example}: {checks:#?}"
    );
    assert_eq!(report["margins"]["ac_ok"], true);
    assert_eq!(report["margins"]["tle_ok"], true);
    let limit = report["time_limit_ms"].as_f64().expect("time_limit_ms");
    let slowest = report["margins"]["slowest_accepted_ms"]
        .as_f64()
        .expect("slowest");
    let multiplier = report["margins"]["ac_to_time_limit"]
        .as_f64()
        .expect("ac_to_time_limit");
    assert!(slowest * multiplier <= limit, "{report:#}");
    report
}

#[test]
fn problemtools_hello_verifies_with_its_memory_hog_a_run_time_error() {
    // hello sets no limit, and its slowest accepted reference spins until a one-second alarm:
    // its CPU time, so the limit derived from it, follows the machine's load (on a loaded one
    // the memory hog, ~0.8 s of page faults, would time out first). The limit derived on an
    // idle machine is given instead: the spinner's ~1,003 ms x 5, rounded up to whole seconds,
    // 6 s (5 s would be under the margin whenever the spin costs a millisecond over its second,
    // as it always does); `different` covers the derivation.
    let report = verifies_as_its_authors_say("hello", &["--time-limit", "6000"]);
    assert_verdicts(
        &report,
        &[
            ("run_time_error/memory_limit.cc", "RTE"),
            ("wrong_answer/hello.cc", "WA"),
            ("accepted/hello_alarm.c", "AC"),
        ],
    );
    assert_eq!(report["format"], "legacy");
    assert_eq!(report["time_limit_derived"], false);
}

#[test]
fn problemtools_different_verifies_with_its_custom_validator_and_a_4x_tle_margin() {
    let report = verifies_as_its_authors_say("different", &[]);
    // Legacy, no limit: derived from the accepted runs, rounded up to whole seconds.
    assert_eq!(report["time_limit_derived"], true);
    assert_eq!(report["time_limit_ms"].as_u64().map(|t| t % 1000), Some(0));
    let tle = row(&report, "time_limit_exceeded/different_linear_search.cc");
    assert_eq!(tle["verdict"], "TLE");
    let limit = report["time_limit_ms"].as_u64().expect("limit");
    assert_eq!(
        tle["time_limit_ms"].as_u64(),
        Some(limit * 4),
        "time_safety_margin: 4"
    );
    assert_verdicts(&report, &[("wrong_answer/different_no_abs.cc", "WA")]);
    // The checktestdata script is reported skipped; validate.py ran on every input.
    let checks = report["input_validation"].as_array().expect("checks");
    assert!(
        checks
            .iter()
            .any(|c| c["validator"] == "input_validators/different.ctd" && c["skipped"] == true)
    );
    assert_eq!(
        checks
            .iter()
            .filter(|c| c["validator"] == "input_validators/validate.py")
            .count(),
        3
    );
    // Languages verdict does not judge are skipped with the reason, never counted as agreeing
    // by a verdict they did not get.
    assert_row(
        &report,
        "accepted/different.lisp",
        json!({"skipped": true, "verdict": "-"}),
    );
}

#[test]
fn problemtools_guess_verifies_interactively_every_way_it_can_fail() {
    let report = verifies_as_its_authors_say("guess", &[]);
    // Each failure of the interactive protocol, as the authors class it.
    assert_verdicts(
        &report,
        &[
            ("accepted/guess.cc", "AC"),
            ("run_time_error/guess_rte_after_correct.cc", "RTE"),
            ("time_limit_exceeded/guess_no_flush.cc", "TLE"),
            ("time_limit_exceeded/guess_tle_after_correct.cc", "TLE"),
            ("wrong_answer/guess_random.cc", "WA"),
            ("wrong_answer/guess_tle.cc", "WA"),
            ("wrong_answer/guess.py", "WA"),
        ],
    );
}

#[test]
fn problemtools_oddecho_verifies_its_scores_by_test_group() {
    let report = verifies_as_its_authors_say("oddecho", &[]);
    assert_eq!(row(&report, "accepted/echo.cpp")["score"], 100.0);
    assert_eq!(row(&report, "partially_accepted/sol.py")["score"], 50.0);
    // input_validator_flags per group (nFive=0 / nFive=1) reached the validator on every input.
    let checks = report["input_validation"].as_array().expect("checks");
    assert_eq!(checks.len(), 18, "{checks:#?}");
}

#[test]
fn a_package_that_disagrees_with_its_references_exits_1_and_says_which() {
    // Only two references, one of them misfiled: a wrong answer claimed accepted.
    let (_keep, dir) = hello_with_only("hello.py", &["run_time_error"]);
    let report = refiled_disagrees(
        &dir,
        "wrong_answer/hello.cc",
        "accepted/misfiled.cc",
        json!({"verdict": "WA", "agrees": false}),
    );
    assert_eq!(report["agrees"], false);
    let misfiled = row(&report, "accepted/misfiled.cc");
    assert!(
        misfiled["note"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Wrong Answer"),
        "{misfiled:#}"
    );
    assert_eq!(row(&report, "accepted/hello.py")["agrees"], true);
    // The table says it too.
    let out = verify(&dir, false);
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("DISAGREEMENT: 1 error"), "{table}");
    assert!(
        table.contains("\nerror: accepted/misfiled.cc got WA, expected accepted: Wrong Answer"),
        "{table}"
    );
    let line = table
        .lines()
        .find(|l| l.starts_with("accepted/misfiled.cc"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(line.contains(" NO "), "{line}");
}

#[test]
fn an_input_its_validator_rejects_exits_1_naming_the_case() {
    let (_keep, dir) = hello_with_only("hello.py", &["run_time_error", "wrong_answer"]);
    // hello takes no input; its validator rejects any.
    std::fs::write(dir.join("data/secret/extra.in"), "1 2\n").expect("write");
    std::fs::write(dir.join("data/secret/extra.ans"), "Hello World!\n").expect("write");
    let report = verify_exits(&dir, &[], 1);
    let checks = report["input_validation"].as_array().expect("checks");
    let by_case = |case: &str| {
        checks
            .iter()
            .find(|c| c["case"] == case)
            .unwrap_or_else(|| panic!("{case}: {checks:#?}"))["valid"]
            .clone()
    };
    assert_eq!(by_case("secret/extra"), false);
    assert_eq!(by_case("secret/hello"), true);
    assert_eq!(row(&report, "accepted/hello.py")["agrees"], true);
}

/// A margin that does not hold is a warning, as problemtools has it ("sensitive to time
/// limit"): the package verifies with it, exit 0, unless `--werror` makes warnings errors.
#[test]
fn a_time_limit_under_the_accepted_margin_is_a_warning_and_an_error_with_werror() {
    let (_keep, dir) = hello_with_only("hello_alarm.c", &["run_time_error", "wrong_answer"]);
    // hello_alarm.c spins until a one-second alarm: accepted under a 3 s limit, but a limit
    // 1000 times its CPU time is out of reach.
    // (A legacy package's limit in DOMjudge's `.timelimit`, its multiplier in problem.yaml.)
    std::fs::write(dir.join(".timelimit"), "3\n").expect("write");
    let yaml = std::fs::read_to_string(dir.join("problem.yaml")).expect("read");
    assert!(yaml.contains("limits:\n"), "{yaml}");
    std::fs::write(
        dir.join("problem.yaml"),
        yaml.replace("limits:\n", "limits:\n  time_multiplier: 1000\n"),
    )
    .expect("write");
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["agrees"], true);
    assert_eq!(report["time_limit_derived"], false);
    assert_eq!(report["time_limit_ms"], 3000);
    assert_row(
        &report,
        "accepted/hello_alarm.c",
        json!({"verdict": "AC", "agrees": true}),
    );
    assert_eq!(report["margins"]["ac_ok"], false);
    assert!(report["margins"]["slowest_accepted_ms"].as_u64() > Some(3));
    assert_eq!(report["errors"], serde_json::json!([]), "{report:#}");
    let warnings = report["warnings"].as_array().cloned().unwrap_or_default();
    assert_eq!(warnings.len(), 1, "{report:#}");
    assert!(
        warnings[0]
            .as_str()
            .is_some_and(|w| w.starts_with("the time limit, 3000 ms, is under 1000x")),
        "{report:#}"
    );
    // The table names it a warning and still says verified.
    let out = verify(&dir, false);
    assert_eq!(out.status.code(), Some(0));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("\nwarning: the time limit"), "{table}");
    assert!(table.contains("\nverified, with 1 warning\n"), "{table}");
    // With --werror it is what fails the package.
    let report = verify_exits(&dir, &["--werror"], 1);
    assert_eq!(report["agrees"], false);
}

/// What differs between the Polygon packages written here; the rest of their `problem.xml` is
/// the same: one `tests` testset (1 s, 256 MB, `tests/%02d` and `tests/%02d.a`), the statement
/// style `files/olymp.sty`, a testlib checker `files/check.cpp` and a validator `files/val.cpp`.
struct PolygonLayout<'a> {
    /// The `problem` element's attributes after `<problem `, its closing `>` and its `names`.
    head: &'a str,
    /// The testset's `groups` element, or nothing.
    groups: &'a str,
    /// `file` elements of `resources` besides `files/olymp.sty`.
    resources: &'a str,
    /// The `interactor` element of `assets`, or nothing.
    interactor: &'a str,
    /// The solutions: tag and file in `solutions/` (C++17, or Python 3 for a `.py`).
    solutions: &'a [(&'a str, &'a str)],
}

/// Writes a Polygon package's `problem.xml` laid out as `layout` says, `files/olymp.sty`, and
/// its tests (input, answer, the `test` element's attributes after `sample` and `method`; the
/// first test a sample) as `tests/NN` and `tests/NN.a`.
fn write_polygon(dir: &Path, layout: &PolygonLayout, tests: &[(String, String, String)]) {
    let write = |name: &str, text: &str| written::write(dir, name, text);
    let mut xml_tests = String::new();
    for (i, (input, answer, attributes)) in tests.iter().enumerate() {
        write(&format!("tests/{:02}", i + 1), &format!("{input}\n"));
        write(&format!("tests/{:02}.a", i + 1), &format!("{answer}\n"));
        let sample = if i == 0 { r#" sample="true""# } else { "" };
        xml_tests.push_str(&format!(
            "        <test method=\"manual\"{sample}{attributes}/>\n"
        ));
    }
    let PolygonLayout {
        head,
        groups,
        resources,
        interactor,
        solutions,
    } = layout;
    let solutions: String = solutions
        .iter()
        .map(|(tag, file)| {
            let kind = if file.ends_with(".py") { "python.3" } else { "cpp.g++17" };
            format!(
                "\n      <solution tag=\"{tag}\"><source path=\"solutions/{file}\" type=\"{kind}\"/></solution>"
            )
        })
        .collect();
    write(
        "problem.xml",
        &format!(
            r#"<?xml version="1.0" encoding="utf-8" standalone="no"?>
<problem {head}
  <statements/>
  <judging cpu-name="Intel" cpu-speed="3600" input-file="" output-file="" run-count="1">
    <testset name="tests">
      <time-limit>1000</time-limit>
      <memory-limit>268435456</memory-limit>
      <test-count>{}</test-count>
      <input-path-pattern>tests/%02d</input-path-pattern>
      <answer-path-pattern>tests/%02d.a</answer-path-pattern>
      <tests>
{xml_tests}      </tests>{groups}
    </testset>
  </judging>
  <files>
    <resources>
      <file path="files/olymp.sty"/>{resources}
    </resources>
  </files>
  <assets>
    <checker name="check.cpp" type="testlib">
      <source path="files/check.cpp" type="cpp.g++17"/>
      <copy path="check.cpp"/>
    </checker>{interactor}
    <validators>
      <validator>
        <source path="files/val.cpp" type="cpp.g++17"/>
      </validator>
    </validators>
    <solutions>{solutions}
    </solutions>
  </assets>
</problem>
"#,
            tests.len()
        ),
    );
    write("files/olymp.sty", "% statement style\n");
}

/// A Polygon package written as Polygon lays one out (`problem.xml` with the `tests` testset,
/// `tests/NN` and `tests/NN.a`, `files/` with a testlib-dialect checker and validator,
/// `solutions/` by tag), for A+B: test 1 a sample (group 0, no points), group 1 all or nothing
/// for 40 points (tests 2, 3), group 2 each test 30 points (tests 4, 5). The checker and the
/// validator keep testlib's conventions (`check input output answer`, exit 0 OK / 1 WA; the
/// validator reads stdin, exit 0 valid) without testlib.h, which no registry here carries.
fn polygon_package(dir: &Path) {
    let write = |name: &str, text: &str| written::write(dir, name, text);
    let tests = [
        ("1 2", "3", "0", None),
        ("10 20", "30", "1", Some(20)),
        ("-5 5", "0", "1", Some(20)),
        ("1000000 1000000", "2000000", "2", Some(30)),
        ("123456789 987654321", "1111111110", "2", Some(30)),
    ]
    .map(|(input, answer, group, points)| {
        let points = points.map_or(String::new(), |p| format!(r#" points="{p}""#));
        (
            input.to_owned(),
            answer.to_owned(),
            format!(r#" group="{group}"{points}"#),
        )
    });
    write_polygon(
        dir,
        &PolygonLayout {
            head: r#"revision="3" short-name="polygon-aplusb">
  <names><name language="english" value="A+B"/></names>"#,
            groups: r#"
      <groups>
        <group feedback-policy="complete" name="0" points="0" points-policy="each-test"/>
        <group feedback-policy="icpc" name="1" points="40" points-policy="complete-group"/>
        <group feedback-policy="points" name="2" points-policy="each-test"/>
      </groups>"#,
            resources: "",
            interactor: "",
            solutions: &[
                ("main", "main.cpp"),
                ("accepted", "main.py"),
                ("wrong-answer", "int16.cpp"),
                ("time-limit-exceeded", "slow.cpp"),
                ("rejected", "small.cpp"),
                ("do-not-run", "draft.cpp"),
            ],
        },
        &tests,
    );
    write(
        "files/check.cpp",
        r#"#include <cstdio>
int main(int argc, char **argv) {
    FILE *out = fopen(argv[2], "r"), *ans = fopen(argv[3], "r");
    long long got, want;
    if (!out || !ans || fscanf(ans, "%lld", &want) != 1) { fprintf(stderr, "FAIL no answer"); return 3; }
    if (fscanf(out, "%lld", &got) != 1) { fprintf(stderr, "wrong answer no number"); return 1; }
    if (got != want) { fprintf(stderr, "wrong answer expected %lld, found %lld", want, got); return 1; }
    fprintf(stderr, "ok %lld", got);
    return 0;
}
"#,
    );
    write(
        "files/val.cpp",
        r#"#include <cstdio>
int main() {
    long long a, b; char c;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    if (a < -1000000000LL || a > 1000000000LL || b < -1000000000LL || b > 1000000000LL) return 1;
    while (scanf("%c", &c) == 1) if (c != '\n' && c != ' ') return 1;
    return 0;
}
"#,
    );
    let cpp = |body: &str| {
        format!(
            "#include <cstdio>\nint main() {{ long long a, b; scanf(\"%lld %lld\", &a, &b); {body} return 0; }}\n"
        )
    };
    write("solutions/main.cpp", &cpp("printf(\"%lld\\n\", a + b);"));
    write(
        "solutions/main.py",
        "a, b = map(int, input().split())\nprint(a + b)\n",
    );
    write(
        "solutions/int16.cpp",
        &cpp("printf(\"%d\\n\", (short)(a + b));"),
    );
    write(
        "solutions/slow.cpp",
        &cpp(
            "volatile long long s = 0; for (long long i = 0; i < 50000000000LL; i++) s += i; printf(\"%lld\\n\", a + b + s * 0);",
        ),
    );
    write(
        "solutions/small.cpp",
        &cpp("if (a > 15 || b > 15) { printf(\"0\\n\"); return 0; } printf(\"%lld\\n\", a + b);"),
    );
    write("solutions/draft.cpp", "not even C++\n");
}

#[test]
fn a_polygon_package_without_its_answer_files_is_refused_naming_the_missing_one() {
    let (_scratch, dir) = package_in("polygon-aplusb", polygon_package);
    std::fs::remove_file(dir.join("tests/02.a")).expect("remove an answer");
    let (stderr, _) = refused(verify(&dir, false));
    assert!(
        stderr.contains("tests/02.a") && stderr.contains("the answer of test 2"),
        "{stderr}"
    );
}

/// A testlib checker that gives points (`quitp`: `points X`, exit 7) gives the test its points,
/// as Polygon counts them: over 1 (`points 30`) they were once a Compare Error ("expected X in
/// [0, 1]"), and a partial mark scored nothing.
#[test]
fn a_polygon_checkers_points_are_the_tests_score() {
    let (scratch, dir) = package_in("polygon-aplusb", polygon_package);
    // Group 2's tests (answers over a million) are scored by points: 30 for the sum, 12.5 for
    // a sum off by one; group 1's are pass-fail.
    std::fs::write(
        dir.join("files/check.cpp"),
        r#"#include <cstdio>
int main(int argc, char **argv) {
    FILE *out = fopen(argv[2], "r"), *ans = fopen(argv[3], "r");
    long long got, want;
    if (!out || !ans || fscanf(ans, "%lld", &want) != 1) { fprintf(stderr, "FAIL no answer"); return 3; }
    if (fscanf(out, "%lld", &got) != 1) { fprintf(stderr, "wrong answer no number"); return 1; }
    if (want > 1000000) {
        if (got == want) { fprintf(stderr, "points 30 the sum"); return 7; }
        if (got == want + 1) { fprintf(stderr, "points 12.5 off by one"); return 7; }
    }
    if (got != want) { fprintf(stderr, "wrong answer expected %lld, found %lld", want, got); return 1; }
    fprintf(stderr, "ok %lld", got);
    return 0;
}
"#,
    )
    .expect("write");
    let report = verify_exits(&dir, &[], 0);
    for name in ["main/solutions/main.cpp", "accepted/solutions/main.py"] {
        assert_row(&report, name, json!({"verdict": "AC", "score": 100.0}));
    }
    // Off by one on group 2: group 1's 40 points and 12.5 of each of group 2's tests.
    let near = scratch.path().join("near.cpp");
    std::fs::write(
        &near,
        "#include <cstdio>\nint main() { long long a, b; scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b > 1000000 ? a + b + 1 : a + b); }\n",
    )
    .expect("write");
    let out = package_command("judge", &dir, scratch.path())
        .arg(&near)
        .arg("--json")
        .output()
        .expect("judge package judge runs");
    let judged = judged_json(&out);
    assert_eq!(judged["score"], 65.0, "{judged:#}");
    assert_eq!(judged["verdict"], "WA", "{judged:#}");
}

#[test]
fn a_polygon_package_with_crlf_tests_is_read_as_polygon_stores_them() {
    let (_scratch, dir) = package_in("polygon-aplusb", polygon_package);
    for entry in std::fs::read_dir(dir.join("tests")).expect("tests") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, text.replace('\n', "\r\n")).expect("write");
    }
    let report = verify_exits(&dir, &[], 0);
    let checks = report["input_validation"].as_array().expect("checks");
    assert!(checks.iter().all(|c| c["valid"] == true), "{checks:#?}");
}

#[test]
fn a_polygon_package_verifies_with_its_testlib_checker_groups_and_tags() {
    let (_scratch, dir) = package_in("polygon-aplusb", polygon_package);
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["format"], "polygon");
    assert_eq!(report["time_limit_ms"], 1000);
    assert_agreeing_scores(
        &report,
        &[
            ("main/solutions/main.cpp", "AC", 100.0),
            ("accepted/solutions/main.py", "AC", 100.0),
            // A 16-bit sum overflows on group 2's tests only: group 1's 40 points.
            ("wrong-answer/solutions/int16.cpp", "WA", 40.0),
            // Wrong beyond 15: group 1's 40 points lost on test 2, group 2's on both.
            ("rejected/solutions/small.cpp", "WA", 0.0),
        ],
    );
    assert_verdicts(
        &report,
        &[("time-limit-exceeded/solutions/slow.cpp", "TLE")],
    );
    assert!(
        report["submissions"]
            .as_array()
            .expect("rows")
            .iter()
            .all(|r| r["submission"] != "do-not-run/solutions/draft.cpp"),
        "do-not-run is not run"
    );
    let checks = report["input_validation"].as_array().expect("checks");
    assert_eq!(checks.len(), 5, "{checks:#?}");
    assert!(checks.iter().all(|c| c["valid"] == true), "{checks:#?}");
    // A solution filed under the wrong tag is a disagreement.
    let xml = std::fs::read_to_string(dir.join("problem.xml")).expect("read");
    std::fs::write(
        dir.join("problem.xml"),
        xml.replace(r#"tag="wrong-answer""#, r#"tag="accepted""#),
    )
    .expect("write");
    let report = verify_exits(&dir, &[], 1);
    assert_eq!(
        row(&report, "accepted/solutions/int16.cpp")["agrees"],
        false
    );
}

/// BAPCtools' `multipass` (2025-09, `type: multi-pass`): the validator checks the first
/// pass's number is not negative and writes it as the second pass's input, which the program
/// must echo. Its accepted references (`abs`, a constant 500) pass both passes; its wrong ones
/// fail in the first pass (negative, a float, a string, nothing, extra output) or the second
/// (`negative_second_pass`, `rand`).
#[test]
fn bapctools_multipass_verifies_with_a_second_pass_on_the_validators_input() {
    let report = bapctools_verifies(
        "multipass",
        &[
            ("wrong_answer/negative_second_pass.py", "WA"),
            ("wrong_answer/negative.py", "WA"),
            ("accepted/absolute.py", "AC"),
        ],
    );
    assert_eq!(report["format"], "2025-09");
}

/// A 2025-09 package whose test cases carry their own configuration, written as the format
/// lays it out ("Test case configuration", "Input"): `args` from `test_group.yaml` and from a
/// case's `NAME.yaml`, a case's input file in `NAME.files/`, a case's own
/// `output_validator_args` (the default validator's `float_tolerance`), and
/// `input_validator_args` as a map naming one validator. The reference adds its arguments, its
/// input and `data.txt` (when present) and prints the sum over 3 (so only a tolerance accepts
/// it on the third case); each input validator exits 42 only with the arguments it was given.
#[test]
fn a_2025_09_packages_case_args_files_and_validator_args_reach_the_runs() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = scratch.path().join("caseconf");
    let w = |name: &str, text: &str| written::write(&dir, name, text);
    w(
        "problem.yaml",
        "problem_format_version: 2025-09\nname: caseconf\nlimits:\n  time_limit: 2\n",
    );
    w("data/sample/1.in", "1\n");
    w("data/sample/1.ans", "1\n");
    w(
        "data/secret/test_group.yaml",
        "args: [\"3\"]\ninput_validator_args:\n  check_args: [secret]\n",
    );
    w("data/secret/1.in", "3\n");
    w("data/secret/1.ans", "6\n");
    w("data/secret/2.in", "1\n");
    w("data/secret/2.ans", "12\n");
    w(
        "data/secret/2.yaml",
        "args: [\"4\", \"2\"]\ninput_validator_args:\n  check_args: [secret, two]\n",
    );
    w("data/secret/2.files/data.txt", "5\n");
    w("data/secret/3.in", "1\n");
    w("data/secret/3.ans", "0.333\n");
    w(
        "data/secret/3.yaml",
        "args: [\"-1\"]\noutput_validator_args: [float_tolerance, \"0.01\"]\n",
    );
    w(
        "submissions/accepted/sum.py",
        "import os, sys\ntotal = sum(int(a) for a in sys.argv[1:]) + int(input())\n\
         if os.path.exists('data.txt'):\n    total += int(open('data.txt').read())\n\
         print(total if total != 0 else 1 / 3)\n",
    );
    // Valid only with the arguments its case is given: none on the sample, `secret` on the
    // secret cases (their group's map), `secret two` on case 2 (its own map).
    w(
        "input_validators/check_args.py",
        "import sys\nsys.stdin.read()\nargs = sys.argv[1:]\n\
         ok = args in ([], ['secret'], ['secret', 'two'])\nsys.exit(42 if ok else 43)\n",
    );
    // A validator the maps do not name: run without arguments.
    w(
        "input_validators/no_args.py",
        "import sys\nsys.stdin.read()\nsys.exit(42 if len(sys.argv) == 1 else 43)\n",
    );
    let report = package_verifies_as_its_authors_say(&dir, &[]);
    let checks = report["input_validation"].as_array().expect("checks");
    assert_eq!(checks.len(), 8, "{checks:#?}");
    // The map's arguments reached the validator it names, case by case.
    written::write(
        &dir,
        "input_validators/check_args.py",
        "import sys\nsys.stdin.read()\nsys.exit(42 if sys.argv[1:] == ['secret', 'two'] else 43)\n",
    );
    let report = verify_exits(&dir, &[], 1);
    let rejected: Vec<&str> = report["input_validation"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["valid"] == false)
        .filter_map(|c| c["case"].as_str())
        .collect();
    assert_eq!(rejected, ["sample/1", "secret/1", "secret/3"], "{report:#}");
}

/// A 2025-09 package written as the specification's own `maximal` example is laid out:
/// `constants` in `problem.yaml` replaced in the references, the included files and the
/// validators (`{{name}}` and `{{name.variant}}`; an unknown one left as it is), included files
/// from `include/<language code>/` else `include/default/`, and a `test_group.yaml` of comments
/// only (the `passfail` example's) read as empty.
#[test]
fn a_2025_09_packages_constants_and_included_files_reach_its_programs() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let dir = scratch.path().join("consts");
    let w = |name: &str, text: &str| written::write(&dir, name, text);
    w(
        "problem.yaml",
        "problem_format_version: 2025-09\nname: consts\nlimits:\n  time_limit: 2\n\
         constants:\n  MAXN: 1000\n  GREETING:\n    value: hello\n    CAPS: HELLO\n",
    );
    w(
        "data/sample/test_group.yaml",
        "# nothing to change:\n#output_validator_args: ''\n",
    );
    w("data/sample/1.in", "\n");
    w("data/sample/1.ans", "HELLO 1000 {{UNKNOWN}}\n");
    w("data/secret/1.in", "\n");
    w("data/secret/1.ans", "HELLO 1000 {{UNKNOWN}}\n");
    w("include/python3/limits.py", "MAXN = {{MAXN}}\n");
    w("include/default/maxn.h", "#define MAXN {{MAXN}}\n");
    w(
        "submissions/accepted/hello.py",
        "import limits\nprint('{{GREETING.CAPS}}', limits.MAXN, '{{UNKNOWN}}')\n",
    );
    // C has no include directory of its own: include/default's header is beside it.
    w(
        "submissions/accepted/hello.c",
        "#include <stdio.h>\n#include \"maxn.h\"\n\
         int main(void) { printf(\"HELLO %d {{UNKNOWN}}\\n\", MAXN); return 0; }\n",
    );
    w(
        "submissions/wrong_answer/greeting.py",
        "print('{{GREETING}}', {{MAXN}} + 1, '{{UNKNOWN}}')\n",
    );
    w(
        "input_validators/empty.py",
        "import sys\nsys.exit(42 if sys.stdin.read().strip() == '' and {{MAXN}} == 1000 else 43)\n",
    );
    let report = package_verifies_as_its_authors_say(&dir, &[]);
    assert_verdicts(&report, &[("accepted/hello.c", "AC")]);
}

/// BAPCtools' `testseed`: each sample case's own `NAME.yaml` gives its input validator the
/// arguments it checks the input against (a seed and a generator command); without them the
/// validator fails on every case.
#[test]
fn bapctools_testseed_verifies_with_each_cases_own_input_validator_args() {
    let report = bapctools_verifies("testseed", &[]);
    let checks = report["input_validation"].as_array().expect("checks");
    assert!(checks.len() >= 19, "{checks:#?}");
}

/// BAPCtools' `generatorcount` as published lists secret test data in its
/// `generators/generators.yaml` and ships only the samples: refused naming the file (verdict
/// does not run generators), never "verified" on its samples alone. A package whose generators
/// list no secret data (`multipass`: `secret: data: []`) still verifies.
#[test]
fn a_package_whose_secret_data_is_still_to_be_generated_is_refused() {
    let (stderr, _) = refused(verify(
        &fetch::bapctools_problems().join("generatorcount"),
        true,
    ));
    assert!(
        stderr.contains("generators/generators.yaml: data: not supported")
            && stderr.contains("bt generate"),
        "{stderr}"
    );
}

/// BAPCtools' `boolfind` (DOMjudge's interactive example): its output validator is a
/// directory with the format's `build` and `run` scripts (`build` compiles `jury`, `run` calls
/// it with the arguments it wants), judged as a `make` program that runs them; read as a lone C
/// source it was called with the validator's arguments it does not take and failed (JE).
#[test]
fn bapctools_boolfind_verifies_with_its_validators_build_and_run_scripts() {
    bapctools_verifies("boolfind", &[("accepted/boolfind-test-correct.c", "AC")]);
}

/// DOMjudge's `fltcmp` (as BAPCtools' test problems carry it: floats compared by the default
/// validator's tolerances, Python input and answer validators) verifies as its authors say.
#[test]
fn bapctools_fltcmp_verifies_with_its_float_tolerances() {
    bapctools_verifies(
        "fltcmp",
        &[
            ("accepted/fltcmp-test-correct.c", "AC"),
            ("wrong_answer/fltcmp-test-wrong1.c", "WA"),
            ("wrong_answer/fltcmp-test-wrong2.c", "WA"),
        ],
    );
}

/// BAPCtools' `guess` and `guessnoeofcheck` (2025-09 interactive) verify as their authors say,
/// which needs the relay to judge as problemtools' and BAPCtools' runners do: a program that
/// closes its stdout and then aborts (`run_time_error/guess_close_stdout_1.cpp`) or sleeps
/// (`time_limit_exceeded/guess_close_stdout_1.cpp`) is judged by that, the interactor seeing
/// end-of-file only at its exit; a program printing after a validator that accepted without
/// reading to end-of-file (`guessnoeofcheck`'s `accepted/guess_extra_output.cc`) is accepted.
#[test]
fn bapctools_guess_and_guessnoeofcheck_verify_interactively_as_their_authors_say() {
    bapctools_verifies(
        "guess",
        &[
            ("run_time_error/guess_close_stdout_1.cpp", "RTE"),
            ("run_time_error/guess_close_stdout_2.cpp", "RTE"),
            ("time_limit_exceeded/guess_close_stdout_1.cpp", "TLE"),
        ],
    );
    bapctools_verifies(
        "guessnoeofcheck",
        &[("accepted/guess_extra_output.cc", "AC")],
    );
}

/// BAPCtools' `interactivemultipass` (`type: [interactive, multi-pass]`): the same game with
/// the validator as the interactor, each pass a fresh interactive run.
#[test]
fn bapctools_interactive_multipass_verifies_pass_by_pass() {
    bapctools_verifies(
        "interactivemultipass",
        &[
            ("wrong_answer/negative_second_pass.py", "WA"),
            ("accepted/deterministic.py", "AC"),
        ],
    );
}

/// A scoring package (2023-07) whose output validator scores each test in `score.txt`, as the
/// format allows: print as many distinct numbers of 1..n as you can; the validator rejects a
/// repeat or a number out of range (exit 43) and otherwise scores the count (exit 42,
/// `score.txt`). Two groups, n = 3 and n = 5, whose `accept_score` is their test's most (3, 5),
/// so the full score is 8.
fn validator_scored_package(dir: &Path) {
    let write = |name: &str, text: &str| written::write(dir, name, text);
    write(
        "problem.yaml",
        "problem_format_version: 2023-07\ntype: scoring\nname: Distinct numbers\n\
         limits:\n  time_limit: 2\n",
    );
    // The sample is judged, not graded (its validator scores it too: 2).
    write(
        "data/testdata.yaml",
        "on_reject: continue\ngrader_flags: ignore_sample\n",
    );
    write("data/secret/testdata.yaml", "on_reject: continue\n");
    write("data/sample/1.in", "2\n");
    write("data/sample/1.ans", "2\n");
    for (group, n) in [("small", 3), ("large", 5)] {
        write(&format!("data/secret/{group}/1.in"), &format!("{n}\n"));
        write(&format!("data/secret/{group}/1.ans"), &format!("{n}\n"));
        write(
            &format!("data/secret/{group}/testdata.yaml"),
            &format!("accept_score: {n}\n"),
        );
    }
    write(
        "input_validators/validate.py",
        "import sys\nline = sys.stdin.read()\n\
         sys.exit(42 if line.strip().isdigit() and 1 <= int(line) <= 10 and line.endswith('\\n') else 43)\n",
    );
    write(
        "output_validator/validate.py",
        r#"import sys
n = int(open(sys.argv[1]).read())
feedback = sys.argv[3]
seen = set()
for word in sys.stdin.read().split():
    if not word.isdigit() or not 1 <= int(word) <= n or int(word) in seen:
        open(feedback + "/judgemessage.txt", "w").write("bad number " + word)
        sys.exit(43)
    seen.add(int(word))
open(feedback + "/score.txt", "w").write(str(len(seen)))
sys.exit(42)
"#,
    );
    let program = |body: &str| format!("n = int(input())\n{body}\n");
    write(
        "submissions/accepted/all.py",
        &program("print(*range(1, n + 1))"),
    );
    write(
        "submissions/partially_accepted/half.py",
        &program("print(*range(1, (n + 1) // 2 + 1))"),
    );
    write(
        "submissions/partially_accepted/three.py",
        &program("print(*range(1, min(n, 3) + 1))"),
    );
    write(
        "submissions/wrong_answer/repeat.py",
        &program("print(1, 1)"),
    );
    write(
        "submissions/run_time_error/crash.py",
        &program("raise SystemExit(3)"),
    );
}

#[test]
fn a_scoring_package_whose_validator_writes_score_txt_verifies_by_those_scores() {
    let (_scratch, dir) = package_in("distinct", validator_scored_package);
    let report = package_verifies_as_its_authors_say(&dir, &[]);
    assert_eq!(report["format"], "2023-07");
    for (name, score) in [
        ("accepted/all.py", 8.0),
        // ceil(n / 2) numbers: 2 + 3.
        ("partially_accepted/half.py", 5.0),
        // min(n, 3) numbers: 3 + 3.
        ("partially_accepted/three.py", 6.0),
        ("wrong_answer/repeat.py", 0.0),
    ] {
        assert_row(&report, name, json!({ "score": score }));
    }
    // A partial one filed as accepted disagrees: its score is the validator's, not 8 (exit 1).
    refiled_disagrees(
        &dir,
        "partially_accepted/half.py",
        "accepted/half.py",
        json!({"score": 5.0, "agrees": false}),
    );
}

/// An interactive Polygon package as Polygon lays one out (`assets/interactor` beside the
/// checker Polygon also keeps, tests whose input is the hidden number, a validator, solutions
/// by tag): guess a number in 1..10^6 with at most 20 queries `? x` answered `<`, `>` or `=`,
/// then `! x`. The interactor, checker and validator are testlib programs compiled with the
/// real `testlib.h` (0.9.45, `tests/fixtures/testlib/`), which the package carries in `files/`
/// as Polygon packages do: the interactor writes the number of queries to `tout` for the
/// checker.
fn polygon_interactive_package(dir: &Path) {
    let write = |name: &str, text: &str| written::write(dir, name, text);
    let hidden =
        [1, 777777, 1000000, 500000].map(|n| (n.to_string(), n.to_string(), String::new()));
    write_polygon(
        dir,
        &PolygonLayout {
            head: r#"revision="7" short-name="polygon-guess">
  <names><name language="english" value="Guess the Number"/></names>"#,
            groups: "",
            resources: r#"
      <file path="files/testlib.h" type="h.g++"/>"#,
            interactor: r#"
    <interactor>
      <source path="files/interactor.cpp" type="cpp.g++17"/>
    </interactor>"#,
            solutions: &[
                ("main", "main.cpp"),
                ("accepted", "main.py"),
                ("wrong-answer", "linear.cpp"),
                ("wrong-answer", "blind.py"),
                ("time-limit-exceeded", "think.cpp"),
            ],
        },
        &hidden,
    );
    write(
        "files/testlib.h",
        include_str!("../fixtures/testlib/testlib.h"),
    );
    write(
        "files/interactor.cpp",
        r#"#include "testlib.h"
#include <iostream>
int main(int argc, char *argv[]) {
    setName("guess the number in at most 20 queries");
    registerInteraction(argc, argv);
    long long n = inf.readLong();
    for (int q = 0;; q++) {
        std::string op = ouf.readToken("[?!]", "op");
        long long x = ouf.readLong(1LL, 1000000LL, "x");
        if (op == "!") {
            tout << q << std::endl;
            if (x != n) quitf(_wa, "expected %lld, found %lld", n, x);
            quitf(_ok, "%lld found in %d queries", n, q);
        }
        if (q == 20) quitf(_wa, "more than 20 queries");
        std::cout << (n < x ? "<" : n > x ? ">" : "=") << std::endl;
    }
}
"#,
    );
    write(
        "files/check.cpp",
        r#"#include "testlib.h"
int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    int q = ouf.readInt(0, 20, "queries");
    quitf(_ok, "%d queries", q);
}
"#,
    );
    write(
        "files/val.cpp",
        r#"#include "testlib.h"
int main(int argc, char *argv[]) {
    registerValidation(argc, argv);
    inf.readLong(1LL, 1000000LL, "n");
    inf.readEoln();
    inf.readEof();
}
"#,
    );
    write(
        "solutions/main.cpp",
        r#"#include <cstdio>
int main() {
    long long lo = 1, hi = 1000000;
    while (lo < hi) {
        long long m = (lo + hi) / 2;
        printf("? %lld\n", m);
        fflush(stdout);
        char r[4];
        if (scanf("%3s", r) != 1) return 1;
        if (r[0] == '=') { lo = hi = m; break; }
        if (r[0] == '<') hi = m - 1; else lo = m + 1;
    }
    printf("! %lld\n", lo);
    fflush(stdout);
    return 0;
}
"#,
    );
    write(
        "solutions/main.py",
        "lo, hi = 1, 10**6\nwhile lo < hi:\n    m = (lo + hi) // 2\n    print('?', m, flush=True)\n    \
         r = input().strip()\n    if r == '=':\n        lo = hi = m\n    elif r == '<':\n        \
         hi = m - 1\n    else:\n        lo = m + 1\nprint('!', lo, flush=True)\n",
    );
    // One query after another from 1: right on the sample, over 20 queries on the others (the
    // interactor rejects it while it still asks).
    write(
        "solutions/linear.cpp",
        r#"#include <cstdio>
int main() {
    for (long long g = 1;; g++) {
        printf("? %lld\n", g);
        fflush(stdout);
        char r[4];
        if (scanf("%3s", r) != 1) return 0;
        if (r[0] == '=') { printf("! %lld\n", g); fflush(stdout); return 0; }
    }
}
"#,
    );
    write("solutions/blind.py", "print('! 1', flush=True)\n");
    // Thinks before its first query for longer than the time limit.
    write(
        "solutions/think.cpp",
        r#"#include <cstdio>
int main() {
    volatile unsigned long long s = 0;
    for (unsigned long long i = 0; i < 100000000000ULL; i++) s += i;
    printf("! %llu\n", s);
    fflush(stdout);
    return 0;
}
"#,
    );
}

#[test]
fn a_polygon_package_with_an_interactor_verifies_its_references_interactively() {
    let (_scratch, dir) = package_in("polygon-guess", polygon_interactive_package);
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["format"], "polygon");
    for (name, verdict) in [
        ("main/solutions/main.cpp", "AC"),
        ("accepted/solutions/main.py", "AC"),
        ("wrong-answer/solutions/linear.cpp", "WA"),
        ("wrong-answer/solutions/blind.py", "WA"),
        ("time-limit-exceeded/solutions/think.cpp", "TLE"),
    ] {
        assert_row(&report, name, json!({"verdict": verdict, "agrees": true}));
    }
    let checks = report["input_validation"].as_array().expect("checks");
    assert_eq!(checks.len(), 4, "{checks:#?}");
    assert!(checks.iter().all(|c| c["valid"] == true), "{checks:#?}");
    // The interactor decides: the linear search filed as accepted disagrees (exit 1).
    let xml = std::fs::read_to_string(dir.join("problem.xml")).expect("read");
    std::fs::write(
        dir.join("problem.xml"),
        xml.replace(
            r#"<solution tag="wrong-answer"><source path="solutions/linear.cpp""#,
            r#"<solution tag="accepted"><source path="solutions/linear.cpp""#,
        ),
    )
    .expect("write");
    let report = verify_exits(&dir, &[], 1);
    assert_row(
        &report,
        "accepted/solutions/linear.cpp",
        json!({"verdict": "WA", "agrees": false}),
    );
}

/// A 2025-09 scoring package (`written::scoring_2025`: `max_score`, `score_aggregation`,
/// `require_pass` in its groups' `test_group.yaml`) verifies by those scores: the echo
/// reference scores 100, the partial ones 60, 70 and 30 (its third group withheld by
/// `require_pass`), the constant one 0; a partial one filed as accepted exits 1.
#[test]
fn a_2025_09_scoring_package_verifies_by_max_score_aggregation_and_require_pass() {
    let (_scratch, dir) = package_in("echo", written::scoring_2025);
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["format"], "2025-09");
    assert_agreeing_scores(
        &report,
        &[
            ("accepted/echo.py", "AC", 100.0),
            ("partially_accepted/abs.py", "WA", 60.0),
            ("partially_accepted/small_only.py", "WA", 70.0),
            ("partially_accepted/needs_small.py", "WA", 30.0),
            ("wrong_answer/constant.py", "WA", 0.0),
        ],
    );
    assert_verdicts(&report, &[("run_time_error/crash.py", "RTE")]);
    let checks = report["input_validation"].as_array().expect("checks");
    assert!(checks.iter().all(|c| c["valid"] == true), "{checks:#?}");
    refiled_disagrees(
        &dir,
        "partially_accepted/abs.py",
        "accepted/abs.py",
        json!({"agrees": false}),
    );
}

/// A compile stopped by its limit names the limit and its value on the first line (the note
/// `verify` shows), for the problem's own program and for a submission alike: problemtools'
/// `guess`, whose C++ validator (`validate.h`) cannot compile in 20 MB, judged with
/// `[compile] memory_kb = 20000` (and `wall_ms = 5000`, which javac thrashing in 20 MB
/// hits). Before, the validator's said "the compare program did not compile:" and nothing
/// more on that line, the limit at the end of the log without its value.
#[test]
fn a_compile_killed_by_its_limit_names_the_limit_and_its_value() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let config = scratch.path().join("verdict.toml");
    std::fs::write(&config, "[compile]\nmemory_kb = 20000\nwall_ms = 5000\n")
        .expect("write config");
    let dir = fetch::problemtools_examples().join("guess");
    let config = config.display().to_string();
    let report = verify_exits(&dir, &["--config", &config], 1);
    let rows = report["submissions"].as_array().expect("rows");
    let notes: Vec<&str> = rows
        .iter()
        .filter(|r| r["skipped"] == false)
        .map(|r| r["note"].as_str().unwrap_or_default())
        .collect();
    let limit = "the compiler exceeded its memory limit (20000 KB)";
    assert!(
        notes.iter().any(|n| *n
            == format!(
                "Executable Compilation Error: the compare program did not compile: {limit}"
            )),
        "{notes:#?}"
    );
    // A submission's compile names the limit it hit: memory, or (javac thrashing in 20 MB)
    // its wall time.
    for note in notes.iter().filter(|n| n.contains("Compilation Error")) {
        assert!(
            note.ends_with(limit)
                || note
                    == &"Compilation Error: the compiler exceeded its wall time limit (5000 ms)",
            "{notes:#?}"
        );
    }
}

/// Polygon group dependencies (`groups/group/dependencies/dependency/@group`): the A+B
/// package with group 2 depending on group 1, and a solution wrong only where a + b = 0
/// (test 3, group 1): group 2's 60 points, right on both its tests, are withheld (0, not 60),
/// while the 16-bit one that passes group 1 keeps its 40.
#[test]
fn a_polygon_group_scores_nothing_when_a_group_it_depends_on_fails() {
    let (_scratch, dir) = package_in("polygon-aplusb", polygon_package);
    let xml = std::fs::read_to_string(dir.join("problem.xml")).expect("read");
    let xml = xml
        .replace(
            r#"<group feedback-policy="points" name="2" points-policy="each-test"/>"#,
            r#"<group feedback-policy="points" name="2" points-policy="each-test">
          <dependencies>
            <dependency group="1"/>
          </dependencies>
        </group>"#,
        )
        .replace(
            r#"<solution tag="do-not-run">"#,
            r#"<solution tag="rejected"><source path="solutions/zero.cpp" type="cpp.g++17"/></solution>
      <solution tag="do-not-run">"#,
        );
    std::fs::write(dir.join("problem.xml"), xml).expect("write");
    std::fs::write(
        dir.join("solutions/zero.cpp"),
        "#include <cstdio>\nint main() { long long a, b; scanf(\"%lld %lld\", &a, &b); \
         printf(\"%lld\\n\", a + b == 0 ? 1 : a + b); return 0; }\n",
    )
    .expect("write");
    let report = verify_exits(&dir, &[], 0);
    assert_agreeing_scores(
        &report,
        &[
            ("main/solutions/main.cpp", "AC", 100.0),
            ("wrong-answer/solutions/int16.cpp", "WA", 40.0),
            ("rejected/solutions/zero.cpp", "WA", 0.0),
        ],
    );
}

/// `submissions/submissions.yaml` (2025-09 "Example submissions"): scores and score ranges of
/// the submission or of a group, `permitted` and `required` verdicts over every test case or a
/// test-data glob, submission globs with `*` and braces. On the 2025-09 scoring package
/// (`written::scoring_2025`) every one holds (exit 0); a score range that excludes `abs.py`'s 60
/// and a `permitted: [AC]` its constant one breaks are disagreements naming the rule (exit 1).
#[test]
fn submissions_yaml_scores_and_verdicts_are_checked_by_verify() {
    let (_scratch, dir) = package_in("echo", written::scoring_2025);
    let rules = |abs: &str, constant: &str| {
        format!(
            r#"partially_accepted/abs.py:
  authors: Someone <someone@example.com>
  score: {abs}
  secret/2_negative:
    required: [WA]
    score: 0
"partially_accepted/{{small_only,needs_small}}.py":
  score: [30, 70]
  sample:
    permitted: [AC]
"*/constant.py":
  score: 0
  secret/1_small:
    permitted: [{constant}]
accepted/*:
  secret/3_large:
    score: 40
"#
        )
    };
    written::write(&dir, "submissions/submissions.yaml", &rules("60", "WA"));
    verify_exits(&dir, &[], 0);
    written::write(
        &dir,
        "submissions/submissions.yaml",
        &rules("[61, 100]", "AC"),
    );
    let report = verify_exits(&dir, &[], 1);
    let abs = row(&report, "partially_accepted/abs.py");
    assert_eq!(abs["agrees"], false, "{abs:#}");
    assert_eq!(
        abs["note"],
        "partially_accepted/abs.py: score 60, expected in [61, 100]"
    );
    let constant = row(&report, "wrong_answer/constant.py");
    assert_eq!(constant["agrees"], false, "{constant:#}");
    assert_eq!(
        constant["note"],
        "*/constant.py: secret/1_small: permitted [AC], secret/1_small/00 got WA"
    );
    assert_eq!(row(&report, "accepted/echo.py")["agrees"], true);
}

/// A submit-answer package laid out as the format's own example (`type: pass-fail
/// submit-answer`, 2025-09), with test data and references of both kinds it allows: answer
/// files named after the test cases (`secret/1.out`) and, as the example's own references are,
/// a program printing the answers. The problem: print the square of the number given.
fn submit_answer_package(dir: &Path, validator: Option<&str>) {
    let write = |name: &str, text: &str| written::write(dir, name, text);
    write(
        "problem.yaml",
        "problem_format_version: 2025-09\ntype: pass-fail submit-answer\nname: Squares\n\
         limits:\n  time_limit: 1\n",
    );
    for (case, n) in [("sample/1", 6), ("secret/1", 7), ("secret/2", 12)] {
        write(&format!("data/{case}.in"), &format!("{n}\n"));
        write(&format!("data/{case}.ans"), &format!("{}\n", n * n));
    }
    write(
        "input_validators/validate.py",
        "import sys\nline = sys.stdin.read()\n\
         sys.exit(42 if line.strip().isdigit() and line.endswith('\\n') else 43)\n",
    );
    if let Some(validator) = validator {
        write("output_validator/validate.py", validator);
    }
    let answers = |name: &str, answers: &[(&str, &str)]| {
        for (case, text) in answers {
            write(&format!("submissions/{name}/{case}.out"), text);
        }
    };
    // Extra white space: the default validator's tokens, as for a program's output.
    answers(
        "accepted/answers",
        &[
            ("sample/1", "36"),
            ("secret/1", " 49 \n"),
            ("secret/2", "144\n"),
        ],
    );
    answers(
        "wrong_answer/typo",
        &[
            ("sample/1", "36\n"),
            ("secret/1", "49\n"),
            ("secret/2", "143\n"),
        ],
    );
    answers(
        "wrong_answer/missing",
        &[("sample/1", "36\n"), ("secret/1", "49\n")],
    );
    write(
        "submissions/accepted/square.py",
        "n = int(input())\nprint(n * n)\n",
    );
    write(
        "submissions/wrong_answer/cube.py",
        "n = int(input())\nprint(n ** 3)\n",
    );
}

#[test]
fn a_submit_answer_package_verifies_its_answer_files_and_its_answer_printing_program() {
    let (_scratch, dir) = package_in("squares", |dir| submit_answer_package(dir, None));
    let report = package_verifies_as_its_authors_say(&dir, &[]);
    let answers = row(&report, "accepted/answers");
    assert_eq!(answers["language"], "answers", "{answers:#}");
    assert_eq!(row(&report, "accepted/square.py")["language"], "python3");
    assert_eq!(
        row(&report, "wrong_answer/typo")["first_failure"],
        "secret/2"
    );
    assert_eq!(
        row(&report, "wrong_answer/missing")["first_failure"],
        "secret/2"
    );
    // A wrong answer set filed as accepted disagrees (exit 1).
    refiled_disagrees(
        &dir,
        "wrong_answer/typo",
        "accepted/typo",
        json!({"verdict": "WA", "agrees": false}),
    );
}

/// An output validator accepting the square of the input with either sign (`-49` answers 7 as
/// `49` does), saying why it rejects in `judgemessage.txt`.
const SIGNLESS_SQUARES: &str = r#"import sys
n = int(open(sys.argv[1]).read())
words = sys.stdin.read().split()
ok = len(words) == 1 and words[0].lstrip("-").isdigit() and abs(int(words[0])) == n * n
if not ok:
    open(sys.argv[3] + "/judgemessage.txt", "w").write("not a square of the root: %r" % words)
sys.exit(42 if ok else 43)
"#;

#[test]
fn a_submit_answer_packages_validator_reads_the_answer_file_on_its_stdin() {
    let (_scratch, dir) = package_in("roots", |dir| {
        submit_answer_package(dir, Some(SIGNLESS_SQUARES))
    });
    let write = |name: &str, text: &str| written::write(&dir, name, text);
    write("submissions/accepted/negative/sample/1.out", "-36\n");
    write("submissions/accepted/negative/secret/1.out", "-49\n");
    write("submissions/accepted/negative/secret/2.out", "144\n");
    let report = package_verifies_as_its_authors_say(&dir, &[]);
    assert_verdicts(
        &report,
        &[("accepted/negative", "AC"), ("wrong_answer/typo", "WA")],
    );
}

/// `submissions.yaml`'s `message` (2025-09): the text must be in the validator's
/// `judgemessage.txt` of at least one test case (of the group it is under, when scoped).
#[test]
fn submissions_yaml_message_must_be_in_a_validators_message() {
    let (_scratch, dir) = package_in("roots", |dir| {
        submit_answer_package(dir, Some(SIGNLESS_SQUARES))
    });
    let rules = |text: &str| {
        format!(
            "wrong_answer/typo:\n  message: \"{text}\"\n\"*/cube.py\":\n  secret:\n    message: \"not a square\"\n"
        )
    };
    written::write(
        &dir,
        "submissions/submissions.yaml",
        &rules("not a square of the root: ['143']"),
    );
    package_verifies_as_its_authors_say(&dir, &[]);
    written::write(&dir, "submissions/submissions.yaml", &rules("too large"));
    let report = verify_exits(&dir, &[], 1);
    let typo = row(&report, "wrong_answer/typo");
    assert_eq!(
        typo["note"],
        "wrong_answer/typo: message \"too large\" is in the validator's message of no test case",
        "{typo:#}"
    );
    assert_eq!(row(&report, "wrong_answer/cube.py")["agrees"], true);
}

/// `submissions.yaml`'s `language` and `entrypoint` (2025-09), and Python's default entry point
/// `__main__.py` (the format's language table): a script with no extension judged as the
/// Python it says it is, a directory whose main file is named by `entrypoint`, and a module
/// directory run by its `__main__.py` (its other file sorts first).
#[test]
fn submissions_yaml_language_and_entrypoint_choose_how_a_reference_runs() {
    let (_scratch, dir) = package_in("echo", written::scoring_2025);
    let w = |name: &str, text: &str| written::write(&dir, name, text);
    w("submissions/accepted/echo_script", "print(input())\n");
    w("submissions/accepted/two_mains/a.py", "print(0)\n");
    w("submissions/accepted/two_mains/z.py", "print(input())\n");
    w(
        "submissions/accepted/module/Helper.py",
        "def echo():\n    print(input())\n",
    );
    w(
        "submissions/accepted/module/__main__.py",
        "from Helper import echo\necho()\n",
    );
    w(
        "submissions/submissions.yaml",
        "accepted/echo_script:\n  language: python3\naccepted/two_mains:\n  entrypoint: z.py\n",
    );
    let report = verify_exits(&dir, &[], 0);
    for name in [
        "accepted/echo_script",
        "accepted/two_mains",
        "accepted/module",
    ] {
        assert_row(
            &report,
            name,
            json!({"skipped": false, "verdict": "AC", "language": "python3"}),
        );
    }
    // A language verdict does not judge: skipped, saying why, never judged as another.
    w(
        "submissions/submissions.yaml",
        "accepted/echo_script:\n  language: python3numpy\naccepted/two_mains:\n  entrypoint: z.py\n",
    );
    let report = verify_exits(&dir, &[], 0);
    let r = row(&report, "accepted/echo_script");
    assert_eq!(r["skipped"], true, "{r:#}");
    assert!(
        r["note"]
            .as_str()
            .is_some_and(|n| n.contains("python3numpy")),
        "{r:#}"
    );
}

/// A 2025-09 package `name` with no time limit: one sample (3 -> 6), one secret case (5 -> 10)
/// and an accepted reference that doubles its input; in a fresh directory (kept by the first).
fn doubling_2025_09(name: &str, uuid: &str) -> (tempfile::TempDir, PathBuf) {
    package_in(name, |dir| {
        let write = |file: &str, text: &str| written::write(dir, file, text);
        write(
            "problem.yaml",
            &format!("problem_format_version: 2025-09\nname: {name}\nuuid: {uuid}\n"),
        );
        write("data/sample/1.in", "3\n");
        write("data/sample/1.ans", "6\n");
        write("data/secret/1.in", "5\n");
        write("data/secret/1.ans", "10\n");
        write(
            "submissions/accepted/double.py",
            "print(2 * int(input()))\n",
        );
    })
}

/// A 2025-09 package with no time limit, its slowest reference a wrong answer: the format
/// derives the limit from every run a rule bounds from below (`wrong_answer` permits no TLE),
/// not from the accepted ones alone; `use_for_time_limit: false` on the directory takes that
/// reference out again.
#[test]
fn a_2025_09_wrong_answer_bounds_the_derived_time_limit_unless_opted_out() {
    let (_scratch, dir) = doubling_2025_09("slowwa", "5e3f0a52-1d1c-4e1b-9a55-2f1b7c0e9d11");
    // About 0.7 s of CPU on each test, then a wrong answer: the limit becomes 2 s (2 x 0.7 s,
    // rounded up to a whole second), not the 1 s the accepted reference alone gives.
    written::write(
        &dir,
        "submissions/wrong_answer/slow.py",
        "import time\nn = int(input())\nend = time.process_time() + 0.7\nwhile time.process_time() < end:\n    pass\nprint(n)\n",
    );
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["time_limit_derived"], true, "{report:#}");
    let slowest = report["margins"]["slowest_accepted_ms"]
        .as_u64()
        .expect("slowest");
    assert!(
        slowest >= 600,
        "the wrong answer's run bounds the limit: {report:#}"
    );
    assert!(
        report["time_limit_ms"].as_u64().expect("limit") >= 2000,
        "{report:#}"
    );
    assert_verdicts(&report, &[("wrong_answer/slow.py", "WA")]);

    written::write(
        &dir,
        "submissions/submissions.yaml",
        "wrong_answer:\n  use_for_time_limit: false\n",
    );
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["time_limit_ms"], 1000, "{report:#}");
    assert_row(
        &report,
        "wrong_answer/slow.py",
        json!({"verdict": "WA", "agrees": true}),
    );
}

/// A derived limit's margin is checked against the runs it was derived from: a reference that
/// bounds it from below on some cases and from above on others is judged twice, and its second
/// run may be a little slower than the first (here it spins 0.55 s instead of 0.45 s when its
/// CPU rlimit is the judged limit's, not the deriving run's) without failing `ac_ok`.
#[test]
fn a_derived_limits_margin_holds_against_the_run_it_was_derived_from() {
    let (_scratch, dir) = doubling_2025_09("twice", "0b6f2d1e-8a3c-4f57-9e21-6d4c3b2a1f00");
    written::write(
        &dir,
        "submissions/time_limit_exceeded/spin.py",
        "import resource, time\n\
         n = int(input())\n\
         if n != 3:\n    while True:\n        pass\n\
         soft, _ = resource.getrlimit(resource.RLIMIT_CPU)\n\
         deriving = soft == resource.RLIM_INFINITY or soft >= 10\n\
         end = time.process_time() + (0.45 if deriving else 0.55)\n\
         while time.process_time() < end:\n    pass\n\
         print(2 * n)\n",
    );
    written::write(
        &dir,
        "submissions/submissions.yaml",
        "time_limit_exceeded/spin.py:\n  sample/*:\n    use_for_time_limit: lower\n",
    );
    let report = verify_exits(&dir, &[], 0);
    assert_eq!(report["time_limit_ms"], 1000, "{report:#}");
    let slowest = report["margins"]["slowest_accepted_ms"]
        .as_u64()
        .expect("slowest");
    assert!((400..500).contains(&slowest), "{report:#}");
    assert_eq!(report["margins"]["ac_ok"], true, "{report:#}");
    let r = assert_row(
        &report,
        "time_limit_exceeded/spin.py",
        json!({"verdict": "TLE", "agrees": true}),
    );
    assert!(r["max_time_ms"].as_u64().expect("time") >= 1500, "{r:#}");
}

/// BAPCtools' own `testexpectations` package (2025-09, fetched from PyPI), whole: directories
/// of its own (`ac_or_wa`, `wa`, `match`, `expansion`) held to the `submissions.yaml` rules that
/// match them, a default directory's rule replaced (`accepted: permitted: [WA]`, its `wa.py`
/// then agrees by getting WA), globs with brace expansion and test-data groups, `message`,
/// `language` and `entrypoint`, and `use_for_time_limit`: its `tle/sleep.py` busy-waits as
/// many seconds as its input says, bounding the derived limit from below on the samples (1 and
/// 3 s) and from above on the secret cases (up to 42 s), so the limit is 6 s (2 x 3 s) on a
/// quiet machine and it times out at 1.5 x that. Every reference gets what its rules say.
#[test]
fn bapctools_testexpectations_verifies_by_its_own_directories_and_rules() {
    let (_keep, dir) = fetch::bapctools_copy_of("testexpectations");
    let rules_path = dir.join("submissions/submissions.yaml");
    let rules = std::fs::read_to_string(&rules_path).expect("submissions.yaml");
    let cut = rules.find("# check time limit").expect("the tle rule");
    let report = verify_exits(&dir, &[], 0);
    for (name, expected, verdict) in [
        ("accepted/wa.py", "accepted", "WA"),
        ("ac_or_wa/metadata", "ac_or_wa", "AC"),
        ("ac_or_wa/wa.py", "ac_or_wa", "WA"),
        ("wa/hello.py", "wa", "WA"),
        ("wa/odd.py", "wa", "WA"),
        ("expansion/ac.cpp", "expansion", "AC"),
        ("match/match_wa.py", "match", "AC"),
        ("tle/sleep.py", "tle", "TLE"),
    ] {
        assert_row(
            &report,
            name,
            json!({"expected": expected, "verdict": verdict, "agrees": true}),
        );
    }
    // The samples' busy waits (CPU time, so a little less on a loaded machine) bound the
    // limit from below; the secret ones time out above it.
    assert_eq!(report["time_limit_derived"], true, "{report:#}");
    let limit = report["time_limit_ms"].as_u64().expect("limit");
    assert!(limit >= 2000, "the samples bound the limit: {report:#}");
    let tle = row(&report, "tle/sleep.py");
    assert_eq!(
        tle["time_limit_ms"].as_u64(),
        Some(limit * 3 / 2),
        "{tle:#}"
    );
    assert_eq!(report["margins"]["tle_ok"], true, "{report:#}");
    // The replaced rule is the one that holds: back to the default, wa.py disagrees (the
    // time-limit rules and their directory left out: they cost a minute of CPU).
    std::fs::remove_dir_all(dir.join("submissions/tle")).expect("remove tle");
    let replaced = rules[..cut].replace(
        "  permitted: [WA]\n  required: [WA]\n",
        "  permitted: [AC]\n",
    );
    std::fs::write(&rules_path, replaced).expect("write");
    let report = verify_exits(&dir, &[], 1);
    let r = row(&report, "accepted/wa.py");
    assert_eq!(r["agrees"], false, "{r:#}");
    assert!(
        r["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("accepted: permitted [AC]")),
        "{r:#}"
    );
}

/// The repository's example package (`examples/packages/sum`, the README's).
fn sum_package() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/packages/sum")
}

/// The table's line for `submission`, split into its columns (two spaces or more apart).
fn table_row(table: &str, submission: &str) -> Vec<String> {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("{submission} ")))
        .unwrap_or_else(|| panic!("no row {submission}: {table}"));
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether a timed-out row's CPU time is at least the CPU limit it ran at (`>8000` when the
/// charged time read lower), or the wall clock stopped it (its failing case says `(wall)`).
fn shows_a_timeouts_time(row: &[String]) -> bool {
    let cpu = row[4].trim_start_matches('>').parse::<u64>();
    let limit = row[5].split(' ').next().unwrap_or_default().parse::<u64>();
    matches!((cpu, limit), (Ok(c), Ok(l)) if c >= l) || row[6].ends_with("(wall)")
}

#[test]
fn verify_table_labels_cpu_and_wall_shows_each_runs_limit_a_tles_time_and_the_first_failing_case() {
    let dir = fetch::problemtools_examples().join("different");
    let out = verify(&dir, false);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{table}");
    // The header: the derived limit is CPU time, the wall clock said.
    let header = table.lines().next().unwrap_or_default();
    assert!(
        header.contains("ms CPU per test (derived") && header.contains("wall clock"),
        "{header}"
    );
    let limit: u64 = header
        .split("time limit ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{header}"));
    let columns = table.lines().nth(1).unwrap_or_default();
    for label in ["CPU ms", "limit CPU / wall ms", "first failing"] {
        assert!(columns.contains(label), "{columns}");
    }
    // The TLE reference: judged at 4x the limit, it shows that limit and its time as at least
    // the limit it went over (never 0 ms), and the case it failed on.
    let tle = table_row(&table, "time_limit_exceeded/different_linear_search.cc");
    let tle_limit = format!("{} / {}", limit * 4, limit * 8 + 1000);
    assert_eq!(tle[5], tle_limit, "{tle:?}");
    assert!(shows_a_timeouts_time(&tle), "the TLE's time: {tle:?}");
    assert!(
        tle[6].starts_with("secret/") || tle[6].starts_with("sample/"),
        "{tle:?}"
    );
    // The wrong answer names its first failing case in the table.
    let wa = table_row(&table, "wrong_answer/different_no_abs.cc");
    assert!(
        wa[6].starts_with("secret/") || wa[6].starts_with("sample/"),
        "{wa:?}"
    );
    // The accepted references the limit was derived from show the limit they ran at (10 s),
    // marked and explained, not the header's.
    let ac = table_row(&table, "accepted/different.cc");
    assert_eq!(ac[5], "10000 / 21000 *", "{ac:?}");
    assert!(table.contains("* judged once, while the time limit was derived"));
    // The margins read as sentences, with the numbers they compare.
    assert!(
        table.contains(&format!(
            "the limit, {limit} ms, is at least 5x the slowest accepted run ("
        )),
        "legacy time_multiplier 5: {table}"
    );
    assert!(
        table.contains(&format!(
            "still times out at 4x the limit ({} ms): yes",
            limit * 4
        )),
        "{table}"
    );
}

#[test]
fn the_readme_example_package_verifies_and_judges_a_new_file_case_by_case() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let out = verify(&sum_package(), false);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{table}");
    let tle = table_row(&table, "time_limit_exceeded/spin.py");
    assert!(shows_a_timeouts_time(&tle), "{tle:?}");
    assert_eq!(table_row(&table, "wrong_answer/capped.py")[6], "secret/01");
    // A contestant's file, not in the package, with an extension that says nothing.
    let judge = |file: &Path, extra: &[&str]| {
        let out = package_command("judge", &sum_package(), scratch.path())
            .arg(file)
            .args(extra)
            .output()
            .expect("judge package judge runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let right = scratch.path().join("right.txt");
    std::fs::write(
        &right,
        "import sys\nd = sys.stdin.read().split()\nfor i in range(int(d[0])):\n    print(int(d[1 + 2 * i]) + int(d[2 + 2 * i]))\n",
    )
    .expect("write");
    let (code, stdout, stderr) = judge(&right, &["--language", "python3"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("verdict: AC"), "{stdout}");
    for case in ["sample/01", "secret/01", "secret/02"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(case) && l.contains(" AC ")),
            "{case}: {stdout}"
        );
    }
    // Without --language the extension says nothing: refused, naming the file.
    let (code, _, stderr) = judge(&right, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("right.txt"), "{stderr}");
    // A wrong one: the failing case by name with the validator's message, exit 1; as JSON too.
    let capped = sum_package().join("submissions/wrong_answer/capped.py");
    let (code, stdout, stderr) = judge(&capped, &[]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("verdict: WA (first failing test case: secret/01)"),
        "{stdout}"
    );
    let (_, json, _) = judge(&capped, &["--json"]);
    let report: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(report["verdict"], "WA");
    assert_eq!(report["first_failure"], "secret/01");
    assert_eq!(report["cases"][1]["case"], "secret/01");
    assert_eq!(report["cases"][2]["verdict"], "-", "{report:#}");
}

#[test]
fn verify_shows_a_progress_bar_on_a_terminal_and_none_with_quiet_or_a_pipe() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let command = |extra: &str| {
        format!(
            "'{}' package verify '{}' --work-dir '{}' --cache-dir '{}' {extra}",
            env!("CARGO_BIN_EXE_judge"),
            sum_package().display(),
            scratch.path().join("work").display(),
            scratch.path().join("cache").display()
        )
    };
    // 5 references and 1 input validator, then the table.
    crate::common::page::progress_only_on_a_terminal(command, 6, "verified");
}

#[test]
fn an_interactive_wrong_answer_shows_the_validators_reason_first() {
    // problemtools' guess: its validator says "I'm thinking of N" first and its reason last.
    let dir = fetch::problemtools_examples().join("guess");
    let scratch = tempfile::tempdir().expect("temp dir");
    let out = package_command("judge", &dir, scratch.path())
        .arg(dir.join("submissions/wrong_answer/guess_random.cc"))
        .args(["--time-limit", "2000", "--json"])
        .output()
        .expect("judge package judge runs");
    let report = judged_json(&out);
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    assert_eq!(report["verdict"], "WA", "{report:#}");
    let failing = report["first_failure"].as_str().expect("a failing case");
    let case = report["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["case"] == failing))
        .expect("its row");
    assert_eq!(
        case["message"], "Didn't get to correct answer in 10 guesses",
        "{case:#}"
    );
}
