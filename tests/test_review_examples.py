"""The two single-file examples refuse what they cannot run in one usage line, and say what they did."""

from __future__ import annotations

import sys

import pytest

from searchgym.examples import cleanrl_ppo, cw_grpo_in_one_file


@pytest.mark.parametrize(("argv", "said"), [
    (["--env-id", "GroupSearch-Numeric-v0"], "invalid choice: 'GroupSearch-Numeric-v0'"),  # was AttributeError
    (["--num-steps", "0"], "--num-steps: must be at least 1, got 0"),  # was ZeroDivisionError
    (["--minibatch-size", "0"], "--minibatch-size: must be at least 1, got 0"),  # was range() arg 3
])
def test_cleanrl_ppo_refuses_what_it_cannot_run(monkeypatch, capsys, argv, said):
    monkeypatch.setattr(sys, "argv", ["cleanrl_ppo.py", *argv])
    with pytest.raises(SystemExit) as caught:
        cleanrl_ppo.parse_args()
    assert caught.value.code == 2 and said in capsys.readouterr().err


def test_cleanrl_ppo_says_how_many_dev_tasks_it_played():
    """Before: "dev success ... (500 dev tasks)" for a split of 66."""
    agent = cleanrl_ppo.Agent(*_sizes())
    _, played = cleanrl_ppo.evaluate(agent, "SearchQA-Numeric-Easy-v0", 10_000)
    import searchgym

    assert played == len(searchgym.make("SearchQA-Numeric-Easy-v0", split="dev").unwrapped.tasks.tasks("dev"))


def _sizes() -> tuple[int, int]:
    import searchgym

    env = searchgym.make("SearchQA-Numeric-Easy-v0")
    return env.observation_space.shape[0], env.action_space.n


@pytest.mark.parametrize(("argv", "said"), [
    (["--group-size", "0"], "--group-size must be at least 1, got 0"),  # was a NumPy reduction error
    (["--updates", "-1"], "--updates must be at least 1, got -1"),
    (["--eval-tasks", "-2"], "--eval-tasks must be at least 0, got -2"),
])
def test_cw_grpo_in_one_file_refuses_what_it_cannot_run(monkeypatch, capsys, argv, said):
    monkeypatch.setattr(sys, "argv", ["cw_grpo_in_one_file.py", *argv])
    with pytest.raises(SystemExit) as caught:
        cw_grpo_in_one_file.parse_args()
    assert caught.value.code == 2 and said in capsys.readouterr().err


def test_cw_grpo_in_one_file_takes_an_int_world_scale(monkeypatch):
    """Before: "--world-size 500" reached the env as the string '500' and was refused as not an int scale."""
    monkeypatch.setattr(sys, "argv", ["cw_grpo_in_one_file.py", "--world-size", "500"])
    assert cw_grpo_in_one_file.parse_args().world_size == 500


def test_cleanrl_ppo_trains_on_a_minibatch_of_one(monkeypatch, capsys):
    """Before: a last minibatch of one sample (3 steps, minibatches of 2) had a NaN std, every weight
    went NaN and the second rollout failed inside Categorical ("found invalid values")."""
    monkeypatch.setattr(sys, "argv", ["cleanrl_ppo.py", "--total-steps", "6", "--num-steps", "3",
                                      "--minibatch-size", "2", "--update-epochs", "1", "--eval-episodes", "1"])
    cleanrl_ppo.main()
    assert "update 2/2" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "said"), [
    (["--env-id", "nope"], "unknown env id 'nope'; accepted: "),  # was a traceback (UnknownNameError)
    (["--world-size", "3"], "world_size must be one of tiny, small"),  # was a traceback (ValueError)
])
def test_cw_grpo_in_one_file_names_a_bad_env_in_one_line(monkeypatch, argv, said):
    monkeypatch.setattr(sys, "argv", ["cw_grpo_in_one_file.py", *argv])
    with pytest.raises(SystemExit, match=said):
        cw_grpo_in_one_file.main()
