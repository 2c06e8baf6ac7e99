"""OpenRLHF's remote reward model, judged by verdict.

::

    VERDICT_TOKEN=... python -m verdict_client.rewards.openrlhf --judge http://judge:8080 \\
        --host 127.0.0.1 --port 5000 --mode binary
    # then: openrlhf.cli.train_ppo_ray ... --remote_rm_url http://127.0.0.1:5000/get_reward \\
    #           --label_key verdict_problem

``POST /get_reward`` with ``{"query": [...], "prompts": [...], "labels": [...]}`` answers
``{"rewards": [...], "scores": [...], "extra_logs": {...}}``:

- ``query[i]`` is the prompt and the response as one text; the response is ``query[i]`` less
  ``prompts[i]`` when it starts with it (``prompts`` may be left out: the whole query is then
  the response). Trailing end-of-sequence markers (``<|im_end|>``, ``<|endoftext|>``,
  ``<|eot_id|>``, ``</s>``, ...; ``--strip-suffix``) are removed first: OpenRLHF decodes the
  sequences with their special tokens.
- ``labels[i]`` is a dataset problem as JSON text (or the object): ``{"format", "record"}``,
  verl's ``{"inputs", "outputs", "fn_name"?}``, a ``verification_info`` value or a dataset record
  (:func:`verdict_client.rewards.problem_of`).
- ``rewards`` and ``scores`` are the same numbers (OpenRLHF computes advantages from
  ``rewards`` and filters on ``scores``). OpenRLHF needs a number for every sample: a response
  the judge failed on (``infra_error``, or the judge unreachable) scores 0.0 and is counted in
  ``extra_logs["verdict_infra_error"]`` (1.0 for it, 0.0 for the others: OpenRLHF concatenates
  ``extra_logs`` per sample, so the count is its sum and the rate its mean);
  ``extra_logs`` also holds ``verdict_passed`` and ``verdict_fraction`` per sample.

A malformed request is ``400`` with ``{"error": {"message", "field"}}`` naming the field
(``labels[3]``, ``query``); a problem the judge refuses is ``400`` naming its ``labels[i]``;
a judge that refuses the server itself (a wrong token) is ``502``.
"""

import argparse
import json
import logging
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from verdict_client._errors import VerdictError
from verdict_client._retry import RetryPolicy
from verdict_client.rewards._core import InvalidProblem, RewardJudge, problem_of, reward_of

log = logging.getLogger("verdict_client.rewards.openrlhf")

__all__ = ["RewardServer", "serve", "main"]

DEFAULT_SUFFIXES = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|end_of_text|>", "</s>",
                    "<｜end▁of▁sentence｜>", "<|end|>")


class BadRequest(Exception):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _strings(body, name, n=None, required=True):
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, list):
        raise BadRequest(name, "a list of strings" if value is not None else "missing")
    if n is not None and len(value) != n:
        raise BadRequest(name, f"{len(value)} items for {n} queries")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise BadRequest(f"{name}[{i}]", f"a string, not {type(item).__name__}")
    return value


def response_of(query, prompt, suffixes):
    """The response inside ``query``: less the prompt it starts with and the trailing
    end-of-sequence markers."""
    if prompt and query.startswith(prompt):
        query = query[len(prompt):]
    changed = True
    while changed:
        changed = False
        stripped = query.rstrip()
        for suffix in suffixes:
            if suffix and stripped.endswith(suffix):
                query = stripped[: -len(suffix)]
                changed = True
                break
    return query


def parse_request(body):
    """(queries, prompts or None, problems) of a ``/get_reward`` body, or BadRequest."""
    if not isinstance(body, dict):
        raise BadRequest("body", "a JSON object with query, prompts and labels")
    queries = _strings(body, "query")
    prompts = _strings(body, "prompts", len(queries), required=False)
    labels = body.get("labels")
    if not isinstance(labels, list):
        raise BadRequest("labels", "a list of problems (JSON text of a dataset problem each)"
                         if labels is not None else "missing: start OpenRLHF with --label_key")
    if len(labels) != len(queries):
        raise BadRequest("labels", f"{len(labels)} items for {len(queries)} queries")
    problems = []
    memo = {}
    for i, label in enumerate(labels):
        key = label if isinstance(label, str) else None
        if key is not None and key in memo:
            problems.append(memo[key])
            continue
        try:
            problem = problem_of(label)
        except (ValueError, TypeError) as e:
            raise BadRequest(f"labels[{i}]", str(e)) from None
        if key is not None:
            memo[key] = problem
        problems.append(problem)
    return queries, prompts, problems


