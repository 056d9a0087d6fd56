"""How far a supervised base's build is: a bar in the building process, a file for the parent.

Why: a base is built before its run's first env step (about a minute of CPU for ``hash``, over ten
for ``attn``), and the comparison's env-step bar stood at 0% all that while. The builder draws its
own bar when its run may draw one (``--workers 1``, ``searchgym train``), and always writes
``building.json`` beside the base, which a parent whose runs are in worker processes reads, as it
reads their ``metrics.jsonl`` tails (:mod:`searchgym.harness.progress`), and shows as the
env-step bar's postfix. Nothing here touches what the build computes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile, open_regular
from searchgym.fileio import atomic_write_json

BUILDING = "building.json"
#: Seconds between rewrites of ``building.json`` within a stage (a stage's start is always written).
WRITE_EVERY = 1.0
_MAX_BYTES = 4096


def describe(state: dict[str, Any]) -> str:
    """One line: ``supervised base seed 0 (quick-v2, 1a2b3c4d): epoch 3/16, DAgger round 1/2``."""
    done, total = state.get("done"), state.get("total")
    return f"{_head(state)}: {state['stage']}{f' {done}/{total}' if total else ''}{_round(state)}"


def _head(state: dict[str, Any]) -> str:
    return f"supervised base seed {state['seed']} ({state['suite']}, {str(state['key'])[:8]})"


def _round(state: dict[str, Any]) -> str:
    return f", DAgger round {state['round']}/{state['rounds']}" if state.get("rounds") and state.get("round") else ""


class BaseProgress:
    """The build's stages (``start``), and work done within one (``step``), sent to a bar when
    ``bar`` is true, to ``building.json`` in ``folder``, and to ``on_event`` (tests)."""

    def __init__(self, folder: Path, seed: int, suite: str, key: str, rounds: int, bar: bool,
                 on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.path = Path(folder) / BUILDING
        self.state: dict[str, Any] = {"seed": int(seed), "suite": suite, "key": key, "stage": "starting",
                                      "done": 0, "total": 0, "round": 0, "rounds": int(rounds)}
        self.on_event = on_event
        self.bar = None
        if bar:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=None, desc=_head(self.state), leave=False, unit="")
        self.written = float("-inf")

    def start(self, stage: str, total: int = 0, round: int | None = None, unit: str = "task") -> None:
        if round is not None:
            self.state["round"] = int(round)
        self.state.update(stage=stage, done=0, total=int(total))
        if self.bar is not None:
            self.bar.set_description_str(f"{_head(self.state)}: {stage}{_round(self.state)}", refresh=False)
            self.bar.unit = unit
            # tqdm's dynamic miniters (raised by a stage of quick steps) survives reset(): before, the epoch
            # bar of 16 waited for ~30 steps between draws and stood at 0/16 for the whole fit
            self.bar.miniters = 0
            self.bar.reset(total=total or None)  # the bar counts this stage's work: n/total
        self._send(force=True)

    def step(self, done: int) -> None:
        self.state["done"] = int(done)
        finished = done >= self.state["total"]
        if self.bar is not None:
            self.bar.update(int(done) - self.bar.n)
            if finished:  # drawn even within tqdm's minimum interval: a stage's end is always shown
                self.bar.refresh()
        self._send(force=finished)

    def _send(self, force: bool) -> None:
        now = time.monotonic()
        if force or now - self.written >= WRITE_EVERY:
            try:
                atomic_write_json(self.path, self.state)
            except OSError:  # progress is a courtesy: a full disk shows in the build's own files
                pass
            self.written = now
        if self.on_event is not None:
            self.on_event(dict(self.state))

    def close(self) -> None:
        """Take the bar and the file away (the build finished or failed)."""
        if self.bar is not None:
            self.bar.close()
        try:
            self.path.unlink(missing_ok=True)
        except OSError:  # never in the way of the build's own error
            pass


def builds_in_progress(bases: Path, since: float) -> list[str]:
    """:func:`describe` of every base under ``bases`` whose ``building.json`` was written at or after
    ``since`` (a time.time()): an older one is left by a build that was killed, not one under way.
    A file that is not such a record is skipped: it is only progress."""
    lines = []
    try:
        found = sorted(bases.glob(f"*/{BUILDING}"))
    except OSError:
        return []
    for path in found:
        try:
            if path.stat().st_mtime < since:
                continue
            with open_regular(path, max_bytes=_MAX_BYTES, follow_links=False) as handle:
                state = json.loads(handle.read(_MAX_BYTES).decode("utf-8"))
            lines.append(describe(state))
        except (OSError, DamagedFile, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue  # being replaced, or not a record of ours
    return lines
