"""What a World says when asked for tasks or a size it does not have, and what its corpus hash covers."""

from __future__ import annotations

import dataclasses
import re

import pytest

from searchgym.world import World
from searchgym.world.families import FAMILY_REGISTRY, task_family

FAMILIES_LISTED = "aggregate, ambiguous, bridge, comparison, list, lookup, temporal"
#: World.generate(0, "tiny").corpus_fingerprint: suites hash it, so it must never move.
TINY_CORPUS_FINGERPRINT = "c90f91be20bd26d2c754eeeece5bae72b4b19f8b6b197145700cc6b1ad091891"


@pytest.fixture(scope="module")
def world() -> World:
    return World.generate(0, "tiny")


def test_one_family_name_is_that_family_not_its_letters(world):
    # before: "bridge" was read letter by letter and matched no family
    bridges = world.tasks_in("train", families=["bridge"])
    assert bridges and world.tasks_in("train", families="bridge") == bridges
    assert world.tasks_in("train", families=(f for f in ["bridge"])) == bridges


@pytest.mark.parametrize(("filters", "message"), [
    ({"families": ["brige"]}, f"unknown task families ['brige']; accepted: {FAMILIES_LISTED}"),
    ({"families": "brige"}, f"unknown task families ['brige']; accepted: {FAMILIES_LISTED}"),
    ({"difficulty": "HARD"}, "difficulty must be None or one of ('easy', 'hard'), got 'HARD'"),
    ({"families": []}, f"families=[] is empty, which is not accepted: None (the default) means every family; or "
                       f"name some of: {FAMILIES_LISTED}"),
])
def test_an_unknown_family_or_difficulty_is_an_error_not_no_tasks(world, filters, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        world.tasks_in("train", **filters)


def test_a_family_registered_after_the_world_was_built_is_a_known_name(world):
    with FAMILY_REGISTRY.scoped():
        task_family("extra")(lambda maker, split: None)
        assert world.tasks_in("train", families=["extra"]) == []


def test_the_size_messages_state_one_bound():
    # before: a float was told "or a positive int", where 1..3 are refused as "must be >= 4"
    wanted = "size must be one of tiny, small, medium, large, xl or an int >= 4, got float 8.0"
    with pytest.raises(TypeError, match=re.escape(wanted)):
        World.generate(0, 8.0)
    with pytest.raises(ValueError, match="must be >= 4, got 3"):
        World.generate(0, 3)


def test_the_corpus_fingerprint_covers_meta_as_its_docstring_says(world):
    assert world.corpus_fingerprint == TINY_CORPUS_FINGERPRINT
    other_knobs = dataclasses.replace(world, meta={"bridge_shortcut_rate": 0.5})
    assert other_knobs.pages == world.pages and other_knobs.kb == world.kb
    assert other_knobs.corpus_fingerprint != world.corpus_fingerprint
    documented = World.corpus_fingerprint.__doc__
    assert "meta" in documented and "bridge_shortcut_rate" in documented
