//! The Task Oracle end to end: the seed's examples, then each way a case can end, for python3
//! function, js function, script and cli deliverables.

use serde_json::{Value, json};
use std::sync::OnceLock;
use verdict_contracts::oracle::{OracleReport, TestSuite, suite_from_value};
use verdict_oracle::{CancelToken, OracleError, OracleOptions, run_suite};
use verdict_sandbox::{Sandbox, SandboxConfig};

/// The shared sandbox, or `None` as the test kit's `skip_or_fail` says.
fn sandbox() -> Option<&'static Sandbox> {
    static SB: OnceLock<Result<Sandbox, String>> = OnceLock::new();
    let sb = SB.get_or_init(|| {
        let config = SandboxConfig {
            require_isolation: verdict_testkit::required(),
            ..SandboxConfig::default()
        };
        Sandbox::new(config).map_err(|e| e.to_string())
    });
    match sb {
        Ok(sb) => Some(sb),
        Err(reason) => verdict_testkit::skip_or_fail("the sandbox is unavailable", reason),
    }
}

/// A sandbox without warm interpreters (one-shot zygotes), where the python harness runs as
/// bytecode in a fresh interpreter per suite (the path of hosts without long-lived zygotes).
fn cold_sandbox() -> Option<&'static Sandbox> {
    static SB: OnceLock<Sandbox> = OnceLock::new();
    sandbox()?;
    Some(SB.get_or_init(|| {
        let sb = Sandbox::new(SandboxConfig {
            one_shot: true,
            uid_base: 63_500,
            max_boxes: 2,
            cgroup_name: "verdict-oracle-tests-cold".into(),
            ..SandboxConfig::default()
        })
        .expect("a one-shot sandbox");
        assert!(!sb.has_warm_interpreters());
        sb
    }))
}

fn run_with(suite: &TestSuite, options: &OracleOptions) -> Option<OracleReport> {
    let sb = sandbox()?;
    Some(run_suite(sb, &CancelToken::new(), suite, options).expect("the suite runs"))
}

fn run(suite: &TestSuite) -> Option<OracleReport> {
    run_with(suite, &OracleOptions::default())
}

/// Runs `suite` as [`run`] does and checks its cases' statuses are `want` (space-separated).
fn run_expecting(suite: &TestSuite, want: &str) -> Option<OracleReport> {
    run_expecting_with(suite, &OracleOptions::default(), want)
}

/// Runs `suite` under `options` and checks its cases' statuses are `want` (space-separated).
fn run_expecting_with(
    suite: &TestSuite,
    options: &OracleOptions,
    want: &str,
) -> Option<OracleReport> {
    let report = run_with(suite, options)?;
    let want: Vec<&str> = want.split_whitespace().collect();
    assert_eq!(statuses(&report), want, "{report:#?}");
    Some(report)
}

fn function_suite(
    language: &str,
    file: &str,
    source: &str,
    entry: &str,
    cases: Value,
) -> TestSuite {
    suite_from_value(json!({
        "deliverable_type": "function",
        "language": language,
        "entry_point": entry,
        "source_files": [{"type": "text", "name": file, "text": source}],
        "timeout_ms": 1000,
        "test_cases": cases,
    }))
    .expect("a valid suite")
}

fn example(name: &str) -> TestSuite {
    let path = format!(
        "{}/../../examples/oracle/{name}/suite.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("example suite");
    verdict_contracts::oracle::parse_suite(&text).expect("a valid example suite")
}

fn statuses(report: &OracleReport) -> Vec<&'static str> {
    report.results.iter().map(|r| r.status.as_str()).collect()
}

fn message(report: &OracleReport, i: usize) -> &str {
    report.results[i].message.as_deref().unwrap_or("")
}

/// Runs `suite`, whose first two cases pass and whose third gives a function the wrong
/// arguments, and checks the third is refused with `function <why>`.
fn assert_third_case_refused(suite: &TestSuite, why: &str) {
    if let Some(report) = run_expecting(suite, "passed passed invalid_test_format") {
        let want = format!("invalid_test_format: function {why}");
        assert_eq!(message(&report, 2), want);
    }
}

