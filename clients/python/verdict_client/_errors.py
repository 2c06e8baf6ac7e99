"""The one exception the client raises."""


class VerdictError(Exception):
    """A request the server refused or could not answer.

    ``status`` is the HTTP status (0 when no answer came), ``field`` the field the server named,
    ``body`` the decoded JSON body, ``retryable`` whether sending it again may succeed.
    """

    def __init__(self, status, message, *, field=None, body=None, retryable=False, retry_after=None):
        super().__init__(f"{status}: {message}" if status else message)
        self.status = status
        self.message = message
        self.field = field
        self.body = body
        self.retryable = retryable
        self.retry_after = retry_after
