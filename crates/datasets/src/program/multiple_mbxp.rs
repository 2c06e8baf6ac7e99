//! MultiPL-E's and MBXP's programs: the dataset's own `prompt + completion + tests`, with
//! verdict's nonce harness around each language's tests (docs/datasets.md, "MultiPL-E" and
//! "MBXP").

use super::{Assembled, JAVATUPLES, Rule, Unassembled, go_main, java_main, rename_cpp_main};
use crate::problem::{InvalidCase, MbxpTest, MultiPleTest};
use verdict_contracts::judge::Language;

/// MultiPL-E's program: `prompt + completion + "\n" + tests`, the completion cut at its first
/// stop token (as MultiPL-E's generation does), with verdict's nonce harness for the
/// languages whose exit status MultiPL-E trusts (docs/datasets.md, "MultiPL-E").
pub fn assemble_multiple(
    language: Language,
    test: &MultiPleTest,
    completion: &str,
) -> Result<Assembled, Unassembled> {
    let completion = cut_at_stop_tokens(completion, &test.stop_tokens);
    let one = Assembled::single;
    match language {
        Language::Cpp => {
            // eval_cpp.py: `g++ -std=c++17`; the tests are `int main() {...}` of asserts.
            let tests = rename_cpp_main(&test.tests)?;
            let program = format!("{}{completion}\n{tests}", test.prompt);
            let mut assembled = one("main.cpp", program, Rule::Nonce);
            assembled.compile_extra.push("-std=c++17".into());
            Ok(assembled)
        }
        Language::Js => {
            // eval_javascript.py: `node`; exit status 0 is OK.
            Ok(JS.around(&format!("{}{completion}\n{}", test.prompt, test.tests)))
        }
        Language::Java => {
            // eval_java.py: `javac`, then `java -ea -cp .:javatuples.jar Problem`.
            let program = format!("{}{completion}\n{}", test.prompt, test.tests);
            let mut assembled = with_verdict_main(
                ("Problem.java", program),
                Rule::Nonce,
                ("VerdictMain.java", java_main("Problem", true)),
            );
            assembled.java_classpath = Some(JAVATUPLES.into());
            assembled
                .compile_extra
                .extend(["-cp".to_string(), format!(".:{JAVATUPLES}")]);
            Ok(assembled)
        }
        Language::Rust => {
            // eval_rust.py: `rustc`, then the binary; its tests are `fn main` of asserts.
            let tests = test
                .tests
                .replacen("fn main()", "fn verdict_test_main()", 1);
            let program = format!(
                "{}{completion}\n{tests}\nfn main() {{\n    let mut verdict_nonce = String::new();\n    let _ = std::io::stdin().read_line(&mut verdict_nonce);\n    verdict_test_main();\n    print!(\"\\n{{verdict_nonce}}\");\n}}\n",
                test.prompt
            );
            Ok(one("main.rs", program, Rule::Nonce))
        }
        Language::Go => {
            // eval_go.py: `go test` on the `_test.go` file.
            let program = format!("{}{completion}\n{}", test.prompt, test.tests);
            let package = program
                .lines()
                .find_map(|l| l.trim().strip_prefix("package "))
                .map(|p| p.trim().to_string())
                .ok_or_else(|| {
                    Unassembled::Invalid(InvalidCase::new("prompt", "no `package` clause"))
                })?;
            let mut assembled = one("main_test.go", program, Rule::GoTest);
            assembled
                .files
                .push(("verdict_main_test.go".into(), go_main(&package)));
            assembled.go_test = true;
            Ok(assembled)
        }
        Language::Bash => {
            // eval_sh.py: `bash`; the tests end with `run_test` under `set -e`.
            Ok(BASH.around(&format!("{}{completion}\n{}", test.prompt, test.tests)))
        }
        Language::Perl => {
            // eval_pl.py: `perl`; the tests `die` on a wrong answer (Test::Deep's eq_deeply).
            Ok(PERL.around(&format!("{}{completion}\n{}", test.prompt, test.tests)))
        }
        Language::Ruby => {
            // eval_ruby.py: `ruby`; the tests are a test-unit case, which test-unit runs after
            // the program's last line: verdict runs it there instead, and echoes the nonce
            // only when test-unit reports every test passed.
            let ruby = NonceScript {
                echo: RUBY_TEST_UNIT_RUN,
                ..RUBY
            };
            Ok(ruby.around(&format!("{}{completion}\n{}\n", test.prompt, test.tests)))
        }
        Language::Lua => {
            // eval_lua.py: `lua`; the tests end with `os.exit(lu.LuaUnit.run())`, run with
            // verdict's luaunit beside the program.
            let tests = replace_once(&test.tests, LUAUNIT_EXIT, LUAUNIT_RUN)?;
            let mut assembled = LUA.around(&format!("{}{completion}\n{tests}", test.prompt));
            assembled
                .files
                .push(("luaunit.lua".into(), LUAUNIT.to_string()));
            Ok(assembled)
        }
        Language::Scala => {
            // eval_scala.py: `scalac`, then `scala Problem`; OK is exit status 0 and nothing
            // on stderr. Its tests are `def main` of `assert`s in `object Problem`.
            let program = format!("{}{completion}\n{}", test.prompt, test.tests);
            Ok(with_verdict_main(
                ("Problem.scala", program),
                Rule::NonceNoStderr,
                ("VerdictMain.scala", scala_main("Problem")),
            ))
        }
        Language::Kotlin => {
            // eval_kt.py: `kotlinc -include-runtime`, then `java -ea -jar`; the tests are a
            // `fun main` of `assert`s.
            let tests = replace_once(&test.tests, "fun main()", "fun verdict_test_main()")?;
            let program = format!("{}{completion}\n{tests}", test.prompt);
            Ok(kotlin_program(program, true))
        }
        Language::Pas => {
            // eval_pas.py: `fpc`, then the binary; the tests end with the program's main block
            // (`begin`, `Assert`s under `{$C+}`, `end.`).
            let tests = pascal_main_with_nonce(&test.tests)?;
            Ok(one(
                "main.pas",
                format!("{}{completion}\n{tests}", test.prompt),
                Rule::Nonce,
            ))
        }
        Language::Php => {
            // eval_php.py: `php`; the tests throw on a wrong answer, a parse error is a
            // SyntaxError (here the profile's `php -l`). The nonce is read right after the
            // prompt's opening tag.
            php_program(&test.prompt, &format!("{completion}\n{}", test.tests))
        }
        Language::Typescript => {
            // eval_ts.py: `tsc`, then `node` on its `.js`; a tsc error is a SyntaxError. The
            // tests declare `require` (`declare var require: any;`) and use node's assert;
            // the harness declares what it uses the same way (Debian's tsc has no Node types).
            Ok(typescript_program(&format!(
                "{}{completion}\n{}",
                test.prompt, test.tests
            )))
        }
        Language::Octave => {
            // eval_matlab.py: `octave -q -f -W -H --no-gui` on the program with `test();`
            // written at its end (Octave takes functions anywhere in a script). The nonce is
            // read first, at the script's top level, which the functions do not see.
            Ok(OCTAVE.around(&format!("{}{completion}\n{}", test.prompt, test.tests)))
        }
        other => Err(Unassembled::Infra(format!(
            "MultiPL-E's {other} programs are not judged here yet (docs/datasets.md, \"MultiPL-E\")"
        ))),
    }
}

