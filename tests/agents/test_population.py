"""Population modes and deployment helpers: best member, majority vote, distillation."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import (
    MajorityVote,
    Population,
    best_member,
    distill,
    greedy_agreement,
    make_policy,
)


def test_shared_mode_is_one_policy_for_every_agent():
    pop = Population.build("shared", n_agents=4, seed=0, dim=8, hidden=8)
    assert len(pop.members) == 1
    assert pop.policy_for(0) is pop.policy_for(3)
    with pytest.raises(IndexError, match="has 4 agents"):
        pop.policy_for(4)


def test_separate_mode_has_independent_policies():
    pop = Population.build("separate", n_agents=3, seed=0, dim=8, hidden=8)
    a, b = pop.policy_for(0), pop.policy_for(1)
    assert a is not b and a.encoder is not b.encoder
    assert not torch.equal(a.encoder.bag.weight, b.encoder.bag.weight)  # seeds 0 and 1
    n_one = sum(p.numel() for p in a.parameters())
    assert sum(p.numel() for p in pop.parameters()) == 3 * n_one


def test_shared_trunk_shares_the_encoder_only():
    pop = Population.build("shared_trunk", n_agents=3, seed=0, dim=8, hidden=8)
    a, b = pop.policy_for(0), pop.policy_for(2)
    assert a.encoder is b.encoder
    assert not torch.equal(a.score_head[0].weight, b.score_head[0].weight)
    enc = sum(p.numel() for p in a.encoder.parameters())
    heads = sum(p.numel() for p in a.parameters()) - enc
    assert sum(p.numel() for p in pop.parameters()) == enc + 3 * heads  # encoder counted once
    with pytest.raises(ValueError, match="same encoder object"):
        Population(
            "shared_trunk", [make_policy("hash", seed=0, dim=8), make_policy("hash", seed=1, dim=8)], 2
        )


def test_bad_modes_and_sizes():
    with pytest.raises(ValueError, match="accepted: \\['shared', 'separate', 'shared_trunk'\\]"):
        Population.build("team", n_agents=2)
    with pytest.raises(ValueError, match="needs 2 member policies"):
        Population("separate", [make_policy("hash", seed=0, dim=8)], 2)


def test_best_member_picks_highest_score_lowest_index_on_ties():
    pop = Population.build("separate", n_agents=3, seed=0, dim=8, hidden=8)
    scores = {id(pop.policy_for(0)): 0.4, id(pop.policy_for(1)): 0.7, id(pop.policy_for(2)): 0.7}
    index, policy, all_scores = best_member(pop, lambda m: scores[id(m)])
    assert index == 1 and policy is pop.policy_for(1) and all_scores == [0.4, 0.7, 0.7]


class FixedChoice:
    """A stand-in member that always picks `action` and reports `value`."""

    def __init__(self, action: int, value: float) -> None:
        self.action, self.value = action, value

    def act(self, obs_batch, generator=None, greedy=False):
        b = len(obs_batch)
        return torch.full((b,), self.action), torch.zeros(b), torch.full((b,), self.value)

    def __call__(self, obs_batch):
        return None, torch.full((len(obs_batch),), self.value)


def test_majority_vote_counts_and_breaks_ties_by_lowest_index(make_obs):
    obs = make_obs("Question: q", ["a", "b", "c", "d"])
    actions, log_share, values = MajorityVote(
        [FixedChoice(2, 1.0), FixedChoice(1, 2.0), FixedChoice(2, 3.0)]
    ).act([obs])
    assert int(actions[0]) == 2
    assert float(log_share[0]) == pytest.approx(np.log(2 / 3))
    assert float(values[0]) == pytest.approx(2.0)
    tie, _, _ = MajorityVote([FixedChoice(3, 0.0), FixedChoice(1, 0.0)]).act([obs, obs])
    assert tie.tolist() == [1, 1]


def test_majority_vote_of_real_members_follows_their_greedy_choices(make_task):
    rng = np.random.default_rng(0)
    batch = [make_task(rng)[0] for _ in range(20)]
    pop = Population.build("separate", n_agents=3, seed=0, dim=8, hidden=8)
    greedy = torch.stack([m.act(batch, greedy=True)[0] for m in pop.members])  # [3, 20]
    voted, _, _ = MajorityVote(pop).act(batch)
    for i in range(20):
        counts = np.bincount(greedy[:, i].numpy(), minlength=6)
        assert int(voted[i]) == int(np.argmax(counts))


def test_distillation_raises_student_agreement_with_the_ensemble(make_task):
    rng = np.random.default_rng(1)
    obs = [make_task(rng)[0] for _ in range(64)]
    # synthetic observations differ only by invented names, so names must be hashed here
    teachers = Population.build("separate", n_agents=3, seed=10, dim=16, hidden=16, drop_names=False)
    with torch.no_grad():  # confident teachers, as trained members would be
        for m in teachers.members:
            m.score_head[-1].weight.mul_(300.0)
    student = make_policy("hash", seed=99, dim=16, hidden=32, drop_names=False)
    before = greedy_agreement(student, teachers, obs)
    history = distill(
        teachers, obs, student, epochs=40, lr=1e-2, batch_size=32, generator=torch.Generator().manual_seed(0)
    )
    after = greedy_agreement(student, teachers, obs)
    assert history[-1] < 0.5 * history[0]  # KL(teacher || student) falls
    assert before < 0.6 and after >= 0.9
    with pytest.raises(ValueError, match="epochs >= 1"):
        distill(teachers, obs, student, epochs=0)
