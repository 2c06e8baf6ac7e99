"""Reading streamed answers: Server-Sent Events and NDJSON, one record at a time."""

import json


def sse_events(response):
    """Yields ``(event, data)`` for each Server-Sent Event; ``data`` decoded as JSON."""
    with response:
        event, data = "message", []
        for raw in response:
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line:
                if data:
                    yield event, json.loads("\n".join(data))
                event, data = "message", []
            elif line.startswith(":"):
                continue
            else:
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "event":
                    event = value
                elif name == "data":
                    data.append(value)
        if data:
            yield event, json.loads("\n".join(data))


def ndjson_records(response):
    """Yields each JSON line of an NDJSON answer, as each line arrives."""
    with response:
        for raw in response:
            line = raw.strip()
            if line:
                yield json.loads(line)