/// Checks the messages of the first cases of `report`, in order.
fn assert_messages(report: &OracleReport, want: &[&str]) {
    for (i, want) in want.iter().enumerate() {
        assert_eq!(message(report, i), *want, "case {i}");
    }
}

mod python_harness;
mod stopping;

mod examples {
    use super::*;

    #[test]
    fn seed_summarize_logs_passes() {
        let suite = example("summarize_logs");
        assert_eq!(suite.test_cases[0].input[1], json!(10));
        let Some(report) = run(&suite) else { return };
        assert!(report.summary.all_passed(), "{report:#?}");
        assert_eq!(
            report.results[0].got.as_ref().unwrap()["last_errors"][0],
            "2026-02-07 13:20:11 auth: invalid token"
        );
    }

    #[test]
    fn seed_receipt_script_passes() {
        let Some(report) = run(&example("receipt")) else {
            return;
        };
        assert!(report.summary.all_passed(), "{report:#?}");
    }

    #[test]
    fn seed_csv_filter_cli_writes_out_csv() {
        let Some(report) = run(&example("csv_filter")) else {
            return;
        };
        assert!(report.summary.all_passed(), "{report:#?}");
        assert_eq!(
            report.results[0].got.as_ref().unwrap()["files"]["out.csv"],
            "id,status\n1,DONE\n"
        );
    }
}

mod python_function {
    use super::*;

    const SOURCE: &str = r#"
import os, sys, time

print("module-level noise")

def f(kind, value=None):
    print("noise from f", kind)
    sys.stderr.write("stderr noise\n")
    if kind == "echo":
        return value
    if kind == "raise":
        raise ValueError("bad value %r" % (value,))
    if kind == "loop":
        while True:
            pass
    if kind == "swallow":
        while True:
            try:
                time.sleep(10)
            except BaseException:
                pass
    if kind == "die":
        os._exit(7)
    if kind == "tuple":
        return (1, [2, (3, "x")])
    if kind == "float":
        return 0.1 + 0.2
    if kind == "big":
        return 2 ** 64 + 1
    if kind == "set":
        return {1, 2}
    if kind == "名字":
        return {"名字": "值 ✓", "emoji": "🎉"}
    return None
"#;

    fn suite(cases: Value) -> TestSuite {
        function_suite("python3", "solution.py", SOURCE, "f", cases)
    }

    #[test]
    fn values_noise_and_unicode() {
        let suite = suite(json!([
            {"name": "echo list", "input": ["echo", [1, 2, 3]], "expected": [1, 2, 3]},
            {"name": "tuple is a list", "input": ["tuple"], "expected": [1, [2, [3, "x"]]]},
            {"name": "float tolerance", "input": ["float"], "expected": 0.3},
            {"name": "int equals float", "input": ["echo", 2], "expected": 2.0},
            {"name": "bool is not int", "input": ["echo", true], "expected": 1},
            {"name": "big int exact", "input": ["echo", 9007199254740993u64], "expected": 9007199254740993u64},
            {"name": "big int differs", "input": ["echo", 9007199254740993u64], "expected": 9007199254740992u64},
            {"name": "名字 ünïcode", "input": ["名字"], "expected": {"名字": "值 ✓", "emoji": "🎉"}},
            {"name": "wrong value", "input": ["echo", {"a": [1, 2]}], "expected": {"a": [1, 3]}},
            {"name": "none", "input": ["nothing"], "expected": null},
        ]));
        let Some(report) = run_expecting(
            &suite,
            "passed passed passed passed failed passed failed passed failed passed",
        ) else {
            return;
        };
        assert_eq!(report.results[4].got, Some(json!(true)));
        assert_eq!(
            message(&report, 8),
            "return value differs at $.a[1]: got 2, expected 3"
        );
        assert_eq!(report.results[7].name, "名字 ünïcode");
    }

