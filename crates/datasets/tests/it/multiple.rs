//! MultiPL-E (nuprl/MultiPL-E) `HumanEval_53_add` in the shape of its Hugging Face rows, per
//! language verdict has a toolchain for: completions given as its generation files hold them
//! (`completions`, cut at the stop tokens), judged as its `eval_<lang>.py` runs the program,
//! with MultiPL-E's status beside verdict's.

use crate::{judge, problem};
use serde_json::{Value, json};
use verdict_datasets::SampleResult;

/// MultiPL-E's Pascal prompt of HumanEval_53_add (`humaneval_to_pas.py`: its preamble, the
/// docstring as a comment, the declaration).
const PAS_PROMPT: &str = "{$mode objfpc}{$H+}{$C+}\nuses SysUtils, Math, fgl;\n\ntype\n  TInt64Array = array of Int64;\n  TDoubleArray = array of Double;\n  TBooleanArray = array of Boolean;\n  TInt64ArrayArray = array of TInt64Array;\n  TDoubleArrayArray = array of TDoubleArray;\n  TStringArrayArray = array of TStringArray;\n  TBooleanArrayArray = array of TBooleanArray;\n  TMapStringString = specialize TFPGMap<String, String>;\n  TMapStringInt64 = specialize TFPGMap<String, Int64>;\n  TNullableInt64 = record IsNull: Boolean; Value: Int64; end;\n  TNullableString = record IsNull: Boolean; Value: String; end;\n  TNullableInt64Array = array of TNullableInt64;\n\nfunction NullableInt64(AValue: Int64): TNullableInt64;\nbegin Result.IsNull := False; Result.Value := AValue; end;\nfunction NullableString(AValue: String): TNullableString;\nbegin Result.IsNull := False; Result.Value := AValue; end;\nfunction NullInt64: TNullableInt64;\nbegin Result.IsNull := True; Result.Value := 0; end;\nfunction NullString: TNullableString;\nbegin Result.IsNull := True; Result.Value := ''; end;\n\n{ Add two numbers x and y\n>>> add(2, 3)\n5 }\nfunction add(x: Int64; y: Int64): Int64;\n";

/// MultiPL-E's Pascal tests of HumanEval_53_add: its equality helpers, then the main block.
const PAS_TESTS: &str = "operator = (const a, b: array of Int64) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if a[i] <> b[i] then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of String) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if a[i] <> b[i] then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of Double) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if a[i] <> b[i] then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of Boolean) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if a[i] <> b[i] then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of TInt64Array) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if not (a[i] = b[i]) then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of TDoubleArray) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if not (a[i] = b[i]) then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of TStringArray) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if not (a[i] = b[i]) then begin r := False; Exit; end;\nend;\noperator = (const a, b: array of TBooleanArray) r: Boolean;\nvar i: Integer;\nbegin\n  if Length(a) <> Length(b) then begin r := False; Exit; end;\n  r := True;\n  for i := 0 to High(a) do if not (a[i] = b[i]) then begin r := False; Exit; end;\nend;\nbegin\n  Assert(add(0, 1) = 1);\n  Assert(add(2, 3) = 5);\nend.";

