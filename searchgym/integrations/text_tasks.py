"""The tasks an adapter can play: a single-agent text-mode suite's, refusing the others up front.

The framework adapters hand the env a tool call or the model's text; a multi-agent suite needs an
action per agent and a candidate-mode suite an index into its listed actions, so each adapter
refuses those with the same one-line error instead of failing on the first step.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import searchgym
from searchgym.envs.config import MAX_SEED
from searchgym.shown import safe_repr

__all__ = ["check_seed", "row_seed", "text_task_records"]


def text_task_records(suite: str, split: str, who: str) -> list[Any]:
    """The ``TaskRecord`` s of ``split`` (:func:`searchgym.tasks`); a ValueError naming ``who`` (the
    adapter) when the suite is multi-agent or candidate-mode."""
    records = searchgym.tasks(suite, split)
    if not records:
        raise ValueError(f"suite {suite!r} has no {split} tasks")
    kind = "multi-agent" if records[0].agents is not None else None
    if kind is None:
        env = searchgym.make_task_env(suite, split, records[0].task_id)
        mode = getattr(getattr(env.unwrapped, "config", None), "action_mode", "text")
        env.close()
        kind = None if mode == "text" else f"{mode}-mode (it takes the index of a listed action)"
    if kind is not None:
        raise ValueError(f"suite {suite!r} is {kind}; {who} plays single-agent text suites, e.g. searchqa-text-v2")
    return records


def check_seed(seed: object, who: str, optional: bool = True) -> int | None:
    """``seed`` if it is an int >= 0 (or None when ``optional``); else a ValueError naming ``who``'s
    seed and what is accepted (NumPy's own, "expected non-negative integer", names neither)."""
    if seed is None and optional:
        return None
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= seed <= MAX_SEED:  # NumPy ints too
        accepted = f"an int in 0..{MAX_SEED}" + (" or None" if optional else "")  # 10**30: accepted, before
        raise ValueError(f"{who} seed must be {accepted}, got {type(seed).__name__} {safe_repr(seed, 40)}")
    return int(seed)


def row_seed(seed: object, who: str) -> int:
    """A dataset row's seed: ``check_seed``'s, with a whole float taken as its int (a row read back
    through pandas or parquet holds 3.0 for 3)."""
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    return check_seed(seed, who, optional=False)
