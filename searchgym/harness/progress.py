"""Env steps done so far by runs in worker processes, read from their ``metrics.jsonl`` tails.

Workers already append a row with ``"step"`` (env steps consumed) after each training
iteration, so the parent process learns their progress without any channel between
processes: it reads the last row of each unfinished run's file. A finished run counts its
whole budget, whatever it logged (random and oracle log nothing).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path

from searchgym.damaged import DamagedFile, open_regular

_TAIL_BYTES = 8192


def last_logged_step(path: Path) -> int:
    """The ``step`` of the last complete row of a metrics file (0 when there is none yet); a row
    whose step is not a finite number is skipped silently, as resume skips every bad line."""
    try:
        with open_regular(path) as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _TAIL_BYTES))
            tail = f.read().decode("utf-8", errors="replace")
    except (OSError, DamagedFile):  # not there yet, or not a file: the runner reports it
        return 0
    for line in reversed(tail.splitlines()):
        try:
            step = json.loads(line).get("step")
        except (ValueError, AttributeError, RecursionError):
            continue  # a partly written or cut line, or a number over Python's 4,300 digits
        finite = isinstance(step, float) and math.isfinite(step)
        if finite or isinstance(step, int) and not isinstance(step, bool):
            return int(step)  # Before: Infinity and NaN ended resume in a traceback naming no file
    return 0


class StepProgress:
    """Env steps over all runs: ``budget`` per finished run, the logged step (capped) per live one."""

    def __init__(self, budget: int, run_dirs: Iterable[Path]) -> None:
        self.budget = budget
        self.steps: dict[Path, int] = {Path(d): 0 for d in run_dirs}

    @property
    def total(self) -> int:
        return self.budget * len(self.steps)

    def finish(self, run_dir: Path | str) -> None:
        self.steps[Path(run_dir)] = self.budget

    def poll(self) -> int:
        """Refresh the live runs' counts; returns the steps done over every run."""
        for folder, done in self.steps.items():
            if done < self.budget:
                self.steps[folder] = max(done, min(last_logged_step(folder / "metrics.jsonl"), self.budget))
        return self.done

    @property
    def done(self) -> int:
        return sum(self.steps.values())
