//! The python function harness's start-up (docs/oracle.md, "Start-up"): it imports neither
//! `json` nor `importlib.util`, and nothing a deliverable or a report can see changes for it.

use super::*;
use std::path::PathBuf;
use std::process::Command;

/// The `python3` the sandbox runs (the first on the box's PATH).
fn box_python() -> PathBuf {
    std::env::split_paths(verdict_sandbox::BOX_ENV_PATH)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .expect("python3 on the box's PATH")
}

/// Runs `script` under the box's python3 with `args`; its stdout (it must exit 0).
fn python(script: &str, args: &[&str]) -> String {
    let out = Command::new(box_python())
        .arg("-B")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Imports the harness as a module, checks that its codec did not import `json` (on the
/// CPython versions it is checked for), then compares it and its fallback with `json` on
/// tricky values, documents and the deepest value each encodes.
const CODEC_CHECK: &str = r#"
import sys
loaded = set(sys.modules)
sys.path.insert(0, sys.argv[1])
import function as harness
loads, dumps = harness.json_codec()
fast = (3, 8) <= sys.version_info[:2] <= (3, 13) and sys.implementation.name == "cpython"
if fast:
    for name in ("json", "re", "enum"):
        assert name in loaded or name not in sys.modules, name + " imported"
# Where json_codec would not take the fast path it falls back on json: check that one too.
class Elsewhere:
    version_info = (3, 14)
    implementation = sys.implementation
real_sys, harness.sys = harness.sys, Elsewhere
codecs = {"fast" if fast else "json": (loads, dumps), "fallback": harness.json_codec()}
harness.sys = real_sys
import collections, decimal, enum, fractions, json
sys.set_int_max_str_digits(0) if hasattr(sys, "set_int_max_str_digits") else None

class I(int):
    def __repr__(self): return "I!"
class F(float):
    def __repr__(self): return "F!"
class S(str): pass
class E(enum.IntEnum):
    A = 1
class D(dict): pass
cycle = [1]; cycle.append(cycle)
loop = {}; loop["x"] = loop
values = [
    None, True, False, 0, -1, 2 ** 64 + 1, 10 ** 5000, 1e16, 0.1, 0.1 + 0.2, -0.0, 1e308, 5e-324,
    1e22, float("nan"), float("inf"), -float("inf"), "é\u2028\x00\"\\\n🎉\ud800", S("x"), I(3),
    F(2.5), E.A, [I(1), F(1.5)], {1: 2, 2.5: 3, True: 4, None: 5, False: 6, "a": 7}, {(1, 2): 3},
    {frozenset(): 1}, {1, 2}, b"x", decimal.Decimal("1.5"), fractions.Fraction(1, 3), 1j,
    (1, (2, [3])), cycle, loop, [[[]]], collections.OrderedDict(a=1), D(a=1), {I(5): 1},
    {F(1.5): 1}, {E.A: 1}, {"a": [float("nan")]}, [1, {2, 3}], object(), range(3),
    {"k": {1: {2: [3, {"é": None}]}}},
]
def nested(depth):
    v = None
    for _ in range(depth):
        v = [v]
    return v
values += [nested(d) for d in (900, 1000, 1500, 10000, 100000)]

def outcome(encode, record):
    try:
        return encode(record)
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)

def reference(record):
    return json.dumps(record, ensure_ascii=False, allow_nan=False)

def deepest(encode):  # the deepest list that encodes, called from the same depth
    low, high = 1, 100000
    while low < high:
        mid = (low + high + 1) // 2
        try:
            encode({"i": 0, "ok": nested(mid), "ms": 1.0})
            low = mid
        except RecursionError:
            high = mid - 1
    return low

checked = 0
for path, (loads, dumps) in codecs.items():
    assert deepest(lambda r: dumps(r)) == deepest(reference), path
    for round in range(2):  # again: a failed record must leave nothing behind
        for i, value in enumerate(values):
            for record in ({"i": i, "ok": value, "ms": 0.25}, {"load_error": value}):
                ours, theirs = outcome(lambda r: dumps(r), record), outcome(reference, record)
                assert ours == theirs, (path, i, ours[:200], theirs[:200])
                checked += 1
    documents = [
        "[[1,2]]", ' \n[[1, 2.5, "é", {"a": null}]] \t\r\n', "[NaN, Infinity, -Infinity]",
        "[1e400, -0, 123456789012345678901234567890]", "", " ", "[1] x", "[1", "\ufeff[1]",
        '{"a":1,"a":2}', '["\\ud800"]', "[1,]", "nul", '"\x01"', "[" * 100000 + "]" * 100000, "1 2",
    ]
    for document in documents:
        ours = outcome(lambda d: repr(loads(d)), document)
        theirs = outcome(lambda d: repr(json.loads(d)), document)
        assert ours == theirs, (path, document[:30], ours[:200], theirs[:200])
        checked += 1
print("fast" if fast else "json", checked)
"#;

#[test]
fn records_and_cases_are_byte_identical_to_json_dumps_and_loads() {
    let dir = format!("{}/src/harness", env!("CARGO_MANIFEST_DIR"));
    let out = python(CODEC_CHECK, &[&dir]);
    let (path, checked) = out.trim().split_once(' ').expect("path and count");
    assert!(["fast", "json"].contains(&path), "{out}");
    assert!(checked.parse::<usize>().expect("a count") > 100, "{out}");
}

#[test]
fn the_harness_imports_nothing_a_bare_interpreter_has_not_loaded() {
    const WATCHED: &str = r#"WATCHED = ("json", "re", "enum", "signal", "importlib", "importlib.util", "inspect",
    "contextlib", "collections", "functools", "dataclasses", "typing")
"#;
    let harnessed = function_suite(
        "python3",
        "solution.py",
        &format!(
            "import sys\n{WATCHED}AT_LOAD = [m for m in WATCHED if m in sys.modules]\n\
             def f():\n    return [AT_LOAD, [m for m in WATCHED if m in sys.modules]]\n"
        ),
        "f",
        json!([{"name": "loaded", "input": [], "expected": null}]),
    );
    // What a bare interpreter has loaded in the same box (a `.pth` file may import some).
    let bare = suite_from_value(json!({
        "deliverable_type": "script",
        "language": "python3",
        "entry_point": "main.py",
        "source_files": [{"type": "text", "name": "main.py", "text": format!(
            "import sys\n{WATCHED}print(repr([m for m in WATCHED if m in sys.modules]))\n")}],
        "timeout_ms": 2000,
        "test_cases": [{"name": "bare", "input": {}, "expected": {}}],
    }))
    .expect("a valid suite");
    let Some(report) = run(&harnessed) else {
        return;
    };
    let Some(bare) = run(&bare) else { return };
    let bare_loaded: Value = serde_json::from_str(
        &bare.results[0].got.as_ref().expect("stdout")["stdout"]
            .as_str()
            .expect("a string")
            .replace('\'', "\""),
    )
    .expect("a list");
    assert_eq!(
        report.results[0].got,
        Some(json!([bare_loaded, bare_loaded])),
        "{report:#?}"
    );
}

