"""The structured observation data matches what the observation text shows (docs/OBSERVATIONS.md),
turning it on in the info changes nothing else, and every env kind has the same info keys."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from searchgym.baselines.team_random import TeamRandom
from searchgym.envs.config import EnvConfig
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.search import SearchEnv
from searchgym.envs.session import NO_REWARD, NO_SIGNALS
from searchgym.envs.team import TeamSearchEnv

CANDIDATES = EnvConfig(world_size="tiny", action_mode="candidates")
STEP_LINE = re.compile(r"^Step (\d+): (.*)$", re.MULTILINE)


def _question_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("Question: "))


@pytest.mark.parametrize("seed", range(4))
def test_single_agent_data_matches_the_question_and_step_lines(seed):
    env = SearchEnv(config=CANDIDATES)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        obs, _, terminated, truncated, info = env.step(int(rng.integers(len(env.session.candidates))))
        done = terminated or truncated
        data = env.observation_data()
        assert _question_line(obs["text"]) == f"Question: {data['question']}"
        shown = STEP_LINE.findall(obs["text"])
        by_step = {s["step"]: s for s in data["steps"]}
        assert [s["step"] for s in data["steps"]] == list(range(1, info["step"] + 1))
        assert shown and all(by_step[int(k)]["action"] == line for k, line in shown)
        for record, rnd in zip(data["steps"], env.session.observed.rounds, strict=True):
            assert record["result_ids"] == (list(rnd.result.evidence_ids) if rnd.result else [])
        found = {i for s in data["steps"] for i in s["result_ids"]}
        assert set(info["evidence_found"]) <= found
    json.dumps(data)  # plain data


def test_unparseable_and_tool_steps_in_text_mode():
    env = SearchEnv(world_size="tiny", tool_format="tags")
    env.reset(seed=0)
    env.step("not an action")
    env.step("<search>Braris Nymaskand</search>")
    first, second = env.observation_data()["steps"]
    assert first == {"step": 1, "action": "(unparseable action)", "kind": None, "tool": None, "args": {},
                     "result_ids": [], "names": [], "invalid": False, "format_error": True}
    assert second["kind"] == "tool" and second["tool"] == "web_search"
    assert second["args"] == {"query": "Braris Nymaskand"} and second["action"] == env.session.transcript[1][0]
    assert "Braris Nymaskand" in second["names"] and second["result_ids"]


def test_team_data_has_the_header_and_the_blackboard_notes():
    env = TeamSearchEnv(config=CANDIDATES)
    obs, _ = env.reset(seed=1)
    team = TeamRandom(seed=2)
    posted = False
    while env.agents and not posted:
        obs, *_ = env.step(team.choose_actions(env))
        posted = bool(env.blackboard.notes)
    assert posted
    for agent in env.possible_agents:
        data = env.observation_data(agent)
        assert obs[agent]["text"].splitlines()[0] == data["header"] and data["header"].startswith(f"You are {agent}")
        assert data["notes"] == [{"round": n.round, "author": n.author, "text": n.text} for n in env.blackboard.notes]
        for note in data["notes"]:
            assert f"[round {note['round']}] {note['author']}: {note['text']}" in obs[agent]["text"]


def test_observation_data_before_reset_is_an_error():
    with pytest.raises(RuntimeError, match="call reset"):
        SearchEnv(world_size="tiny").observation_data()
    with pytest.raises(RuntimeError, match="call reset"):
        GroupSearchEnv(world_size="tiny").observation_data("agent_0")


def _run(env, seed: int) -> list:
    """Observations, rewards and infos (without observation_data) of a seeded random team."""
    obs, infos = env.reset(seed=seed)
    team, trace = TeamRandom(seed=seed), []
    while env.agents:
        obs, rewards, *_, infos = env.step(team.choose_actions(env))
        trace.append((obs, rewards, {a: {k: v for k, v in i.items() if k != "observation_data"}
                                     for a, i in infos.items()}))
    return trace, infos


@pytest.mark.parametrize("env_class", [GroupSearchEnv, TeamSearchEnv])
def test_observation_data_in_the_info_changes_nothing_else(env_class):
    plain, plain_infos = _run(env_class(config=CANDIDATES), seed=3)
    with_data, infos = _run(env_class(config=CANDIDATES, observation_data=True), seed=3)
    assert repr(plain) == repr(with_data)
    assert all("observation_data" not in i for i in plain_infos.values())
    last = next(iter(infos))
    assert infos[last]["observation_data"]["steps"][-1]["step"] == infos[last]["step"]


def test_every_env_reports_the_same_info_keys_and_the_single_agent_zeros_at_reset():
    single = SearchEnv(config=CANDIDATES, observation_data=True)
    group = GroupSearchEnv(config=CANDIDATES, observation_data=True, group_size=2)
    team = TeamSearchEnv(config=CANDIDATES, observation_data=True)
    _, info = single.reset(seed=0)
    _, group_infos = group.reset(seed=0)
    _, team_infos = team.reset(seed=0)
    team_only = {"role", "action", "contribution", "team"}
    assert set(info) == set(group_infos["agent_0"]) == set(team_infos["lead"]) - team_only
    assert info["reward_components"] == NO_REWARD and info["signals"] == NO_SIGNALS
    _, _, _, _, info = single.step(0)
    _, _, _, _, group_infos = group.step({a: 0 for a in group.agents})
    _, _, _, _, team_infos = team.step({a: 0 for a in team.agents})
    assert set(info) == set(group_infos["agent_0"]) == set(team_infos["lead"]) - team_only
    for step_info in (info, group_infos["agent_0"], team_infos["lead"]):
        assert set(step_info["reward_components"]) == set(NO_REWARD)
        assert set(step_info["signals"]) == set(NO_SIGNALS)


@pytest.mark.parametrize("seed", range(3))
def test_records_built_late_equal_those_read_at_each_step(seed):
    """The log keeps references and builds records when read: what a step says must not depend on
    when it is read, though the session goes on (rounds, transcript, candidate memos) after it."""
    def play(read_every_step: bool) -> tuple[list, list]:
        env = SearchEnv(config=CANDIDATES)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        snapshots, done = [], False
        while not done:
            _, _, terminated, truncated, _ = env.step(int(rng.integers(len(env.session.candidates))))
            done = terminated or truncated
            if read_every_step:
                snapshots.append(json.loads(json.dumps(env.observation_data()["steps"])))
        return snapshots, env.observation_data()["steps"]

    snapshots, final = play(read_every_step=True)
    _, read_once = play(read_every_step=False)
    assert final == read_once  # reading along the way changes nothing
    for k, snapshot in enumerate(snapshots):
        assert snapshot == final[:k + 1]  # a step's record is the same when read at once or at the end
