"""Settings that an env would take and never use are refused, each in one line that says why.

Before: ``make("SearchQA-v0", world=w, world_seed=5)`` played ``w`` and silently ignored the seed, and
``tool_format="tags"`` was taken by the candidate envs, which never read a tool format."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.envs.config import EnvConfig
from searchgym.registry import registered, registered_setting
from searchgym.suites import list_suites, observation_kind
from searchgym.world import World


@pytest.fixture(scope="module")
def world() -> World:
    return World.generate(3, "tiny")


@pytest.mark.parametrize("settings, named", [
    ({"world_seed": 5}, "world_seed=5 (the world's seed is 3) conflicts with world="),
    ({"world_size": "medium"}, "world_size='medium' (the world's size is 'tiny') conflicts with world="),
    ({"world_size": 30}, "world_size=30 (the world's size is 'tiny') conflicts with world="),
    ({"world_seed": 5, "world_size": "medium"}, "world_seed=5 (the world's seed is 3) and world_size='medium' "
                                                "(the world's size is 'tiny') conflict with world="),
])
def test_a_world_seed_or_size_beside_another_world_is_refused(world, settings, named):
    with pytest.raises(ValueError) as raised:
        searchgym.make("SearchQA-v0", world=world, **settings)
    said = str(raised.value)
    assert said.startswith(named) and "\n" not in said
    assert said.endswith("leave world_seed and world_size unset or give the world's own seed and size")
    with pytest.raises(ValueError, match="conflict"):
        EnvConfig(world=world, **settings)
    with pytest.raises(ValueError, match="conflict"):
        searchgym.make("GroupSearch-v0", world=world, group_size=2, **settings)


@pytest.mark.parametrize("settings", [{}, {"world_seed": 3}, {"world_size": "tiny"}, {"world_size": 8},
                                      {"world_seed": 3, "world_size": "tiny"}, {"world_seed": 0},
                                      {"world_size": "small"}])
def test_the_worlds_own_seed_and_size_or_the_defaults_are_taken(world, settings):
    env = searchgym.make("SearchQA-v0", world=world, split="test", **settings)
    assert env.unwrapped.world is world


@pytest.mark.parametrize("env_id, extra", [
    ("SearchQA-Candidates-v0", {}), ("SearchQA-Numeric-v0", {}), ("GroupSearch-Candidates-v0", {"group_size": 2}),
    ("TeamSearch-Candidates-v0", {}),
])
def test_a_tool_format_in_candidate_mode_is_refused(env_id, extra):
    with pytest.raises(ValueError) as raised:
        searchgym.make(env_id, world_size="tiny", tool_format="tags", **extra)
    assert str(raised.value) == ("tool_format applies to text actions only (action_mode='text', where it is "
                                 "'hermes' or 'tags'); with action_mode='candidates' leave it unset, "
                                 "got tool_format='tags'")
    searchgym.make(env_id, world_size="tiny", **extra)  # unset: taken, as before
    with pytest.raises(ValueError, match="^tool_format applies to text actions only"):
        EnvConfig(action_mode="candidates", tool_format="tags")


@pytest.mark.parametrize("env_id, tool_format", [("SearchQA-v0", "hermes"), ("SearchQA-Tags-v0", "tags")])
def test_the_text_ids_keep_their_tool_format(env_id, tool_format):
    assert searchgym.make(env_id, world_size="tiny").unwrapped.config.tool_format == tool_format
    assert searchgym.make("TeamSearch-v0", world_size="tiny", tool_format="tags").config.tool_format == "tags"


def test_no_shipped_candidate_id_or_suite_sets_a_tool_format():
    for entry in registered():
        if registered_setting(entry.id, "action_mode") == "candidates":
            assert registered_setting(entry.id, "tool_format") in (None, "hermes"), entry.id
    for suite in list_suites():
        if observation_kind(suite) != "text":
            assert suite.kwargs.get("tool_format", "hermes") == "hermes", suite.id