/// MBXP's program as mxeval's `check_correctness_<lang>` writes it: `prompt + completion +
/// test`, with verdict's nonce harness around the test's `main` (docs/datasets.md, "MBXP").
pub fn assemble_mbxp(
    language: Language,
    test: &MbxpTest,
    completion: &str,
) -> Result<Assembled, Unassembled> {
    let one = Assembled::single;
    match language {
        Language::Java => {
            // `javac`, then `java -cp . Main`: the test holds `class Main`.
            let program = format!("{}{completion}{}", test.prompt, test.test);
            Ok(with_verdict_main(
                ("Main.java", program),
                Rule::Nonce,
                ("VerdictMain.java", java_main("Main", false)),
            ))
        }
        Language::Cpp => {
            // `g++` (its default standard), then the binary.
            let tests = rename_cpp_main(&test.test)?;
            let program = format!("{}{completion}{tests}", test.prompt);
            Ok(one("main.cpp", program, Rule::Nonce))
        }
        Language::Js => Ok(JS.around(&format!("{}{completion}{}", test.prompt, test.test))),
        Language::Go => {
            // `go run`: the test's `func main()` is called by verdict's.
            let tests = replace_once(&test.test, "func main()", "func verdict_test_main()")?;
            let program = format!("{}{completion}{tests}\n", test.prompt);
            let mut assembled = one("main.go", program, Rule::Nonce);
            assembled
                .files
                .push(("verdict_main.go".into(), GO_RUN_MAIN.into()));
            Ok(assembled)
        }
        Language::Ruby => {
            // `ruby`: the test is top-level code that raises on a wrong answer.
            Ok(RUBY.around(&format!("{}{completion}{}", test.prompt, test.test)))
        }
        Language::Perl => {
            // `perl`: the test is top-level code that `die`s on a wrong answer (Data::Compare).
            Ok(PERL.around(&format!("{}{completion}{}", test.prompt, test.test)))
        }
        Language::Kotlin => {
            // `kotlinc -include-runtime`, then `java -jar`: the test is a `fun main` of checks.
            let tests = replace_once(&test.test, "fun main()", "fun verdict_test_main()")?;
            let program = format!("{}{completion}{tests}", test.prompt);
            Ok(kotlin_program(program, false))
        }
        Language::Scala => {
            // `scalac`, then `scala -cp . Main`: `object Main extends App`, the test its body.
            let program = format!("{}{completion}{}", test.prompt, test.test);
            Ok(with_verdict_main(
                ("Main.scala", program),
                Rule::Nonce,
                ("VerdictMain.scala", scala_main("Main")),
            ))
        }
        Language::Php => {
            // `php`: the test is top-level code that throws on a wrong answer.
            php_program(&test.prompt, &format!("{completion}{}", test.test))
        }
        Language::Typescript => {
            // `tsc`, then `node`: the test imports node's `assert` (`import * as assert from
            // 'assert'`), which Debian's tsc, without Node's types, takes from verdict's
            // declaration of the module.
            if let Some(package) = npm_import(&test.prompt) {
                return Err(Unassembled::Infra(format!(
                    "MBXP's TypeScript record imports the npm package {package}, which verdict's \
                     TypeScript box does not have (docs/datasets.md, \"MBXP\")"
                )));
            }
            let mut assembled =
                typescript_program(&format!("{}{completion}{}", test.prompt, test.test));
            assembled
                .files
                .push(("verdict-node.d.ts".into(), NODE_MODULES_DECLARED.into()));
            Ok(assembled)
        }
        other => Err(Unassembled::Infra(format!(
            "MBXP's {other} programs are not judged here yet (docs/datasets.md, \"MBXP\")"
        ))),
    }
}

