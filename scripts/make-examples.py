#!/usr/bin/env python3
"""Writes examples/judge/*.json: real Submissions that `judge run` judges and the tests check.

Each example's expected statuses live beside it in NAME.expected (one status per task line,
or `invalid: <message prefix>`); `VERDICT_BLESS=1 cargo test` rewrites those files.
Run from the repository root: python3 scripts/make-examples.py
"""
import json
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "examples", "judge")


def text(name, body):
    return {"type": "text", "name": name, "text": body}


def datum(stdin, stdout):
    return {"inputs": [text("testdata.in", stdin)], "outputs": [text("testdata.out", stdout)]}


def program(language, files, entry_point=None, assist=()):
    p = {"type": "source_code", "language": language,
         "source_files": [text(n, b) for n, b in files], "assist_files": [text(n, b) for n, b in assist]}
    if entry_point:
        p["entry_point"] = entry_point
    return p


def compile_task():
    return {"check_script": "compile", "run_script": None, "compare_script": None, "is_random": False,
            "testcase_id": -1, "depends_on": -1, "depends_cond": None, "time_limit": 10000}


def test_task(k, compare="diff-ign-space", depends_on=0, cond="ACCEPTED", time_limit=1000,
              memory_limit=65536, file_limit=1024, proc_limit=5, random=False):
    return {"check_script": "standard", "run_script": "standard", "compare_script": compare,
            "is_random": random, "testcase_id": -1 if random else k, "depends_on": depends_on,
            "depends_cond": cond, "memory_limit": memory_limit, "time_limit": time_limit,
            "file_limit": file_limit, "proc_limit": proc_limit}


def submission(name, sub, tasks, data, **extra):
    s = {"sub_type": "programming", "category": "examples", "prob_id": name, "sub_id": f"{name}-1",
         "updated_at": 1, "judge_tasks": tasks, "test_data": data, "submission": sub}
    s.update(extra)
    return s


AB_DATA = [datum("1 2\n", "3\n"), datum("-5 5\n", "0\n"),
           datum("".join(f"{i} {i * 3}\n" for i in range(1000)), "".join(f"{i * 4}\n" for i in range(1000)))]
AB_TASKS = [compile_task()] + [test_task(k) for k in range(3)]

AB = {
    "c": [("main.c", '#include <stdio.h>\nint main(void) {\n  long long a, b;\n  while (scanf("%lld %lld", &a, &b) == 2) printf("%lld\\n", a + b);\n  return 0;\n}\n')],
    "cpp": [("main.cpp", '#include <iostream>\nint main() {\n  std::ios::sync_with_stdio(false);\n  long long a, b;\n  while (std::cin >> a >> b) std::cout << a + b << "\\n";\n}\n')],
    "java": [("cn/org/vmatrix/Main.java", 'package cn.org.vmatrix;\nimport java.io.*;\nimport java.util.*;\npublic class Main {\n  public static void main(String[] args) throws IOException {\n    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));\n    StringBuilder out = new StringBuilder();\n    String line;\n    while ((line = in.readLine()) != null) {\n      StringTokenizer t = new StringTokenizer(line);\n      if (!t.hasMoreTokens()) continue;\n      long a = Long.parseLong(t.nextToken()), b = Long.parseLong(t.nextToken());\n      out.append(a + b).append(\'\\n\');\n    }\n    System.out.print(out);\n  }\n}\n')],
    "python3": [("main.py", "import sys\nfor line in sys.stdin:\n    if line.strip():\n        a, b = map(int, line.split())\n        print(a + b)\n")],
    "js": [("main.js", "const lines = require('fs').readFileSync(0, 'utf8').split('\\n');\nconst out = [];\nfor (const line of lines) {\n  if (!line.trim()) continue;\n  const [a, b] = line.trim().split(/\\s+/).map(BigInt);\n  out.push(String(a + b));\n}\nconsole.log(out.join('\\n'));\n")],
}

C_MAIN = lambda body, inc="": [("main.c", "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n" + inc + "int main(void) {\n" + body + "\n  return 0;\n}\n")]