#[test]
fn returns_that_are_not_json_report_what_json_dumps_says() {
    const SOURCE: &str = r#"
class Int(int):
    def __repr__(self):
        return "Int!"

class Float(float):
    def __repr__(self):
        return "Float!"

def f(kind):
    if kind == "cycle":
        v = [1]
        v.append(v)
        return v
    if kind == "loop":
        v = {}
        v["v"] = v
        return v
    return {
        "set": {1, 2}, "nan": float("nan"), "inf": float("inf"), "-inf": -float("inf"),
        "tuple key": {(1, 2): 3}, "bytes": b"x", "deep set": [1, {"a": {2}}],
        "bool keys": {True: 1, False: 2, None: 3}, "int keys": {1: {2: {3.5: "x"}}},
        "subclasses": [Int(7), Float(2.5), {Int(1): Float(0.5)}], "large": 10 ** 30,
        "floats": [1e16, 0.1, 0.1 + 0.2, -0.0, 5e-324], "unicode": "é\u2028\"\\\n🎉 名字",
        "big int": 2 ** 63 + 1,
    }[kind]
"#;
    let errors = [
        "set",
        "nan",
        "inf",
        "-inf",
        "cycle",
        "loop",
        "tuple key",
        "bytes",
        "deep set",
    ];
    let mut cases: Vec<Value> = errors
        .iter()
        .map(|kind| json!({"name": kind, "input": [kind], "expected": null}))
        .collect();
    for (kind, expected) in [
        ("bool keys", json!({"true": 1, "false": 2, "null": 3})),
        ("int keys", json!({"1": {"2": {"3.5": "x"}}})),
        ("subclasses", json!([7, 2.5, {"1": 0.5}])),
        ("large", json!(1e30)),
        (
            "floats",
            json!([1e16, 0.1, 0.30000000000000004, -0.0, 5e-324]),
        ),
        ("unicode", json!("é\u{2028}\"\\\n🎉 名字")),
        ("big int", json!(9_223_372_036_854_775_809_u64)),
    ] {
        cases.push(json!({"name": kind, "input": [kind], "expected": expected}));
    }
    let suite = function_suite("python3", "solution.py", SOURCE, "f", Value::from(cases));
    let Some(report) = run(&suite) else { return };
    // What `json.dumps` says of each, in this interpreter.
    let said = python(
        &format!(
            "import json, sys\n{SOURCE}\nfor kind in sys.argv[1:]:\n    try:\n        \
             json.dumps(f(kind), ensure_ascii=False, allow_nan=False)\n    except Exception as e:\n        \
             print('return value is not JSON: %s' % e)\n"
        ),
        &errors,
    );
    let said: Vec<&str> = said.lines().collect();
    assert_eq!(said.len(), errors.len(), "{said:?}");
    for (i, expected) in said.iter().enumerate() {
        assert_eq!(report.results[i].status.as_str(), "error", "{report:#?}");
        assert_eq!(message(&report, i), *expected);
    }
    assert!(
        report.results[errors.len()..]
            .iter()
            .all(|r| r.status.as_str() == "passed"),
        "{report:#?}"
    );
}

