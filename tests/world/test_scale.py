"""Generation at any size: no name exhaustion, sizes normalised, linear-time task helpers unchanged."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from searchgym.world import SIZES, World
from searchgym.world.generate import generate_world, resolve_size
from searchgym.world.names import _COMPANY_SUFFIXES, _STUDIO_SUFFIXES, NameMaker
from searchgym.world.tasks import _TaskMaker

#: Fingerprints of the preset worlds of world-v1 (as generated before the scale work was merged:
#: the linear-time generation draws exactly what the old code drew); they must never move.
PRESET_FINGERPRINTS = {
    "tiny": "4f2635950f663132a9dc3a1432cabb09a04a6e1034d2542a88b859f9effb0e64",
    "small": "4cb3c14a89d799b8e4cad707f0e0b6031e1dddd8c175432adf4e9883a3e58ded",
    "medium": "8f258f31388e6d968a24eafedb8424d2ffe959cf3c9b5da70fec73ec57b37960",
}


@pytest.mark.parametrize("size", sorted(PRESET_FINGERPRINTS))
def test_preset_worlds_are_byte_identical_to_before(size):
    assert World.generate(0, size).fingerprint == PRESET_FINGERPRINTS[size]


def test_an_int_equal_to_a_preset_scale_is_that_preset():
    assert resolve_size(8) == ("tiny", 8)
    assert resolve_size(np.int64(SIZES["small"])) == ("small", SIZES["small"])
    assert resolve_size(13) == ("13", 13)
    assert World.generate(0, 8).fingerprint == PRESET_FINGERPRINTS["tiny"]


def test_every_small_integer_size_generates():
    for size in range(4, 16):
        world = generate_world(3, size)
        assert world.pages and world.tasks, size


def test_a_near_namesake_of_an_exhausted_base_falls_back_to_a_fresh_name():
    names = NameMaker(np.random.default_rng(0))
    taken = [names.company("Vexa", "studio") for _ in _STUDIO_SUFFIXES]
    assert sorted(taken) == sorted(f"Vexa {s}" for s in _STUDIO_SUFFIXES)
    fresh = names.company("Vexa", "studio")  # used to retry 1000 times, then raise
    assert not fresh.startswith("Vexa ") and fresh.split(" ")[1] in _STUDIO_SUFFIXES
    assert names.company("Vexa", "company").split(" ")[0] == "Vexa"  # other kinds still have room
    assert set(_COMPANY_SUFFIXES).isdisjoint(_STUDIO_SUFFIXES)


def test_generation_restores_the_garbage_collector_state():
    assert gc.isenabled()
    generate_world(0, 4)
    assert gc.isenabled()
    gc.disable()
    try:
        generate_world(0, 4)
        assert not gc.isenabled()
    finally:
        gc.enable()


def _maker(seed: int) -> _TaskMaker:
    world = World.generate(0, "small")
    return _TaskMaker(world.entities, world.facts, world.pages, world.kb, world.now, np.random.default_rng(seed))


def test_entity_in_draws_what_the_concatenated_list_would():
    fast, reference = _maker(5), _maker(5)
    type_choices = [None, ("person",), ("city", "company"), ("film", "city"), ("nothing",)]
    for i in range(300):
        split, types = ("train", "dev", "test")[i % 3], type_choices[i % len(type_choices)]
        wanted = types or tuple({t for (_, t) in reference.pool})
        candidates = [eid for t in sorted(wanted) for eid in reference.pool.get((split, t), [])]
        assert fast.entity_in(split, types) == reference.pick(candidates)


def test_other_in_pool_draws_what_the_filtered_list_would():
    fast, reference = _maker(9), _maker(9)
    for i in range(300):
        split = ("train", "dev", "test")[i % 3]
        a = reference.entity_in(split)
        assert fast.entity_in(split) == a
        others = [e for e in reference.pool.get((split, reference.entities[a].type), []) if e != a]
        b = fast.other_in_pool(split, a)
        assert b == reference.pick(others) and b != a
