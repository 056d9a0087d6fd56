"""The supervised base's settings against the bounds ``leaderboard retrain`` keeps, and a note where
``sft_tasks`` asks for more than the train split holds; both before any run starts.

Why: ``compare --option sft_tasks=10000000`` ran, clamped to the split's size without a word, where
``leaderboard retrain`` refuses it (:data:`~searchgym.harness.option_bounds.OPTION_LIMITS`, the one
table of those bounds). A value past the split but within the bounds is a base of the whole split:
said in one note line, not refused.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from searchgym.harness.option_bounds import OPTION_LIMITS, POSITIVE_OPTIONS

#: The supervised base's settings that the retrain bounds limit.
BOUNDED_SETTINGS = tuple(name for name in OPTION_LIMITS if name.startswith("sft_"))


def check_sft_bounds(options: Mapping[str, Any]) -> None:
    """ValueError naming the first ``sft_*`` setting (plain or ``sft.``-prefixed) outside its bounds,
    its value and the range accepted."""
    for key, value in options.items():
        name = str(key).removeprefix("sft.")
        if name not in BOUNDED_SETTINGS:
            continue
        low, high = int(name in POSITIVE_OPTIONS), OPTION_LIMITS[name]
        if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
            raise ValueError(f"option {key}={value!r} is outside the bounds of the supervised base's settings "
                             f"(those `leaderboard retrain` keeps): {name} is an int in {low}..{high}")


def _sft_tasks(options: Mapping[str, Any]) -> int | None:
    value = options.get("sft_tasks", options.get("sft.sft_tasks"))
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def note_whole_split(suite: Any, base_options: Iterable[Mapping[str, Any]], stream: TextIO | None = None) -> None:
    """One note line per ``sft_tasks`` given (in ``base_options``: the options of each run that builds a
    base) above the suite's train split: its base demonstrates the whole split."""
    given = sorted({n for n in map(_sft_tasks, base_options) if n is not None})
    if not given:
        return
    from searchgym.suites import tasks

    try:
        split = len(tasks(suite, "train"))
    except ValueError:  # no train tasks: each run says so
        return
    for value in given:
        if value > split:
            print(f"note: sft_tasks={value} is more than the {split} tasks of {suite.id}'s train split: the "
                  "supervised base demonstrates the whole split", file=stream or sys.stderr)
