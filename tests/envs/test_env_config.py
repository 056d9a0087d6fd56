"""EnvConfig: one value for every env's settings, the same keywords as before, clear errors; and
spaces owned by each env instance (never shared, so seeding one env cannot move another)."""

from __future__ import annotations

import gc
import json
import weakref
from dataclasses import asdict, replace

import numpy as np
import pytest

import searchgym
from searchgym.envs.config import CONFIG_KWARGS, EnvConfig
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.multi import MultiSearchEnv
from searchgym.envs.multi import MultiSearchEnv as MultiFromItsModule
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv
from searchgym.registry import accepted_kwargs
from searchgym.scoring import RewardConfig

TINY = EnvConfig(world_size="tiny", action_mode="candidates")


def _episode(env: SearchEnv, seed: int = 2) -> list:
    obs, _ = env.reset(seed=seed)
    trace = [obs["text"], obs["candidates"]]
    for _ in range(4):
        obs, reward, terminated, truncated, _ = env.step(0)
        trace += [obs["text"], obs["candidates"], reward]
        if terminated or truncated:
            break
    return trace


def test_a_config_and_the_same_keywords_build_the_same_env():
    by_config = SearchEnv(config=EnvConfig(world_size="tiny", action_mode="candidates", max_steps=5))
    by_keywords = SearchEnv(world_size="tiny", action_mode="candidates", max_steps=5)
    assert by_config.env_config == by_keywords.env_config
    assert by_config.config.max_steps == 5 and by_config.world is by_keywords.world
    assert _episode(by_config) == _episode(by_keywords)


def test_keywords_override_the_config_and_a_reward_dict_becomes_a_reward_config():
    env = SearchEnv(config=TINY, max_candidates=8, reward={"step_cost": 0.5})
    assert env.config.max_candidates == 8 and env.config.action_mode == "candidates"
    assert env.config.reward == RewardConfig(step_cost=0.5)
    assert TINY.max_candidates == 48  # the config itself is not changed


def test_every_env_takes_the_config_and_the_registry_lists_its_fields():
    group = GroupSearchEnv(group_size=2, config=TINY)
    team = TeamSearchEnv(max_rounds=3, config=TINY)
    assert group.env_config is TINY and group.config.action_mode == "candidates"
    assert team.config.max_steps == 3 and team.env_config.world_size == "tiny"
    made = searchgym.make("GroupSearch-v0", config=TINY, group_size=2)  # the id's own keywords win
    assert made.config.action_mode == "text" and made.env_config.world_size == "tiny"
    for env_class, own in ((SearchEnv, []), (GroupSearchEnv, ["group_size"]),
                           (TeamSearchEnv, ["roles", "team_size", "reward_mode", "max_rounds"])):
        assert accepted_kwargs(env_class) == [*own, "config", *CONFIG_KWARGS]


def test_multi_search_env_moved_and_keeps_its_old_import_path():
    assert MultiSearchEnv is MultiFromItsModule
    assert issubclass(GroupSearchEnv, MultiFromItsModule) and issubclass(TeamSearchEnv, MultiFromItsModule)


@pytest.mark.parametrize("build, match", [
    (lambda: SearchEnv(max_step=3), r"SearchEnv got unknown keyword argument\(s\) 'max_step'; accepted: config, "),
    (lambda: GroupSearchEnv(group_sise=2), r"'group_sise'; accepted: group_size, config, action_mode"),
    (lambda: TeamSearchEnv(round=2), r"'round'; accepted: roles, team_size, reward_mode, max_rounds, config"),
    (lambda: SearchEnv(config={"max_step": 3}), r"SearchEnv: config has unknown field\(s\) 'max_step'; EnvConfig's "),
    (lambda: SearchEnv(config=[("max_steps", 3)]), "config must be an EnvConfig, a dict of its fields, or None, got list"),
])
def test_bad_keywords_and_configs_are_type_errors_that_say_what_is_accepted(build, match):
    with pytest.raises(TypeError, match=match):
        build()


@pytest.mark.parametrize("kwargs, match", [
    ({"render_mode": "rgb_array"}, "render_mode must be None, 'ansi' or 'human'"),
    ({"observation_data": "yes"}, "observation_data must be True or False"),
    ({"reward": 0.5}, "reward must be a RewardConfig, a dict of its fields or None, got float"),
])
def test_bad_config_values_are_value_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        EnvConfig(**kwargs)


def test_a_team_counts_rounds_whether_steps_come_by_keyword_or_by_config():
    with pytest.raises(ValueError, match="use max_rounds, not max_steps"):
        TeamSearchEnv(world_size="tiny", max_steps=4)
    with pytest.raises(ValueError, match="use max_rounds, not max_steps"):
        TeamSearchEnv(config=EnvConfig(world_size="tiny", max_steps=4))
    with pytest.raises(TypeError, match="'max_episode_steps'; accepted: ") as refused:
        TeamSearchEnv(world_size="tiny", max_episode_steps=4)
    assert "max_steps" not in str(refused.value)  # before: offered, then refused as above


