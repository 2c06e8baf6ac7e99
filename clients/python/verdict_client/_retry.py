"""When and how long to wait before sending a request again."""

import random
from dataclasses import dataclass

# Answers that say "not now": the queue is full (429), the server is starting, stopping or lost
# its broker (503), a proxy in front of it did (502, 504).
RETRY_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    """Retries: at most ``max_retries`` more attempts; the server's ``Retry-After`` when it sends
    one, else exponential backoff from ``backoff`` seconds up to ``max_backoff``, with jitter.
    A body saying ``"retryable": false`` is never retried; ``"retryable": true`` always is."""

    max_retries: int = 5
    backoff: float = 0.25
    max_backoff: float = 30.0
    max_retry_after: float = 120.0

    def should_retry(self, error, attempt):
        """Whether ``error`` (a VerdictError) after ``attempt`` retries deserves another."""
        return attempt < self.max_retries and error.retryable

    def delay(self, error, attempt):
        """Seconds to wait before retry number ``attempt + 1``."""
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self.max_retry_after)
        base = min(self.backoff * (2 ** attempt), self.max_backoff)
        return base * (0.5 + random.random() / 2)


def retry_after_seconds(value):
    """``Retry-After`` in seconds (delta-seconds form; an HTTP date is not used by verdict)."""
    if value is None:
        return None
    try:
        return max(float(value.strip()), 0.0)
    except ValueError:
        return None
