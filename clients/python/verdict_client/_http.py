"""One HTTP exchange over the standard library, its errors made VerdictErrors."""

import json
import socket
import urllib.error
import urllib.request

from ._errors import VerdictError
from ._retry import RETRY_STATUSES, retry_after_seconds


def _decode(raw):
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError):
        return None


def error_of(status, body, retry_after):
    """The VerdictError of an error answer; ``retryable`` from the body when it says, else from
    the status."""
    message = ""
    field = None
    retryable = status in RETRY_STATUSES
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            message = error.get("message") or error.get("code") or ""
            field = error.get("field")
            if isinstance(error.get("retryable"), bool):
                retryable = error["retryable"]
        elif isinstance(error, str):
            message = error
        if isinstance(body.get("retryable"), bool):
            retryable = body["retryable"]
    return VerdictError(status, message or f"HTTP {status}", field=field, body=body,
                        retryable=retryable, retry_after=retry_after)


def open_request(base_url, token, method, path, body, timeout, headers=None):
    """Sends the request and returns the open response (status < 400), else raises VerdictError.
    A connection refused is retryable (nothing was sent); other transport errors are retryable
    only for GET (a POST may have been received)."""
    data = None
    all_headers = {"Accept": "application/json"}
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        all_headers["Content-Type"] = "application/json"
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    all_headers.update(headers or {})
    request = urllib.request.Request(base_url.rstrip("/") + path, data=data, method=method,
                                     headers=all_headers)
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as e:
        raw = e.read()
        raise error_of(e.code, _decode(raw), retry_after_seconds(e.headers.get("Retry-After"))) from None
    except urllib.error.URLError as e:
        refused = isinstance(e.reason, ConnectionRefusedError)
        raise VerdictError(0, f"{method} {path}: {e.reason}", retryable=refused or method == "GET") from None
    except (ConnectionError, socket.timeout, TimeoutError) as e:
        raise VerdictError(0, f"{method} {path}: {e}", retryable=method == "GET") from None


def read_json(response):
    """The response's JSON body (None when empty)."""
    with response:
        return _decode(response.read())
