"""The played run's checkpoint (searchgym.harness.run_checkpoint): the trainer's limits, known before the
trainer is built, and one read per file."""

from __future__ import annotations

import hashlib

import pytest
import torch

from searchgym.agents.train import Trainer, TrainConfig
from searchgym.agents.trainer_base import CHECKPOINT_KEYS
from searchgym.damaged import DamagedFile
from searchgym.harness import run_checkpoint
from searchgym.harness.run_checkpoint import checkpoint_limits, read_once

TEAM = {"env_id": "TeamSearch-Generalists-Candidates-v0",
        "env_kwargs": {"world_size": "tiny", "team_size": 3, "max_rounds": 4}}


@pytest.mark.parametrize("mode", ["shared", "separate", "shared_trunk"])
def test_the_limits_are_the_built_trainers(mode):
    """Its cap counts the population's members as the trainer's does (one per agent unless shared)."""
    config = TrainConfig(**TEAM, population_mode=mode, group_size=2, tasks_per_iteration=1, budget=10, eval_every=100,
                         eval_tasks=1, device="cpu")
    keys, cap = checkpoint_limits(config, Trainer)
    trainer = Trainer(config, out_dir=None)
    assert (keys, cap) == (trainer.checkpoint_keys, trainer.max_checkpoint_bytes())
    assert cap == (1 if mode == "shared" else 3) * checkpoint_limits(
        TrainConfig(**TEAM, population_mode="shared"), Trainer)[1]


@pytest.fixture
def loads(monkeypatch):
    seen, original = [], torch.load
    monkeypatch.setattr(torch, "load", lambda *a, **k: seen.append(k.get("weights_only")) or original(*a, **k))
    monkeypatch.setattr(run_checkpoint, "_LAST", {})
    return seen


def test_a_file_is_read_once_hashed_as_read_and_let_go_at_its_last_use(tmp_path, loads):
    path = tmp_path / "checkpoint.pt"
    torch.save({"state": {"iteration": 1}, "population": {"w": torch.ones(2)}}, path)
    first = read_once(path, CHECKPOINT_KEYS, 10**6, "remedy")
    assert first.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() and loads == [True]
    assert read_once(path, CHECKPOINT_KEYS, 10**6, "remedy", keep=False) is first and loads == [True]
    assert read_once(path, CHECKPOINT_KEYS, 10**6, "remedy") is not first and loads == [True, True]  # let go
    torch.save({"state": {"iteration": 2}, "population": {}}, tmp_path / "new.pt")
    (tmp_path / "new.pt").replace(path)  # written again (as a run does: another file renamed over it)
    assert read_once(path, CHECKPOINT_KEYS, 10**6, "remedy").blob["state"]["iteration"] == 2


def test_damage_is_one_line_with_the_readers_remedy_and_a_link_is_not_followed(tmp_path, loads):
    path, elsewhere = tmp_path / "checkpoint.pt", tmp_path / "elsewhere.pt"
    torch.save({"state": {}, "mine": 1}, elsewhere)
    with pytest.raises(DamagedFile, match=r"holds the key\(s\) 'mine'.*; point path= elsewhere$"):
        read_once(elsewhere, CHECKPOINT_KEYS, 10**6, "point path= elsewhere")
    path.symlink_to(elsewhere)
    with pytest.raises(DamagedFile, match="is a symbolic link"):
        read_once(path, CHECKPOINT_KEYS | {"mine"}, 10**6, "r")
    assert loads == [True]
