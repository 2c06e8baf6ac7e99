"""TRL ``GRPOTrainer`` reward functions judged by verdict.

::

    from trl import GRPOTrainer
    from verdict_client.rewards.trl import code_reward

    reward = code_reward("http://judge:8080", token="...", mode="binary",
                         problem_column="verification_info")
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], train_dataset=dataset, ...)

TRL calls a reward function as ``reward(prompts=..., completions=..., completion_ids=...,
**columns)``: every other dataset column is a keyword argument holding one value per completion.
The problem of completion ``i`` is ``columns[problem_column][i]`` (any value
:func:`verdict_client.rewards.problem_of` takes: a dataset problem ``{"format", "record"}``, a
``verification_info`` value, verl's ``{"inputs", "outputs"}`` ground truth, or a dataset record;
``problem_format`` names the format when the column does not). With ``problem_column=None`` the
row's own columns are the record (a dataset loaded as published, e.g. HumanEval; a text
``prompt`` is put back as the record's ``prompt``).

Completions are strings or lists of chat messages (the last ``assistant`` message is the
completion). A completion the judge failed on (``infra_error``, or the judge unreachable after
retries) gets ``None``: TRL leaves it out (NaN) instead of scoring it.
"""

from verdict_client.rewards._core import RewardJudge, problem_of, reward_of

__all__ = ["code_reward", "async_code_reward"]

# Keyword arguments TRL passes that are not dataset columns.
_NOT_COLUMNS = frozenset({"completion_ids", "trainer_state", "log_extra", "log_metric",
                          "environments", "prompts", "completions"})


def _problems(problem_column, prompts, completions, columns):
    n = len(completions)
    if problem_column is not None:
        if problem_column not in columns:
            raise KeyError(f"no column {problem_column!r} among the reward function's keyword "
                           f"arguments ({', '.join(sorted(columns)) or 'none'})")
        values = list(columns[problem_column])
        if len(values) != n:
            raise ValueError(f"column {problem_column!r} has {len(values)} values for "
                             f"{n} completions")
        return values
    rows = []
    table = {k: list(v) for k, v in columns.items()
             if k not in _NOT_COLUMNS and isinstance(v, (list, tuple)) and len(v) == n}
    for i in range(n):
        row = {k: v[i] for k, v in table.items()}
        if prompts is not None and isinstance(prompts[i], str):
            row.setdefault("prompt", prompts[i])
        rows.append(row)
    return rows


def _factory(url, token, mode, problem_column, problem_format, name, options, is_async):
    judge = RewardJudge(url, token, mode=mode, **options)

    def wrap(value):
        return value if problem_format is None else problem_of(value, problem_format)

    def problems_of(prompts, completions, columns):
        return [wrap(v) for v in _problems(problem_column, prompts, completions, columns)]

    if is_async:
        async def reward(prompts=None, completions=None, **columns):
            completions = list(completions or [])
            results = await judge.ajudge(completions, problems_of(prompts, completions, columns))
            reward.last_results = results
            return [reward_of(r, judge.mode) for r in results]
    else:
        def reward(prompts=None, completions=None, **columns):
            completions = list(completions or [])
            results = judge.judge(completions, problems_of(prompts, completions, columns))
            reward.last_results = results
            return [reward_of(r, judge.mode) for r in results]

    reward.__name__ = reward.__qualname__ = name or f"verdict_{mode}_reward"
    reward.__doc__ = (f"verdict {mode} code reward over column {problem_column!r} "
                      f"(judge {judge.url})")
    reward.judge = judge
    reward.last_results = []
    return reward


def code_reward(url=None, token=None, mode="binary", problem_column="verification_info", *,
                problem_format=None, name=None, **options):
    """A TRL reward function ``reward(prompts, completions, **columns) -> list[float | None]``.

    ``url``/``token`` default to ``VERDICT_URL``/``VERDICT_TOKEN``; ``mode`` is ``binary`` or
    ``fraction``; ``name`` is the function's ``__name__`` (TRL logs each reward under it;
    default ``verdict_<mode>_reward``). ``options`` are :class:`RewardJudge`'s (``timeout``,
    ``wait``, ``max_concurrency``, ``retry``, ``stop_at_first_failure``, ``test_timeout_ms``,
    ``candidate_timeout_ms``, ``max_batch_candidates``). The function's ``last_results`` holds
    the raw CandidateResults of its last call, ``judge`` its :class:`RewardJudge`."""
    return _factory(url, token, mode, problem_column, problem_format, name, options, False)


def async_code_reward(url=None, token=None, mode="binary", problem_column="verification_info",
                      *, problem_format=None, name=None, **options):
    """:func:`code_reward` as an ``async def`` function (TRL runs async reward functions
    concurrently with the others)."""
    return _factory(url, token, mode, problem_column, problem_format, name, options, True)
