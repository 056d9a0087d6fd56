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
