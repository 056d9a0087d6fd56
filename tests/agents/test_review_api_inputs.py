"""Bad input at the agents' public entry points: a one-line error naming the argument and what is
accepted (before: deep torch/numpy errors or silent wrong results). Valid input is unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import (
    AdvantageConfig,
    CalibrationConfig,
    Calibrator,
    Population,
    Step,
    Trajectory,
    compute_advantages,
    make_policy,
)

from searchgym.envs.config import MAX_SEED

OBS = {"text": "Question: who founded Vexa?", "candidates": ("a", "b", "c"),
       "action_mask": np.array([1, 1, 0], dtype=np.int8)}


def traj(*rewards: float, agent: str = "agent_0") -> Trajectory:
    steps = [Step(OBS, 0, -0.5, 0.0, r, i == len(rewards) - 1, OBS["action_mask"]) for i, r in enumerate(rewards)]
    return Trajectory(steps, agent_id=agent, task_id="t0")


# --- 1. Population.build / make_policy / policy_for -------------------------------------------


@pytest.mark.parametrize("mode", ["shared", "separate", "shared_trunk"])
@pytest.mark.parametrize("n_agents", [None, 2.0, True, "2"])
def test_population_build_rejects_non_int_n_agents(mode, n_agents):
    with pytest.raises(TypeError, match=r"n_agents must be an integer >= 1; got"):
        Population.build(mode, n_agents=n_agents, encoder="hash", device="cpu", seed=0)


def test_population_build_rejects_zero_agents():
    with pytest.raises(ValueError, match=r"n_agents must be an integer >= 1; got 0"):
        Population.build("separate", n_agents=0, encoder="hash", device="cpu", seed=0)


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), (2**70, ValueError),
                                         (True, TypeError), (None, TypeError)])
def test_population_build_rejects_bad_seed(seed, error):
    with pytest.raises(error, match=r"seed must be an integer in 0\.\."):
        Population.build("shared", n_agents=2, encoder="hash", device="cpu", seed=seed)


def test_population_build_seed_bound_counts_member_offsets():
    """A seed whose member seeds (seed + i) pass MAX_SEED is named, not left to torch's overflow."""
    Population.build("shared", n_agents=2, encoder="hash", device="cpu", seed=MAX_SEED, dim=8, hidden=8)
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.\d+ \(mode 'separate' seeds"):
        Population.build("separate", n_agents=2, encoder="hash", device="cpu", seed=MAX_SEED)
    with pytest.raises(ValueError, match=r"seed must be an integer in 0\.\.\d+ \(mode 'shared_trunk' seeds"):
        Population.build("shared_trunk", n_agents=2, encoder="hash", device="cpu", seed=MAX_SEED - 1)


def test_numpy_int_seed_and_n_agents_build_the_same_weights():
    a = Population.build("separate", n_agents=2, encoder="hash", device="cpu", seed=3, dim=8, hidden=8)
    b = Population.build("separate", n_agents=np.int64(2), encoder="hash", device="cpu", seed=np.int64(3),
                         dim=8, hidden=8)
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), (2**70, ValueError)])
def test_make_policy_rejects_bad_seed(seed, error):
    with pytest.raises(error, match=r"seed must be an integer in 0\.\."):
        make_policy("hash", seed=seed)


@pytest.mark.parametrize("key, value, error", [("hidden", 0, ValueError), ("hidden", 8.0, TypeError),
                                               ("hidden", -3, ValueError), ("dim", 8.0, TypeError),
                                               ("n_buckets", True, TypeError)])
def test_make_policy_rejects_bad_sizes(key, value, error):
    with pytest.raises(error, match=rf"{key} must be an integer >= 1 \(a size\); got"):
        make_policy("hash", seed=0, **{key: value})


def test_shared_trunk_checks_encoder_sizes():
    with pytest.raises(TypeError, match=r"dim must be an integer >= 1 \(a size\); got 8.0"):
        Population.build("shared_trunk", n_agents=2, encoder="hash", device="cpu", seed=0, dim=8.0)


def test_make_policy_checks_attn_sizes_too():
    with pytest.raises(ValueError, match=r"hidden must be an integer >= 1"):
        make_policy("attn", seed=0, hidden=0)


@pytest.mark.parametrize("index", [1.0, None, "0", True])
@pytest.mark.parametrize("mode", ["shared", "separate"])
def test_policy_for_rejects_non_int_index(mode, index):
    pop = Population.build(mode, n_agents=2, encoder="hash", device="cpu", seed=0, dim=8, hidden=8)
    with pytest.raises(TypeError, match=r"agent_index must be an integer in 0\.\.1; got"):
        pop.policy_for(index)


