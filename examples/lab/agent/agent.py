#!/usr/bin/env python3
"""A small example agent for verdict's `command` runner.

Protocol: the task (an AtomicTask, input_map values already injected) arrives as JSON on
stdin; the output is one JSON value on stdout; each stderr line that is a JSON object becomes a
trace event, and an event named "usage" reports tokens and cost.

It handles the seed's capability types with rules instead of a model:
- intent:   input is a sentence -> {"intent", "confidence"}
- dialogue: input {"intent", "message"} -> {"reply", "conversation", "state"}
- memory:   input {"conversation"} -> {"stored", "memory"}
- echo:     returns its input (handy for input_map tests)

Test hooks: a string input (anywhere) equal to "__fail__" makes it exit 2 with a message on
stderr, "__sleep__" makes it sleep 30 s, "__garbage__" makes it print text that is not JSON.
"""

import json
import sys
import time


def trace(event, level="debug", **data):
    print(json.dumps({"event": event, "level": level, "data": data}, ensure_ascii=False),
          file=sys.stderr, flush=True)


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def intent(text):
    if not isinstance(text, str):
        raise ValueError("intent: input must be a sentence")
    trace("llm_call", model="rules-v1", prompt=text)
    if "机票" in text or "flight" in text.lower():
        return {"intent": "book_flight", "confidence": 0.95}
    if "酒店" in text or "hotel" in text.lower():
        return {"intent": "book_hotel", "confidence": 0.9}
    return {"intent": "unknown", "confidence": 0.2}


def dialogue(data):
    if not isinstance(data, dict) or not data.get("intent"):
        raise ValueError("dialogue: input.intent is missing (was it injected?)")
    message = data.get("message") or ""
    conversation = [
        {"role": "user", "intent": data["intent"]},
        {"role": "assistant", "text": message},
    ]
    trace("policy", level="info", intent=data["intent"])
    return {"reply": message, "conversation": conversation, "state": "awaiting_destination"}


def memory(data):
    conversation = data.get("conversation") if isinstance(data, dict) else None
    if not isinstance(conversation, list):
        raise ValueError("memory: input.conversation must be a list (was it injected?)")
    intents = [turn["intent"] for turn in conversation if "intent" in turn]
    return {"stored": len(conversation), "memory": {"intents": intents}}


HANDLERS = {
    "intent": intent,
    "dialogue": dialogue,
    "memory": memory,
    "echo": lambda data: data,
}


def main():
    task = json.load(sys.stdin)
    trace("received", taskId=task.get("id"), type=task.get("type"), fields=sorted(task))
    found = set(strings(task.get("input")))
    if "__fail__" in found:
        print("agent: asked to fail", file=sys.stderr)
        sys.exit(2)
    if "__sleep__" in found:
        time.sleep(30)
    if "__garbage__" in found:
        print("this is not JSON")
        return
    handler = HANDLERS.get(task.get("type"))
    if handler is None:
        print(f"agent: no handler for type {task.get('type')!r}", file=sys.stderr)
        sys.exit(3)
    try:
        output = handler(task.get("input"))
    except ValueError as e:
        print(f"agent: {e}", file=sys.stderr)
        sys.exit(1)
    text = json.dumps(task.get("input"), ensure_ascii=False)
    trace("usage", tokens=len(text) + len(json.dumps(output)), cost=0.0001)
    json.dump(output, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
