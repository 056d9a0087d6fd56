"""A file that cannot be read now (no permission, an I/O error) may be intact: resume stops with one line
instead of setting it aside. Before: an unreadable checkpoint was "damaged", the run started again
from its beginning and its first checkpoint was written over the unread one (hours of training lost
to a permission or a network file system's hiccup); an unreadable config.json was written over."""

from __future__ import annotations

import errno
import os
import shutil

import pytest
from harness_helpers import TINY_QA
from searchgym.agents import trainer_base
from searchgym.agents.train import TrainConfig, Trainer
from searchgym.agents.trainer_base import CHECKPOINT, read_checkpoint

from searchgym import damaged
from searchgym.damaged import DamagedFile, UnreadableFile, open_regular
from searchgym.harness.methods import resolve_method
from searchgym.harness.runner import RunSpec, execute_run

pytestmark = pytest.mark.timeout(300)


def small_config() -> TrainConfig:
    return TrainConfig(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                       group_size=2, tasks_per_iteration=2, budget=10_000, eval_every=100, eval_tasks=2,
                       device="cpu", seed=3)


@pytest.fixture(scope="module")
def checkpointed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    trainer = Trainer(small_config(), out_dir=folder, log=lambda row: None)
    trainer.iterate()
    return folder


def _refuse_opening(monkeypatch, target, error):
    real = os.open

    def fake_open(path, *args, **kwargs):
        if os.fspath(path) == os.fspath(target):
            raise OSError(error, os.strerror(error), os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(damaged.os, "open", fake_open)


@pytest.mark.parametrize("error", [errno.EACCES, errno.EIO])
def test_an_unreadable_checkpoint_stops_the_run_and_is_kept(checkpointed, tmp_path, monkeypatch, error):
    folder = tmp_path / "run"
    shutil.copytree(checkpointed, folder)
    before = (folder / CHECKPOINT).read_bytes()
    _refuse_opening(monkeypatch, folder / CHECKPOINT, error)
    with pytest.raises(UnreadableFile, match=f"^{folder / CHECKPOINT}: cannot be opened .*; check its permissions"):
        Trainer(small_config(), out_dir=folder, log=lambda row: None)
    monkeypatch.undo()
    assert (folder / CHECKPOINT).read_bytes() == before
    assert Trainer(small_config(), out_dir=folder, log=lambda row: None).state.iteration == 1  # readable again


def test_an_io_error_while_reading_a_checkpoint_is_no_verdict_on_it(checkpointed, monkeypatch):
    def failing_load(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(trainer_base.torch, "load", failing_load)
    with pytest.raises(UnreadableFile, match=r"could not be read \(Input/output error\); check the disk"):
        read_checkpoint(checkpointed / CHECKPOINT)
    monkeypatch.setattr(trainer_base.torch, "load", lambda *a, **k: (_ for _ in ()).throw(OSError("not zip")))
    with pytest.raises(DamagedFile, match="is not a checkpoint searchgym can load") as caught:
        read_checkpoint(checkpointed / CHECKPOINT)
    assert not isinstance(caught.value, UnreadableFile)


def test_a_link_loop_is_still_damage_not_unreadable(tmp_path):
    (tmp_path / "x").symlink_to(tmp_path / "x")
    with pytest.raises(DamagedFile) as caught:
        open_regular(tmp_path / "x")
    assert not isinstance(caught.value, UnreadableFile)


def test_an_unreadable_config_json_of_an_unfinished_run_is_not_written_over(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    spec = RunSpec(TINY_QA, resolve_method("harness_helpers:fast_learner"), 0, 8, folder, "cpu", folder=folder)
    assert execute_run(spec).status == "done"
    (folder / "DONE").unlink()
    before = (folder / "config.json").read_bytes()
    _refuse_opening(monkeypatch, folder / "config.json", errno.EACCES)
    with pytest.raises(UnreadableFile, match=r"config\.json: cannot be opened"):
        execute_run(spec)
    monkeypatch.undo()
    assert (folder / "config.json").read_bytes() == before
