"""Trajectory arrays and the contribution signal."""

from __future__ import annotations

import numpy as np
import pytest
from searchgym.agents import Step, Trajectory


def test_arrays_and_final_return(make_traj):
    traj = make_traj([0.0, -0.1, 1.0], values=[0.1, 0.2, 0.3], contributions=[1, 0, 1])
    np.testing.assert_allclose(traj.rewards, [0.0, -0.1, 1.0])
    np.testing.assert_allclose(traj.values, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(traj.contributions, [1, 0, 1])
    np.testing.assert_array_equal(traj.dones, [False, False, True])
    assert traj.final_return == pytest.approx(0.9)
    assert len(traj) == 3


def test_contribution_falls_back_to_judge_factors(make_obs):
    obs = make_obs("Q", ["current_time()"])
    explicit = Step(obs, 0, 0.0, 0.0, 0.0, False, obs["action_mask"], {"contribution": 1.0, "new_gold": 0.0})
    factors = Step(obs, 0, 0.0, 0.0, 0.0, False, obs["action_mask"], {"new_gold": 1.0, "consistent": 0.0})
    both = Step(obs, 0, 0.0, 0.0, 0.0, False, obs["action_mask"], {"new_gold": 1.0, "consistent": 1.0})
    none = Step(obs, 0, 0.0, 0.0, 0.0, False, obs["action_mask"])
    assert [explicit.contribution, factors.contribution, both.contribution, none.contribution] == [
        1.0,
        0.0,
        1.0,
        0.0,
    ]


def test_empty_trajectory_rejected():
    with pytest.raises(ValueError, match="at least one Step"):
        Trajectory([], agent_id="a", task_id="t")
