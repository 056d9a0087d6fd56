"""The GEM adapter: registered ids, text actions, rewards equal to searchgym's env."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pytest.importorskip("gem")

import gem

import searchgym
from searchgym.integrations.gem import SearchgymGemEnv, register_gem_envs

SUITE, SPLIT = "searchqa-text-v2", "dev"


def test_the_text_suite_is_registered_and_made_by_gem() -> None:
    assert register_gem_envs() == ["searchgym:searchqa-text-v2"]  # again: no error, team/group left out
    env = gem.make("searchgym:searchqa-text-v2", split=SPLIT)
    assert isinstance(env, gem.Env) and isinstance(env, SearchgymGemEnv) and env.split == SPLIT


def test_a_text_rollout_scores_as_the_env() -> None:
    record = searchgym.tasks(SUITE, SPLIT)[4]
    env = gem.make("searchgym:searchqa-text-v2", split=SPLIT, task_id=record.task_id)
    observation, info = env.reset(seed=2)
    assert record.question in observation and info["task_id"] == record.task_id
    actions = [f'<tool_call>{{"name": "web_search", "arguments": {{"query": "{record.question}"}}}}</tool_call>',
               "I think I know it.",  # neither a tool call nor an answer: a format error, the episode goes on
               f"<answer>{record.answers[0]}</answer>"]
    rewards, dones = [], []
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        assert isinstance(observation, str) and isinstance(reward, float)
        rewards.append(reward)
        dones.append(terminated or truncated)
    assert dones == [False, False, True] and info["success"]

    reference = searchgym.make_task_env(SUITE, SPLIT, record.task_id)
    reference.reset(seed=2)
    expected = [reference.step(action)[1] for action in actions]
    assert rewards == pytest.approx(expected) and rewards[1] < 0


def test_resets_follow_seeds_and_leave_global_random_state_alone() -> None:
    env = SearchgymGemEnv(SUITE, SPLIT)
    before = (random.getstate(), np.random.get_state()[1].tolist())
    env.reset(seed=9)
    first = env.task_id
    action = env.sample_random_action()
    env.reset(seed=9)
    assert env.task_id == first and env.sample_random_action() == action
    assert (random.getstate(), np.random.get_state()[1].tolist()) == before
    assert env.step(action)[4]["format_error"] is False  # a sampled action is well formed
    assert env.spawn(task_id=first).fixed_task == first


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="not in the dev split"):
        SearchgymGemEnv(SUITE, SPLIT, task_id="no-such-task")
    with pytest.raises(ValueError, match="multi-agent"):
        SearchgymGemEnv("team-text-v2", SPLIT)
    with pytest.raises(ValueError, match="candidates-mode"):
        SearchgymGemEnv("searchqa-v2", SPLIT)
    with pytest.raises(RuntimeError, match="reset"):
        SearchgymGemEnv(SUITE, SPLIT).step("<answer>x</answer>")


@pytest.mark.parametrize("seed", [-1, "a", 1.5, True])
def test_a_bad_seed_is_one_error_naming_the_seed(seed) -> None:
    """Before: reset(seed=-1) failed inside NumPy ("expected non-negative integer"), "a" and 1.5
    with "SeedSequence expects int or sequence of ints", naming no seed; True played seed 1. reset's
    seed is checked as the core env's (test_integration_episode_seeds)."""
    env = SearchgymGemEnv(SUITE, SPLIT)
    with pytest.raises(ValueError, match=r"seed must be a non-negative int \(NumPy integers too\)"):
        env.reset(seed=seed)
    with pytest.raises(ValueError, match=r"the GEM env's seed must be an int in 0..9223372036854775807"):
        SearchgymGemEnv(SUITE, SPLIT, seed=seed)
    assert env.reset(seed=np.int64(4))[0] == env.reset(seed=4)[0]  # a NumPy int is a seed


def test_the_env_seed_keeps_its_bound() -> None:
    """The constructor's seed (its random actions' generator) is a run's seed, bounded as every run seed."""
    with pytest.raises(ValueError, match=r"the GEM env's seed must be an int in 0..9223372036854775807"):
        SearchgymGemEnv(SUITE, SPLIT, seed=10**30)  # 10**30: accepted, before


def test_a_random_action_before_any_reset_says_to_reset() -> None:
    """Before: sample_random_action() before a reset gave "<answer>unknown</answer>" on about half the
    draws and raised "call reset() first" on the others."""
    env = SearchgymGemEnv(SUITE, SPLIT)
    for _ in range(8):
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            env.sample_random_action()
    env.reset(seed=1)
    assert env.sample_random_action() in {"<answer>unknown</answer>",
                                          '<tool_call>{"name": "web_search", "arguments": {"query": %s}}</tool_call>'
                                          % json.dumps(env.question)}


def test_gems_wrappers_and_vector_env_take_a_fresh_env() -> None:
    """Before: GEM's EnvWrapper reads every public attribute of the env it wraps, and ``question``
    raised before a reset, so no GEM wrapper (nor ``make_vec`` with wrappers) could wrap the env."""
    from gem.wrappers.episode_tracking_wrapper import EpisodeTrackingWrapper
    from gem.wrappers.wrapper_factory import get_wrapper_fns

    fresh = SearchgymGemEnv(SUITE, SPLIT)
    assert fresh.question is None and EpisodeTrackingWrapper(fresh).env is fresh
    envs = gem.make_vec(["searchgym:searchqa-text-v2"] * 2, wrappers=get_wrapper_fns("concat"), split=SPLIT)
    observations, _ = envs.reset(seed=0)
    assert len(observations) == 2
    _, _, terminated, _, _ = envs.step(["<answer>x</answer>", "<answer>y</answer>"])
    assert list(terminated) == [True, True]


@pytest.mark.parametrize("task_id", [["a"], 5, {"a": 1}])
def test_a_task_id_that_is_not_a_string_is_named(task_id) -> None:
    with pytest.raises(ValueError, match=r"task_id must be a task id \(str, searchgym.tasks\) or None, got"):
        gem.make("searchgym:searchqa-text-v2", split=SPLIT, task_id=task_id)


def test_an_unknown_keyword_names_the_accepted_ones() -> None:
    """Before: Python's "__init__() got an unexpected keyword argument 'foo'", which names none accepted."""
    with pytest.raises(TypeError, match=r"searchgym:searchqa-text-v2 got unknown keyword argument\(s\) 'foo'; "
                                        r"accepted: suite, split, task_id, seed"):
        gem.make("searchgym:searchqa-text-v2", foo=1)
    env = gem.make("searchgym:searchqa-text-v2", seed=3)
    with pytest.raises(TypeError, match=r"'splt'; accepted: suite, split"):
        env.spawn(splt="dev")
