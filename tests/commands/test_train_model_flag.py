"""``train --model`` with a policy that loads no model is one line naming the flag, before any folder.

Before: ``--policy attn --model foo`` was refused as "policy_kwargs {'model_name_or_path': 'foo'} do
not fit --policy attn", naming an option the user never gave."""

from __future__ import annotations

import pytest

from searchgym.cli import main

TRAIN = ["train", "--world-size", "tiny", "--budget", "10", "--test-size", "2", "--no-progress",
         "--model", "foo"]


@pytest.mark.parametrize("policy", ["attn", "hash"])
def test_model_with_a_policy_that_takes_none_names_the_flag(policy, tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*TRAIN, "--policy", policy, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("searchgym train: error: --model is for --policy hf or llm (a model folder); "
                   f"--policy {policy} takes no model\n")
    assert not out.exists()


def test_minilm_is_told_where_its_folder_goes(tmp_path, capsys):
    assert main([*TRAIN, "--policy", "minilm", "--out", str(tmp_path / "run")]) == 2
    said = "--policy minilm takes no model (its MiniLM folder is policy_kwargs model_path)"
    assert said in capsys.readouterr().err


def test_hf_still_takes_model_as_its_folder(tmp_path, capsys):
    assert main([*TRAIN, "--policy", "hf", "--out", str(tmp_path / "run")]) == 2  # no such folder here
    assert "--policy hf's model 'foo' is neither a folder here" in capsys.readouterr().err
