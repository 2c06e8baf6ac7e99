"""The client against a real judge-server (started by conftest.py)."""

import asyncio
import copy
import json
import threading
import time

import pytest

from verdict_client import AsyncClient, Client, RetryPolicy, VerdictError, needs_retry

from conftest import REPO, TOKEN


def a_plus_b(sub_id):
    submission = json.loads((REPO / "examples" / "judge" / "aplusb-python3.json").read_text())
    submission["sub_id"] = sub_id
    return submission


def slow_suite(seconds, cases=2):
    """A function suite whose every case sleeps, so concurrent calls overlap on the server."""
    return {
        "deliverable_type": "function", "language": "python3", "entry_point": "f",
        "source_files": [{"type": "text", "name": "f.py",
                          "text": f"import time\ndef f(x):\n    time.sleep({seconds})\n    return x * 2\n"}],
        "timeout_ms": 5000,
        "test_cases": [{"name": f"c{i}", "input": [i], "expected": 2 * i} for i in range(cases)],
    }


def test_health_and_languages(server):
    client = Client(server.url, TOKEN)
    assert client.health()["status"] in ("ok", "degraded")
    ready = {lang["language"]: lang["ready"] for lang in client.languages()}
    assert ready["python3"] is True


def test_judge_returns_the_report(server):
    report = Client(server.url, TOKEN).judge(a_plus_b("client-judge-1"))
    assert [t["status"] for t in report["results"]] == ["Accepted"] * len(report["results"])


def test_submit_then_stream_events_until_the_report(server):
    client = Client(server.url, TOKEN)
    accepted = client.submit(a_plus_b("client-events-1"))
    assert accepted["sub_id"] == "client-events-1"
    events = list(client.events("client-events-1", category="examples"))
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "report" and kinds.count("report") == 1, kinds
    assert kinds.count("task") == len(events[-1][1]["results"])
    report = client.submission("client-events-1", category="examples")
    assert report["results"] == events[-1][1]["results"]


def sleepy(sub_id):
    """A+B whose every test sleeps past the test's start (3 s of CPU allowed: minutes of work
    on the server's two workers' run slots) until it is cancelled."""
    submission = a_plus_b(sub_id)
    submission["submission"]["source_files"][0]["text"] = "import time\ntime.sleep(60)\n"
    for task in submission["judge_tasks"][1:]:
        task["time_limit"] = 3000
    return submission


def wait_until_compiled(client, sub_id):
    for _ in range(600):
        report = client.submission(sub_id, category="examples")
        results = report.get("results") or []
        if results and results[0].get("status") == "Accepted":
            return
        time.sleep(0.1)
    raise AssertionError(f"{sub_id} was not compiled: {report}")


def cancelled_log(task):
    return task["status"] == "System Error" and task["error_log"].startswith("cancelled")


def test_a_cancelled_submission_stops_and_returns_its_final_report(server):
    client = Client(server.url, TOKEN)
    client.submit(sleepy("client-cancel-1"))
    wait_until_compiled(client, "client-cancel-1")
    started = time.monotonic()
    report = client.cancel_submission("client-cancel-1", category="examples")
    # The tests running are stopped at once, not at their 7 s wall limit.
    assert time.monotonic() - started < 5, report
    assert report["sub_id"] == "client-cancel-1"
    assert all(cancelled_log(t) for t in report["results"][1:]), report["results"]
    # A finished one is answered as it is.
    assert client.cancel_submission("client-cancel-1", category="examples") == report
    with pytest.raises(VerdictError) as missing:
        client.cancel_submission("client-cancel-none", category="examples")
    assert missing.value.status == 404


def test_the_async_client_cancels_a_submission(server):
    async def main():
        client = AsyncClient(server.url, TOKEN)
        await client.submit(sleepy("client-cancel-2"))
        await asyncio.get_running_loop().run_in_executor(
            None, wait_until_compiled, Client(server.url, TOKEN), "client-cancel-2")
        return await client.cancel_submission("client-cancel-2", category="examples")

    report = asyncio.run(main())
    assert report["sub_id"] == "client-cancel-2"
    assert all(cancelled_log(t) for t in report["results"][1:]), report["results"]


def test_a_refused_request_names_the_field_and_is_not_retried(server):
    retries = []
    client = Client(server.url, TOKEN, on_retry=lambda e, d: retries.append(d))
    bad = a_plus_b("client-bad-1")
    del bad["judge_tasks"]
    with pytest.raises(VerdictError) as refused:
        client.judge(bad)
    assert refused.value.status == 422
    assert not refused.value.retryable
    assert retries == []


def test_a_missing_token_is_401(server):
    with pytest.raises(VerdictError) as refused:
        Client(server.url).oracle(slow_suite(0, 1))
    assert refused.value.status == 401


def test_429_is_retried_after_the_servers_retry_after(tight_server):
    # The server runs two suites at once and queues one (queue_capacity = 1); it answers 429
    # with Retry-After to the others; the client waits that long and tries again until all
    # pass.
    waits = []
    lock = threading.Lock()

    def on_retry(error, delay):
        with lock:
            waits.append((error.status, error.retry_after, delay))

    client = Client(tight_server.url, TOKEN, max_concurrency=6, on_retry=on_retry,
                    retry=RetryPolicy(max_retries=30))
    reports = client.map(client.oracle, [slow_suite(0.3) for _ in range(6)])
    assert all(r["summary"]["passed"] == 2 for r in reports), reports
    assert waits, "six concurrent suites against three places: some must have been refused"
    for status, retry_after, delay in waits:
        assert status == 429
        assert retry_after is not None and delay == retry_after


def test_the_concurrency_limit_holds_requests_back():
    # A server that counts how many requests it holds at once; the client may send 2.
    import http.server

    state = {"now": 0, "most": 0}
    guard = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            with guard:
                state["now"] += 1
                state["most"] = max(state["most"], state["now"])
            time.sleep(0.1)
            with guard:
                state["now"] -= 1
            body = b'{"results": [], "summary": {"passed": 0}}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        client = Client(f"http://127.0.0.1:{httpd.server_port}", "t", max_concurrency=2)
        threads = [threading.Thread(target=client.oracle, args=({},)) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert state["most"] == 2, state
    finally:
        httpd.shutdown()


def test_the_async_client_judges_concurrently_within_its_limit(server):
    async def main():
        client = AsyncClient(server.url, TOKEN, max_concurrency=3,
                             retry=RetryPolicy(max_retries=30))
        suites = [slow_suite(0.1) for _ in range(3)]
        reports = await asyncio.gather(*(client.oracle(s) for s in suites))
        report = await client.judge(a_plus_b("client-async-1"))
        events = [kind async for kind, _ in client.events("client-async-1", category="examples")]
        return reports, report, events

    reports, report, events = asyncio.run(main())
    assert [r["summary"]["passed"] for r in reports] == [2, 2, 2]
    assert all(t["status"] == "Accepted" for t in report["results"])
    assert events[-1] == "report"


def test_retryable_in_a_body_overrides_the_status():
    from verdict_client._http import error_of

    assert not error_of(503, {"error": {"message": "x"}, "retryable": False}, 1.0).retryable
    assert error_of(500, {"error": {"message": "x"}, "retryable": True}, None).retryable
    assert error_of(429, {"error": {"message": "busy"}}, 2.0).retry_after == 2.0
    assert needs_retry({"verdict": {"infra_error": {"message": "sandbox", "retryable": True}}})
    assert not needs_retry({"infra_error": {"message": "no toolchain", "retryable": False}})
    assert not needs_retry(copy.deepcopy({"passed": True}))