/// The problem record of `language` and its completions: right (one that runs on past a stop
/// token), wrong, exit with status 0, loop, and for some a forged success line before an exit.
fn add(language: &str) -> (Value, Vec<&'static str>) {
    let (prompt, tests, stops, completions): (&str, &str, Value, Vec<&str>) = match language {
        "cpp" => (
            "#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\n// >>> add((2), (3))\n// (5)\nlong add(long x, long y) {\n",
            "}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n    assert(candidate((2), (3)) == (5));\n}\n",
            json!(["\n}"]),
            vec![
                "    return x + y;\n}\nint extra() { return 1; }\n",
                "    return x - y;",
                "    exit(0);",
                "    while (true) {}",
            ],
        ),
        "js" => (
            "//Add two numbers x and y\n// >>> add(2, 3)\n// 5\nfunction add(x, y){\n",
            "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();",
            json!(["\nfunction ", "\n/*", "\n//", "\nconsole.log"]),
            vec![
                "  return x + y;\n}\n// trailing text\n",
                "  return x - y;\n}",
                "  process.exit(0);\n}",
                "  while (true) {}\n}",
            ],
        ),
        "java" => (
            "import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Add two numbers x and y\n    public static long add(long x, long y) {\n",
            "    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n",
            json!(["\n    }\n"]),
            vec![
                "        return x + y;\n    }\n",
                "        return x - y;",
                "        System.exit(0); return 0;",
                "        while (true) {}",
            ],
        ),
        "rs" => (
            "/// Add two numbers x and y\nfn add(x: isize, y: isize) -> isize {\n",
            "}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n    assert_eq!(candidate(2, 3), 5);\n}\n",
            json!(["\n}"]),
            vec![
                "    x + y\n}\n",
                "    x - y",
                "    std::process::exit(0)",
                "    loop {}",
            ],
        ),
        "go_test.go" => (
            "package add_test\n\nimport (\n    \"testing\"\n    \"fmt\"\n)\n\n// Add two numbers x and y\nfunc add(x int, y int) int {\n",
            "func TestAdd(t *testing.T) {\n  candidate := add\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(0, 1), expected: 1 },\n     { actual: candidate(2, 3), expected: 5 },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf(\"test num % d\", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf(\"%v\", tc.actual) != fmt.Sprintf(\"%v\", tc.expected) {\n\t\t\t\tt.Errorf(\"expected '%s', got '%s'\", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n",
            json!(["\nfunc", "struct", "\n// "]),
            vec![
                "    return x + y\n}\n\nfunc unused() {}\n",
                "    return x - y\n}\n",
                "    fmt.Println(\"PASS\")\n    return 0\n}\n",
                "    for {\n    }\n}\n",
            ],
        ),
        "py" => (
            "def add(x: int, y: int) -> int:\n    \"\"\"Add two numbers x and y\"\"\"\n",
            "def check(candidate):\n    assert candidate(0, 1) == 1\n    assert candidate(2, 3) == 5\n\ndef test_check():\n    check(add)\n\ntest_check()\n",
            json!(["\ndef", "\n#", "\nif", "\nclass"]),
            vec![
                "    return x + y\n\nif __name__ == '__main__':\n    print(add(1, 2))\n",
                "    return x - y\n",
                "    import os; os._exit(0)\n",
                "    while True:\n        pass\n",
            ],
        ),
        "sh" => (
            "#!/bin/bash\n# Add two numbers x and y\n# >>> $(add \"2\" \"3\")\n# \"5\"\n#\n# $1 is an integer\n# $2 is an integer\nadd() {\n",
            "}\n\ncandidate() {\n    add \"$@\"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate \"0\" \"1\") = \"1\" ]]\n    [[ $(candidate \"2\" \"3\") = \"5\" ]]\n}\n\nrun_test",
            json!(["\n}"]),
            vec![
                "    echo $(( $1 + $2 ))\n}\nextra() { :; }\n",
                "    echo $(( $1 - $2 ))",
                "    exit 0",
                "    while true; do :; done",
            ],
        ),
        "pl" => (
            "# Add two numbers x and y\n# >>> add(2, 3)\n# 5\nsub add {\n    my($x, $y) = @_;\n",
            "}\n\nuse Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n        if(eq_deeply($candidate->(0, 1),1)) {\n        print \"ok!\" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(2, 3),5)) {\n        print \"ok!\" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();",
            json!(["\nsub", "\n#", "\n\n"]),
            vec![
                "    return $x + $y;\n\n# trailing\n",
                "    return $x - $y;",
                "    exit 0;",
                "    while (1) {}",
            ],
        ),
        "rb" => (
            "# Add two numbers x and y\n# >>> add.call(2, 3)\n# 5\ndef add(x, y)\n",
            "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    candidate = method(:add)\n    assert_equal(1, candidate.call(0, 1))\n    assert_equal(5, candidate.call(2, 3))\n  end\nend\n",
            json!(["\nclass", "\ndef", "\n#", "\n\n"]),
            vec![
                "  x + y\nend\n\nputs add(1, 2)\n",
                "  x - y\nend",
                "  exit 0\nend",
                "  loop {}\nend",
                "  puts \"1 tests, 2 assertions, 0 failures, 0 errors\"\n  puts \"100% passed\"\n  exit! 0\nend",
            ],
        ),
        "lua" => (
            "-- Add two numbers x and y\n-- >>> add(2, 3)\n-- 5\nlocal function add(x, y)\n",
            "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n    lu.assertEquals(candidate(0, 1), 1)\n    lu.assertEquals(candidate(2, 3), 5)\n    lu.assertEquals({candidate(1, 1), {candidate(0, 0)}}, {2, {0}})\nend\n\nos.exit(lu.LuaUnit.run())",
            json!(["\nlocal", "\nfunction", "\n--", "\n\n"]),
            vec![
                "    return x + y\nend\n\nlocal unused = 1\n",
                "    return x - y\nend",
                "    os.exit(0)\nend",
                "    while true do end\nend",
                "    print(\"Ran 1 tests in 0.000 seconds, 1 success, 0 failures\")\n    print(\"OK\")\n    os.exit(0)\nend",
            ],
        ),
        "scala" => (
            "import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    def add(x : Long, y : Long) : Long = {\n",
            "    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n",
            json!(["\n    }\n"]),
            vec![
                "        x + y\n    }\n    def unused() = 1\n",
                "        x - y",
                "        sys.exit(0)",
                "        while (true) {}; 0L",
                "        println(\"OK\"); sys.exit(0)",
            ],
        ),
        "kt" => (
            "// Add two numbers x and y\n// >>> add(2, 3)\n// 5\nfun add(x: Int, y: Int): Int {\n",
            "fun main() {\n  assert(add(0, 1) == 1);\n  assert(add(2, 3) == 5);\n}\n",
            json!(["\nfun ", "\n/*", "\n//", "\nclass"]),
            vec![
                "    return x + y\n}\n\nfun unused() = 1\n",
                "    return x - y\n}\n",
                "    kotlin.system.exitProcess(0)\n}\n",
                "    while (x > -1 || x <= -1) {}\n    return 0\n}\n",
                "    println(\"OK\")\n    kotlin.system.exitProcess(0)\n}\n",
            ],
        ),
        "pas" => (
            PAS_PROMPT,
            PAS_TESTS,
            json!(["\nfunction", "\nprocedure", "\n\n"]),
            vec![
                "begin\n  Result := x + y;\nend;\n\nfunction unused: Int64;\n",
                "begin\n  Result := x - y;\nend;",
                "begin\n  Halt(0);\nend;",
                "begin\n  while True do ;\n  Result := 0;\nend;",
                "begin\n  WriteLn('OK');\n  Halt(0);\nend;",
            ],
        ),
        "php" => (
            "<?php\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\nfunction add($x, $y) {\n",
            "function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n    if (candidate(0, 1) !== 1) { throw new Exception(\"Test failed!\"); }\n    if (candidate(2, 3) !== 5) { throw new Exception(\"Test failed!\"); }\n}\n\ntest();",
            json!(["\nfunction", "\n?>", "\n//", "\n#"]),
            vec![
                "    return $x + $y;\n}\n\nfunction unused() {}\n",
                "    return $x - $y;\n}",
                "    exit(0);\n}",
                "    while (true) {}\n}",
                "    echo \"OK\\n\";\n    exit(0);\n}",
            ],
        ),
        "ts" => (
            "//Add two numbers x and y\n// >>> add(2, 3)\n// 5\nfunction add(x: number, y: number): number {\n",
            "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();",
            json!(["\nfunction ", "\n/*", "\n//", "\nclass"]),
            vec![
                "  return x + y;\n}\n// trailing text\n",
                "  return x - y;\n}",
                "  process.exit(0);\n}",
                "  while (true) {}\n}",
                "  console.log(\"OK\");\n  process.exit(0);\n}",
            ],
        ),
        "m" => (
            "% Add two numbers x and y\n% >>> add(2, 3)\n% 5\n\nfunction res = add(x,y)",
            "end\n\nfunction ans = test()\ncandidate = @add;\n  assert(isequaln(candidate(0,1),1));\n  assert(isequaln(candidate(2,3),5));\nend",
            json!(["\nend"]),
            vec![
                "\n    res = x + y;\nend\n\nfunction unused()\n",
                "\n    res = x - y;",
                "\n    exit(0);",
                "\n    while true\n    end",
                "\n    printf(\"OK\\n\");\n    exit(0);",
            ],
        ),
        other => panic!("no record for {other}"),
    };
    let record = json!({
        "name": "HumanEval_53_add", "language": language, "prompt": prompt,
        "doctests": "transform", "original": "HumanEval_53_add.py",
        "prompt_terminology": "reworded", "tests": tests, "stop_tokens": stops,
    });
    (record, completions)
}