/// An interpreted program of one file with verdict's nonce harness around its body: the nonce
/// read first, echoed after the last line (only when the tests passed).
struct NonceScript<'a> {
    /// The program's file, which the profile runs.
    file: &'a str,
    /// The lines before the body: the nonce read.
    read: &'a str,
    /// What follows the body: the nonce echoed.
    echo: &'a str,
}

impl NonceScript<'_> {
    /// The program of `body` in its harness, judged by the nonce.
    fn around(&self, body: &str) -> Assembled {
        let program = format!("{}{body}{}", self.read, self.echo);
        let mut assembled = Assembled::single(self.file, program, Rule::Nonce);
        assembled.entry_point = Some(self.file.into());
        assembled
    }
}

/// `node`: the nonce read whole from stdin.
const JS: NonceScript = NonceScript {
    file: "main.js",
    read: "const verdict_nonce__ = require(\"fs\").readFileSync(0, \"utf8\");\n",
    echo: "\n;process.stdout.write(\"\\n\" + verdict_nonce__);\n",
};

/// `bash`.
const BASH: NonceScript = NonceScript {
    file: "main.sh",
    read: "read -r verdict_nonce__\n",
    echo: "\nprintf '\\n%s\\n' \"$verdict_nonce__\"\n",
};

/// `perl`.
const PERL: NonceScript = NonceScript {
    file: "main.pl",
    read: "my $verdict_nonce__ = <STDIN>;\n",
    echo: "\nprint \"\\n$verdict_nonce__\";\n",
};

/// `ruby` (MultiPL-E's echoes through test-unit's run instead).
const RUBY: NonceScript = NonceScript {
    file: "main.rb",
    read: "verdict_nonce__ = $stdin.gets\n",
    echo: "\nprint \"\\n#{verdict_nonce__}\"\n",
};

