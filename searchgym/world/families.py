"""The task families: each registers its builder with :func:`task_family` where it is defined.

A builder is ``builder(maker, split) -> Task | None``: ``maker`` is the world's
:class:`searchgym.world.tasks._TaskMaker` (its seeded generator, entity pools, ``hop`` and
``make``), ``split`` the split to draw the focus entity from; None means "no task this
attempt". Families generate in registration order, each from its own generator with its own id
counter, so a family registered later leaves every earlier family's tasks unchanged. A builder may
delegate to another family's (``family_builder("lookup")(maker, split)``): ``maker.make`` gives the
task, and its id, to the family being generated, whatever family it names, so no two tasks of a
world share an id (:func:`run_builder` refuses a family whose builder made them otherwise). A builder
that raises (or returns something else) leaves its family out of the world, recorded in its
``family_failures``: the families that work still serve their tasks, and asking for the failed
one is an error that names it (:class:`FamilyBuildError`).
:data:`FAMILIES` is the live list of names (``searchgym.world.FAMILIES``).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from searchgym.named_registry import NamedRegistry
from searchgym.world.model import Task

FamilyBuilder = Callable[[Any, str], Any]

FAMILY_REGISTRY: NamedRegistry[FamilyBuilder] = NamedRegistry("task family")
#: Every registered family, in generation order (a live view of :data:`FAMILY_REGISTRY`).
FAMILIES = FAMILY_REGISTRY.names


class FamilyBuildError(RuntimeError):
    """A family's builder raised, or returned something other than a Task or None."""


def task_family(name: str | FamilyBuilder, replace: bool = False) -> Any:
    """Decorator: register ``builder(maker, split)`` as the family ``name`` (a method of the
    task maker works too: it is called with the maker as ``self``). Bare ``@task_family`` names
    the family after the function (before, it registered nothing and replaced the function)."""
    if not isinstance(name, str):
        if callable(name) and isinstance(getattr(name, "__name__", None), str):
            return _register(name.__name__, name, replace)
        raise TypeError(f"task_family takes the family's name (a str), as in @task_family('my_family'), "
                        f"or decorates a builder bare; got {name!r}")

    def register(builder: FamilyBuilder) -> FamilyBuilder:
        return _register(name, builder, replace)
    return register


def _register(name: str, builder: FamilyBuilder, replace: bool) -> FamilyBuilder:
    if not callable(builder):
        raise TypeError(f"task family {name!r}: the builder must be callable, got {type(builder).__name__}")
    FAMILY_REGISTRY.add(name, builder, replace=replace)
    return builder


def builder_label(builder: FamilyBuilder) -> str:
    """``module.qualname`` of a builder: where to look for it."""
    return f"{getattr(builder, '__module__', '?')}.{getattr(builder, '__qualname__', repr(builder))}"


def run_builder(name: str, builder: FamilyBuilder, maker: Any, split: str,
                made_by: dict[str, tuple[str, str]] | None = None) -> Task | None:
    """``builder(maker, split)``, or a :class:`FamilyBuildError` naming the family and its builder.
    Why: a failing builder's own error ("boom") named neither, and it broke every world. ``made_by``
    (task id -> family and question, of every task made so far) refuses a task whose id another task
    has: a builder that built its own Task gave two tasks one id."""
    try:
        task = builder(maker, split)
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__]  # the builder's
        where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        raise FamilyBuildError(f"task family {name!r} ({builder_label(builder)}) raised "
                               f"{type(exc).__name__}: {exc}{where}") from exc
    if task is not None and not isinstance(task, Task):
        raise FamilyBuildError(f"task family {name!r} ({builder_label(builder)}) returned a "
                               f"{type(task).__name__}; a builder returns maker.make(...) (a Task) or None")
    if task is not None and made_by is not None:
        owner, question = made_by.setdefault(task.id, (name, task.question))
        if (owner, question) != (name, task.question):
            who = "another of its tasks" if owner == name else f"a task of family {owner!r}"
            raise FamilyBuildError(f"task family {name!r} ({builder_label(builder)}) made a task with the id "
                                   f"{task.id!r}, which {who} has; a builder returns maker.make(...), whose "
                                   f"ids are the family's own")
    return task


def family_builder(name: str) -> FamilyBuilder:
    """The builder of ``name`` (a ValueError naming the registered families when unknown)."""
    return FAMILY_REGISTRY.get(name)


def families_key() -> tuple[str, ...]:
    """Each family's name and builder, as text: the on-disk cache's record of the families. It
    names a builder, not its code: the cache only stores worlds whose builders are all code it
    hashes (:func:`searchgym.world.disk_cache.uncovered_families`)."""
    return tuple(f"{name}={builder_label(b)}" for name, b in FAMILY_REGISTRY.items())


class _SameObject:
    """A builder compared and hashed by identity (a callable object need not be hashable)."""

    __slots__ = ("target",)

    def __init__(self, target: object) -> None:
        self.target = target

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _SameObject) and other.target is self.target

    def __hash__(self) -> int:
        return id(self.target)


def families_identity() -> tuple[tuple[str, _SameObject], ...]:
    """The families as (name, builder) pairs compared by identity: the in-process key of a world.
    Why not :func:`families_key`: a builder re-registered with ``replace=True`` keeps its name and
    qualified name, so a world cached by those served the old builder's tasks. The key holds the
    builders themselves, so an id is never reused while it is cached, and putting the old builder
    back (``FAMILY_REGISTRY.scoped()``) finds the old world again."""
    return tuple((name, _SameObject(builder)) for name, builder in FAMILY_REGISTRY.items())
