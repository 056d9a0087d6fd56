"""A family whose builder delegates to another family's builder makes tasks of its own, with ids of its
own, and leaves every other family's tasks as they were; a builder that gives two tasks one id is left
out of the world, named with its builder and the id.

Before: a builder calling the lookup builder got tasks of family "lookup" numbered by its own counter,
so one world held two tasks ``lookup-00001`` (and the copies joined every suite over the lookup family).
"""

from __future__ import annotations

import dataclasses

import pytest

from searchgym.suites import ALL_FAMILIES
from searchgym.world import World
from searchgym.world.families import FAMILY_REGISTRY, FamilyBuildError, family_builder, task_family


@pytest.fixture
def families():
    with FAMILY_REGISTRY.scoped():
        yield


def relay(maker, split):
    return family_builder("lookup")(maker, split)


def copycat(maker, split):
    task = family_builder("lookup")(maker, split)
    return None if task is None else dataclasses.replace(task, id="lookup-00001")


def one_id(maker, split):
    task = family_builder("lookup")(maker, split)
    return None if task is None else dataclasses.replace(task, id="one_id-00001")


def test_a_delegating_family_makes_its_own_tasks_and_changes_no_other_familys(families):
    plain = World.generate(0, "tiny")
    task_family("relay")(relay)
    world = World.generate(0, "tiny")
    ids = [task.id for task in world.tasks]
    assert len(ids) == len(set(ids))
    relayed = [task for task in world.tasks if task.family == "relay"]
    assert relayed and all(task.id.startswith("relay-") for task in relayed)
    assert world.tasks_in("test", ["relay"]) == [task for task in relayed if task.split == "test"]
    assert tuple(task for task in world.tasks if task.family != "relay") == plain.tasks
    assert world.tasks_in("test", ALL_FAMILIES) == plain.tasks_in("test", ALL_FAMILIES)  # the suites' tasks


@pytest.mark.parametrize("builder, taken", [
    (copycat, r"'lookup-00001', which a task of family 'lookup' has"),
    (one_id, r"'one_id-00001', which another of its tasks has"),
])
def test_a_builder_giving_two_tasks_one_id_is_left_out_named_with_the_id(families, builder, taken):
    plain = World.generate(0, "tiny")
    task_family(builder.__name__)(builder)
    world = World.generate(0, "tiny")
    assert world.tasks == plain.tasks
    line = (rf"task family '{builder.__name__}' \(\S*{builder.__name__}\) made a task with the id {taken}; "
            r"a builder returns maker\.make\(\.\.\.\), whose ids are the family's own")
    assert len(world.family_failures) == 1
    with pytest.raises(FamilyBuildError, match=line):
        world.tasks_in("test", [builder.__name__])