/// `lua`: the echo is in the tests' end (luaunit's run).
const LUA: NonceScript = NonceScript {
    file: "main.lua",
    read: "local verdict_nonce__ = io.read(\"l\")\n",
    echo: "",
};

/// `octave`: `test();` written at the end, the nonce read at the script's top level, which
/// the functions do not see.
const OCTAVE: NonceScript = NonceScript {
    file: "main.m",
    read: "verdict_nonce__ = fgetl(stdin);\n",
    echo: "\ntest();\nprintf(\"\\n%s\\n\", verdict_nonce__);\n",
};

/// A JVM program (`file`, `program`) judged by `rule`, run through verdict's harness class
/// `VerdictMain` (`harness`: file and source), which calls its main between the nonce and its
/// echo.
fn with_verdict_main(
    (file, program): (&str, String),
    rule: Rule,
    harness: (&str, String),
) -> Assembled {
    let mut assembled = Assembled::single(file, program, rule);
    assembled.files.push((harness.0.into(), harness.1));
    assembled.entry_point = Some("VerdictMain".into());
    assembled
}

/// Go's harness for a program with a `main` of checks (MBXP): the nonce, the test's main, the
/// nonce echoed.
const GO_RUN_MAIN: &str = "package main\n\nimport (\n\t\"bufio\"\n\t\"os\"\n)\n\nfunc main() {\n\tnonce, _ := bufio.NewReader(os.Stdin).ReadString('\\n')\n\tverdict_test_main()\n\tos.Stdout.WriteString(\"\\n\" + nonce)\n}\n";

/// A PHP program: `prompt` (which opens with `<?php`), then `rest`, with the nonce read right
/// after the opening tag and echoed after the last line.
fn php_program(prompt: &str, rest: &str) -> Result<Assembled, Unassembled> {
    let prompt = prompt.strip_prefix("<?php").ok_or_else(|| {
        Unassembled::Invalid(InvalidCase::new("prompt", "does not start with `<?php`"))
    })?;
    let program = format!(
        "<?php\n$verdict_nonce__ = fgets(STDIN);{prompt}{rest}\necho \"\\n\" . $verdict_nonce__;\n"
    );
    let mut assembled = Assembled::single("main.php", program, Rule::Nonce);
    assembled.entry_point = Some("main.php".into());
    Ok(assembled)
}

/// A TypeScript program around `body`: `require` declared as the datasets' tests declare it
/// and `process` with the types `@types/node` gives what programs use of it (`exit` never
/// returns), as Debian's tsc has no Node.js types; the nonce read first and written after the
/// last line.
fn typescript_program(body: &str) -> Assembled {
    let program = format!(
        "declare var require: any;\ndeclare var process: {{ exit(code?: number): never; stdout: {{ write(text: string): boolean }}; [key: string]: any }};\nconst verdict_nonce__: string = require(\"fs\").readFileSync(0, \"utf8\");\n{body}\n;process.stdout.write(\"\\n\" + verdict_nonce__);\n"
    );
    Assembled::single("main.ts", program, Rule::Nonce)
}

/// The first module `source` imports (`import ... from 'mathjs'`) that is not one of Node's
/// modules [`NODE_MODULES_DECLARED`] declares: an npm package.
fn npm_import(source: &str) -> Option<&str> {
    source
        .lines()
        .filter(|line| line.trim_start().starts_with("import "))
        .filter_map(|line| line.rsplit_once(" from ").map(|(_, module)| module))
        .map(|module| {
            module
                .trim()
                .trim_end_matches(';')
                .trim_matches(['\'', '"'])
        })
        .find(|module| !matches!(*module, "assert" | "node:assert" | "fs"))
}

/// Node's modules the datasets' TypeScript imports, declared untyped (what `@types/node`
/// types, which Debian 12 does not package).
const NODE_MODULES_DECLARED: &str =
    "declare module \"assert\";\ndeclare module \"node:assert\";\ndeclare module \"fs\";\n";

/// `text` with its one `from` made `to`, or why the test is not of that shape.
fn replace_once(text: &str, from: &str, to: &str) -> Result<String, Unassembled> {
    if text.matches(from).count() != 1 {
        return Err(Unassembled::Invalid(InvalidCase::new(
            "test",
            format!("expected exactly one `{from}` in the test program"),
        )));
    }
    Ok(text.replacen(from, to, 1))
}

