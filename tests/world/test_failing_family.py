"""A family builder that fails is named in the error, and leaves the worlds, envs and suites that do
not ask for it as they were; bare ``@task_family`` registers the function under its own name.

Before: a builder's error ("boom") came out of every env and suite, even those of other families,
and ``@task_family`` without parentheses registered nothing."""

from __future__ import annotations

import pytest

from searchgym import suites as suite_module
from searchgym.envs.search import SearchEnv
from searchgym.suites import Suite
from searchgym.world import FAMILIES, World
from searchgym.world.families import FAMILY_REGISTRY, FamilyBuildError, family_builder, task_family


def explode(maker, split):
    raise RuntimeError("boom")


def not_a_task(maker, split):
    return "a task"


@pytest.fixture
def families():
    with FAMILY_REGISTRY.scoped():
        yield


def test_bare_task_family_registers_the_function_under_its_name(families):
    @task_family
    def first_relation(maker, split):
        return None

    assert callable(first_relation) and FAMILIES[-1] == "first_relation"
    assert family_builder("first_relation") is first_relation


def test_task_family_refuses_a_name_that_is_not_a_str(families):
    with pytest.raises(TypeError, match=r"task_family takes the family's name \(a str\).*; got 5$"):
        task_family(5)
    assert "5" not in FAMILIES


def test_a_raising_family_is_named_and_leaves_every_other_family_as_it_was(families):
    plain = World.generate(0, "tiny")
    task_family("exploding")(explode)
    world = World.generate(0, "tiny")
    assert world.fingerprint == plain.fingerprint  # as if the family had not been registered
    assert world.tasks_in("test", ["lookup"]) == plain.tasks_in("test", ["lookup"])
    named = r"task family 'exploding' \(test_failing_family\.explode\) raised RuntimeError: boom at .*\.py:\d+"
    with pytest.raises(FamilyBuildError, match=named + r"; this world has none of its tasks: fix the builder"):
        world.tasks_in("test", ["lookup", "exploding"])
    with pytest.raises(FamilyBuildError, match=r"\(families=None asks for every family\)"):
        world.tasks_in("test")


def test_envs_and_suites_of_other_families_still_work_beside_a_raising_family(families, monkeypatch):
    suite = Suite("test-lookup-v0", 0, "SearchQA-Candidates-v0", world_size="tiny", families=("lookup",),
                  dev_size=4, test_size=4)
    monkeypatch.setattr(suite_module, "_HASHES", {})  # hashed afresh, not read from the process's cache
    content_hash, test_tasks = suite.content_hash, suite.tasks("test")
    task_family("exploding")(explode)
    monkeypatch.setattr(suite_module, "_HASHES", {})
    assert suite.content_hash == content_hash and suite.tasks("test") == test_tasks
    env = SearchEnv(world_size="tiny", families=["lookup"], action_mode="candidates")
    _, info = env.reset(seed=0)
    assert env.session.task.family == "lookup"
    with pytest.raises(FamilyBuildError, match="task family 'exploding'"):
        SearchEnv(world_size="tiny", families=["exploding"])


def test_a_builder_that_returns_something_else_than_a_task_is_named(families):
    task_family("odd")(not_a_task)
    world = World.generate(0, "tiny")
    with pytest.raises(FamilyBuildError, match=r"task family 'odd' \(test_failing_family\.not_a_task\) returned "
                                               r"a str; a builder returns maker\.make\(\.\.\.\) \(a Task\) or None"):
        world.tasks_in("train", "odd")
