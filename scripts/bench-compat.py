#!/usr/bin/env python3
"""Speed of the other sandboxes' APIs on judge-server (docs/compat.md, "Speed"): for Piston's
`/api/v2/execute`, Jobe's `runs`, SandboxFusion's `/run_code`, Judge0's `POST /submissions?wait=true`
and verdict's own `POST /v1/judge`,
an A+B program in Python and in C++ (one test, every run sandboxed): the p50 latency of calls
made one at a time, and the throughput of 32 clients calling at once. Starts its own server
(standalone, its own data and work dirs) from a built binary and stops it at the end; every
answer is checked (a wrong one fails the bench). Bounded: a fixed number of calls, loopback only.

    python3 scripts/bench-compat.py [--server PATH] [--calls 200] [--clients 32]

The peers are absent here: Piston, Jobe and Judge0 install from none of the registries this
machine reaches (Piston and Judge0 are Docker images over isolate; Jobe is a PHP tree run by
Apache with runguard), so their rows cannot be measured side by side."""

import argparse
import json
import os
import pathlib
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

REPO = pathlib.Path(__file__).resolve().parents[1]
TOKEN = "bench-token-0123456789"
PY = "a, b = map(int, input().split())\nprint(a + b)\n"
CPP = "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<std::endl;}\n"


def start(binary, root):
    config = root / "server.toml"
    config.write_text(
        'listen = "127.0.0.1:0"\n'
        f"data_dir = {json.dumps(str(root / 'data'))}\n"
        "[judge]\n"
        f"work_dir = {json.dumps(str(root / 'work'))}\n"
        f"cache_dir = {json.dumps(str(root / 'cache'))}\n"
        f'[[tokens]]\ntoken = "{TOKEN}"\n'
        "[sandbox_fusion]\nenabled = true\nmax_wait_ms = 120000\n"
        "[piston]\nenabled = true\nmax_wait_ms = 120000\n"
        "[jobe]\nenabled = true\nmax_wait_ms = 120000\n"
        "[judge0]\nenabled = true\nmax_wait_ms = 120000\n")
    process = subprocess.Popen([binary, "--config", str(config)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env={**os.environ, "RUST_LOG": "info"})
    found = threading.Event()
    address = {}

    def read():
        for raw in process.stderr:
            try:
                fields = json.loads(raw).get("fields", {})
            except ValueError:
                continue
            if "address" in fields and not address:
                address["url"] = "http://" + fields["address"]
                found.set()

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(60):
        process.kill()
        sys.exit("judge-server logged no address")
    return process, address["url"]


def post(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read())


def calls(base):
    """(name, language, call) for each row: call() makes one request and checks its answer."""
    sources = {"python": PY, "cpp": CPP}
    piston_names = {"python": "python", "cpp": "c++"}
    jobe_names = {"python": "python3", "cpp": "cpp"}
    judge0_ids = {"python": 71, "cpp": 54}
    counter = iter(range(10**9))

    def piston(lang):
        answer = post(f"{base}/api/v2/execute", {
            "language": piston_names[lang], "version": "*", "stdin": "1 2",
            "files": [{"content": sources[lang]}]})
        assert answer["run"]["stdout"] == "3\n", answer

    def jobe(lang):
        answer = post(f"{base}/jobe/index.php/restapi/runs", {"run_spec": {
            "language_id": jobe_names[lang], "sourcecode": sources[lang], "input": "1 2\n"}})
        assert answer["outcome"] == 15 and answer["stdout"] == "3\n", answer

    def sandbox_fusion(lang):
        answer = post(f"{base}/run_code", {"code": sources[lang], "language": lang,
                                           "stdin": "1 2\n"})
        assert answer["status"] == "Success" and answer["run_result"]["stdout"] == "3\n", answer

    def judge0(lang):
        answer = post(f"{base}/submissions?wait=true", {
            "source_code": sources[lang], "language_id": judge0_ids[lang], "stdin": "1 2",
            "expected_output": "3"})
        assert answer["status"]["id"] == 3 and answer["stdout"] == "3\n", answer

    def judge(lang):
        example = json.loads((REPO / "examples" / "judge" /
                              f"aplusb-{'python3' if lang == 'python' else 'cpp'}.json").read_text())
        example["sub_id"] = f"bench-{next(counter)}"
        answer = post(f"{base}/v1/judge", example, {"Authorization": f"Bearer {TOKEN}"})
        statuses = [r["status"] for r in answer["results"]]
        assert all(s == "Accepted" for s in statuses), statuses

    rows = []
    for lang in ["python", "cpp"]:
        for name, call in [("Piston /api/v2/execute", piston), ("Jobe POST runs", jobe),
                           ("SandboxFusion /run_code", sandbox_fusion),
                           ("Judge0 POST /submissions?wait=true", judge0),
                           ("verdict POST /v1/judge", judge)]:
            rows.append((name, lang, lambda call=call, lang=lang: call(lang)))
    return rows


def measure(call, sequential, total, clients):
    call()  # the first call compiles (later identical ones reuse the build) and warms up
    latencies = []
    for _ in range(sequential):
        started = time.perf_counter()
        call()
        latencies.append(time.perf_counter() - started)
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(call) for _ in range(total)]:
            future.result()
    elapsed = time.perf_counter() - started
    return statistics.median(latencies) * 1000, total / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=str(REPO / "target" / "release" / "judge-server"))
    parser.add_argument("--sequential", type=int, default=20)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--clients", type=int, default=32)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verdict-bench-compat-") as root:
        process, base = start(args.server, pathlib.Path(root))
        try:
            print(f"| API | language | p50 latency (1 client) | throughput ({args.clients} clients) |")
            print("|---|---|---|---|")
            for name, lang, call in calls(base):
                p50, rate = measure(call, args.sequential, args.calls, args.clients)
                print(f"| {name} | {lang} | {p50:.0f} ms | {rate:.1f} calls/s |", flush=True)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(60)


if __name__ == "__main__":
    main()