#[test]
fn a_coding_cookie_or_a_bom_decodes_as_the_import_system_does() {
    // The file is written as UTF-8: under a latin-1 cookie "é" is two characters.
    let latin1 = function_suite(
        "python3",
        "latin.py",
        "# -*- coding: latin-1 -*-\nS = \"é\"\ndef f():\n    return [S, len(S)]\n",
        "f",
        json!([{"name": "cookie", "input": [], "expected": ["Ã©", 2]}]),
    );
    let bom = function_suite(
        "python3",
        "bom.py",
        "\u{feff}S = \"é\"\ndef f():\n    return [S, len(S)]\n",
        "f",
        json!([{"name": "bom", "input": [], "expected": ["é", 1]}]),
    );
    for suite in [latin1, bom] {
        run_expecting(&suite, "passed");
    }
}

#[test]
fn the_deliverable_is_a_real_module_with_its_file_spec_and_tracebacks() {
    const SOURCE: &str = r#"import dataclasses, inspect, os, pickle, sys, traceback

@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int = 0

def f(kind):
    if kind == "pickle":
        p = Point(1, 2)
        return [pickle.loads(pickle.dumps(p)) == p, dataclasses.asdict(p)]
    if kind == "module":
        return [
            os.path.basename(__file__), __name__, __spec__.name, __spec__.origin == os.path.abspath(__file__),
            type(__loader__).__name__, __cached__.endswith(".pyc"), __package__,
            sys.modules[__name__].__dict__ is globals(), os.path.isdir(os.path.join(os.path.dirname(__file__), "__pycache__")),
        ]
    if kind == "source":
        return inspect.getsource(helper).splitlines()[0]
    if kind == "traceback":
        try:
            helper()
        except KeyError:
            return [[os.path.basename(fr.filename), fr.lineno, fr.name] for fr in traceback.extract_tb(sys.exc_info()[2])]
    return helper()

def helper():
    raise KeyError("k")
"#;
    let suite = function_suite(
        "python3",
        "solution.py",
        SOURCE,
        "f",
        json!([
            {"name": "pickle", "input": ["pickle"], "expected": [true, {"x": 1, "y": 2}]},
            {"name": "module", "input": ["module"], "expected":
                ["solution.py", "solution", "solution", true, "SourceFileLoader", true, "", true, false]},
            {"name": "source", "input": ["source"], "expected": "def helper():"},
            {"name": "traceback", "input": ["traceback"], "expected":
                [["solution.py", 22, "f"], ["solution.py", 28, "helper"]]},
            {"name": "raises", "input": ["raise"], "expected": null},
        ]),
    );
    let Some(report) = run_expecting(&suite, "passed passed passed passed error") else {
        return;
    };
    assert_eq!(
        message(&report, 4),
        "KeyError: 'k' (at solution.py:28 in helper)"
    );
    let broken = function_suite(
        "python3",
        "broken.py",
        "X = 1\nY = X / 0\ndef f():\n    pass\n",
        "f",
        json!([{"name": "a", "input": [], "expected": null}]),
    );
    let Some(report) = run(&broken) else { return };
    assert_eq!(
        message(&report, 0),
        "loading the module raised ZeroDivisionError: division by zero (at broken.py:2 in <module>)"
    );
}

/// Without a warm interpreter the harness runs as bytecode its interpreter compiled once
/// (docs/oracle.md, "Start-up"), kept as root under the sandbox's state dir for later
/// processes; failures are reported as from the source (the code keeps the source's file name).
#[test]
fn the_harness_runs_as_bytecode_compiled_once_and_reports_as_the_source_did() {
    let suite = function_suite(
        "python3",
        "solution.py",
        "import sys\n\ndef f(x):\n    if x == 0:\n        return sys.argv[0]\n    return 1 // (x - 1)\n",
        "f",
        json!([
            {"name": "argv", "input": [0], "expected": ".verdict/harness.pyc"},
            {"name": "raises", "input": [1], "expected": 0},
            {"name": "passes", "input": [2], "expected": 1},
        ]),
    );
    let Some(cold) = cold_sandbox() else { return };
    let report = run_suite(cold, &CancelToken::new(), &suite, &OracleOptions::default())
        .expect("the suite runs");
    assert_eq!(
        statuses(&report),
        ["passed", "error", "passed"],
        "{report:#?}"
    );
    assert_eq!(
        message(&report, 1),
        "ZeroDivisionError: integer division or modulo by zero (at solution.py:6 in f)"
    );
    let kept = cold.config().state_dir.join("oracle");
    let is_root = std::fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    if is_root {
        let pyc = std::fs::read_dir(&kept)
            .expect("the kept dir")
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".pyc"));
        assert!(pyc, "no .pyc kept in {}", kept.display());
    }
}
