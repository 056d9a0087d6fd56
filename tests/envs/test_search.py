"""SearchEnv (its Gymnasium checks are in test_conformance): determinism, the oracle's ceiling, the random floor,
robustness to malformed actions, and the reward components."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from searchgym.baselines import OracleAgent, RandomAgent
from searchgym.envs.search import SearchEnv
from searchgym.harness.evaluate import play_session_agent, summarise_predictions
from searchgym.world import FAMILIES


def test_gymnasium_make_reaches_the_same_env():
    import gymnasium

    env = gymnasium.make("searchgym/SearchQA-Candidates-v0", world_size="tiny")
    assert isinstance(env.unwrapped, SearchEnv) and env.unwrapped.config.action_mode == "candidates"


@pytest.mark.parametrize("mode", ["candidates", "text"])
def test_oracle_solves_every_test_task_of_every_family(mode):
    env = SearchEnv(action_mode=mode, world_size="small", split="test")
    results = [play_session_agent(env, OracleAgent(), t.id, seed=i) for i, t in enumerate(env.tasks.tasks("test"))]
    table = summarise_predictions(results)
    assert set(FAMILIES) <= set(table)
    for family in FAMILIES:
        assert table[family]["success"] == 1.0, (mode, family)


def test_random_agent_rarely_solves_multi_hop_bridges():
    env = SearchEnv(action_mode="candidates", world_size="small", split="train", families=["bridge"])
    agent = RandomAgent(seed=0)
    tasks = [t for t in env.tasks.tasks("train") if t.hops >= 2]
    results = [play_session_agent(env, agent, t.id, seed=i) for i, t in enumerate(tasks)]
    success = sum(r.success for r in results) / len(results)
    print(f"random success on {len(tasks)} bridge tasks (2+ hops): {success:.3f}")
    assert success < 0.15


EPISODE_CODE = """
import hashlib, json
from searchgym.envs.search import SearchEnv
from searchgym.baselines import RandomAgent
env = SearchEnv(action_mode="candidates", world_size="tiny")
agent = RandomAgent(seed=5)
obs, info = env.reset(seed=11)
trace = [obs["text"], list(obs["candidates"])]
done = False
while not done:
    obs, r, te, tr, info = env.step(agent.choose_action(env.session))
    trace += [obs["text"], list(obs["candidates"]), r]
    done = te or tr
