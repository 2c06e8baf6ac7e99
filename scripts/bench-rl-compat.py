#!/usr/bin/env python3
"""verl's SandboxFusion calls, side by side: verdict's `POST /run_code` (and its dataset batches)
against bytedance/SandboxFusion itself (docs/compat.md, "Speed: verl's calls against
SandboxFusion").

Every `/run_code` call is made by verl's own reward code: `check_correctness` of
`verl/utils/reward_score/sandbox_fusion/utils.py`, taken from verl's wheel and imported by file
path (importing the `verl` package would pull torch). It sends one request per test case, the 5
of a candidate at once, and retries a 504 twice (1 s, then 2 s later). Its `requests` module is
wrapped to time each call and count 504s and read timeouts; nothing else of it is changed.

Rows (one run, both servers up side by side for the first two, calls alternating between them
candidate by candidate, the order swapped every candidate; medians and ratios from that run):

1. `cpp`: C++ stdin/stdout problems (A+B, a sum, a reversal, a maximum, a prime count), right
   and wrong candidates, every candidate's source its own; verl's `language="cpp"`, one call per
   test. SandboxFusion compiles each call; verdict compiles a source once
   (`compile_result.verdict.build_reused`). Target: verdict's median at most 0.20x.
2. `python fn`: Python function problems (`fn_name`: verl's wrapper reads one JSON argument per
   stdin line and prints the result), one call per test. Target: at most 0.70x. A verdict-only
   row judges the same candidates as dataset batches (one per problem, `format: ground-truth`
   with the arguments as lists, as APPS/TACO hold them).
3. `load`: one RL step: N candidates x 5 tests of function problems (5% `while True: pass`,
   15% wrong, the rest right), 256 client threads (verl's `max_concurrent`, one semaphore of 256
   around every request), through `/run_code` on each server, then through verdict's dataset
   batches (one batch per problem of 4 samples, `?wait=600000`; SandboxFusion has no batches).
   Each server is fresh, alone on the machine for its row. Steps: N=1024 with a 1 s timeout,
   and N=256 (scaled down) with verl's default 10 s (--load). The first step also runs
   `/run_code` at 64 client threads (verl's default max_concurrent; --extra-concurrency) and
   once on a verdict with every server default (`max_connections_per_address` 1024: verl opens
   a connection per call, and the 429 past the cap is not retried by verl; it was 256), a row
   reported but left out of the exit status; the other verdict servers have 1024 too
   (--max-connections-per-address) and `max_wait_ms` = the timeout + 6 s (so that the 504 comes before verl's read
   timeout of 2 x timeout + 10 s). Counted and required to be zero on
   verdict's rows: read timeouts, lost (no judgement: verl's -1, an `infra_error`, a missing
   result, a call unanswered by the deadline) and misjudged (a judgement other than the
   candidate's known label: right -> True per test, wrong -> False, looping -> -3 timeout).
   SandboxFusion's counts are reported, not required.

Every result of every row is checked against its label. Exit 1 if a verdict row has a read
timeout, a lost or a misjudged result; 2 on a usage or set-up error of verdict's side. If
SandboxFusion cannot be set up its rows are marked absent with the reason.

Usage:
  scripts/bench-rl-compat.py [--verl WHEEL|utils.py] [--server PATH] [--sandboxfusion TREE]
                             [--rows cpp,python,load] [--load 1024x1,256x10] [--write-docs]
Without --verl, `pip download --no-deps verl` into a temporary dir. --sandboxfusion (or
VERDICT_SANDBOXFUSION) is a tree of bytedance/SandboxFusion (never committed here);
scripts/bench-sandboxfusion.sh prepares it (run here when its venv is missing). --write-docs
puts the section into docs/compat.md (replacing that section, else appended at the end).
"""

import argparse
import concurrent.futures
import datetime
import importlib.util
import json
import logging
import os
import pathlib
import platform
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

import requests

from judge_server_process import JudgeServerProcess

REPO = pathlib.Path(__file__).resolve().parents[1]
VERL_MEMBER = "verl/utils/reward_score/sandbox_fusion/utils.py"
SECTION = "## Speed: verl's calls against SandboxFusion"
TESTS = 5
MEMORY_MB = 1024  # verl's default memory_limit_mb


# verl's reward code ------------------------------------------------------------------------------


class Calls:
    """Every HTTP call verl's code made: (url, seconds, HTTP status or exception name)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.rows = []

    def add(self, url, seconds, outcome):
        with self.lock:
            self.rows.append((url, seconds, outcome))

    def of(self, base):
        with self.lock:
            return [r for r in self.rows if r[0].startswith(base)]


class TimedRequests:
    """Stands in for the `requests` module inside verl's file: `post` timed and recorded, the
    rest (`exceptions`, ...) the real module's."""

    exceptions = requests.exceptions

    def __init__(self, calls):
        self.calls = calls

    def post(self, url, **kwargs):
        start = time.monotonic()
        try:
            response = requests.post(url, **kwargs)
        except requests.exceptions.RequestException as e:
            self.calls.add(url, time.monotonic() - start, type(e).__name__)
            raise
        self.calls.add(url, time.monotonic() - start, response.status_code)
        return response

    def __getattr__(self, name):
        return getattr(requests, name)