    #[test]
    fn exceptions_timeouts_and_crashes_do_not_stop_the_suite() {
        let suite = suite(json!([
            {"name": "raises", "input": ["raise", 5], "expected": null},
            {"name": "loops", "input": ["loop"], "expected": null},
            {"name": "after loop", "input": ["echo", 1], "expected": 1},
            {"name": "swallows the alarm", "input": ["swallow"], "expected": null},
            {"name": "after swallow", "input": ["echo", 2], "expected": 2},
            {"name": "kills the interpreter", "input": ["die"], "expected": null},
            {"name": "after death", "input": ["echo", 3], "expected": 3},
            {"name": "not JSON", "input": ["set"], "expected": [1, 2]},
        ]));
        let Some(report) = run_expecting(
            &suite,
            "error timeout passed timeout passed error passed error",
        ) else {
            return;
        };
        assert_eq!(
            message(&report, 0),
            "ValueError: bad value 5 (at solution.py:12 in f)"
        );
        assert!(
            message(&report, 5).contains("exited with code 7"),
            "{}",
            message(&report, 5)
        );
        assert!(
            message(&report, 7).starts_with("return value is not JSON"),
            "{}",
            message(&report, 7)
        );
        assert!(report.results[1].time_ms >= 900, "{report:#?}");
    }

    #[test]
    fn malformed_cases_are_reported_and_the_others_run() {
        let suite = suite(json!([
            {"name": "not a list", "input": "echo", "expected": null},
            {"name": "no input", "expected": null},
            {"name": "too many args", "input": ["echo", 1, 2], "expected": null},
            {"name": "too few args", "input": [], "expected": null},
            {"name": "fine", "input": ["echo", "ok"], "expected": "ok"},
        ]));
        let Some(report) = run_expecting(
            &suite,
            "invalid_test_format invalid_test_format invalid_test_format invalid_test_format passed",
        ) else {
            return;
        };
        let not_a_list = "invalid_test_format: function input must be args list";
        let arity = "invalid_test_format: function f takes 1 to 2 positional args, input has";
        assert_messages(
            &report,
            &[
                not_a_list,
                not_a_list,
                &format!("{arity} 3"),
                &format!("{arity} 0"),
            ],
        );
        assert_eq!(report.summary.invalid_test_format, 4);
    }

    #[test]
    fn one_process_per_case_gives_the_same_report() {
        let suite = suite(json!([
            {"name": "a", "input": ["echo", 1], "expected": 1},
            {"name": "b", "input": ["raise", 1], "expected": null},
            {"name": "c", "input": ["die"], "expected": null},
            {"name": "d", "input": ["echo", [1]], "expected": [2]},
        ]));
        let options = OracleOptions {
            max_cases_per_interpreter: 1,
            ..OracleOptions::default()
        };
        let Some(per_case) = run_with(&suite, &options) else {
            return;
        };
        let Some(batched) = run(&suite) else { return };
        assert_eq!(statuses(&per_case), statuses(&batched));
        assert_eq!(statuses(&batched), ["passed", "error", "error", "failed"]);
    }

    #[test]
    fn a_module_that_fails_to_load_errors_every_case() {
        let suite = function_suite(
            "python3",
            "broken.py",
            "import no_such_module_here\ndef f(x): return x\n",
            "f",
            json!([{"name": "a", "input": [1], "expected": 1}, {"name": "b", "input": 2, "expected": 2}]),
        );
        let Some(report) = run_expecting(&suite, "error invalid_test_format") else {
            return;
        };
        assert!(
            message(&report, 0).contains("ModuleNotFoundError"),
            "{}",
            message(&report, 0)
        );
        let missing = function_suite(
            "python3",
            "m.py",
            "def g(): pass\n",
            "f",
            json!([{"name": "a", "input": [], "expected": null}]),
        );
        let Some(report) = run(&missing) else { return };
        assert_eq!(message(&report, 0), "m.py defines no function f");
    }

