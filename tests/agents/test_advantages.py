"""Every estimator against hand-computed numbers (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from searchgym.agents import (
    ADVANTAGE_ESTIMATORS,
    AdvantageConfig,
    EstimatorOutput,
    compute_advantages,
    register_estimator,
    round_weights,
    value_contribution,
)


def test_registry_lists_all_estimators_and_rejects_unknown(make_traj):
    assert {"gae", "grpo", "dr_grpo", "cw_value", "cw_round"} <= set(ADVANTAGE_ESTIMATORS)
    with pytest.raises(ValueError, match="accepted: .*cw_round"):
        compute_advantages("ppo_magic", [[make_traj([1.0])]])
    with pytest.raises(ValueError, match="already registered"):
        register_estimator("grpo")(lambda group, config: None)


def test_register_custom_estimator(make_traj):
    with ADVANTAGE_ESTIMATORS.scoped():
        @register_estimator("test_constant_two")
        def constant(group, config):
            return EstimatorOutput([np.full(len(t), 2.0) for t in group], [t.rewards for t in group])

        res = compute_advantages("test_constant_two", [[make_traj([0.0, 1.0])]])
        np.testing.assert_allclose(res.advantages[0], [2.0, 2.0])
        assert not ADVANTAGE_ESTIMATORS["test_constant_two"].needs_values and ADVANTAGE_ESTIMATORS["gae"].needs_values
    assert "test_constant_two" not in ADVANTAGE_ESTIMATORS


def test_gae_hand_computed(make_traj):
    # gamma=0.9, lam=0.8; r=[0,0,1], V=[0.5,0.4,0.8], episode ends at t=2.
    # t=2: delta = 1 - 0.8 = 0.2;                 A2 = 0.2
    # t=1: delta = 0.9*0.8 - 0.4 = 0.32;          A1 = 0.32 + 0.72*0.2 = 0.464
    # t=0: delta = 0.9*0.4 - 0.5 = -0.14;         A0 = -0.14 + 0.72*0.464 = 0.19408
    # returns = A + V = [0.69408, 0.864, 1.0]
    cfg = AdvantageConfig(gamma=0.9, gae_lambda=0.8)
    res = compute_advantages("gae", [[make_traj([0, 0, 1], values=[0.5, 0.4, 0.8])]], cfg)
    np.testing.assert_allclose(res.advantages[0], [0.19408, 0.464, 0.2], atol=1e-12)
    np.testing.assert_allclose(res.returns[0], [0.69408, 0.864, 1.0], atol=1e-12)


def test_gae_bootstraps_truncated_trajectory_only(make_traj):
    # truncated: delta = 1 + 0.9*2.0 - 0.5 = 2.3 ; finished: bootstrap ignored -> 1 - 0.5 = 0.5
    cfg = AdvantageConfig(gamma=0.9, gae_lambda=0.8)
    cut = make_traj([1.0], values=[0.5], done=False, bootstrap_value=2.0)
    ended = make_traj([1.0], values=[0.5], done=True, bootstrap_value=2.0)
    res = compute_advantages("gae", [[cut, ended]], cfg)
    np.testing.assert_allclose(res.advantages[0], [2.3])
    np.testing.assert_allclose(res.advantages[1], [0.5])


def test_grpo_normalised_with_unbiased_std_and_broadcast(make_traj):
    # R = [1, 0, 0.5] (sums of rewards), mean 0.5, deviations [0.5, -0.5, 0]
    # std ddof=1 = sqrt((0.25 + 0.25 + 0) / 2) = 0.5 ; A = dev / (0.5 + 1e-6) = [0.999998, -0.999998, 0]
    group = [make_traj([0.0, 1.0]), make_traj([0.0]), make_traj([0.2, 0.3])]
    res = compute_advantages("grpo", [group])
    a = 0.5 / (0.5 + 1e-6)
    np.testing.assert_allclose(res.advantages[0], [a, a])
    np.testing.assert_allclose(res.advantages[1], [-a])
    np.testing.assert_allclose(res.advantages[2], [0.0, 0.0], atol=1e-12)
    # value targets: reward-to-go with gamma=1 -> [1, 1], [0], [0.5, 0.3]
    np.testing.assert_allclose(res.returns[2], [0.5, 0.3])
    assert res.stats["groups/zero_variance"] == 0


def test_grpo_zero_variance_groups_give_zero_and_are_counted(make_traj):
    same = [make_traj([1.0]), make_traj([0.0, 1.0])]  # R = [1, 1]
    single = [make_traj([0.7])]  # one member: no std
    varied = [make_traj([1.0]), make_traj([0.0])]
    res = compute_advantages("grpo", [same, single, varied])
    for i in range(3):
        assert np.all(res.advantages[i] == 0.0)
    assert res.stats["groups/zero_variance"] == 2
    assert res.stats["groups/zero_variance_fraction"] == pytest.approx(2 / 3)
    assert res.group_index == [0, 0, 1, 2, 2]


def test_dr_grpo_drops_std_division(make_traj):
    # R = [1, 0, 0.5], mean 0.5 -> A = [0.5, -0.5, 0]
    group = [make_traj([1.0]), make_traj([0.0]), make_traj([0.25, 0.25])]
    res = compute_advantages("dr_grpo", [group])
    np.testing.assert_allclose(res.flat_advantages(), [0.5, -0.5, 0.0, 0.0])


def _cw_value_group(make_traj):
    # gamma = lam = 1, so GAE A_t = G_t - V_t.
    # traj A: r=[0,0,1], V=[0.2,0.9,0.5] -> G=[1,1,1], A_t=[0.8,0.1,0.5]; phi = (3/3)*(1.4/3) = 0.466667; R=1
    # traj B: r=[0,0],   V=[0.5,-0.25]  -> G=[0,0],   A_t=[-0.5,0.25];  phi = (1/2)*0.25 = 0.125;     R=0
    # mean R = 0.5 -> group terms +0.5 / -0.5
    return [make_traj([0, 0, 1], values=[0.2, 0.9, 0.5]), make_traj([0, 0], values=[0.5, -0.25])]


def test_value_contribution_formula():
    assert value_contribution(np.array([0.8, 0.1, 0.5])) == pytest.approx(1.4 / 3)
    assert value_contribution(np.array([-0.5, 0.25])) == pytest.approx(0.125)
    assert value_contribution(np.array([-1.0, 0.0])) == 0.0


def test_cw_value_default_clip_is_half_to_two(make_traj):
    # phi_A = 0.4667 -> clip to 0.5 -> 0.5*0.5 = 0.25 ; phi_B = 0.125 -> 0.5 -> 0.5*(-0.5) = -0.25
    cfg = AdvantageConfig(gamma=1.0, gae_lambda=1.0)
    res = compute_advantages("cw_value", [_cw_value_group(make_traj)], cfg)
    np.testing.assert_allclose(res.advantages[0], [0.25] * 3)
    np.testing.assert_allclose(res.advantages[1], [-0.25] * 2)
    np.testing.assert_allclose(res.returns[0], [1, 1, 1])  # GAE returns = A_t + V_t
    np.testing.assert_allclose(res.returns[1], [0, 0])
    assert res.stats["estimator/phi_mean"] == pytest.approx((1.4 / 3 + 0.125) / 2)


def test_cw_value_custom_clip_bounds(make_traj):
    # lo=0.1, hi=0.3: A: clip(0.4667)=0.3 -> 0.15 ; B: 0.125 inside -> 0.125*(-0.5) = -0.0625
    cfg = AdvantageConfig(gamma=1.0, gae_lambda=1.0, cw_clip_lo=0.1, cw_clip_hi=0.3)
    res = compute_advantages("cw_value", [_cw_value_group(make_traj)], cfg)
    np.testing.assert_allclose(res.advantages[0][0], 0.15)
    np.testing.assert_allclose(res.advantages[1][0], -0.0625)


def test_cw_value_group_normalisation(make_traj):
    # mean phi = (0.466667 + 0.125)/2 = 0.295833 ; phi' = [1.577465, 0.422535]
    # clip to [0.5, 2]: [1.577465, 0.5] -> A = [1.577465*0.5, 0.5*(-0.5)] = [0.788732, -0.25]
    cfg = AdvantageConfig(gamma=1.0, gae_lambda=1.0, cw_group_normalize=True)
    res = compute_advantages("cw_value", [_cw_value_group(make_traj)], cfg)
    np.testing.assert_allclose(res.advantages[0][0], 0.788732, atol=1e-6)
    np.testing.assert_allclose(res.advantages[1][0], -0.25)


def test_cw_value_group_normalisation_guards_all_zero_phi(make_traj):
    # every GAE step negative -> phi = 0 for all; mean 0 -> no division; clip(0) = lo = 0.5
    # R = [0, -1], mean -0.5 -> A = 0.5 * [0.5, -0.5] = [0.25, -0.25]
    cfg = AdvantageConfig(gamma=1.0, gae_lambda=1.0, cw_group_normalize=True)
    group = [make_traj([0.0], values=[1.0]), make_traj([-1.0], values=[0.0])]
    res = compute_advantages("cw_value", [group], cfg)
    assert np.all(np.isfinite(res.flat_advantages()))
    np.testing.assert_allclose(res.flat_advantages(), [0.25, -0.25])


A_ROUND = 0.5 / (math.sqrt(0.5) + 1e-6)  # R=[1,0]: mean 0.5, std ddof1 sqrt(0.5) -> A = +-0.7071058


def _round_group(make_traj, contributions=(1.0, 0.0, 1.0)):
    return [make_traj([0, 0, 1], contributions=list(contributions)), make_traj([0, 0], contributions=[1, 0])]


def test_cw_round_softmax_weights(make_traj):
    # success (A>=0), K=3: c over non-final rounds = [1, 0] (final round's c ignored)
    # w = softmax([1, 0]) = [e/(e+1), 1/(e+1)] = [0.7310586, 0.2689414]
    # round advantages = A*(K-1)*w = 0.7071058*2*w = [1.0338715, 0.3803401]; final = 0.7071058
    # failure (A<0): every round keeps -0.7071058
    res = compute_advantages("cw_round", [_round_group(make_traj)], AdvantageConfig(round_gamma=1.0))
    np.testing.assert_allclose(res.advantages[0], [1.0338715, 0.3803401, A_ROUND], atol=1e-6)
    np.testing.assert_allclose(res.advantages[1], [-A_ROUND, -A_ROUND])
    assert res.advantages[0][:2].sum() == pytest.approx(2 * A_ROUND)  # credit is redistributed, not created


def test_cw_round_gamma_sharpens(make_traj):
    # gamma=2: softmax([2, 0]) = [0.8807971, 0.1192029] -> [1.2456334, 0.1685782]
    res = compute_advantages("cw_round", [_round_group(make_traj)], AdvantageConfig(round_gamma=2.0))
    np.testing.assert_allclose(res.advantages[0], [1.2456334, 0.1685782, A_ROUND], atol=1e-6)


def test_cw_round_gamma_inf_proportional_and_uniform_when_no_contribution(make_traj):
    # gamma=inf: w = c / sum c = [1, 0] -> [2A, 0, A]
    res = compute_advantages("cw_round", [_round_group(make_traj)], AdvantageConfig(round_gamma=math.inf))
    np.testing.assert_allclose(res.advantages[0], [2 * A_ROUND, 0.0, A_ROUND])
    # c = [0, 0]: uniform w = [0.5, 0.5] -> every round A
    res = compute_advantages(
        "cw_round", [_round_group(make_traj, (0, 0, 0))], AdvantageConfig(round_gamma=math.inf)
    )
    np.testing.assert_allclose(res.advantages[0], [A_ROUND] * 3)
    np.testing.assert_allclose(round_weights(np.array([0.0, 0.0, 0.0]), 1.0), [1 / 3] * 3)


def test_cw_round_single_round_and_zero_variance(make_traj):
    group = [make_traj([1.0], contributions=[1.0]), make_traj([0.0])]
    res = compute_advantages("cw_round", [group])
    np.testing.assert_allclose(res.flat_advantages(), [A_ROUND, -A_ROUND])
    same = [make_traj([1, 0], contributions=[1, 1]), make_traj([0, 1])]
    res = compute_advantages("cw_round", [same])
    assert np.all(res.flat_advantages() == 0.0)
    assert res.stats["groups/zero_variance"] == 1


def test_cw_round_is_per_agent_in_team_groups(make_traj):
    # a team episode: two agents, same group; each agent's weights use only its own rounds
    searcher = make_traj([0, 0, 1], contributions=[0, 1, 0], agent_id="searcher")
    answerer = make_traj([0, 0, 0], contributions=[1, 0, 0], agent_id="answerer")
    res = compute_advantages("cw_round", [[searcher, answerer]], AdvantageConfig(round_gamma=math.inf))
    np.testing.assert_allclose(res.advantages[0], [0.0, 2 * A_ROUND, A_ROUND])  # searcher succeeded, R=1
    np.testing.assert_allclose(res.advantages[1], [-A_ROUND] * 3)  # answerer R=0: negative, unchanged


# A successful team member's rounds: a lookup that found gold (c=1), the clock (nothing new: c=0),
# a calculation, a post, the answer; paired with a failure, R = [1, 0] -> A = +-0.7071058.
TOOL_KINDS = ["web_search", "current_time", "calculator", "post", "answer"]


def _tool_group(make_traj, contributions=(1, 0, 0, 0, 0)):
    success = make_traj([0, 0, 0, 0, 1], contributions=list(contributions), kinds=TOOL_KINDS)
    failure = make_traj([0, 0, 0, 0, 0], contributions=[1, 1, 0, 0, 0], kinds=TOOL_KINDS)
    return [success, failure]


def test_cw_round_shares_only_among_rounds_that_can_reveal_evidence(make_traj):
    # default cw_rounds="evidence": shared = lookup and clock, c = [1, 0]
    # w = softmax([1, 0]) = [0.7310586, 0.2689414]; each gets A * 2 * w = [1.0338715, 0.3803401]
    # calculator, post and the answer keep A; the failure keeps -A everywhere
    res = compute_advantages("cw_round", [_tool_group(make_traj)], AdvantageConfig(round_gamma=1.0))
    np.testing.assert_allclose(res.advantages[0], [1.0338715, 0.3803401, A_ROUND, A_ROUND, A_ROUND], atol=1e-6)
    np.testing.assert_allclose(res.advantages[1], [-A_ROUND] * 5)
    assert res.advantages[0].sum() == pytest.approx(5 * A_ROUND)  # the trajectory's total is GRPO's


def test_cw_round_all_rounds_is_the_rule_before_the_fix(make_traj):
    # cw_rounds="all": the 4 non-final rounds share 4A by softmax([1, 0, 0, 0]):
    # e/(e+3) = 0.3361347 -> 1.3445387, 1/(e+3) = 0.1236570 -> 0.4946281 (calculator and post included)
    res = compute_advantages("cw_round", [_tool_group(make_traj)], AdvantageConfig(round_gamma=1.0, cw_rounds="all"))
    np.testing.assert_allclose(res.advantages[0], [1.3445387, 0.4946281, 0.4946281, 0.4946281, A_ROUND],
                               atol=1e-6)


def test_cw_round_paper_code_at_gamma_inf(make_traj):
    # the paper's released rule: gamma=inf over every non-final round, c / sum(c) = [1, 0, 0, 0] -> [4A, 0, 0, 0]
    paper = AdvantageConfig(round_gamma=math.inf, cw_rounds="all", cw_zero_sum="zero")
    res = compute_advantages("cw_round", [_tool_group(make_traj)], paper)
    np.testing.assert_allclose(res.advantages[0], [4 * A_ROUND, 0.0, 0.0, 0.0, A_ROUND])
    # no round contributed: its code gives every non-final round 0 (ours: uniform, i.e. A)
    res = compute_advantages("cw_round", [_tool_group(make_traj, (0, 0, 0, 0, 0))], paper)
    np.testing.assert_allclose(res.advantages[0], [0.0, 0.0, 0.0, 0.0, A_ROUND])
    res = compute_advantages("cw_round", [_tool_group(make_traj, (0, 0, 0, 0, 0))],
                             AdvantageConfig(round_gamma=math.inf))
    np.testing.assert_allclose(res.advantages[0], [A_ROUND] * 5)


def test_cw_round_without_evidence_rounds_is_grpo(make_traj):
    # calculator, post, answer only: nothing to share, every round keeps A (not counted as differing)
    kinds = ["calculator", "post", "answer"]
    group = [make_traj([0, 0, 1], contributions=[0, 0, 0], kinds=kinds), make_traj([0, 0, 0], kinds=kinds)]
    res = compute_advantages("cw_round", [group])
    np.testing.assert_allclose(res.advantages[0], [A_ROUND] * 3)
    assert res.stats["estimator/differs_from_grpo_mean"] == 0.0


def test_cw_options_are_checked():
    with pytest.raises(ValueError, match="unknown cw_rounds 'tools'; accepted: evidence, all"):
        AdvantageConfig(cw_rounds="tools")
    with pytest.raises(ValueError, match="unknown cw_zero_sum 'none'; accepted: uniform, zero"):
        AdvantageConfig(cw_zero_sum="none")


def test_stats_split_positive_negative_and_contributions(make_traj):
    # dr_grpo, R = [1, 0, 0] -> mean 1/3 -> A = [2/3, -1/3, -1/3]; steps: 2 + 1 + 1
    group = [make_traj([0, 1], contributions=[1, 0]), make_traj([0], contributions=[1]), make_traj([0])]
    res = compute_advantages("dr_grpo", [group])
    s = res.stats
    assert s["adv/pos_mean"] == pytest.approx(2 / 3)
    assert s["adv/neg_mean"] == pytest.approx(-1 / 3)
    assert s["adv/pos_fraction"] == pytest.approx(0.5)  # 2 of 4 steps
    assert s["contribution/step_rate"] == pytest.approx(0.5)  # 2 of 4 steps contributed
    assert s["contribution/traj_any_fraction"] == pytest.approx(2 / 3)
    np.testing.assert_array_equal(res.seq_ids(), [0, 0, 1, 2])


def test_empty_group_rejected(make_traj):
    with pytest.raises(ValueError, match="at least one trajectory"):
        compute_advantages("grpo", [[make_traj([1.0])], []])
