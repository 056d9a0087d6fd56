"""Shared by the trainer tests: a run small enough for a unit test."""

from __future__ import annotations

from searchgym.agents.advantages import ADVANTAGE_ESTIMATORS
from searchgym.agents.train import TrainConfig


def tiny_train_config(**overrides) -> TrainConfig:
    """The tiny world's single-agent env, 3 attempts at each of 2 tasks per iteration, the dev
    curve every 100 iterations on 4 tasks; the value head is fitted where the estimator reads
    values. ``overrides`` replace any of these."""
    settings = dict(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                    estimator="cw_round", group_size=3, tasks_per_iteration=2, budget=10_000, eval_every=100,
                    eval_tasks=4, device="cpu", seed=3)
    settings.update(overrides)
    settings.setdefault("value_head", ADVANTAGE_ESTIMATORS[settings["estimator"]].needs_values)
    return TrainConfig(**settings)
