"""open-r1's code rewards (``src/open_r1/rewards.py``) judged by verdict instead of E2B, Morph or
a local router: the same names, calling convention and scores.

::

    from verdict_client.rewards.open_r1 import code_reward, binary_code_reward
    # in open-r1's REWARD_FUNCS_REGISTRY, or straight into TRL's GRPOTrainer(reward_funcs=[...])

- ``code_reward(completions, **kwargs)``: the fraction of the ``verification_info`` tests that
  pass (open-r1's ``code_reward``).
- ``binary_code_reward(completions, **kwargs)``: 1.0 when that fraction is above 0.99 (open-r1's
  ``BINARY_THRESHOLD``), else 0.0.

``completions`` are TRL's conversational completions (lists of chat messages; the last
``assistant`` message is read, which is open-r1's ``completion[-1]["content"]`` for TRL's
one-message completions) or strings; ``kwargs["verification_info"]`` holds one
``{"language": "python", "test_cases": [...]}`` per completion (a dict or JSON text), sent as
format ``verification-info``. ``url=``/``token=`` (e.g. through ``functools.partial``) or
``VERDICT_URL``/``VERDICT_TOKEN`` name the judge. open-r1's ``num_parallel``,
``provider_type``, ``enforce_same_language``, ``e2b_router_url``, ``morph_router_url`` and
``code_language`` are accepted and ignored: the judge's own concurrency and admission control
decide, and each problem's ``language`` is read from its record.

Code extraction: open-r1 runs the last ```` ```python ```` block of the completion
(``extract_code``). The server's rule (the last fenced block tagged ``python``/``py``/
``python3``, any case, read as CommonMark reads fences) picks the same block whenever there is
one; where there is none, the server falls back to the last untagged block, else the last
block, else the whole text, where open-r1 runs an empty program. ``strict_extraction=True``
reproduces open-r1 exactly: its regular expression picks the code on the client (sent in a
fence of its own), and a completion without a ```` ```python ```` block scores 0.0 without
being sent.

A completion the judge failed on (``infra_error``, or the judge unreachable) gets ``None``,
which TRL leaves out, where open-r1 scores 0.0 for an executor error. verdict runs Python only:
a record whose ``language`` is another (``cpp``) is refused, raising
:class:`~verdict_client.rewards.InvalidProblem`; filter such rows out of the dataset.
"""

import re

from verdict_client.rewards._core import (
    completion_text,
    reward_of,
    shared_judge,
    split_options,
)

__all__ = ["code_reward", "binary_code_reward", "extract_code", "BINARY_THRESHOLD"]

BINARY_THRESHOLD = 0.99

_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)

# open-r1's keyword arguments that choose its executors: verdict is the executor.
_IGNORED = ("num_parallel", "provider_type", "enforce_same_language", "e2b_router_url",
            "morph_router_url", "code_language")


def extract_code(completion, language="python"):
    """open-r1's ``extract_code``: the last ```` ```python ```` block's code, or ``""``."""
    pattern = _PYTHON_BLOCK if language == "python" else re.compile(
        rf"```{re.escape(language)}\n(.*?)```", re.DOTALL)
    matches = pattern.findall(completion)
    return matches[-1] if matches else ""


def _fractions(completions, kwargs):
    kwargs = {k: v for k, v in kwargs.items() if k not in _IGNORED}
    strict = bool(kwargs.pop("strict_extraction", False))
    if "verification_info" not in kwargs:
        raise KeyError("open-r1's code rewards read the verification_info column: "
                       "no verification_info keyword argument")
    infos = list(kwargs.pop("verification_info"))
    texts = [completion_text(c) for c in completions]
    if len(infos) != len(texts):
        raise ValueError(f"{len(infos)} verification_info values for {len(texts)} completions")
    options, url, token = split_options(kwargs)
    options["mode"] = "fraction"
    # Every test runs (a binary reward is a threshold on the fraction, not the first failure).
    options["stop_at_first_failure"] = False
    judge = shared_judge(url, token, **options)
    problems = [{"format": "verification-info", "record": {"verification_info": info}}
                for info in infos]
    out = [0.0] * len(texts)
    send = []
    for i, text in enumerate(texts):
        if strict:
            code = extract_code(text)
            if not code:
                continue  # open-r1 runs an empty program: no test passes
            # In a fence of its own, so that the server's extraction takes exactly this code.
            text = "```python\n" + code + "\n```\n"
        send.append((i, text))
    results = judge.judge([t for _, t in send], [problems[i] for i, _ in send])
    for (i, _), result in zip(send, results):
        out[i] = reward_of(result, "fraction")
    return out


def code_reward(completions, **kwargs):
    """The fraction of each completion's ``verification_info`` tests that pass (``None``: not
    judged)."""
    return _fractions(completions, kwargs)


def binary_code_reward(completions, **kwargs):
    """1.0 when the fraction of tests passed is above :data:`BINARY_THRESHOLD` (0.99), else
    0.0 (``None``: not judged)."""
    return [None if f is None else (1.0 if f > BINARY_THRESHOLD else 0.0)
            for f in _fractions(completions, kwargs)]