def one_test(name, files, *, language="c", stdin="1 2\n", stdout="3\n", **task):
    return submission(name, program(language, files), [compile_task(), test_task(0, **task)], [datum(stdin, stdout)])


EXAMPLES = {}
for lang, files in AB.items():
    EXAMPLES[f"aplusb-{lang}"] = submission(f"aplusb-{lang}", program(lang, files), AB_TASKS, AB_DATA)

EXAMPLES["wrong-answer"] = one_test("wrong-answer", C_MAIN('  int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a - b);'))
EXAMPLES["presentation-error"] = one_test(
    "presentation-error", C_MAIN('  int a, b; scanf("%d %d", &a, &b); printf("%d  \\n\\n", a + b);'), compare="diff-all")
EXAMPLES["diff-ign-space-accepts-layout"] = one_test(
    "diff-ign-space-accepts-layout", C_MAIN('  int a, b; scanf("%d %d", &a, &b); printf("%d \\t \\r\\n\\n\\n", a + b);'))
EXAMPLES["compilation-error"] = one_test("compilation-error", [("main.c", "int main( { return 0 }\n")])
EXAMPLES["runtime-error"] = one_test("runtime-error", C_MAIN("  return 3;"))
EXAMPLES["segmentation-fault"] = one_test("segmentation-fault", C_MAIN("  volatile int *p = 0; *p = 1;"))
EXAMPLES["floating-point-error"] = one_test("floating-point-error", C_MAIN('  int a, b; if (scanf("%d %d", &a, &b) != 2) return 1; printf("%d\\n", a / (b - 2));'))
EXAMPLES["time-limit-busy"] = one_test("time-limit-busy", C_MAIN("  volatile unsigned long x = 0; for (;;) x++;"))
EXAMPLES["time-limit-sleeping"] = one_test("time-limit-sleeping", C_MAIN("  for (;;) pause();"))
EXAMPLES["memory-limit"] = one_test(
    "memory-limit", C_MAIN("  size_t n = 256u << 20; volatile char *p = malloc(n); if (!p) return 1;\n  for (size_t i = 0; i < n; i += 4096) p[i] = 1;\n  printf(\"%d\\n\", p[n - 4096]);"))
EXAMPLES["output-limit"] = one_test(
    "output-limit", C_MAIN("  static char line[4096]; memset(line, 'x', sizeof line - 1); for (int i = 0; i < 10000; i++) puts(line);"))
EXAMPLES["fork-bomb"] = one_test("fork-bomb", C_MAIN("  for (;;) fork();"), time_limit=1000)

# Measured cost: ~300 ms of CPU and 32 MiB touched (the tests check run_time and memory_used).
EXAMPLES["measured-cost"] = one_test(
    "measured-cost",
    C_MAIN('  size_t n = 32u << 20; volatile char *p = malloc(n); if (!p) return 1; for (size_t i = 0; i < n; i += 4096) p[i] = 7;\n  while (clock() < CLOCKS_PER_SEC * 3 / 10) {}\n  int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b + p[n / 2] - 7);', inc="#include <time.h>\n"),
    memory_limit=131072)

# Files beside stdin: the program reads data.txt and writes result.txt, compared as a file.
EXAMPLES["file-io"] = submission(
    "file-io",
    program("c", C_MAIN('  FILE *in = fopen("data.txt", "r"), *out = fopen("result.txt", "w");\n  int a, b; if (!in || !out || fscanf(in, "%d %d", &a, &b) != 2) return 1;\n  fprintf(out, "%d\\n", a * b);')),
    [compile_task(), test_task(0)],
    [{"inputs": [text("data.txt", "6 7\n")], "outputs": [text("result.txt", "42\n")]}])

