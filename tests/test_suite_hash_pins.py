"""The built-in suites are frozen: their hashes are pinned here, and nothing a user's module registers
before or after searchgym's (a task family, a tool) changes them while searchgym's own tools play.

A pinned hash that moves means a built-in suite changed: give it a new version instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from searchgym.suites import ALL_FAMILIES, SUITES, get_suite
from searchgym.world.families import FAMILY_REGISTRY

PINNED = {
    "quick-v2": "665ea75ef12f233d60c251688b1e771254224ffaec0452f25a04b4b3308afc91",
    "searchqa-v2": "e940bb71899be524eb95a6aa7a7bc384a5d89eb4a8529345b58655410a4101fe",
    "searchqa-easy-v2": "118990f2302268eb37a2fce7c367ebdc9d9c7cca1b0e7e9b6affdbbc4be9c153",
    "searchqa-hard-v2": "252b0dbae2a94a9f94a26c772a45bc34b7c596f4ed840857a5ed25dda67ad3fa",
    "team-v2": "88e40e6947b62d7af0f6918156f197a09260cb4ac3192ae5c3de9974c020a799",
    "team-easy-v2": "68d0496b8d8e4e8d921cb92dfd5cc3e4cddcfe90219a73a13a33d0bc2f92d1fe",
    "team-hard-v2": "bc198c57bd7000ea190b15c7c1474165d8fd205b8c11a6ba14e475fef41e1f59",
    "group-v2": "9de73ecae0e0ca7e4615430e93f29032b367c4768834c2b19e97a4b8a6e18f17",
    "group-easy-v2": "5d7a036f2105a63dc883c8532242227a1a51798ce123bfba6c66945d2292a6ac",
    "group-hard-v2": "9f6a0568a51b7c2d022c7b60b16e5c3f632679397157af0d4ba637ff52701667",
    "searchqa-text-v2": "ef52c9b071f3ccd4519198c98a904ff8bccec8b4826f0bb8668fd40e9b75e63f",
    "team-text-v2": "c19655b1ecc2cb6ad4ea8ba3f4d22c262c22acf91c18fb5e8d7db05c013c67bd",
    "group-text-v2": "b7920369169b15d2530e8b54be9e5cb34d7ccaf442c78feb0788eb7060b5a44d",
}

#: A user's module, run before searchgym.suites is first imported: it registers a family of its own.
REGISTERS_A_FAMILY_FIRST = """
import json, sys
from searchgym.world.families import task_family
assert "searchgym.suites" not in sys.modules

@task_family("first_relation")
def first_relation(maker, split):
    eid = maker.entity_in(split)
    facts = [f for f in maker.forward[eid] if f.object_id is not None] if eid else []
    if not facts:
        return None
    fact = maker.pick(facts)
    question = f"Which entity is linked to {maker.entities[eid].name} by {fact.predicate!r}?"
    hops = [maker.hop(fact)]
    return maker.make("first_relation", split, question, maker.aliases(fact), "entity", hops,
                      maker.lookup_tools(hops), [eid])

from searchgym.suites import get_suite
names = %r
world = get_suite(names[0]).world()
print(json.dumps({
    "made": sum(t.family == "first_relation" for t in world.tasks),
    "hashes": {n: get_suite(n).content_hash for n in names},
    "families": {n: list(get_suite(n).families) for n in names},
    "test_tasks": {n: [t.id for t in get_suite(n).tasks("test")] for n in names},
}))
"""


def built_in_suites() -> dict:
    return {name: suite for name, suite in SUITES.items() if name in PINNED}


def test_every_built_in_suite_has_its_pinned_hash():
    assert set(built_in_suites()) == set(PINNED)
    assert {name: suite.content_hash for name, suite in built_in_suites().items()} == PINNED
    assert all("registered_tools" not in suite.definition() for suite in built_in_suites().values())


def test_a_family_registered_before_the_suites_are_imported_changes_no_built_in_suite():
    """Before: ALL_FAMILIES was read when searchgym.suites was first imported, so a user's family
    registered earlier joined every suite over every family (searchqa-easy-v2: 196 -> 200 test tasks)."""
    names = ["searchqa-easy-v2", "searchqa-v2", "team-text-v2"]
    result = subprocess.run([sys.executable, "-c", REGISTERS_A_FAMILY_FIRST % (names,)], capture_output=True,
                            text=True, check=True, timeout=600, cwd=Path(__file__).parents[1],
                            env={"PYTHONHASHSEED": "0", "PATH": "", "SEARCHGYM_WORLD_CACHE": "off"})
    there = json.loads(result.stdout.strip().splitlines()[-1])
    assert there["made"] > 0  # the family did generate tasks in that world
    assert there["hashes"] == {name: PINNED[name] for name in names}
    assert there["families"] == {name: list(ALL_FAMILIES) for name in names}
    assert there["test_tasks"] == {name: [t.id for t in get_suite(name).tasks("test")] for name in names}


def test_the_suites_over_every_family_use_the_families_searchgyms_own_modules_register():
    """A family added to searchgym's generator joins no suite silently: add it to ALL_FAMILIES with
    new suite versions (the pinned hashes above would move)."""
    own = tuple(name for name, builder in FAMILY_REGISTRY.items() if builder.__module__.startswith("searchgym."))
    assert own == ALL_FAMILIES


def test_every_built_in_suite_passes_the_checks_a_registered_suite_gets():
    from searchgym.suites import check_suite

    for suite in built_in_suites().values():
        check_suite(suite)  # with its env class loaded: what register_frozen leaves out
