"""Choosing the task of an episode: by id, or drawn from a split with the env's generator."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from searchgym.shown import safe_repr
from searchgym.world.model import Task
from searchgym.world.world import DIFFICULTIES, SPLITS, World

__all__ = ["DIFFICULTIES", "RESET_OPTIONS", "TaskPicker", "reset_options"]
#: The keys of ``reset(options=...)`` (every env picks its task through :meth:`TaskPicker.pick`).
RESET_OPTIONS = ("task_id", "split")


def reset_options(options: Any) -> Mapping[str, Any] | None:
    """``reset(options=...)`` checked before the env changes: None or a dict with string keys, returned
    as given (the episode record and :meth:`TaskPicker.pick` copy it). Why: a list or a string
    otherwise fails deep inside ("cannot convert dictionary update sequence")."""
    if options is None:
        return None
    if not isinstance(options, Mapping) or not all(isinstance(key, str) for key in options):
        raise TypeError(f"reset options must be a dict with string keys (or None); accepted keys: "
                        f"{', '.join(RESET_OPTIONS)}, e.g. {{'split': 'test'}}; got {type(options).__name__} "
                        f"{options!r:.80}")
    return options


class TaskPicker:
    """The tasks an env may draw, filtered by split, families and difficulty (validated once)."""

    def __init__(self, world: World, split: str = "train", families: Sequence[str] | None = None,
                 difficulty: str | None = None) -> None:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        families = world.check_task_filter(families, difficulty)  # one name is a list of one; [] is refused
        self.world, self.split, self.families, self.difficulty = world, split, families, difficulty
        self._by_split = {s: world.tasks_in(s, families, difficulty) for s in SPLITS}
        if not self._by_split[split]:
            raise ValueError(f"no tasks in split {split!r} for families={families} difficulty={difficulty}; "
                             f"{self._where_tasks_are()}")

    def tasks(self, split: str | None = None) -> list[Task]:
        return self._by_split[split or self.split]

    def pick(self, rng: np.random.Generator, options: Mapping[str, Any]) -> Task:
        """``options={"task_id": id}`` picks that task; ``{"split": s}`` draws from split ``s``.
        ``options`` is what :meth:`check` returned (an env checks them before it changes anything)."""
        if "task_id" in options:
            return self.world.task_by_id[str(options["task_id"])]
        pool = self._by_split[options.get("split", self.split)]
        return pool[int(rng.integers(len(pool)))]

    def check(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``options`` as a dict, or the error ``pick`` gives for them, drawing nothing. Why: an env
        checks them before it changes anything (a reset that failed on a bad task id used to leave
        the old episode playing under the new episode's record, which could not be unpickled)."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; accepted: {', '.join(RESET_OPTIONS)}")
        if "task_id" in options:
            task = self.world.task_by_id.get(str(options["task_id"]))
            if task is None:
                shown = ", ".join(t.id for t in self._by_split[self.split][:3])
                raise ValueError(f"no task with id {safe_repr(options['task_id'], 60)} in this world; a task id is "
                                 f"one of the world's tasks (this env's {self.split} split: {shown}, ...; "
                                 "env.unwrapped.tasks.tasks(split) lists a split's)")
            if "split" in options and options["split"] != task.split:  # was played as the split's task, silently
                raise ValueError(f"task {task.id!r} is in split {task.split!r}, not {options['split']!r}; give "
                                 f"task_id alone to play it, or a task id of split {options['split']!r}")
            return options
        split = options.get("split", self.split)
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        if not self._by_split[split]:
            raise ValueError(f"no tasks in split {split!r} for this env's families and difficulty; "
                             f"{self._where_tasks_are()}")
        return options

    def _where_tasks_are(self) -> str:
        """Which splits do hold tasks for this filter (a world of your own files puts every task in
        ``test`` unless its lines say otherwise, so ``split="train"`` finds none)."""
        held = {s: len(tasks) for s, tasks in self._by_split.items() if tasks}
        if not held:
            return "no split has any: check families and difficulty"
        counts = ", ".join(f"{s} {n}" for s, n in held.items())
        return f"tasks by split: {counts}; choose one with split=..."