# A dependency chain: data grow; once a test exceeds its time, NOT_TIME_LIMIT skips the larger ones.
SLOW = C_MAIN('  long n; if (scanf("%ld", &n) != 1) return 1; volatile long s = 0;\n  for (long i = 0; i < n; i++) for (long j = 0; j < n; j++) s += i ^ j;\n  printf("%ld\\n", n);')
EXAMPLES["dependency-chain"] = submission(
    "dependency-chain", program("c", SLOW),
    [compile_task(), test_task(0, time_limit=1000), test_task(1, depends_on=1, cond="NOT_TIME_LIMIT", time_limit=300),
     test_task(2, depends_on=2, cond="NOT_TIME_LIMIT", time_limit=300), test_task(3, depends_on=3, cond="NOT_TIME_LIMIT"),
     test_task(0, depends_on=1, cond="PARTIAL_CORRECT")],
    [datum("10\n", "10\n"), datum("200000\n", "200000\n"), datum("400000\n", "400000\n"), datum("800000\n", "800000\n")])
EXAMPLES["dependency-not-satisfied"] = submission(
    "dependency-not-satisfied", program("c", C_MAIN('  int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a - b);')),
    [compile_task(), test_task(0), test_task(1, depends_on=1, cond="ACCEPTED"), test_task(0, depends_on=2, cond="NOT_TIME_LIMIT"),
     test_task(1, depends_on=1, cond="NOT_TIME_LIMIT")],
    [datum("1 2\n", "3\n"), datum("5 5\n", "10\n")])

# Random tests: `random` writes the input from the seed in argv[1]; `standard` answers it.
GEN = [("gen.c", '#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv) {\n  if (argc < 2) return 2;\n  srand((unsigned)strtoul(argv[1], 0, 10));\n  for (int i = 0; i < 100; i++) printf("%d %d\\n", rand() % 100000, rand() % 100000);\n  return 0;\n}\n')]
STD = AB["cpp"]
RANDOM_TASKS = [compile_task(), test_task(0, random=True), test_task(0, random=True), test_task(0)]
EXAMPLES["random-tests"] = submission(
    "random-tests", program("python3", AB["python3"]), RANDOM_TASKS, [datum("1 2\n", "3\n")],
    standard=program("cpp", STD), random=program("c", GEN))
EXAMPLES["random-gen-error"] = submission(
    "random-gen-error", program("c", AB["c"]), RANDOM_TASKS, [datum("1 2\n", "3\n")],
    standard=program("cpp", STD), random=program("c", [("gen.c", "int main(void) { return 1; }\n")]))
EXAMPLES["executable-compilation-error"] = submission(
    "executable-compilation-error", program("c", AB["c"]), RANDOM_TASKS, [datum("1 2\n", "3\n")],
    standard=program("cpp", [("std.cpp", "int main( {\n")]), random=program("c", GEN))

# A custom comparator (judge-system protocol): floats within 1e-6, a partial score per line.
CMP = [("compare.cpp", r'''#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
// compare <input_dir> <user_output_dir> <answer_dir> <feedback_dir>
int main(int argc, char **argv) {
  if (argc != 5) return 1;
  std::ifstream user(std::string(argv[2]) + "/testdata.out"), answer(std::string(argv[3]) + "/testdata.out");
  int right = 0, total = 0;
  double want, got;
  while (answer >> want) {
    total++;
    if (user >> got && std::fabs(got - want) <= 1e-6 * std::fmax(1.0, std::fabs(want))) right++;
  }
  std::ofstream report(std::string(argv[4]) + "/report.txt");
  report << right << " of " << total << " values within 1e-6\n";
  if (right == total) return 42;
  if (right == 0) return 43;
  std::ofstream score(std::string(argv[4]) + "/score.txt");
  score << right << " " << total << "\n";
  return 54;
}
''')]
DIV = lambda body: [("main.py", "import sys\nnums = [float(x) for x in sys.stdin.read().split()]\n" + body)]
CMP_DATA = [datum("1 3 2 7 10 4\n", "0.333333333\n0.285714286\n2.5\n")]
CMP_TASKS = [compile_task(), test_task(0, compare="")]
EXAMPLES["custom-comparator-accepted"] = submission(
    "custom-comparator-accepted", program("python3", DIV("for a, b in zip(nums[::2], nums[1::2]):\n    print(a / b)\n")),
    CMP_TASKS, CMP_DATA, compare=program("cpp", CMP))
