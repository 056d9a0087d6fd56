"""A policy's sizes and a trainer's batch sizes are said with one range wherever they are checked.
Before: ``policy_kwargs={"cache_size": 0}`` was "an integer >= 1" (make_policy) while 2,000,000 was
"an int in 0..1000000" (the option bounds), and ``minibatch_size: 0`` passed the bounds of
``leaderboard retrain`` ("0..100000") to be refused by the trainer (">= 1")."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.agents.llm_train import LLMTrainConfig
from searchgym.agents.policy import SIZE_KWARGS, make_policy
from searchgym.agents.train import TrainConfig
from searchgym.cli import main
from searchgym.harness.option_bounds import OPTION_LIMITS, POSITIVE_OPTIONS, option_out_of_bounds

POLICY_BOUNDS = "the bounds of a policy's options"
COMPARE = ["compare", "--suite", TINY_QA.id, "--methods", "grpo", "--seeds", "1", "--budget", "0",
           "--device", "cpu", "--no-progress"]


def test_every_size_make_policy_refuses_at_0_starts_at_1_in_the_bounds():
    assert set(SIZE_KWARGS) <= set(POSITIVE_OPTIONS)


@pytest.mark.parametrize("name", ["cache_size", "batch_size"])
@pytest.mark.parametrize("value", [0, -1, "too_big"])
def test_a_policy_cache_or_batch_size_is_one_range(name, value):
    """Too small and too big, the bounds say 1..limit; make_policy says >= 1 for the small ones."""
    limit = OPTION_LIMITS[name]
    value = limit + 1 if value == "too_big" else value
    line = option_out_of_bounds({name: value}, "policy_kwargs", POLICY_BOUNDS)
    assert line == f"policy_kwargs.{name} ({value}) is outside {POLICY_BOUNDS} for {name}: an int in 1..{limit}"
    if value < 1:
        with pytest.raises(ValueError, match=rf"^{name} must be an integer >= 1 \(a size\); got {value}$"):
            make_policy("hash", seed=0, **{name: value})


def test_heads_is_a_size_in_the_bounds_too():
    line = option_out_of_bounds({"policy_kwargs": {"heads": 0}}, "run.options", "the retrain limit")
    assert line == "run.options.policy_kwargs.heads (0) is outside the retrain limit for heads: an int in 1..1000000"


@pytest.mark.parametrize(("name", "trainer"), [("minibatch_size", TrainConfig), ("mini_batch_size", LLMTrainConfig),
                                              ("micro_batch_size", LLMTrainConfig)])
def test_a_trainers_batch_size_starts_at_1_or_is_null(name, trainer):
    """As the trainer that reads it refuses 0 (null: the whole batch)."""
    line = option_out_of_bounds({name: 0}, "run.options", "the retrain limit")
    assert line == f"run.options.{name} (0) is outside the retrain limit for {name}: an int in 1..{OPTION_LIMITS[name]}"
    assert option_out_of_bounds({name: None}) is None and option_out_of_bounds({name: 1}) is None
    with pytest.raises(ValueError, match=f"{name} must be"):
        trainer(**{name: 0})


def test_the_sizes_that_build_stay_accepted():
    assert option_out_of_bounds({"policy_kwargs": {"cache_size": 1, "batch_size": 1024, "heads": 4}}) is None


@pytest.mark.parametrize("value", [0, 2_000_000])
def test_compare_says_the_same_range_for_a_cache_size_too_small_or_too_big(value, tmp_path, capsys):
    out = tmp_path / "out"
    assert main([*COMPARE, "--option", f'policy_kwargs={{"cache_size": {value}}}', "--out", str(out)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (f"searchgym compare: error: method 'grpo': policy_kwargs.cache_size ({value}) is outside "
                    f"{POLICY_BOUNDS} for cache_size: an int in 1..1000000")
    assert not (out / "runs").exists()


@pytest.mark.parametrize("name", ["max_turns", "max_new_tokens", "max_episode_tokens"])
def test_an_llm_runs_turn_and_token_caps_start_at_1_as_its_rollout_refuses_0(name):
    """Before: the bounds said "0..N" and the rollout's own check "an integer in [1, ...]"."""
    from searchgym.agents.llm_rollout import RolloutConfig
    from searchgym.agents.config_checks import check_rollout_lengths

    line = option_out_of_bounds({name: 0}, "run.options", "the retrain limit")
    assert line == f"run.options.{name} (0) is outside the retrain limit for {name}: an int in 1..{OPTION_LIMITS[name]}"
    with pytest.raises(ValueError, match=f"{name} must be an integer in \\[1, "):
        check_rollout_lengths(RolloutConfig(**{name: 0}))


@pytest.mark.parametrize("name", ["max_steps", "max_rounds"])
def test_an_envs_step_and_round_limits_start_at_1_as_the_env_refuses_0(name):
    line = option_out_of_bounds({"env_kwargs": {name: 0}}, "run.options", "the retrain limit")
    assert line == (f"run.options.env_kwargs.{name} (0) is outside the retrain limit for {name}: "
                    f"an int in 1..{OPTION_LIMITS[name]}")
