"""Which train tasks RL plays: every one of the run's train split (a suite's capped split, or the
env's whole one: ``train_split``), those the supervised base was not shown (``rl_fresh_tasks``),
and a seeded draw of ``rl_tasks`` of those.

Why a file of its own: the choice reads the base's demonstration order (``imitation``) and is
checked when a run's config is built, long before the trainer draws its first task.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .imitation import not_shown_to_base
from .train_split import check_train_task_ids, train_split_ids


def check_rl_task_options(config: Any) -> None:
    """Refuse ``rl_tasks`` below 1 or not an int, ``rl_fresh_tasks`` not a bool or without init=sft, and a
    ``train_task_ids`` that is not a list of ids."""
    check_train_task_ids(config.train_task_ids)
    if config.rl_tasks is not None and (type(config.rl_tasks) is not int or config.rl_tasks < 1):  # bool too
        raise ValueError(f"rl_tasks must be an integer >= 1 (or None: every train task); got {config.rl_tasks!r}")
    if type(config.rl_fresh_tasks) is not bool or (config.rl_fresh_tasks and config.init != "sft"):
        raise ValueError(f"rl_fresh_tasks (true or false; got {config.rl_fresh_tasks!r}) leaves out the tasks "
                         "the supervised base was shown: true needs init=sft")


def rl_train_tasks(picker: Any, config: Any) -> list[str]:
    """The train tasks RL draws from (``picker``: the env's task picker; the split, in order, is
    :func:`train_split_ids`'s, the one the base demonstrates). The ``rl_tasks`` draw uses a generator of
    its own, so that a run without it keeps its task order and generator state."""
    chosen = train_split_ids(config, picker)
    if config.rl_fresh_tasks:
        chosen = not_shown_to_base(chosen, config.seed, config.sft)
    if config.rl_tasks is not None:
        keep = np.random.default_rng([config.seed, 17]).permutation(len(chosen))[: config.rl_tasks]
        chosen = [chosen[i] for i in sorted(keep)]
    return chosen
