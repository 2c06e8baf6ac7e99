"""The client's batch methods against a real judge-server (started by conftest.py)."""

import asyncio

import pytest

from verdict_client import AsyncClient, Client, VerdictError

from conftest import TOKEN


def add_batch(answers, sleep=0):
    """One function problem (two cases) and a candidate per answer expression."""
    pause = f"    time.sleep({sleep})\n" if sleep else ""
    return {
        "problem": {"kind": "suite", "deliverable_type": "function", "language": "python3",
                    "entry_point": "add", "timeout_ms": 5000,
                    "test_cases": [{"name": "a", "input": [1, 2], "expected": 3},
                                   {"name": "b", "input": [2, 2], "expected": 4}]},
        "candidates": [{"id": f"c{i}",
                        "code": f"import time\ndef add(a, b):\n{pause}    return {answer}\n"}
                       for i, answer in enumerate(answers)],
        "options": {"pass_at_k": [1, 2]},
    }


def test_a_batch_waited_for_returns_every_result_and_pass_at_k(server):
    client = Client(server.url, TOKEN)
    done = client.create_batch(add_batch(["a + b", "a * b", "a + b"]),
                               idempotency_key="py-wait-1", wait=60)
    assert done["id"] == "py-wait-1" and done["state"] == "finished", done
    assert [r["id"] for r in done["results"]] == ["c0", "c1", "c2"]
    assert [r["passed"] for r in done["results"]] == [True, False, True]
    assert done["results"][1]["fraction"] == 0.5
    # c2 is c0 again: judged once, reported under both ids.
    assert done["results"][2]["same_as"] == "c0"
    summary = done["summary"]
    assert summary["candidates"] == 3 and summary["judged"] == 2 and summary["passed"] == 2
    assert summary["pass_at_k"]["1"] == pytest.approx(2 / 3)
    assert summary["pass_at_k"]["2"] == pytest.approx(1.0)
    assert client.batch("py-wait-1") == done


def test_the_same_key_is_the_same_batch_and_another_body_a_conflict(server):
    client = Client(server.url, TOKEN)
    first = client.create_batch(add_batch(["a + b"]), idempotency_key="py-key-1", wait=60)
    again = client.create_batch(add_batch(["a + b"]), idempotency_key="py-key-1")
    assert again["state"] == "finished" and again["results"] == first["results"]
    with pytest.raises(VerdictError) as conflict:
        client.create_batch(add_batch(["a - b"]), idempotency_key="py-key-1")
    assert conflict.value.status == 409 and not conflict.value.retryable


def test_an_invalid_batch_names_the_field_and_is_not_retried(server):
    retries = []
    client = Client(server.url, TOKEN, on_retry=lambda e, d: retries.append(d))
    batch = add_batch(["a + b", "a + b"])
    batch["candidates"][1]["id"] = "c0"
    with pytest.raises(VerdictError) as refused:
        client.create_batch(batch)
    assert refused.value.status == 422 and not refused.value.retryable
    assert "candidates[1].id" in str(refused.value)
    assert retries == []


def test_results_stream_one_candidate_at_a_time_then_the_summary(server):
    client = Client(server.url, TOKEN)
    accepted = client.create_batch(add_batch(["a + b", "0", "a - b", "b + a"]))
    assert accepted["state"] in ("queued", "running", "finished"), accepted
    events = list(client.batch_results(accepted["id"]))
    kinds = [e["event"] for e in events]
    assert kinds == ["candidate"] * 4 + ["summary"], kinds
    assert sorted(e["id"] for e in events[:4]) == ["c0", "c1", "c2", "c3"]
    assert {e["id"]: e["passed"] for e in events[:4]} == {
        "c0": True, "c1": False, "c2": False, "c3": True}
    assert events[-1]["passed"] == 2
    # Read again once done: the same events, replayed in the same order.
    assert list(client.batch_results(accepted["id"])) == events


def test_a_cancelled_batch_runs_no_more_candidates(server):
    client = Client(server.url, TOKEN)
    # Eight candidates of a second each, two at a time: cancelled long before the end.
    accepted = client.create_batch(add_batch([f"a + b + 0 * {i}" for i in range(8)], sleep=1))
    cancelled = client.cancel_batch(accepted["id"])
    assert cancelled["id"] == accepted["id"]
    events = list(client.batch_results(accepted["id"]))
    assert events[-1]["event"] == "summary"
    snapshot = client.batch(accepted["id"])
    assert snapshot["state"] == "cancelled", snapshot
    assert events[-1]["cancelled"] > 0, events[-1]
    assert len(events) - 1 < 8


def test_the_async_client_creates_streams_and_cancels_batches(server):
    async def main():
        client = AsyncClient(server.url, TOKEN)
        done = await client.create_batch(add_batch(["a + b", "a * b"]),
                                         idempotency_key="py-async-1", wait=60)
        snapshot = await client.batch("py-async-1")
        events = [e async for e in client.batch_results("py-async-1")]
        slow = await client.create_batch(add_batch([f"a + b + 0 * {i}" for i in range(8)],
                                                   sleep=1))
        cancelled = await client.cancel_batch(slow["id"])
        return done, snapshot, events, cancelled

    done, snapshot, events, cancelled = asyncio.run(main())
    assert done["state"] == "finished" and snapshot == done
    assert [e["event"] for e in events] == ["candidate", "candidate", "summary"]
    assert events[-1]["pass_at_k"]["1"] == 0.5
    assert cancelled["state"] in ("cancelled", "running"), cancelled


def test_a_full_batch_queue_is_429_with_retry_after_and_retried(tight_server):
    # Two batches run, one waits; a fourth is refused until a place frees, and the client
    # waits the server's Retry-After before it tries again.
    waits = []
    client = Client(tight_server.url, TOKEN, on_retry=lambda e, d: waits.append((e.status, d)))
    ids = [client.create_batch(add_batch(["a + b"], sleep=1.5))["id"] for _ in range(4)]
    assert waits and all(status == 429 and delay >= 1 for status, delay in waits), waits
    for batch_id in ids:
        events = list(client.batch_results(batch_id))
        assert events[-1]["event"] == "summary" and events[-1]["passed"] == 1
