#!/usr/bin/env python3
"""The "RL step" load test (docs/batches.md, "Load: an RL step").

One step of a trainer: N candidates (default 1024) for function problems of 5 tests each,
5% of them looping forever, 15% wrong, the rest right, judged by a real judge-server while
C client requests (default 64, then 256) are in flight at once, through the repository's
Python client (clients/python: it honours 429 + Retry-After). Two shapes:

- `oracle`: one `POST /v1/oracle` per candidate (as open-r1's and verl's rewards call per
  completion); the suites wait in the server's queue, 429 + Retry-After only when it is full.
- `batches`: the same candidates in batches (one problem each, stop at the first failure:
  binary rewards), C client requests at once, each `POST /v1/batches` (202 at once) then its
  NDJSON results read to the summary (`GET .../events`; an empty keep-alive line every 15 s
  while the batch waits, so the read timeout never fires).

Each run starts a fresh server (so its peak RSS is the run's) and reports: wall time,
candidates/s, p50 and p99 latency of a client request (retries included), the server's peak
RSS (VmHWM) after start and at the end, 429s received, and the failures that must be zero:
hangs (a request not answered by the step's deadline), lost (no report, or not one result
per test), read timeouts (the client's 60 s socket timeout), misjudged candidates. Prints a
Markdown table. Exit 1 if any must-be-zero count is not zero.

Usage: scripts/bench-rl-step.py [--server PATH] [--candidates 1024] [--concurrency 64,256]
                                [--shapes oracle,batches] [--queue-capacity 128]
"""

import argparse
import json
import os
import pathlib
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "clients" / "python"))
from verdict_client import Client, RetryPolicy, VerdictError  # noqa: E402

from judge_server_process import JudgeServerProcess  # noqa: E402

TOKEN = "bench-token"
PROBLEMS = 5
TESTS = 5
CASE_TIMEOUT_MS = 1000
READ_TIMEOUT_S = 60.0


def problem(p):
    """Problem p: f(x) = x * (p + 2) + 1, five tests."""
    return [{"name": f"t{i}", "input": [i], "expected": i * (p + 2) + 1} for i in range(TESTS)]


def candidate_code(kind, p, n):
    """A candidate's source: right, wrong (off by one on odd inputs) or looping forever. `n`
    makes each candidate's text its own (no two are judged once for both)."""
    body = {
        "right": f"    return x * {p + 2} + 1",
        "wrong": f"    return x * {p + 2} + 1 + (x % 2)",
        "loop": "    while True:\n        pass",
    }[kind]
    return f"# sample {n}\ndef f(x):\n{body}\n"


def candidates(count, seed=27):
    """(problem, kind, code) for each candidate: 5% loop, 15% wrong, the rest right."""
    rng = random.Random(seed)
    kinds = ["loop"] * round(count * 0.05) + ["wrong"] * round(count * 0.15)
    kinds += ["right"] * (count - len(kinds))
    rng.shuffle(kinds)
    return [(n % PROBLEMS, kind, candidate_code(kind, n % PROBLEMS, n))
            for n, kind in enumerate(kinds)]


def suite(p, code):
    return {"deliverable_type": "function", "language": "python3", "entry_point": "f",
            "timeout_ms": CASE_TIMEOUT_MS, "test_cases": problem(p),
            "source_files": [{"type": "text", "name": "solution.py", "text": code}]}


class Server(JudgeServerProcess):
    """A judge-server on a free port with its own data, work and cache dirs."""

    def __init__(self, binary, queue_capacity):
        super().__init__(binary, "verdict-bench-", head=f"queue_capacity = {queue_capacity}\n",
                         tail=f'[[tokens]]\ntoken = "{TOKEN}"\n', kept_log_lines=200)

    def rss_kb(self, field):
        return self.status_kb(field)


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def expected_pass(kind):
    return kind == "right"


def run_oracle(client, cands, concurrency, deadline):
    """One POST /v1/oracle per candidate; per candidate: (latency, passed or an error)."""
    def one(c):
        p, kind, code = c
        start = time.monotonic()
        try:
            report = client.oracle(suite(p, code))
        except VerdictError as e:
            return time.monotonic() - start, e
        results = report.get("results") or []
        if len(results) != TESTS:
            return time.monotonic() - start, ValueError(f"lost: {len(results)} results")
        passed = all(r["status"] == "passed" for r in results)
        return time.monotonic() - start, passed

    pool = ThreadPoolExecutor(max_workers=concurrency)
    futures = [pool.submit(one, c) for c in cands]
    done, _ = wait(futures, timeout=deadline)
    # A request still unanswered at the deadline is a hang: counted, not waited for.
    pool.shutdown(wait=False, cancel_futures=True)
    return [f.result() if f in done else None for f in futures], len(cands)


