"""verl custom reward functions judged by verdict.

In verl's config::

    custom_reward_function:          # reward.custom_reward_function in verl 0.9's layout
      path: pkg://verdict_client.rewards.verl   # or this file's path: its imports are absolute
      name: compute_score_batch      # the batch reward manager: one call per step
      reward_kwargs: {url: "http://judge:8080", mode: binary}

``compute_score`` is the per-sample form (the naive and prime reward managers, verl 0.9's reward
loop): one batch of one candidate per call.

``url`` and ``token`` come from ``reward_kwargs`` or from ``VERDICT_URL`` and ``VERDICT_TOKEN``.
``ground_truth`` is verl's code ground truth, ``{"inputs", "outputs", "fn_name"?}`` (a dict or
JSON text; sent as format ``ground-truth``), or a dataset problem ``{"format", "record"}``.
``data_source`` and ``extra_info`` are not read.

verl needs a number for every sample: a completion the judge failed on (``infra_error``, or the
judge unreachable after retries) scores ``0.0`` and a warning is logged. To drop those instead,
call with ``return_dict=True`` (verl keeps each key in ``reward_extra_info``; ``infra_error`` is
1.0 for them) or read the raw results with :func:`judge_results`.
"""

import logging

from verdict_client.rewards._core import (
    completion_text,
    reward_of,
    shared_judge,
    split_options,
)

log = logging.getLogger("verdict_client.rewards.verl")

__all__ = ["compute_score", "compute_score_batch", "judge_results"]


def judge_results(solution_strs, ground_truths, **kwargs):
    """The raw CandidateResult (docs/batches.md) of each solution, or ``None`` when the judge
    could not be reached. ``kwargs``: ``url``, ``token`` and the options of
    :class:`~verdict_client.rewards.RewardJudge`; others are ignored."""
    options, url, token = split_options(kwargs)
    judge = shared_judge(url, token, **options)
    return judge.judge([completion_text(s) for s in solution_strs], list(ground_truths))


def _score(result, mode, return_dict):
    reward = reward_of(result, mode)
    if not return_dict:
        return 0.0 if reward is None else reward
    return {
        "score": 0.0 if reward is None else reward,
        "passed": 1.0 if result and result.get("passed") and not result.get("infra_error") else 0.0,
        "fraction": float((result or {}).get("fraction") or 0.0) if reward is not None else 0.0,
        "infra_error": 1.0 if reward is None else 0.0,
    }


def compute_score_batch(data_sources=None, solution_strs=None, ground_truths=None,
                        extra_infos=None, **kwargs):
    """verl's batched form (``BatchRewardManager``): one score per solution, every problem's
    solutions judged as one batch, all problems at once. ``return_dict=True`` returns
    ``{"score", "passed", "fraction", "infra_error"}`` per solution instead of a float."""
    solution_strs = list(solution_strs if solution_strs is not None else [])
    ground_truths = list(ground_truths if ground_truths is not None else [])
    mode = kwargs.get("mode") or "binary"
    return_dict = bool(kwargs.pop("return_dict", False))
    results = judge_results(solution_strs, ground_truths, **kwargs)
    failed = sum(1 for r in results if reward_of(r, mode) is None)
    if failed:
        log.warning("verdict: %d of %d solutions were not judged (infra_error or judge "
                    "unreachable): scored 0.0 because verl needs a number", failed, len(results))
    return [_score(r, mode, return_dict) for r in results]


def compute_score(data_source=None, solution_str=None, ground_truth=None, extra_info=None,
                  **kwargs):
    """verl's per-sample form: the score of one solution (a float, or with
    ``return_dict=True`` verl's dict form). Called with the batched keyword names
    (``solution_strs=...``), it is :func:`compute_score_batch`."""
    if "solution_strs" in kwargs or "ground_truths" in kwargs:
        return compute_score_batch(**kwargs)
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info],
                               **kwargs)[0]