    /// python ran without its site module in some places. A deliverable sees
    /// what a `python3` people run gives it (`exit`, `quit`, the host's installed packages:
    /// numpy where Debian's python3-numpy is installed), never the user site directory,
    /// from the warm interpreter and from a cold one alike.
    #[test]
    fn a_deliverable_sees_the_site_modules_builtins_and_packages_warm_and_cold() {
        let source = "import sys\n\ndef f():\n    return [callable(exit), callable(quit), \
                      sys.flags.no_site, sys.flags.no_user_site, sys.flags.dont_write_bytecode]\n\n\
                      def g():\n    import numpy\n    return int(numpy.arange(4).sum())\n";
        let numpy = std::path::Path::new("/usr/lib/python3/dist-packages/numpy").is_dir();
        let mut cases =
            vec![json!({"name": "site", "input": [], "expected": [true, true, 0, 1, 1]})];
        let suite = function_suite("python3", "s.py", source, "f", json!(cases.clone()));
        let Some(warm) = run(&suite) else { return };
        assert_eq!(statuses(&warm), ["passed"], "{warm:#?}");
        let Some(cold) = cold_sandbox() else { return };
        let report = run_suite(cold, &CancelToken::new(), &suite, &OracleOptions::default())
            .expect("the suite runs");
        assert_eq!(statuses(&report), ["passed"], "{report:#?}");
        if !numpy {
            verdict_testkit::skip_or_fail::<()>("numpy", "python3-numpy is not installed");
            return;
        }
        cases[0] = json!({"name": "numpy", "input": [], "expected": 6});
        let suite = function_suite("python3", "s.py", source, "g", json!(cases));
        let Some(warm) = run(&suite) else { return };
        assert_eq!(statuses(&warm), ["passed"], "{warm:#?}");
        let report = run_suite(cold, &CancelToken::new(), &suite, &OracleOptions::default())
            .expect("the suite runs");
        assert_eq!(statuses(&report), ["passed"], "{report:#?}");
    }

    #[test]
    fn varargs_and_defaults_bound_the_args() {
        let suite = function_suite(
            "python3",
            "v.py",
            "def f(a, *rest, k=1):\n    return [a, list(rest)]\n",
            "f",
            json!([
                {"name": "one", "input": [1], "expected": [1, []]},
                {"name": "many", "input": [1, 2, 3], "expected": [1, [2, 3]]},
                {"name": "none", "input": [], "expected": null},
            ]),
        );
        assert_third_case_refused(&suite, "f takes at least 1 positional args, input has 0");
    }
    #[test]
    fn unicode_function_names_and_lingering_threads() {
        let suite = function_suite(
            "python3",
            "模块.py",
            "import threading, time\n\ndef 计算(x):\n    threading.Thread(target=time.sleep, args=(60,)).start()\n    return x * 2\n",
            "计算",
            json!([{"name": "双倍", "input": [21], "expected": 42}]),
        );
        let start = std::time::Instant::now();
        if run_expecting(&suite, "passed").is_none() {
            return;
        }
        assert!(
            start.elapsed().as_secs() < 10,
            "the harness waited for the deliverable's thread"
        );
    }
}

mod js_function {
    use super::*;

    const SOURCE: &str = r#"
console.log("module noise");
function f(kind, value) {
  console.log("noise", kind);
  process.stdout.write("more noise\n");
  switch (kind) {
    case "echo": return value;
    case "raise": throw new TypeError("bad " + value);
    case "loop": for (;;) {}
    case "exit": process.exit(9);
    case "double": return value * 2n;
    case "async": return Promise.resolve(value);
    case "hang": return new Promise(() => {});
    case "nan": return NaN;
    case "名字": return {"名字": "值 ✓"};
  }
  return undefined;
}
module.exports = { f };
"#;

    #[test]
    fn values_errors_timeouts_and_exits() {
        let suite = function_suite(
            "js",
            "solution.js",
            SOURCE,
            "f",
            json!([
                {"name": "echo", "input": ["echo", {"a": [1, 2.5, null, true]}], "expected": {"a": [1, 2.5, null, true]}},
                {"name": "raise", "input": ["raise", 1], "expected": null},
                {"name": "loop", "input": ["loop", null], "expected": null},
                {"name": "after loop", "input": ["echo", "still here"], "expected": "still here"},
                {"name": "async", "input": ["async", 5], "expected": 5},
                {"name": "hang", "input": ["hang", null], "expected": null},
                {"name": "nan", "input": ["nan", null], "expected": null},
                {"name": "exit", "input": ["exit", null], "expected": null},
                {"name": "after exit", "input": ["名字", null], "expected": {"名字": "值 ✓"}},
                {"name": "too many", "input": ["echo", 1, 2], "expected": null},
                {"name": "undefined is null", "input": ["other", null], "expected": null},
            ]),
        );
        let Some(report) = run_expecting(
            &suite,
            "passed error timeout passed passed timeout error error passed invalid_test_format passed",
        ) else {
            return;
        };
        assert_eq!(message(&report, 1), "TypeError: bad 1 (at solution.js:8)");
        assert!(
            message(&report, 7).contains("exited with code 9"),
            "{}",
            message(&report, 7)
        );
        assert_eq!(
            message(&report, 9),
            "invalid_test_format: function f takes 2 positional args, input has 3"
        );
    }