@pytest.mark.parametrize("env_id", ["TeamSearch-Candidates-v0", "TeamSearch-Numeric-v0", "TeamSearch-Generalists-v0"])
def test_a_team_id_does_not_offer_max_steps_either(env_id):
    """Before: ``searchgym.make`` of a team id listed max_steps among the accepted keywords (the
    registry's list), then refused it."""
    import searchgym

    with pytest.raises(TypeError, match="'max_stepz'; accepted: ") as refused:
        searchgym.make(env_id, world_size="tiny", max_stepz=4)
    assert "max_rounds" in str(refused.value) and "max_steps" not in str(refused.value).replace("max_stepz", "")
    with pytest.raises(ValueError, match="use max_rounds, not max_steps"):
        searchgym.make(env_id, world_size="tiny", max_steps=4)


# ------------------------------------------------------------------------------------- spaces
def _samples(space, seed: int, n: int = 6) -> list:
    space.seed(seed)
    return [space.sample() for _ in range(n)]


def test_two_envs_have_their_own_spaces_and_sampling_one_does_not_move_the_other():
    a, b = SearchEnv(config=TINY), SearchEnv(config=TINY)
    assert a.action_space is not b.action_space and a.observation_space is not b.observation_space
    alone = _samples(b.action_space, seed=5)
    b.action_space.seed(5)
    a.action_space.seed(0)
    interleaved = []
    for _ in range(6):
        a.action_space.sample()  # drawing from a between b's draws
        interleaved.append(b.action_space.sample())
    assert interleaved == alone
    text_a, text_b = SearchEnv(world_size="tiny"), SearchEnv(world_size="tiny")
    assert text_a.action_space is not text_b.action_space


@pytest.mark.parametrize("make", [
    lambda: GroupSearchEnv(group_size=2, config=TINY),
    lambda: searchgym.make("GroupSearch-Numeric-v0", world_size="tiny", group_size=2),
])
def test_parallel_envs_have_one_space_per_agent_and_env(make):
    a, b = make(), make()
    assert a.action_space("agent_0") is a.action_space("agent_0")  # PettingZoo: the same object
    assert a.action_space("agent_0") is not a.action_space("agent_1")
    assert a.action_space("agent_0") is not b.action_space("agent_0")
    alone = _samples(b.action_space("agent_0"), seed=5)
    b.action_space("agent_0").seed(5)
    interleaved = []
    for _ in range(6):
        a.action_space("agent_0").sample()
        interleaved.append(b.action_space("agent_0").sample())
    assert interleaved == alone
    with pytest.raises(KeyError, match="unknown agent 'agent_9'"):
        a.observation_space("agent_9")


@pytest.mark.parametrize("make", [
    lambda: GroupSearchEnv(group_size=2, config=TINY),
    lambda: searchgym.make("TeamSearch-Numeric-v0", world_size="tiny"),
])
def test_asking_for_spaces_does_not_keep_an_env_alive(make):
    env = make()
    for agent in env.possible_agents:
        env.observation_space(agent), env.action_space(agent)
    ref = weakref.ref(env)
    del env
    gc.collect()
    assert ref() is None


def test_observation_space_still_holds_every_observation():
    env = GroupSearchEnv(group_size=2, config=TINY)
    obs, _ = env.reset(seed=1)
    rng = np.random.default_rng(0)
    while env.agents:
        assert all(env.observation_space(a).contains(o) for a, o in obs.items())
        obs, *_ = env.step({a: int(rng.integers(len(env.sessions[a].candidates))) for a in env.agents})


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "TeamSearch-Candidates-v0"])
def test_an_env_made_with_a_config_is_rebuilt_from_its_json_spec(env_id):
    """Gymnasium's ``EnvSpec.to_json`` writes ``config=EnvConfig(...)`` as a dict (Minari and other
    tools save specs so); ``from_json(...).make()`` refused that dict, so the env could not be rebuilt."""
    import gymnasium
    from gymnasium.envs.registration import EnvSpec

    import searchgym
    from searchgym.envs.config import EnvConfig

    if env_id.startswith("SearchQA"):
        config = EnvConfig(world_size="tiny", max_steps=3, families=("lookup", "bridge"))
        env = searchgym.make(env_id, config=config)
        again = EnvSpec.from_json(env.spec.to_json()).make()
        first, _ = env.reset(seed=5)
        second, _ = again.reset(seed=5)
        assert replace(again.unwrapped.env_config, families=config.families) == env.unwrapped.env_config
        assert first["text"] == second["text"] and first["candidates"] == second["candidates"]
        assert isinstance(again, gymnasium.Env)
    else:
        config = EnvConfig(world_size="tiny", max_candidates=12)
        env = TeamSearchEnv(config=config)
        rebuilt = TeamSearchEnv(config=json.loads(json.dumps(asdict(config), default=list)))
        assert rebuilt.env_config == env.env_config