def test_policy_for_accepts_numpy_int():
    pop = Population.build("separate", n_agents=2, encoder="hash", device="cpu", seed=0, dim=8, hidden=8)
    assert pop.policy_for(np.int64(1)) is pop.members[1]


# --- 2. CandidatePolicy.evaluate ----------------------------------------------------------------


@pytest.fixture(scope="module")
def policy():
    return make_policy("hash", seed=0, dim=8, hidden=8)


def test_evaluate_rejects_length_mismatch(policy):
    with pytest.raises(ValueError, match=r"one action per observation; got 1 action\(s\) for 2 observations"):
        policy.evaluate([OBS, OBS], torch.tensor([0]))


@pytest.mark.parametrize("action", [999, 3, -1])
def test_evaluate_rejects_action_outside_candidates(policy, action):
    with pytest.raises(ValueError, match=rf"action {action} at position 1 is not a candidate index: accepted 0\.\.2"):
        policy.evaluate([OBS, OBS], torch.tensor([0, action]))


def test_evaluate_rejects_masked_action(policy):
    with pytest.raises(ValueError, match=r"action 2 at position 1 is masked"):
        policy.evaluate([OBS, OBS], torch.tensor([1, 2]))


def test_evaluate_valid_actions_unchanged(policy):
    actions = torch.tensor([0, 1])
    log_probs, entropy, values = policy.evaluate([OBS, OBS], actions)
    logits, values_ref = policy([OBS, OBS])
    ref, ent_ref = policy.distribution(logits)
    assert torch.equal(log_probs, ref.gather(-1, actions.view(-1, 1)).squeeze(-1))
    assert torch.equal(entropy, ent_ref) and torch.equal(values, values_ref)
    log_probs.sum().backward()  # still differentiable


# --- 3. compute_advantages / Calibrator.apply -------------------------------------------------


def test_compute_advantages_rejects_flat_list_of_trajectories():
    with pytest.raises(TypeError, match=r"groups must be a list of groups \(lists of Trajectory\), got a list "
                                        r"of Trajectory: wrap each group"):
        compute_advantages("grpo", [traj(1.0), traj(0.0)], AdvantageConfig())


@pytest.mark.parametrize("groups, match", [(None, r"groups must be a list of groups"),
                                           ([{"a": 1}], r"groups\[0\] must be a list of Trajectory"),
                                           ([[traj(1.0), "x"]], r"groups\[0\] must hold only Trajectory")])
def test_compute_advantages_rejects_other_group_shapes(groups, match):
    with pytest.raises(TypeError, match=match):
        compute_advantages("grpo", groups)


def test_compute_advantages_rejects_dict_config():
    with pytest.raises(TypeError, match=r"config must be an AdvantageConfig .*; got dict"):
        compute_advantages("grpo", [[traj(1.0), traj(0.0)]], {"gamma": 0.9})


@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "gae", "cw_round", "cw_value"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_compute_advantages_rejects_non_finite_reward(estimator, bad):
    groups = [[traj(0.0, 1.0), traj(0.0, 0.0)], [traj(0.0, 1.0), traj(0.0, bad, agent="agent_1")]]
    with pytest.raises(ValueError, match=r"groups\[1\]\[1\] \(agent 'agent_1', task 't0'\) has reward .* at step 1"):
        compute_advantages(estimator, groups)


def test_compute_advantages_non_finite_reward_in_single_member_group():
    """GRPO gives a lone trajectory advantage 0, but its value targets were NaN: named too."""
    with pytest.raises(ValueError, match=r"groups\[0\]\[0\] .* has reward nan at step 0"):
        compute_advantages("grpo", [[traj(float("nan"))]])


def test_compute_advantages_valid_input_unchanged():
    groups = [[traj(0.0, 1.0), traj(0.0, 0.0)], (traj(1.0), traj(0.0))]
    result = compute_advantages("grpo", groups, None)
    assert np.isfinite(result.flat_advantages()).all()
    assert result.flat_advantages()[0] > 0 > result.flat_advantages()[2]


@pytest.mark.parametrize("result, hint", [(None, "NoneType"), ((1, 2), r"tuple \(apply returns")])
def test_calibrator_apply_rejects_non_result(result, hint):
    with pytest.raises(TypeError, match=rf"Calibrator.apply takes the AdvantageResult of compute_advantages; "
                                        rf"got {hint}"):
        Calibrator(CalibrationConfig()).apply(result)
