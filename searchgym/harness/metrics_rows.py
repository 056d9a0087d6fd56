"""What ``ctx.log(row)`` accepts: the checks a user's metrics row passes before ``metrics.jsonl`` holds it.

Why here and not where the rows are read: a row whose ``step`` went back, or whose ``dev_success``
was 2.0, was written as it came, and the learning curves then drew it (the report's curve is
success on dev, in [0, 1], over env steps consumed, which only grow); a value JSON cannot hold
failed in the writer with "object is not JSON serialisable", naming no key. Each refusal is a
``TypeError`` or ``ValueError`` raised inside the user's method (through its ``ctx.log`` call), so the
harness reports it as that method's failure: one line, and the traceback in ``error.txt``.
"""

from __future__ import annotations

import json
import math
import os
from numbers import Real
from pathlib import Path
from typing import Any

from searchgym.fileio import iter_jsonl, jsonable
from searchgym.folder_lock import FolderLock
from searchgym.shown import kind_of, safe_repr

#: What a row may hold, said in every refusal of a value.
JSON_VALUES = ("JSON values: numbers, strings, booleans, None, and lists and dicts of them "
               "(numpy scalars and arrays, tuples and sets are converted)")


def _shown(value: Any) -> str:
    return safe_repr(value, 80)


def _number(value: Any) -> float | None:
    """``value`` as a float when it is a real, finite number (not a bool); else None."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):  # an int past a float's range
        return None
    return number if math.isfinite(number) else None


class RowCheck:
    """Checks each row of one attempt of a run, remembering the last ``step`` it accepted. Why per
    attempt: a resumed run redoes the steps after its checkpoint, below rows an earlier attempt wrote."""

    def __init__(self) -> None:
        self.last_step: float | None = None
        self.last_shown = ""  # that step as the row gave it (10, not 10.0)

    def __call__(self, row: Any) -> None:
        """Raise TypeError or ValueError naming the key, its value and what is accepted; return when
        ``row`` may be written."""
        if not isinstance(row, dict):
            raise TypeError(f"ctx.log takes a dict, got {type(row).__name__}")
        for key, value in row.items():
            if not isinstance(key, str):
                raise TypeError(f"ctx.log: key {_shown(key)} is {kind_of(key)}; a row's keys are strings")
            try:
                json.dumps(value, default=jsonable)
            except (TypeError, ValueError, RecursionError) as exc:
                raise TypeError(f"ctx.log: {key!r} holds {_shown(value)}, which JSON cannot hold ({exc}); a row "
                                f"holds {JSON_VALUES}") from None
        if "dev_success" in row:
            success = _number(row["dev_success"])
            if success is None or not 0.0 <= success <= 1.0:
                raise ValueError(f"ctx.log: 'dev_success' is {_shown(row['dev_success'])}; it is the success rate on "
                                 "the dev split, a number in [0, 1]")
        if "step" in row:
            step = _number(row["step"])
            if step is None or step < 0:
                raise ValueError(f"ctx.log: 'step' is {_shown(row['step'])}; it is the env steps consumed so far, a "
                                 "number >= 0")
            if self.last_step is not None and step < self.last_step:
                raise ValueError(f"ctx.log: 'step' is {_shown(row['step'])}, below the {self.last_shown} "
                                 "of this run's previous row; env steps consumed only grow (a row may repeat "
                                 "the previous step, never go back)")
            self.last_step, self.last_shown = step, _shown(row["step"])


def attempts_logged(path: Path) -> int:
    """The highest ``attempt`` in a metrics file (0 without one): what a damaged config.json forgot."""
    attempts = [r["attempt"] for r in iter_jsonl(path)
                if isinstance(r.get("attempt"), int) and not isinstance(r.get("attempt"), bool)]
    return max(attempts, default=0)


def logged_iterations(path: Path) -> set[int]:
    """The ``iteration`` values of a metrics file's rows. Why a set and not the highest: one row of
    iteration 10**17 (damage) made every row of the resumed run look written already."""
    return {r["iteration"] for r in iter_jsonl(path)
            if isinstance(r.get("iteration"), int) and not isinstance(r.get("iteration"), bool)}


def holds_a_run(folder: Path) -> bool:
    """Whether ``folder`` holds what only a run leaves: the lock file of an earlier attempt, a log of
    its attempts or a checkpoint. Why: a damaged config.json is rewritten only in such a folder (a
    user's own was replaced)."""
    return (os.path.lexists(folder / FolderLock.NAME) or bool(attempts_logged(folder / "metrics.jsonl"))
            or (folder / "checkpoint").is_dir())


def attempts_summary(path: Path, attempt: int) -> tuple[int, float]:
    """(the rows of a metrics file, the seconds the attempts before ``attempt`` ran up to their last logged row),
    in one pass (each row's ``time`` counts from its attempt's start). Why: a resumed run's ``train_seconds``
    covered its last attempt only (7.6 s for a run that trained 12.5 s in one go)."""
    rows, last = 0, {}
    for row in iter_jsonl(path):
        rows += 1
        done, seconds = row.get("attempt"), _number(row.get("time"))
        if isinstance(done, int) and not isinstance(done, bool) and 0 < done < attempt and seconds is not None:
            last[done] = max(last.get(done, 0.0), max(seconds, 0.0))
    return rows, sum(last.values())