def run_batches(client, cands, concurrency, deadline):
    """The candidates as batches of one problem each, one client request per batch (POST, then
    its NDJSON results); per candidate: (its request's latency, passed or an error)."""
    # `concurrency` requests, all in flight at once: each a group of samples of one prompt
    # (16 at C = 64, 4 at C = 256, as GRPO-style trainers send them).
    size = max(1, len(cands) // concurrency)
    by_problem = {}
    for n, c in enumerate(cands):
        by_problem.setdefault(c[0], []).append(n)
    requests = [(p, members[i:i + size]) for p, members in sorted(by_problem.items())
                for i in range(0, len(members), size)]

    def one(item):
        p, members = item
        body = {"problem": {"kind": "suite", "deliverable_type": "function",
                            "language": "python3", "entry_point": "f",
                            "timeout_ms": CASE_TIMEOUT_MS, "test_cases": problem(p)},
                "candidates": [{"id": str(n), "code": cands[n][2]} for n in members],
                "options": {"stop_at_first_failure": True}}
        start = time.monotonic()
        try:
            accepted = client.create_batch(body)
            events = list(client.batch_results(accepted["id"]))
        except VerdictError as e:
            return [(n, time.monotonic() - start, e) for n in members]
        latency = time.monotonic() - start
        by_id = {e["id"]: e for e in events if e.get("event") == "candidate"}
        out = []
        for n in members:
            r = by_id.get(str(n))
            if r is None or r.get("infra_error"):
                out.append((n, latency, ValueError(f"lost: {r}")))
            else:
                out.append((n, latency, bool(r["passed"])))
        return out

    results = [None] * len(cands)
    pool = ThreadPoolExecutor(max_workers=concurrency)
    futures = [pool.submit(one, item) for item in requests]
    done, _ = wait(futures, timeout=deadline)
    # A request still unanswered at the deadline is a hang: counted, not waited for.
    pool.shutdown(wait=False, cancel_futures=True)
    for f in done:
        for n, latency, outcome in f.result():
            results[n] = (latency, outcome)
    return results, len(requests)


def measure(binary, shape, count, concurrency, queue_capacity):
    cands = candidates(count)
    server = Server(binary, queue_capacity)
    try:
        refused = []
        lock = threading.Lock()

        def on_retry(error, delay):
            with lock:
                refused.append((error.status, error.retry_after, delay))

        client = Client(server.url, TOKEN, timeout=READ_TIMEOUT_S, max_concurrency=concurrency,
                        retry=RetryPolicy(max_retries=10_000), on_retry=on_retry)
        # Warm the interpreter's files and the sandbox's slots once, outside the measure.
        client.oracle(suite(0, candidate_code("right", 0, -1)))
        rss_start = server.rss_kb("VmHWM")
        deadline = 1800.0
        start = time.monotonic()
        run = run_oracle if shape == "oracle" else run_batches
        outcomes, requests = run(client, cands, concurrency, deadline)
        wall = time.monotonic() - start
        rss_peak = server.rss_kb("VmHWM")
    finally:
        server.stop()
    hangs = sum(1 for o in outcomes if o is None)
    errors = [o[1] for o in outcomes if o is not None and isinstance(o[1], Exception)]
    timeouts = sum(1 for e in errors if isinstance(e, VerdictError) and e.status == 0)
    lost = len(errors) - timeouts
    judged = [(c, o[1]) for c, o in zip(cands, outcomes) if o is not None and isinstance(o[1], bool)]
    wrong = sum(1 for (p, kind, _), passed in judged if passed != expected_pass(kind))
    latencies = [o[0] for o in outcomes if o is not None]
    return {
        "shape": shape, "concurrency": concurrency, "requests": requests,
        "candidates": count, "wall_s": wall, "per_s": count / wall,
        "p50_s": percentile(latencies, 0.50), "p99_s": percentile(latencies, 0.99),
        "rss_start_mb": rss_start / 1024, "rss_peak_mb": rss_peak / 1024,
        "429": sum(1 for s, _, _ in refused if s == 429),
        "retry_after_ok": all(s != 429 or (ra is not None and d == ra) for s, ra, d in refused),
        "hangs": hangs, "lost": lost, "read_timeouts": timeouts, "misjudged": wrong,
        "examples": [str(e) for e in errors[:3]],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = REPO / "target" / "release" / "judge-server"
    if not default.exists():
        default = REPO / "target" / "debug" / "judge-server"
    ap.add_argument("--server", default=os.environ.get("VERDICT_JUDGE_SERVER", str(default)))
    ap.add_argument("--candidates", type=int, default=1024)
    ap.add_argument("--concurrency", default="64,256")
    ap.add_argument("--shapes", default="oracle,batches")
    ap.add_argument("--queue-capacity", type=int, default=128)
    args = ap.parse_args()
    print(f"server: {args.server}; {os.cpu_count()} CPUs; load average before: "
          f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    rows = []
    for shape in args.shapes.split(","):
        for c in [int(x) for x in args.concurrency.split(",")]:
            row = measure(args.server, shape, args.candidates, c, args.queue_capacity)
            row["load"] = os.getloadavg()[0]
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    print("| shape | concurrent requests | requests | wall (s) | candidates/s | p50 (s) | p99 (s) "
          "| server RSS start / peak (MB) | 429s (Retry-After honoured) | hangs | lost "
          "| read timeouts | misjudged | load avg |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['concurrency']} | {r['requests']} | {r['wall_s']:.1f} "
              f"| {r['per_s']:.1f} | {r['p50_s']:.2f} | {r['p99_s']:.2f} "
              f"| {r['rss_start_mb']:.0f} / {r['rss_peak_mb']:.0f} "
              f"| {r['429']} ({'yes' if r['retry_after_ok'] else 'NO'}) | {r['hangs']} "
              f"| {r['lost']} | {r['read_timeouts']} | {r['misjudged']} | {r['load']:.1f} |")
    bad = any(r["hangs"] or r["lost"] or r["read_timeouts"] or r["misjudged"]
              or not r["retry_after_ok"] for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