/// Pascal's tests with the nonce read at the start of the main block (its last `begin` line)
/// and echoed before its closing `end.`, or why the tests are not of that shape.
fn pascal_main_with_nonce(tests: &str) -> Result<String, Unassembled> {
    let invalid = |message: &str| Unassembled::Invalid(InvalidCase::new("tests", message));
    let end = tests
        .rfind("end.")
        .filter(|&at| tests[at + "end.".len()..].trim().is_empty())
        .ok_or_else(|| invalid("expected the tests to end with the main block's `end.`"))?;
    let begin = tests[..end]
        .rfind("\nbegin\n")
        .ok_or_else(|| invalid("expected a `begin` line opening the main block"))?;
    Ok(format!(
        "{}\nvar verdict_nonce__: String;\nbegin\n  ReadLn(verdict_nonce__);\n{}  WriteLn;\n  WriteLn(verdict_nonce__);\nend.\n",
        &tests[..begin],
        &tests[begin + "\nbegin\n".len()..end]
    ))
}

/// Ruby's end of a MultiPL-E program: test-unit's run (which it would start after the last
/// line), the nonce echoed only when test-unit says every test passed, and its exit status.
const RUBY_TEST_UNIT_RUN: &str = "Test::Unit::AutoRunner.need_auto_run = false\nverdict_passed__ = Test::Unit::AutoRunner.run\nprint \"\\n#{verdict_nonce__}\" if verdict_passed__ == true\nexit(verdict_passed__ == true)\n";

/// The last line of MultiPL-E's Lua tests.
const LUAUNIT_EXIT: &str = "os.exit(lu.LuaUnit.run())";

/// What verdict runs in its place: the nonce echoed only when luaunit counted no failure.
const LUAUNIT_RUN: &str = "local verdict_failures__ = lu.LuaUnit.run()\nif verdict_failures__ == 0 then io.write(\"\\n\" .. verdict_nonce__ .. \"\\n\") end\nos.exit(verdict_failures__)";

/// verdict's luaunit: the part of luaunit MultiPL-E's Lua tests use (Debian has no luaunit).
const LUAUNIT: &str = include_str!("luaunit.lua");

/// Scala's harness object: the nonce, the test object's `main`, then the nonce echoed.
fn scala_main(object: &str) -> String {
    format!(
        "object VerdictMain {{\n  def main(args: Array[String]): Unit = {{\n    val nonce = scala.io.StdIn.readLine()\n    {object}.main(args)\n    Console.out.flush()\n    print(\"\\n\" + nonce + \"\\n\")\n    Console.out.flush()\n  }}\n}}\n"
    )
}

/// Kotlin's program `main.kt` (the test's `main` renamed `verdict_test_main`) and the harness
/// `VerdictMain.kt` that calls it between the nonce and its echo; with `assertions`, `assert`
/// is on (as `java -ea` turns it on).
fn kotlin_program(program: String, assertions: bool) -> Assembled {
    let enable = if assertions {
        "ClassLoader.getSystemClassLoader().setDefaultAssertionStatus(true)\n    "
    } else {
        ""
    };
    let main = format!(
        "fun main() {{\n    val nonce = readLine()\n    {enable}verdict_test_main()\n    System.out.flush()\n    print(\"\\n\" + nonce + \"\\n\")\n    System.out.flush()\n}}\n"
    );
    let mut assembled = Assembled::single("main.kt", program, Rule::Nonce);
    assembled.files.push(("VerdictMain.kt".into(), main));
    assembled.entry_point = Some("VerdictMainKt".into());
    assembled
}

