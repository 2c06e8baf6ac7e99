"""What every trainer's reward function shares: completions and their problems in, one reward
(or ``None``) per completion out, through ``POST /v1/batches`` dataset problems
(docs/clients.md, "Reward functions for trainers").

A step's completions are grouped by problem (the canonical JSON of the dataset problem), each
group is deduplicated (identical completion text is sent once and its result copied back) and
sent as one batch (at most ``max_batch_candidates`` candidates; more make several), with at most
``max_concurrency`` batches in flight. Each batch is waited for with ``?wait=`` and, when it is
not done by then, its NDJSON results are read until the summary.
"""

import asyncio
import http.client
import json
import logging
import os
import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from .._async import AsyncClient
from .._errors import VerdictError
from .._retry import RetryPolicy
from .._sync import Client

log = logging.getLogger("verdict_client.rewards")

MODES = ("binary", "fraction")

# `candidates[3].code` (the server's field of a 422 that is one candidate's fault).
_CANDIDATE_FIELD = re.compile(r"^candidates\[(\d+)\]")


class InvalidProblem(VerdictError, ValueError):
    """A problem that cannot be judged: the judge refused it (``422`` naming a field that is not
    one candidate's, ``status`` 422), or the value is not a problem at all (``status`` None,
    nothing was sent). The dataset's fault, not a completion's: raised, never scored.
    ``indices`` are the positions (in the call's input) of the completions of that problem."""

    def __init__(self, message, *, indices, field=None, status=422, body=None):
        super().__init__(status, message, field=field, body=body, retryable=False)
        self.indices = list(indices)


# Problems ------------------------------------------------------------------------------------