EXAMPLES["custom-comparator-partial"] = submission(
    "custom-comparator-partial", program("python3", DIV("for i, (a, b) in enumerate(zip(nums[::2], nums[1::2])):\n    print(a / b if i != 1 else 0.29)\n")),
    CMP_TASKS, CMP_DATA, compare=program("cpp", CMP))
EXAMPLES["compare-error"] = submission(
    "compare-error", program("c", AB["c"]), CMP_TASKS, [datum("1 2\n", "3\n")],
    compare=program("c", [("compare.c", "int main(void) { return 1; }\n")]))

# Judge failures are System Error with the reason: here a local asset with no local roots configured.
EXAMPLES["system-error-local-asset"] = submission(
    "system-error-local-asset", program("c", AB["c"]), [compile_task(), test_task(0)],
    [{"inputs": [{"type": "local", "name": "testdata.in", "path": "/etc/hostname"}], "outputs": [text("testdata.out", "3\n")]}])

# Invalid requests: results [] and a message naming the field.
EXAMPLES["invalid-testcase-id"] = submission(
    "invalid-testcase-id", program("c", AB["c"]), [compile_task(), test_task(7)], [datum("1 2\n", "3\n")])

# Hostile programs through the whole pipeline: each prints what it managed; the expected output
# is what a sandboxed program must see.
HOSTILE_NET = C_MAIN(r"""  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(22); a.sin_addr.s_addr = htonl(0x7f000001);
  int local = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0;
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in d = {0}; d.sin_family = AF_INET; d.sin_port = htons(53); d.sin_addr.s_addr = htonl(0x08080808);
  int remote = u >= 0 && connect(u, (struct sockaddr *)&d, sizeof d) == 0 && send(u, "x", 1, 0) == 1;
  puts(local || remote ? "network reachable" : "no network");""", inc="#include <arpa/inet.h>\n#include <sys/socket.h>\n")
EXAMPLES["hostile-network"] = one_test("hostile-network", HOSTILE_NET, stdout="no network\n")
HOSTILE_FILES = C_MAIN(r"""  const char *secrets[] = {"/etc/shadow", "/root/.bashrc", "/proc/1/environ", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
  int leaked = 0;
  for (int i = 0; i < 4; i++) { FILE *f = fopen(secrets[i], "r"); if (f && fgetc(f) != EOF) { leaked = 1; printf("read %s\n", secrets[i]); } if (f) fclose(f); }
  FILE *w = fopen("/usr/verdict-was-here", "w"); if (w) { leaked = 1; puts("wrote /usr"); fclose(w); }
  FILE *t = fopen("/tmp/verdict-was-here", "w"); if (t) fclose(t);
  if (!leaked) puts("nothing leaked");""")
EXAMPLES["hostile-files"] = one_test("hostile-files", HOSTILE_FILES, stdout="nothing leaked\n")
HOSTILE_KILL = C_MAIN(r"""  if (fork() == 0) { setsid(); for (;;) pause(); }
  kill(-1, SIGKILL);
  puts("still here");""", inc="#include <signal.h>\n")
EXAMPLES["hostile-kill-all"] = one_test("hostile-kill-all", HOSTILE_KILL, stdout="still here\n")
# Tests of one submission share its build through hard links: a program must not be able to
# change it for the tests after it.
HOSTILE_TAMPER = C_MAIN(r"""  FILE *self = fopen("main", "r+");
  int changed = self && fputc('X', self) != EOF;
  if (self) fclose(self);
  int removed = unlink("main") == 0 && (fopen("main", "w") != NULL);
  puts(changed ? "build changed" : removed ? "own copy only" : "build is read-only");""")
EXAMPLES["hostile-tamper-build"] = submission(
    "hostile-tamper-build", program("c", HOSTILE_TAMPER),
    [compile_task(), test_task(0), test_task(0, depends_on=1), test_task(0, depends_on=2)],
    [datum("", "own copy only\n")])

