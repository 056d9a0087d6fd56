"""A task family re-registered with other code is another world, in the process and on disk.

Before: both caches were keyed by each family's name and function name, so a family replaced with
``replace=True`` (or a module of one's own edited between runs) was served with its old tasks.
"""

from __future__ import annotations

import pytest

import searchgym
from searchgym.registry import base_env
from searchgym.world import World, disk_cache, shared_world
from searchgym.world.disk_cache import cache_identity, load_or_generate, uncovered_families
from searchgym.world.families import FAMILY_REGISTRY, families_key, family_builder, task_family


def _no_task(maker, split):
    return None


def _define_extra(asks_lookups: bool):
    """Two builders with one name and one qualified name, as an edited module gives."""
    lookup = family_builder("lookup")

    def extra(maker, split):
        return lookup(maker, split) if asks_lookups else None

    return extra


@pytest.fixture
def extra_family():
    with FAMILY_REGISTRY.scoped():
        task_family("extra")(_define_extra(asks_lookups=False))
        yield


def test_shared_world_and_make_follow_a_replaced_family(extra_family):
    before = shared_world(0, "tiny")
    task_family("extra", replace=True)(_define_extra(asks_lookups=True))
    generated = World.generate(0, "tiny")
    assert len(generated.tasks) > len(before.tasks)
    assert shared_world(0, "tiny").fingerprint == generated.fingerprint
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
    assert base_env(env).world.fingerprint == generated.fingerprint


def test_restoring_the_families_serves_the_world_built_for_them_again():
    built_in = shared_world(0, "tiny")
    with FAMILY_REGISTRY.scoped():
        task_family("extra")(_no_task)
        assert shared_world(0, "tiny") is not built_in
    assert shared_world(0, "tiny") is built_in


def test_a_world_with_a_family_from_outside_the_generator_is_never_stored(tmp_path, monkeypatch,
                                                                         extra_family):
    monkeypatch.setattr(disk_cache, "MIN_CACHED_SCALE", 0)
    assert uncovered_families() == ["extra"]
    first = load_or_generate(0, "tiny", tmp_path)
    assert not list(tmp_path.glob("*.pickle"))
    task_family("extra", replace=True)(_define_extra(asks_lookups=True))
    again = load_or_generate(0, "tiny", tmp_path)
    assert len(again.tasks) > len(first.tasks)
    assert again.fingerprint == World.generate(0, "tiny").fingerprint


def test_worlds_of_the_built_in_families_keep_their_cache_and_key(tmp_path, monkeypatch):
    monkeypatch.setattr(disk_cache, "MIN_CACHED_SCALE", 0)
    assert uncovered_families() == []
    methods = ("lookup", "bridge", "comparison", "aggregate", "temporal", "ambiguous", "list=listing")
    # the key's record of the families is what it was, so no stored world is generated again
    assert cache_identity(0, "tiny", {})["families"] == list(families_key()) == [
        f"{m.partition('=')[0]}=searchgym.world.tasks._TaskMaker.{m.rpartition('=')[2]}" for m in methods]
    load_or_generate(0, "tiny", tmp_path)
    assert len(list(tmp_path.glob("world-0-tiny-*.pickle"))) == 1