    #[test]
    fn integers_beyond_two_to_the_53_are_exact_as_bigint() {
        let big: Value = serde_json::from_str("9007199254740993").unwrap();
        let doubled: Value = serde_json::from_str("18014398509481986").unwrap();
        let suite = function_suite(
            "js",
            "solution.js",
            SOURCE,
            "f",
            json!([
                {"name": "big echo", "input": ["echo", big.clone()], "expected": big},
                {"name": "bigint math", "input": ["double", 9007199254740993u64], "expected": doubled},
                {"name": "too few", "input": ["echo"], "expected": null},
            ]),
        );
        assert_third_case_refused(&suite, "f takes 2 positional args, input has 1");
    }

    #[test]
    fn a_script_style_function_needs_no_export() {
        let suite = function_suite(
            "js",
            "plain.js",
            "function add(a, b = 0) { return a + b; }\n",
            "add",
            json!([
                {"name": "two", "input": [1, 2], "expected": 3},
                {"name": "default", "input": [1], "expected": 1},
                {"name": "three", "input": [1, 2, 3], "expected": null},
            ]),
        );
        assert_third_case_refused(&suite, "add takes 1 to 2 positional args, input has 3");
    }
    #[test]
    fn an_es_module_export_is_found() {
        let suite = suite_from_value(json!({
            "deliverable_type": "function",
            "language": "js",
            "entry_point": "g",
            "source_files": [
                {"type": "text", "name": "lib/g.js", "text": "import { helper } from './helper.mjs';\nexport function g(x) { return helper(x); }\n"},
                {"type": "text", "name": "lib/helper.mjs", "text": "export const helper = (x) => x + 100;\n"}
            ],
            "test_cases": [{"name": "esm", "input": [1], "expected": 101}],
        }))
        .expect("a valid suite");
        run_expecting(&suite, "passed");
    }
    #[test]
    fn a_case_blocked_in_native_code_is_stopped() {
        let suite = function_suite(
            "js",
            "block.js",
            "function f(x) {\n  if (x === 1) require('child_process').execSync('sleep 30');\n  return x;\n}\n",
            "f",
            json!([
                {"name": "before", "input": [0], "expected": 0},
                {"name": "blocked", "input": [1], "expected": 1},
                {"name": "after", "input": [2], "expected": 2},
            ]),
        );
        let start = std::time::Instant::now();
        if run_expecting(&suite, "passed timeout passed").is_none() {
            return;
        }
        assert!(start.elapsed().as_secs() < 15, "{:?}", start.elapsed());
    }
}

mod process {
    use super::*;

    fn script_suite(
        kind: &str,
        language: &str,
        entry: &str,
        source: &str,
        cases: Value,
    ) -> TestSuite {
        suite_from_value(json!({
            "deliverable_type": kind,
            "language": language,
            "entry_point": entry,
            "source_files": [{"type": "text", "name": entry, "text": source}],
            "timeout_ms": 2000,
            "test_cases": cases,
        }))
        .expect("a valid suite")
    }