def _plain(value):
    """``value`` as plain JSON values: numpy arrays and scalars (verl's columns) become lists and
    Python numbers, tuples lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _plain(value.tolist())
    if hasattr(value, "item"):
        return _plain(value.item())
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _loads(value):
    """JSON text parsed (verl and the Hugging Face exports keep records as text); anything
    else as it is."""
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as e:
            raise ValueError(f"not JSON text: {e}") from None
    return value


def problem_of(value, format=None):
    """The dataset problem (``{"kind": "dataset", "format"?, "record"}``, docs/batches.md) of a
    trainer's column value, a JSON object or JSON text of one:

    - a dataset problem object ``{"format"?: ..., "record": ...}`` (``kind`` optional) as it is
      (its own ``format`` wins over ``format``; a ``record`` given as JSON text is parsed);
    - verl's ground truth ``{"inputs": [...], "outputs": [...], "fn_name"?: ...}`` as format
      ``ground-truth``;
    - a ``verification_info`` value (``{"language"?, "test_cases": [...]}``: open-r1,
      PrimeIntellect) as format ``verification-info`` with record
      ``{"verification_info": value}``;
    - any other object is a dataset record, sent with ``format`` (or none: the server tells it
      from the record's fields as ``judge eval`` does).

    Raises ``ValueError`` when the value is not a JSON object (or text of one).
    """
    value = _plain(_loads(value))
    if not isinstance(value, dict):
        raise ValueError(f"a problem is a JSON object, not {type(value).__name__}")
    if "record" in value and set(value) <= {"kind", "format", "record"}:
        kind = value.get("kind", "dataset")
        if kind != "dataset":
            raise ValueError(f"kind {kind!r}: only dataset problems are rewards' problems")
        fmt = value.get("format") or format
        record = _plain(_loads(value["record"]))
        if not isinstance(record, dict):
            raise ValueError(f"record: a JSON object, not {type(record).__name__}")
    else:
        fmt = format
        if fmt is None and "inputs" in value and "outputs" in value:
            fmt = "ground-truth"
        elif fmt is None and "test_cases" in value:
            fmt = "verification-info"
        record = value
        if fmt == "verification-info" and "verification_info" not in value:
            record = {"verification_info": value}
    if fmt is not None and not isinstance(fmt, str):
        raise ValueError(f"format: a string, not {type(fmt).__name__}")
    problem = {"kind": "dataset", "record": record}
    if fmt:
        problem["format"] = fmt
    return problem


def _canonical(problem):
    return json.dumps(problem, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# Completions ---------------------------------------------------------------------------------


def _content_text(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        return "".join(part.get("text") or "" if isinstance(part, dict) else str(part)
                       for part in content)
    return str(content)


def completion_text(completion):
    """The text of a completion: a string as it is; a chat message (``{"role", "content"}``)
    its content; a list of messages (TRL's and open-r1's conversational completions) the
    content of the **last** ``assistant`` message (the last message when none is an
    assistant's). Content given as parts (``[{"type": "text", "text": ...}]``) is joined."""
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return _content_text(completion.get("content"))
    messages = list(completion)
    if not messages:
        return ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return _content_text(message.get("content"))
    last = messages[-1]
    return _content_text(last.get("content")) if isinstance(last, dict) else str(last)


# Results -------------------------------------------------------------------------------------


def reward_of(result, mode="binary"):
    """A CandidateResult's reward: ``None`` when there is none to give (no result: the judge
    could not be reached; ``infra_error``: the judge, not the candidate, failed), else
    ``1.0``/``0.0`` by ``passed`` (``binary``) or the ``fraction`` of tests passed."""
    if result is None or result.get("infra_error"):
        return None
    if mode == "fraction":
        return float(result.get("fraction") or 0.0)
    return 1.0 if result.get("passed") else 0.0


def _unreachable(error):
    """An error after the client's retries that says "the judge is not there now" (no answer,
    or a retryable status): the candidates get no result, not a score."""
    return error.status == 0 or error.retryable


def _refused(error):
    """The result of a candidate the server refused by name (``422`` on ``candidates[i]``): a
    property of the completion, so scored as failed."""
    return {"status": "refused", "passed": False, "fraction": 0.0,
            "refused": {"field": error.field, "message": error.message}}


def _results_by_id(status):
    """A finished batch's results (its status body) by candidate id."""
    return {r["id"]: r for r in status.get("results") or []}


def _collect(results, event):
    """Keeps a batch's ``candidate`` event in ``results`` (by id); True at its ``summary``."""
    if event.get("event") == "candidate":
        results[event["id"]] = event
    return event.get("event") == "summary"


# What reading a batch's result stream may raise besides VerdictError.
_READ_FAILURES = (OSError, http.client.HTTPException, ValueError)


def _ended_early(batch_id):
    """The retryable VerdictError of batch ``batch_id``'s results ending before its summary."""
    return VerdictError(0, f"the results of batch {batch_id} ended before its summary",
                        retryable=True)


def _read_failure(batch_id, error):
    """The retryable VerdictError for ``error`` raised while reading batch ``batch_id``'s
    results; a VerdictError that is not "unreachable" (the server refused) is raised again."""
    if isinstance(error, VerdictError):
        if not _unreachable(error):
            raise error
        return error
    return VerdictError(0, f"reading batch {batch_id}: {error}", retryable=True)


class _Job:
    """One batch: a problem and distinct completion texts, each with the input positions it
    stands for."""

    def __init__(self, problem, indices_of_problem):
        self.problem = problem
        self.indices_of_problem = indices_of_problem
        self.codes = []
        self.positions = []


def _start(job):
    """A job's candidates still to send (all: their positions) and their results (none yet)."""
    return list(range(len(job.codes))), [None] * len(job.codes)


def _plan(codes, problems, max_batch):
    groups = {}
    for i, (code, (key, problem)) in enumerate(zip(codes, problems)):
        group = groups.get(key)
        if group is None:
            group = groups[key] = (problem, {}, [])
        group[1].setdefault(code, []).append(i)
        group[2].append(i)
    jobs = []
    for problem, by_code, indices in groups.values():
        items = list(by_code.items())
        for start in range(0, len(items), max_batch):
            job = _Job(problem, indices)
            for code, positions in items[start:start + max_batch]:
                job.codes.append(code)
                job.positions.append(positions)
            jobs.append(job)
    return jobs


def _env_url(url):
    url = url or os.environ.get("VERDICT_URL")
    if not url:
        raise ValueError("no judge-server URL: pass url= or set VERDICT_URL")
    return url


# The judge -----------------------------------------------------------------------------------


class RewardJudge:
    """Judges completions against dataset problems on a verdict ``judge-server``.

    ``url`` and ``token`` default to ``VERDICT_URL`` and ``VERDICT_TOKEN``. ``mode`` is
    ``"binary"`` (1.0 when every test passed, else 0.0) or ``"fraction"`` (tests passed /
    tests). ``timeout`` is each request's read timeout (seconds), ``wait`` how long a batch's
    ``POST`` waits for its results before they are streamed instead. ``max_concurrency``
    bounds the batches in flight (and the client's requests), ``retry`` is the client's
    :class:`~verdict_client.RetryPolicy`. ``stop_at_first_failure`` defaults to true in binary
    mode (a failed test decides the reward; nothing else changes), ``test_timeout_ms`` and
    ``candidate_timeout_ms`` are the batch options of those names.
    """

    def __init__(self, url=None, token=None, *, mode="binary", timeout=600.0, wait=60.0,
                 max_concurrency=16, retry=None, max_batch_candidates=512,
                 stop_at_first_failure=None, test_timeout_ms=None, candidate_timeout_ms=None):
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: one of {', '.join(MODES)}")
        self.url = _env_url(url)
        self.token = token if token is not None else os.environ.get("VERDICT_TOKEN") or None
        self.mode = mode
        self.timeout = timeout
        if wait is not None and timeout:
            wait = max(0.0, min(wait, timeout - 5.0))
        self.wait = wait
        self.max_concurrency = max(1, int(max_concurrency))
        self.retry = retry or RetryPolicy()
        self.max_batch_candidates = max(1, int(max_batch_candidates))
        self.options = {"stop_at_first_failure": (mode == "binary") if stop_at_first_failure is None
                        else bool(stop_at_first_failure)}
        if test_timeout_ms is not None:
            self.options["test_timeout_ms"] = int(test_timeout_ms)
        if candidate_timeout_ms is not None:
            self.options["candidate_timeout_ms"] = int(candidate_timeout_ms)
        self._client = Client(self.url, self.token, timeout=timeout,
                              max_concurrency=self.max_concurrency, retry=self.retry)
        self._lock = threading.Lock()
        self.batches_sent = 0
        self.candidates_sent = 0

    # Planning (shared by both forms) ---------------------------------------------------------

    def _problems(self, problems):
        """Each problem as (canonical key, dataset problem); a value repeated (the same text, or
        the same object) is normalised once."""
        memo = {}
        out = []
        for i, value in enumerate(problems):
            key = ("text", value) if isinstance(value, str) else ("object", id(value))
            if key not in memo:
                try:
                    problem = problem_of(value)
                except (ValueError, TypeError) as e:
                    raise InvalidProblem(f"problem {i}: {e}", indices=[i], status=None) from None
                memo[key] = (_canonical(problem), problem)
            out.append(memo[key])
        return out

    def _body(self, job, pending):
        return {"problem": job.problem,
                "candidates": [{"id": f"c{p}", "code": job.codes[p]} for p in pending],
                "options": dict(self.options)}

    def _count(self, candidates):
        with self._lock:
            self.batches_sent += 1
            self.candidates_sent += candidates

    def _outcome(self, job, pending, results, error):
        """After a batch's error: True when a candidate the server refused by name was taken
        out (send the rest again), False when the judge is away (the rest get no result);
        raises anything else."""
        if error.status == 422:
            match = _CANDIDATE_FIELD.match(error.field or "")
            if match and int(match.group(1)) < len(pending):
                position = pending.pop(int(match.group(1)))
                results[position] = _refused(error)
                log.warning("verdict refused a completion (%s: %s): scored as failed",
                            error.field, error.message)
                return True
            raise InvalidProblem(f"the judge refused the problem: {error.message}",
                                 indices=job.indices_of_problem, field=error.field,
                                 body=error.body)
        if _unreachable(error):
            log.warning("verdict judge unreachable (%s): %d completions get no reward",
                        error, len(pending))
            return False
        raise error

    def _settle(self, job, pending, results, answer):
        """Takes a batch's ``answer`` (results by id, or its VerdictError) into ``results``:
        True when the batch is to be sent again without a candidate the server refused (see
        :meth:`_outcome`)."""
        if isinstance(answer, VerdictError):
            return self._outcome(job, pending, results, answer)
        self._take(answer, job, pending, results)
        return False

    def _resend(self, error, attempt):
        """True when a batch's POST that got no answer may be sent again: it may have been
        received, and sending it under the same Idempotency-Key is the same batch (judged
        once)."""
        return error.status == 0 and not error.retryable and attempt < self.retry.max_retries

    def _reread_delay(self, error, attempt):
        """The wait before reading a batch's results again after ``error`` (the ``attempt``-th);
        raises ``error`` when the retries are spent."""
        if attempt >= self.retry.max_retries:
            raise error
        return self.retry.delay(error, attempt)

    @staticmethod
    def _done(status):
        return isinstance(status, dict) and (status.get("summary") is not None
                                             or status.get("state") in ("finished", "cancelled"))

    @staticmethod
    def _take(results_by_id, job, pending, results):
        missing = 0
        for p in pending:
            result = results_by_id.get(f"c{p}")
            if result is not None:
                result = {k: v for k, v in result.items() if k != "event"}
            else:
                missing += 1
            results[p] = result
        if missing:
            log.warning("verdict: %d candidates ended without a result (batch cancelled?): "
                        "they get no reward", missing)

    def _spread(self, jobs, per_job, n):
        out = [None] * n
        for job, results in zip(jobs, per_job):
            for positions, result in zip(job.positions, results):
                for i in positions:
                    out[i] = result
        return out

    def _prepare(self, codes, problems):
        codes = [completion_text(c) for c in codes]
        if len(codes) != len(problems):
            raise ValueError(f"{len(codes)} completions but {len(problems)} problems")
        return codes, _plan(codes, self._problems(problems), self.max_batch_candidates)

    # Blocking --------------------------------------------------------------------------------

    def judge(self, completions, problems):
        """The raw CandidateResult (a dict, docs/batches.md) of each completion, or ``None``
        when the judge could not be reached. ``problems[i]`` is completion ``i``'s problem (any
        value :func:`problem_of` takes)."""
        codes, jobs = self._prepare(completions, problems)
        if not jobs:
            return []
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(jobs))) as pool:
            futures = [pool.submit(self._run, job) for job in jobs]
        return self._spread(jobs, [f.result() for f in futures], len(codes))

    def rewards(self, completions, problems):
        """One reward per completion (:func:`reward_of` in this judge's mode): a float, or
        ``None`` for a completion whose judging failed (``infra_error``, judge unreachable)."""
        return [reward_of(r, self.mode) for r in self.judge(completions, problems)]

    def _run(self, job):
        pending, results = _start(job)
        while pending and self._settle(job, pending, results, self._attempt(job, pending)):
            pass
        return results

    def _attempt(self, job, pending):
        """Sends ``pending`` as one batch: its results by id, or the VerdictError it ended in."""
        body = self._body(job, pending)
        self._count(len(pending))
        try:
            return self._batch(body)
        except VerdictError as error:
            return error

    def _sleep(self, error, attempt):
        delay = self.retry.delay(error, attempt)
        time.sleep(delay)

    def _batch_key(self, body):
        """A fresh ``Idempotency-Key`` (the batch's id) for ``body``."""
        return "reward-" + uuid.uuid4().hex

    def _batch(self, body):
        key = self._batch_key(body)
        attempt = 0
        while True:
            try:
                status = self._client.create_batch(body, idempotency_key=key, wait=self.wait)
                break
            except VerdictError as error:
                if self._resend(error, attempt):
                    self._sleep(error, attempt)
                    attempt += 1
                    continue
                raise
        if self._done(status):
            return _results_by_id(status)
        return self._follow(status["id"])

    def _follow(self, batch_id):
        attempt = 0
        while True:
            results = {}
            try:
                for event in self._client.batch_results(batch_id):
                    if _collect(results, event):
                        return results
                error = _ended_early(batch_id)
            except (VerdictError, *_READ_FAILURES) as e:
                error = _read_failure(batch_id, e)
            time.sleep(self._reread_delay(error, attempt))
            attempt += 1

    # Asyncio ---------------------------------------------------------------------------------

    async def ajudge(self, completions, problems):
        """:meth:`judge` as a coroutine (a fresh :class:`~verdict_client.AsyncClient` per call,
        so it runs on whichever event loop calls it)."""
        codes, jobs = self._prepare(completions, problems)
        if not jobs:
            return []
        client = AsyncClient(self.url, self.token, timeout=self.timeout,
                             max_concurrency=self.max_concurrency, retry=self.retry)
        slots = asyncio.Semaphore(self.max_concurrency)

        async def run(job):
            async with slots:
                return await self._arun(client, job)

        per_job = await asyncio.gather(*(run(job) for job in jobs))
        return self._spread(jobs, per_job, len(codes))

    async def arewards(self, completions, problems):
        """:meth:`rewards` as a coroutine."""
        return [reward_of(r, self.mode) for r in await self.ajudge(completions, problems)]

    async def _arun(self, client, job):
        pending, results = _start(job)
        while pending and self._settle(job, pending, results,
                                       await self._aattempt(client, job, pending)):
            pass
        return results

    async def _aattempt(self, client, job, pending):
        """:meth:`_attempt` as a coroutine."""
        body = self._body(job, pending)
        self._count(len(pending))
        try:
            return await self._abatch(client, body)
        except VerdictError as error:
            return error

    async def _abatch(self, client, body):
        key = self._batch_key(body)
        attempt = 0
        while True:
            try:
                status = await client.create_batch(body, idempotency_key=key, wait=self.wait)
                break
            except VerdictError as error:
                if self._resend(error, attempt):
                    await asyncio.sleep(self.retry.delay(error, attempt))
                    attempt += 1
                    continue
                raise
        if self._done(status):
            return _results_by_id(status)
        return await self._afollow(client, status["id"])

    async def _afollow(self, client, batch_id):
        attempt = 0
        while True:
            results = {}
            try:
                async for event in client.batch_results(batch_id):
                    if _collect(results, event):
                        return results
                error = _ended_early(batch_id)
            except (VerdictError, *_READ_FAILURES) as e:
                error = _read_failure(batch_id, e)
            await asyncio.sleep(self._reread_delay(error, attempt))
            attempt += 1


