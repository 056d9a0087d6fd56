"""The single-file examples refuse a number they cannot train with in one usage line, and say what
each option is in --help (before: ``--lr -1`` or ``--lr nan`` was a ValueError traceback from Adam,
a gamma of 2 trained on nonsense, and most options had no help at all)."""

from __future__ import annotations

import sys

import pytest

from searchgym.examples import cleanrl_ppo, cw_grpo_in_one_file


@pytest.mark.parametrize(("argv", "said"), [
    (["--lr", "-1"], "argument --lr: must be a finite number > 0, got -1"),
    (["--lr", "nan"], "argument --lr: must be a finite number > 0, got nan"),
    (["--lr", "0"], "argument --lr: "),
    (["--gamma", "1.5"], "argument --gamma: must be a finite number >= 0 and <= 1, got 1.5"),
    (["--gae-lambda", "-0.1"], "argument --gae-lambda: must be a finite number >= 0 and <= 1"),
    (["--clip-coef", "0"], "argument --clip-coef: must be a finite number > 0"),
    (["--ent-coef", "-1"], "argument --ent-coef: must be a finite number >= 0"),
    (["--vf-coef", "inf"], "argument --vf-coef: must be a finite number >= 0"),
    (["--seed", "-1"], "argument --seed: must be at least 0, got -1"),
])
def test_cleanrl_ppo_refuses_a_number_it_cannot_train_with(monkeypatch, capsys, argv, said):
    monkeypatch.setattr(sys, "argv", ["cleanrl_ppo.py", *argv, "--total-steps", "10"])
    with pytest.raises(SystemExit) as caught:
        cleanrl_ppo.parse_args()
    err = capsys.readouterr().err
    assert caught.value.code == 2 and said in err and "Traceback" not in err, err


@pytest.mark.parametrize(("argv", "said"), [
    (["--lr", "-1"], "--lr must be a finite number > 0, got -1.0"),
    (["--lr", "nan"], "--lr must be a finite number > 0, got nan"),
    (["--clip-coef", "0"], "--clip-coef must be a finite number > 0, got 0.0"),
    (["--round-gamma", "inf"], "--round-gamma must be a finite number >= 0, got inf"),
    (["--seed", "-1"], "--seed must be at least 0, got -1"),
])
def test_cw_grpo_in_one_file_refuses_a_number_it_cannot_train_with(monkeypatch, capsys, argv, said):
    monkeypatch.setattr(sys, "argv", ["cw_grpo_in_one_file.py", *argv, "--updates", "1"])
    with pytest.raises(SystemExit) as caught:
        cw_grpo_in_one_file.parse_args()
    err = capsys.readouterr().err
    assert caught.value.code == 2 and said in err and "Traceback" not in err, err


def test_the_defaults_still_parse():
    args = cleanrl_ppo.parse_args([])
    assert (args.lr, args.gamma, args.gae_lambda, args.clip_coef, args.seed) == (1e-3, 0.99, 0.95, 0.2, 0)
    assert cleanrl_ppo.parse_args(["--gamma", "1", "--gae-lambda", "0", "--ent-coef", "0"]).gamma == 1.0
    assert cw_grpo_in_one_file.parse_args([]) == cw_grpo_in_one_file.Args()


@pytest.mark.parametrize(("example", "options"), [
    (cleanrl_ppo, ["--gamma", "--gae-lambda", "--update-epochs", "--minibatch-size", "--clip-coef", "--ent-coef",
                   "--vf-coef", "--seed"]),
    (cw_grpo_in_one_file, [f"--{f.name.replace('_', '-')}" for f in cw_grpo_in_one_file.dataclasses.fields(
        cw_grpo_in_one_file.Args)]),
])
def test_every_option_has_help_with_its_default(monkeypatch, capsys, example, options):
    monkeypatch.setattr(sys, "argv", ["example.py", "--help"])
    with pytest.raises(SystemExit):
        example.parse_args()
    lines = capsys.readouterr().out.split("\n  --")[1:]  # one block per option
    helped = {"--" + block.split()[0]: " ".join(block.split()) for block in lines}
    for option in options:
        assert "default" in helped[option], helped[option]
    assert "0 for all" in helped.get("--eval-tasks", "0 for all")
