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
@pytest.mark.parametrize("bad", [True, 1.5, -1, 2**63, "7"])
def test_a_single_agent_reset_refuses_what_is_no_seed_as_the_multi_agent_envs_do(env_id, bad):
    """Before: ``reset(seed=True)`` played seed 1 and ``reset(seed=2**64)`` was taken, past the largest
    seed the env pages, the group and the team envs state; -1 and 1.5 were Gymnasium's own errors,
    which named no bounds."""
    env = searchgym.make(env_id, world_size="tiny")
    env.reset(seed=3)
    task = env.unwrapped.task.id
    with pytest.raises(ValueError, match=r"seed must be an int in 0\.\.9223372036854775807, got "):
        env.reset(seed=bad)
    assert env.unwrapped.task.id == task  # the refused reset changed nothing
    env.reset(seed=2**63 - 1)  # the largest accepted seed plays
