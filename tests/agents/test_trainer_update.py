"""The shared update and the trainer base: minibatches (one optimiser step each, drawn from the run's
generator), trainers with their own update refuse them, and both trainers log a row before the
checkpoint that follows it, in a checkpoint whose format resumes older runs."""

from __future__ import annotations

import math

import pytest
import torch
from test_llm_train import tiny_config
from test_train import small_config

from searchgym.agents.llm_train import LLMTrainer
from searchgym.agents.train import Trainer

from baselines_helpers import SMALL_RUN, TINY_TEAM, make_ctx, spec_config


def _update_with(trainer: Trainer, groups) -> int:
    """Run one update on ``groups``; the number of optimiser steps it made."""
    steps = []
    step = trainer.actor_step
    trainer.actor_step = lambda loss: (steps.append(1), step(loss))
    trainer.update(groups)
    return len(steps)


def test_minibatches_step_once_each_and_a_whole_batch_one_is_the_full_batch_update():
    full = Trainer(small_config(update_epochs=2), log=lambda row: None)
    groups, _ = full.collect(full.train_tasks[:2], seed=0)
    n = sum(len(t) for g in groups for t in g)
    assert _update_with(full, groups) == 2
    same = Trainer(small_config(update_epochs=2, minibatch_size=n), log=lambda row: None)
    assert _update_with(same, groups) == 2
    for (name, a), (_, b) in zip(full.population.state_dict().items(), same.population.state_dict().items()):
        assert torch.equal(a, b), name
    split = Trainer(small_config(update_epochs=2, minibatch_size=3), log=lambda row: None)
    assert _update_with(split, groups) == 2 * math.ceil(n / 3)
    assert any(not torch.equal(a, b) for a, b in zip(full.population.state_dict().values(),
                                                     split.population.state_dict().values()))


def test_minibatch_rows_cover_the_batch_once_per_epoch():
    trainer = Trainer(small_config(minibatch_size=4), log=lambda row: None)
    assert trainer.minibatches(4) == [None]
    rows = trainer.minibatches(10)
    assert [len(r) for r in rows] == [4, 4, 2] and sorted(i for r in rows for i in r) == list(range(10))
    assert trainer.minibatches(10) != rows  # a fresh permutation every epoch, from the run's generator


def test_bad_minibatch_sizes_and_trainers_that_ignore_them_are_errors(tmp_path):
    with pytest.raises(ValueError, match="minibatch_size must be >= 1"):
        small_config(minibatch_size=0)
    from searchgym.baselines.mappo import MAPPOTrainer

    config = spec_config("mappo", make_ctx(TINY_TEAM, tmp_path, **SMALL_RUN))
    config.minibatch_size = 8
    with pytest.raises(ValueError, match="MAPPOTrainer writes its own update"):
        MAPPOTrainer(config)


def _record_order(trainer) -> list[str]:
    events: list[str] = []
    log, save = trainer._log, trainer.save
    trainer._log = lambda row: (events.append("row"), log(row))
    trainer.save = lambda: (events.append("checkpoint"), save())
    trainer.train(progress=False)
    return events


def test_both_trainers_log_the_row_before_the_checkpoint(tmp_path):
    candidate = Trainer(small_config(budget=30), out_dir=tmp_path / "candidate")
    events = _record_order(candidate)
    assert events[0] == "row" and events[1:] == ["row", "checkpoint"] * candidate.state.iteration
    llm = LLMTrainer(tiny_config(budget=8), out_dir=tmp_path / "llm")
    events = _record_order(llm)
    assert events[0] == "row" and events[1:] == ["row", "checkpoint"] * llm.state.iteration


def test_the_checkpoint_keeps_its_format(tmp_path):
    trainer = Trainer(small_config(), out_dir=tmp_path, log=lambda row: None)
    trainer.iterate()
    blob = torch.load(tmp_path / "checkpoint.pt", weights_only=True)  # plain: no code can hide in it
    assert set(blob) == {"config", "population", "optimizer", "calibrator", "rng", "generator", "state"}
    llm = LLMTrainer(tiny_config(), out_dir=tmp_path / "llm")
    llm.save()
    team = LLMTrainer(tiny_config(env_id="TeamSearch-v0", env_kwargs={"world_size": "tiny", "max_rounds": 2},
                                  team_mode="separate", eval_tasks=0))
    with pytest.raises(ValueError, match=r"checkpoint.pt: does not fit this run \(the checkpoint holds 1 models, "
                                         r"this run has 3\)"):
        team.load(tmp_path / "llm" / "checkpoint.pt")