# --- special tests ---
# Memory (valgrind), Google Test and static tests; docs/special-tests.md says how each is judged
# and crates/scheduler/tests/it/special.rs checks their reports. The static examples expect
# clang-tidy (the analyser chosen when oclint is not installed).
SPECIAL = {}


def memory_task(k=-1, depends_on=1, cond="PARTIAL_CORRECT", random=False, time_limit=1000, memory_limit=65536):
    return {"check_script": "standard", "run_script": "valgrind", "compare_script": "valgrind",
            "is_random": random, "testcase_id": k, "depends_on": depends_on, "depends_cond": cond,
            "memory_limit": memory_limit, "time_limit": time_limit, "file_limit": 1024, "proc_limit": 5}


def gtest_task(k=-1, run_args=None, time_limit=2000):
    t = {"check_script": "standard", "run_script": "gtest", "compare_script": "gtest", "is_random": False,
         "testcase_id": k, "depends_on": 0, "depends_cond": "ACCEPTED", "memory_limit": 262144,
         "time_limit": time_limit, "file_limit": 1024, "proc_limit": 5}
    if run_args is not None:
        t["run_args"] = run_args
    return t


def static_task():
    return {"check_script": "static", "run_script": None, "compare_script": None, "is_random": False,
            "testcase_id": -1, "depends_on": 0, "depends_cond": "ACCEPTED", "time_limit": 10000}


MEM_CLEAN = [("main.c", '#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n  long long *v = malloc(2 * sizeof *v);\n  if (!v || scanf("%lld %lld", &v[0], &v[1]) != 2) return 1;\n  printf("%lld\\n", v[0] + v[1]);\n  free(v);\n  return 0;\n}\n')]
# Two blocks never freed: two definitely-lost leaks, 10% off each.
MEM_LEAK = [("main.cpp", '#include <iostream>\nint main() {\n  long long a, b;\n  std::cin >> a >> b;\n  int *scratch = new int[16];\n  char *name = new char[32];\n  scratch[0] = 1;\n  name[0] = \'x\';\n  std::cout << a + b + scratch[0] - 1 << "\\n";\n}\n')]
# Leaks one block per input line (one loss record: one error).
MEM_LEAK_LOOP = [("main.c", '#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n  long long a, b;\n  while (scanf("%lld %lld", &a, &b) == 2) {\n    long long *sum = malloc(sizeof *sum);\n    *sum = a + b;\n    printf("%lld\\n", *sum);\n  }\n  return 0;\n}\n')]
# An invalid write past a block, then a write through a null pointer: killed by SIGSEGV.
MEM_CRASH = [("main.c", '#include <stdio.h>\n#include <stdlib.h>\nint main(void) {\n  int *p = malloc(4 * sizeof *p);\n  if (!p) return 1;\n  p[4] = 1;\n  free(p);\n  volatile int *q = NULL;\n  *q = 2;\n  return 0;\n}\n')]
# Spins forever: 100 ms x the valgrind factor (10) of CPU, then Time Limit Exceeded.
MEM_SPIN = [("main.c", "int main(void) {\n  volatile unsigned long x = 0;\n  for (;;) x++;\n}\n")]
SPECIAL["memory-time-limit"] = submission(
    "memory-time-limit", program("c", MEM_SPIN), [compile_task(), memory_task(0, depends_on=0, cond="ACCEPTED", time_limit=100)],
    [datum("", "")])
SPECIAL["memory-clean"] = submission(
    "memory-clean", program("c", MEM_CLEAN), [compile_task(), test_task(0), memory_task()], [datum("1 2\n", "3\n")])
SPECIAL["memory-leaking"] = submission(
    "memory-leaking", program("cpp", MEM_LEAK), [compile_task(), test_task(0), memory_task()], [datum("1 2\n", "3\n")])
