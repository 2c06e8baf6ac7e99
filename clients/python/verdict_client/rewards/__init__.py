"""Reward functions for RL trainers, judged by a verdict ``judge-server`` (docs/clients.md,
"Reward functions for trainers").

One module per framework, each usable with one import and a URL:

- :mod:`verdict_client.rewards.verl`: verl's ``compute_score`` (and ``compute_score_batch``
  for its ``BatchRewardManager``);
- :mod:`verdict_client.rewards.trl`: TRL ``GRPOTrainer`` reward functions (``code_reward``,
  ``async_code_reward``);
- :mod:`verdict_client.rewards.open_r1`: open-r1's ``code_reward`` and ``binary_code_reward``;
- :mod:`verdict_client.rewards.openrlhf`: OpenRLHF's remote reward model
  (``python -m verdict_client.rewards.openrlhf --judge URL``).

They share :class:`RewardJudge`: completions grouped by problem, one batch per problem,
identical completions sent once, ``None`` (or the framework's stand-in) for a completion the
judge failed on (``infra_error``) instead of a score.
"""

from ._core import InvalidProblem, RewardJudge, completion_text, problem_of, reward_of

__all__ = ["RewardJudge", "InvalidProblem", "completion_text", "problem_of", "reward_of"]