class RewardServer:
    """Turns ``/get_reward`` bodies into rewards with a :class:`RewardJudge`."""

    def __init__(self, judge, suffixes=DEFAULT_SUFFIXES):
        self.judge = judge
        self.suffixes = tuple(suffixes)

    def rewards(self, body):
        queries, prompts, problems = parse_request(body)
        responses = [response_of(q, prompts[i] if prompts else None, self.suffixes)
                     for i, q in enumerate(queries)]
        try:
            results = self.judge.judge(responses, problems)
        except InvalidProblem as e:
            index = e.indices[0] if e.indices else 0
            raise BadRequest(f"labels[{index}]", e.message) from None
        rewards, infra, passed, fraction = [], [], [], []
        for result in results:
            reward = reward_of(result, self.judge.mode)
            rewards.append(0.0 if reward is None else reward)
            infra.append(1.0 if reward is None else 0.0)
            passed.append(1.0 if reward is not None and result.get("passed") else 0.0)
            fraction.append(float(result.get("fraction") or 0.0) if reward is not None else 0.0)
        failed = int(sum(infra))
        if failed:
            log.warning("verdict: %d of %d responses were not judged (infra_error or judge "
                        "unreachable): 0.0 each, counted in extra_logs", failed, len(results))
        return {"rewards": rewards, "scores": list(rewards),
                "extra_logs": {"verdict_infra_error": infra, "verdict_passed": passed,
                               "verdict_fraction": fraction}}


class _Handler(BaseHTTPRequestHandler):
    server_version = "verdict-openrlhf"
    protocol_version = "HTTP/1.1"

    def _answer(self, status, payload):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status, field, message):
        error = {"message": message}
        if field:
            error["field"] = field
        self._answer(status, {"error": error})

    def do_GET(self):
        if self.path.split("?")[0] in ("/health", "/"):
            self._answer(200, {"status": "ok", "judge": self.server.rewards.judge.url,
                               "mode": self.server.rewards.judge.mode})
        else:
            self._error(404, None, f"no route {self.path}: POST /get_reward")

    def do_POST(self):
        if self.path.split("?")[0].rstrip("/") != "/get_reward":
            self._drain()
            self._error(404, None, f"no route {self.path}: POST /get_reward")
            return
        length = self.headers.get("Content-Length")
        try:
            length = int(length)
        except (TypeError, ValueError):
            self.close_connection = True
            self._error(411 if length is None else 400, "Content-Length",
                        "a JSON body with its Content-Length")
            return
        if length < 0 or length > self.server.max_body:
            self.close_connection = True
            self._error(413, "body", f"{length} bytes: over the limit of {self.server.max_body}")
            return
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            self._error(400, "body", f"not JSON: {e}")
            return
        try:
            answer = self.server.rewards.rewards(body)
        except BadRequest as e:
            self._error(400, e.field, e.message)
            return
        except VerdictError as e:
            log.error("verdict judge error: %s", e)
            self._error(502, e.field, f"the judge refused: {e}")
            return
        except Exception as e:  # noqa: BLE001 - answered, and logged with its traceback
            log.exception("reward request failed")
            self._error(500, None, f"{type(e).__name__}: {e}")
            return
        self._answer(200, answer)

    def _drain(self):
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if 0 < length <= self.server.max_body:
            self.rfile.read(length)
        else:
            self.close_connection = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        log.info("%s %s", self.address_string(), format % args)


def serve(judge, host="127.0.0.1", port=5000, *, suffixes=DEFAULT_SUFFIXES,
          max_body_mb=512):
    """A ``ThreadingHTTPServer`` answering ``/get_reward`` with ``judge`` (not yet serving:
    call ``serve_forever()``). ``port=0`` takes a free port (``server.server_address``)."""
    server = ThreadingHTTPServer((host, port), _Handler)
    server.daemon_threads = True
    server.rewards = RewardServer(judge, suffixes)
    server.max_body = int(max_body_mb * 1024 * 1024)
    return server


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m verdict_client.rewards.openrlhf",
        description="OpenRLHF's remote reward model (POST /get_reward), judged by verdict.")
    parser.add_argument("--judge", default=os.environ.get("VERDICT_URL"),
                        help="the judge-server's URL (default: $VERDICT_URL)")
    parser.add_argument("--token", default=None,
                        help="the judge-server's token (default: $VERDICT_TOKEN)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000, help="0: a free port")
    parser.add_argument("--mode", choices=["binary", "fraction"], default="binary")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="each request to the judge, seconds")
    parser.add_argument("--wait", type=float, default=60.0,
                        help="how long a batch's POST waits before its results are streamed")
    parser.add_argument("--max-concurrency", type=int, default=16,
                        help="batches in flight to the judge")
    parser.add_argument("--max-retries", type=int, default=RetryPolicy.max_retries,
                        help="retries of a request the judge could not answer "
                             "(Retry-After honoured)")
    parser.add_argument("--strip-suffix", action="append", default=None, metavar="TEXT",
                        help="an end-of-sequence marker removed from a response's end "
                             "(repeatable; replaces the default list)")
    parser.add_argument("--no-strip", action="store_true",
                        help="keep every response's end as it is")
    parser.add_argument("--max-body-mb", type=float, default=512)
    args = parser.parse_args(argv)
    if not args.judge:
        parser.error("--judge URL (or VERDICT_URL) is required")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    judge = RewardJudge(args.judge, args.token, mode=args.mode, timeout=args.timeout,
                        wait=args.wait, max_concurrency=args.max_concurrency,
                        retry=RetryPolicy(max_retries=max(0, args.max_retries)))
    suffixes = () if args.no_strip else tuple(args.strip_suffix or DEFAULT_SUFFIXES)
    server = serve(judge, args.host, args.port, suffixes=suffixes, max_body_mb=args.max_body_mb)
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}/get_reward (judge {judge.url}, mode {judge.mode})",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
