"""The training loop keeps the heap alive before it (and what survives each iteration) out of the
garbage collector's scans, and hands it back when it ends."""

from __future__ import annotations

import gc

import pytest

from searchgym.agents.train import TrainConfig, Trainer
from searchgym.agents.trainer_base import YOUNG_COLLECTION_EVERY, frozen_heap


def tiny_trainer() -> Trainer:
    config = TrainConfig(env_id="TeamSearch-Generalists-Candidates-v0",
                         env_kwargs={"world_size": "tiny", "max_rounds": 2}, estimator="grpo", group_size=2,
                         tasks_per_iteration=1, budget=20, eval_every=100, eval_tasks=2, device="cpu", seed=0,
                         policy_kwargs={"dim": 16, "hidden": 16})
    return Trainer(config, log=lambda row: None)


@pytest.fixture(autouse=True)
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_training_runs_with_the_heap_frozen_and_unfreezes_it_after(monkeypatch):
    trainer = tiny_trainer()
    during = []
    original = trainer.train_iteration
    monkeypatch.setattr(trainer, "train_iteration", lambda: during.append(gc.get_freeze_count()) or original())
    trainer.train(progress=False)
    assert len(during) >= 2 and all(count > 0 for count in during)
    assert gc.get_freeze_count() == 0


def test_the_heap_is_unfrozen_when_an_iteration_raises(monkeypatch):
    trainer = tiny_trainer()
    monkeypatch.setattr(trainer, "train_iteration", lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        trainer.train(progress=False)
    assert gc.get_freeze_count() == 0


def test_each_call_freezes_what_survived_since():
    with frozen_heap() as freeze_survivors:
        before = gc.get_freeze_count()
        kept = [[i] for i in range(1000)]
        freeze_survivors()
        assert gc.get_freeze_count() >= before + len(kept)
    assert gc.get_freeze_count() == 0


def test_someone_elses_freeze_is_left_as_it_is():
    """Neither frozen further (the new objects stay out) nor unfrozen (the count would fall to 0).
    The count is compared with slack below: an object freed while frozen (by another thread the
    suite left running, say) leaves the frozen generation, so it can fall by a few (by 2 in one run of the whole suite)."""
    gc.freeze()
    theirs = gc.get_freeze_count()
    with frozen_heap() as freeze_survivors:
        kept = [[i] for i in range(1000)]
        freeze_survivors()
        assert theirs - len(kept) < gc.get_freeze_count() <= theirs
    assert theirs - len(kept) < gc.get_freeze_count() <= theirs and kept


def test_young_collections_are_rarer_while_training_and_restored_after():
    before = gc.get_threshold()
    with frozen_heap():
        assert gc.get_threshold()[0] >= YOUNG_COLLECTION_EVERY
        assert gc.get_threshold()[1:] == before[1:]
    assert gc.get_threshold() == before