SPECIAL["memory-random"] = submission(
    "memory-random", program("c", MEM_LEAK_LOOP),
    [compile_task(), test_task(0, random=True), memory_task(), memory_task(depends_on=0, cond="ACCEPTED", random=True)],
    [datum("1 2\n", "3\n")], standard=program("cpp", STD), random=program("c", GEN))
SPECIAL["memory-crash"] = submission(
    "memory-crash", program("c", MEM_CRASH), [compile_task(), memory_task(0, depends_on=0, cond="ACCEPTED")],
    [datum("", "")])

# Google Test: the student's adder beside the teacher's test file (design #8); the judge links
# gtest (and gtest_main unless a source defines main), so no link flags are needed.
ADDER_H = ("adder.hpp", "#pragma once\nint adder(int a, int b);\n")
ADDER_OK = ("adder.cpp", '#include "adder.hpp"\nint adder(int a, int b) { return a + b; }\n')
# Wrong whenever b == 1.
ADDER_BUG = ("adder.cpp", '#include "adder.hpp"\nint adder(int a, int b) { return b == 1 ? a : a + b; }\n')
ADDER_TEST = ("test.cpp", '''#include <gtest/gtest.h>
#include "adder.hpp"

TEST(Adder, addTwo) { EXPECT_EQ(adder(1, 2), 3); }
TEST(Adder, addOneTo41) { EXPECT_EQ(adder(41, 1), 42); }
TEST(Adder, DISABLED_addLater) { EXPECT_EQ(adder(2, 2), 4); }

class AdderTest : public ::testing::TestWithParam<int> {};
TEST_P(AdderTest, addOne) { int param = GetParam(); EXPECT_EQ(adder(param, 1), param + 1); }
TEST_P(AdderTest, addZero) { int param = GetParam(); EXPECT_EQ(adder(param, 0), param); }
INSTANTIATE_TEST_SUITE_P(AdderTestWithParam, AdderTest, ::testing::Values(0, 1, 2));
''')
ADDER_TEST_ALL = ("test.cpp", ADDER_TEST[1].replace("TEST(Adder, DISABLED_addLater) { EXPECT_EQ(adder(2, 2), 4); }\n", ""))


def cpp_with_link(files, assist=()):
    return program("cpp", files, assist=assist)


SPECIAL["gtest-all-pass"] = submission(
    "gtest-all-pass", cpp_with_link([ADDER_OK, ADDER_TEST_ALL], assist=[ADDER_H]), [compile_task(), gtest_task()], [])
# 9 cases: 4 pass, 4 fail, 1 disabled ("4/9"); with --gtest_also_run_disabled_tests the disabled one runs and passes ("5/9").
SPECIAL["gtest-partial"] = submission(
    "gtest-partial", cpp_with_link([ADDER_BUG, ADDER_TEST], assist=[ADDER_H]),
    [compile_task(), gtest_task(), gtest_task(run_args=["--gtest_also_run_disabled_tests"])], [])
# The third test dereferences a null pointer: no XML, the console shows 2 passed of 4.
CRASH_TEST = ("test.cpp", '''#include <gtest/gtest.h>
#include "adder.hpp"

TEST(Crash, first) { EXPECT_EQ(adder(1, 2), 3); }
TEST(Crash, second) { EXPECT_EQ(adder(2, 2), 4); }
TEST(Crash, boom) { volatile int *p = nullptr; *p = adder(1, 1); }
TEST(Crash, never) { EXPECT_EQ(adder(0, 0), 0); }
''')
SPECIAL["gtest-crash"] = submission(
    "gtest-crash", cpp_with_link([ADDER_OK, CRASH_TEST], assist=[ADDER_H]), [compile_task(), gtest_task()], [])