# Shared judges for module-level functions (verl, open-r1) ------------------------------------

_shared = {}
_shared_lock = threading.Lock()

# The keyword arguments RewardJudge takes beyond url and token.
JUDGE_OPTIONS = ("mode", "timeout", "wait", "max_concurrency", "retry", "max_batch_candidates",
                 "stop_at_first_failure", "test_timeout_ms", "candidate_timeout_ms")


def shared_judge(url=None, token=None, **options):
    """One :class:`RewardJudge` per (url, token, options) for the process: module-level reward
    functions are called once per sample or step, and share its client."""
    url = _env_url(url)
    token = token if token is not None else os.environ.get("VERDICT_TOKEN") or None
    key = (url, token, tuple(sorted((k, repr(v)) for k, v in options.items())))
    with _shared_lock:
        judge = _shared.get(key)
        if judge is None:
            judge = _shared[key] = RewardJudge(url, token, **options)
        return judge


def split_options(kwargs):
    """(RewardJudge options, ``url``, ``token``) of a reward function's keyword arguments. A
    list is a dataset column TRL passed under that name, never an option: it is ignored."""

    def option(name):
        value = kwargs.get(name)
        return None if isinstance(value, (list, tuple)) else value

    options = {k: option(k) for k in JUDGE_OPTIONS if option(k) is not None}
    return options, option("url"), option("token")
