"""The task families: each registers its builder with :func:`task_family` where it is defined.

A builder is ``builder(maker, split) -> Task | None``: ``maker`` is the world's
:class:`searchgym.world.tasks._TaskMaker` (its seeded generator, entity pools, ``hop`` and
``make``), ``split`` the split to draw the focus entity from; None means "no task this
attempt". Families generate in registration order, each from its own generator with its own id
counter, so a family registered later leaves every earlier family's tasks unchanged.
:data:`FAMILIES` is the live list of names (``searchgym.world.FAMILIES``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from searchgym.named_registry import NamedRegistry

FamilyBuilder = Callable[[Any, str], Any]

FAMILY_REGISTRY: NamedRegistry[FamilyBuilder] = NamedRegistry("task family")
#: Every registered family, in generation order (a live view of :data:`FAMILY_REGISTRY`).
FAMILIES = FAMILY_REGISTRY.names


def task_family(name: str, replace: bool = False) -> Callable[[FamilyBuilder], FamilyBuilder]:
    """Decorator: register ``builder(maker, split)`` as the family ``name`` (a method of the
    task maker works too: it is called with the maker as ``self``)."""
    def register(builder: FamilyBuilder) -> FamilyBuilder:
        if not callable(builder):
            raise TypeError(f"task family {name!r}: the builder must be callable, got {type(builder).__name__}")
        FAMILY_REGISTRY.add(name, builder, replace=replace)
        return builder
    return register


def family_builder(name: str) -> FamilyBuilder:
    """The builder of ``name`` (a ValueError naming the registered families when unknown)."""
    return FAMILY_REGISTRY.get(name)


def families_key() -> tuple[str, ...]:
    """Each family's name and builder, as text: the on-disk cache's record of the families. It
    names a builder, not its code: the cache only stores worlds whose builders are all code it
    hashes (:func:`searchgym.world.disk_cache.uncovered_families`)."""
    return tuple(f"{name}={getattr(b, '__module__', '?')}.{getattr(b, '__qualname__', repr(b))}"
                 for name, b in FAMILY_REGISTRY.items())


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