/// Judges the four completions of `language` as one generation-file record.
fn judge_language(language: &str) -> Option<Vec<SampleResult>> {
    let (record, completions) = add(language);
    let mut generations = record.clone();
    generations["completions"] = json!(completions);
    judge(&problem(&record), &[generations], 3000)
}

fn statuses(results: &[SampleResult]) -> Vec<Option<&'static str>> {
    results.iter().map(SampleResult::multiple_status).collect()
}

/// MultiPL-E's statuses for the completions of [`add`]: right, wrong, exit, loop, forged.
const EXPECTED: [Option<&str>; 5] = [
    Some("OK"),
    Some("Exception"),
    Some("Exception"),
    Some("Timeout"),
    Some("Exception"),
];

/// The statuses `results` of [`add`]'s completions must have.
fn expected(results: &[SampleResult]) -> &'static [Option<&'static str>] {
    &EXPECTED[..results.len()]
}

/// Judges [`add`]'s completions in `language` and checks their statuses are MultiPL-E's. Where
/// the language's test library is Debian's `package`, a run without it must instead name it in
/// an infra error.
fn assert_add_judged(language: &str, package: Option<&str>) {
    let Some(results) = judge_language(language) else {
        return;
    };
    if let Some(package) = package
        && let Some(infra) = results.iter().find_map(|r| r.infra_error.as_ref())
    {
        assert!(infra.message.contains(package), "{infra:?}");
        return;
    }
    assert_eq!(statuses(&results), expected(&results), "{results:#?}");
}

