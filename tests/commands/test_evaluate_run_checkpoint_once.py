"""`searchgym evaluate --agent run` reads the run's checkpoint once, with its trainer's cap and keys.

Before: torch.load read it four times in one command (check_options, called twice, then the rebuild and
the trainer's load), and all but the last with the cap of every torch file (256 GiB) and the default
keys: a checkpoint past the trainer's cap, or with a key its trainer does not write, was loaded, and then
refused only inside the evaluation, after its folder was made."""

from __future__ import annotations

import shutil

import pytest
import torch

from searchgym.agents import sft_base
from searchgym.agents.trainer_base import CHECKPOINT_KEYS, max_checkpoint_bytes, read_checkpoint
from searchgym.cli import main
from searchgym.damaged import DamagedFile

TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "200", "--test-size", "4",
         "--no-progress"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished `searchgym train` run folder of cw_grpo (about 5 s)."""
    out = tmp_path_factory.mktemp("train") / "x"
    assert main(["train", *TRAIN, "--out", str(out)]) == 0
    return out


@pytest.fixture
def loads(monkeypatch):
    """Every torch.load call's weights_only argument."""
    seen, original = [], torch.load

    def spy(*args, **kwargs):
        seen.append(kwargs.get("weights_only"))
        return original(*args, **kwargs)

    monkeypatch.setattr(torch, "load", spy)
    return seen


def _evaluate(run, out, capsys):
    capsys.readouterr()
    rc = main(["evaluate", "--agent", "run", "--agent-option", f"path={run}", "--out", str(out), "--no-progress",
               "--limit", "1"])
    return rc, capsys.readouterr().err.strip().splitlines()


def test_the_checkpoint_is_loaded_once_and_weights_only(trained, tmp_path, capsys, loads):
    rc, err = _evaluate(trained, tmp_path / "ev", capsys)
    assert rc == 0, err
    assert loads == [True]


def _refused_like_the_trainer(run, out, capsys, loads, keys=CHECKPOINT_KEYS):
    path = run / "checkpoint" / "checkpoint.pt"
    with pytest.raises(DamagedFile) as trainers:  # what TrainerBase.load says of it
        read_checkpoint(path, keys=keys, max_bytes=max_checkpoint_bytes("hash"))
    loads.clear()
    rc, err = _evaluate(run, out, capsys)
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith(f"searchgym evaluate: damaged file: {path}: {trainers.value.what}; "), err
    assert not out.exists()
    return err[0]


def test_a_checkpoint_past_the_trainers_cap_is_refused_unread_before_any_folder(trained, tmp_path, capsys, loads,
                                                                                monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    size = (run / "checkpoint" / "checkpoint.pt").stat().st_size
    monkeypatch.setattr(sft_base, "MAX_BOUNDED_BASE_BYTES", size // 8)  # the trainer's cap: 4 x that, under size
    line = _refused_like_the_trainer(run, tmp_path / "ev", capsys, loads)
    assert f"is {size} bytes, more than the {4 * (size // 8)} such a file may hold" in line
    assert loads == []  # refused by its size, never loaded


def test_a_key_its_trainer_does_not_write_is_refused_before_any_folder(trained, tmp_path, capsys, loads, monkeypatch):
    from searchgym.agents.train import Trainer

    run = tmp_path / "run"
    shutil.copytree(trained, run)
    narrower = CHECKPOINT_KEYS - {"calibrator"}  # a trainer whose checkpoints hold no calibrator
    monkeypatch.setattr(Trainer, "checkpoint_keys", narrower)
    line = _refused_like_the_trainer(run, tmp_path / "ev", capsys, loads, keys=narrower)
    assert "holds the key(s) 'calibrator', which no checkpoint of a searchgym trainer holds" in line
