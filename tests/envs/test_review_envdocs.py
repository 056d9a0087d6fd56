"""The env pages read as code: what a reset takes as its seed (the docstrings' Starting State)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import searchgym


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "SearchQA-Candidates-v0", "SearchQA-Numeric-v0"])
def test_a_single_agent_reset_takes_a_numpy_integer_seed_as_the_int_it_is(env_id):
    """Before: ``reset(seed=np.int64(7))`` was Gymnasium's "Seed must be a python integer" on the
    single-agent ids, while the group and team envs (and every size setting) took NumPy integers."""
    numpy_env = searchgym.make(env_id, world_size="tiny")
    int_env = searchgym.make(env_id, world_size="tiny")
    obs_numpy, info_numpy = numpy_env.reset(seed=np.arange(10)[7])
    obs_int, info_int = int_env.reset(seed=7)
    assert info_numpy["task_id"] == info_int["task_id"]
    assert str(obs_numpy) == str(obs_int)
    copy = pickle.loads(pickle.dumps(numpy_env))  # the episode record replays it
    assert copy.unwrapped.task.id == info_int["task_id"]


@pytest.mark.parametrize("env_id", ["SearchQA-v0", "SearchQA-Candidates-v0", "SearchQA-Numeric-v0"])
@pytest.mark.parametrize("bad", [True, 1.5, -1, np.int64(-2), "7"])
def test_a_single_agent_reset_refuses_what_is_no_seed_as_the_multi_agent_envs_do(env_id, bad):
    """Before: ``reset(seed=True)`` played seed 1; -1 and 1.5 were Gymnasium's own errors."""
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=3)
    task = env.unwrapped.task.id
    with pytest.raises(ValueError, match=r"seed must be a non-negative int \(NumPy integers too\), got "):
        env.reset(seed=bad)
    assert env.unwrapped.task.id == task  # the refused reset changed nothing


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "GroupSearch-Candidates-v0", "TeamSearch-Candidates-v0"])
def test_an_episode_seed_past_the_largest_run_seed_plays_as_gymnasium_takes_it(env_id):
    """The harness derives episode seeds from a run's (seed x 100,003 + episode): for the largest run
    seeds they pass 2**63 - 1. Before: the group and team envs refused them, so a team run of seed
    2**63 - 1 failed at its first reset."""
    first, second = searchgym.make(env_id, world_size="tiny"), searchgym.make(env_id, world_size="tiny")
    big = (2**63 - 1) * 100_003 + 5
    obs_first, _ = first.reset(seed=big)
    obs_second, _ = second.reset(seed=big)
    assert str(obs_first) == str(obs_second)
