"""How options reach `train` and `compare`. Before: `train --option lr=0.1` (the form the docs give)
was read as `--options lr=0.1` and refused as "not a JSON object"; `--options` given twice, a JSON
key given twice, and `compare --option lr=...` given twice each kept the last value, silently."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.fileio import read_json

TRAIN = ["train", "--method", "grpo", "--env", "SearchQA-Candidates-Easy-v0", "--world-size", "tiny",
         "--test-size", "2", "--budget", "8", "--device", "cpu", "--no-progress"]


def test_train_takes_option_key_value_as_compare_does(tmp_path):
    out = tmp_path / "run"
    assert main([*TRAIN, "--option", "lr=0.01", "--option", 'policy_kwargs={"dim": 8}', "--options",
                 '{"group_size": 2}', "--out", str(out)]) == 0
    assert read_json(out / "config.json")["options"] == {"group_size": 2, "lr": 0.01, "policy_kwargs": {"dim": 8}}


@pytest.mark.parametrize(("extra", "message"), [
    (["--option", "lr=-1"], "method 'grpo': lr must be a number > 0"),
    (["--option", "lr=0.1", "--option", "lr=0.2"], "--option lr is given twice (lr=0.1, then lr=0.2); give it once"),
    (["--options", '{"lr": 0.1, "lr": 0.2}'], "--options names 'lr' twice; give each option once"),
    (["--options", '{"lr": 0.1}', "--options", '{"group_size": 2}'], "--options is given twice (the second replaced"),
    (["--options", '{"lr": 0.1}', "--option", "lr=0.2"], "option 'lr' is given by both --options and --option"),
])
def test_train_refuses_an_option_given_twice_or_wrong_before_any_folder(tmp_path, capsys, extra, message):
    out = tmp_path / "run"
    assert main([*TRAIN, *extra, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"searchgym train: error: {message}" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_compare_refuses_an_option_given_twice_with_two_values(tmp_path, capsys):
    out = tmp_path / "cmp"
    args = ["compare", "--suite", TINY_QA.id, "--methods", "grpo", "--budget", "8", "--device", "cpu", "--out", str(out)]
    assert main([*args, "--option", "lr=0.1", "--option", "lr=0.01"]) == 2
    assert "--option lr is given twice (lr=0.1, then lr=0.01); give it once" in capsys.readouterr().err
    assert not out.exists()
