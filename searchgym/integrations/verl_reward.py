"""verl's reward for a searchgym rollout: the env's return, never a gold answer from the dataset.

verl loads a custom reward function by module (``reward.custom_reward_function.path=
pkg://searchgym.integrations.verl_reward``) or by file path (this file; it defines no classes,
so a file loaded outside ``sys.modules`` works too) with ``name=compute_score``. It reads
``extra_info``: the row's (the ``searchgym`` task locator the verl export writes) merged with the
episode's record that :class:`searchgym.integrations.verl.SearchgymTool` keeps: its return
(``searchgym_reward``), whether it ended (``searchgym_done``) and its calls (``searchgym_calls``).
verl's own ``ToolAgentLoop`` does not pass that record on (its output keeps only ``turn_scores``
and ``tool_rewards``), so the export's rows name
:class:`~searchgym.integrations.verl_agent_loop.SearchgymToolAgentLoop`, which calls this function
when a trajectory ends and gives verl the result as the trajectory's reward. An episode the model
ended in text instead of the ``answer`` tool (``<answer>...</answer>`` after the last tool reply)
is replayed in a fresh env from its calls and finished with that text, so the reward is the env's
either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Real
from typing import Any

import searchgym
from searchgym.integrations.text_tasks import row_seed

__all__ = ["LOCATOR_KEYS", "compute_score", "task_locator"]

LOCATOR_KEYS = ("suite", "split", "task_id")


def task_locator(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The task a tool or row plays, from ``create_kwargs=...`` (verl 0.6 and later) or spread keywords."""
    found = (kwargs.get("create_kwargs") or kwargs) if isinstance(kwargs, Mapping) else kwargs
    if not isinstance(found, Mapping):  # before: 5 was "argument of type 'int' is not iterable"
        raise ValueError(  # noqa: TRY004 - one error type for every bad locator
            f"a searchgym task locator (a tool's create_kwargs, a row's extra_info['searchgym']) "
            f"must be a dict with {', '.join(LOCATOR_KEYS)}, as the verl export writes it; got {type(found).__name__}")
    missing = [key for key in LOCATOR_KEYS if key not in found]
    if missing:
        raise ValueError(f"a searchgym tool needs create_kwargs with {', '.join(LOCATOR_KEYS)} (the verl export "
                         f"writes them in extra_info.tools_kwargs); missing: {', '.join(missing)}")
    # before: -1 failed at the first call in Gymnasium ("Seed must be greater or equal to zero") and
    # "abc" as "invalid literal for int() with base 10"
    seed = row_seed(found.get("seed", 0), "a searchgym tool's create_kwargs")
    return {"suite": found["suite"], "split": found["split"], "task_id": found["task_id"], "seed": seed}


def _final_text(solution_str: str) -> str:
    return solution_str.rsplit("</tool_response>", 1)[-1].strip()


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict | None = None,
                  **kwargs: Any) -> float:
    """The env's return for the trajectory (see the module docstring); ``ground_truth`` is not read."""
    extra = extra_info or {}
    if not isinstance(extra, Mapping):  # before: "'str' object has no attribute 'get'"
        raise TypeError(f"extra_info must be the row's dict (as `searchgym export --format verl` writes it), "
                        f"got {type(extra).__name__}")
    calls = extra.get("searchgym_calls")
    if calls is None:
        calls = []
    elif hasattr(calls, "tolist"):  # a NumPy array (parquet reads a list back as one)
        calls = list(calls)
    reward = extra.get("searchgym_reward")
    # before: a done episode without its reward was a KeyError, and a string of calls was stepped letter by letter
    if not isinstance(calls, (list, tuple)) or not all(isinstance(call, Mapping) for call in calls):
        raise ValueError(f"extra_info['searchgym_calls'] must be the list of the episode's calls (dicts with name "
                         f"and arguments), as SearchgymTool records it; got {type(calls).__name__} {calls!r:.60}")
    if extra.get("searchgym_done"):
        if isinstance(reward, bool) or not isinstance(reward, Real):
            raise ValueError(f"extra_info['searchgym_done'] is set but extra_info['searchgym_reward'] is "
                             f"{reward!r:.40}, not the episode's return (a number), as SearchgymTool records it")
        return float(reward)
    if "searchgym" not in extra:
        raise ValueError(f"row of {data_source!r} has no extra_info['searchgym'] task locator; score rows "
                         f"written by `searchgym export --format verl`")
    locator = task_locator(extra["searchgym"])  # not dict(...): a string was "dictionary update sequence ..."
    env = searchgym.make_task_env(locator["suite"], locator["split"], locator["task_id"])
    try:
        env.reset(seed=locator["seed"])
        total = 0.0
        for call in calls:
            total += float(env.step(dict(call))[1])
        final = _final_text(solution_str)
        if not final:  # the trajectory stopped after a tool reply (verl's turn limit): no step was taken
            return total  # before: "" was stepped, a format error's cost the env never charged (as TRL skips it)
        return total + float(env.step(final)[1])
    finally:
        env.close()