    #[test]
    fn a_100_kb_stdin_echo_does_not_deadlock() {
        let big: String = (0..100_000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect::<String>()
            + "\n";
        let suite = script_suite(
            "script",
            "python3",
            "echo.py",
            "import sys\ndata = sys.stdin.read()\nsys.stdout.write(data)\nsys.stderr.write(data)\n",
            json!([{"name": "echo", "input": {"stdin": big.clone()}, "expected": {"stdout": big, "stderr": big}}]),
        );
        let Some(report) = run(&suite) else { return };
        assert_eq!(
            statuses(&report),
            ["passed"],
            "{:?}",
            report.results[0].message
        );
    }

    #[test]
    fn bash_script_with_unicode_files() {
        let suite = script_suite(
            "script",
            "bash",
            "run.sh",
            "cat 数据/输入.txt | tr a-z A-Z > 结果.txt\necho \"done ✓\"\n",
            json!([
                {"name": "大写", "input": {"files": {"数据/输入.txt": "héllo\n"}},
                 "expected": {"stdout": "done ✓\n", "files": {"结果.txt": "HéLLO\n"}}},
                {"name": "missing output", "input": {"files": {"数据/输入.txt": "x\n"}},
                 "expected": {"files": {"other.txt": "X\n"}}},
            ]),
        );
        let Some(report) = run_expecting(&suite, "passed failed") else {
            return;
        };
        assert_eq!(message(&report, 1), "file other.txt was not produced");
        assert_eq!(
            report.results[1].got.as_ref().unwrap()["files"]["结果.txt"],
            "X\n"
        );
    }

    #[test]
    fn script_crash_timeout_and_malformed_cases() {
        let suite = script_suite(
            "script",
            "python3",
            "s.py",
            "import sys, time\nmode = sys.stdin.read().strip()\nif mode == 'sleep':\n    time.sleep(30)\nif mode == 'raise':\n    raise RuntimeError('boom')\nprint(mode)\n",
            json!([
                {"name": "ok", "input": {"stdin": "hi"}, "expected": {"stdout": "hi\n"}},
                {"name": "differs", "input": {"stdin": "hi"}, "expected": {"stdout": "ho\n"}},
                {"name": "raises", "input": {"stdin": "raise"}, "expected": {"stdout": ""}},
                {"name": "sleeps", "input": {"stdin": "sleep"}, "expected": {}},
                {"name": "input not object", "input": ["x"], "expected": {}},
                {"name": "bad file name", "input": {"files": {"../x": ""}}, "expected": {}},
                {"name": "unknown expected", "input": {}, "expected": {"stdout_contains": "x"}},
            ]),
        );
        let Some(report) = run_expecting(
            &suite,
            "passed failed error timeout invalid_test_format invalid_test_format invalid_test_format",
        ) else {
            return;
        };
        assert!(
            message(&report, 2).contains("RuntimeError: boom"),
            "{}",
            message(&report, 2)
        );
    }

    #[test]
    fn cli_needs_argv_and_runs_the_rest() {
        let suite = script_suite(
            "cli",
            "js",
            "tool.js",
            "const args = process.argv.slice(2);\nconsole.log(args.join('|'));\nprocess.exit(args.length);\n",
            json!([
                {"name": "no argv", "input": {"stdin": ""}, "expected": {}},
                {"name": "argv not list", "input": {"argv": "--x"}, "expected": {}},
                {"name": "two args", "input": {"argv": ["a b", "ç"]}, "expected": {"stdout": "a b|ç\n", "exit_code": 2}},
                {"name": "none", "input": {"argv": []}, "expected": {"stdout": "\n"}},
            ]),
        );
        let Some(report) = run_expecting(
            &suite,
            "invalid_test_format invalid_test_format passed passed",
        ) else {
            return;
        };
        let no_argv = "invalid_test_format: cli input must include argv";
        assert_messages(&report, &[no_argv, no_argv]);
    }
}

mod suite_errors {
    use super::*;

    #[test]
    fn unsupported_languages_name_the_field() {
        let Some(sb) = sandbox() else { return };
        let suite = function_suite("bash", "f.sh", "f() { :; }", "f", json!([]));
        let err =
            run_suite(sb, &CancelToken::new(), &suite, &OracleOptions::default()).unwrap_err();
        assert!(
            matches!(err, OracleError::Suite(ref e) if e.field == "language"),
            "{err}"
        );
        let suite = function_suite("ruby", "f.rb", "def f; end", "f", json!([]));
        let err =
            run_suite(sb, &CancelToken::new(), &suite, &OracleOptions::default()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("language: ruby is not supported"),
            "{err}"
        );
    }
}
