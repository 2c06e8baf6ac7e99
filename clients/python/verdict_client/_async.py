"""The asyncio client: the blocking transport run off the event loop, its concurrency bounded
by an ``asyncio.Semaphore``."""

import asyncio

from ._errors import VerdictError
from ._http import open_request, read_json
from ._streams import ndjson_records, sse_events
from ._sync import ClientSettings, batch_path, query, submission_path, wait_ms


class AsyncClient(ClientSettings):
    """The endpoints of :class:`verdict_client.Client`, as coroutines. At most
    ``max_concurrency`` requests are in flight; waits between retries (``Retry-After``
    honoured) hold no slot."""

    async def _open(self, method, path, body=None, headers=None):
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_concurrency)
        attempt = 0
        while True:
            async with self._slots:
                try:
                    return await asyncio.to_thread(open_request, self.base_url, self.token, method,
                                                   path, body, self.timeout, headers)
                except VerdictError as error:
                    delay = self._retry_delay(error, attempt)
                    last = error
            self._waiting(last, delay)
            await asyncio.sleep(delay)
            attempt += 1

    async def request(self, method, path, body=None, headers=None):
        """Sends one request (with retries) and returns its decoded JSON body."""
        response = await self._open(method, path, body, headers)
        return await asyncio.to_thread(read_json, response)

    async def _stream(self, path, reader, accept):
        response = await self._open("GET", path, headers={"Accept": accept})
        items = reader(response)
        done = object()
        while True:
            item = await asyncio.to_thread(next, items, done)
            if item is done:
                return
            yield item

    async def health(self):
        """``GET /v1/health``."""
        return await self.request("GET", "/v1/health")

    async def languages(self):
        """``GET /v1/languages``."""
        return await self.request("GET", "/v1/languages")

    async def judge(self, submission):
        """``POST /v1/judge``: judges a Submission and returns its JudgeReport."""
        return await self.request("POST", "/v1/judge", submission)

    async def submit(self, submission):
        """``POST /v1/submissions``."""
        return await self.request("POST", "/v1/submissions", submission)

    async def submission(self, sub_id, category=None):
        """``GET /v1/submissions/{sub_id}``."""
        return await self.request("GET", submission_path(sub_id, category))

    def events(self, sub_id, category=None):
        """``GET /v1/submissions/{sub_id}/events``: an async iterator of ``(event, data)``."""
        return self._stream(submission_path(sub_id, category, "/events"), sse_events,
                            "text/event-stream")

    async def cancel_submission(self, sub_id, category=None):
        """``DELETE /v1/submissions/{sub_id}``: cancels a queued or running submission."""
        return await self.request("DELETE", submission_path(sub_id, category))

    async def oracle(self, suite):
        """``POST /v1/oracle``: judges a Task Oracle suite and returns its OracleReport."""
        return await self.request("POST", "/v1/oracle", suite)

    async def create_batch(self, batch, *, idempotency_key=None, wait=None):
        """``POST /v1/batches``."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return await self.request("POST", "/v1/batches" + query(wait=wait_ms(wait)), batch, headers)

    async def batch(self, batch_id):
        """``GET /v1/batches/{id}``."""
        return await self.request("GET", batch_path(batch_id))

    def batch_results(self, batch_id):
        """``GET /v1/batches/{id}/events``: an async iterator of BatchEvents (candidates as
        they finish, then the summary)."""
        return self._stream(batch_path(batch_id, "/events"), ndjson_records,
                            "application/x-ndjson")

    async def cancel_batch(self, batch_id):
        """``DELETE /v1/batches/{id}``."""
        return await self.request("DELETE", batch_path(batch_id))
