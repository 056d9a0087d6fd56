"""The simulated world: seeded, procedural, fictional (no pretrained model knows it)."""

from __future__ import annotations

import inspect
from functools import lru_cache

from searchgym.world.families import families_identity
from searchgym.world.generate import SIZES, check_rate, check_seed, generate_world, resolve_size
from searchgym.world.loaders import load_corpus, load_tasks, world_from_files
from searchgym.world.model import Entity, EvidenceHop, Fact, Page, Sentence, Task, WorldStats
from searchgym.world.tasks import FAMILIES
from searchgym.world.world import SPLITS, World


@lru_cache(maxsize=8)
def _cached_world(seed: int, scale: int, knobs: tuple[tuple[str, object], ...],
                  families: tuple[object, ...]) -> World:
    """``families`` (:func:`families_identity`) is only part of the key: other builders are another world."""
    from searchgym.world.disk_cache import load_or_generate

    return load_or_generate(seed, scale, **dict(knobs))


def _normalised_knobs(knobs: dict[str, object]) -> tuple[tuple[str, object], ...]:
    """Knobs sorted, without those left at their default (so passing a default is the same world)."""
    parameters = inspect.signature(generate_world).parameters
    return tuple(sorted(
        (name, value) for name, value in knobs.items()
        if name not in parameters or parameters[name].default is inspect.Parameter.empty
        or value != parameters[name].default
    ))


_ADOPTED: dict[tuple[object, ...], World] = {}


def _key(seed: int, size: str | int, knobs: dict[str, object]) -> tuple[int, int, tuple[tuple[str, object], ...]]:
    accepted = [name for name in inspect.signature(generate_world).parameters if name not in ("seed", "size")]
    unknown = sorted(set(knobs) - set(accepted))
    if unknown:  # before: "generate_world() got an unexpected keyword argument", with no word of the knobs
        raise TypeError(f"unknown world knob(s) {unknown}; accepted: {', '.join(accepted)}")
    _, scale = resolve_size(size)
    if "bridge_shortcut_rate" in knobs:  # checked before it is hashed into the key
        check_rate("bridge_shortcut_rate", knobs["bridge_shortcut_rate"])
    return check_seed(seed), scale, _normalised_knobs(knobs)


def shared_world(seed: int = 0, size: str | int = "small", **knobs: object) -> World:
    """The world for (seed, size), built once per process and shared by every env that asks.

    The key is normalised ("tiny" and 8 are one world; a knob at its default is no knob) and holds
    the registered family builders (a family re-registered with other code is another world), and
    big worlds also go through the on-disk cache of :mod:`searchgym.world.disk_cache`, so the
    harness's spawned workers and later runs load one stored world instead of each generating it.
    ``knobs`` go to :func:`searchgym.world.generate.generate_world` unchanged. A world handed over
    by :func:`adopt_world` (e.g. from Ray's object store) is served as it is.
    """
    key = (*_key(seed, size, knobs), families_identity())
    adopted = _ADOPTED.get(key)
    return adopted if adopted is not None else _cached_world(*key)


def adopt_world(world: World, seed: int, size: str | int, **knobs: object) -> None:
    """Serve ``world`` (built by another process, e.g. from Ray's object store) as (seed, size, knobs)."""
    if world.seed != check_seed(seed):
        raise ValueError(f"adopt_world: the world has seed {world.seed}, not {seed}")
    _ADOPTED[(*_key(seed, size, knobs), families_identity())] = world  # served while the families stay these


__all__ = [
    "FAMILIES", "SIZES", "SPLITS", "Entity", "EvidenceHop", "Fact", "Page", "Sentence", "Task", "World",
    "WorldStats", "adopt_world", "load_corpus", "load_tasks", "shared_world", "world_from_files",
]
