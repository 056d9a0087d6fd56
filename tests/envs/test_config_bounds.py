"""Every size-like env keyword is bounded, on every id, with an error that states the bounds;
``render_mode`` is checked before Gymnasium reads it."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest

import searchgym
from searchgym.envs.config import BOUNDS, WORLD_SCALE_BOUNDS, EnvConfig
from searchgym.envs.group import MAX_GROUP_SIZE
from searchgym.envs.roles import MAX_TEAM_SIZE
from searchgym.wrappers.features import MAX_FEATURE_DIM

ALL_IDS = [s.id for s in searchgym.registered()]
SINGLE_IDS = [s.id for s in searchgym.registered() if s.kind == "single"]
BOUNDED = [*BOUNDS.items(), ("world_size", WORLD_SCALE_BOUNDS)]


def _bad_values(low: int, high: int) -> list[object]:
    return [low - 1, high + 1, 2**63, 10**100, -(2**63), True, False, 1.5, float(low), "8", None, [low],
            np.float64(high)]


def _message(name: str, low: int, high: int) -> str:
    if name == "world_size":
        return re.escape(f"world_size must be one of tiny, small, medium, large, xl or an int scale in {low}..{high}, got")
    return re.escape(f"{name} must be an int in {low}..{high}, got")


def _make(env_id: str, **kwargs):
    """Through Gymnasium for single-agent ids (what users call), through searchgym otherwise."""
    if env_id in SINGLE_IDS:
        return gymnasium.make(f"searchgym/{env_id}", **kwargs)
    return searchgym.make(env_id, **kwargs)


def _bad_cases() -> list[tuple[str, tuple[int, int], object]]:
    """Every bounded keyword with every bad value (a string world_size is a preset name: the world checks it)."""
    return [(name, bounds, value) for name, bounds in BOUNDED for value in _bad_values(*bounds)
            if not (name == "world_size" and isinstance(value, str | bool | type(None)))]


@pytest.mark.parametrize(("name", "bounds", "value"), _bad_cases())
def test_every_bounded_keyword_refuses_out_of_range_values_in_envconfig(name, bounds, value):
    with pytest.raises(ValueError, match=_message(name, *bounds)):
        EnvConfig(**{name: value})


@pytest.mark.parametrize(("name", "bounds"), BOUNDED)
def test_the_bounds_themselves_and_numpy_ints_are_accepted(name, bounds):
    low, high = bounds
    for value in (low, high, np.int64(low), np.int32(min(high, 2**31 - 1))):
        assert getattr(EnvConfig(**{name: value}), name) == value


@pytest.mark.parametrize("env_id", ALL_IDS)
@pytest.mark.parametrize(("name", "bounds"), BOUNDED)
@pytest.mark.parametrize("value", ["below", "above", "overflow"])
def test_every_id_refuses_out_of_range_keywords_before_building_anything(env_id, name, bounds, value):
    low, high = bounds
    bad = {"below": low - 1, "above": high + 1, "overflow": 2**63}[value]
    with pytest.raises(ValueError, match=_message(name, low, high)):
        _make(env_id, **{name: bad})


@pytest.mark.parametrize("env_id", ALL_IDS)
@pytest.mark.parametrize("mode", [5, 1.5, [1], b"ansi", ("ansi",), "Human", "rgb_array", "ANSI", "", "ansi "])
def test_render_mode_is_refused_by_us_not_by_gymnasium(env_id, mode):
    with pytest.raises(ValueError, match=re.escape("render_mode must be None, 'ansi' or 'human', got")):
        _make(env_id, world_size="tiny", render_mode=mode)


@pytest.mark.parametrize("env_id", SINGLE_IDS)
def test_make_vec_refuses_a_non_string_render_mode_too(env_id):
    with pytest.raises(ValueError, match=re.escape("render_mode must be None, 'ansi' or 'human', got int 5")):
        gymnasium.make_vec(f"searchgym/{env_id}", num_envs=2, vectorization_mode="sync", render_mode=5)


def test_ansi_rendering_and_the_largest_candidate_list_work():
    env = gymnasium.make("searchgym/SearchQA-Candidates-v0", world_size="tiny", render_mode="ansi",
                         max_candidates=BOUNDS["max_candidates"][1])
    observation, info = env.reset(seed=0)
    assert env.action_space.n == 1024 and len(observation["candidates"]) == 1024
    assert observation["action_mask"].sum() == len(info["candidates"]) >= 1
    assert env.render().startswith(f"Task {info['task_id']} (")


@pytest.mark.parametrize("value", [0, MAX_GROUP_SIZE + 1, 2**63, 2.0, True, "4", None])
@pytest.mark.parametrize("env_id", ["GroupSearch-v0", "GroupSearch-Candidates-v0", "GroupSearch-Numeric-v0"])
def test_group_size_is_bounded(env_id, value):
    with pytest.raises(ValueError, match=re.escape(f"group_size must be an int in 1..{MAX_GROUP_SIZE}, got")):
        searchgym.make(env_id, world_size="tiny", group_size=value)


@pytest.mark.parametrize("value", [0, MAX_TEAM_SIZE + 1, 2**63, 2.0, True, "3"])
@pytest.mark.parametrize("env_id", ["TeamSearch-Generalists-v0", "TeamSearch-Generalists-Candidates-v0"])
def test_team_size_is_bounded(env_id, value):
    with pytest.raises(ValueError, match=re.escape(f"team_size must be an int in 1..{MAX_TEAM_SIZE}, got")):
        searchgym.make(env_id, world_size="tiny", team_size=value)


@pytest.mark.parametrize("value", [0, BOUNDS["max_steps"][1] + 1, 2**63, 2.0, True, "3", None])
@pytest.mark.parametrize("env_id", [i for i in ALL_IDS if i.startswith("TeamSearch")])
def test_max_rounds_is_bounded(env_id, value):
    with pytest.raises(ValueError, match=re.escape(f"max_rounds must be an int in 1..{BOUNDS['max_steps'][1]}, got")):
        searchgym.make(env_id, world_size="tiny", max_rounds=value)


@pytest.mark.parametrize("name", ["question_dim", "transcript_dim", "candidate_dim"])
@pytest.mark.parametrize("value", [0, MAX_FEATURE_DIM + 1, 2**63, 16.0, True])
@pytest.mark.parametrize("env_id", [i for i in ALL_IDS if "Numeric" in i])
def test_feature_dims_of_the_numeric_ids_are_bounded(env_id, name, value):
    with pytest.raises(ValueError, match=re.escape(f"{name} must be an int in 1..{MAX_FEATURE_DIM}, got")):
        searchgym.make(env_id, world_size="tiny", **{name: value})


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"families": 5}, "families must be None, a family name or a list of at most 64 names, got int"),
    ({"families": ["bridge"] * 65}, "families must be None, a family name or a list of at most 64 names, got 65 entries"),
    ({"families": ["bridge", None]}, ("families must be None, a family name or a list of at most 64 names, got the "
                                      "entry NoneType, which is no name")),
    ({"families": [1]}, ("families must be None, a family name or a list of at most 64 names, got the entry 1, "
                         "which is no name")),
    ({"families": {"bridge": 1}}, "families must be None, a family name or a list of at most 64 names, got dict"),
    ({"world": 5}, "world must be a searchgym World or None, got int"),
    ({"world": "tiny"}, "world must be a searchgym World or None, got str"),
    ({"reward": {"bogus": 1}}, "reward has unknown field(s) ['bogus']; accepted: answer_metric, step_cost, "
                               "invalid_cost, format_cost, no_answer_score"),
    ({"reward": {"step_cost": float("nan")}}, "step_cost must be a number in 0..1e+06"),
    ({"reward": {"step_cost": -1.0}}, "step_cost must be a number in 0..1e+06"),
    # before: 1e308 passed as finite, and a step that paid two such costs had a reward of -inf
    ({"reward": {"format_cost": 1e308}}, "format_cost must be a number in 0..1e+06 (it is subtracted), got 1e+308"),
    ({"reward": {"no_answer_score": -1e7}}, "no_answer_score must be a number in -1e+06..1e+06, got -10000000.0"),
    # before: TypeError "must be real number, not str" from math.isfinite, and True a cost of 1.0
    ({"reward": {"no_answer_score": "0"}}, "no_answer_score must be a number in -1e+06..1e+06, got '0'"),
    ({"reward": {"step_cost": True}}, "step_cost must be a number in 0..1e+06 (it is subtracted), got True"),
])
def test_the_other_keywords_are_checked_in_envconfig_too(kwargs, message):
    for env_id in ALL_IDS:
        with pytest.raises(ValueError, match=re.escape(message)):
            _make(env_id, world_size="tiny", **kwargs)


def test_largest_team_and_rounds_are_accepted():
    env = searchgym.make("TeamSearch-Generalists-v0", world_size="tiny", team_size=MAX_TEAM_SIZE,
                         max_rounds=BOUNDS["max_steps"][1])
    observations, _ = env.reset(seed=0)
    assert len(observations) == MAX_TEAM_SIZE and env.max_rounds == 1000


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "TeamSearch-Generalists-Candidates-v0"])
def test_max_candidate_chars_cuts_every_candidate_and_sizes_the_space(env_id):
    env = searchgym.make(env_id, world_size="tiny", max_candidate_chars=24)
    observations, _ = env.reset(seed=0)
    observation = observations[env.agents[0]] if hasattr(env, "possible_agents") else observations
    space = env.observation_space(env.agents[0]) if hasattr(env, "possible_agents") else env.observation_space
    assert all(s.max_length == 24 for s in space["candidates"].spaces)
    assert max(map(len, observation["candidates"])) == 24  # the tiny world's answers carry longer provenance
    assert space.contains(observation)
    default = searchgym.make(env_id, world_size="tiny")
    default_space = default.observation_space(default.possible_agents[0]) if hasattr(default, "possible_agents") \
        else default.observation_space
    assert default_space["candidates"].spaces[0].max_length == 300


def test_numpy_reward_amounts_are_plain_floats():
    """Before: reward={"step_cost": np.float32(0.02)} was refused as "not a finite number"."""
    env = searchgym.make("SearchQA-v0", world_size="tiny", reward={"step_cost": np.float32(0.02),
                                                                   "no_answer_score": np.int64(-1)})
    env.reset(seed=0)
    _, reward, *_ = env.step("<search>x</search>")
    assert type(reward) is float and reward == -float(np.float32(0.02)) - 0.05


@pytest.mark.parametrize("backend", [None, 5, ["bm25s"], {"bm25s": 1}])
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_a_backend_that_is_no_name_lists_the_names(env_id, backend):
    """Before: ["bm25s"] was "unhashable type: 'list'" (the shared-tools cache) and None or 5
    "backend must be a retriever name or a Retriever, got NoneType", naming no backend."""
    with pytest.raises(ValueError, match=re.escape("backend must be a retriever name (bm25s, rank_bm25, dense, "
                                                   f"hybrid) or a Retriever, got {type(backend).__name__}")):
        _make(env_id, world_size="tiny", backend=backend)


@pytest.mark.parametrize("name", ["max_steps", "max_candidates", "max_obs_chars", "max_candidate_chars"])
def test_numpy_ints_are_accepted_as_the_ints_they_are(name):
    """Before: ``np.int64(5)`` (a sweep's ``np.arange``) passed EnvConfig and was refused by the episode's
    own check, "must be a positive int, got np.int64(5)"."""
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny", **{name: np.int64(40)})
    env.reset(seed=0)
    assert type(getattr(env.unwrapped.config, name)) is int and getattr(env.unwrapped.session.config, name) == 40
    team = searchgym.make("TeamSearch-Generalists-v0", world_size="tiny", team_size=np.int64(2))
    assert len(team.reset(seed=0)[0]) == 2
