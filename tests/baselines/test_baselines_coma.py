"""COMA: TD(lambda) targets, the counterfactual baseline over admissible candidates, and masking."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from searchgym.agents import Step, Trajectory, make_policy
from searchgym.baselines.coma import counterfactual_advantages, counterfactual_baseline, td_lambda_targets
from searchgym.baselines.critics import CandidateQCritic, CriticInputs, critic_inputs


def test_td_lambda_targets_by_hand():
    r, q, d = np.array([0.0, 0.0, 1.0]), np.array([0.2, 0.5, 0.9]), np.array([False, False, True])
    # gamma 1, lambda 0.8: G2 = r2 = 1 (done); G1 = 0 + 0.2 * q2 + 0.8 * G2 = 0.18 + 0.8 = 0.98;
    # G0 = 0 + 0.2 * q1 + 0.8 * G1 = 0.1 + 0.784 = 0.884
    np.testing.assert_allclose(td_lambda_targets(r, q, d, 1.0, 0.8), [0.884, 0.98, 1.0])
    # gamma 0.9: G1 = 0.9 * (0.18 + 0.8) = 0.882; G0 = 0.9 * (0.1 + 0.8 * 0.882) = 0.72504
    np.testing.assert_allclose(td_lambda_targets(r, q, d, 0.9, 0.8), [0.72504, 0.882, 1.0])
    # lambda 1 is the Monte Carlo return, lambda 0 the one-step SARSA target r_t + Q(s_{t+1}, u_{t+1})
    np.testing.assert_allclose(td_lambda_targets(r, q, d, 1.0, 1.0), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(td_lambda_targets(r, q, d, 1.0, 0.0), [0.5, 0.9, 1.0])
    # a trajectory cut before the end bootstraps from the given value: G0 = 0 + 0.5 * 2 + 0.5 * 2 = 2
    np.testing.assert_allclose(td_lambda_targets(np.array([0.0]), np.array([0.3]), np.array([False]), 1.0, 0.5,
                                                 bootstrap=2.0), [2.0])


def known_critic(agent: int, other_action: str) -> list[float]:
    """A fixed Q(s, u_-a, a, .) for two agents with three candidates each, indexed by the other's action."""
    table = {
        (0, "b1"): [1.0, 0.0, 2.0],
        (0, "b0"): [0.0, 3.0, 0.0],
        (1, "a0"): [0.4, 0.8, 5.0],
    }
    return table[(agent, other_action)]


def test_counterfactual_advantage_two_agents_three_candidates():
    # agent 0 took a0, agent 1 took b1. pi_0 = (0.5, 0.3, 0.2); pi_1 = (0.25, 0.75, 0) with b2 masked.
    q = torch.tensor([known_critic(0, "b1"), known_critic(1, "a0")])
    probs = torch.tensor([[0.5, 0.3, 0.2], [0.25, 0.75, 0.0]])
    mask = torch.tensor([[True, True, True], [True, True, False]])
    actions = torch.tensor([0, 1])
    # agent 0: baseline 0.5 * 1 + 0.3 * 0 + 0.2 * 2 = 0.9; A = Q(a0) - 0.9 = 1 - 0.9 = 0.1
    # agent 1: baseline 0.25 * 0.4 + 0.75 * 0.8 = 0.7 (b2 masked, its Q = 5 left out); A = 0.8 - 0.7 = 0.1
    np.testing.assert_allclose(counterfactual_baseline(q, probs, mask).numpy(), [0.9, 0.7], rtol=1e-6)
    np.testing.assert_allclose(counterfactual_advantages(q, probs, actions, mask).numpy(), [0.1, 0.1], atol=1e-6)
    # the counterfactual is over agent 0's own action with agent 1's fixed: had agent 1 taken b0,
    # Q = (0, 3, 0), baseline 0.3 * 3 = 0.9 and a0 would be worth 0 - 0.9 = -0.9
    q_b0 = torch.tensor([known_critic(0, "b0")])
    assert counterfactual_advantages(q_b0, probs[:1], actions[:1], mask[:1]).item() == pytest.approx(-0.9)


