"""The blocking client."""

import threading
import time
import urllib.parse

from ._errors import VerdictError
from ._http import open_request, read_json
from ._retry import RetryPolicy
from ._streams import ndjson_records, sse_events


def query(**params):
    """``?k=v&...`` of the parameters that are not None ("" when none is)."""
    pairs = [(k, v) for k, v in params.items() if v is not None]
    return ("?" + urllib.parse.urlencode(pairs)) if pairs else ""


def wait_ms(seconds):
    """``?wait=`` in milliseconds (the server's unit) from seconds, or None."""
    return None if seconds is None else max(0, int(seconds * 1000))


def submission_path(sub_id, category=None, tail=""):
    """``/v1/submissions/{sub_id}{tail}[?category=]``."""
    return "/v1/submissions/" + urllib.parse.quote(sub_id, safe="") + tail + query(category=category)


def batch_path(batch_id, tail=""):
    """``/v1/batches/{id}{tail}``."""
    return "/v1/batches/" + urllib.parse.quote(batch_id, safe="") + tail


class ClientSettings:
    """What both clients keep: the server's URL, the token, the per-request timeout, the retry
    policy with its ``on_retry`` callback, and the bound on requests in flight."""

    def __init__(self, base_url, token=None, *, timeout=600.0, max_concurrency=16,
                 retry=None, on_retry=None):
        self.base_url = base_url
        self.token = token
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self.max_concurrency = max(1, max_concurrency)
        self._slots = self._new_slots()

    def _new_slots(self):
        """The semaphore that bounds requests in flight (None: made when first needed)."""
        return None

    def _retry_delay(self, error, attempt):
        """The wait before retrying a request after ``error`` (its ``attempt``-th failure);
        raises ``error`` when the policy retries it no more."""
        if not self.retry.should_retry(error, attempt):
            raise error
        return self.retry.delay(error, attempt)

    def _waiting(self, error, delay):
        """Tells ``on_retry`` (if any) that the request waits ``delay`` after ``error``."""
        if self.on_retry:
            self.on_retry(error, delay)


class Client(ClientSettings):
    """A judge-server client for threads.

    Every request holds one of ``max_concurrency`` slots (shared by every thread using this
    client), is retried by ``retry`` (``Retry-After`` honoured) and raises
    :class:`verdict_client.VerdictError` when the server refuses it. ``on_retry(error, delay)``
    is called before each wait.
    """

    # Transport -----------------------------------------------------------------------------

    def _new_slots(self):
        return threading.BoundedSemaphore(self.max_concurrency)

    def _open(self, method, path, body=None, headers=None):
        attempt = 0
        while True:
            with self._slots:
                try:
                    return open_request(self.base_url, self.token, method, path, body,
                                        self.timeout, headers)
                except VerdictError as error:
                    delay = self._retry_delay(error, attempt)
                    last = error
            self._waiting(last, delay)
            time.sleep(delay)
            attempt += 1

    def request(self, method, path, body=None, headers=None):
        """Sends one request (with retries) and returns its decoded JSON body."""
        return read_json(self._open(method, path, body, headers))

    # Endpoints -----------------------------------------------------------------------------

    def health(self):
        """``GET /v1/health``."""
        return self.request("GET", "/v1/health")

    def languages(self):
        """``GET /v1/languages``: every language, ready or missing."""
        return self.request("GET", "/v1/languages")

    def judge(self, submission):
        """``POST /v1/judge``: judges a Submission and returns its JudgeReport."""
        return self.request("POST", "/v1/judge", submission)

    def submit(self, submission):
        """``POST /v1/submissions``: queues a Submission; returns ``{sub_id, status_url, events_url}``."""
        return self.request("POST", "/v1/submissions", submission)

    def submission(self, sub_id, category=None):
        """``GET /v1/submissions/{sub_id}``: where it is, and its report once finished."""
        return self.request("GET", submission_path(sub_id, category))

    def events(self, sub_id, category=None):
        """``GET /v1/submissions/{sub_id}/events``: yields ``(event, data)`` as each task finishes
        (``task``), then the ``report``."""
        path = submission_path(sub_id, category, "/events")
        return sse_events(self._open("GET", path, headers={"Accept": "text/event-stream"}))

    def cancel_submission(self, sub_id, category=None):
        """``DELETE /v1/submissions/{sub_id}``: cancels a queued or running submission (no task
        of it starts, the boxes running are killed) and returns its report, final once the
        server says so; a finished one is returned as it is."""
        return self.request("DELETE", submission_path(sub_id, category))

    def oracle(self, suite):
        """``POST /v1/oracle``: judges a Task Oracle suite and returns its OracleReport."""
        return self.request("POST", "/v1/oracle", suite)

    # Batches (POST /v1/batches, docs/batches.md) -------------------------------------------

    def create_batch(self, batch, *, idempotency_key=None, wait=None):
        """``POST /v1/batches``: queues a batch (one problem, many candidates). With ``wait``
        (seconds) the server answers with the results when they are ready in time."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return self.request("POST", "/v1/batches" + query(wait=wait_ms(wait)), batch, headers)

    def batch(self, batch_id):
        """``GET /v1/batches/{id}``: a snapshot of the batch and the results so far."""
        return self.request("GET", batch_path(batch_id))

    def batch_results(self, batch_id):
        """``GET /v1/batches/{id}/events``: yields each BatchEvent as it finishes
        (``{"event": "candidate", ...result}``), then ``{"event": "summary", ...}``."""
        path = batch_path(batch_id, "/events")
        return ndjson_records(self._open("GET", path, headers={"Accept": "application/x-ndjson"}))

    def cancel_batch(self, batch_id):
        """``DELETE /v1/batches/{id}``: cancels what has not run yet."""
        return self.request("DELETE", batch_path(batch_id))

    def map(self, method, items):
        """Calls ``method`` (e.g. ``client.oracle``) on every item from as many threads as the
        concurrency limit allows; results in the items' order, the first error raised."""
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            return list(pool.map(method, items))


def needs_retry(result):
    """Whether a batch or dataset result failed because of the judge and may succeed again
    (``infra_error.retryable``): a trainer resubmits these and never scores them."""
    infra = result.get("infra_error") if isinstance(result, dict) else None
    if infra is None and isinstance(result, dict) and isinstance(result.get("verdict"), dict):
        infra = result["verdict"].get("infra_error")
    return bool(infra and infra.get("retryable"))