def load_verl(path, tmp):
    """verl's sandbox_fusion/utils.py as a module, from a wheel, the file itself, or (None) a
    wheel pip downloads; (module, where it came from, calls)."""
    if path is None:
        where = tmp / "verl-wheel"
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        "verl", "-d", str(where)], check=True)
        wheels = sorted(where.glob("verl-*.whl"))
        if not wheels:
            sys.exit("pip download verl gave no wheel")
        path = wheels[-1]
    path = pathlib.Path(path)
    origin = path.name
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            source = z.read(VERL_MEMBER)
        path = tmp / "verl_sandbox_fusion_utils.py"
        path.write_bytes(source)
        origin = f"`{VERL_MEMBER}` of {origin}"
    spec = importlib.util.spec_from_file_location("verl_sandbox_fusion_utils", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # verl logs every 504 and every error: counted from the calls instead.
    module.logger.setLevel(logging.CRITICAL)
    calls = Calls()
    module.requests = TimedRequests(calls)
    return module, origin, calls


# Servers -----------------------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vm_hwm_kb(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Verdict(JudgeServerProcess):
    """judge-server with SandboxFusion's routes on, fresh data, work and cache dirs."""

    name = "verdict"

    def __init__(self, binary, max_wait_ms, per_address=None):
        super().__init__(
            binary, "verdict-rl-compat-",
            head="workers = 2\n"
            + (f"max_connections_per_address = {per_address}\n" if per_address else ""),
            tail="[sandbox_fusion]\n"
            "enabled = true\n"
            'networks = ["127.0.0.0/8"]\n'
            f"max_wait_ms = {max_wait_ms}\n")

    def peak_rss_mb(self):
        return vm_hwm_kb(self.process.pid) / 1024


class SandboxFusion:
    """SandboxFusion's server from a prepared tree, isolation `none` (`SANDBOX_CONFIG=local`,
    its default config), a clean environment and an empty HOME (root's ~/.bashrc here runs
    `pyenv init` in every `bash -c` it starts: ../shared/sandboxfusion.md)."""

    name = "SandboxFusion none"

    def __init__(self, tree):
        python = tree / ".verdict-conda/envs/sandbox/bin/python"
        self.home = tempfile.TemporaryDirectory(prefix="sandboxfusion-home-")
        self.port = free_port()
        self.log_path = pathlib.Path(self.home.name) / "server.log"
        self.process = subprocess.Popen(
            [str(python), "-m", "uvicorn", "sandbox.server.server:app", "--host", "127.0.0.1",
             "--port", str(self.port), "--log-level", "warning"],
            cwd=tree, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log_path, "wb"), start_new_session=True,
            env={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                 "HOME": self.home.name, "SANDBOX_CONFIG": "local"})
        self.url = f"http://127.0.0.1:{self.port}"
        until = time.monotonic() + 180
        while True:
            try:
                if requests.get(self.url + "/v1/ping", timeout=2).ok:
                    break
            except requests.exceptions.RequestException:
                pass
            if self.process.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"SandboxFusion exited ({self.process.returncode}): {tail}")
            if time.monotonic() > until:
                self.stop()
                raise RuntimeError("SandboxFusion did not answer /v1/ping within 180 s")
            time.sleep(0.3)

    def peak_rss_mb(self):
        return vm_hwm_kb(self.process.pid) / 1024

    def stop(self):
        if self.process.poll() is None:
            # Its own session: the server and whatever it still runs (none isolation).
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.home.cleanup()


