"""The LLM rollout groups by the one rule the candidate learner uses (searchgym.agents.grouping)."""

from __future__ import annotations

import numpy as np
import pytest

import searchgym
from searchgym.agents.llm_policy import LLMPolicy, load_model
from searchgym.agents.llm_rollout import RolloutConfig, collect_llm_parallel


@pytest.fixture(scope="module")
def tiny() -> LLMPolicy:
    return LLMPolicy(*load_model("random:tiny", "cpu", seed=0))


@pytest.mark.parametrize(("group_by", "expected"), [
    ("role", [("lead", 2), ("searcher", 2), ("analyst", 2)]),
    ("team", [("lead", 6)]),
    ("episode", [("lead", 3), ("lead", 3)]),
])
def test_team_episodes_group_by_role_team_or_episode(tiny, group_by, expected) -> None:
    envs = [searchgym.make("TeamSearch-v0", world_size="tiny", max_rounds=1) for _ in range(2)]
    task = envs[0].tasks.tasks("train")[0].id
    policies = {a: tiny for a in envs[0].possible_agents}
    groups, _ = collect_llm_parallel(envs, policies, [task], 2, np.random.default_rng(0),
                                     RolloutConfig(max_new_tokens=4), group_by=group_by)
    assert [(g[0].agent_id, len(g)) for g in groups] == expected


def test_a_group_env_refuses_role_grouping(tiny) -> None:
    envs = [searchgym.make("GroupSearch-v0", world_size="tiny", group_size=2, max_steps=1) for _ in range(2)]
    task = envs[0].tasks.tasks("train")[0].id
    with pytest.raises(ValueError, match="independent attempts"):
        collect_llm_parallel(envs, {a: tiny for a in envs[0].possible_agents}, [task], 2,
                             np.random.default_rng(0), RolloutConfig(max_new_tokens=4), group_by="role")
