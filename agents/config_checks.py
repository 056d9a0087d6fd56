"""Config fields named in the error when a value cannot run (the training configs share these).

Why: a count of 0 or a string failed deep inside a run (an IndexError, a division by zero, numpy's
"expected non-negative integer", torch's "Invalid learning rate"), after a run folder was made.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


def check_counts(config: Any, bounds: Iterable[tuple[str, int]]) -> None:
    """Each named field is an int (not a bool) of at least its bound."""
    for name, least in bounds:
        value = getattr(config, name)
        if type(value) is not int or value < least:
            raise ValueError(f"{name} must be an integer >= {least}; got {value!r}")


def check_rate(name: str, value: Any, what: str = "") -> None:
    """A finite number above 0 (``what`` says what it is, in brackets)."""
    if type(value) not in (int, float) or not 0 < value < math.inf:
        raise ValueError(f"{name} must be a number > 0{f' ({what})' if what else ''}; got {value!r}")


def check_run_numbers(config: Any) -> None:
    """A run's counts and rate, named when they cannot run: loop sizes below 1 (an IndexError or a
    division by zero mid-run), a negative budget (it trained nothing and wrote a result) or seed,
    an lr that is not above 0; ``eval_tasks`` (None: every dev task): 0 gave a NaN dev score."""
    check_counts(config, (("group_size", 1), ("tasks_per_iteration", 1), ("eval_every", 1), ("budget", 0),
                          ("seed", 0)))
    check_rate("lr", config.lr, "the optimiser's learning rate")
    eval_tasks = getattr(config, "eval_tasks", None)
    if eval_tasks is not None and (type(eval_tasks) is not int or eval_tasks < 1):
        raise ValueError(f"eval_tasks must be an integer >= 1 (dev tasks of the curve) or null for every dev "
                         f"task; got {eval_tasks!r}")