/// The completion up to the first occurrence of any stop token (MultiPL-E's
/// `stop_at_stop_token`: the earliest index over all tokens).
pub fn cut_at_stop_tokens<'a>(completion: &'a str, stop_tokens: &[String]) -> &'a str {
    let end = stop_tokens
        .iter()
        .filter(|t| !t.is_empty())
        .filter_map(|t| completion.find(t.as_str()))
        .min()
        .unwrap_or(completion.len());
    &completion[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn multiple(prompt: &str, tests: &str) -> MultiPleTest {
        MultiPleTest {
            prompt: prompt.into(),
            tests: tests.into(),
            stop_tokens: vec!["\n\n".into()],
        }
    }

    fn mbxp(prompt: &str, test: &str) -> MbxpTest {
        MbxpTest {
            prompt: prompt.into(),
            test: test.into(),
            entry_point: "f".into(),
        }
    }

    #[test]
    fn ruby_runs_test_unit_at_the_end_and_echoes_the_nonce_only_when_it_passed() {
        let t = multiple(
            "def add(x, y)\n",
            "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\nend\n",
        );
        let a = assemble_multiple(Language::Ruby, &t, "  x + y\nend\n\nputs 1").expect("ruby");
        let program = &a.files[0].1;
        assert!(
            program.starts_with("verdict_nonce__ = $stdin.gets\ndef add(x, y)\n  x + y\nend\n")
        );
        assert!(program.ends_with(RUBY_TEST_UNIT_RUN), "{program}");
        assert!(!program.contains("puts 1"));
        assert_eq!(a.entry_point.as_deref(), Some("main.rb"));
    }

    #[test]
    fn luas_exit_with_luaunits_count_becomes_a_run_that_echoes_the_nonce_on_no_failure() {
        let t = multiple(
            "local function add(x, y)\n",
            "lu = require('luaunit')\n\nos.exit(lu.LuaUnit.run())",
        );
        let a = assemble_multiple(Language::Lua, &t, "  return x + y\nend").expect("lua");
        assert!(a.files[0].1.ends_with(LUAUNIT_RUN), "{}", a.files[0].1);
        assert!(!a.files[0].1.contains(LUAUNIT_EXIT));
        assert_eq!(a.files[1], ("luaunit.lua".to_string(), LUAUNIT.to_string()));
        let no_exit = multiple("local function add(x, y)\n", "lu = require('luaunit')\n");
        assert!(matches!(
            assemble_multiple(Language::Lua, &no_exit, ""),
            Err(Unassembled::Invalid(_))
        ));
    }

    #[test]
    fn kotlin_and_scala_tests_are_called_by_a_harness_main() {
        let t = multiple(
            "fun add(x: Int, y: Int): Int {\n",
            "fun main() {\n  assert(add(0, 1) == 1);\n}\n",
        );
        let a = assemble_multiple(Language::Kotlin, &t, "    return x + y\n}\n").expect("kotlin");
        assert!(a.files[0].1.contains("fun verdict_test_main() {"));
        assert!(!a.files[0].1.contains("fun main()"));
        assert!(a.files[1].1.contains("setDefaultAssertionStatus(true)"));
        assert_eq!(a.entry_point.as_deref(), Some("VerdictMainKt"));
        let m = mbxp("fun f(n : Int) : Int {\n", "\nfun main() {\n}\n");
        let a = assemble_mbxp(Language::Kotlin, &m, "    return n\n}").expect("mbxp kotlin");
        assert!(!a.files[1].1.contains("setDefaultAssertionStatus"));

        let t = multiple(
            "object Problem {\n    def add(x : Long, y : Long) : Long = {\n",
            "    }\n    def main(args: Array[String]) = {\n    }\n\n}\n",
        );
        let a = assemble_multiple(Language::Scala, &t, "        x + y").expect("scala");
        assert_eq!(a.rule, Rule::NonceNoStderr);
        assert!(a.files[1].1.contains("Problem.main(args)"));
        assert_eq!(a.entry_point.as_deref(), Some("VerdictMain"));
        let m = mbxp("object Main extends App {\n", "\n}\n");
        let a = assemble_mbxp(Language::Scala, &m, "").expect("mbxp scala");
        assert_eq!(a.rule, Rule::Nonce);
        assert!(a.files[1].1.contains("Main.main(args)"));
    }

    #[test]
    fn pascals_main_block_reads_the_nonce_first_and_echoes_it_before_its_end() {
        let t = multiple(
            "function add(x: Int64; y: Int64): Int64;\n",
            "operator = (const a, b: array of Int64) r: Boolean;\nbegin\n  r := True;\nend;\nbegin\n  Assert(add(0, 1) = 1);\nend.\n",
        );
        let a =
            assemble_multiple(Language::Pas, &t, "begin\n  Result := x + y;\nend;").expect("pas");
        assert!(a.files[0].1.ends_with("  r := True;\nend;\nvar verdict_nonce__: String;\nbegin\n  ReadLn(verdict_nonce__);\n  Assert(add(0, 1) = 1);\n  WriteLn;\n  WriteLn(verdict_nonce__);\nend.\n"), "{}", a.files[0].1);
        let no_end = multiple("", "begin\n  Assert(True);\n");
        assert!(matches!(
            assemble_multiple(Language::Pas, &no_end, ""),
            Err(Unassembled::Invalid(_))
        ));
    }

    #[test]
    fn mbxps_ruby_and_perl_echo_the_nonce_after_the_top_level_test() {
        let m = mbxp("def f(n)", "\nraise 'no' if f(1) != 1\n");
        let a = assemble_mbxp(Language::Ruby, &m, "\n  n\nend\n").expect("ruby");
        assert_eq!(
            a.files[0].1,
            "verdict_nonce__ = $stdin.gets\ndef f(n)\n  n\nend\n\nraise 'no' if f(1) != 1\n\nprint \"\\n#{verdict_nonce__}\"\n"
        );
        let m = mbxp("sub f {\n", "\ndie unless f(1) == 1;\n");
        let a = assemble_mbxp(Language::Perl, &m, "  return $_[0];\n}\n").expect("perl");
        assert!(
            a.files[0]
                .1
                .starts_with("my $verdict_nonce__ = <STDIN>;\nsub f {\n")
        );
        assert!(
            a.files[0]
                .1
                .ends_with("die unless f(1) == 1;\n\nprint \"\\n$verdict_nonce__\";\n")
        );
    }

    #[test]
    fn php_reads_the_nonce_after_the_opening_tag_and_echoes_it_last() {
        let t = mbxp(
            "<?php\n\n/**\n * add\n */\nfunction add($x, $y){\n",
            "\n\nfunction compare($x, $y) {\n    return $x == $y;\n}\n\n$x0 = add(1, 2);\nif (!compare($x0, 3)) {\n    throw new Exception(\"Error at 1th assert statement.\");\n}\n",
        );
        let a = assemble_mbxp(Language::Php, &t, "    return $x + $y;\n}").expect("php");
        let program = &a.files[0].1;
        assert!(program.starts_with("<?php\n$verdict_nonce__ = fgets(STDIN);\n\n/**"));
        assert!(
            program.ends_with("}\n\necho \"\\n\" . $verdict_nonce__;\n"),
            "{program}"
        );
        assert_eq!(a.entry_point.as_deref(), Some("main.php"));
        let no_tag = mbxp("function add($x, $y){\n", "");
        assert!(matches!(
            assemble_mbxp(Language::Php, &no_tag, "}"),
            Err(Unassembled::Invalid(_))
        ));
    }

    #[test]
    fn typescripts_node_imports_are_declared_and_an_npm_import_is_an_infra_error() {
        let t = mbxp(
            "/**\n * add\n */\nconst add = function (x: number, y: number) : number  {\n",
            "\nimport * as assert from 'assert'\n\nlet actual_1 = add(1, 2);\nassert.deepEqual(actual_1, 3, \"Exception --- test case 0 failed to pass\");\n",
        );
        let a = assemble_mbxp(Language::Typescript, &t, "  return x + y;\n}").expect("ts");
        assert_eq!(a.files[0].0, "main.ts");
        assert!(a.files[0].1.starts_with("declare var require: any;\n"));
        assert!(
            a.files
                .iter()
                .any(|(n, c)| n == "verdict-node.d.ts" && c.contains("declare module \"assert\";"))
        );
        let npm = mbxp(
            "import * as math from 'mathjs'\n\nconst f = function (n: number) : boolean  {\n",
            "",
        );
        match assemble_mbxp(Language::Typescript, &npm, "}") {
            Err(Unassembled::Infra(why)) => assert!(why.contains("mathjs"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn multiple_completions_are_cut_at_the_earliest_stop_token() {
        let stops = vec!["\ndef".to_string(), "\n#".to_string(), "\nif".to_string()];
        assert_eq!(
            cut_at_stop_tokens("    return 1\n# note\ndef g():", &stops),
            "    return 1"
        );
        assert_eq!(
            cut_at_stop_tokens("    return 1\n", &stops),
            "    return 1\n"
        );
    }
}
