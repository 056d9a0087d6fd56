"""Dynamic sampling (DAPO, Yu et al. 2025): draw more tasks until the update's groups carry signal.

A group whose G returns are all equal has a group-relative advantage of 0 on every step, yet its
steps still count in the loss's average: from ``make main``'s supervised base 77-81% of quick-v2's
groups are such groups, so each update is mostly steps that teach nothing. With
``TrainConfig.dynamic_sampling = N`` an iteration that holds fewer than ``tasks_per_iteration``
groups whose returns differ draws up to N more batches of tasks (with the run's generator, at
seeds no other draw uses), keeps only the groups whose returns differ, and updates on them.
Every env step played counts toward the budget, and no draw starts once the budget is spent.
N = 0 (the default) draws once and keeps every group: the run is the one without this option.

Only for the shared critic-free update: MAPPO's and COMA's critics learn from every episode.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .advantages import is_zero_variance
from .rollout import RolloutStats

#: Draw d of an iteration plays at the iteration's seed + d * this: far above any iteration's
#: episode seeds (seed + episode index) and below the next iteration's (10,007 apart) for d = 0 only,
#: so extra draws use a seed range of their own.
DRAW_SEED_STRIDE = 1 << 40


def has_signal(group: list) -> bool:
    """Do the group's returns differ (a non-zero group-relative advantage somewhere)?"""
    return not is_zero_variance(np.array([t.final_return for t in group], dtype=np.float64))


def check_dynamic_sampling(trainer: Any, shared_update: Any, trainer_cls: type | None = None) -> None:
    """Refuse the option where it would drop what a method learns from: a trainer whose update is
    not ``shared_update`` (the shared Trainer's) fits a critic of its own. ``trainer_cls`` with a
    config for ``trainer``: the check before any trainer is built (the harness's preflight)."""
    kind = trainer_cls or type(trainer)
    if trainer.config.dynamic_sampling and kind.update is not shared_update:
        raise ValueError(f"dynamic_sampling keeps only groups whose returns differ, for the critic-free update; "
                         f"{kind.__name__} fits a critic on every episode (leave dynamic_sampling=0)")


def collect_iteration(trainer: Any, task_ids: list[str], seed: int) -> tuple[list, RolloutStats, dict[str, float]]:
    """The iteration's groups and rollout counts, and the numbers to log.

    Without dynamic sampling: one draw, every group. With it: the groups with signal from up to
    ``1 + dynamic_sampling`` draws, stopping once ``tasks_per_iteration`` are held or the budget
    is spent."""
    cfg = trainer.config
    groups, rollout = trainer.collect(task_ids, seed)
    if not cfg.dynamic_sampling:
        return groups, rollout, {}
    total = RolloutStats(rollout.env_steps, rollout.episodes, rollout.successes)
    drawn = len(groups)
    kept = [g for g in groups if has_signal(g)]
    draws = 1
    while (len(kept) < cfg.tasks_per_iteration and draws <= cfg.dynamic_sampling
           and trainer.state.env_steps + total.env_steps < cfg.budget):
        more_ids = [trainer.train_tasks[i] for i in trainer.rng.integers(len(trainer.train_tasks),
                                                                         size=cfg.tasks_per_iteration)]
        more, stats = trainer.collect(more_ids, seed + draws * DRAW_SEED_STRIDE)
        total.env_steps += stats.env_steps
        total.episodes += stats.episodes
        total.successes += stats.successes
        drawn += len(more)
        kept += [g for g in more if has_signal(g)]
        draws += 1
    return kept, total, {"dynamic/draws": float(draws), "dynamic/groups_drawn": float(drawn),
                         "dynamic/groups_kept": float(len(kept)),
                         "dynamic/zero_variance_fraction": 1.0 - len(kept) / drawn if drawn else 0.0}
