"""A client for verdict's judge-server (docs/clients.md).

>>> from verdict_client import Client
>>> client = Client("http://127.0.0.1:8080", token="secret")     # doctest: +SKIP
>>> client.judge(submission)["status"]                           # doctest: +SKIP
"""

from ._errors import VerdictError
from ._retry import RetryPolicy
from ._sync import Client, needs_retry
from ._async import AsyncClient

__all__ = ["Client", "AsyncClient", "RetryPolicy", "VerdictError", "needs_retry"]
