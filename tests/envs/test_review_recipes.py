"""An env keeps its own copies of the lists and dicts it is built from: a caller that changes them
afterwards changes neither the env nor what a pickle or a deep copy of it rebuilds."""

from __future__ import annotations

import copy
import pickle

import pytest

import searchgym

TINY = {"world_size": "tiny"}
COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda env: pickle.loads(pickle.dumps(env))}


@pytest.mark.parametrize("how", COPIES)
def test_families_and_reward_changed_by_the_caller_later_do_not_change_the_env_or_its_copy(how) -> None:
    """Before: the copy drew a lookup task of the changed list and charged the changed step cost (-0.5)."""
    families, reward = ["bridge"], {"step_cost": 0.01}
    env = searchgym.make("SearchQA-Candidates-v0", families=families, reward=reward, **TINY)
    env.reset(seed=0)
    families[0], reward["step_cost"] = "lookup", 0.5
    twin = COPIES[how](env)
    assert env.unwrapped.tasks.families == ["bridge"] and env.unwrapped.env_config.reward == {"step_cost": 0.01}
    assert twin.unwrapped.task.id == env.unwrapped.task.id and twin.unwrapped.task.family == "bridge"
    assert env.step(0)[1] == twin.step(0)[1] == pytest.approx(-0.01)


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("env_id", ["GroupSearch-Candidates-v0", "TeamSearch-Generalists-v0"])
def test_a_multi_agent_env_keeps_its_families(env_id, how) -> None:
    families = ["bridge"]
    env = searchgym.make(env_id, families=families, **TINY)
    env.reset(seed=0)
    families[0] = "lookup"
    assert COPIES[how](env).task.family == env.task.family == "bridge"


@pytest.mark.parametrize("how", COPIES)
def test_a_team_of_a_role_list_changed_later_copies_as_the_team_it_is(how) -> None:
    """Before: the copy was a team of three with a helper that had a knowledge base."""
    roles = [{"name": "solo", "tools": ["web_search"], "can_answer": True}, {"name": "helper", "tools": ["calculator"]}]
    env = searchgym.make("TeamSearch-v0", roles=roles, **TINY)
    env.reset(seed=0)
    roles[1]["tools"].append("knowledge_base")
    roles.append({"name": "extra", "tools": []})
    twin = COPIES[how](env)
    assert twin.possible_agents == env.possible_agents == ["solo", "helper"]
    assert twin.roles == env.roles and env.roles["helper"].tools == ("calculator",)
    actions = {"solo": "<search>Kawous</search>", "helper": "<wait/>"}
    assert repr(twin.step(actions)) == repr(env.step(actions))


def test_a_tuple_of_families_stays_a_tuple_and_a_preset_team_keeps_its_name() -> None:
    env = searchgym.make("SearchQA-v0", families=("bridge", "lookup"), **TINY)
    assert env.unwrapped.env_config.families == ("bridge", "lookup")
    team = searchgym.make("TeamSearch-Generalists-v0", team_size=2, **TINY)
    assert team.recipe["roles"] == "generalists" and team.recipe["team_size"] == 2
