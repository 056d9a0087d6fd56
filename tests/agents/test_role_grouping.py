"""Role-aware grouping: "role" compares each agent with itself across a task's episodes, "team" pools
every agent of the task's episodes into one group; checked against advantages computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from searchgym.agents.advantages import AdvantageConfig, compute_advantages
from searchgym.agents.rollout import collect_parallel

#: rewards of one round: the lead's are ten times the searcher's (two roles, different scales)
SCALE = {"lead": 10.0, "searcher": 1.0}


class TwoRoleEnv:
    """One round per episode; reward = scale of the role x (episode seed mod 3)."""

    possible_agents = ["lead", "searcher"]

    def __init__(self, grouping: str = "agent") -> None:
        self.metadata = {"group_by": grouping}
        self.agents: list[str] = []

    def reset(self, seed=None, options=None):
        self.agents, self.level = list(self.possible_agents), float(seed % 3)
        return {a: {"action_mask": np.ones(1, dtype=np.int8)} for a in self.agents}, {}

    def step(self, actions):
        rewards = {a: SCALE[a] * self.level for a in self.agents}
        done = dict.fromkeys(self.agents, True)
        infos = {a: {"success": self.level == 2} for a in self.agents}
        obs = {a: {"action_mask": np.ones(1, dtype=np.int8)} for a in self.agents}
        self.agents = []
        return obs, rewards, done, dict.fromkeys(done, False), infos


class OneActionPolicy:
    def act(self, observations, generator, greedy=False):
        n = len(observations)
        return torch.zeros(n, dtype=torch.long), torch.zeros(n), torch.zeros(n)


class OnePolicyPopulation:
    def policy_for(self, agent):
        return POLICY


POLICY = OneActionPolicy()


def _advantages(group_by: str):
    """GRPO advantages per (agent, episode return) for one task played 3 times (seeds 0, 1, 2)."""
    groups, stats = collect_parallel(TwoRoleEnv(), OnePolicyPopulation(), ["task"], 3, None, seed=0,
                                     group_by=group_by)
    result = compute_advantages("grpo", groups, AdvantageConfig())
    assert stats.episodes == 3
    return groups, {(t.agent_id, t.final_return): float(a[0]) for t, a in zip(result.trajectories, result.advantages)}


def test_role_grouping_compares_each_role_with_itself():
    groups, adv = _advantages("role")
    assert [[t.agent_id for t in g] for g in groups] == [["lead"] * 3, ["searcher"] * 3]
    eps = AdvantageConfig().eps
    # lead returns 0, 10, 20: mean 10, sample std 10; searcher 0, 1, 2: mean 1, sample std 1
    assert adv[("lead", 0.0)] == pytest.approx(-10 / (10 + eps))
    assert adv[("lead", 20.0)] == pytest.approx(10 / (10 + eps))
    assert adv[("searcher", 0.0)] == pytest.approx(-1 / (1 + eps))
    assert adv[("searcher", 1.0)] == pytest.approx(0.0)
    assert adv[("searcher", 2.0)] == pytest.approx(1 / (1 + eps))


def test_role_is_what_auto_does_on_a_team_env():
    auto_groups, auto_adv = _advantages("auto")
    role_groups, role_adv = _advantages("role")
    assert [[t.agent_id for t in g] for g in auto_groups] == [[t.agent_id for t in g] for g in role_groups]
    assert auto_adv == role_adv


def test_team_grouping_pools_every_agent_and_ranks_the_searcher_against_the_lead():
    groups, adv = _advantages("team")
    assert len(groups) == 1 and len(groups[0]) == 6
    # returns 0, 10, 20 (lead) and 0, 1, 2 (searcher): mean 33/6 = 5.5; squared deviations
    # 30.25 + 20.25 + 210.25 + 30.25 + 20.25 + 12.25 = 323.5, sample variance 323.5 / 5 = 64.7
    std = math.sqrt(64.7) + AdvantageConfig().eps
    assert adv[("lead", 20.0)] == pytest.approx(14.5 / std)
    assert adv[("lead", 10.0)] == pytest.approx(4.5 / std)
    assert adv[("searcher", 2.0)] == pytest.approx(-3.5 / std)  # the searcher's best episode is pushed down
    assert adv[("searcher", 0.0)] == pytest.approx(-5.5 / std)


def test_groupings_are_checked():
    with pytest.raises(ValueError, match="unknown group_by 'roles'; accepted: auto, episode, agent, role, team"):
        collect_parallel(TwoRoleEnv(), OnePolicyPopulation(), ["task"], 3, None, seed=0, group_by="roles")
    with pytest.raises(ValueError, match="independent attempts grouped per episode"):
        collect_parallel(TwoRoleEnv("episode"), OnePolicyPopulation(), ["task"], 1, None, seed=0, group_by="team")