@pytest.mark.parametrize("huge", [1e30, math.inf, -math.inf, math.nan])
def test_masked_candidate_with_huge_q_does_not_change_the_baseline(huge):
    probs = torch.tensor([[0.25, 0.75, 0.0]])
    mask = torch.tensor([[True, True, False]])
    q = torch.tensor([[0.4, 0.8, huge]])
    assert counterfactual_baseline(q, probs, mask).item() == pytest.approx(0.7)
    assert counterfactual_advantages(q, probs, torch.tensor([1]), mask).item() == pytest.approx(0.1)
    # even a (wrong) non-zero probability on a masked candidate cannot leak into the sum
    assert counterfactual_baseline(q, torch.tensor([[0.2, 0.6, 0.2]]), mask).item() == pytest.approx(0.08 + 0.48)


def test_a_masked_taken_action_is_an_error():
    with pytest.raises(ValueError, match="masked"):
        counterfactual_advantages(torch.zeros(1, 3), torch.tensor([[0.5, 0.5, 0.0]]), torch.tensor([2]),
                                  torch.tensor([[True, True, False]]))


def test_masking_holds_through_sampling_log_probs_and_the_sum():
    policy = make_policy("hash", seed=0)
    obs = {"text": "Question: who founded Vexa?", "candidates": ('web_search(query="Vexa")', "post", 'answer("Zo")'),
           "action_mask": np.array([1, 0, 1], dtype=np.int8)}
    generator = torch.Generator().manual_seed(0)
    actions, _, _ = policy.act([obs] * 400, generator)
    assert set(actions.tolist()) == {0, 2}  # never the masked candidate, both admissible ones sampled
    logits, _ = policy([obs])
    probs = torch.softmax(logits, -1)
    assert probs[0, 1].item() == 0.0 and probs[0].sum().item() == pytest.approx(1.0)
    log_probs, entropy, _ = policy.evaluate([obs, obs], torch.tensor([0, 2]))
    assert torch.isfinite(log_probs).all() and torch.isfinite(entropy).all()
    # the behaviour policy's pi with a huge Q on the masked candidate: the baseline ignores it
    mask = torch.tensor([[True, False, True]])
    q = torch.tensor([[1.0, 1e30, 3.0]])
    expected = probs[0, 0].item() * 1.0 + probs[0, 2].item() * 3.0
    assert counterfactual_baseline(q, probs, mask).item() == pytest.approx(expected, rel=1e-5)


def _step(text: str, candidates: tuple[str, ...], others: dict[str, str] | None, state: list[float]) -> Step:
    obs = {"text": text, "candidates": candidates, "action_mask": np.ones(len(candidates), dtype=np.int8)}
    return Step(obs, 0, 0.0, 0.0, 0.0, True, obs["action_mask"], state=np.array(state, np.float32),
                other_actions=others)


def test_critic_inputs_represent_the_others_by_their_chosen_texts():
    policy = make_policy("hash", seed=0)
    cands = ('web_search(query="Vexa")', 'answer("Zo")')
    a = Trajectory([_step("Question: q", cands, {"agent_1": 'knowledge_base(entity="Vexa")'}, [0.0, 1.0])],
                   agent_id="agent_0")
    b = Trajectory([_step("Question: q", cands, None, [0.5, 0.5])], agent_id="agent_1")
    x = critic_inputs(policy, [a, b], {"agent_0": 0, "agent_1": 1}.__getitem__)
    with torch.no_grad():
        expected = policy.encoder(['knowledge_base(entity="Vexa")'])[0]
    torch.testing.assert_close(x.e_others[0], expected)
    assert torch.count_nonzero(x.e_others[1]) == 0  # nobody else acted: zeros
    assert x.agents.tolist() == [0, 1] and x.states.shape == (2, 2) and x.e_cand.shape[:2] == (2, 2)
    assert not x.e_obs.requires_grad and not x.e_cand.requires_grad  # the critic never trains the actor


def test_candidate_q_critic_scores_each_candidate_given_the_others():
    torch.manual_seed(0)
    critic = CandidateQCritic(state_dim=3, n_agents=2, embed_dim=4, n_overlap=2, hidden=8)
    b, n = 2, 5
    x = CriticInputs(torch.rand(b, 3), torch.tensor([0, 1]), torch.rand(b, 4), torch.rand(b, 4), torch.rand(b, n, 4),
                     torch.rand(b, n, 2), torch.ones(b, n, dtype=torch.bool))
    q = critic(x)
    assert q.shape == (b, n)
    x.e_others = x.e_others + 1.0  # other actions changed -> a different Q
    assert not torch.allclose(critic(x), q)
