"""GroupSearchEnv (its PettingZoo checks are in test_conformance): K independent sessions on one task,
per-agent seeding, finished agents leaving, and the global state."""

from __future__ import annotations

import numpy as np
import pytest

import searchgym
from searchgym.baselines import OracleAgent, RandomAgent
from searchgym.baselines.team_oracle import harness_actor as oracle_actor
from searchgym.baselines.team_random import TeamRandom
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.multi import AGENT_FIELDS
from searchgym.envs.search import SearchEnv

GROUP_IDS = [s.id for s in searchgym.registered() if s.kind == "parallel" and "Group" in s.id]
LOOKUP = "lookup-00009"  # tiny world: "Where did Braris Nymaskand study?"
ANSWER = "<answer>Kawous Institute of Technology</answer>"


def group(**kwargs) -> GroupSearchEnv:
    return GroupSearchEnv(**{"world_size": "tiny", **kwargs})


def test_the_group_ids():
    assert GROUP_IDS == ["GroupSearch-Candidates-v0", "GroupSearch-Numeric-v0", "GroupSearch-v0"]


def test_every_agent_gets_the_same_task_with_its_own_shuffle_and_shared_tools():
    env = group(action_mode="candidates", group_size=3)
    obs, infos = env.reset(seed=4)
    assert env.possible_agents == ["agent_0", "agent_1", "agent_2"] == env.agents
    assert len({s.task.id for s in env.sessions.values()}) == 1
    assert {i["task_id"] for i in infos.values()} == {env.task.id}
    orders = [tuple(c.render() for c in env.sessions[a].candidates) for a in env.agents]
    assert len(set(orders)) > 1 and len({frozenset(o) for o in orders}) == 1  # same actions, other orders
    search = SearchEnv(world_size="tiny")
    assert all(s.tools["web_search"] is search.tools["web_search"] for s in env.sessions.values())
    assert all(env.observation_space(a).contains(o) for a, o in obs.items())
    assert env.observation_space("agent_0") is env.observation_space("agent_0")
    assert env.action_space("agent_0") is not env.action_space("agent_1")


def test_same_seed_same_episode():
    def run(seed):
        env = group(action_mode="candidates")
        rand = TeamRandom(seed=1)
        env.reset(seed=seed)
        trace = []
        while env.agents:
            obs, rewards, *_ = env.step(rand.choose_actions(env))
            trace.append((sorted(obs), [o["candidates"] for o in obs.values()], rewards))
        return trace

    assert run(3) == run(3)
    assert run(3) != run(5)


def test_each_agent_sees_only_its_transcript_and_finished_agents_leave():
    env = group(action_mode="text", tool_format="tags", group_size=3)
    obs, _ = env.reset(seed=0, options={"task_id": LOOKUP})
    assert set(obs["agent_0"]) == {"text"} and "Braris Nymaskand" in obs["agent_0"]["text"]
    obs, rewards, terms, _, infos = env.step({"agent_0": ANSWER, "agent_1": "<lookup>Braris Nymaskand</lookup>",
                                               "agent_2": "not an action"})
    assert terms == {"agent_0": True, "agent_1": False, "agent_2": False}
    assert rewards["agent_0"] == pytest.approx(1.0 - 0.01) and rewards["agent_1"] == pytest.approx(-0.01)
    assert rewards["agent_2"] == pytest.approx(-0.01 - 0.05) and infos["agent_2"]["format_error"]
    assert infos["agent_1"]["signals"]["new_gold"] and "Kawous" in obs["agent_1"]["text"]
    assert "Stowehin" not in env.sessions["agent_2"].transcript_text()
    assert env.agents == ["agent_1", "agent_2"]
    with pytest.raises(ValueError, match="missing: \\['agent_2'\\], unknown agents: \\['agent_9'\\]"):
        env.step({"agent_1": ANSWER, "agent_9": ANSWER})
    obs, rewards, terms, *_ = env.step({"agent_0": "ignored: it has finished", "agent_1": ANSWER,
                                        "agent_2": "<answer>Glyliwael</answer>"})
    assert set(obs) == {"agent_1", "agent_2"} and env.agents == [] and env.sessions["agent_0"].steps == 1
    state = dict(zip(env.state_fields(), env.state(), strict=True))
    assert state["done"] == 1.0 and state["success"] == pytest.approx(2 / 3)
    assert state["agent_2.success"] == 0.0 and state["agent_1.gold_found"] == 1.0


def test_rewards_match_the_single_agent_env_step_for_step():
    actions = ["<lookup>Braris Nymaskand</lookup>", "<search>Priovysh</search>", ANSWER]
    env = group(action_mode="text", tool_format="tags", group_size=2)
    single = SearchEnv(world_size="tiny", tool_format="tags")
    env.reset(seed=0, options={"task_id": LOOKUP})
    single.reset(seed=0, options={"task_id": LOOKUP})
    for action in actions:
        _, rewards, _, _, infos = env.step(dict.fromkeys(env.agents, action))
        _, reward, _, _, info = single.step(action)
        assert rewards["agent_1"] == pytest.approx(reward)
        assert infos["agent_1"]["reward_components"] == info["reward_components"]
        assert infos["agent_1"]["signals"] == info["signals"]


@pytest.mark.parametrize("mode", ["candidates", "text"])
def test_a_group_of_oracles_solves_and_the_state_tracks_it(mode):
    env = group(action_mode=mode, split="test")
    actor = oracle_actor()
    for i, task in enumerate(env.tasks.tasks("test")[:12]):
        obs, infos = env.reset(seed=i, options={"task_id": task.id})
        while env.agents:
            obs, _, _, _, infos = env.step(actor.act(env, obs, infos))
            assert env.state_space.contains(env.state())
        state = dict(zip(env.state_fields(), env.state(), strict=True))
        assert state["success"] == 1.0 and state["best_gold_found"] == 1.0, task.id
        assert all(state[f"agent_{k}.answered"] == 1.0 for k in range(4))


def test_state_layout_and_reset_options():
    env = group(group_size=2)
    assert env.state_space.shape == (14 + 2 * len(AGENT_FIELDS),) == (len(env.state_fields()),)
    assert np.all(env.state() == 0)
    with pytest.warns(UserWarning, match=r"reset options \['options'\] are ignored"):
        env.reset(seed=0, options={"options": 1})
    env.reset(seed=0, options={"task_id": LOOKUP})
    assert env.task.id == LOOKUP
    state = dict(zip(env.state_fields(), env.state(), strict=True))
    assert state["family_lookup"] == 1.0 and state["gold_hops"] == pytest.approx(1 / 8) and state["step"] == 0
    with pytest.raises(ValueError, match="split must be one of"):
        env.reset(options={"split": "holdout"})
    with pytest.raises(ValueError, match="group_size must be"):
        group(group_size=0)
    with pytest.raises(RuntimeError, match="call reset"):
        group().step({})


def test_single_agent_baselines_act_on_group_sessions():
    env = group(action_mode="candidates", group_size=2)
    agents = {"agent_0": OracleAgent(), "agent_1": RandomAgent(seed=0)}
    env.reset(seed=0, options={"task_id": LOOKUP})
    while env.agents:
        _, _, _, _, infos = env.step({a: agents[a].choose_action(env.sessions[a]) for a in env.agents})
        if "agent_0" in infos:
            last = infos["agent_0"]
    assert last["success"]
