"""Bounds of a run's options: what ``leaderboard retrain`` runs and ``evaluate --agent run`` rebuilds.

Why one place: a submission or a run folder is someone else's file, and its options size what is
built (``policy_kwargs: {"hidden": 10**9}`` asked for a 1.3 TB layer). ``leaderboard retrain``
refuses options past these bounds before training; ``evaluate --agent run``
(:mod:`searchgym.harness.run_agent`) refuses a run's ``policy_kwargs`` past them before its policy
is built. (Moved here from :mod:`searchgym.leaderboard_retrain`, which a harness module may not import.)
"""

from __future__ import annotations

from typing import Any

#: Size-like option names (the last part of a dotted name, at any depth) and their largest value.
OPTION_LIMITS: dict[str, int] = {
    "group_size": 64, "tasks_per_iteration": 64, "update_epochs": 16, "value_epochs": 16, "critic_epochs": 16,
    "minibatch_size": 100_000, "mini_batch_size": 4096, "micro_batch_size": 256, "batch_size": 1024,
    "eval_tasks": 1000, "rollout_workers": 4, "episodes": 64, "concurrency": 64,
    "hidden": 4096, "critic_hidden": 4096, "dim": 4096, "n_buckets": 2**16, "cache_size": 1_000_000,
    "observation_cache_size": 100_000, "max_length": 4096, "max_turns": 64, "max_new_tokens": 4096,
    "max_episode_tokens": 32_768, "norm_length": 100_000, "max_steps": 1000, "max_rounds": 1000,
    "max_candidates": 1024, "team_size": 32,
    # the supervised base (SFTConfig): defaults 1000 tasks (past a split's size: the split), 16 epochs,
    # batches of 64, 0 DAgger rounds of 100 tasks; the docs' runs use up to 24 epochs and 2 rounds of 300.
    # Its total work is bounded too (leaderboard_retrain.MAX_BASE_EPISODES, MAX_BASE_FIT).
    "sft_tasks": 100_000, "sft_epochs": 100, "sft_batch_size": 4096, "sft_dagger_rounds": 20,
    "sft_dagger_tasks": 10_000,
}
#: Option names whose smallest value is 1 (every other limited option may be 0); a layer of 0 hidden units
#: (hidden=0) gave constant logits: a policy that never changed and scored as random did. The policy's
#: sizes are said as make_policy refuses them (``dim: 0`` was "an int in 0..4096" here, ">= 1" there): all of
#: make_policy's ``SIZE_KWARGS``. ``cache_size`` and ``batch_size`` are read as a run's options only there,
#: in ``policy_kwargs`` (an encoder's caches and chunks: a cache of 0 entries failed at its first text); the
#: search tool's cache_size, where 0 is no cache, is set by no option. The trainers' batch sizes (null: the
#: whole batch) are at least 1 too, as TrainConfig and LLMTrainConfig refuse 0; so are an LLM run's turn and
#: token caps (RolloutConfig) and an env's step and round limits (envs.config.BOUNDS).
POSITIVE_OPTIONS = ("group_size", "tasks_per_iteration", "eval_every", "update_epochs", "eval_tasks", "hidden",
                    "critic_hidden", "sft_tasks", "sft_epochs", "sft_batch_size", "dim", "n_buckets", "max_length",
                    "heads", "cache_size", "batch_size", "minibatch_size", "mini_batch_size", "micro_batch_size",
                    "max_turns", "max_new_tokens", "max_episode_tokens", "max_steps", "max_rounds")
#: Any other number in the options (learning rates, coefficients, intervals) is at most this large.
MAX_OPTION_NUMBER = 1_000_000


def _option_leaves(options: dict[str, Any], where: str = "run.options") -> list[tuple[str, str, Any]]:
    """(dotted path, last name, value) of every value in ``options`` that is not a dict or a list."""
    found, pending = [], [(f"{where}.{k}", str(k), v) for k, v in options.items()]
    while pending:
        path, name, value = pending.pop()
        if isinstance(value, dict):
            pending.extend((f"{path}.{k}", str(k), v) for k, v in value.items())
        elif isinstance(value, list | tuple):
            pending.extend((f"{path}[{i}]", name, v) for i, v in enumerate(value))
        else:
            found.append((path, name.rsplit(".", 1)[-1], value))
    return sorted(found, key=lambda leaf: leaf[0])


def option_out_of_bounds(options: dict[str, Any], where: str = "run.options",
                         limit: str = "the retrain limit") -> str | None:
    """The first value in ``options`` (at any depth) outside :data:`OPTION_LIMITS` or, for any other
    number, :data:`MAX_OPTION_NUMBER`, said in one line; None if all are within. Shared with
    ``evaluate --agent run``, which builds a run's policy from the options its config.json records."""
    for path, name, value in _option_leaves(options, where):
        low, high = int(name in POSITIVE_OPTIONS), OPTION_LIMITS.get(name, MAX_OPTION_NUMBER)
        if (name in OPTION_LIMITS or name in POSITIVE_OPTIONS) and value is not None and not (
                isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
            return f"{path} ({value!r}) is outside {limit} for {name}: an int in {low}..{high}"
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if name not in OPTION_LIMITS and number and not abs(value) <= MAX_OPTION_NUMBER:
            return f"{path} ({value!r}) is outside {limit} for an option: at most {MAX_OPTION_NUMBER} in size"
    return None
