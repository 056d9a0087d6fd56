"""The train split a trainer draws its tasks from, and how a run's config records it.

A suite may cap its train split (``Suite.train_size``: the first N of the split, families
interleaved, as :func:`searchgym.suites.tasks` takes them); the harness then names that split in the
trainer's config (``train_task_ids``), and the trainer draws from it alone. Without it (every
built-in suite) a trainer draws from its env's whole train split, which is then the suite's split.

Why the ids are recorded in the config: the trainer builds its env from ``env_id`` and
``env_kwargs``, which know nothing of the cap, so RL trained on every train task of the world while
the supervised base demonstrated the capped split, and the checkpoint's check counted the whole
split where the harness counted the capped one. Recorded, a checkpoint of another cap is another
run's. Left out of the record while unset, so the records of runs on uncapped suites (their
checkpoints, config.json) are the ones they always were.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from searchgym.shown import safe_repr

#: The config field (TrainConfig's and LLMTrainConfig's) that names the capped train split.
FIELD = "train_task_ids"


def check_train_task_ids(value: Any) -> None:
    """Refuse a ``train_task_ids`` that is not None or a non-empty list of task ids."""
    if value is None:
        return
    if not isinstance(value, list | tuple) or not value or not all(isinstance(task, str) for task in value):
        raise ValueError(f"{FIELD} must be None (the env's whole train split) or a non-empty list of train task "
                         f"ids; got {safe_repr(value, 60)}")


def train_split_ids(config: Any, picker: Any) -> list[str]:
    """The ids of the train split a trainer of ``config`` draws from, in order: those ``train_task_ids``
    names, each a train task of the env (``picker``: its task picker), else the env's whole train split."""
    split = [task.id for task in picker.tasks("train")]
    named = getattr(config, FIELD, None)
    if named is None:
        return split
    known = set(split)
    outside = [task for task in named if task not in known]
    if outside:
        raise ValueError(f"{FIELD} names {len(outside)} task(s) that are not in the train split of {config.env_id} "
                         f"with its env_kwargs (first: {safe_repr(outside[0], 40)}); accepted: the ids of that "
                         "split (env.unwrapped.tasks.tasks('train'))")
    return list(named)


def recorded_split_size(config: Mapping[str, Any]) -> int | None:
    """How many tasks the ``train_task_ids`` of a run config as a dict names (None: it names none)."""
    named = config.get(FIELD)
    return len(named) if isinstance(named, list | tuple) else None


def config_record(config: Any) -> dict[str, Any]:
    """``asdict(config)`` as a checkpoint or config.json records it: without ``train_task_ids`` while it
    is None (module docstring)."""
    record = asdict(config)
    if record.get(FIELD, ...) is None:
        del record[FIELD]
    return record