#[test]
fn multiple_cpp_is_cut_at_its_stop_token_and_exit_zero_is_an_exception() {
    assert_add_judged("cpp", None);
}

#[test]
fn multiple_js_runs_under_node_and_process_exit_is_an_exception() {
    assert_add_judged("js", None);
}

#[test]
fn multiple_java_runs_problem_with_assertions_on_and_system_exit_is_an_exception() {
    // Its test library (Debian's libjavatuples-java) missing: named, never a score.
    assert_add_judged("java", Some("libjavatuples-java"));
}

#[test]
fn multiple_rust_runs_its_main_of_asserts_and_process_exit_is_an_exception() {
    assert_add_judged("rs", None);
}

#[test]
fn multiple_go_runs_go_test_and_a_forged_pass_line_is_an_exception() {
    assert_add_judged("go_test.go", None);
}

#[test]
fn multiple_python_runs_as_an_assertion_script() {
    assert_add_judged("py", None);
}

#[test]
fn multiple_bash_runs_its_run_test_and_exit_zero_is_an_exception() {
    assert_add_judged("sh", None);
}

#[test]
fn multiple_perl_runs_with_test_deep_and_exit_zero_is_an_exception() {
    // Its test library (Debian's libtest-deep-perl) missing: named, never a score.
    assert_add_judged("pl", Some("libtest-deep-perl"));
}

#[test]
fn multiple_ruby_runs_test_unit_and_echoes_the_nonce_only_when_it_reports_success() {
    // Its test library (Debian's ruby-test-unit) missing: named, never a score.
    assert_add_judged("rb", Some("ruby-test-unit"));
}

#[test]
fn multiple_lua_runs_luaunit_and_os_exit_zero_is_an_exception() {
    assert_add_judged("lua", None);
}

#[test]
fn multiple_scala_runs_problem_main_and_sys_exit_is_an_exception() {
    assert_add_judged("scala", None);
}

#[test]
fn multiple_kotlin_runs_main_with_assertions_on_and_exit_process_is_an_exception() {
    assert_add_judged("kt", None);
}

#[test]
fn multiple_pascal_reads_the_nonce_in_its_main_block_and_halt_is_an_exception() {
    assert_add_judged("pas", None);
}

#[test]
fn multiple_php_throws_on_a_wrong_answer_and_exit_is_an_exception() {
    assert_add_judged("php", None);
}

#[test]
fn multiple_typescript_compiles_with_tsc_and_process_exit_is_an_exception() {
    assert_add_judged("ts", None);
}

#[test]
fn multiple_octave_writes_test_call_at_the_end_and_exit_is_an_exception() {
    assert_add_judged("m", None);
}
