"""GRPO and Dr.GRPO: the harness methods' estimator, epsilon and loss aggregation, on hand cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from baselines_helpers import TINY_QA, TINY_TEAM, make_ctx, spec_config
from searchgym.agents import Step, Trajectory, aggregate, compute_advantages


def _traj(rewards: list[float]) -> Trajectory:
    obs = {"text": "Q", "candidates": ("a",), "action_mask": np.ones(1, dtype=np.int8)}
    steps = [Step(obs, 0, 0.0, 0.0, r, t == len(rewards) - 1, obs["action_mask"]) for t, r in enumerate(rewards)]
    return Trajectory(steps)


def test_grpo_advantages_unbiased_std_and_zero_variance(tmp_path, monkeypatch):
    config = spec_config("grpo", make_ctx(TINY_QA, tmp_path))
    assert config.estimator == "grpo" and config.loss.aggregation == "seq-mean-token-mean"
    assert config.advantage.eps == 1e-6
    # group 1: returns 1, 0, 0, 1 -> mean 0.5, unbiased std sqrt((4 * 0.25) / 3) = 0.57735;
    # A = +-0.5 / (0.57735 + 1e-6) = +-0.866024, the same on every step of a trajectory.
    # group 2: returns 0, 0 -> zero variance: A = 0 and it is counted (1 of 2 groups).
    group1 = [_traj([0.0, 1.0]), _traj([0.0]), _traj([0.0, 0.0, 0.0]), _traj([1.0])]
    group2 = [_traj([0.0]), _traj([0.0, 0.0])]
    result = compute_advantages(config.estimator, [group1, group2], config.advantage)
    a = 0.5 / (math.sqrt(1 / 3) + 1e-6)
    np.testing.assert_allclose(result.flat_advantages(), [a, a, -a, -a, -a, -a, a, 0, 0, 0], rtol=1e-9)
    assert result.stats["groups/zero_variance_fraction"] == 0.5


def test_dr_grpo_no_std_and_constant_length_aggregation(tmp_path, monkeypatch):
    config = spec_config("dr_grpo", make_ctx(TINY_TEAM, tmp_path))
    # the team suite has max_rounds=4: that is the constant L of Dr.GRPO's aggregation
    assert config.estimator == "dr_grpo"
    assert (config.loss.aggregation, config.loss.norm_length) == ("seq-mean-token-sum-norm", 4)
    # returns 1, 0, 0, 1 -> A = R - 0.5 = +-0.5 (no std division)
    group = [_traj([0.0, 1.0]), _traj([0.0]), _traj([0.0, 0.0, 0.0]), _traj([1.0])]
    result = compute_advantages(config.estimator, [group], config.advantage)
    np.testing.assert_allclose(result.flat_advantages(), [0.5, 0.5, -0.5, -0.5, -0.5, -0.5, 0.5])
    # per-step losses [1, 2] (trajectory 0) and [3] (trajectory 1):
    # Dr.GRPO: mean(3 / 4, 3 / 4) = 0.75;  GRPO: mean(3 / 2, 3 / 1) = 2.25
    losses, seq = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0, 0, 1])
    assert aggregate(losses, seq, config.loss.aggregation, config.loss.norm_length).item() == pytest.approx(0.75)
    grpo = spec_config("grpo", make_ctx(TINY_TEAM, tmp_path))
    assert aggregate(losses, seq, grpo.loss.aggregation).item() == pytest.approx(2.25)


def test_dr_grpo_reads_the_single_agent_step_limit(tmp_path):
    assert spec_config("dr_grpo", make_ctx(TINY_QA, tmp_path)).loss.norm_length == 3