# The teacher's test defines main (gtest_main is then not linked in) and reads the test datum's stdin.
OWN_MAIN_TEST = ("test.cpp", '''#include <gtest/gtest.h>
#include <iostream>
#include "adder.hpp"

static int expected = 0;
TEST(Stdin, sumOfTheInput) { EXPECT_EQ(adder(20, 22), expected); }
TEST(Stdin, stillAdds) { EXPECT_EQ(adder(1, 1), 2); }

int main(int argc, char **argv) {
  std::cin >> expected;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
''')
SPECIAL["gtest-own-main"] = submission(
    "gtest-own-main", cpp_with_link([ADDER_OK, OWN_MAIN_TEST], assist=[ADDER_H]), [compile_task(), gtest_task(0)],
    [{"inputs": [text("testdata.in", "42\n")], "outputs": []}])

# Static analysis: a class hierarchy with virtual functions but no virtual destructors (the
# contract's employee.hpp), and a variable read before it is set.
EMPLOYEE = '''#pragma once
#include <string>
#include <utility>

class Employee {
 public:
  explicit Employee(std::string name) : name_(std::move(name)) {}
  VIRTUAL~Employee() {}
  virtual double pay() const { return 0; }
  const std::string &name() const { return name_; }

 private:
  std::string name_;
};

class Technician : public Employee {
 public:
  explicit Technician(std::string name) : Employee(std::move(name)) {}
  double pay() const override { return 100; }
};

class Manager : public Employee {
 public:
  explicit Manager(std::string name) : Employee(std::move(name)) {}
  double pay() const override { return 200; }
};
'''
STATIC_MAIN_CLEAN = '''#include <iostream>
#include <memory>
#include <vector>
#include "employee.hpp"

int main() {
  std::vector<std::unique_ptr<Employee>> staff;
  staff.push_back(std::make_unique<Technician>("ann"));
  staff.push_back(std::make_unique<Manager>("bob"));
  double total = 0;
  for (const auto &e : staff) total += e->pay();
  std::cout << total << "\\n";
  return 0;
}
'''
STATIC_MAIN_BUGGY = '''#include <iostream>
#include "employee.hpp"

static double bonus(double total) {
  double extra;
  if (total > 1000) extra = 10;
  return total + extra;
}

int main() {
  Employee *staff[] = {new Technician("ann"), new Manager("bob")};
  double total = 0;
  for (Employee *e : staff) total += e->pay();
  for (Employee *e : staff) delete e;
  std::cout << bonus(total) << "\\n";
  return 0;
}
'''
SPECIAL["static-clean"] = submission(
    "static-clean", program("cpp", [("main.cpp", STATIC_MAIN_CLEAN)], assist=[("employee.hpp", EMPLOYEE.replace("VIRTUAL~", "virtual ~"))]),
    [compile_task(), static_task()], [])
SPECIAL["static-findings"] = submission(
    "static-findings", program("cpp", [("main.cpp", STATIC_MAIN_BUGGY)], assist=[("employee.hpp", EMPLOYEE.replace("VIRTUAL~", "~"))]),
    [compile_task(), static_task()], [])
# Ordinary C (scanf into uninitialised variables, an adder, rand, strcpy): no finding that costs.
STATIC_C = [("main.c", '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\nstatic long long adder(long long a, long long b) { return a + b; }\nint main(void) {\n  long long a, b;\n  char word[16];\n  srand((unsigned)time(NULL));\n  int lucky = rand() % 10;\n  while (scanf("%lld %lld", &a, &b) == 2) printf("%lld\\n", adder(a, b));\n  strcpy(word, "done");\n  printf("%s %d\\n", word, lucky >= 0);\n  return 0;\n}\n')]
SPECIAL["static-clean-c"] = submission("static-clean-c", program("c", STATIC_C), [compile_task(), static_task()], [])
SPECIAL["static-unsupported-language"] = submission(
    "static-unsupported-language", program("python3", AB["python3"]), [compile_task(), static_task()], [])

if __name__ == "__main__":
    everything = {**EXAMPLES, **SPECIAL}
    for name, sub in sorted(everything.items()):
        with open(os.path.join(OUT, f"{name}.json"), "w") as f:
            json.dump(sub, f, indent=2, ensure_ascii=False)
            f.write("\n")
    print(f"wrote {len(everything)} examples to {os.path.normpath(OUT)}")