def prepare_sandboxfusion(tree):
    """The tree, prepared (scripts/bench-sandboxfusion.sh when its venv is missing); (path,
    None) or (None, why not)."""
    if not tree:
        return None, "no SandboxFusion tree given (--sandboxfusion or VERDICT_SANDBOXFUSION)"
    tree = pathlib.Path(tree).resolve()
    if not (tree / "poetry.lock").exists():
        return None, f"{tree} is not a SandboxFusion tree (no poetry.lock)"
    if not (tree / ".verdict-conda/envs/sandbox/bin/python").exists():
        done = subprocess.run(["bash", str(REPO / "scripts/bench-sandboxfusion.sh"), str(tree)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            last = (done.stdout.strip().splitlines() or [""])[-1]
            return None, f"scripts/bench-sandboxfusion.sh failed: {last}"
    return tree, None


def commit_of(tree):
    for name in ("COMMIT", ".commit"):
        if (tree / name).exists():
            return (tree / name).read_text().strip()[:12]
    return None


# Problems ----------------------------------------------------------------------------------------

# C++ stdin/stdout problems: (name, headers, right body, wrong body, tests [(stdin, stdout)]).
# Each wrong answer fails every one of its problem's tests. Three include what they use, two
# <bits/stdc++.h> (as many generated solutions do: ~4x the compile time here).
IOSTREAM = "#include <iostream>\nusing namespace std;\n"
BITS = "#include <bits/stdc++.h>\nusing namespace std;\n"
CPP_PROBLEMS = [
    ("a+b", IOSTREAM,
     "int main(){ long long a,b; cin>>a>>b; cout<<a+b<<\"\\n\"; }\n",
     "int main(){ long long a,b; cin>>a>>b; cout<<a+b+1<<\"\\n\"; }\n",
     [("1 2", "3"), ("-5 5", "0"), ("1000000000 1000000000", "2000000000"), ("7 -10", "-3"),
      ("123456 654321", "777777")]),
    ("sum", IOSTREAM,
     "int main(){ int n; cin>>n; long long s=0,x; for(int i=0;i<n;i++){cin>>x; s+=x;}"
     " cout<<s<<\"\\n\"; }\n",
     "int main(){ int n; cin>>n; long long s=0,x; for(int i=0;i<n;i++){cin>>x; if(i+1<n) s+=x;}"
     " cout<<s<<\"\\n\"; }\n",
     [("3\n1 2 3", "6"), ("1\n42", "42"), ("5\n-1 -2 -3 -4 -5", "-15"),
      ("4\n1000000000 1000000000 1000000000 7", "3000000007"), ("2\n0 9", "9")]),
    ("reverse", "#include <algorithm>\n#include <iostream>\n#include <string>\nusing namespace std;\n",
     "int main(){ string s; getline(cin,s); reverse(s.begin(),s.end()); cout<<s<<\"\\n\"; }\n",
     "int main(){ string s; getline(cin,s); cout<<s<<\"\\n\"; }\n",
     [("hello", "olleh"), ("ab", "ba"), ("verdict judge", "egduj tcidrev"), ("xyz1", "1zyx"),
      ("a man a plan", "nalp a nam a")]),
    ("max", BITS,
     "int main(){ int n; cin>>n; vector<long long> v(n); for(auto&x:v) cin>>x;"
     " cout<<*max_element(v.begin(),v.end())<<\"\\n\"; }\n",
     "int main(){ int n; cin>>n; vector<long long> v(n); for(auto&x:v) cin>>x;"
     " cout<<*min_element(v.begin(),v.end())<<\"\\n\"; }\n",
     [("3\n1 5 2", "5"), ("2\n-1 -7", "-1"), ("5\n9 8 7 6 5", "9"), ("4\n0 0 0 1", "1"),
      ("6\n3 1 4 1 5 9", "9")]),
    ("primes", BITS,
     "int main(){ int n; cin>>n; vector<bool> c(n+1,false); int k=0;"
     " for(int i=2;i<=n;i++){ if(!c[i]){k++; for(long long j=1LL*i*i;j<=n;j+=i) c[j]=true;} }"
     " cout<<k<<\"\\n\"; }\n",
     "int main(){ int n; cin>>n; vector<bool> c(n+1,false); int k=0;"
     " for(int i=1;i<=n;i++){ if(!c[i]){k++; for(long long j=1LL*i*i;j<=n&&i>1;j+=i) c[j]=true;} }"
     " cout<<k<<\"\\n\"; }\n",
     [("10", "4"), ("1", "0"), ("100", "25"), ("1000", "168"), ("100000", "9592")]),
]

# Python function problems: (fn_name, right, wrong, tests [(args, return value)]); each wrong
# answer fails every test.
PY_PROBLEMS = [
    ("add", "def add(a, b):\n    return a + b\n", "def add(a, b):\n    return a - b\n",
     [([1, 2], 3), ([-5, 4], -1), ([10 ** 12, 7], 10 ** 12 + 7), ([0, 9], 9), ([3, -3], 0)]),
    ("reverse_words",
     "def reverse_words(s):\n    return ' '.join(reversed(s.split()))\n",
     "def reverse_words(s):\n    return s\n",
     [(["a b"], "b a"), (["the quick fox"], "fox quick the"), (["x y z w"], "w z y x"),
      (["hello world"], "world hello"), (["1 2 3"], "3 2 1")]),
    ("sum_list", "def sum_list(xs):\n    return sum(xs)\n",
     "def sum_list(xs):\n    return sum(xs[:-1])\n",
     [([[1, 2, 3]], 6), ([[5]], 5), ([[-1, -2, -3]], -6), ([[10, 20, 30, 40]], 100),
      ([[0, 0, 7]], 7)]),
    ("is_palindrome",
     "def is_palindrome(s):\n    t = [c.lower() for c in s if c.isalnum()]\n    return t == t[::-1]\n",
     "def is_palindrome(s):\n    t = [c.lower() for c in s if c.isalnum()]\n    return t != t[::-1]\n",
     [(["racecar"], True), (["verdict"], False), (["A man, a plan, a canal: Panama"], True),
      (["ab"], False), (["x"], True)]),
    ("fib",
     "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
     "def fib(n):\n    a, b = 0, 1\n    for _ in range(n + 1):\n        a, b = b, a + b\n    return a\n",
     [([3], 2), ([10], 55), ([20], 6765), ([50], 12586269025), ([5], 5)]),
]


def verl_text(value):
    """What verl's wrapper prints for a return value (json.dumps for dict, list, tuple, None and
    bool; str otherwise)."""
    if isinstance(value, (dict, list, tuple, bool)) or value is None:
        return json.dumps(value)
    return str(value)


def verl_in_outs(tests, fn_name=None):
    """verl's ground truth for one call per test: stdin text (one JSON argument per line for a
    function) and the expected printed text."""
    if fn_name is None:
        return {"inputs": [i for i, _ in tests], "outputs": [o for _, o in tests]}
    return {"inputs": ["\n".join(json.dumps(a) for a in args) for args, _ in tests],
            "outputs": [verl_text(r) for _, r in tests], "fn_name": fn_name}


def ground_truth_record(tests, fn_name):
    """The same problem as a dataset record (`format: ground-truth`, read as APPS/TACO's
    input_output: each input the arguments list, each output the return value)."""
    return {"inputs": [args for args, _ in tests], "outputs": [r for _, r in tests],
            "fn_name": fn_name}


def expected_results(label):
    """verl's per-test result for a candidate of this label (every test alike)."""
    return {"right": True, "wrong": False, "loop": -3}[label] if label else None


def tally_verl(results, label):
    """(lost, misjudged) among one candidate's verl results."""
    want = expected_results(label)
    lost = sum(1 for r in results if r is None or r == -1)
    misjudged = sum(1 for r in results if r is not None and r != -1 and r != want)
    return lost, misjudged


def misjudged_examples(results, metadata, label):
    """What the server answered for each misjudged test of one candidate (for the report)."""
    want = expected_results(label)
    out = []
    for r, m in zip(results, metadata):
        if r is None or r == -1 or r == want:
            continue
        response = (m or {}).get("api_response") or {}
        run = response.get("run_result") or {}
        compile_ = response.get("compile_result") or {}
        out.append({"label": label, "result": r, "status": (m or {}).get("status"),
                    "compile": compile_.get("status"), "run": run.get("status"),
                    "return_code": run.get("return_code"),
                    "execution_time": run.get("execution_time"),
                    "verdict": run.get("verdict"),
                    "stdout": (run.get("stdout") or "")[:80],
                    "stderr": (run.get("stderr") or "")[-200:]})
    return out


def median(values):
    return statistics.median(values) if values else float("nan")


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


# Rows 1 and 2: candidate by candidate, alternating ----------------------------------------------


def side_by_side(verl, servers, cands, language, timeout):
    """Each candidate judged by verl's check_correctness on every server in turn, the order
    swapped every candidate; per server: seconds per candidate, lost, misjudged, calls."""
    sem = threading.Semaphore(256)
    out = {s.name: {"seconds": [], "lost": 0, "misjudged": 0, "reused": 0, "compiles": 0,
                    "examples": []}
           for s in servers}
    for n, (in_outs, code, label) in enumerate(cands):
        order = servers if n % 2 == 0 else list(reversed(servers))
        for server in order:
            start = time.monotonic()
            results, metadata = verl.check_correctness(
                server.url + "/run_code", in_outs, code, timeout=timeout,
                memory_limit_mb=MEMORY_MB, language=language, concurrent_semaphore=sem)
            seconds = time.monotonic() - start
            row = out[server.name]
            row["seconds"].append(seconds)
            lost, misjudged = tally_verl(results, label)
            row["lost"] += lost
            row["misjudged"] += misjudged
            if misjudged and len(row["examples"]) < 3:
                row["examples"] += misjudged_examples(results, metadata, label)[:1]
            for m in metadata:
                compile_result = ((m or {}).get("api_response") or {}).get("compile_result") or {}
                if compile_result:
                    row["compiles"] += 1
                    if (compile_result.get("verdict") or {}).get("build_reused"):
                        row["reused"] += 1
    return out


def cpp_candidates(count, rounds):
    """`count` candidates a round, problem n % 5, one in four wrong; each source its own (a
    comment naming round and sample: no two are one build)."""
    cands = []
    for r in range(rounds):
        for n in range(count):
            name, head, right, wrong, tests = CPP_PROBLEMS[n % len(CPP_PROBLEMS)]
            label = "wrong" if n % 4 == 3 else "right"
            code = f"// {name}: round {r}, sample {n}\n{head}" + (right if label == "right" else wrong)
            cands.append((verl_in_outs(tests), code, label))
    return cands


def py_candidates(count, rounds):
    cands = []
    for r in range(rounds):
        for n in range(count):
            fn, right, wrong, tests = PY_PROBLEMS[n % len(PY_PROBLEMS)]
            label = "wrong" if n % 4 == 3 else "right"
            code = f"# {fn}: round {r}, sample {n}\n" + (right if label == "right" else wrong)
            cands.append((verl_in_outs(tests, fn), code, label, n % len(PY_PROBLEMS)))
    return cands


def batch_request(url, body, read_timeout, counters):
    """One dataset batch, `?wait=600000`, followed to its end when the server answered 202;
    429/503 retried after Retry-After. {candidate id: result}."""
    while True:
        try:
            response = requests.post(url + "/v1/batches?wait=600000", json=body,
                                     timeout=(10, read_timeout))
        except requests.exceptions.Timeout:
            counters["read_timeouts"] += 1
            raise
        if response.status_code in (429, 503):
            counters["refused"] += 1
            time.sleep(float(response.headers.get("Retry-After", "1")))
            continue
        response.raise_for_status()
        status = response.json()
        break
    if status.get("state") != "finished":
        events = requests.get(f"{url}/v1/batches/{status['id']}/events", stream=True,
                              timeout=(10, read_timeout))
        events.raise_for_status()
        results = []
        for line in events.iter_lines():
            if not line.strip():
                continue
            event = json.loads(line)
            if event.get("event") == "candidate":
                results.append(event)
        status = {"results": results}
    return {r["id"]: r for r in status.get("results", [])}


def tally_batch(result, label):
    """(lost, misjudged) of one candidate's batch result."""
    if result is None or result.get("infra_error"):
        return 1, 0
    want_status = {"right": "passed", "wrong": "failed", "loop": "timeout"}[label]
    ok = bool(result.get("passed")) == (label == "right") and result.get("status") == want_status
    return 0, 0 if ok else 1


def py_batches(url, cands):
    """The Python candidates as dataset batches, one per problem (in the order of the first
    candidate of each), one after the other: (seconds, per-candidate seconds, lost, misjudged)."""
    by_problem = {}
    for n, (_, code, label, p) in enumerate(cands):
        by_problem.setdefault(p, []).append(n)
    counters = {"read_timeouts": 0, "refused": 0}
    lost = misjudged = 0
    total = 0.0
    for p, members in by_problem.items():
        fn, _, _, tests = PY_PROBLEMS[p]
        body = {"problem": {"kind": "dataset", "format": "ground-truth",
                            "record": ground_truth_record(tests, fn)},
                "candidates": [{"id": str(n), "code": cands[n][1]} for n in members],
                "options": {"stop_at_first_failure": True}}
        start = time.monotonic()
        results = batch_request(url, body, 900, counters)
        total += time.monotonic() - start
        for n in members:
            l, m = tally_batch(results.get(str(n)), cands[n][2])
            lost, misjudged = lost + l, misjudged + m
    return total, total / len(cands), lost, misjudged, counters


# Row 3: load ------------------------------------------------------------------------------------


def load_candidates(count, seed=27):
    """(problem, label, code): 5% looping, 15% wrong, the rest right, shuffled; problem p (of
    count / 4: a GRPO-like group of 4 samples each) is f(x) = x * (p % 50 + 2) + 1."""
    import random
    rng = random.Random(seed)
    labels = ["loop"] * round(count * 0.05) + ["wrong"] * round(count * 0.15)
    labels += ["right"] * (count - len(labels))
    rng.shuffle(labels)
    problems = max(1, count // 4)
    out = []
    for n, label in enumerate(labels):
        p = n % problems
        k = p % 50 + 2
        body = {"right": f"    return x * {k} + 1", "wrong": f"    return x * {k} + 2",
                "loop": "    while True:\n        pass"}[label]
        out.append((p, label, f"# sample {n}\ndef f(x):\n{body}\n"))
    return out


def lost_cause(metadata):
    """Why verl has no judgement for a test (its -1), in a few words."""
    error = (metadata or {}).get("api_request_error") or ""
    if "429" in error:
        return "429 (not retried by verl)"
    if "504" in error or "Gateway Timeout" in error:
        return "504 three times"
    if "timed out" in error.lower() or "timeout" in error.lower():
        return "read timeout"
    if error:
        return "HTTP error: " + error.split(":")[-1].strip()[:60]
    return "status " + str((metadata or {}).get("status"))


def load_tests(p):
    k = p % 50 + 2
    return [([x], x * k + 1) for x in range(TESTS)]


def load_run_code(verl, calls, server, cands, concurrency, timeout, deadline):
    """verl's check_correctness per candidate from `concurrency` threads, one semaphore of
    `concurrency` around every request (as verl's reward manager shares it)."""
    sem = threading.Semaphore(concurrency)
    base = server.url

    def one(c):
        p, label, code = c
        start = time.monotonic()
        results, metadata = verl.check_correctness(
            base + "/run_code", verl_in_outs(load_tests(p), "f"), code, timeout=timeout,
            memory_limit_mb=MEMORY_MB, language="python", concurrent_semaphore=sem)
        causes = [lost_cause(m) for r, m in zip(results, metadata) if r == -1]
        return (time.monotonic() - start, results, causes,
                misjudged_examples(results, metadata, label))

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=concurrency)
    start = time.monotonic()
    futures = [pool.submit(one, c) for c in cands]
    done, _ = concurrent.futures.wait(futures, timeout=deadline)
    wall = time.monotonic() - start
    pool.shutdown(wait=False, cancel_futures=True)
    lost = misjudged = 0
    per_candidate = []
    causes = {}
    examples = []
    for f, (_, label, _) in zip(futures, cands):
        if f not in done or f.exception() is not None:
            lost += TESTS
            causes["unanswered by the deadline"] = causes.get("unanswered by the deadline", 0) + TESTS
            continue
        seconds, results, why, wrong = f.result()
        examples += wrong[:max(0, 3 - len(examples))]
        per_candidate.append(seconds)
        l, m = tally_verl(results, label)
        lost, misjudged = lost + l, misjudged + m
        for cause in why:
            causes[cause] = causes.get(cause, 0) + 1
    mine = calls.of(base)
    return {"wall": wall, "per_candidate": per_candidate,
            "requests": [s for _, s, _ in mine],
            "http": len(mine),
            "504": sum(1 for _, _, o in mine if o == 504),
            "read_timeouts": sum(1 for _, _, o in mine if isinstance(o, str) and "Timeout" in o),
            "other_errors": sum(1 for _, _, o in mine if isinstance(o, str) and "Timeout" not in o),
            "lost": lost, "misjudged": misjudged, "unit": "tests", "causes": causes,
            "examples": examples}


def load_batches(server, cands, concurrency, timeout, deadline):
    """One dataset batch per problem (its samples), `concurrency` in flight at once."""
    by_problem = {}
    for n, (p, _, _) in enumerate(cands):
        by_problem.setdefault(p, []).append(n)
    counters = {"read_timeouts": 0, "refused": 0}
    lock = threading.Lock()
    requests_s = []

    def one(item):
        p, members = item
        body = {"problem": {"kind": "dataset", "format": "ground-truth",
                            "record": ground_truth_record(load_tests(p), "f")},
                "candidates": [{"id": str(n), "code": cands[n][2]} for n in members],
                "options": {"stop_at_first_failure": True,
                            "test_timeout_ms": int(timeout * 1000)}}
        start = time.monotonic()
        results = batch_request(server.url, body, 900, counters)
        with lock:
            requests_s.append(time.monotonic() - start)
        return members, results

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=concurrency)
    start = time.monotonic()
    futures = [pool.submit(one, item) for item in by_problem.items()]
    done, _ = concurrent.futures.wait(futures, timeout=deadline)
    wall = time.monotonic() - start
    pool.shutdown(wait=False, cancel_futures=True)
    lost = misjudged = errors = 0
    for f, (_, members) in zip(futures, by_problem.items()):
        if f not in done or f.exception() is not None:
            lost += len(members)
            errors += 1 if f in done else 0
            continue
        _, results = f.result()
        for n in members:
            l, m = tally_batch(results.get(str(n)), cands[n][1])
            lost, misjudged = lost + l, misjudged + m
    return {"wall": wall, "per_candidate": None, "requests": requests_s,
            "http": len(by_problem), "504": 0, "refused": counters["refused"],
            "read_timeouts": counters["read_timeouts"], "other_errors": errors,
            "lost": lost, "misjudged": misjudged, "unit": "candidates"}


# Report ------------------------------------------------------------------------------------------


def fmt(x, digits=2):
    if x is None:
        return "–"
    if isinstance(x, float) and x != x:
        return "–"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def table(rows):
    head = ("| row | server | work | wall (s) | median per candidate (s) | p50 / p99 call (s) "
            "| verdict ÷ SF (target) | 504s | read timeouts | lost | misjudged "
            "| server peak RSS (MB) |")
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        if r.get("absent"):
            lines.append(f"| {r['row']} | {r['server']} | {r['work']} | absent: {r['absent']} "
                         "| | | | | | | | |")
            continue
        calls = r.get("calls") or []
        p = (f"{percentile(calls, 0.5):.2f} / {percentile(calls, 0.99):.2f}" if calls else "–")
        ratio = r.get("ratio")
        ratio_text = "–" if ratio is None else f"{ratio:.3f}"
        if r.get("target") is not None and ratio is not None:
            ratio_text += f" (≤ {r['target']:.2f}: {'met' if ratio <= r['target'] else 'MISSED'})"
        lines.append(
            f"| {r['row']} | {r['server']} | {r['work']} | {fmt(r.get('wall'), 1)} "
            f"| {fmt(r.get('median'), 3)} | {p} | {ratio_text} | {fmt(r.get('504'))} "
            f"| {fmt(r.get('read_timeouts'))} | {fmt(r.get('lost'))} | {fmt(r.get('misjudged'))} "
            f"| {fmt(r.get('rss'), 0)} |")
    return "\n".join(lines)


def write_docs(path, text):
    """The section into `path`: replacing the section of that heading, else appended at the
    end (a new file holds just the section)."""
    path = pathlib.Path(path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if SECTION in old:
        before, rest = old.split(SECTION, 1)
        # The section runs to the next level-2 heading (outside code blocks) or the end.
        after = ""
        fenced = False
        lines = rest.split("\n")
        for i, line in enumerate(lines[1:], start=1):
            if line.startswith("```"):
                fenced = not fenced
            if not fenced and line.startswith("## "):
                after = "\n".join(lines[i:])
                break
        new = before + text.rstrip("\n") + "\n" + ("\n" + after if after else "")
    elif old.strip():
        new = old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n"
    else:
        new = text.rstrip("\n") + "\n"
    path.write_text(new, encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    default_server = os.environ.get("VERDICT_JUDGE_SERVER")
    if not default_server:
        for candidate in (REPO / "target/release/judge-server", REPO / "target/debug/judge-server"):
            if candidate.exists():
                default_server = str(candidate)
                break
    ap.add_argument("--server", default=default_server, help="judge-server binary")
    ap.add_argument("--verl", help="verl's wheel or its sandbox_fusion/utils.py "
                                   "(default: pip download --no-deps verl)")
    ap.add_argument("--sandboxfusion", default=os.environ.get("VERDICT_SANDBOXFUSION"),
                    help="a bytedance/SandboxFusion tree")
    ap.add_argument("--rows", default="cpp,python,load")
    ap.add_argument("--candidates", type=int, default=20, help="rows 1 and 2: per round")
    ap.add_argument("--rounds", type=int, default=2, help="rows 1 and 2: rounds (new sources each)")
    ap.add_argument("--timeout", type=int, default=10,
                    help="rows 1 and 2: verl's timeout (compile and run), s (verl's default 10)")
    ap.add_argument("--load", default="1024x1,256x10",
                    help="row 3: steps as CANDIDATESxTIMEOUT (verl's per-test timeout in s, "
                         "also the batches' test_timeout_ms), comma-separated")
    ap.add_argument("--concurrency", type=int, default=256)
    ap.add_argument("--max-wait-ms", type=int, default=None,
                    help="verdict's [sandbox_fusion] max_wait_ms (default: the timeout + 6 s, "
                         "so that a 504 comes before verl's read timeout of 2 x timeout + 10 s "
                         "even when the run then takes its whole timeout)")
    ap.add_argument("--max-connections-per-address", type=int, default=1024,
                    help="verdict's max_connections_per_address (its default is 1024: at 256, "
                         "verl's 256 calls in flight and the closing ones the server still "
                         "holds passed it, and the 429 it answers past the cap is not retried "
                         "by verl); 0: the server's default")
    ap.add_argument("--no-default-connections-row", action="store_true",
                    help="row 3: skip the extra /run_code row with the server's default "
                         "config (first step only; not in the exit status)")
    ap.add_argument("--extra-concurrency", default="64",
                    help="row 3: /run_code rows of the first step at these client "
                         "concurrencies too (verl's default max_concurrent is 64); '' for none")
    ap.add_argument("--load-shapes", default="run_code,batches")
    ap.add_argument("--deadline", type=float, default=1800.0, help="row 3: seconds per row")
    ap.add_argument("--write-docs", nargs="?", const=str(REPO / "docs/compat.md"), default=None)
    args = ap.parse_args()
    if not args.server or not os.access(args.server, os.X_OK):
        print(f"no judge-server at {args.server!r}: --server or VERDICT_JUDGE_SERVER",
              file=sys.stderr)
        return 2
    rows_wanted = set(args.rows.split(","))
    try:
        steps = [tuple(int(x) for x in step.lower().split("x")) for step in args.load.split(",")]
        assert all(len(st) == 2 and st[0] > 0 and st[1] > 0 for st in steps)
    except (ValueError, AssertionError):
        print(f"--load {args.load!r}: CANDIDATESxTIMEOUT[,...]", file=sys.stderr)
        return 2

    def max_wait_ms(timeout):
        return args.max_wait_ms or (timeout + 6) * 1000

    per_address = args.max_connections_per_address or None
    log = lambda *a: print(*a, file=sys.stderr, flush=True)  # noqa: E731

    tmp_dir = tempfile.TemporaryDirectory(prefix="bench-rl-compat-")
    tmp = pathlib.Path(tmp_dir.name)
    verl, verl_origin, calls = load_verl(args.verl, tmp)
    log(f"verl: {verl_origin}; server: {args.server}; {os.cpu_count()} CPUs; "
        f"load average {os.getloadavg()[0]:.1f}")
    sf_tree, sf_absent = prepare_sandboxfusion(args.sandboxfusion)
    if sf_absent:
        log(f"SandboxFusion absent: {sf_absent}")

    rows = []
    started = datetime.datetime.now(datetime.timezone.utc)

    def start_sf():
        nonlocal sf_absent
        if sf_absent:
            return None
        try:
            return SandboxFusion(sf_tree)
        except Exception as e:  # noqa: BLE001 - any failure: its rows are absent, with why
            sf_absent = str(e).splitlines()[0][:200]
            log(f"SandboxFusion absent: {e}")
            return None

    # Rows 1 and 2 -------------------------------------------------------------------------
    for kind in ("cpp", "python"):
        if kind not in rows_wanted:
            continue
        verdict = Verdict(args.server, max_wait_ms(args.timeout), per_address)
        sf = start_sf()
        load_before = os.getloadavg()[0]
        servers = [verdict] + ([sf] if sf else [])
        try:
            if kind == "cpp":
                cands = cpp_candidates(args.candidates, args.rounds)
                judged = side_by_side(verl, servers, cands, "cpp", args.timeout)
                row, target, unit = "1. C++ stdin/stdout, /run_code", 0.20, "C++"
            else:
                pcands = py_candidates(args.candidates, args.rounds)
                judged = side_by_side(verl, servers, [c[:3] for c in pcands], "python",
                                      args.timeout)
                row, target, unit = "2. Python fn_name, /run_code", 0.70, "Python"
            work = (f"{len(cands if kind == 'cpp' else pcands)} {unit} candidates x {TESTS} tests, "
                    "one call per test")
            v = judged[verdict.name]
            s = judged[sf.name] if sf else None
            ratio = median(v["seconds"]) / median(s["seconds"]) if s else None
            for server, result in [(verdict, v)] + ([(sf, s)] if sf else []):
                mine = calls.of(server.url)
                note = ""
                if kind == "cpp" and server is verdict:
                    note = f"; builds reused {result['reused']}/{result['compiles']}"
                rows.append({
                    "row": row, "server": server.name, "work": work + note,
                    "wall": sum(result["seconds"]), "median": median(result["seconds"]),
                    "calls": [x for _, x, _ in mine],
                    "504": sum(1 for _, _, o in mine if o == 504),
                    "read_timeouts": sum(1 for _, _, o in mine
                                         if isinstance(o, str) and "Timeout" in o),
                    "lost": result["lost"], "misjudged": result["misjudged"],
                    "rss": server.peak_rss_mb(), "examples": result["examples"],
                    "ratio": ratio if server is verdict else None,
                    "target": target if server is verdict else None,
                    "verdict": server is verdict,
                    "totals_ratio": (sum(v["seconds"]) / sum(s["seconds"]))
                    if s and server is verdict else None,
                    "load_before": load_before if server is verdict else None,
                })
                log(json.dumps({k: rows[-1][k] for k in ("row", "server", "wall", "median",
                                                          "lost", "misjudged", "ratio",
                                                          "examples")}))
            if not sf:
                rows.append({"row": row, "server": "SandboxFusion none", "work": work,
                             "absent": sf_absent})
            if kind == "python":
                total, per, lost, misjudged, counters = py_batches(verdict.url, pcands)
                rows.append({
                    "row": "2b. Python fn_name, dataset batches (one per problem)",
                    "server": verdict.name,
                    "work": f"{len(pcands)} candidates in {len({c[3] for c in pcands})} batches "
                            "(sequential), stop at first failure",
                    "wall": total, "median": None, "calls": None, "504": None,
                    "read_timeouts": counters["read_timeouts"], "lost": lost,
                    "misjudged": misjudged, "rss": verdict.peak_rss_mb(),
                    "verdict": True,
                    "note_per_candidate": per,
                })
                rows.append({"row": "2b. Python fn_name, dataset batches (one per problem)",
                             "server": "SandboxFusion none", "work": "",
                             "absent": "no batches"})
        finally:
            verdict.stop()
            if sf:
                sf.stop()

    # Row 3: load --------------------------------------------------------------------------
    shapes = args.load_shapes.split(",")
    plan = []
    extra = [int(c) for c in args.extra_concurrency.split(",") if c.strip()]
    for i, (count, timeout) in enumerate(steps if "load" in rows_wanted else []):
        c = args.concurrency
        if "run_code" in shapes and i == 0 and per_address and not args.no_default_connections_row:
            plan.append((count, timeout, c, "run_code", "verdict-default"))
        if "run_code" in shapes:
            plan += [(count, timeout, c, "run_code", "verdict"),
                     (count, timeout, c, "run_code", "sf")]
        if "batches" in shapes:
            plan += [(count, timeout, c, "batches", "verdict"),
                     (count, timeout, c, "batches", "sf")]
        if "run_code" in shapes and i == 0:
            for c in extra:
                plan += [(count, timeout, c, "run_code", "verdict"),
                         (count, timeout, c, "run_code", "sf")]
    for count, timeout, concurrency, shape, who in plan:
        cands = load_candidates(count)
        n = len(cands)
        loops = sum(1 for c in cands if c[1] == "loop")
        full = round(1024 * 0.05) * TESTS * timeout / (os.cpu_count() or 1) / 60
        scaled = ("" if n >= 1024 else
                  f" (scaled down from 1024, whose looping tests alone take ~{full:.0f} min)")
        name = f"3. load, {'/run_code (verl)' if shape == 'run_code' else 'dataset batches'}"
        work = (f"N={n}{scaled} x {TESTS} tests, {loops} looping, {concurrency} threads, "
                f"verl timeout {timeout} s")
        if shape == "batches":
            # The dataset's own per-test limit is 6 s; test_timeout_ms only lowers it.
            work = (f"N={n}{scaled} in {max(1, n // 4)} batches of 4 (one per problem), "
                    f"{loops} looping, {concurrency} threads, "
                    f"test limit {min(timeout, 6)} s")
        if who.startswith("verdict") and shape == "run_code":
            work += f", max_wait {max_wait_ms(timeout) / 1000:g} s"
        if who == "sf" and shape == "batches":
            rows.append({"row": name, "server": "SandboxFusion none", "work": work,
                         "absent": "no batches"})
            continue
        if who == "sf":
            server = start_sf()
            if server is None:
                rows.append({"row": name, "server": "SandboxFusion none", "work": work,
                             "absent": sf_absent})
                continue
        elif who == "verdict-default":
            server = Verdict(args.server, max_wait_ms(timeout))
            server.name = "verdict, default config"
        else:
            server = Verdict(args.server, max_wait_ms(timeout), per_address)
        load_before = os.getloadavg()[0]
        log(f"{name} on {server.name}: {work} (load average {load_before:.1f})")
        try:
            if shape == "run_code":
                r = load_run_code(verl, calls, server, cands, concurrency,
                                  timeout, args.deadline)
            else:
                r = load_batches(server, cands, concurrency, timeout,
                                 args.deadline)
            rss = server.peak_rss_mb()
        finally:
            server.stop()
        rows.append({"row": name, "server": server.name, "work": work, "wall": r["wall"],
                     "median": median(r["per_candidate"]) if r["per_candidate"] else None,
                     "calls": r["requests"], "504": r["504"],
                     "read_timeouts": r["read_timeouts"], "lost": r["lost"],
                     "misjudged": r["misjudged"], "rss": rss, "verdict": who == "verdict",
                     "informational": who == "verdict-default", "causes": r.get("causes"),
                     "examples": r.get("examples"),
                     "unit": r["unit"], "http": r["http"],
                     "other_errors": r["other_errors"], "refused": r.get("refused", 0),
                     "load_before": load_before, "step": f"N={n}, timeout {timeout} s, {concurrency} threads",
                     "concurrency": concurrency})
        log(json.dumps({k: v for k, v in rows[-1].items() if k != "calls"}))

    text = table(rows)
    print(text)
    bad = [r for r in rows if r.get("verdict") and not r.get("absent")
           and (r.get("read_timeouts") or r.get("lost") or r.get("misjudged"))]
    if args.write_docs:
        command = "scripts/bench-rl-compat.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        write_docs(args.write_docs, section(rows, text, command, started, verl_origin, sf_tree,
                                            args))
        log(f"wrote {args.write_docs}")
    sys.stdout.flush()
    sys.stderr.flush()
    tmp_dir.cleanup()
    # Threads of a row past its deadline may still wait on a socket: do not join them.
    os._exit(1 if bad else 0)


def findings(rows):
    """Sentences on this run's rows: what each measured, and why, where a reason is known."""
    out = []
    by = {(r["row"], r["server"]): r for r in rows}
    cpp_v = by.get(("1. C++ stdin/stdout, /run_code", "verdict"))
    cpp_s = by.get(("1. C++ stdin/stdout, /run_code", "SandboxFusion none"))
    if cpp_v and cpp_s and not cpp_s.get("absent"):
        out.append(
            f"C++: verdict's median candidate took {cpp_v['ratio']:.3f}x SandboxFusion's "
            f"({1 / cpp_v['ratio']:.1f}x faster). verl sends a candidate's 5 tests at once: "
            "SandboxFusion compiles the source 5 times, 2 at a time on 2 cores (about 2.5 "
            "compile times of wall, which bounds the gain on this machine when nothing else "
            "runs), verdict once, the other 4 calls waiting for that build "
            f"({cpp_v['work'].split('; ')[-1]}). More tests per problem, or more cores busy, "
            "widen the gap.")
        if cpp_s.get("misjudged"):
            out.append(
                f"C++: SandboxFusion misjudged {cpp_s['misjudged']} tests: its compile_timeout "
                "(verl passes its timeout, 10 s) is wall time, and 5 parallel compiles of "
                "`<bits/stdc++.h>` sharing 2 busy cores ran past it, so verl scored those "
                "candidates -4 (compile error) whatever their answers. verdict compiled each "
                "source once.")
    py_v = by.get(("2. Python fn_name, /run_code", "verdict"))
    if py_v and py_v.get("ratio") is not None:
        out.append(
            f"Python functions: verdict's median candidate took {py_v['ratio']:.3f}x "
            "SandboxFusion's, every run sandboxed against SandboxFusion's bare child process "
            "(a `bash -c` per call).")
    for r in rows:
        if not r["row"].startswith("3.") or r.get("absent"):
            continue
        causes = r.get("causes") or {}
        why = ", ".join(f"{n} {cause}" for cause, n in sorted(causes.items(), key=lambda x: -x[1]))
        if r["row"].endswith("/run_code (verl)") and r["server"].startswith("verdict"):
            text = (f"Load, `/run_code` on {r['server']} ({r['step']}): {r['lost']} tests lost"
                    + (f" ({why})" if why else "") + f", {r['misjudged']} misjudged, "
                    f"{r['read_timeouts']} read timeouts; {r['504']} calls answered 504 "
                    "(verl retries a 504 twice, 1 s and 2 s later).")
            if any(c.startswith("429") for c in causes):
                text += (" The 429s are judge-server's connection cap, "
                         "`max_connections_per_address`: verl opens a "
                         "connection per call, so its calls in flight plus the connections "
                         "still closing can pass it; the refusal is written before the request "
                         "is read, and verl does not retry a 429.")
            stalled = [e for e in r.get("examples") or []
                       if e.get("run") == "TimeLimitExceeded" and e.get("label") == "right"]
            if r["misjudged"] and stalled:
                cpu = ", ".join(str((e.get("verdict") or {}).get("cpu_time_ms")) for e in stalled)
                reason = (stalled[0].get("verdict") or {}).get("reason", "")
                text += (f" The misjudged tests are right answers stopped at the wall-clock "
                         f"limit after {cpu} ms of CPU (verdict's reason: \"{reason}\"): "
                         "`/run_code` keeps SandboxFusion's meaning of `run_timeout` (wall "
                         "time), and the machine's other load (see the load average) kept a "
                         "short run off the cores past it.")
            if any(c.startswith("504") for c in causes):
                text += (" A test lost to 504s waited `max_wait_ms` for a compile slot or a "
                         f"run place three times: {r['concurrency']} calls queue, first come "
                         "first served, for the places that looping tests hold for their whole "
                         "timeout, and verl gives up after its second retry.")
            out.append(text)
        elif r["row"].endswith("/run_code (verl)"):
            text = (f"Load, `/run_code` on SandboxFusion ({r['step']}): {r['lost']} tests lost"
                    + (f" ({why})" if why else "") + f", {r['misjudged']} misjudged.")
            if r["lost"] or r["misjudged"]:
                text += (" It has no queue and no 504 on `/run_code`: every call starts at "
                         f"once, up to {r['concurrency']} programs and their `bash -c` sharing "
                         "2 cores, so calls outlast verl's read timeout (2 x timeout + 10 s)"
                         + (" and a right answer can run past its wall-clock timeout."
                            if r["misjudged"] else "."))
            out.append(text)
        elif r["server"] == "verdict":
            out.append(
                f"Load, dataset batches on verdict ({r['step']}): "
                f"{r['lost']} lost, {r['misjudged']} misjudged; a candidate's 5 tests are "
                "function calls in one process and stop at the first failure, so a looping "
                "candidate costs one time limit, not five.")
    return out


def section(rows, text, command, started, verl_origin, sf_tree, args):
    cpu = ""
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    sf_commit = commit_of(sf_tree) if sf_tree else None
    notes = []
    for r in rows:
        parts = []
        if r.get("totals_ratio") is not None:
            parts.append(f"ratio of the totals (verdict ÷ SandboxFusion) {r['totals_ratio']:.2f}")
        if r.get("note_per_candidate") is not None:
            parts.append(f"{r['note_per_candidate']:.3f} s per candidate (batch time ÷ "
                         "candidates)")
        if r.get("unit") == "tests":
            parts.append(f"lost and misjudged count tests; {r['http']} HTTP calls")
        if r.get("unit") == "candidates":
            parts.append(f"lost and misjudged count candidates; {r['http']} batch requests, "
                         f"{r.get('refused', 0)} answered 429/503 (retried after Retry-After)")
        if r.get("load_before") is not None:
            parts.append(f"load average {r['load_before']:.1f} when it started")
        if r.get("verdict") and r.get("examples"):
            parts.append("misjudged: " + "; ".join(
                f"a {e['label']} candidate's test scored {e['result']} (run {e['run']}, "
                f"{e['execution_time']} s, {json.dumps(e['verdict'])})" for e in r["examples"]))
        if parts:
            where = f" ({r['step']})" if r.get("step") else ""
            notes.append(f"{r['row']}, {r['server']}{where}: " + "; ".join(parts) + ".")
    found = findings(rows)
    built = datetime.datetime.fromtimestamp(os.stat(args.server).st_mtime, datetime.timezone.utc)
    server_note = f"`{os.path.basename(args.server)}`, built {built:%Y-%m-%d %H:%M} UTC"
    return f"""{SECTION}

verl's reward code calling both servers: verdict's `POST /run_code` (and its dataset batches,
docs/batches.md) and bytedance/SandboxFusion's own server in isolation `none` (`SANDBOX_CONFIG=local`,
its default config: the program runs as a plain child of the server, no sandbox, a wall timeout
only; SandboxFusion's `lite` is slower still). verdict sandboxes every run (namespaces,
cgroups, seccomp). Measured by `scripts/bench-rl-compat.py`.

- **Date**: {started:%Y-%m-%d %H:%M} UTC. **Machine**: {os.cpu_count()} cores ({cpu or platform.machine()}), a VM
  that traps CPUID: every exec costs ~0.6 ms more. Other work on the machine makes it noisy:
  rows 1 and 2 alternate the two servers candidate by candidate (order swapped each time) and
  give medians and the ratio from the same run; row 3 runs one server at a time, fresh.
- **Command**: `{command}`
- **Clients**: verl's `check_correctness` from {verl_origin}, imported by file path, its
  `requests` wrapped only to time calls. It sends one `/run_code` per test (the 5 of a candidate at once,
  compile and run timeout {args.timeout} s in rows 1 and 2, verl's default; read timeout
  2 x timeout + 10 s) and retries a 504 twice, 1 s then 2 s later. Batches: `POST
  /v1/batches?wait=600000`, `format: ground-truth`, `stop_at_first_failure`.
- **Servers**: judge-server ({server_note}) with `workers = 2`,
  `max_connections_per_address = {args.max_connections_per_address or 'its default'}` (the
  row marked "default config" runs every server default, and is not in the exit status),
  `[sandbox_fusion] enabled`, loopback, and
  `max_wait_ms` = verl's timeout + 6 s{' (here ' + str(args.max_wait_ms) + ' ms)' if args.max_wait_ms else ''}: a call waits that long for
  a compile slot (one per core) and a run place (`parallel_runs`, four per core by default),
  then gets 504 + Retry-After. verl's read timeout is 2 x timeout +
  10 s, so the 504 comes first even when the run then takes its whole timeout, and verl
  retries it (twice); the default 30 000 ms equals that read timeout at verl's timeout of 10 s
  and would turn a long wait into a read timeout instead. SandboxFusion{f' at {sf_commit}' if sf_commit else ''}: its
  server (uvicorn, one process; `/run_code` starts every call at once) from a tree prepared by
  `scripts/bench-sandboxfusion.sh`, clean environment and empty `HOME`.
- **Work**: row 1, C++ stdin/stdout problems (A+B, a sum, a reversal, a maximum, a prime
  count), one candidate in four wrong (failing every test), each candidate's source its own
  (SandboxFusion compiles each call; verdict compiles a source once and reuses the build for
  its other tests). Row 2, Python function problems through verl's wrapper (one JSON argument
  per stdin line, the printed result compared as text); 2b, the same candidates as verdict
  dataset batches (the arguments as lists, APPS/TACO's shape), one per problem, one after the
  other. Row 3, one RL step: N candidates of `f(x)` problems x 5 tests, 5% `while True: pass`,
  15% wrong, from {args.concurrency} client threads ({args.extra_concurrency or 'no other count'} where the work column says
  so; verl's default `max_concurrent` is 64); every result is checked against its
  label (right -> passes, wrong -> fails, looping -> timeout).
- **Columns**: wall = the sum of per-candidate times (rows 1, 2: candidates judged one at a
  time) or the step's wall time (row 3); a call = one HTTP request (row 3, batches: one batch
  request); "verdict ÷ SF" = verdict's median per candidate over SandboxFusion's (0.20 = 5x
  faster); lost = no judgement (verl's -1, an infra error, a missing result, past the row's
  deadline); misjudged = a judgement other than the label's; peak RSS = the server process's
  VmHWM (SandboxFusion: the uvicorn process, not the programs it runs).

{text}

{chr(10).join('- ' + n for n in notes)}

What the rows show:

{chr(10).join('- ' + f for f in found)}

Reproduce: fetch bytedance/SandboxFusion (e.g. `git clone` or an archive of it) into a
directory outside this repository, then `scripts/bench-rl-compat.py --server
target/release/judge-server --sandboxfusion DIR --write-docs` (it prepares `DIR` with
`scripts/bench-sandboxfusion.sh` when needed and downloads verl's wheel with `pip download
--no-deps verl` unless given `--verl WHEEL`). The exit status is 1 when a verdict row has a read
timeout, a lost or a misjudged result.
"""


if __name__ == "__main__":
    sys.exit(main())