print(hashlib.sha256(json.dumps(trace).encode()).hexdigest())
"""


def test_same_seed_same_episode_in_a_new_process():
    runs = [subprocess.run([sys.executable, "-c", EPISODE_CODE], capture_output=True, text=True, check=True)
            for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and len(runs[0].stdout.strip()) == 64


MALFORMED = [
    "", "hello", "<tool_call>", "<tool_call>{not json}</tool_call>", '<tool_call>{"name": "rm -rf"}</tool_call>',
    '<tool_call>{"name": "calculator", "arguments": {"expression": "__import__(\'os\')"}}</tool_call>',
    '<tool_call>{"name": "web_search", "arguments": {"query": 7}}</tool_call>', "<search>", "<answer></answer>",
    "\x00\x01" * 100, "{" * 5000, "<tool_call>" * 300, "x" * 100_000,
]


@pytest.mark.parametrize("fmt", ["hermes", "tags"])
def test_malformed_text_actions_never_raise_and_say_what_is_accepted(fmt):
    env = SearchEnv(action_mode="text", tool_format=fmt, world_size="tiny", max_steps=50)
    env.reset(seed=0)
    for action in MALFORMED:
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        assert not terminated
        assert info["format_error"] or info["invalid"] or "No results" in obs or "Error" in obs
        if info["format_error"]:
            assert info["reward_components"]["format_cost"] < 0
            assert "ccepted" in obs  # the observation lists the accepted forms


def test_robust_hermes_parsing_reaches_the_tool():
    env = SearchEnv(action_mode="text", world_size="tiny")
    env.reset(seed=0)
    name = env.session.observed.question_names[0] if env.session.observed.question_names else "city"
    action = 'Let me search. <tool_call>{"name": "web_search", "arguments": "{\\"query\\": \\"%s\\"}"}' % name
    obs, _, _, _, info = env.step(action)
    assert not info["format_error"] and "<tool_response>" in obs and info["tool_calls"] == 1


def test_candidate_mode_mask_and_invalid_indices():
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    obs, info = env.reset(seed=0)
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    n_valid = int(obs["action_mask"].sum())
    assert 0 < n_valid <= env.config.max_candidates
    assert all(c == "" for c in obs["candidates"][n_valid:])
    for bad in (n_valid, env.config.max_candidates + 3, -1, "0", 1.5):
        obs, reward, terminated, _, info = env.step(bad)
        assert env.observation_space.contains(obs) and not terminated
        assert info["format_error"] and reward < 0


def test_reward_components_sum_to_the_reward_and_answers_terminate():
    env = SearchEnv(action_mode="candidates", world_size="small", split="test")
    oracle = OracleAgent()
    env.reset(seed=0)
    total_from_components = 0.0
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(oracle.choose_action(env.session))
        components = info["reward_components"]
        assert reward == pytest.approx(components["total"])
        assert components["total"] == pytest.approx(sum(v for k, v in components.items() if k != "total"))
        total_from_components += components["total"]
        done = terminated or truncated
    assert terminated and info["success"] and components["answer"] == 1.0


def test_process_judge_signals_follow_the_oracle():
    env = SearchEnv(action_mode="text", world_size="small", split="test", families=["bridge"])
    oracle = OracleAgent()
    env.reset(seed=3)
    new_gold = 0
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(oracle.choose_action(env.session))
        new_gold += info["signals"]["new_gold"]
        assert info["signals"]["consistent"], info["signals"]["reason"]
        done = terminated or truncated
    assert new_gold >= 1 and set(info["evidence_found"]) <= env.session.task.gold_fact_ids


def test_candidates_are_shuffled_so_position_carries_no_signal():
    env = SearchEnv(action_mode="candidates", world_size="small", split="test")
    oracle = OracleAgent()
    positions = []
    for seed in range(30):
        env.reset(seed=seed)
        positions.append(oracle.choose_action(env.session))
    assert len(set(positions)) >= 5


def test_render_ansi_and_reset_options():
    env = SearchEnv(action_mode="text", world_size="tiny", render_mode="ansi")
    task = env.world.tasks_in("dev")[0]
    env.reset(seed=0, options={"task_id": task.id})
    assert env.task.id == task.id
    env.step("<answer>nothing</answer>")
    text = env.render()
    assert task.question in text and "Answer:" in text
    env.reset(seed=0, options={"split": "test"})
    assert env.task.split == "test"
    with pytest.raises(ValueError, match="accepted"):
        env.reset(options={"tasks": 3})
    with pytest.raises(ValueError, match="no task"):
        env.reset(options={"task_id": "nope"})


@pytest.mark.parametrize("kwargs, match", [
    ({"action_mode": "voice"}, "action_mode"), ({"tool_format": "xml"}, "tool_format"),
    ({"families": ["poetry"]}, "families"), ({"split": "val"}, "split"), ({"max_steps": 0}, "max_steps"),
])
def test_bad_constructor_arguments_are_clear_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SearchEnv(world_size="tiny", **kwargs)


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("limit", [6000, 2000, 200, 12])
def test_a_short_max_obs_chars_cuts_the_tools_before_the_question(limit, chat):
    """Before: the prompt (tools first, the question last) was cut from its end, so a max_obs_chars
    below its length (2,900 characters) gave an episode without its question."""
    env = SearchEnv(world_size="tiny", max_obs_chars=limit)
    observation, _ = env.reset(seed=0)
    prompt = env.session.prompt(chat=chat)
    question = "Question: " + env.session.task.question
    assert len(prompt) <= limit
    if limit >= len(question) + 2:  # room for text before it: after a newline
        assert prompt.endswith("\n" + question) and not prompt.startswith("\n")
    else:
        assert prompt == question[:limit]
    if not chat:
        assert observation == prompt and (len(prompt) < limit) == (limit == 6000)  # only 6000 fits it whole
